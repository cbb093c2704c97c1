/* late.c - a late sender on 2 ranks, for sp-report --mpi's late-sender
 * column (check_late.py): rank 1 sends 200 ms after rank 0 posted its
 * MPI_Recv, then 100 ms after rank 0 posted an MPI_Irecv it waits for in
 * MPI_Wait; then rank 1 sends first and rank 0 receives 100 ms later (no
 * late sender); last, rank 1 enters an MPI_Barrier 150 ms after rank 0
 * (rank 0's collective wait). Before that, a late receiver: rank 0
 * MPI_Ssends to rank 1, which sees the message arrive (MPI_Probe: the send
 * has begun), sleeps 120 ms, then posts its MPI_Recv; the same with an
 * MPI_Issend completed by MPI_Wait and 80 ms. The delays are the
 * program's own sleeps. */
#include <mpi.h>
#include <time.h>

#define LATE_RECV_MS 120 /* check_late.py's lower bounds */
#define LATE_WAIT_MS 80

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

int main(int argc, char **argv) {
  int rank;
  char b[8] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Recv(b, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Request q;
    MPI_Irecv(b, 8, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    nap_ms(200);
    MPI_Send(b, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    nap_ms(100);
    MPI_Send(b, 8, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Send(b, 8, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
  } else if (rank == 0) {
    nap_ms(100);
    MPI_Recv(b, 8, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Ssend(b, 8, MPI_CHAR, 1, 4, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Probe(0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    nap_ms(LATE_RECV_MS);
    MPI_Recv(b, 8, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Request q;
    MPI_Issend(b, 8, MPI_CHAR, 1, 5, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Probe(0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    nap_ms(LATE_WAIT_MS);
    MPI_Recv(b, 8, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1)
    nap_ms(150);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
