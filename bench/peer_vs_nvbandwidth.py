#!/usr/bin/env python3
"""The peer experiment's headline records beside nvbandwidth's tests.

Usage: peer_vs_nvbandwidth.py PEER.json[.gz] NVBANDWIDTH.json [NVBANDWIDTH-2.json]

For every ordered pair (gpu, peer) of GPUs in both files, the figures the
issue sets targets for, in GB/s as each tool counts them (bytes that crossed
the link once per second; both directions summed):
  copy engine read / write     target: within 2% of nvbandwidth's _read_ce / _write_ce
  SM copy read / write         target: at or above nvbandwidth's _read_sm / _write_sm
  both directions (CE, SM)     target: at or above nvbandwidth's total
With a second nvbandwidth run, its spread between the two runs is printed
beside each figure (the control: how much the reference itself moves).
"""
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def nvb_matrices(doc):
    """{(test name, kind): matrix of floats or None}; kind is 'total' for a
    bidirectional test's total, else 'main'."""
    out = {}
    for t in doc.get("nvbandwidth", {}).get("testcases", []):
        name = t.get("name", "")
        desc = t.get("bandwidth_description", "")
        kind = "total" if "Total" in desc else ("main" if "bidirectional" not in name else desc)
        m = t.get("bandwidth_matrix")
        if not m:
            continue
        rows = []
        for row in m:
            vals = []
            for v in row:
                try:
                    vals.append(float(v))
                except (TypeError, ValueError):
                    vals.append(None)
            rows.append(vals)
        out[(name, kind)] = rows
    return out


def ours(doc):
    """{(gpu, peer, key): (GB/s, variant)} of the headline records."""
    out = {}
    for r in doc.get("records", []):
        if r.get("experiment") != "peer" or r.get("state") != "ok" or r.get("bandwidth_gbs") is None:
            continue
        p = r.get("params", {})
        method, op, d = p.get("method"), p.get("op"), p.get("dir")
        if method != "ce" and not (p.get("elem") == 16 and p.get("offset") == 0 and p.get("stride") == 1):
            continue
        kind = "ce" if method == "ce" else "sm"
        key = "%s_%s_%s" % (kind, op, d)
        k = (p.get("gpu"), p.get("peer"), key)
        if k not in out or r["bandwidth_gbs"] > out[k][0]:
            out[k] = (r["bandwidth_gbs"], r["variant"])
    return out


TARGETS = [  # (our key, nvbandwidth test, kind, rule)
    ("ce_read_one", "device_to_device_memcpy_read_ce", "main", "within 2%"),
    ("ce_write_one", "device_to_device_memcpy_write_ce", "main", "within 2%"),
    ("sm_read_one", "device_to_device_memcpy_read_sm", "main", "at or above"),
    ("sm_write_one", "device_to_device_memcpy_write_sm", "main", "at or above"),
    ("ce_read_both", "device_to_device_bidirectional_memcpy_read_ce", "total", "at or above"),
    ("ce_write_both", "device_to_device_bidirectional_memcpy_write_ce", "total", "at or above"),
    ("sm_read_both", "device_to_device_bidirectional_memcpy_read_sm", "total", "at or above"),
    ("sm_write_both", "device_to_device_bidirectional_memcpy_write_sm", "total", "at or above"),
]


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    mine = ours(load(argv[1]))
    nvb = [nvb_matrices(load(p)) for p in argv[2:]]
    pairs = sorted({(g, p) for g, p, _ in mine if g != p})
    print("%-5s %-14s %10s %10s %8s %8s  %-12s %s" % ("pair", "figure", "cumemlab", "nvbandw",
                                                      "ratio", "nvb run2", "target", "met"))
    failed = 0
    for g, p in pairs:
        for key, test, kind, rule in TARGETS:
            m = mine.get((g, p, key))
            ref = [x.get((test, kind)) for x in nvb]
            vals = []
            for mat in ref:
                try:
                    vals.append(mat[g][p] if mat else None)
                except (IndexError, TypeError):
                    vals.append(None)
            if not m or vals[0] is None:
                print("%d>%d   %-14s %10s %10s   (missing: %s)" % (g, p, key, m and "%.1f" % m[0] or "-",
                                                               vals[0] or "-", test))
                continue
            ratio = m[0] / vals[0]
            met = abs(ratio - 1) <= 0.02 if rule == "within 2%" else ratio >= 1.0
            failed += not met
            second = "%.1f" % vals[1] if len(vals) > 1 and vals[1] else "-"
            print("%d>%d   %-14s %10.1f %10.1f %8.3f %8s  %-12s %s" % (g, p, key, m[0], vals[0], ratio,
                                                                   second, rule, "yes" if met else "NO"))
    print("%d target(s) not met" % failed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
