/* bench_runtime_cyg.c - the function the -finstrument-functions path of
 * bench_runtime calls; this file alone is built with the hooks on. */
void sp_bench_cyg_target(void);
void sp_bench_cyg_target(void) { __asm__ volatile(""); }
