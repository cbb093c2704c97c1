/* threads.c - requests completed on another thread than the one that began
 * them (MPI_THREAD_MULTIPLE), on 2 ranks: rank 0's first thread posts an
 * MPI_Isend of 100 bytes (tag 5) and an MPI_Irecv of up to 64 (tag 6) to
 * rank 1, its second thread completes them (MPI_Wait, MPI_Waitall); rank 1
 * receives the 100 bytes and sends 40. check_threads.py finds the
 * completions' messages on the second thread. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static char out[100], in[64];
static MPI_Request q[2];

static void *begin(void *arg) {
  (void)arg;
  MPI_Isend(out, 100, MPI_CHAR, 1, 5, MPI_COMM_WORLD, &q[0]);
  MPI_Irecv(in, 64, MPI_CHAR, 1, 6, MPI_COMM_WORLD, &q[1]);
  return NULL;
}

static void *complete(void *arg) {
  (void)arg;
  MPI_Status st;
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Waitall(1, &q[1], &st);
  return NULL;
}

/* f in a thread of its own, joined. */
static int on_thread(void *(*f)(void *)) {
  pthread_t t;
  return pthread_create(&t, NULL, f, NULL) || pthread_join(t, NULL);
}

int main(int argc, char **argv) {
  int level = 0, rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
  if (level != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided (%d)\n", level);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (on_thread(begin) || on_thread(complete))
      MPI_Abort(MPI_COMM_WORLD, 3);
  } else if (rank == 1) {
    MPI_Recv(out, 100, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(in, 40, MPI_CHAR, 0, 6, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
