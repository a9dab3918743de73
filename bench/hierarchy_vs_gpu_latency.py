"""gpu-latency's output beside the hierarchy's chase records
(bench/hierarchy-vs-gpu-latency.sh).

gpu-latency (gpu-benches @1c36d50) prints, per size, `iters clock KB ms
cycles`: the fastest of 7 launches of `iters` dependent 8-byte loads by one
block of 64 threads, pointers 64 bytes apart in one random cycle. Its sizes
are not printed exactly (KB is rounded down), so they are worked out from
its loop: LEN = 16, then LEN * 1.04 + 32 (rounded down), times 1.5 once
LEN x 64 bytes passes 120 MiB; the size is 64 x LEN bytes. ns per load =
ms x 1e6 / iters.

  sizes FILE           the sizes it reached, 16 KiB on, each 1.6x the last,
                       as cumemlab's --ws list
  compare FILE JSON    per size: cumemlab's ns and cycles per load, the
                       peer's, and the difference in ns
"""
import json
import sys


def peer_sizes():
    """Every size gpu-latency's loop walks, in bytes, in order."""
    n, out = 16, []
    while n < (1 << 24):
        if n * 64 > 120 * 1024 * 1024:
            n = int(n * 1.5)
        out.append(64 * n)
        n = int(n * 1.04 + 32)
    return out


def peer_rows(path):
    """{size: (ns per load, cycles per load)} of the lines it printed."""
    rows = []
    for line in open(path):
        f = line.split()
        if len(f) == 5 and all(x.replace(".", "", 1).isdigit() for x in f):
            rows.append(f)
    sizes = peer_sizes()
    if len(rows) > len(sizes):
        sys.exit("%s: more lines than gpu-latency's loop has sizes" % path)
    return {sizes[i]: (float(r[3]) * 1e6 / float(r[0]), float(r[4])) for i, r in enumerate(rows)}


def pick(sizes):
    out = []
    for s in sizes:
        if s >= 16384 and (not out or s >= out[-1] * 1.6):
            out.append(s)
    return out


def main(argv):
    if len(argv) == 3 and argv[1] == "sizes":
        sizes = pick(sorted(peer_rows(argv[2])))
        if not sizes:
            sys.exit("%s: gpu-latency reached no size of 16 KiB or more" % argv[2])
        print(",".join(str(s) for s in sizes))
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        peer = peer_rows(argv[2])
        doc = json.load(open(argv[3]))
        print("%10s %9s %9s %9s %9s %8s" % ("bytes", "cml ns", "peer ns", "cml cyc", "peer cyc",
                                             "ns diff"))
        within = total = 0
        for r in doc.get("records", []):
            ws = [p for p in r.get("variant", "").split() if p.startswith("ws=")]
            e = r.get("extra") or {}
            if not ws or "ns_per_load" not in e or r.get("state") != "ok":
                continue
            size = int(ws[0][3:])
            if size not in peer:
                continue
            ns, cyc = e["ns_per_load"]["value"], e["cycles_per_load"]["value"]
            pns, pcyc = peer[size]
            diff = 100.0 * (ns - pns) / pns
            total += 1
            within += abs(diff) <= 5.0
            print("%10d %9.1f %9.1f %9.1f %9.1f %+7.1f%%" % (size, ns, pns, cyc, pcyc, diff))
        print("%d of %d sizes within 5%%" % (within, total))
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
