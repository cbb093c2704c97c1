/* bench_plugin_kernels.c - the same tiny kernel three ways, compiled by
 * bench/plugin.cmake with clang and ScopeProf.so: annotated, and (with
 * -DSP_BENCH_CYG and -finstrument-functions) through the hook path. */
#ifdef SP_BENCH_CYG
__attribute__((noinline)) void sp_bench_k_cyg(volatile int *p) { *p += 1; }
#else
__attribute__((annotate("sp_region"), noinline)) void
sp_bench_k_ann(volatile int *p) {
  *p += 1;
}
#endif
