/* progress.c - the progress line of long work on stderr: calls done of the
 * total, rate, time left; drawn by whichever thread adds work, at most 4
 * times a second, and only where a person watches (sp_progress.h). */
#include "sp_progress.h"
#include "sp_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int sp_fmt_progress_mode(const char *v) {
  if (v && strcmp(v, "0") == 0)
    return 0;
  if (v && strcmp(v, "1") == 0)
    return 2;
  return 1;
}

void sp_fmt_progress_begin(sp_fmt_progress *p, const char *who, int64_t total,
                           int mode) {
  memset(p, 0, sizeof *p);
  p->who = who;
  p->total = total > 0 ? total : 0;
  p->tty = isatty(STDERR_FILENO);
  p->mode = mode == 1 && !p->tty ? 0 : mode;
  p->t0 = (double)now_ns() * 1e-9;
  int64_t first = mode == 2 ? 0 : 1000000000; /* auto: after a second */
  atomic_store(&p->next_ns, now_ns() + first);
}

/* 12345678 as "12.3M", into b. */
static const char *count(double v, char *b, size_t n) {
  static const char unit[] = " KMGTP";
  int u = 0;
  while (v >= 1000 && u < 5)
    v /= 1000, u++;
  if (u == 0)
    snprintf(b, n, "%.0f", v);
  else
    snprintf(b, n, "%.1f%c", v, unit[u]);
  return b;
}

static void draw(sp_fmt_progress *p, int64_t done, double t, int last) {
  char a[16], b[16], c[16], line[160];
  /* Several passes over the calls: the rate is of calls handled, and
   * the whole is the calls of every pass. */
  int64_t passes = p->passes > 1 ? p->passes : 1, units = p->total * passes;
  double el = t - p->t0, rate = el > 0 ? (double)done / el : 0;
  int k;
  if (last) {
    double n = passes > 1 ? (double)p->total : (double)done;
    k = snprintf(line, sizeof line, "%s: %s calls in %.1f s (%s/s)", p->who,
                 count(n, a, sizeof a), el,
                 count(el > 0 ? n / el : 0, b, sizeof b));
  } else if (p->total > 0) {
    int64_t left = done < units ? units - done : 0;
    double pct = 100.0 * (double)done / (double)units;
    /* The time left from the work done so far, once that says something:
     * a second in and 2% done (before, a start-up's slow first calls gave
     * hours for a job of a second); all counted work done while the tool
     * still writes: "finishing", not "0 s left". */
    char when[48] = "";
    if (left == 0)
      snprintf(when, sizeof when, ", finishing");
    else if (el >= 1.0 && done * 50 >= units && rate > 0) {
      double s = (double)left / rate;
      if (s < 90)
        snprintf(when, sizeof when, ", %.0f s left", s);
      else if (s < 5400)
        snprintf(when, sizeof when, ", %.0f min left", s / 60);
      else
        snprintf(when, sizeof when, ", %.1f h left", s / 3600);
    }
    k = snprintf(line, sizeof line, "%s: %3.0f%% of %s calls, %s/s%s", p->who,
                 pct > 100 ? 100 : pct, count((double)p->total, a, sizeof a),
                 count(rate, b, sizeof b), when);
  } else {
    k = snprintf(line, sizeof line, "%s: %s calls, %s/s", p->who,
                 count((double)done, c, sizeof c), count(rate, b, sizeof b));
  }
  if (k < 0)
    return;
  /* A terminal: one line redrawn (\r, then erase to its end). */
  fprintf(stderr, p->tty ? "\r%s\033[K%s" : "%s%s", line,
          p->tty && !last ? "" : "\n");
  fflush(stderr);
  p->shown = 1;
}

void sp_fmt_progress_add(sp_fmt_progress *p, int64_t n) {
  if (!p || p->mode == 0)
    return;
  int64_t done = atomic_fetch_add(&p->done, n) + n;
  int64_t t = now_ns(), next = atomic_load(&p->next_ns);
  if (t < next || atomic_exchange(&p->drawing, 1))
    return;
  /* Lines in a log: one a second; a terminal: four. */
  atomic_store(&p->next_ns, t + (p->tty ? 250000000 : 1000000000));
  draw(p, done, (double)t * 1e-9, 0);
  atomic_store(&p->drawing, 0);
}

void sp_fmt_progress_end(sp_fmt_progress *p) {
  if (!p || p->mode == 0 || !p->shown)
    return;
  while (atomic_exchange(&p->drawing, 1))
    ;
  draw(p, atomic_load(&p->done), (double)now_ns() * 1e-9, 1);
  atomic_store(&p->drawing, 0);
}

typedef struct counted {
  const sp_fmt_source *orig;
  sp_fmt_progress *p;
} counted;

static void counted_read(const sp_fmt_source *src, int64_t first, int64_t n,
                         int64_t *starts, int64_t *ends) {
  const counted *c = src->ctx;
  c->orig->read(c->orig, first, n, starts, ends);
  sp_fmt_progress_add(c->p, n);
}

sp_fmt_source *sp_fmt_progress_sources(sp_fmt_progress *p,
                                       const sp_fmt_source *src, int64_t n) {
  size_t k = n > 0 ? (size_t)n : 1;
  sp_fmt_source *out = malloc(k * (sizeof *out + sizeof(counted)));
  if (!out)
    return NULL;
  counted *c = (counted *)(void *)(out + k);
  for (int64_t i = 0; i < n; i++) {
    c[i].orig = &src[i];
    c[i].p = p;
    out[i] = src[i];
    out[i].read = counted_read;
    out[i].ctx = &c[i];
  }
  return out;
}
