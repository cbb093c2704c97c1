/* cli.c - the tools' message for an option getopt_long refused, so that
 * sp-import and sp-report word it alike. */
#include "sp_cli.h"

#include <stdio.h>
#include <string.h>

/* The option as its long name when it was typed long (getopt_long gives
 * the value, and the typed word may be an abbreviation or carry "=v"). */
static const char *opt_name(const char *typed, int val,
                            const struct option *opts, char *buf, size_t n) {
  if (strncmp(typed, "--", 2) == 0)
    for (const struct option *o = opts; o->name; o++)
      if (o->val == val) {
        snprintf(buf, n, "--%s", o->name);
        return buf;
      }
  return typed;
}

int sp_fmt_cli_refused(const char *tool, int c, char *const *argv,
                       const struct option *opts) {
  const char *typed = argv[optind - 1];
  char name[64], what[128];
  if (c == ':') /* optopt: the option's short name or its value */
    snprintf(what, sizeof what, "%s needs a value",
             opt_name(typed, optopt, opts, name, sizeof name));
  else if (optopt && strncmp(typed, "--", 2) == 0)
    /* a long option given a value it takes none */
    snprintf(what, sizeof what, "%s takes no value",
             opt_name(typed, optopt, opts, name, sizeof name));
  else if (optopt) /* an unknown short option */
    snprintf(what, sizeof what, "unknown option -%c", optopt);
  else
    snprintf(what, sizeof what, "unknown option %s", typed);
  return sp_fmt_cli_usage(tool, "%s", what);
}

int sp_fmt_cli_usage(const char *tool, const char *fmt, const char *what) {
  fprintf(stderr, "%s: ", tool);
  fprintf(stderr, fmt, what);
  fprintf(stderr, " (see %s --help)\n", tool);
  return 2;
}

int sp_fmt_cli_version(const char *tool) {
  printf("%s (ScopeProf) %s\n", tool, SP_VERSION_STRING);
  return 0;
}
