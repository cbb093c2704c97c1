#!/usr/bin/python3
# fuzz_readers.py - a bounded, repeatable fuzz run of the Python readers:
# cases made from the committed corpora (test/fuzz/corpus/*.spt, the C
# fuzz target's, and test/fuzz/corpus_h5/*.h5) by a mutation loop with a
# fixed seed, each read by a worker process that is restarted when it dies.
# Every case must read, or raise scopeprof's FormatError of one line
# naming the file: a signal, a hang or another exception is a finding.
# usage: fuzz_readers.py WORKDIR [CASES] [SEED]   (PYTHONPATH: python/)
import json
import os
import random
import select
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPORA = [os.path.join(HERE, "..", "fuzz", "corpus"),
           os.path.join(HERE, "..", "fuzz", "corpus_h5")]
TIMEOUT = 20  # seconds for one case: only a hang takes that long

INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
               1 << 40, (1 << 63) - 1, (1 << 64) - 1]


def worker():
    """Reads the path on each line of stdin; answers one JSON line."""
    import io
    import warnings

    import scopeprof
    warnings.simplefilter("ignore")
    for line in sys.stdin:
        path = line.rstrip("\n")
        out = {"ok": True}
        try:
            for read in (scopeprof.read_h5, scopeprof.read_h5_summary):
                r = read(path)
                r.print_summary(file=io.StringIO())
                r.to_dataframe()
        except scopeprof.FormatError as e:
            out = {"err": "FormatError", "msg": str(e)}
        except Exception as e:  # a finding: reported by the driver
            out = {"err": type(e).__name__, "msg": str(e)}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


def mutate(rng, data):
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 8))):
        if not b:
            break
        k = rng.randrange(10)
        at = rng.randrange(len(b))
        if k < 5:
            b[at] ^= rng.randrange(1, 256)
        elif k < 7:
            v = rng.choice(INTERESTING)
            w = rng.choice((1, 2, 4, 8))
            b[at:at + w] = (v & ((1 << (8 * w)) - 1)).to_bytes(w, "little")
        elif k < 8:
            del b[at:]
        elif k < 9:
            n = rng.randrange(1, 64)
            del b[at:at + n]
        else:
            n = rng.randrange(1, 64)
            b[at:at] = b[at:at + n]
    return bytes(b)


class Worker:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)

    def ask(self, path):
        """(result dict, None) or (None, what went wrong)."""
        self.p.stdin.write(path + "\n")
        self.p.stdin.flush()
        ready, _, _ = select.select([self.p.stdout], [], [], TIMEOUT)
        if not ready:
            self.p.kill()
            self.p.wait()
            return None, "no answer in %d s (a hang)" % TIMEOUT
        line = self.p.stdout.readline()
        if not line:
            rc = self.p.wait()
            return None, ("killed by signal %d" % -rc if rc < 0 else "exited %d" % rc)
        return json.loads(line), None

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait()


def main():
    if sys.argv[1:2] == ["--worker"]:
        return worker()
    work = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    seeds = sorted(os.path.join(d, f) for d in CORPORA for f in os.listdir(d))
    blobs = [(os.path.basename(p), open(p, "rb").read()) for p in seeds]
    rng = random.Random(seed)
    w = Worker()
    findings, counts = [], {"read": 0, "refused": 0}
    # The seeds themselves first, then the mutants.
    for i in range(len(blobs) + cases):
        name, data = blobs[i % len(blobs)] if i < len(blobs) else rng.choice(blobs)
        if i >= len(blobs):
            data = mutate(rng, data)
        path = os.path.join(work, "case%05d_%s" % (i, name))
        with open(path, "wb") as f:
            f.write(data)
        res, bad = w.ask(path)
        if res is not None and res.get("err") == "FormatError":
            msg = res["msg"]
            if msg.startswith(path + ": ") and "\n" not in msg:
                counts["refused"] += 1
                os.unlink(path)
                continue
            bad = "FormatError not one line naming the file: %r" % msg
        elif res is not None and res.get("ok"):
            counts["read"] += 1
            os.unlink(path)
            continue
        elif res is not None:
            bad = "%s: %s" % (res["err"], res["msg"])
        if bad:
            findings.append((path, bad))
            print("FINDING %s: %s" % (path, bad[:300]))
            if w.p.poll() is not None:
                w = Worker()
    w.close()
    print("fuzz_readers: seed %d, %d seeds, %d cases: %d read, %d refused with "
          "FormatError, %d findings" % (seed, len(blobs), cases, counts["read"],
                                        counts["refused"], len(findings)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
