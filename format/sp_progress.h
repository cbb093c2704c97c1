/* sp_progress.h - a progress line on stderr for long work (sp-import,
 * sp-report, the runtime's finalize): shown on a terminal once the work
 * has lasted a second, never in a pipe or a log unless asked for. */
#ifndef SP_PROGRESS_H
#define SP_PROGRESS_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct sp_fmt_source sp_fmt_source;

typedef struct sp_fmt_progress {
  const char *who; /* "sp-import" */
  int64_t total;   /* units of work (calls); 0 = unknown */
  /* passes over those calls the work makes (reading, statistics, ...):
   * done counts up to total x passes; 0 is one */
  int passes;
  int mode;  /* 0 off, 1 on a terminal after 1 s, 2 always */
  int tty;   /* redraw one line (\r) rather than add lines */
  double t0; /* start, s */
  _Atomic int64_t done;
  _Atomic int64_t next_ns; /* when the next line may be drawn */
  _Atomic int drawing;     /* one thread draws at a time */
  int shown;               /* a line was drawn */
} sp_fmt_progress;

/* The mode SP_PROGRESS's value v asks for: "0" never (0); "1" always
 * (2): every second from the start, as lines when stderr is no terminal;
 * NULL or anything else: on a terminal, once the work has lasted a
 * second (1). */
int sp_fmt_progress_mode(const char *v);

/* Starts p for total units (calls) of work in the mode given (one pass;
 * set p->total and p->passes after, before any work is added, to change
 * that). */
void sp_fmt_progress_begin(sp_fmt_progress *p, const char *who, int64_t total,
                           int mode);

/* n more units done (any thread): draws at most 4 times a second. */
void sp_fmt_progress_add(sp_fmt_progress *p, int64_t n);

/* The last line completed ("done in T s") if any was drawn. */
void sp_fmt_progress_end(sp_fmt_progress *p);

/* Copies of n sources whose reads count the calls they return into p;
 * free() the result. NULL when out of memory (then use the originals). */
sp_fmt_source *sp_fmt_progress_sources(sp_fmt_progress *p,
                                       const sp_fmt_source *src, int64_t n);

#endif /* SP_PROGRESS_H */
