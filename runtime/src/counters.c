/* counters.c - SP_COUNTERS: each thread's counters (perf_event_open
 * groups, opened at its first call) read at a region's begin and end
 * (read(), or rdpmc where the kernel allows it), and summed per (thread,
 * region) as inclusive and exclusive counts; the sums into the stream as
 * COUNTERS records. */
#include "counters.h"
#include "filter.h"
#include "hotpath.h"
#include "rdpmc.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define K_MAX SP_STREAM_CTR_MAX
#define ROWS_PER_PAGE 256u
#define NPAGES (SP__MAX_REGIONS / ROWS_PER_PAGE)
#define FIRST_STACK 64u

typedef struct ev_def {
  const char *name, *alias;
  uint32_t type;
  uint64_t config;
} ev_def;

/* The names docs/runtime.md lists, with perf's own spelling as alias. */
static const ev_def defs[] = {
    {"cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", NULL, PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", "branch-instructions", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"context-switches", "cs", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", "migrations", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CPU_MIGRATIONS},
    {"task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
};
#define NDEFS ((int)(sizeof defs / sizeof defs[0]))

int sp__cnt_n;
static const ev_def *ev[K_MAX];
static int ev_user_only[K_MAX]; /* exclude_kernel (perf_event_paranoid) */
static _Atomic int ev_warned[K_MAX];

/* A thread's state; never freed (a signal handler may read its sums). A
 * frame is FW words: the region, then the counters at its begin, then the
 * counts of the calls that ended directly inside it. A row is RW words:
 * seq (odd while an end changes it), calls, inclusive and exclusive sums. */
typedef struct cthread {
  int fd[K_MAX];    /* per counter, -1: none */
  int gfd[K_MAX];   /* the fds read: group leaders */
  int gat[K_MAX];   /* the first of a group's counters in order[] */
  int gn[K_MAX];    /* counters in the group */
  int order[K_MAX]; /* counter indices, group after group */
  int ngroups;
  /* per counter, its event's mapped page (NULL: none); per group, 1 when
   * every member has one (rdpmc tried first) */
  const volatile struct perf_event_mmap_page *pg[K_MAX];
  unsigned char gpmc[K_MAX];
  unsigned char used[K_MAX]; /* test builds: 1 read() gave it, 2 rdpmc */
  int32_t thread;            /* the stream's thread number, -1 until known */
  uint32_t depth, cap;
  uint64_t *stack;
  uint64_t **pages; /* NPAGES pointers to ROWS_PER_PAGE rows */
  struct cthread *next;
} cthread;

static __thread cthread *ctls;
static _Atomic(cthread *) threads; /* newest first */
static cthread dead;               /* a thread whose state could not be made */
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

#define FW(k) (1 + 2 * (size_t)(k))
#define RW(k) (2 + 2 * (size_t)(k))

static void *map(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static int ev_open(int i, int group) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = ev[i]->type;
  a.config = ev[i]->config;
  a.read_format = PERF_FORMAT_GROUP;
  a.exclude_hv = 1;
  a.exclude_kernel = (unsigned)ev_user_only[i];
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, group,
                      PERF_FLAG_FD_CLOEXEC);
}

int sp__active_value(void) {
  if (sp__cnt_n)
    return sp__cfg.mode ? SP__ACTIVE_PROF_COUNTERS : SP__ACTIVE_COUNTERS;
  return sp__cfg.mode ? SP__ACTIVE_PROFILE : 1;
}

static const ev_def *lookup(const char *name) {
  for (int i = 0; i < NDEFS; i++)
    if (strcasecmp(name, defs[i].name) == 0 ||
        (defs[i].alias && strcasecmp(name, defs[i].alias) == 0))
      return &defs[i];
  return NULL;
}

/* The names of SP_COUNTERS, known and not yet taken, into ev[]. */
static void parse(const char *list) {
  char unknown[256] = "";
  const char *p = list;
  while (*p) {
    size_t n = strcspn(p, ", \t");
    char name[64];
    if (n && n < sizeof name) {
      memcpy(name, p, n);
      name[n] = 0;
      const ev_def *d = lookup(name);
      int dup = 0;
      for (int i = 0; d && i < sp__cnt_n; i++)
        dup |= ev[i] == d;
      if (!d && strlen(unknown) + n + 3 < sizeof unknown)
        snprintf(unknown + strlen(unknown), sizeof unknown - strlen(unknown),
                 "%s%s", unknown[0] ? ", " : "", name);
      else if (d && !dup && sp__cnt_n < K_MAX)
        ev[sp__cnt_n++] = d;
    }
    p += n;
    p += strspn(p, ", \t");
  }
  if (unknown[0]) {
    char known[512] = "";
    for (int i = 0; i < NDEFS; i++)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
               i ? ", " : "", defs[i].name);
    sp__warn("warning: SP_COUNTERS: unknown counter %s (known: %s)", unknown,
             known);
  }
}

void sp__cnt_init(void) {
  if (!sp__cfg.counters[0])
    return;
  /* SP_MERGE's file is .h5 whatever the rank's own would be. */
  const char *fmt = getenv("SP_FORMAT");
  if (!sp__cfg.mode && !sp__cfg.merge && fmt && *fmt && !sp__cfg.format_h5) {
    sp__warn("warning: SP_COUNTERS: a .spt file has no place for counters "
             "(SP_FORMAT=h5 keeps them); recording times only");
    return;
  }
  parse(sp__cfg.counters);
  /* Each counter tried once on this thread: kernel counting first (page
   * faults and context switches happen in the kernel), user space only
   * when perf_event_paranoid allows no more. */
  char refused[768] = "";
  int k = 0;
  for (int i = 0; i < sp__cnt_n; i++) {
    ev_user_only[k] = 0;
    ev[k] = ev[i];
    int fd = ev_open(k, -1);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
      ev_user_only[k] = 1;
      fd = ev_open(k, -1);
    }
    if (fd >= 0) {
      close(fd);
      k++;
      continue;
    }
    int e = errno;
    size_t at = strlen(refused);
    snprintf(refused + at, sizeof refused - at, "%s%s (%s)", at ? ", " : "",
             ev[i]->name, strerror(e));
  }
  sp__cnt_n = k;
  if (refused[0])
    sp__warn("warning: SP_COUNTERS: not available here: %s; recording goes "
             "on without %s",
             refused, strchr(refused, ',') ? "them" : "it");
#ifdef SP_USE_HDF5
  if (k && !sp__cfg.mode)
    sp__cfg.format_h5 = 1; /* the counters' file (SP_FORMAT unset) */
#endif
}

static void unmap_pages(cthread *c) {
  for (int i = 0; i < sp__cnt_n; i++)
    if (c->pg[i]) {
      munmap((void *)(uintptr_t)c->pg[i], (size_t)sysconf(_SC_PAGESIZE));
      c->pg[i] = NULL;
    }
  for (int g = 0; g < c->ngroups; g++)
    c->gpmc[g] = 0;
}

static void thread_exit(void *arg) {
  cthread *c = arg;
  if (!c || c == &dead)
    return;
  unmap_pages(c);
  for (int i = 0; i < sp__cnt_n; i++)
    if (c->fd[i] >= 0) {
      close(c->fd[i]);
      c->fd[i] = -1;
    }
  c->ngroups = 0;
  c->depth = 0;
  ctls = &dead;
}

static void make_key(void) { pthread_key_create(&exit_key, thread_exit); }

/* Which group a counter joins. A group reads in one system call, but on
 * Linux 6.x a sibling of a software counter of another kind reads stale
 * (task-clock beside page-faults reads 0, and page-faults beside a
 * task-clock leader too): hardware counters, the software event counters,
 * and task-clock each have their own group. */
static int kind_of(const ev_def *d) {
  if (d->type == PERF_TYPE_HARDWARE)
    return 0;
  return d->config == PERF_COUNT_SW_TASK_CLOCK ? 2 : 1;
}

/* This thread's counters, one group per kind (the fewest reads the kernel
 * counts right); one refused to join its group leads one of its own. */
static void open_group(cthread *c) {
  int k = sp__cnt_n, n = 0;
  for (int kind = 0; kind < 3; kind++) {
    int lead = -1;
    for (int i = 0; i < k; i++) {
      if (kind_of(ev[i]) != kind)
        continue;
      int fd = lead >= 0 ? ev_open(i, c->fd[lead]) : -1;
      if (fd < 0) {
        fd = ev_open(i, -1);
        if (fd < 0) {
          c->fd[i] = -1;
          if (!atomic_exchange(&ev_warned[i], 1))
            sp__warn("warning: SP_COUNTERS: %s could not be opened on a "
                     "thread (%s); it counts nothing there",
                     ev[i]->name, strerror(errno));
          continue;
        }
        lead = i;
        c->gfd[c->ngroups] = fd;
        c->gat[c->ngroups] = n;
        c->gn[c->ngroups++] = 0;
      }
      c->fd[i] = fd;
      c->order[n++] = i;
      c->gn[c->ngroups - 1]++;
    }
  }
}

#ifdef SP_TESTING
/* SP_TEST_RDPMC: a page made as the kernel would make one for an event
 * whose count is 1000 at the first read and one more at each, with a
 * 48-bit counter below an offset of 2^46 (so the raw value needs its sign
 * extended); 2: index 0, 3: no cap_user_rdpmc (read() then). */
typedef struct fake_page {
  struct perf_event_mmap_page pg;
  uint64_t next; /* the count the next read finds */
} fake_page;

static uint64_t fake_pmc(const volatile struct perf_event_mmap_page *pg,
                         uint32_t idx) {
  fake_page *f = (fake_page *)(uintptr_t)pg;
  (void)idx;
  uint64_t count = f->next++;
  return (count - (uint64_t)f->pg.offset) & ((1ull << f->pg.pmc_width) - 1);
}

static const volatile struct perf_event_mmap_page *fake_map(int i, int how) {
  fake_page *f = map((size_t)sysconf(_SC_PAGESIZE));
  if (!f)
    return NULL;
  f->pg.index = how == 2 ? 0 : (uint32_t)i + 1;
  f->pg.cap_user_rdpmc = how != 3;
  f->pg.pmc_width = 48;
  f->pg.offset = (int64_t)1 << 46;
  f->next = 1000;
  return &f->pg;
}
#endif

/* Each group that may be read with rdpmc (hardware counters, this CPU
 * able to) gets its events' pages mapped; one page that cannot be leaves
 * the group to read(). Whether the kernel allows rdpmc is the page's
 * word at each read, not now: the kernel sets cap_user_rdpmc only after
 * the mapping, when it next updates the page. */
static void map_pages(cthread *c) {
  size_t psz = (size_t)sysconf(_SC_PAGESIZE);
  int fake = SP__TEST_CFG(test_rdpmc, 0);
  for (int g = 0; g < c->ngroups; g++) {
    if (!fake && (!SP__HAVE_RDPMC || kind_of(ev[c->order[c->gat[g]]]) != 0))
      continue;
    int ok = 1;
    for (int j = 0; j < c->gn[g] && ok; j++) {
      int i = c->order[c->gat[g] + j];
      const volatile struct perf_event_mmap_page *pg = NULL;
#ifdef SP_TESTING
      if (fake)
        pg = fake_map(i, fake);
#endif
      if (!fake) {
        void *m = mmap(NULL, psz, PROT_READ, MAP_SHARED, c->fd[i], 0);
        pg = m == MAP_FAILED ? NULL : m;
      }
      c->pg[i] = pg;
      ok = pg != NULL;
      if (ok) /* its first touch faults now, not in a call's counts */
        (void)pg->lock;
    }
    c->gpmc[g] = (unsigned char)ok;
  }
}

static cthread *cthread_new(void) {
  pthread_once(&key_once, make_key);
  cthread *c = map(sizeof *c);
  if (!c)
    return ctls = &dead;
  c->cap = FIRST_STACK;
  c->stack = map(c->cap * FW(sp__cnt_n) * 8);
  c->pages = map(NPAGES * sizeof *c->pages);
  if (!c->stack || !c->pages) {
    if (c->stack)
      munmap(c->stack, c->cap * FW(sp__cnt_n) * 8);
    if (c->pages)
      munmap(c->pages, NPAGES * sizeof *c->pages);
    munmap(c, sizeof *c);
    return ctls = &dead;
  }
  c->thread = -1;
  open_group(c);
  map_pages(c);
  cthread *head = atomic_load(&threads);
  do
    c->next = head;
  while (!atomic_compare_exchange_weak(&threads, &head, c));
  pthread_setspecific(exit_key, c);
  return ctls = c;
}

#ifdef SP_TESTING
#define USED(c, i, how) ((c)->used[i] |= (how))
#else
#define USED(c, i, how) ((void)0)
#endif

/* Group g's counters into v with rdpmc (0), or -1: read() them. */
static int pmc_group(cthread *c, int g, uint64_t *v) {
  for (int j = 0; j < c->gn[g]; j++) {
    int i = c->order[c->gat[g] + j];
    int r;
#ifdef SP_TESTING
    if (SP__TEST_CFG(test_rdpmc, 0))
      r = sp__pmc_read(c->pg[i], fake_pmc, &v[i]);
    else
#endif
      r = sp__pmc_read(c->pg[i], sp__rdpmc_insn, &v[i]);
    if (r != 0)
      return -1;
    USED(c, i, 2);
  }
  return 0;
}

/* The thread's counters now into v; a group that cannot be read gives 0s.
 * self: c is the calling thread's (rdpmc reads only the caller's own
 * counters: another thread's go through read()). */
static void read_all(cthread *c, uint64_t *v, int self) {
  for (int g = 0; g < c->ngroups; g++) {
    if (self && c->gpmc[g] && pmc_group(c, g, v) == 0)
      continue;
    uint64_t buf[1 + K_MAX];
    ssize_t r = read(c->gfd[g], buf, sizeof buf);
    int n = c->gn[g];
    for (int j = 0; j < n; j++) {
      v[c->order[c->gat[g] + j]] =
          r >= (ssize_t)(8 * (j + 2)) && (int)buf[0] > j ? buf[1 + j] : 0;
      USED(c, c->order[c->gat[g] + j], 1);
    }
  }
  for (int i = 0; i < sp__cnt_n; i++)
    if (c->fd[i] < 0)
      v[i] = 0;
}

static uint64_t *row_of(cthread *c, int32_t id) {
  uint64_t **pg = &c->pages[(uint32_t)id / ROWS_PER_PAGE];
  uint64_t *p = __atomic_load_n(pg, __ATOMIC_ACQUIRE);
  if (!p) {
    p = map(ROWS_PER_PAGE * RW(sp__cnt_n) * 8);
    if (!p)
      return NULL;
    __atomic_store_n(pg, p, __ATOMIC_RELEASE);
  }
  return p + ((uint32_t)id % ROWS_PER_PAGE) * RW(sp__cnt_n);
}

static int grow(cthread *c) {
  size_t fw = FW(sp__cnt_n) * 8;
  uint32_t cap = c->cap * 2;
  if (cap > SP__STACK_MAX)
    return -1;
  uint64_t *s = map(cap * fw);
  if (!s)
    return -1;
  memcpy(s, c->stack, c->depth * fw);
  munmap(c->stack, c->cap * fw);
  c->stack = s;
  c->cap = cap;
  return 0;
}

/* Slow paths run between enter and leave (finalize waits for them). */
static int enter(void) {
  atomic_fetch_add(&sp__in_slow, 1);
  if (atomic_load(&sp__state) == SP__RUNNING)
    return 1;
  atomic_fetch_sub(&sp__in_slow, 1);
  return 0;
}

static void leave(void) { atomic_fetch_sub(&sp__in_slow, 1); }

/* The frame opened (this thread's counters opened on its first call),
 * the counters read last: none of the runtime's own setup counts in the
 * call. */
static void open_frame(int32_t id) {
  int g = sp__guard_enter(0);
  if (!g)
    return;
  if (!enter()) {
    sp__guard_leave(g);
    return;
  }
  cthread *c = ctls;
  if (!c)
    c = cthread_new();
  if (c != &dead && (c->depth < c->cap || grow(c) == 0) && row_of(c, id)) {
    uint64_t *f = c->stack + c->depth * FW(sp__cnt_n);
    f[0] = (uint32_t)id;
    memset(f + 1 + sp__cnt_n, 0, (size_t)sp__cnt_n * 8);
    c->depth++;
    read_all(c, f + 1, 1);
  }
  leave();
  sp__guard_leave(g);
}

/* The thread's number in the stream, once its trace or profile has one. */
static void learn_thread(void) {
  cthread *c = ctls;
  if (!c || c == &dead || c->thread >= 0)
    return;
  if (sp__cfg.mode)
    c->thread = sp__ptls ? sp__ptls->thread : -1;
  else
    c->thread = sp__self ? sp__self->index : -1;
}

void sp__cnt_begin(int32_t id) {
  int a = SP__ACTIVE();
  if (a != SP__ACTIVE_COUNTERS && a != SP__ACTIVE_PROF_COUNTERS)
    return;
  /* The trace's or profile's making of what the begin needs first, then
   * the counters, then the begin (its clock): the counts of the call do
   * not include the runtime's setup of the thread or of the region. */
  if (!sp__filter_drops(id) && (uint32_t)id < SP__MAX_REGIONS &&
      (uint32_t)id < (uint32_t)atomic_load(&sp__nregions)) {
    if (a == SP__ACTIVE_COUNTERS)
      sp__trace_ready(id);
    else
      sp__prof_ready();
    open_frame(id);
  }
  if (a == SP__ACTIVE_COUNTERS)
    sp__begin_trace(id);
  else
    sp__prof_begin(id);
  learn_thread();
}

/* Pops the innermost frame: its counts since its begin (now - start) go
 * to its row and to its caller's frame. */
static void pop(cthread *c, const uint64_t *now) {
  int k = sp__cnt_n;
  uint64_t *f = c->stack + (c->depth - 1) * FW(k);
  uint64_t *r = row_of(c, (int32_t)f[0]); /* made at its begin */
  uint64_t *up = c->depth > 1 ? f - FW(k) : NULL;
  c->depth--;
  if (!r)
    return;
  uint64_t seq = r[0];
  __atomic_store_n(&r[0], seq + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  for (int j = 0; j < k; j++) {
    uint64_t d = now[j] - f[1 + j];
    __atomic_store_n(&r[2 + j], r[2 + j] + d, __ATOMIC_RELAXED);
    __atomic_store_n(&r[2 + k + j], r[2 + k + j] + d - f[1 + k + j],
                     __ATOMIC_RELAXED);
    if (up)
      up[1 + k + j] += d;
  }
  __atomic_store_n(&r[1], r[1] + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&r[0], seq + 2, __ATOMIC_RELEASE);
}

/* The counters read first: what the trace's end costs counts in the
 * caller. Calls opened above the matching one end with it (as the trace
 * closes them); an end that matches no open call changes nothing. */
static void close_frame(int32_t id) {
  int g = sp__guard_enter(0);
  if (!g)
    return;
  if (!enter()) {
    sp__guard_leave(g);
    return;
  }
  cthread *c = ctls;
  if (c && c != &dead && c->depth) {
    uint64_t now[K_MAX];
    read_all(c, now, 1);
    uint32_t i = c->depth;
    while (i > 0 && (int32_t)c->stack[(i - 1) * FW(sp__cnt_n)] != id)
      i--;
    while (i > 0 && c->depth >= i)
      pop(c, now);
  }
  leave();
  sp__guard_leave(g);
}

void sp__cnt_end(int32_t id) { sp__cnt_end_at(id, 0); }

void sp__cnt_end_at(int32_t id, uint64_t stamp) {
  int a = SP__ACTIVE();
  if (a == SP__ACTIVE_COUNTERS)
    sp__end_trace(id, stamp);
  else if (a == SP__ACTIVE_PROF_COUNTERS)
    sp__prof_end(id, stamp ? stamp : sp__now());
  else
    return;
  if (!sp__filter_drops(id))
    close_frame(id);
}

void sp__cnt_close_all(void) {
  if (!sp__cnt_n)
    return;
  for (cthread *c = atomic_load(&threads); c; c = c->next) {
    if (!c->depth || !c->ngroups)
      continue;
    uint64_t now[K_MAX];
    read_all(c, now, c == ctls); /* another thread's group reads as well */
    while (c->depth)
      pop(c, now);
  }
#ifdef SP_TESTING
  if (sp__cfg.test_ctr_sources) {
    static const char *const how[] = {"none", "read", "rdpmc", "rdpmc+read"};
    char line[1024] = "";
    for (int i = 0; i < sp__cnt_n; i++) {
      int u = 0;
      for (cthread *c = atomic_load(&threads); c; c = c->next)
        u |= c->used[i];
      size_t at = strlen(line);
      snprintf(line + at, sizeof line - at, " %s=%s", ev[i]->name, how[u & 3]);
    }
    sp__warn("test: counter sources:%s", line);
  }
#endif
}

/* ---- into the stream: records of at most 64 KiB, rows copied with the
 * seq retry (their thread may still be counting, or be stopped in an end
 * by the signal being handled) */
static uint64_t rec[(1 << 16) / 8];

static int put(size_t payload) {
  sp_stream_rec *r = (sp_stream_rec *)(void *)rec;
  r->type = SP_STREAM_COUNTERS;
  r->size = (uint32_t)(sizeof *r + payload);
  r->check = sp_stream_check(r->type, r->size, r + 1);
  struct iovec iov = {rec, r->size};
  return sp__stream_put(&iov, 1);
}

static void copy_row(const uint64_t *r, uint64_t *out, size_t words) {
  for (int tries = 0; tries < 256; tries++) {
    uint64_t s1 = __atomic_load_n(&r[0], __ATOMIC_ACQUIRE);
    for (size_t w = 1; w < words; w++)
      out[w] = __atomic_load_n(&r[w], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!(s1 & 1) && __atomic_load_n(&r[0], __ATOMIC_RELAXED) == s1)
      return;
  }
}

static int thread_out(const cthread *c) {
  int k = sp__cnt_n;
  size_t head = sizeof(sp_stream_rec) + sizeof(sp_stream_counters) +
                (size_t)k * SP_STREAM_CTR_NAME;
  size_t row = sizeof(sp_stream_ctr_row) + 16 * (size_t)k;
  size_t per = (sizeof rec - head) / row;
  sp_stream_counters *h = (sp_stream_counters *)(void *)(rec + 2);
  char *names = (char *)(h + 1);
  memset(h, 0, sizeof *h);
  memset(names, 0, (size_t)k * SP_STREAM_CTR_NAME);
  for (int i = 0; i < k; i++)
    memcpy(names + i * SP_STREAM_CTR_NAME, ev[i]->name, strlen(ev[i]->name));
  h->thread = c->thread;
  h->ncounters = (uint32_t)k;
  unsigned char *body = (unsigned char *)rec + head;
  size_t n = 0;
  for (uint32_t p = 0; p < NPAGES; p++) {
    const uint64_t *pg = __atomic_load_n(&c->pages[p], __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; pg && i < ROWS_PER_PAGE; i++) {
      const uint64_t *r = pg + i * RW(k);
      if (!__atomic_load_n(&r[1], __ATOMIC_RELAXED))
        continue;
      uint64_t *o = (uint64_t *)(void *)(body + n * row);
      copy_row(r, o, RW(k)); /* o[0] is the row's head: set below */
      sp_stream_ctr_row *x = (sp_stream_ctr_row *)(void *)o;
      x->region = (int32_t)(p * ROWS_PER_PAGE + i);
      x->reserved = 0;
      if (++n == per) {
        h->nrows = (int64_t)n;
        if (put(head - sizeof(sp_stream_rec) + n * row) != 0)
          return -1;
        n = 0;
      }
    }
  }
  h->nrows = (int64_t)n;
  return n ? put(head - sizeof(sp_stream_rec) + n * row) : 0;
}

int sp__cnt_stream(void) {
  if (!sp__cnt_n)
    return 0;
  int rc = 0;
  for (cthread *c = atomic_load(&threads); c; c = c->next)
    if (c->thread >= 0 && thread_out(c) != 0)
      rc = -1;
  return rc;
}

/* A forked child: the other threads are gone and this thread's counters
 * count the parent; it starts afresh, its open calls not counted. */
void sp__cnt_after_fork(void) {
  if (!sp__cnt_n)
    return;
  cthread *self = ctls;
  atomic_store(&threads, NULL);
  ctls = NULL;
  if (self && self != &dead) {
    unmap_pages(self);
    for (int i = 0; i < sp__cnt_n; i++)
      if (self->fd[i] >= 0)
        close(self->fd[i]);
  }
}
