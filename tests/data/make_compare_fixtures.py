#!/usr/bin/env python3
"""Make tests/data/compare-a.json and compare-b.json: two small runs for the
tests of `cumemlab report A.json B.json` (tests/test_compare.c,
tests/cli/test_report_html.sh).

Both start from records of the model's results (the model's figures as
`cumemlab --model --json` writes them; not committed, the tests write them at
test time) and get ILLUSTRATIVE measurements chosen by hand so that the
comparison's figures are easy to check:

  A: "NVIDIA H100 80GB HBM3"          B: "NVIDIA H200"
  read-offset offset=0 path=ca   2000 GB/s  ->  2500 GB/s   (B/A 1.25)
  read-offset offset=11 path=ca  1600 GB/s  ->  2400 GB/s   (B/A 1.5)
  read-offset offset=32 path=ca  only in A
  read-offset offset=128 path=ca only in B
  stride stride=1                2000 GB/s  ->  3000 GB/s   (B/A 1.5)
  stride stride=2                1000 GB/s  ->  1000 GB/s   (B/A 1), a counter
                                 differs: sectors 100 in A, 120 in B
  stride stride=8                 400 GB/s  ->   400 GB/s   (B/A 1), the model
                                 differs: modern global_ld sectors + 1000 in B

Median times are bytes moved / bandwidth, so every time ratio is the
inverse of its bandwidth ratio. The command lines say the figures are
illustrative. Regenerate with (standard library only, deterministic):

    build/cumemlab --model --quiet --json /tmp/results-model.json
    python3 tests/data/make_compare_fixtures.py /tmp/results-model.json
"""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

DEVICE = {
    "index": 0, "name": "NVIDIA H100 80GB HBM3", "cc_major": 9, "cc_minor": 0,
    "sm_count": 132, "warp_size": 32, "max_threads_per_block": 1024,
    "max_threads_per_sm": 2048, "max_blocks_per_sm": 32, "regs_per_block": 65536,
    "regs_per_sm": 65536, "shared_per_block": 49152, "shared_per_block_optin": 232448,
    "shared_per_sm": 233472, "const_bytes": 65536, "l2_bytes": 52428800,
    "l2_persisting_max": 39321600, "global_bytes": 85029158912, "bus_width_bits": 5120,
    "mem_clock_khz": 2619000, "sm_clock_khz": 1980000,
    "theoretical_gbs": 3352.32, "ecc_enabled": True, "driver_version": 13000,
    "runtime_version": 13000, "unified_addressing": True, "can_map_host_memory": True,
    "managed_memory": True, "concurrent_managed": True, "global_l1_cache_supported": True,
    "local_l1_cache_supported": True,
}

# (experiment, variant) -> (GB/s in A, GB/s in B); None: not in that run.
RUNS = [
    ("read-offset", "offset=0 path=ca block=512", 2000, 2500),
    ("read-offset", "offset=11 path=ca block=512", 1600, 2400),
    ("read-offset", "offset=32 path=ca block=512", 1900, None),
    ("read-offset", "offset=128 path=ca block=512", None, 2450),
    ("stride", "pattern=stride stride=1 block=256", 2000, 3000),
    ("stride", "pattern=stride stride=2 block=256", 1000, 1000),
    ("stride", "pattern=stride stride=8 block=256", 400, 400),
]


def measure(rec, gbs, peak):
    moved = rec["bytes_read"] + rec["bytes_written"]
    ms = moved / (gbs * 1e9) * 1e3
    rec["timing"] = {"warmup": 1, "reps": 20, "median_ms": ms, "min_ms": ms, "max_ms": ms,
                     "mean_ms": ms, "cv": 0.001}
    rec["bandwidth_gbs"] = float(gbs)
    rec["peak_fraction"] = gbs / peak
    rec["verify"] = "passed"
    rec["occupancy"] = 1


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        model = json.load(f)
    by_name = {(r["experiment"], r["variant"]): r for r in model["records"]}
    for side, (name, peak, fname) in enumerate((("NVIDIA H100 80GB HBM3", 3000.0, "compare-a.json"),
                                                ("NVIDIA H200", 4000.0, "compare-b.json"))):
        d = copy.deepcopy(model)
        d["command_line"] = ("cumemlab suite --json %s  [test fixture: device names and "
                             "measurements are illustrative, chosen by "
                             "tests/data/make_compare_fixtures.py]" % fname)
        d["model_only"] = False
        d["device"] = dict(DEVICE, name=name, theoretical_gbs=(3352.32, 4800.0)[side])
        d["peak_gbs"] = peak
        d["diagnostics"] = []
        out = []
        for exp, variant, gbs_a, gbs_b in RUNS:
            gbs = (gbs_a, gbs_b)[side]
            if gbs is None:
                continue
            rec = copy.deepcopy(by_name[(exp, variant)])
            measure(rec, gbs, peak)
            t = rec["model"]["modern"]["global_ld"]
            rec["counters"] = [
                {"name": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                 "measured": t["requests"], "predicted": t["requests"]},
                {"name": "dram__bytes_read.sum", "measured": rec["bytes_read"],
                 "predicted": None},
            ]
            if variant.startswith("pattern=stride stride=2"):
                rec["counters"].append({"name": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                        "measured": (100, 120)[side], "predicted": None})
            if variant.startswith("pattern=stride stride=8") and side == 1:
                t["sectors"] += 1000
                t["sectors_per_request"] = t["sectors"] / t["requests"]
            out.append(rec)
        d["records"] = out
        with open(os.path.join(HERE, fname), "w", encoding="utf-8") as f:
            json.dump(d, f, indent=2, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
