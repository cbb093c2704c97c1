/* sp_guard.h - the tools' guard against a library crashing on a damaged
 * input: libhdf5 (1.10) trusts sizes and offsets it reads from a file, and
 * a crafted or damaged one makes it read out of bounds. Internal. */
#ifndef SP_GUARD_H
#define SP_GUARD_H

#ifdef __cplusplus
extern "C" {
#endif

/* The tools' main (never the runtime): a SIGSEGV, SIGBUS, SIGFPE or
 * SIGILL of a thread inside sp_fmt_guard_enter/leave ends the tool with
 * "<tool>: <path>: the HDF5 library crashed reading it (<signal>): the
 * file is damaged", exit status 1, its pending temporaries removed
 * (sp_tmp.h). Anywhere else the signal goes where it went before (a crash
 * of the tool's own code stays a crash). */
void sp_fmt_crash_guard(void);

/* This thread reads path (which must live until the matching leave)
 * through the library; nests. */
void sp_fmt_guard_enter(const char *path);
void sp_fmt_guard_leave(void);

#ifdef __cplusplus
}
#endif
#endif /* SP_GUARD_H */
