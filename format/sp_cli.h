/* sp_cli.h - what sp-import and sp-report share on their command lines: the
 * one-line message for an option getopt_long refused, --version. Tools
 * only. */
#ifndef SP_CLI_H
#define SP_CLI_H

#include <getopt.h>

/* After getopt_long returned ':' or '?' for argv (its optind and optopt
 * as it left them): prints "<tool>: <what> (see <tool> --help)" on stderr
 * and returns 2, the usage error's exit status. */
int sp_fmt_cli_refused(const char *tool, int c, char *const *argv,
                       const struct option *opts);

/* A usage error of tool: "<tool>: <fmt with what> (see <tool> --help)" on
 * stderr; returns 2, the usage error's exit status. */
int sp_fmt_cli_usage(const char *tool, const char *fmt, const char *what);

/* --version: "<tool> (ScopeProf) <version>" on stdout; returns 0. */
int sp_fmt_cli_version(const char *tool);

#endif /* SP_CLI_H */
