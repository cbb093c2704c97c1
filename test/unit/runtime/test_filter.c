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

/* filter_corpus.txt, shared with the plugin's matcher (its test runs the
 * same file through pass/Filter.cpp): RULES, NAME, FILE, WANT. */
static void test_corpus(void **st) {
  (void)st;
  FILE *in = fopen(SP_FILTER_CORPUS, "r");
  assert_non_null(in);
  char line[1024];
  int cases = 0;
  while (fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = '\0';
    if (!line[0] || line[0] == '#')
      continue;
    char *f[4], *p = line;
    for (int i = 0; i < 4; i++) {
      f[i] = p;
      p = strchr(p, '\t');
      if (i < 3) {
        assert_non_null(p);
        *p++ = '\0';
      }
    }
    char text[1024], err[256] = "";
    size_t n = 0;
    for (const char *r = f[0]; *r && n + 2 < sizeof text;) {
      if (strncmp(r, " ;; ", 4) == 0) {
        text[n++] = '\n';
        r += 4;
      } else {
        text[n++] = *r++;
      }
    }
    text[n++] = '\n';
    text[n] = '\0';
    sp__filter_t *flt =
        sp__filter_parse("f.txt", text, strlen(text), err, sizeof err);
    char got[16];
    if (!flt)
      snprintf(got, sizeof got, "E:%d", atoi(err + 6)); /* "f.txt:N: " */
    else
      snprintf(got, sizeof got, "%d",
               sp__filter_decide(flt, f[1], f[2][0] ? f[2] : NULL));
    sp__filter_free(flt);
    if (strcmp(got, f[3]) != 0)
      fail_msg("'%s' name '%s' file '%s': %s, not %s (%s)", f[0], f[1], f[2],
               got, f[3], err);
    cases++;
  }
  fclose(in);
  assert_true(cases >= 50);
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
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus),
                                     cmocka_unit_test(test_precedence),
                                     cmocka_unit_test(test_errors)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
