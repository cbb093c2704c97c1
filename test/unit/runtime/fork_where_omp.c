/* fork_where_omp.c - libomp's __kmpc_fork_call and __kmpc_push_num_threads
 * for test_fork_where: they keep what they are given. */
#include <stdint.h>

typedef struct ident ident_t;
typedef void (*micro_t)(int32_t *, int32_t *, ...);

const void *volatile sp_test_ret;
const ident_t *volatile sp_test_seen;

void __kmpc_fork_call(const ident_t *loc, int32_t argc, micro_t fn, ...);
void __kmpc_push_num_threads(const ident_t *loc, int32_t gtid, int32_t n);

__attribute__((noinline)) void __kmpc_fork_call(const ident_t *loc,
                                                int32_t argc, micro_t fn, ...) {
  (void)argc, (void)fn;
  sp_test_ret = __builtin_return_address(0);
  sp_test_seen = loc;
}

void __kmpc_push_num_threads(const ident_t *loc, int32_t gtid, int32_t n) {
  (void)gtid, (void)n;
  sp_test_seen = loc;
}
