/* abort_peer.c - one process of a pretended MPI job (the launcher's
 * PMIX_NAMESPACE, no MPI) for test_abort: "peer N" records N calls of
 * "work", opens "wait", says "ready" on stdout and blocks on stdin until
 * killed; "abort N" records N calls, then calls MPI_Abort (abort_shim.c:
 * the runtime's work at MPI_Abort, then MPI_ERR_OTHER, 16, for want of a
 * PMPI_Abort), prints what it returned and ends with _exit (no exit
 * handler writes anything). */
#include <scope_profiler.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int MPI_Abort(void *comm, int code); /* abort_shim.c's */

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  long n = atol(argv[2]);
  int work = sp_region("work"), wait = sp_region("wait");
  for (long i = 0; i < n; i++) {
    sp_begin(work);
    sp_end(work);
  }
  if (strcmp(argv[1], "abort") == 0) {
    char line[32];
    int len = snprintf(line, sizeof line, "%d\n", MPI_Abort(NULL, 3));
    if (write(1, line, (size_t)len) != len)
      _exit(3);
    _exit(0);
  }
  sp_begin(wait);
  if (write(1, "ready\n", 6) != 6)
    return 3;
  char c;
  while (read(0, &c, 1) > 0)
    ;
  sp_end(wait);
  return 0;
}
