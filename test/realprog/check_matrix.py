#!/usr/bin/python3
"""check_matrix.py MERGED.h5 MATRIX.csv NRANKS - a real program's
communication matrix as sp-report --mpi --matrix --export csv gives it (the
senders' records) against the receivers' own records (results.mpi_messages():
receives and completed nonblocking receives, by source): every cell's
messages and bytes equal, and every pair of ranks in it (HPCC's ring and
latency tests reach every pair)."""
import csv
import sys

import scopeprof

path, mcsv, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sent = {}
with open(mcsv) as f:
    for row in csv.DictReader(f):
        sent[(int(row["sender"]), int(row["receiver"]))] = (
            int(row["messages"]), int(row["bytes"]))
df = scopeprof.read_h5(path).mpi_messages()
rx = df[df["kind"].isin(["recv", "wait_recv"]) & (df["peer"] >= 0)]
got = {}
for (src, dst), g in rx.groupby(["peer", "rank"]):
    got[(int(src), int(dst))] = (len(g), int(g["bytes_recv"].sum()))
if sent != got:
    keys = sorted(set(sent) | set(got))
    diff = ["%s: sent %s, received %s" % (k, sent.get(k), got.get(k))
            for k in keys if sent.get(k) != got.get(k)]
    sys.exit("check_matrix.py: the matrix is not what the receivers got:\n  "
             + "\n  ".join(diff))
pairs = {k for k, v in sent.items() if v[0] > 0 and k[0] != k[1]}
want = {(a, b) for a in range(n) for b in range(n) if a != b}
if pairs != want:
    sys.exit("check_matrix.py: pairs %s, not every pair of %d ranks"
             % (sorted(pairs), n))
print("check_matrix.py: %d ranks, %d messages, %d bytes, as received"
      % (n, sum(v[0] for v in sent.values()), sum(v[1] for v in sent.values())))
