#!/usr/bin/python3
# test_manager_mpi.py - run by mpirun on 3 ranks: ProfileManager under
# mpi4py. Rank r records r + 2 calls of "step" (and one "rank_r"); the
# collective finalize(return_results=True) gives rank 0 every rank's calls
# and the others empty results with is_root False; rank 0's file, read
# with h5py, holds the same. Exit status 1 on any rank's failure.
import json
import os
import sys

from mpi4py import MPI

from scopeprof import ProfileManager, read_h5

WORK = sys.argv[1]
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []


def eq(a, b, what):
    if a != b:
        failures.append("rank %d: %s: %r != %r" % (rank, what, a, b))


out = os.path.join(WORK, "mpi.h5")
ProfileManager.setup(file_path=out, label="mpi run")
for i in range(rank + 2):
    with ProfileManager.profile_region("step"):
        with ProfileManager.profile_region("rank_%d" % rank):
            sum(range(1000))

results = ProfileManager.finalize(return_results=True)

eq(results.is_root, rank == 0, "is_root")
if rank == 0:
    eq(results.ranks, list(range(size)), "ranks")
    eq(results["step"].num_calls, sum(r + 2 for r in range(size)), "step calls")
    for r in range(size):
        eq(results["step"][r].num_calls, r + 2, "step calls of rank %d" % r)
        eq(results["rank_%d" % r].ranks, [r], "rank_%d's rank" % r)
    eq(results.metadata.get("label"), "mpi run", "label")
    import h5py
    with h5py.File(out, "r") as f:
        idx = f["rank_region_index"]
        names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
        got = sorted((names[g], int(r), int(c)) for g, r, c in zip(
            idx["region_ids"][()], idx["ranks"][()], idx["event_counts"][()]))
    want = sorted([("step", r, r + 2) for r in range(size)] +
                  [("rank_%d" % r, r, r + 2) for r in range(size)])
    eq(got, want, "the file's rows (h5py)")
    back = read_h5(out)
    for g in results.get_regions():
        eq(back[g.name].total_duration, g.total_duration, "file total of " + g.name)
else:
    eq(results.get_regions(), [], "empty results")
    eq(results.events().to_dataframe().shape[0], 0, "no events")
# Output needs no rank guard: printed by rank 0 only.
with open(os.path.join(WORK, "summary_%d.txt" % rank), "w") as f:
    results.print_summary(file=f)
sizes = comm.gather(os.path.getsize(os.path.join(WORK, "summary_%d.txt" % rank)))
if rank == 0:
    eq([s > 0 for s in sizes], [True] + [False] * (size - 1), "print_summary once")
    eq(sorted(n for n in os.listdir(WORK) if n.startswith("scopeprof-")), [],
       "no private directory left")
allf = comm.gather(failures)
if rank == 0:
    allf = [x for f in allf for x in f]
    for f in allf:
        print("FAIL:", f)
    print(json.dumps({"failures": len(allf)}))
sys.exit(1 if failures else 0)
