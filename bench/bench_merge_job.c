/* bench_merge_job.c - the MPI job of bench_merge.py: each rank records
 * CALLS calls (two nested regions, and a third every 8th time) and
 * finalizes. With SP_MERGE=1 the ranks write one file at MPI_Finalize;
 * without, each writes its own at exit. */
#include <mpi.h>
#include <scope_profiler.h>

#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long calls = argc > 1 ? atol(argv[1]) : 1000000;
  int outer = sp_region("outer"), inner = sp_region("inner"),
      third = sp_region("every_8th");
  long i = 0;
  for (long done = 0; done < calls; i++) {
    sp_begin(outer);
    sp_begin(inner);
    sp_end(inner);
    done += 2;
    if (i % 8 == 0 && done < calls) {
      sp_begin(third);
      sp_end(third);
      done++;
    }
    sp_end(outer);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
