/* metadata.c - the run metadata (the "metadata" attributes of schema 2:
 * host, user, platform, environment), collected once per process. */
#include "internal.h"
#include "sp_format.h"

#include <gnu/libc-version.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

extern char **environ;

int sp__mpi_size = -1;

static void chip(char *out, size_t size) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  snprintf(out, size, "unknown");
  if (!f)
    return;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *colon = strchr(line, ':');
      if (colon) {
        colon++;
        while (*colon == ' ' || *colon == '\t')
          colon++;
        colon[strcspn(colon, "\n")] = 0;
        snprintf(out, size, "%s", colon);
      }
      break;
    }
  }
  fclose(f);
}

static const char *const captured[] = {"PATH",
                                       "LD_LIBRARY_PATH",
                                       "VIRTUAL_ENV",
                                       "LOADEDMODULES",
                                       "MODULEPATH",
                                       "MODULESHOME",
                                       "MODULES_CMD",
                                       "MODULES_RUN_QUARANTINE",
                                       "PYTHON_HOME",
                                       "PYTHON_INC",
                                       "PYTHON_INCLUDE",
                                       "PYTHON_LIB",
                                       NULL};

void sp__metadata_collect(sp_fmt_meta *m) {
  char buf[4096];
  sp_fmt_meta_set_str(m, "timestamp", sp__start_timestamp);
  if (sp__cfg.label[0])
    sp_fmt_meta_set_str(m, "label", sp__cfg.label);
  sp_fmt_meta_set_int(m, "start_time_ns", sp__start_time_ns());
  const char *user = getenv("USER");
  struct passwd *pw = user ? NULL : getpwuid(getuid());
  sp_fmt_meta_set_str(m, "user", user ? user : pw ? pw->pw_name : "unknown");
  struct utsname u;
  if (uname(&u) == 0) {
    sp_fmt_meta_set_str(m, "hostname", u.nodename);
    snprintf(buf, sizeof buf, "%s-%s-%s-with-glibc%s", u.sysname, u.release,
             u.machine, gnu_get_libc_version());
    sp_fmt_meta_set_str(m, "platform", buf);
    snprintf(buf, sizeof buf, "%s %s %s %s %s", u.sysname, u.nodename,
             u.release, u.version, u.machine);
    sp_fmt_meta_set_str(m, "uname", buf);
  }
  chip(buf, sizeof buf);
  sp_fmt_meta_set_str(m, "chip_information", buf);
  sp_fmt_meta_set_str(m, "scope_profiler_version", SP_VERSION_STRING);
  if (getcwd(buf, sizeof buf))
    sp_fmt_meta_set_str(m, "working_directory", buf);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  sp_fmt_meta_set_int(m, "omp_num_threads", sp__omp_num_threads());
  int size = sp__size_from_env();
  if (size <= 0)
    size = sp__mpi_size;
  sp_fmt_meta_set_int(m, "mpi_size", size > 0 ? size : 1);
  sp_fmt_meta_set_int(m, "total_cores", cores);
  sp_fmt_meta_set_str(m, "clock_source", sp__clock_name());

  /* modules: LOADEDMODULES is colon-separated, as Environment Modules and
   * Lmod export it. */
  const char *lm = getenv("LOADEDMODULES");
  char *copy = strdup(lm ? lm : "");
  const char *mods[256];
  int64_t nmods = 0;
  for (char *save = NULL, *tok = copy ? strtok_r(copy, ":", &save) : NULL;
       tok && nmods < 256; tok = strtok_r(NULL, ":", &save))
    mods[nmods++] = tok;
  sp_fmt_meta_set_strlist(m, "modules", mods, nmods);
  free(copy);

  for (const char *const *k = captured; *k; k++) {
    const char *v = getenv(*k);
    if (v)
      sp_fmt_meta_set_str(m, *k, v);
  }
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "SLURM_", 6) != 0 && strncmp(*e, "SLURMD_", 7) != 0)
      continue;
    const char *eq = strchr(*e, '=');
    if (!eq || (size_t)(eq - *e) >= 256)
      continue;
    char key[256];
    memcpy(key, *e, (size_t)(eq - *e));
    key[eq - *e] = 0;
    sp_fmt_meta_set_str(m, key, eq + 1);
  }
}

/* The run metadata as META records of the stream, so a stream recovered
 * after a crash carries it too. Collected once, before the token is taken
 * (reading /proc and the user database may be slow, and a signal handler
 * may be waiting for the token); written with the token held. */
static sp_fmt_meta collected;
static int have_collected;
/* Held while collecting, and by fork (sp__meta_lock): the user database
 * and stdio take libc's own locks, and a child forked while another thread
 * held one would wait for it forever at its first metadata. */
static pthread_mutex_t meta_lock = PTHREAD_MUTEX_INITIALIZER;

void sp__stream_meta_prepare(void) {
  if (__atomic_load_n(&have_collected, __ATOMIC_ACQUIRE))
    return;
  pthread_mutex_lock(&meta_lock);
  if (!have_collected) {
    sp__metadata_collect(&collected);
    __atomic_store_n(&have_collected, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&meta_lock);
}

void sp__meta_lock(void) { pthread_mutex_lock(&meta_lock); }
void sp__meta_unlock(void) { pthread_mutex_unlock(&meta_lock); }

void sp__stream_meta_full(void) {
  sp__stream_meta_prepare();
  for (int64_t i = 0; i < collected.n; i++) {
    const sp_fmt_meta_item *it = &collected.items[i];
    if (it->type == SP_FMT_META_STR)
      sp__stream_meta_str(it->key, it->str);
    else if (it->type == SP_FMT_META_INT)
      sp__stream_meta_int(it->key, it->i64);
  }
}
