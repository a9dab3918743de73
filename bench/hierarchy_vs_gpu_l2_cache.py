#!/usr/bin/env python3
"""The hierarchy's slice-mode L2 reads beside gpu-l2-cache, size by size.

Usage:
  hierarchy_vs_gpu_l2_cache.py sizes GPU_L2_CACHE.txt [MAX_KB]
      the --ws list of the peer's data-set sizes (its second kB column), up
      to MAX_KB kB if given, for:
      cumemlab run hierarchy --op read --path nc,cg --l2-mode slice --ws LIST --json H.json
  hierarchy_vs_gpu_l2_cache.py compare GPU_L2_CACHE.txt H.json[.gz]
      per size both tools measured: the peer's GB/s, ours through each load
      path the file has (nc first: the peer's own loads, `const __restrict__`
      doubles, go through the read-only path), and ours relative to it
      (issue 22's target: within 5%), then how many sizes are within 5%.

gpu-l2-cache (github.com/te42kyfo/gpu-benches) prints one line a size:
  "<block kB> kB <data set kB> kB <time>ms <spread>% <bw> GB/s ..."; its
bandwidth is every block's bytes over the fastest of 11 launches. Ours is
the record's bandwidth_gbs (bytes the walk read over the median launch).
bench/hierarchy-vs-gpu-l2-cache.sh runs both in one call.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_file  # noqa: E402

LINE = re.compile(r"^\s*(\d+)\s+kB\s+(\d+)\s+kB\s+\S+ms\s+\S+%\s+([\d.]+)\s+GB/s")


def peer_sizes(path):
    """{data set bytes: GB/s} from gpu-l2-cache's stdout (lines it does
    not recognise, its header among them, are skipped)."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                out[int(m.group(2)) * 1024] = float(m.group(3))
    return out


PATHS = ("nc", "cg", "ca")


def ours(path):
    """{load path: {ws: GB/s}} of the measured slice reads of a hierarchy
    results file."""
    out = {}
    for r in results_file.load(path).get("records", []):
        p = r.get("params") or {}
        if (r.get("experiment") == "hierarchy" and r.get("state") == "ok"
                and p.get("op") == "read" and p.get("path") in PATHS
                and p.get("l2-mode") == "slice" and r.get("bandwidth_gbs")):
            out.setdefault(p["path"], {})[int(p["ws"])] = float(r["bandwidth_gbs"])
    return out


def main(argv):
    if len(argv) < 3 or argv[1] not in ("sizes", "compare"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    peer = peer_sizes(argv[2])
    if not peer:
        print("no gpu-l2-cache size line in %s" % argv[2], file=sys.stderr)
        return 2
    if argv[1] == "sizes":
        limit = int(argv[3]) * 1024 if len(argv) > 3 else None
        print(",".join("%dK" % (b // 1024) for b in sorted(peer) if limit is None or b <= limit))
        return 0
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    mine = ours(argv[3])
    paths = [p for p in PATHS if p in mine]
    both = sorted(set(peer) & set().union(*(set(mine[p]) for p in paths))) if paths else []
    if not both:
        print("no size measured by both (slice reads at the peer's data-set sizes)",
              file=sys.stderr)
        return 2
    print("%12s  %14s" % ("data set kB", "gpu-l2-cache")
          + "".join("  %12s  %8s" % ("hierarchy " + p, "ours/it") for p in paths))
    within = {p: [0, 0] for p in paths}
    for b in both:
        row = "%12d  %14.1f" % (b // 1024, peer[b])
        for p in paths:
            if b not in mine[p]:
                row += "  %12s  %8s" % ("-", "")
                continue
            d = 100.0 * (mine[p][b] / peer[b] - 1.0)
            within[p][0] += abs(d) <= 5.0
            within[p][1] += 1
            row += "  %12.1f  %+7.1f%%%s" % (mine[p][b], d, " " if abs(d) <= 5.0 else "!")
        print(row)
    for p in paths:
        print("%s: %d of %d sizes within 5%% of gpu-l2-cache" % (p, within[p][0], within[p][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
