"""bench_merge.py - SP_MERGE=1 (the job writes one .h5 at MPI_Finalize)
against the ranks' own files (.spt, the default) then sp-import, and
against the job without recording (SP_ENABLE=0), for RANKS ranks of CALLS
calls each, oversubscribed. Each round runs every job below as a separate
process, in turns; it prints each round's ratios and then their median and
best:

  whole   (per-rank job + sp-import) / SP_MERGE job      (> 1: merge wins)
  output  the same less the job without recording on both sides: the time
          spent writing the profile
  way     output time of SP_MERGE_PARALLEL=1 (parallel HDF5 and MPI-IO,
          where built) / that of the default (on one host: the ranks'
          turns with pwrite; > 1: the turns are faster)

and, from a job with SP_MERGE_WRITERS=1 (one rank's turn at a time)
against the default (several at once), rank 0's SP_VERBOSE figures for the
other ranks' turns:

  writers  turns with SP_MERGE_WRITERS=1 / turns with the default (> 1:
           the turns at once are faster)

usage: bench_merge.py MPIRUN JOB SP_IMPORT DIR [RANKS] [CALLS] [ROUNDS]
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time


def run(cmd, env=None):
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


def run_turns(cmd, env):
    """The job's time, rank 0's seconds for the other ranks' turns, and
    whether it wrote through parallel HDF5."""
    t0 = time.monotonic()
    p = subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    t = time.monotonic() - t0
    m = re.search(r"other ranks' turns ([0-9.]+) s", p.stderr)
    if not m:
        sys.exit("bench_merge: no SP_VERBOSE line from rank 0:\n" + p.stderr)
    return t, float(m.group(1)), "parallel HDF5)" in p.stderr


def main():
    mpirun, job, imp, work = sys.argv[1:5]
    ranks = int(sys.argv[5]) if len(sys.argv) > 5 else 8
    calls = int(sys.argv[6]) if len(sys.argv) > 6 else 1000000
    rounds = int(sys.argv[7]) if len(sys.argv) > 7 else 3
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    def job_cmd(out, *settings):
        return [mpirun, "--oversubscribe", "-np", str(ranks), "env",
                "SP_OUTPUT=" + out, *settings, job, str(calls)]

    def job_run(out, *settings):
        return run(job_cmd(out, *settings), env)

    whole, output, way, writers = [], [], [], []
    par_used = False
    for k in range(rounds):
        shutil.rmtree(work, ignore_errors=True)
        merges = [("merged", []), ("par", ["SP_MERGE_PARALLEL=1"]),
                  ("merged1", ["SP_MERGE_WRITERS=1"])]
        for d in ["ranks"] + [m[0] for m in merges]:
            os.makedirs(work + "/" + d)
        t_off = job_run(work + "/off/p", "SP_ENABLE=0")
        t_ranks = job_run(work + "/ranks/p")
        t_imp = run([imp, "-o", work + "/imported.h5", work + "/ranks"], env)
        if k % 2:  # every other round the other order: none gains warmth
            merges.reverse()
        got = {}
        for d, extra in merges:
            got[d] = run_turns(job_cmd(work + "/" + d + "/p", "SP_MERGE=1",
                                       "SP_VERBOSE=1", *extra), env)
            if not os.path.exists(work + "/" + d + "/p.h5"):
                sys.exit("bench_merge: no merged file")
        t_merge, turns, _ = got["merged"]
        t_par, _, par_used = got["par"]
        t_merge1, turns1, _ = got["merged1"]
        size = os.path.getsize(work + "/merged/p.h5")
        w = (t_ranks + t_imp) / t_merge
        o = (t_ranks + t_imp - t_off) / max(t_merge - t_off, 1e-9)
        whole.append(w)
        output.append(o)
        way.append((t_par - t_off) / max(t_merge - t_off, 1e-9))
        writers.append(turns1 / max(turns, 1e-9))
        print(f"round {k + 1}: job without recording {t_off:.2f} s; "
              f"rank files {t_ranks:.2f} s + sp-import {t_imp:.2f} s; "
              f"SP_MERGE {t_merge:.2f} s ({size / 2**20:.0f} MiB), with "
              f"SP_MERGE_PARALLEL=1 {t_par:.2f} s"
              f"{'' if par_used else ' (not parallel: not built)'}, with "
              f"SP_MERGE_WRITERS=1 {t_merge1:.2f} s; whole {w:.2f}, output "
              f"{o:.2f}, way {way[-1]:.2f}; turns {turns:.3f} s, one at a "
              f"time {turns1:.3f} s: writers {writers[-1]:.2f}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{ranks} ranks x {calls} calls, {rounds} rounds: whole median "
          f"{statistics.median(whole):.2f} best {max(whole):.2f}; output "
          f"median {statistics.median(output):.2f} best {max(output):.2f}; "
          f"way median {statistics.median(way):.2f} best {max(way):.2f}; "
          f"writers median {statistics.median(writers):.2f} best "
          f"{max(writers):.2f}")


if __name__ == "__main__":
    main()
