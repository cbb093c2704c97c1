/* sp_common.h - what every part of the format library and the tools share:
 * one-line errors, UTF-8 checks, magic checks. Internal. */
#ifndef SP_COMMON_H
#define SP_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One failure, as one line: "<file>: <what>" or
 * "<file>: offset <N>: <what>" for binary input. No trailing newline. */
typedef struct sp_fmt_err {
  char msg[1024];
} sp_fmt_err;

/* 1 if the file at path starts with the 8 bytes of magic. */
int sp_fmt_starts_with(const char *path, const char magic[8]);

/* Length of the well-formed UTF-8 character at p (1-4), or 0 if p starts
 * none (a stray continuation byte, an overlong form, a surrogate, a code
 * point past U+10FFFF, or a cut sequence; the NUL byte is a character of
 * length 1). */
int sp_fmt_utf8_len(const unsigned char *p);

/* s as valid UTF-8 for a file that promises UTF-8 (HDF5 strings): NULL when
 * it is already (nothing allocated), else a malloc'd copy with every byte
 * that is not part of a UTF-8 character written as the four characters
 * \xNN; *oom = 1 when that copy could not be made. */
char *sp_fmt_utf8_dup(const char *s, int *oom);

/* err->msg = "<file>: offset <off>: " (no offset part when off < 0), then
 * vprintf(fmt, ap), truncated to fit, control bytes of the part after the
 * file name shown as '?' (a message is one line, whatever a name read
 * from a file holds); err may be NULL. The one formatter of every reader's
 * and writer's failure. */
void sp_fmt_err_vat(sp_fmt_err *err, const char *file, int64_t off,
                    const char *fmt, va_list ap);

/* err->msg = printf(fmt, ...) truncated to fit; err may be NULL. */
void sp_fmt_err_set(sp_fmt_err *err, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* SP_COMMON_H */
