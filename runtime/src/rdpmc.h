/* rdpmc.h - a hardware counter read from user space (rdpmc) through its
 * event's mapped perf page, with the kernel's seqlock loop, for counters.c. */
#ifndef SP_RDPMC_H
#define SP_RDPMC_H

#include <linux/perf_event.h>
#include <stdint.h>

/* The CPU's counter idx (the page's index - 1) as it stands, raw. */
typedef uint64_t (*sp__pmc_fn)(const volatile struct perf_event_mmap_page *pg,
                               uint32_t idx);

#if defined(__x86_64__) || defined(__i386__)
#define SP__HAVE_RDPMC 1
static inline uint64_t
sp__rdpmc_insn(const volatile struct perf_event_mmap_page *pg, uint32_t idx) {
  (void)pg;
  uint32_t lo, hi;
  __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
  return lo | (uint64_t)hi << 32;
}
#else
/* Other CPUs: no user-space read here; every counter goes through read(). */
#define SP__HAVE_RDPMC 0
static inline uint64_t
sp__rdpmc_insn(const volatile struct perf_event_mmap_page *pg, uint32_t idx) {
  (void)pg;
  (void)idx;
  return 0;
}
#endif

/* The event's count into *out (0), or -1 when the page does not allow a
 * user-space read now (no cap_user_rdpmc, or index 0: the event is not on
 * a counter at the moment, as when multiplexed out), for read() instead.
 * The loop is the one <linux/perf_event.h> documents: the page read again
 * whenever the kernel changed it meanwhile (lock), the raw counter
 * sign-extended from its pmc_width bits and added to offset. Only the
 * thread the event counts may call it. */
static inline __attribute__((always_inline)) int
sp__pmc_read(const volatile struct perf_event_mmap_page *pg, sp__pmc_fn pmc,
             uint64_t *out) {
  uint32_t seq, idx;
  uint64_t count;
  do {
    seq = pg->lock;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    idx = pg->index;
    count = (uint64_t)pg->offset;
    if (!pg->cap_user_rdpmc || !idx)
      return -1;
    uint16_t width = pg->pmc_width;
    if (width == 0 || width > 64)
      return -1;
    uint64_t raw = pmc(pg, idx - 1);
    int64_t v = (int64_t)(raw << (64 - width)) >> (64 - width);
    count += (uint64_t)v;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  } while (pg->lock != seq);
  *out = count;
  return 0;
}

#endif /* SP_RDPMC_H */
