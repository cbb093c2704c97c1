/* export_folded.c - folded stacks ("main;solve;io 1234") for
 * flamegraph.pl, inferno and speedscope: one line per call path, weighted
 * by its exclusive time in nanoseconds, summed over ranks and threads. */
#include "report.h"

/* Folded stacks split frames on ';' and the weight on the last space:
 * neither may appear inside a frame. */
static void put_frame(FILE *f, const char *s) {
  char buf[256];
  while (*s) {
    size_t n = 0;
    /* ';' and '\n' are ASCII: never inside a UTF-8 sequence. */
    for (; *s && n < sizeof buf - 1; s++)
      buf[n++] = *s == ';' ? ':' : *s == '\n' ? ' ' : *s;
    for (int k = 0; k < 3 && n > 1 && ((unsigned char)s[0] & 0xc0) == 0x80; k++)
      s--, n--; /* keep a sequence whole for the next chunk */
    buf[n] = '\0';
    rp_utf8_str(f, buf);
  }
}

int rp_export_folded(const rp_profile *p, const rp_opts *o, FILE *f,
                     sp_fmt_err *err) {
  rp_tree t;
  if (rp_tree_build(p, o, &t, err) != 0)
    return -1;
  rp_tree_link(&t, p);
  /* Depth-first in name order, so equal profiles give equal files. */
  for (int64_t x = t.first_root; x >= 0; x = rp_tree_next(&t, x))
    if (t.v[x].excl > 0) {
      rp_tree_fpath(&t, p, x, ";", f, put_frame);
      fprintf(f, " %lld\n", (long long)t.v[x].excl);
    }
  rp_tree_free(&t);
  return 0;
}
