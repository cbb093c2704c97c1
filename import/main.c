/* main.c - sp-import's command line: find inputs, check ranks, merge.
 * Every failure is one line on stderr and exit status 1. */
#include "sp_import.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: sp-import [-o OUT.h5] [--label L] [--merge-processes] INPUT...\n"
    "  INPUT: .spt traces, .h5 profiles, or directories holding\n"
    "         *.spt and *_rank<N>.h5 files (searched non-recursively)\n"
    "  -o OUT.h5   merged profile to write (default profiling_data.h5)\n"
    "  --label L   run label (default: OUT's name without extension)\n"
    "  --merge-processes\n"
    "              inputs claiming one rank are processes of it (a forked\n"
    "              child, a test suite's runs): their threads are numbered\n"
    "              one process after the other in that rank\n";

static int usage(const char *why) {
  if (why)
    fprintf(stderr, "sp-import: %s\n", why);
  fputs(USAGE, stderr);
  return 2;
}

/* "dir/run.h5" -> "run": the label a run gets when none is given. */
static char *stem(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char *s = strdup(base);
  char *dot = s ? strrchr(s, '.') : NULL;
  if (dot && dot != s)
    *dot = '\0';
  return s;
}

int main(int argc, char **argv) {
  const char *out = "profiling_data.h5", *label = NULL;
  char **inputs = calloc((size_t)argc, sizeof *inputs);
  int ninputs = 0, opts = 1, rc = 2, processes = 0;
  const char *why = NULL; /* a usage error */
  char *own_label = NULL;
  sp_imp_claim *claims = NULL;
  int64_t nclaims = 0;
  sp_fmt_err err = {""};
  sp_fmt_inputs in;
  if (!inputs)
    return 1;
  /* Ranks are read one after another into arrays of similar sizes: keep
   * freed memory in the heap for the next rank instead of returning it to
   * the kernel and paying first-touch page faults again. */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (opts && strcmp(a, "--") == 0) {
      opts = 0;
    } else if (opts && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
      fputs(USAGE, stdout);
      rc = 0;
      goto done;
    } else if (opts && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
      if (++i == argc) {
        why = "-o needs a file name";
        goto usage_error;
      }
      out = argv[i];
    } else if (opts && strncmp(a, "--output=", 9) == 0) {
      out = a + 9;
    } else if (opts && strcmp(a, "--merge-processes") == 0) {
      processes = 1;
    } else if (opts && strcmp(a, "--label") == 0) {
      if (++i == argc) {
        why = "--label needs a value";
        goto usage_error;
      }
      label = argv[i];
    } else if (opts && strncmp(a, "--label=", 8) == 0) {
      label = a + 8;
    } else if (opts && a[0] == '-' && a[1]) {
      fprintf(stderr, "sp-import: unknown option %s\n", a);
      goto usage_error;
    } else {
      inputs[ninputs++] = argv[i];
    }
  }
  if (ninputs == 0)
    why = "no input files or directories given";
  else if (!out[0])
    why = "-o needs a file name";
  if (why)
    goto usage_error;

  own_label = label ? NULL : stem(out);
  rc = 1;
  if (!label && !own_label) {
    fprintf(stderr, "sp-import: out of memory\n");
    goto done;
  }
  if (sp_fmt_inputs_find(inputs, ninputs, &in, &err) != 0)
    goto fail;
  if (sp__imp_scan(&in, processes, &claims, &nclaims, &err) != 0 ||
      sp__imp_merge(&in, claims, nclaims, out, label ? label : own_label,
                    &err) != 0) {
    sp_fmt_inputs_free(&in);
    goto fail;
  }
  sp_fmt_inputs_free(&in);
  sp__imp_nesting_report();
  rc = 0;
  goto done;
usage_error:
  rc = usage(why);
  goto done;
fail:
  fprintf(stderr, "sp-import: %s\n", err.msg);
done:
  free(claims);
  free(own_label);
  free(inputs);
  return rc;
}
