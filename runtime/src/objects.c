/* objects.c - the loaded objects that address regions fall in: each one's
 * build-id (its GNU note, read in memory: no file is opened), path and
 * load bias, noted when its first address region is registered, so the
 * stream names them (MAP records) from a signal handler too and the tools
 * can name what the stream leaves as an address. */
#include "internal.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#define SP__MAX_OBJS 4096
static sp__obj_t *objs[SP__MAX_OBJS];
_Atomic int32_t sp__nobjs;
static pthread_mutex_t obj_lock = PTHREAD_MUTEX_INITIALIZER;

void sp__objects_lock(void) { pthread_mutex_lock(&obj_lock); }
void sp__objects_unlock(void) { pthread_mutex_unlock(&obj_lock); }

const sp__obj_t *sp__obj_get(int32_t i) {
  return i >= 0 && i < atomic_load_explicit(&sp__nobjs, memory_order_acquire)
             ? objs[i]
             : NULL;
}

struct find_ctx {
  uintptr_t addr;
  sp__obj_t o;
  const char *name;
  int found;
};

/* The GNU build-id among the notes of one PT_NOTE segment (in memory). */
static void note_build_id(const unsigned char *p, size_t n, sp__obj_t *o) {
  while (n >= 12) {
    uint32_t nsz, dsz, type;
    memcpy(&nsz, p, 4);
    memcpy(&dsz, p + 4, 4);
    memcpy(&type, p + 8, 4);
    size_t na = ((size_t)nsz + 3) & ~(size_t)3;
    size_t da = ((size_t)dsz + 3) & ~(size_t)3;
    if (na > n - 12 || da > n - 12 - na)
      return;
    if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(p + 12, "GNU", 4) == 0 &&
        dsz <= sizeof o->build_id) {
      memcpy(o->build_id, p + 12 + na, dsz);
      o->nbuild_id = dsz;
      return;
    }
    p += 12 + na + da;
    n -= 12 + na + da;
  }
}

static int find_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct find_ctx *c = data;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  int holds = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t a = info->dlpi_addr + ph->p_vaddr;
    holds |= c->addr >= a && c->addr < a + ph->p_memsz;
    lo = a < lo ? a : lo;
    hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
  }
  if (!holds)
    return 0;
  c->o.bias = info->dlpi_addr;
  c->o.lo = lo;
  c->o.hi = hi;
  c->name = info->dlpi_name;
  for (int i = 0; i < info->dlpi_phnum && !c->o.nbuild_id; i++)
    if (info->dlpi_phdr[i].p_type == PT_NOTE)
      note_build_id(
          (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
          info->dlpi_phdr[i].p_memsz, &c->o);
  return c->found = 1;
}

/* The index of a live object holding a, or -1. */
static int32_t known(uintptr_t a) {
  int32_t n = atomic_load_explicit(&sp__nobjs, memory_order_acquire);
  for (int32_t i = 0; i < n; i++)
    if (a >= objs[i]->lo && a < objs[i]->hi &&
        !atomic_load_explicit(&objs[i]->gone, memory_order_relaxed))
      return i;
  return -1;
}

void sp__obj_note(int32_t id) {
  sp__region_t *r = sp__region_get(id);
  if (!r || !r->addr || __atomic_load_n(&r->obj, __ATOMIC_ACQUIRE))
    return;
  uintptr_t a = (uintptr_t)r->addr;
  int32_t i = known(a);
  if (i < 0) {
    pthread_mutex_lock(&obj_lock);
    if ((i = known(a)) < 0) {
      struct find_ctx c = {.addr = a};
      dl_iterate_phdr(find_object, &c);
      int32_t n = atomic_load_explicit(&sp__nobjs, memory_order_relaxed);
      char path[PATH_MAX];
      ssize_t len = -1;
      if (c.found && c.name && *c.name) {
        len = (ssize_t)strlen(c.name);
        if ((size_t)len < sizeof path)
          memcpy(path, c.name, (size_t)len);
      } else if (c.found) { /* the program: its path, not /proc/self/exe */
        len = readlink("/proc/self/exe", path, sizeof path - 1);
      }
      sp__obj_t *o = NULL;
      if (len > 0 && (size_t)len < sizeof path && n < SP__MAX_OBJS) {
        sp__registry_lock();
        o = sp__arena_alloc(sizeof *o + (size_t)len + 1);
        sp__registry_unlock();
      }
      if (o) {
        char *kept = (char *)(o + 1);
        memcpy(kept, path, (size_t)len);
        kept[len] = 0;
        *o = c.o;
        o->path = kept;
        objs[n] = o;
        atomic_store_explicit(&sp__nobjs, n + 1, memory_order_release);
        i = n;
      }
    }
    pthread_mutex_unlock(&obj_lock);
  }
  if (i >= 0)
    __atomic_store_n(&r->obj, i + 1, __ATOMIC_RELEASE);
}

void sp__obj_gone(uintptr_t bias, uintptr_t lo) {
  int32_t n = atomic_load_explicit(&sp__nobjs, memory_order_acquire);
  for (int32_t i = 0; i < n; i++)
    if (objs[i]->bias == bias && objs[i]->lo == lo)
      atomic_store_explicit(&objs[i]->gone, 1, memory_order_relaxed);
}
