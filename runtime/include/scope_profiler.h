/* scope_profiler.h - public C API of libscopeprof, the ScopeProf runtime.
 * Regions are named code spans; each call is recorded as one start and one
 * end timestamp in nanoseconds of the runtime's clock (the TSC calibrated
 * against CLOCK_MONOTONIC, or CLOCK_MONOTONIC itself: SP_CLOCK) and written
 * per rank at exit. */
#ifndef SCOPE_PROFILER_H
#define SCOPE_PROFILER_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SP_BUILDING_RUNTIME) && defined(__GNUC__)
#define SP_API __attribute__((visibility("default")))
#else
#define SP_API
#endif

#define SP_VERSION_MAJOR 0
#define SP_VERSION_MINOR 1
#define SP_VERSION_PATCH 0

/* The error codes: SP_ERRNO_MAP(XX) calls XX(name, value, text) once per
 * code, giving SP_<name> its value (0 or negative; values never change)
 * and the texts of sp_err_name() and sp_strerror(). */
#define SP_ERRNO_MAP(XX)                                                       \
  XX(OK, 0, "success")                                                         \
  XX(EINVAL, -1, "invalid argument")                                           \
  XX(ENOMEM, -2, "out of memory")                                              \
  XX(EIO, -3, "the output file could not be written")                          \
  XX(EDISABLED, -4, "profiling is disabled (SP_ENABLE=0)")                     \
  XX(EFINALIZED, -5, "sp_finalize() already ran")                              \
  XX(ELIMIT, -6, "a runtime limit was reached")                                \
  XX(EBUSY, -7, "called from a signal handler that interrupted the runtime")

typedef enum sp_errno {
#define SP_XX_(name, value, text) SP_##name = value,
  SP_ERRNO_MAP(SP_XX_)
#undef SP_XX_
} sp_errno_t;

/** Starts the runtime; optional (the first call of any API starts it).
 *  prefix: output prefix, copied; NULL means $SP_OUTPUT, else
 *  "scope_profiler". Returns 0, or a negative SP_E* code. */
SP_API int sp_init(const char *prefix);

/** Registers (or looks up) the region called name (copied). Returns its id
 *  (>= 0; the same name always gives the same id), SP_EINVAL for a NULL or
 *  empty name, SP_ELIMIT past the region limit, SP_ENOMEM, SP_EBUSY for a
 *  new name from a signal handler that interrupted the runtime. */
SP_API int sp_region(const char *name);

/** As sp_region, attaching the source location file:line (copied) the first
 *  time the name is registered. Returns as sp_region. */
SP_API int sp_region_at(const char *name, const char *file, int line);

/** Opens one call of region on the calling thread. An invalid id is ignored. */
SP_API void sp_begin(int region);

/** Closes the innermost open call of region on the calling thread; calls
 *  opened above it are closed too and counted as a warning. */
SP_API void sp_end(int region);

/** Writes this rank's file and stops recording. Returns 0 on success (also
 *  on a second call), or a negative SP_E* code. */
SP_API int sp_finalize(void);

/** Stops recording in every thread until the matching sp_resume() (nests);
 *  paused calls cost what SP_ENABLE=0 costs. Resume at the call depth of
 *  the pause (a call whose end falls in a pause ends at its start).
 *  0, SP_EDISABLED or SP_EFINALIZED. Not from a signal handler. */
SP_API int sp_pause(void);

/** Ends one sp_pause(); recording resumes with the last. 0, SP_EINVAL
 *  (no pause open), SP_EDISABLED or SP_EFINALIZED. */
SP_API int sp_resume(void);

/** The number of sp_pause() calls not yet resumed (0: recording). */
SP_API int sp_paused(void);

/** Returns a static, human-readable string for an SP_E* code ("unknown
 *  error" for any other value). */
SP_API const char *sp_strerror(int code);

/** Returns the static name of an SP_E* code ("SP_EINVAL"), or "unknown". */
SP_API const char *sp_err_name(int code);

/* Non-zero while calls must reach the runtime. SP_ENABLE=0 clears it before
 * main(), so a disabled run pays one predictable branch per call. */
SP_API extern int sp_active_;

/** The id sp_region returns for a region the run-time filter (SP_FILTER)
 *  excludes: sp_begin and sp_end take it and record nothing (through this
 *  header, without a call). Above every real id. */
#define SP_REGION_EXCLUDED 0x40000000

/* Calls made through this header check sp_active_ and the excluded id
 * inline (the functions stay callable by address, from Fortran and through
 * dlsym). A relaxed atomic read (a plain load on every target):
 * sp_finalize() in one thread may clear the flag while others record. */
#if defined(__GNUC__) || defined(__clang__)
#define SP_ACTIVE_ __atomic_load_n(&sp_active_, __ATOMIC_RELAXED)
/* no_instrument_function: a -finstrument-functions build would record
 * these two as functions of their own, even inlined. */
#define SP_INLINE_                                                             \
  static inline __attribute__((always_inline, unused, no_instrument_function))
#else
#define SP_ACTIVE_ sp_active_
#define SP_INLINE_ static inline
#endif
SP_INLINE_ void sp_begin_checked_(int region) {
  if (SP_ACTIVE_ && region != SP_REGION_EXCLUDED)
    (sp_begin)(region);
}
SP_INLINE_ void sp_end_checked_(int region) {
  if (SP_ACTIVE_ && region != SP_REGION_EXCLUDED)
    (sp_end)(region);
}
#ifndef SP_NO_INLINE_CHECK
#define sp_begin(region) sp_begin_checked_(region)
#define sp_end(region) sp_end_checked_(region)
#endif

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_PROFILER_H */
