#!/usr/bin/env python3
"""Timing sanity of the hierarchy experiment's records: PASS or FAIL a check.

Usage:
  build/cumemlab run hierarchy --op chase --json h.json
  bench/hierarchy_sanity.py h.json[.gz]

Issue 22: the GPU tests (tests/gpu/test_hierarchy.c) assert no timing, only
what must hold on any GPU at any clock (outputs verified, records present).
What a measurement should look like on a healthy card is checked here,
on a run's results, where a FAIL is a finding to look at, not a broken
build. Per chase record (op=chase, measured):
  - a dependent load takes more than 4 SM cycles (cycles_per_load);
  - the SM clock the record derives (cycles / ns) is between 200 and 5000 MHz;
  - the median warp lies between the fastest and the slowest one;
and per chase series (path, pattern, hop), the median cycles per load of
the sizes the model places in L1, L2 and DRAM rise in that order.
Exit status 1 when a check fails, 2 when the file holds no chase record.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_file  # noqa: E402

# level_pred codes (cml_hier_level_code): L1 1, L2 2, DRAM 3.
LEVELS = ((1.0, "L1"), (2.0, "L2"), (3.0, "DRAM"))


def extra(rec, name):
    v = (rec.get("extra") or {}).get(name)
    return v.get("value") if isinstance(v, dict) else None


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    doc = results_file.load(argv[1])
    recs = [r for r in doc.get("records", [])
            if r.get("experiment") == "hierarchy" and r.get("state") == "ok"
            and (r.get("params") or {}).get("op") == "chase"
            and extra(r, "cycles_per_load") is not None]
    if not recs:
        print("no measured chase record in %s" % argv[1], file=sys.stderr)
        return 2
    failed = 0

    def check(ok, what):
        nonlocal failed
        failed += not ok
        print("%s  %s" % ("PASS" if ok else "FAIL", what))

    series = {}
    for r in recs:
        c, lo, hi = (extra(r, k) for k in ("cycles_per_load", "cycles_min", "cycles_max"))
        mhz = extra(r, "sm_clock")
        name = r.get("variant", "?")
        check(c > 4, "%s: %.1f cycles per load > 4" % (name, c))
        check(mhz is not None and 200 < mhz < 5000,
              "%s: SM clock %s MHz within 200-5000" % (name, "?" if mhz is None else "%.0f" % mhz))
        check(lo is not None and hi is not None and lo <= c <= hi,
              "%s: median %.1f within the warps' %.1f-%.1f cycles" % (name, c, lo or 0, hi or 0))
        p = r["params"]
        key = (p.get("path"), p.get("pattern"), p.get("hop"))
        series.setdefault(key, {}).setdefault(extra(r, "level_pred"), []).append(c)
    for key, by_level in sorted(series.items(), key=lambda kv: str(kv[0])):
        meds = [(name, statistics.median(by_level[code])) for code, name in LEVELS
                if code in by_level]
        if len(meds) < 2:
            continue
        rising = all(a[1] < b[1] for a, b in zip(meds, meds[1:]))
        check(rising, "path=%s pattern=%s hop=%s: cycles per load rise %s" % (
            key[0], key[1], key[2], " < ".join("%s %.1f" % m for m in meds)))
    print("%d check(s) failed" % failed if failed else "all checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
