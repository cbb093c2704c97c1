/* sp_tmp.h - outputs written under a temporary name and renamed into place;
 * the tools' removal of pending temporaries on a signal. Internal. */
#ifndef SP_TMP_H
#define SP_TMP_H

#include "sp_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A temporary name beside path ("<path>.tmp.<pid>.<n>"), in buf.
 * Returns 0, or -1 when buf is too small. */
int sp_fmt_tmp_name(const char *path, char *buf, size_t size);

/* Renames tmp to path. On failure removes tmp, leaves path alone, says
 * "<path>: <reason>" in err and returns -1. Either way tmp is no longer
 * pending (sp_fmt_tmp_guard). */
int sp_fmt_tmp_commit(const char *tmp, const char *path, sp_fmt_err *err);

/* Creates a new file under a temporary name beside path, in buf: created
 * exclusively and without following a symbolic link, so nothing planted
 * at the name is ever written through; a name that exists is passed over
 * for another. Pending until committed or sp_fmt_tmp_discard. The file
 * descriptor (write only, close-on-exec), or -1 with err set
 * ("<path>: <reason>"). */
int sp_fmt_tmp_create(const char *path, char *buf, size_t size,
                      sp_fmt_err *err);
/* Tries at most this many names before giving up with EEXIST. */
#define SP_FMT_TMP_TRIES 64

/* Removes tmp and forgets it. */
void sp_fmt_tmp_discard(const char *tmp);

/* Pending temporaries of a tool, removed when a signal ends it.
 * sp_fmt_tmp_guard (the tools' main, never the runtime) installs handlers
 * for SIGINT, SIGTERM and SIGHUP (not over one the caller ignores) that
 * remove every pending temporary, then end the process by the signal
 * (exit status 128 + signal). Until it is called nothing is kept.
 * SP_TEST_TOOL_RAISE=SIG (test only) raises SIG when a temporary is about
 * to be renamed into place, whole. */
void sp_fmt_tmp_guard(void);
/* Removes every pending temporary (killing a child writing into one);
 * async-signal-safe, for the tools' signal handlers. */
void sp_fmt_tmp_remove_pending(void);
/* Marks name pending: dir removes it as a directory tree (two levels at
 * most); returns its slot, or -1 when not guarded or every slot is taken
 * (it is then not removed by a signal). */
int sp_fmt_tmp_hold(const char *name, int dir);
/* A child process writing into slot's temporary: killed (SIGKILL) and
 * waited for before the temporary is removed. pid 0: none. */
void sp_fmt_tmp_child(int slot, long pid);
/* Forgets name (removed or renamed by the caller). */
void sp_fmt_tmp_forget(const char *name);
/* The test hook of SP_TEST_TOOL_RAISE: raises its signal, if set. */
void sp_fmt_tmp_test_raise(void);

#ifdef __cplusplus
}
#endif
#endif /* SP_TMP_H */
