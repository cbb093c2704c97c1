/* main.c - sp-import's command line: find inputs, check ranks, merge.
 * Every failure is one line on stderr: exit status 1, or 2 for a usage
 * error. */
#include "sp_cli.h"
#include "sp_guard.h"
#include "sp_import.h"
#include "sp_tmp.h"

#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char USAGE[] =
    "usage: sp-import [-o OUT.h5] [--label L] [--merge-processes] INPUT...\n"
    "  INPUT: .spt traces, .h5 profiles, or directories holding\n"
    "         *.spt and *_rank<N>.h5 files (searched non-recursively)\n"
    "  -o OUT.h5   merged profile to write (default profiling_data.h5)\n"
    "  --label L   run label (default: OUT's name without extension)\n"
    "  --merge-processes\n"
    "              inputs claiming one rank are processes of it (a forked\n"
    "              child, a test suite's runs): their threads are numbered\n"
    "              one process after the other in that rank\n"
    "  --threads 0|1|auto\n"
    "              one thread, two, or two when ranks are large (default)\n"
    "  --times     print the seconds each step took on stderr\n"
    "  --version   print the version\n";

/* A usage error: one line, and where the usage is. */
static int usage(const char *fmt, const char *what) {
  return sp_fmt_cli_usage("sp-import", fmt, what);
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

enum { OPT_LABEL = 256, OPT_PROCESSES, OPT_THREADS, OPT_TIMES };

static const struct option OPTIONS[] = {
    {"output", required_argument, NULL, 'o'},
    {"label", required_argument, NULL, OPT_LABEL},
    {"merge-processes", no_argument, NULL, OPT_PROCESSES},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"times", no_argument, NULL, OPT_TIMES},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0}};

/* --threads (or SP_IMPORT_THREAD, its older spelling: "0" one thread,
 * anything else two) to sp_imp_opts.threads; -2 when not a choice. */
static int threads(const char *v, int env) {
  if (env)
    return strcmp(v, "0") == 0 ? 0 : 1;
  if (!strcmp(v, "0") || !strcmp(v, "1"))
    return v[0] - '0';
  return !strcmp(v, "auto") ? -1 : -2;
}

int main(int argc, char **argv) {
  const char *out = "profiling_data.h5", *label = NULL;
  int rc = 2, processes = 0;
  char *own_label = NULL;
  sp_imp_claim *claims = NULL;
  int64_t nclaims = 0;
  sp_fmt_err err = {""};
  sp_fmt_inputs in;
  sp_fmt_tmp_guard(); /* a signal removes the temporary it cuts short */
  sp_fmt_crash_guard(); /* libhdf5 crashing on a damaged input */
  /* The environment first; the options override it. */
  const char *env = getenv("SP_IMPORT_THREAD");
  sp_imp_opts opts = {env ? threads(env, 1) : -1,
                      getenv("SP_IMPORT_TIMES") != NULL};
  /* Ranks are read one after another into arrays of similar sizes: keep
   * freed memory in the heap for the next rank instead of returning it to
   * the kernel and paying first-touch page faults again. */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  opterr = 0; /* our messages, one line each */
  for (int c; (c = getopt_long(argc, argv, ":ho:", OPTIONS, NULL)) != -1;) {
    switch (c) {
    case 'h':
      fputs(USAGE, stdout);
      return 0;
    case 'V':
      return sp_fmt_cli_version("sp-import");
    case 'o':
      out = optarg;
      break;
    case OPT_LABEL:
      label = optarg;
      break;
    case OPT_PROCESSES:
      processes = 1;
      break;
    case OPT_THREADS:
      if ((opts.threads = threads(optarg, 0)) == -2)
        return usage("--threads '%s': one of 0, 1, auto", optarg);
      break;
    case OPT_TIMES:
      opts.times = 1;
      break;
    default: /* ':' or '?' */
      if (c == ':' && optopt == 'o')
        return usage("%s needs a file name", "-o");
      return sp_fmt_cli_refused("sp-import", c, argv, OPTIONS);
    }
  }
  char **inputs = argv + optind;
  int ninputs = argc - optind;
  if (ninputs == 0)
    return usage("%s", "no input files or directories given");
  if (!out[0])
    return usage("%s needs a file name", "-o");

  own_label = label ? NULL : stem(out);
  rc = 1;
  if (!label && !own_label) {
    fprintf(stderr, "sp-import: out of memory\n");
    goto done;
  }
  if (sp_fmt_inputs_find(inputs, ninputs, &in, &err) != 0)
    goto fail;
  struct stat ost;
  for (int64_t i = 0; i < in.n && stat(out, &ost) == 0; i++)
    if ((uint64_t)ost.st_dev == in.v[i].dev &&
        (uint64_t)ost.st_ino == in.v[i].ino) {
      sp_fmt_err_set(&err, "%s: the output is one of the inputs (%s)", out,
                     in.v[i].path);
      sp_fmt_inputs_free(&in);
      goto fail;
    }
  int prof =
      sp__imp_profiles(&in, out, label ? label : own_label, processes, &err);
  if (prof != 0) {
    sp_fmt_inputs_free(&in);
    if (prof < 0)
      goto fail;
    rc = 0;
    goto done;
  }
  if (sp__imp_scan(&in, processes, &claims, &nclaims, &err) != 0) {
    sp_fmt_inputs_free(&in);
    goto fail;
  }
  int64_t total = 0;
  for (int64_t c = 0; c < nclaims; c++)
    total += claims[c].events;
  sp_fmt_progress_begin(&sp__imp_progress, "sp-import", total,
                        sp_fmt_progress_mode(getenv("SP_PROGRESS")));
  int merged = sp__imp_merge(&in, claims, nclaims, out,
                             label ? label : own_label, &opts, &err);
  sp_fmt_progress_end(&sp__imp_progress);
  if (merged != 0) {
    sp_fmt_inputs_free(&in);
    goto fail;
  }
  sp_fmt_inputs_free(&in);
  sp__imp_nesting_report();
  rc = 0;
  goto done;
fail:
  fprintf(stderr, "sp-import: %s\n", err.msg);
done:
  free(claims);
  free(own_label);
  return rc;
}
