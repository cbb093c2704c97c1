/* test_filter.c - the run-time filter's parser and matcher on their own:
 * the plugin's glob syntax case by case, last-match-wins precedence, file
 * rules, and the FILE:LINE errors of bad files. */
#include "filter.h"
#include "internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* filter.c's neighbours, stubbed. */
_Atomic int32_t sp__nregions;
sp__region_t *sp__region_get(int32_t id) {
  (void)id;
  return NULL;
}
char *sp__symbol_name(const void *addr) {
  (void)addr;
  return strdup("?");
}
void sp__warn(const char *fmt, ...) { (void)fmt; }

/* glob, string, 1 match / 0 not / -1 bad glob: the cases of LLVM's
 * GlobPattern that the plugin's filter relies on. */
static const struct {
  const char *glob, *s;
  int want;
} globs[] = {
    {"small_*", "small_a", 1},
    {"small_*", "small_", 1},
    {"small_*", "smal", 0},
    {"*", "", 1},
    {"a*b*c", "aXbYc", 1},
    {"a*b*c", "aXbY", 0},
    {"?", "a", 1},
    {"?", "", 0},
    {"?", "ab", 0},
    {"*/third_party/*", "/src/third_party/x.c", 1},
    {"*x.c", "/a/b/x.c", 1}, /* '*' crosses '/' */
    {"[a-c]x", "bx", 1},
    {"[a-c]x", "dx", 0},
    {"[!a-c]x", "dx", 1},
    {"[^a-c]x", "ax", 0},
    {"[]]", "]", 1},
    {"[!]]", "a", 1},
    {"{foo,bar}()", "bar()", 1},
    {"{foo,bar}()", "baz()", 0},
    {"{a,b}{c,d}", "bd", 1},
    {"x{,y}", "x", 1},
    {"\\*", "*", 1},
    {"\\*", "a", 0},
    {"operator new(*", "operator new(unsigned long)", 1},
    {"ns::f(int)", "ns::f(int)", 1},
    {"mod::*", "mod::proc", 1},
    {"[z-a]", "a", -1},
    {"[abc", "a", -1},
    {"{a,b", "a", -1},
    {"{a,{b}}", "a", -1},
    {"ab\\", "ab", -1},
};

static void test_globs(void **st) {
  (void)st;
  for (size_t i = 0; i < sizeof globs / sizeof *globs; i++) {
    int got = sp__glob_match(globs[i].glob, globs[i].s);
    if (got != globs[i].want)
      fail_msg("'%s' against '%s': %d, not %d", globs[i].glob, globs[i].s, got,
               globs[i].want);
  }
}

static sp__filter_t *parse(const char *text, char *err) {
  return sp__filter_parse("f.txt", text, strlen(text), err, 256);
}

static void test_precedence(void **st) {
  (void)st;
  char err[256] = "";
  sp__filter_t *f = parse("# hot code only\n"
                          "exclude function small_*\n"
                          "include function small_keep\n"
                          "min-instructions 20\n"
                          "\n"
                          "exclude file */third_party/*\n"
                          "  include function   tp_keep  \r\n",
                          err);
  assert_non_null(f);
  assert_int_equal(sp__filter_decide(f, "small_a", "/src/m.c"), 0);
  assert_int_equal(sp__filter_decide(f, "small_keep", "/src/m.c"), 1);
  assert_int_equal(sp__filter_decide(f, "big", "/src/m.c"), 1);
  assert_int_equal(sp__filter_decide(f, "big", "/src/third_party/t.c"), 0);
  /* later rules win over earlier ones, whichever kind */
  assert_int_equal(sp__filter_decide(f, "small_keep", "/src/third_party/t.c"),
                   0);
  assert_int_equal(sp__filter_decide(f, "tp_keep", "/src/third_party/t.c"), 1);
  /* no file: file rules match the empty string only */
  assert_int_equal(sp__filter_decide(f, "big", NULL), 1);
  sp__filter_free(f);

  f = parse("include function b\nexclude function b\n", err);
  assert_int_equal(sp__filter_decide(f, "b", NULL), 0);
  sp__filter_free(f);
  f = parse("exclude function b\ninclude function b\n", err);
  assert_int_equal(sp__filter_decide(f, "b", NULL), 1);
  sp__filter_free(f);
  /* spaces inside a glob belong to it */
  f = parse("exclude function operator new(*\n", err);
  assert_int_equal(sp__filter_decide(f, "operator new(unsigned long)", NULL),
                   0);
  assert_int_equal(sp__filter_decide(f, "operator delete(void*)", NULL), 1);
  sp__filter_free(f);
}

static void test_errors(void **st) {
  (void)st;
  static const struct {
    const char *text, *err;
  } bad[] = {
      {"# ok\ninclude function f\nfrobnicate x\n",
       "f.txt:3: unknown directive 'frobnicate' (expected include, exclude "
       "or min-instructions)"},
      {"min-instructions lots\n",
       "f.txt:1: min-instructions needs a non-negative integer, got 'lots'"},
      {"min-instructions -1\n",
       "f.txt:1: min-instructions needs a non-negative integer, got '-1'"},
      {"include function\n", "f.txt:1: missing glob after 'include function'"},
      {"\n\nexclude fn x\n",
       "f.txt:3: expected 'function' or 'file' after 'exclude', got 'fn'"},
      {"exclude file [z-a\n", "f.txt:1: bad glob '[z-a': unmatched '['"},
      {"exclude\tfunction x\n",
       "f.txt:1: unknown directive 'exclude\tfunction' (expected include, "
       "exclude or min-instructions)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char err[256] = "";
    sp__filter_t *f = parse(bad[i].text, err);
    assert_null(f);
    assert_string_equal(err, bad[i].err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_globs),
                                     cmocka_unit_test(test_precedence),
                                     cmocka_unit_test(test_errors)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
