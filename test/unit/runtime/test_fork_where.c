/* test_fork_where.c - where a parallel region is (sp__symbol_fork): the
 * line of the ident_t its call passes, found from the instructions before
 * the call as this build's compiler emits them (x86-64, and aarch64 under
 * qemu), in a loop, after another call with the same ident_t, as Clang's
 * and Flang's location strings, never the line of the call's row. */
#include "internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* what symbols.c takes from the rest of the runtime: nothing is named */
_Atomic int32_t sp__nregions;
_Atomic(sp__thread_t *) sp__threads;
void sp__ompt_name(sp__region_t *r) { (void)r; }
sp__region_t *sp__region_get(int32_t id) {
  (void)id;
  return NULL;
}
void sp__registry_lock(void) {}
void sp__registry_unlock(void) {}
void *sp__arena_alloc(size_t size) { return calloc(1, size); }

/* libomp's, as the compilers call them: in another file (fork_where_omp.c),
 * as libomp is, so that the compiler assumes they change what any call
 * may change. */
typedef struct ident {
  int32_t reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
} ident_t;
typedef void (*micro_t)(int32_t *, int32_t *, ...);
void __kmpc_fork_call(const ident_t *loc, int32_t argc, micro_t fn, ...);
void __kmpc_push_num_threads(const ident_t *loc, int32_t gtid, int32_t n);
extern const void *volatile sp_test_ret;     /* fork's return address */
extern const ident_t *volatile sp_test_seen; /* the last ident_t passed */
static volatile int sink;

static void body(int32_t *gtid, int32_t *tid, ...) { sink += *gtid + *tid; }

static const ident_t clang_loc = {0, 2, 0, 0, ";/src/solver.c;main;42;1;;"};
static const ident_t flang_loc = {0, 2, 0, 0, ";FIRModule;MAIN;17;9;;"};
static const ident_t loop_loc = {0, 2, 0, 0, ";/src/loop.c;step;7;1;;"};
static const ident_t push_loc = {0, 2, 0, 0, ";/src/push.c;run;9;1;;"};
static const ident_t unknown_loc = {0, 2, 0, 0, ";unknown;unknown;0;0;;"};

/* The call's return address and where sp__symbol_fork puts it. */
static void where(const void *at, char **file, int *line) {
  assert_int_equal(sp_test_seen != NULL, 1);
  sp__symbol_fork(at, file, line);
}

static const char *base(const char *p) {
  const char *s = p ? strrchr(p, '/') : NULL;
  return s ? s + 1 : p;
}

static void test_clang(void **state) {
  (void)state;
  __kmpc_fork_call(&clang_loc, 0, body);
  sink++;
  char *file;
  int line;
  where(sp_test_ret, &file, &line);
  assert_string_equal(file, "/src/solver.c");
  assert_int_equal(line, 42);
  free(file);
}

/* Flang names no file: the call's row does (this file, built with -g). */
static void test_flang(void **state) {
  (void)state;
  __kmpc_fork_call(&flang_loc, 0, body);
  sink++;
  char *file;
  int line;
  where(sp_test_ret, &file, &line);
  assert_string_equal(base(file), "test_fork_where.c");
  assert_int_equal(line, 17);
  free(file);
}

static void test_loop(void **state) {
  int n = 3 + (state == NULL);
  const void *at[4] = {0};
  for (int i = 0; i < n; i++) {
    __kmpc_fork_call(&loop_loc, 0, body);
    at[i] = sp_test_ret;
  }
  for (int i = 0; i < n; i++) {
    char *file;
    int line;
    where(at[i], &file, &line);
    assert_string_equal(file, "/src/loop.c");
    assert_int_equal(line, 7);
    free(file);
  }
}

static void test_after_push(void **state) {
  (void)state;
  __kmpc_push_num_threads(&push_loc, 0, 2);
  __kmpc_fork_call(&push_loc, 0, body);
  sink++;
  char *file;
  int line;
  where(sp_test_ret, &file, &line);
  assert_string_equal(file, "/src/push.c");
  assert_int_equal(line, 9);
  free(file);
}

/* No line recorded (Clang without debug information): none is made up. */
static void test_unknown(void **state) {
  (void)state;
  __kmpc_fork_call(&unknown_loc, 0, body);
  sink++;
  char *file;
  int line;
  where(sp_test_ret, &file, &line);
  assert_string_equal(base(file), "test_fork_where.c");
  assert_int_equal(line, -1);
  free(file);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clang),   cmocka_unit_test(test_flang),
      cmocka_unit_test(test_loop),    cmocka_unit_test(test_after_push),
      cmocka_unit_test(test_unknown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
