/* abort.c - MPI_Abort without losing the other ranks' calls: each rank of an
 * MPI job listens on a socket of its node; the rank that aborts asks the
 * job's other ranks there to put their calls into their streams, and waits
 * for their answers (bounded) before PMPI_Abort lets the launcher kill them.
 */
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Sockets are named in Linux's abstract namespace ("\0" first): nothing is
 * left behind in the file system however a process ends, and the kernel
 * drops the name with the process. The name says whose, which job, which
 * process: "scopeprof.<uid>.<job>.<pid>"; /proc/net/unix lists them. */
#define NAME_PREFIX "scopeprof."
#define ASK "flush"
#define ANSWER "saved"

static char job[96];       /* "<uid>.<job>." ; empty: not in a job */
static int listen_fd = -1; /* this process's socket, or -1 */

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The job this process belongs to, as its launcher says: the PMIx
 * namespace (OpenMPI 4 and 5, Slurm with PMIx, PRRTE), OpenMPI's job id,
 * Slurm's job and step; otherwise, with a rank from the launcher (MPICH's
 * Hydra, ...), the parent process, which launched the node's ranks. Only
 * letters, digits, '-' and '_' are kept: the name is parsed back. */
static int job_key(void) {
  char raw[80] = "";
  const char *v;
  if ((v = getenv("PMIX_NAMESPACE")) && *v)
    snprintf(raw, sizeof raw, "x%s", v);
  else if ((v = getenv("OMPI_MCA_ess_base_jobid")) && *v)
    snprintf(raw, sizeof raw, "o%s", v);
  else if ((v = getenv("SLURM_JOB_ID")) && *v && getenv("SLURM_STEP_ID"))
    snprintf(raw, sizeof raw, "s%s-%s", v, getenv("SLURM_STEP_ID"));
  else if (sp__rank_from_env() >= 0)
    snprintf(raw, sizeof raw, "p%ld", (long)getppid());
  else
    return -1;
  for (char *c = raw; *c; c++)
    if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
        !(*c >= '0' && *c <= '9') && *c != '-')
      *c = '_';
  snprintf(job, sizeof job, "%lu.%s.", (unsigned long)getuid(), raw);
  return 0;
}

/* An abstract address for name; its length for bind and sendto. */
static socklen_t address(struct sockaddr_un *a, const char *name) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  size_t n = strlen(name);
  if (n + 1 > sizeof a->sun_path)
    n = sizeof a->sun_path - 1;
  memcpy(a->sun_path + 1, name, n);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* The listener: each request is answered once this process's calls are in
 * its stream (or at once when there is nothing left to save: finalized,
 * or a signal's flush has the stream). It never ends; the process's end
 * takes it. */
static void *listen_main(void *arg) {
  (void)arg;
  for (;;) {
    char msg[16];
    struct sockaddr_un from;
    union {
      struct cmsghdr h;
      char buf[CMSG_SPACE(sizeof(struct ucred))];
    } ctl;
    struct iovec v = {msg, sizeof msg};
    struct msghdr m = {&from, sizeof from, &v, 1, ctl.buf, sizeof ctl.buf, 0};
    ssize_t n = recvmsg(listen_fd, &m, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return NULL; /* closed (a forked child's copy): no more requests */
    /* Any process of the node can send here: only this user's (as the
     * kernel vouches with SO_PASSCRED) are answered. */
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    struct ucred who;
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS)
      continue;
    memcpy(&who, CMSG_DATA(c), sizeof who);
    if (who.uid != getuid() || n != (ssize_t)strlen(ASK) ||
        memcmp(msg, ASK, (size_t)n) != 0 ||
        m.msg_namelen <= (socklen_t)offsetof(struct sockaddr_un, sun_path))
      continue;
    int64_t t0 = sp__mono_ns();
    sp__flush_to_stream(SP_STREAM_STOP_MPI_ABORT);
    sp__debug("MPI_Abort elsewhere in the job: calls saved to the stream in "
              "%.3f ms",
              (double)(sp__mono_ns() - t0) / 1e6);
    sendto(listen_fd, ANSWER, strlen(ANSWER), MSG_DONTWAIT,
           (struct sockaddr *)&from, m.msg_namelen);
  }
}

void sp__abort_listen(void) {
  if (sp__cfg.abort_wait <= 0 || job_key() != 0)
    return;
  char name[sizeof job + 24];
  snprintf(name, sizeof name, NAME_PREFIX "%s%ld", job, (long)getpid());
  struct sockaddr_un a;
  socklen_t len = address(&a, name);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return;
  int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 ||
      bind(fd, (struct sockaddr *)&a, len) != 0) {
    close(fd);
    return;
  }
  listen_fd = fd;
  /* No signal meant for the program comes to this thread. Its stack is
   * the flush's (a few pages; address space, not memory, past them). */
  pthread_attr_t attr;
  pthread_t t;
  sigset_t all, old;
  sigfillset(&all);
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)1 << 20);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&t, &attr, listen_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    close(fd);
    listen_fd = -1;
  }
}

/* A forked child is not a rank: its copy of the socket goes, so that the
 * name ends with the rank that made it. */
void sp__abort_after_fork(void) {
  if (listen_fd >= 0)
    close(listen_fd);
  listen_fd = -1;
}

/* The pids of the job's other listeners on this node, from /proc/net/unix
 * (an abstract name shows as "@name", last on its line); their count. */
static int peers(long *pids, int max) {
  FILE *f = fopen("/proc/net/unix", "re");
  if (!f)
    return 0;
  char line[512], want[sizeof job + 16];
  snprintf(want, sizeof want, "@" NAME_PREFIX "%s", job);
  size_t wn = strlen(want);
  long self = (long)getpid();
  int n = 0;
  while (n < max && fgets(line, sizeof line, f)) {
    char *at = strstr(line, want);
    if (!at)
      continue;
    char *end;
    long pid = strtol(at + wn, &end, 10);
    if (end == at + wn || (*end != '\n' && *end != 0) || pid == self)
      continue;
    int seen = 0;
    for (int i = 0; i < n; i++)
      seen |= pids[i] == pid;
    if (!seen)
      pids[n++] = pid;
  }
  fclose(f);
  return n;
}

#define MAX_PEERS 4096

void sp__abort_others(void) {
  if (!job[0] || sp__cfg.abort_wait <= 0)
    return;
  int64_t t0 = sp__mono_ns();
  static long pids[MAX_PEERS];
  int n = peers(pids, MAX_PEERS);
  if (n == 0)
    return;
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return;
  /* Bound to an address of the kernel's choosing (autobind), so that the
   * answers can come back. */
  sa_family_t fam = AF_UNIX;
  if (bind(fd, (struct sockaddr *)&fam, sizeof fam) != 0) {
    close(fd);
    return;
  }
  int asked = 0;
  for (int i = 0; i < n; i++) {
    char name[sizeof job + 24];
    struct sockaddr_un a;
    snprintf(name, sizeof name, NAME_PREFIX "%s%ld", job, pids[i]);
    socklen_t len = address(&a, name);
    if (sendto(fd, ASK, strlen(ASK), MSG_DONTWAIT, (struct sockaddr *)&a,
               len) == (ssize_t)strlen(ASK))
      asked++;
  }
  int answered = 0;
  int64_t until = mono_ms() + sp__cfg.abort_wait;
  while (answered < asked) {
    int64_t left = until - mono_ms();
    if (left <= 0)
      break;
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, (int)left);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    char msg[16];
    ssize_t got = recv(fd, msg, sizeof msg, MSG_DONTWAIT);
    if (got == (ssize_t)strlen(ANSWER) && memcmp(msg, ANSWER, (size_t)got) == 0)
      answered++;
  }
  close(fd);
  sp__debug("MPI_Abort: %d of %d other processes of the job on this node "
            "saved their calls in %.3f ms",
            answered, asked, (double)(sp__mono_ns() - t0) / 1e6);
}
