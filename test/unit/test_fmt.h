/* test_fmt.h - FMT: snprintf into an array whose size the compiler knows;
 * a result that does not fit fails the test instead of running on with a
 * truncated path (and keeps -Wformat-truncation quiet). */
#ifndef SP_TEST_FMT_H
#define SP_TEST_FMT_H

#include <stdarg.h>
#include <stdio.h>

#define FMT(buf, ...) sp_test_fmt(buf, sizeof buf, __VA_ARGS__)

__attribute__((format(printf, 3, 4))) static inline char *
sp_test_fmt(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= size)
    fail_msg("'%s' needs %d bytes, has %zu", fmt, n, size);
  return buf;
}

#endif
