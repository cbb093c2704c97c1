#!/usr/bin/python3
# bench_profile_stream.py - SP_MODE=profile's stream over the run's length:
# the same loop of N calls killed with SIGKILL once it is done and one more
# snapshot is surely written (SP_PROFILE_SNAPSHOT seconds later, plus one),
# for several N; prints the stream's size, the calls sp-import recovers
# from it, and the final .h5's size of the same loop ended normally.
# Args: RT_PROFILE_PROG SP_IMPORT WORKDIR [N...]
# (rt_profile_prog is the test program of test/unit/runtime/profile_prog.c.)
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py

prog, imp, work = sys.argv[1:4]
ns = [int(x) for x in sys.argv[4:]] or [10_000_000, 100_000_000]
every = int(os.environ.get("SP_PROFILE_SNAPSHOT", "1"))
base = {k: v for k, v in os.environ.items() if not k.startswith("SP_")}
print("N calls, seconds, stream bytes, calls recovered, final .h5 bytes")
for n in ns:
    d = os.path.join(work, "kill%d" % n)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    e = dict(base, SP_MODE="profile", SP_OUTPUT=os.path.join(d, "p"),
             SP_PROFILE_SNAPSHOT=str(every))
    t0 = time.monotonic()
    p = subprocess.Popen([prog, "kill", str(n)], env=e, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    p.stdout.readline()
    secs = time.monotonic() - t0
    time.sleep(every + 1)  # a measurement, not a test: one more snapshot
    p.send_signal(signal.SIGKILL)
    p.wait()
    [spts] = [f for f in os.listdir(d) if f.endswith(".spts")]
    size = os.path.getsize(os.path.join(d, spts))
    out = os.path.join(d, "out.h5")
    subprocess.run([imp, "-o", out, d], check=True, stderr=subprocess.DEVNULL)
    with h5py.File(out, "r") as f:
        names = [x.decode() for x in f["region_table/names"][()]]
        st = f["rank_region_index/summary_statistics"][()]
        ids = f["rank_region_index/region_ids"][()]
        leaf = [int(s["calls"]) for i, s in zip(ids, st) if names[i] == "leaf"]
    dl = os.path.join(work, "loop%d" % n)
    shutil.rmtree(dl, ignore_errors=True)
    os.makedirs(dl)
    subprocess.run([prog, "loop", str(n)], check=True,
                   env=dict(e, SP_OUTPUT=os.path.join(dl, "p")))
    h5 = os.path.getsize(os.path.join(dl, "p_rank00000.h5"))
    print("%d, %.2f, %d, %s, %d" % (n, secs, size, leaf, h5))
