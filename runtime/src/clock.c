/* clock.c - the recording clock: raw ticks of the CPU's counter where it
 * runs at a constant rate and the kernel itself uses it (x86: the invariant
 * TSC; aarch64: the generic timer, cntvct_el0), else CLOCK_MONOTONIC;
 * output is always CLOCK_MONOTONIC ns. */
#include "internal.h"
#include "sp_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int sp__clock_tsc;

/* The start-up calibration point (tsc, mono): the stream's first clock
 * record; its readers map stamps linearly between it and the last one. */
static uint64_t tsc0;
static int64_t mono0;

#ifdef SP_TESTING
/* SP_TEST_CLOCK_OFFSET_NS / SP_TEST_CLOCK_DRIFT_PPM (env_test.def): this
 * process's clock made to read as another node's would, so that one machine
 * can test the alignment of several. skew_ref: the raw time the drift
 * counts from. */
static int skewed;
static int64_t skew_offset, skew_ppm, skew_ref;

/* SP_TEST_CLOCK_STEP_NS: a clock of each thread's own that advances by
 * this step at every read, from 1 s on, so that tests know every stamp. */
static int64_t fake_step;
static __thread int64_t fake_now;
#endif

int64_t sp__mono_ns(void) {
#ifdef SP_TESTING
  if (SP_UNLIKELY(fake_step))
    return (fake_now += fake_step) + INT64_C(1000000000);
#endif
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#ifdef SP_TESTING
  if (SP_UNLIKELY(skewed))
    t += skew_offset + (int64_t)((__int128)(t - skew_ref) * skew_ppm / 1000000);
#endif
  return t;
}

#ifdef SP_TESTING
/* A signed decimal integer in [lo, hi] from the variable name, or 0 with a
 * warning when it is not one. */
static int64_t test_knob(const char *name, int64_t lo, int64_t hi) {
  const char *v = getenv(name);
  if (!v || !*v)
    return 0;
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (*end || errno || x < lo || x > hi) {
    sp__warn("warning: %s=%s is not an integer from %lld to %lld; using 0",
             name, v, (long long)lo, (long long)hi);
    return 0;
  }
  return (int64_t)x;
}

static void skew_init(void) {
  skew_offset = test_knob("SP_TEST_CLOCK_OFFSET_NS", -(INT64_C(1) << 62),
                          INT64_C(1) << 62);
  skew_ppm = test_knob("SP_TEST_CLOCK_DRIFT_PPM", -1000000, 1000000);
  skewed = 0;
  skew_ref = sp__mono_ns();
  skewed = skew_offset != 0 || skew_ppm != 0;
}
#endif

#if defined(__x86_64__) || defined(__i386__)
static int cpu_has_counter(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
    return 0;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d >> 8) & 1;
}
#elif defined(__aarch64__)
/* The generic timer's frequency as the firmware programmed it. The counter
 * itself runs at a constant rate on every ARMv8 CPU; a zero frequency means
 * firmware that did not set the timer up, so it is not trusted. The
 * frequency is not needed for the mapping (the calibration points give
 * it), only reported. */
static uint64_t cntfrq(void) {
  uint64_t f;
  __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
  return f;
}
static int cpu_has_counter(void) { return cntfrq() != 0; }
static char counter_name[64]; /* with the frequency, by sp__clock_init */
#else
static int cpu_has_counter(void) { return 0; }
#endif

/* The kernel drops the TSC as clocksource when it finds it unsynchronized
 * across CPUs; following its choice keeps threads on one timeline. A KVM
 * guest's kvm-clock is itself the host TSC scaled, so it vouches as well.
 * On aarch64 the kernel's clocksource over the generic timer is
 * arch_sys_counter (also where it works around a CPU's timer erratum: then
 * the kernel traps and fixes user-space reads, which stay correct). */
static int kernel_uses_counter(void) {
  FILE *f = fopen(
      "/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  char buf[32] = {0};
  if (!f)
    return 0;
  if (!fgets(buf, sizeof buf, f))
    buf[0] = 0;
  fclose(f);
#if defined(__aarch64__)
  return strncmp(buf, "arch_sys_counter", 16) == 0;
#else
  return strncmp(buf, "tsc", 3) == 0 || strncmp(buf, "kvm-clock", 9) == 0;
#endif
}

/* Reads ticks and mono as close together as possible: the ticks halfway
 * through the slowest clock_gettime call of a few is discarded. */
static void paired_read(uint64_t *tsc, int64_t *mono) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 5; i++) {
    uint64_t a = sp__ticks();
    int64_t m = sp__mono_ns();
    uint64_t b = sp__ticks();
    if (b - a < best) {
      best = b - a;
      *tsc = a + (b - a) / 2;
      *mono = m;
    }
  }
}

void sp__clock_init(void) {
  const char *force = getenv("SP_CLOCK");
  int want_tsc = cpu_has_counter() && kernel_uses_counter();
#ifdef SP_TESTING
  skew_init();
  fake_step = test_knob("SP_TEST_CLOCK_STEP_NS", 0, 1000000000);
  if (fake_step)
    force = "monotonic";
#endif
  if (force && strcmp(force, "monotonic") == 0)
    want_tsc = 0;
  else if (force && strcmp(force, "tsc") == 0)
    want_tsc = cpu_has_counter();
  else if (force && *force && strcmp(force, "auto") != 0)
    sp__warn("warning: SP_CLOCK=%s is not monotonic, tsc or auto; using %s",
             force, want_tsc ? "tsc" : "monotonic");
  if (want_tsc)
    paired_read(&tsc0, &mono0);
  else
    mono0 = sp__mono_ns();
#if defined(__aarch64__)
  snprintf(counter_name, sizeof counter_name,
           "cntvct_el0 (%llu Hz) calibrated to CLOCK_MONOTONIC",
           (unsigned long long)cntfrq());
#endif
  sp__clock_tsc = want_tsc;
}

const char *sp__clock_name(void) {
  if (!sp__clock_tsc)
    return "CLOCK_MONOTONIC";
#if defined(__aarch64__)
  return counter_name;
#else
  return "tsc calibrated to CLOCK_MONOTONIC";
#endif
}

/* The start-up calibration point, as the stream's first clock record. */
void sp__clock_origin(uint64_t *stamp, int64_t *mono) {
  *stamp = sp__clock_tsc ? tsc0 : (uint64_t)mono0;
  *mono = mono0;
}

/* A (stamp, CLOCK_MONOTONIC) pair of now; async-signal-safe. */
void sp__clock_point(uint64_t *stamp, int64_t *mono) {
  if (sp__clock_tsc) {
    paired_read(stamp, mono);
  } else {
    *mono = sp__mono_ns();
    *stamp = (uint64_t)*mono;
  }
}

/* Hashes up to 256 bytes of a small /proc file into h; 0 when unreadable. */
static int hash_file(const char *path, uint64_t *h) {
  char buf[256];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0)
    return 0;
  *h = sp__fnv1a_n(*h, buf, (size_t)n);
  return 1;
}

/* Which CLOCK_MONOTONIC this process reads, as a number: processes that
 * share one read the same clock, so their offset is 0 exactly and needs no
 * measurement. The kernel's boot_id names the running kernel, and a time
 * namespace (a container restored elsewhere) may shift the clock, so its
 * offsets count too. 0: not known (no /proc), or a clock this process
 * alone reads (the tests' skewed and fake clocks). */
uint64_t sp__clock_id(void) {
#ifdef SP_TESTING
  if (skewed || fake_step)
    return 0;
#endif
  uint64_t h = SP__FNV_SEED;
  if (!hash_file("/proc/sys/kernel/random/boot_id", &h))
    return 0;
  hash_file("/proc/self/timens_offsets", &h);
  return h ? h : 1;
}
