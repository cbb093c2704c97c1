/* test_meta.c - metadata helpers: typed values, replacement in place, deep
 * copies that outlive their source, NULL-safe freeing; the UTF-8 check and
 * escape that names go through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sp_format.h"

#include <stdlib.h>
#include <string.h>

static void set_get_replace(void **state) {
  (void)state;
  sp_fmt_meta m = {0, NULL};
  assert_int_equal(sp_fmt_meta_set_str(&m, "label", "run1"), 0);
  assert_int_equal(sp_fmt_meta_set_int(&m, "mpi_size", 4), 0);
  const char *mods[] = {"gcc/12", "openmpi/4.1"};
  assert_int_equal(sp_fmt_meta_set_strlist(&m, "modules", mods, 2), 0);
  assert_int_equal(m.n, 3);

  const sp_fmt_meta_item *it = sp_fmt_meta_get(&m, "label");
  assert_non_null(it);
  assert_int_equal(it->type, SP_FMT_META_STR);
  assert_string_equal(it->str, "run1");
  it = sp_fmt_meta_get(&m, "mpi_size");
  assert_int_equal(it->type, SP_FMT_META_INT);
  assert_int_equal(it->i64, 4);
  it = sp_fmt_meta_get(&m, "modules");
  assert_int_equal(it->type, SP_FMT_META_STRLIST);
  assert_int_equal(it->nstrs, 2);
  assert_string_equal(it->strs[0], "gcc/12");
  assert_string_equal(it->strs[1], "openmpi/4.1");
  assert_null(sp_fmt_meta_get(&m, "missing"));

  /* Setting a key again replaces the value, type included, in place. */
  assert_int_equal(sp_fmt_meta_set_int(&m, "label", -7), 0);
  assert_int_equal(m.n, 3);
  assert_string_equal(m.items[0].key, "label");
  assert_int_equal(m.items[0].type, SP_FMT_META_INT);
  assert_int_equal(m.items[0].i64, -7);
  assert_null(m.items[0].str);
  assert_int_equal(sp_fmt_meta_set_strlist(&m, "modules", NULL, 0), 0);
  it = sp_fmt_meta_get(&m, "modules");
  assert_int_equal(it->nstrs, 0);
  sp_fmt_meta_free(&m);
  assert_int_equal(m.n, 0);
  assert_null(m.items);
  sp_fmt_meta_free(&m);
  sp_fmt_meta_free(NULL);
  assert_null(sp_fmt_meta_get(NULL, "x"));
}

static void deep_copy(void **state) {
  (void)state;
  sp_fmt_meta a = {0, NULL}, b = {0, NULL};
  char host[] = "node01";
  const char *list[] = {host};
  assert_int_equal(sp_fmt_meta_set_str(&a, "hostname", host), 0);
  assert_int_equal(sp_fmt_meta_set_strlist(&a, "hosts", list, 1), 0);
  assert_int_equal(sp_fmt_meta_set_int(&a, "pid", 1234), 0);
  host[0] = 'X'; /* the values were copied */
  assert_int_equal(sp_fmt_meta_set_str(&b, "old", "gone"), 0);
  assert_int_equal(sp_fmt_meta_copy(&b, &a), 0);
  sp_fmt_meta_free(&a);
  assert_int_equal(b.n, 3);
  assert_null(sp_fmt_meta_get(&b, "old"));
  assert_string_equal(sp_fmt_meta_get(&b, "hostname")->str, "node01");
  assert_string_equal(sp_fmt_meta_get(&b, "hosts")->strs[0], "node01");
  assert_int_equal(sp_fmt_meta_get(&b, "pid")->i64, 1234);
  assert_string_equal(b.items[2].key, "pid");
  sp_fmt_meta_free(&b);
}

static int u8len(const char *s) {
  return sp_fmt_utf8_len((const unsigned char *)s);
}

/* Exactly the well-formed sequences pass (what Python's strict decoder
 * and XML parsers take); each boundary on both sides. */
static void utf8_strict(void **state) {
  (void)state;
  assert_int_equal(u8len("a"), 1);
  assert_int_equal(u8len("\xc2\x80"), 2);         /* U+0080 */
  assert_int_equal(u8len("\xc1\xbf"), 0);         /* overlong U+007F */
  assert_int_equal(u8len("\xe0\xa0\x80"), 3);     /* U+0800 */
  assert_int_equal(u8len("\xe0\x9f\xbf"), 0);     /* overlong U+07FF */
  assert_int_equal(u8len("\xed\x9f\xbf"), 3);     /* U+D7FF */
  assert_int_equal(u8len("\xed\xa0\x80"), 0);     /* surrogate U+D800 */
  assert_int_equal(u8len("\xed\xbf\xbf"), 0);     /* surrogate U+DFFF */
  assert_int_equal(u8len("\xef\xbf\xbf"), 3);     /* U+FFFF, a character */
  assert_int_equal(u8len("\xf0\x90\x80\x80"), 4); /* U+10000 */
  assert_int_equal(u8len("\xf0\x8f\xbf\xbf"), 0); /* overlong U+FFFF */
  assert_int_equal(u8len("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
  assert_int_equal(u8len("\xf4\x90\x80\x80"), 0); /* U+110000 */
  assert_int_equal(u8len("\xf5\x80\x80\x80"), 0);
  assert_int_equal(u8len("\x80"), 0);
  assert_int_equal(u8len("\xe2\x82"), 0); /* cut by the NUL */
  int oom;
  char *d = sp_fmt_utf8_dup("a\xed\xa0\x80"
                            "b",
                            &oom);
  assert_non_null(d);
  assert_string_equal(d, "a\\xed\\xa0\\x80b");
  free(d);
  assert_null(sp_fmt_utf8_dup("caf\xc3\xa9", &oom)); /* valid: no copy */
  assert_int_equal(oom, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(set_get_replace),
      cmocka_unit_test(deep_copy),
      cmocka_unit_test(utf8_strict),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
