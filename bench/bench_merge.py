"""bench_merge.py - SP_MERGE=1 (the job writes one .h5 at MPI_Finalize)
against the ranks' own files (.spt, the default) then sp-import, and
against the job without recording (SP_ENABLE=0), for RANKS ranks of CALLS
calls each, oversubscribed. Each round runs the three as separate jobs in
turns; it prints each round's ratios and then their median and best:

  whole   (per-rank job + sp-import) / SP_MERGE job      (> 1: merge wins)
  output  the same less the job without recording on both sides: the time
          spent writing the profile

usage: bench_merge.py MPIRUN JOB SP_IMPORT DIR [RANKS] [CALLS] [ROUNDS]
"""
import os
import shutil
import statistics
import subprocess
import sys
import time


def run(cmd, env=None):
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    mpirun, job, imp, work = sys.argv[1:5]
    ranks = int(sys.argv[5]) if len(sys.argv) > 5 else 8
    calls = int(sys.argv[6]) if len(sys.argv) > 6 else 1000000
    rounds = int(sys.argv[7]) if len(sys.argv) > 7 else 3
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    def job_run(out, *settings):
        cmd = [mpirun, "--oversubscribe", "-np", str(ranks), "env",
               "SP_OUTPUT=" + out, *settings, job, str(calls)]
        return run(cmd, env)

    whole, output = [], []
    for k in range(rounds):
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work + "/ranks")
        os.makedirs(work + "/merged")
        t_off = job_run(work + "/off/p", "SP_ENABLE=0")
        t_ranks = job_run(work + "/ranks/p")
        t_imp = run([imp, "-o", work + "/imported.h5", work + "/ranks"], env)
        t_merge = job_run(work + "/merged/p", "SP_MERGE=1")
        if not os.path.exists(work + "/merged/p.h5"):
            sys.exit("bench_merge: no merged file")
        size = os.path.getsize(work + "/merged/p.h5")
        w = (t_ranks + t_imp) / t_merge
        o = (t_ranks + t_imp - t_off) / max(t_merge - t_off, 1e-9)
        whole.append(w)
        output.append(o)
        print(f"round {k + 1}: job without recording {t_off:.2f} s; "
              f"rank files {t_ranks:.2f} s + sp-import {t_imp:.2f} s; "
              f"SP_MERGE {t_merge:.2f} s ({size / 2**20:.0f} MiB); "
              f"whole {w:.2f}, output {o:.2f}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{ranks} ranks x {calls} calls, {rounds} rounds: whole median "
          f"{statistics.median(whole):.2f} best {max(whole):.2f}; output "
          f"median {statistics.median(output):.2f} best {max(output):.2f}")


if __name__ == "__main__":
    main()
