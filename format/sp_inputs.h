/* sp_inputs.h - the tools' inputs: files and directories to distinct inputs by
 * content, and the rule for an input with no call of a rank. Tools only. */
#ifndef SP_INPUTS_H
#define SP_INPUTS_H

#include "sp_common.h"
#include "sp_rank.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an input holds, decided by content (a file named explicitly may be
 * called anything): HDF5, a stream (or any *.spts), else a .spt. */
enum sp_fmt_input_kind {
  SP_FMT_INPUT_SPT,
  SP_FMT_INPUT_H5,
  SP_FMT_INPUT_STREAM
};

typedef struct sp_fmt_input {
  char *path;        /* as named or found; used in messages */
  int kind;          /* enum sp_fmt_input_kind */
  uint64_t dev, ino; /* the file's identity */
} sp_fmt_input;

typedef struct sp_fmt_inputs {
  sp_fmt_input *v;
  int64_t n, cap;
} sp_fmt_inputs;

/* Files and directories to a list of distinct input files (by device and
 * inode: the first mention kept), in argument order; a directory gives its
 * per-rank files (*.spt, *.spts, *_rank<N>.h5, not recursively) sorted by
 * name, and one holding none is an error. A file named explicitly is
 * always read. On error *out is empty and err says why. */
int sp_fmt_inputs_find(char *const *args, int nargs, sp_fmt_inputs *out,
                       sp_fmt_err *err);
void sp_fmt_inputs_free(sp_fmt_inputs *in); /* frees contents, not in itself */

/* What sp_fmt_claims_drop_empty reads of a tool's claim of a rank by an
 * input: the tools keep claims of their own types. */
typedef struct sp_fmt_claim_view {
  int32_t rank;
  int64_t input; /* index into the sp_fmt_inputs */
  int empty;     /* the input holds no call of the rank */
} sp_fmt_claim_view;
typedef void sp_fmt_claim_fn(const void *claim, sp_fmt_claim_view *view);

/* Leaves out of n claims (size bytes each, sorted by rank, then input) the
 * input with no call of a rank another input holds -- the empty stream of
 * a shell that exec'd the program under LD_PRELOAD, a process that never
 * reached instrumented code -- rather than calling it a clash: one line
 * "<tool>: warning: <path>: rank R recorded no calls; left out (rank R is
 * in <path>)" on stderr for each. Of a rank no input has a call of, the
 * first claim stays. Returns the number kept, moved to the front in
 * order. */
int64_t sp_fmt_claims_drop_empty(void *claims, int64_t n, size_t size,
                                 sp_fmt_claim_fn *view, const sp_fmt_inputs *in,
                                 const char *tool);

/* 1 if a .spt input has its MPI messages beside it (sp_spt.h). */
int sp_fmt_inputs_spt_mpi(const sp_fmt_inputs *in);
/* The tools' read of them: as sp_fmt_spt_mpi_read (sp_spt.h), but a
 * failure, or none while another .spt input has them (any), is one warning
 * line on stderr ("<tool>: warning: <file>: offset <N>: <what>; ...") and
 * the calls go on without messages. 1 when *m was read, else 0 (*m
 * empty). */
int sp_fmt_spt_mpi_take(const char *spt, int32_t rank, int any,
                        const char *tool, sp_fmt_mpi *m);

#ifdef __cplusplus
}
#endif
#endif /* SP_INPUTS_H */
