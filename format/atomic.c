/* atomic.c - write-to-a-temporary-then-rename helpers shared by the writers
 * (temporaries created safely, removed by the tools when a signal ends
 * them). */
#include "sp_common.h"
#include "sp_tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The counter keeps two writers of one process (threads, or a retry)
 * apart; the pid keeps processes sharing a directory apart. */
static unsigned tmp_counter;

int sp_fmt_tmp_name(const char *path, char *buf, size_t size) {
  unsigned n = __atomic_fetch_add(&tmp_counter, 1, __ATOMIC_RELAXED);
  int len = snprintf(buf, size, "%s.tmp.%ld.%u", path, (long)getpid(), n);
  return (len < 0 || (size_t)len >= size) ? -1 : 0;
}

int sp_fmt_tmp_create(const char *path, char *buf, size_t size,
                      sp_fmt_err *err) {
  for (int i = 0; i < SP_FMT_TMP_TRIES; i++) {
    if (sp_fmt_tmp_name(path, buf, size) != 0) {
      sp_fmt_err_set(err, "%s: %s", path, strerror(ENAMETOOLONG));
      return -1;
    }
    sp_fmt_tmp_hold(buf, 0); /* before it exists: no moment unguarded */
    int fd =
        open(buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0)
      return fd;
    int e = errno;
    sp_fmt_tmp_forget(buf);
    if (e != EEXIST) {
      sp_fmt_err_set(err, "%s: %s", path, strerror(e));
      return -1;
    }
    /* Someone else's file (or link) at the name: jump ahead by an amount
     * it could not foresee, so planting the next names does not help. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    __atomic_fetch_add(&tmp_counter, 1 + (unsigned)(ts.tv_nsec & 0xfffff),
                       __ATOMIC_RELAXED);
  }
  sp_fmt_err_set(err, "%s: %s (%d temporary names beside it taken)", path,
                 strerror(EEXIST), SP_FMT_TMP_TRIES);
  return -1;
}

int sp_fmt_tmp_commit(const char *tmp, const char *path, sp_fmt_err *err) {
  sp_fmt_tmp_test_raise();
  int rc = rename(tmp, path), e = errno;
  if (rc != 0)
    unlink(tmp);
  sp_fmt_tmp_forget(tmp);
  if (rc == 0)
    return 0;
  sp_fmt_err_set(err, "%s: %s", path, strerror(e));
  return -1;
}

void sp_fmt_tmp_discard(const char *tmp) {
  unlink(tmp);
  sp_fmt_tmp_forget(tmp);
}

/* ---- pending temporaries, removed by a signal --------------------------
 * A fixed table, so the handler needs no allocation and no lock: a slot is
 * claimed with a compare-and-swap, filled, then published as pending; the
 * handler reads only published slots. A tool has one or two temporaries
 * at a time. */

enum { SLOT_FREE, SLOT_FILLING, SLOT_PENDING };
#define TMP_SLOTS 16

typedef struct {
  int state, dir;
  long pid;
  char name[4200];
} tmp_slot;

static tmp_slot slots[TMP_SLOTS];
static int guarded, raise_sig;

int sp_fmt_tmp_hold(const char *name, int dir) {
  size_t n = strlen(name);
  if (!__atomic_load_n(&guarded, __ATOMIC_ACQUIRE) || n >= sizeof slots[0].name)
    return -1;
  for (int i = 0; i < TMP_SLOTS; i++) {
    int free_ = SLOT_FREE;
    if (!__atomic_compare_exchange_n(&slots[i].state, &free_, SLOT_FILLING, 0,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      continue;
    memcpy(slots[i].name, name, n + 1);
    slots[i].dir = dir;
    __atomic_store_n(&slots[i].pid, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&slots[i].state, SLOT_PENDING, __ATOMIC_RELEASE);
    return i;
  }
  return -1;
}

void sp_fmt_tmp_child(int slot, long pid) {
  if (slot >= 0 && slot < TMP_SLOTS)
    __atomic_store_n(&slots[slot].pid, pid, __ATOMIC_RELEASE);
}

void sp_fmt_tmp_forget(const char *name) {
  if (!__atomic_load_n(&guarded, __ATOMIC_ACQUIRE))
    return;
  for (int i = 0; i < TMP_SLOTS; i++) {
    int pending = SLOT_PENDING;
    if (__atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE) == SLOT_PENDING &&
        strcmp(slots[i].name, name) == 0 &&
        __atomic_compare_exchange_n(&slots[i].state, &pending, SLOT_FILLING, 0,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      __atomic_store_n(&slots[i].state, SLOT_FREE, __ATOMIC_RELEASE);
      return;
    }
  }
}

/* getdents64's record; glibc's struct dirent64 has a fixed-size name. */
typedef struct {
  unsigned long long ino;
  long long off;
  unsigned short reclen;
  unsigned char type;
  char name[];
} raw_dirent;

/* Removes the directory tree at path with async-signal-safe calls only
 * (no opendir: it allocates): four levels deep at most (an OTF2 archive
 * has two), a bounded number of descents, so a tree that cannot be
 * removed ends the loop. */
static void rm_tree(const char *path) {
  enum { DEPTH = 4, DESCENTS = 256 };
  static char buf[4096] __attribute__((aligned(8)));
  int fd[DEPTH];
  char sub[DEPTH][256];
  int top = 0, descents = 0;
  fd[0] = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd[0] < 0)
    return;
  top = 1;
  while (top > 0) {
    int d = fd[top - 1], down = 0;
    long n;
    lseek(d, 0, SEEK_SET);
    while (!down && (n = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0) {
      for (long off = 0; off < n && !down;) {
        const raw_dirent *e = (const raw_dirent *)(buf + off);
        off += e->reclen;
        const char *nm = e->name;
        if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
          continue;
        if (unlinkat(d, nm, 0) == 0 || errno != EISDIR)
          continue;
        if (unlinkat(d, nm, AT_REMOVEDIR) == 0 || top == DEPTH ||
            descents == DESCENTS)
          continue;
        size_t l = strlen(nm);
        int c =
            l < sizeof sub[0]
                ? openat(d, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                : -1;
        if (c < 0)
          continue;
        memcpy(sub[top], nm, l + 1);
        fd[top++] = c;
        descents++;
        down = 1;
      }
    }
    if (down)
      continue;
    close(d);
    top--;
    if (top > 0)
      unlinkat(fd[top - 1], sub[top], AT_REMOVEDIR);
    else
      rmdir(path);
  }
}

void sp_fmt_tmp_remove_pending(void) {
  for (int i = 0; i < TMP_SLOTS; i++) {
    tmp_slot *s = &slots[i];
    if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_PENDING)
      continue;
    /* A child still writing into it would write on after the removal. */
    long pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
    if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
      while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (s->dir)
      rm_tree(s->name);
    else
      unlink(s->name);
  }
}

static void on_signal(int sig) {
  int e = errno;
  sp_fmt_tmp_remove_pending();
  /* The default action ends the process by the signal once the handler
   * returns and unblocks it: the exit status says which signal. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  raise(sig);
  errno = e;
}

void sp_fmt_tmp_guard(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
#ifdef SP_TESTING /* a test-only setting: test builds only */
  const char *t = getenv("SP_TEST_TOOL_RAISE");
  if (t && *t) {
    char *end;
    long v = strtol(t, &end, 10);
    raise_sig = !*end && v > 0 && v < 65 ? (int)v : 0;
  }
#endif
  __atomic_store_n(&guarded, 1, __ATOMIC_RELEASE);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    sigaddset(&sa.sa_mask, sigs[i]); /* one removal at a time */
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction old;
    /* A signal the caller ignores (nohup's SIGHUP) stays ignored. */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(sigs[i], &sa, NULL);
  }
}

void sp_fmt_tmp_test_raise(void) {
  if (raise_sig)
    raise(raise_sig);
}
