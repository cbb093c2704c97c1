"""check_merge.py - checks for the SP_MERGE tests (merge.sh).

  equal MERGED IMPORTED   the two schema-2 files hold the same rows (rank,
                          thread, region name, source, calls), the same
                          calls (start and end of every event), the same
                          summary_statistics and the same metadata
  counts FILE RANKS CALLS [PARTIAL]
                          FILE holds ranks 0..RANKS-1, mpi_size RANKS, with
                          the calls merge.c makes for CALLS on each; rank
                          PARTIAL (killed: its stream holds what its writer
                          had written) some of them, none of its own rows
                          with more
  counters MERGED IMPORTED RANKS
                          every rank's rank<N>/likwid group (SP_COUNTERS)
                          of MERGED equals IMPORTED's
"""
import sys

import h5py
import numpy as np


def fail(msg):
    print("check_merge: " + msg)
    sys.exit(1)


def rows(f):
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f["region_table/names"][:]]
    ix = f["rank_region_index"]
    files = [x.decode() if isinstance(x, bytes) else x
             for x in ix["source_files"][:]]
    out = []
    for i in range(len(ix["ranks"])):
        out.append((int(ix["ranks"][i]), int(ix["threads"][i]),
                    names[ix["region_ids"][i]], files[i],
                    int(ix["source_lines"][i]), int(ix["event_offsets"][i]),
                    int(ix["event_counts"][i])))
    return out


def meta(f):
    out = {}
    for k, v in f["metadata"].attrs.items():
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, np.ndarray):
            v = [x.decode() if isinstance(x, bytes) else x for x in v.tolist()]
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def equal(a, b):
    fa, fb = h5py.File(a, "r"), h5py.File(b, "r")
    ra, rb = rows(fa), rows(fb)
    if ra != rb:
        for x, y in zip(ra, rb):
            if x != y:
                fail(f"rows differ: {x} vs {y}")
        fail(f"{len(ra)} rows vs {len(rb)}")
    for ds in ("events/start_times", "events/end_times"):
        x, y = fa[ds][:], fb[ds][:]
        if x.shape != y.shape or not np.array_equal(x, y):
            fail(f"{ds} differ ({x.shape} vs {y.shape})")
    sa = fa["rank_region_index/summary_statistics"][:]
    sb = fb["rank_region_index/summary_statistics"][:]
    if sa.dtype.names != sb.dtype.names:
        fail("summary_statistics fields differ")
    for name in sa.dtype.names:
        if not np.array_equal(sa[name], sb[name]):
            fail(f"summary_statistics.{name} differ: {sa[name]} vs {sb[name]}")
    ma, mb = meta(fa), meta(fb)
    if ma != mb:
        keys = sorted(set(ma) | set(mb))
        diff = [(k, ma.get(k), mb.get(k)) for k in keys if ma.get(k) != mb.get(k)]
        fail(f"metadata differ: {diff}")
    events = len(fa["events/start_times"])
    if events == 0 or len(ra) == 0:
        fail("empty profile")
    print(f"check_merge: equal: {len(ra)} rows, {events} calls, "
          f"{len(ma)} metadata keys")


def counts(path, nranks, calls, partial=-1):
    f = h5py.File(path, "r")
    got = {}
    for rank, thread, name, _, _, _, n in rows(f):
        got[(rank, name)] = got.get((rank, name), 0) + n
    want = {}
    for r in range(nranks):
        want[(r, "step")] = want[(r, "leaf")] = calls + 7 * r
        want[(r, "worker_outer")] = calls // 2 + r
        want[(r, "worker_inner")] = 2 * (calls // 2 + r)
        want[(r, "barrier")] = 1
        if r == 1:
            want[(r, "rank1_only")] = (calls + 7 + 2) // 3
    if partial >= 0:
        # the killed rank's "filler" calls only made its writer write
        part = {k: v for k, v in got.items()
                if k[0] == partial and k[1] != "filler"}
        if not part or any(v > want.get(k, 0) for k, v in part.items()):
            fail(f"{path}: rank {partial}: {sorted(part.items())}")
        got = {k: v for k, v in got.items() if k[0] != partial}
        want = {k: v for k, v in want.items() if k[0] != partial}
    if got != want:
        fail(f"{path}: calls {sorted(got.items())} != {sorted(want.items())}")
    m = meta(f)
    if m.get("mpi_size") != nranks:
        fail(f"{path}: mpi_size {m.get('mpi_size')} != {nranks}")
    print(f"check_merge: counts: {nranks} ranks, {sum(got.values())} calls")


def paths(f):
    """(rank, thread, call path) -> its statistics' bytes."""
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f["region_table/names"][()]]
    g = f["call_paths"]
    par, reg = g["parents"][()], g["region_ids"][()]
    full = []
    for i in range(len(par)):
        full.append((full[par[i]] if par[i] >= 0 else ()) + (names[reg[i]],))
    return {(int(g["ranks"][i]), int(g["threads"][i]), full[i]):
            g["statistics"][i] for i in range(len(par))}


def profile(a, b, nranks, calls):
    """SP_MODE=profile: a's call paths and their statistics are b's, a's
    rows hold the calls merge.c makes, and both say mode profile."""
    fa, fb = h5py.File(a, "r"), h5py.File(b, "r")
    pa, pb = paths(fa), paths(fb)
    if {k: v.tobytes() for k, v in pa.items()} != \
            {k: v.tobytes() for k, v in pb.items()}:
        fail(f"{a}: call paths differ from {b}: {sorted(pa)} {sorted(pb)}")
    for f, path in ((fa, a), (fb, b)):
        if meta(f).get("mode") != "profile":
            fail(f"{path}: mode {meta(f).get('mode')!r}")
        if f["events/start_times"].shape != (0,):
            fail(f"{path}: a profile with events")
    got = {}
    for (rank, _, p), st in pa.items():
        got[(rank, p[-1])] = got.get((rank, p[-1]), 0) + int(st["calls"])
    want = {}
    for r in range(nranks):
        want[(r, "step")] = want[(r, "leaf")] = calls + 7 * r
        want[(r, "worker_outer")] = calls // 2 + r
        want[(r, "worker_inner")] = 2 * (calls // 2 + r)
        want[(r, "barrier")] = 1
        if r == 1:
            want[(r, "rank1_only")] = (calls + 7 + 2) // 3
    if got != want:
        fail(f"{a}: calls {sorted(got.items())} != {sorted(want.items())}")
    if meta(fa).get("mpi_size") != nranks:
        fail(f"{a}: mpi_size {meta(fa).get('mpi_size')} != {nranks}")
    print(f"check_merge: profile: {len(pa)} call paths, {sum(got.values())} calls")


def counters(a, b, nranks):
    """SP_COUNTERS: every rank's likwid group of the merged file a equals
    the one sp-import made in b, and holds page faults of merge.c's
    regions."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for r in range(nranks):
            key = "rank%d/likwid" % r
            if key not in fa or key not in fb:
                fail("%s: no %s in both files" % (a, key))
            ga, gb = fa[key], fb[key]
            if list(ga.attrs["counters"]) != list(gb.attrs["counters"]):
                fail("%s: counters differ" % key)
            for d in ("region", "thread", "calls", "inclusive", "exclusive"):
                if not np.array_equal(ga[d][()], gb[d][()]):
                    fail("%s/%s differs from sp-import's" % (key, d))
            if len(ga["region"]) == 0 or int(ga["calls"][()].min()) <= 0:
                fail("%s: no row, or a row without calls" % key)
            if int(ga["inclusive"][()][:, 0].sum()) <= 0:
                fail("%s: no page fault at all" % key)


if __name__ == "__main__":
    if sys.argv[1] == "profile":
        profile(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "equal":
        equal(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "counters":
        counters(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "counts":
        counts(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
               int(sys.argv[5]) if len(sys.argv) > 5 else -1)
    else:
        fail("unknown check " + sys.argv[1])
