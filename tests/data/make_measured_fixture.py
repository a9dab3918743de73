#!/usr/bin/env python3
"""Make tests/data/results-measured.json.gz from the model's results.

The fixture exercises the report's measured paths (device header, measured
peak, bandwidth and time charts, transfer-size sweep, counters beside the
model, a waived and a FAILED record, text that needs escaping) without a GPU.
Every number added here is ILLUSTRATIVE, written by this script from simple
formulas: the command line stored in the file says so, and nothing in docs/
presents these figures as measurements. The model's results it starts from
are not committed (the tests write them at test time: tests/CMakeLists.txt,
fixture_results_model); regenerate with

    build/cumemlab --model --quiet --json /tmp/results-model.json
    python3 tests/data/make_measured_fixture.py /tmp/results-model.json

(standard library only; the output is deterministic: gzip without a name or
a time in its header).
"""
import gzip
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEAK = 3011.2  # GB/s, illustrative: the largest of the class references
# The reference of each class of traffic (src/core/peak_class.h), illustrative.
PEAK_CLASSES = {"read": 3011.2, "write": 2998.7, "copy": 2950.4, "triad": 2971.9}

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


def rnd(x, digits=6):
    """Round to `digits` significant digits so the file stays readable."""
    if x == 0:
        return 0.0
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


def peak_class(r, w):
    """The class of a mix of bytes read and written (src/core/peak_class.c)."""
    if r == 0 and w == 0:
        return None
    if w == 0:
        return "read"
    if r == 0:
        return "write"
    return "copy" if 5 * r <= 7 * w else "triad"


def measure(rec, gbs=None, ms=None):
    """Give rec a timing: from a bandwidth (bytes / time) or a time."""
    moved = rec["bytes_read"] + rec["bytes_written"]
    if ms is None:
        ms = moved / (gbs * 1e9) * 1e3
    if gbs is None:
        gbs = moved / (ms * 1e-3) / 1e9 if moved else None
    rec["timing"] = {"warmup": 1, "reps": 20, "median_ms": rnd(ms), "min_ms": rnd(ms * 0.993),
                     "max_ms": rnd(ms * 1.012), "mean_ms": rnd(ms * 1.001), "cv": 0.0042}
    rec["bandwidth_gbs"] = rnd(gbs) if gbs is not None else None
    cls = peak_class(rec["bytes_read"], rec["bytes_written"]) if gbs is not None else None
    rec["peak_fraction"] = rnd(gbs / PEAK_CLASSES[cls]) if cls else None
    rec["peak_class"] = cls
    rec["peak_gbs"] = PEAK_CLASSES[cls] if cls else None
    rec["verify"] = "passed"
    if rec["grid"]:
        rec["occupancy"] = 1


def model(rec, rules, cls):
    return ((rec.get("model") or {}).get(rules) or {}).get(cls)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        d = json.load(f)
    d["command_line"] = ("cumemlab suite --json results.json  [test fixture: the device facts, "
                         "timings and counters were written by tests/data/make_measured_fixture.py "
                         "from formulas; they are illustrative, not measurements]")
    d["model_only"] = False
    d["device"] = DEVICE
    d["peak_gbs"] = PEAK
    d["peak_classes"] = {c: {"gbs": g, "source": "illustrative"} for c, g in PEAK_CLASSES.items()}
    out = []
    for rec in d["records"]:
        e, p = rec["experiment"], rec["params"]
        if e in ("read-offset", "write-offset"):
            cls = "global_ld" if e == "read-offset" else "global_st"
            t = model(rec, "modern", cls)
            eff = t["efficiency"] if t and t["efficiency"] is not None else 1
            path_cost = {"ca": 1.0, "cg": 0.985, "nc": 0.995, "wb": 1.0}.get(p.get("path"), 1)
            measure(rec, gbs=2950 * (0.55 + 0.45 * eff) * path_cost)
            if e == "read-offset" and t:
                req = t["requests"]
                sectors = t["sectors"]
                meas = sectors if p["offset"] != 11 else sectors + req // 50
                rec["counters"] = [
                    {"name": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                     "measured": req, "predicted": req},
                    {"name": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                     "measured": meas, "predicted": sectors},
                    {"name": "dram__bytes_read.sum", "measured": rec["bytes_read"] * 1.003,
                     "predicted": None},
                ]
        elif e == "aos-soa":
            t = model(rec, "modern", "global_ld")
            measure(rec, gbs=2900 * (0.25 + 0.75 * t["efficiency"]))
        elif e == "unroll":
            measure(rec, gbs=2700 + 60 * p["unroll"] + 10 * p["width"])
        elif e == "parallelism":
            occ = rec["extra"].get("model_occupancy", {}).get("value", 1)
            measure(rec, gbs=2950 * min(1.0, 0.45 + 0.55 * occ) * (0.98 if p["mode"] == "one" else 1))
            rec["occupancy"] = occ
        elif e == "stride":
            t = model(rec, "modern", "global_ld")
            measure(rec, gbs=2950 * t["efficiency"] if t and t["efficiency"] else 400)
        elif e == "read-only":
            measure(rec, gbs={"copy": 2950, "stencil": 2600, "hot-gather": 900}[p["pattern"]]
                    * (1.08 if p["path"] == "nc" and p["pattern"] != "copy" else 1))
        elif e == "constant" and p.get("pattern") == "serial":
            measure(rec, ms=0.0051 * (1 + 0.92 * (p["k"] - 1)))
        elif e == "constant":
            measure(rec, gbs={"constant": 2800, "readonly": 2650, "global": 2500}[p["coef"]])
        elif e == "shared-banks":
            t = model(rec, "modern", "shared_ld")
            conf = t["bank_conflicts"] / t["requests"] if t else 0
            measure(rec, ms=0.0042 * (1 + conf))
        elif e == "peak-bandwidth":
            # The best of each class is that class's reference (100%).
            measure(rec, gbs={"copy": 2950.4, "scale": 2944.7, "add": 2971.9, "triad": 2969.1,
                              "sum": 3011.2, "memcpy": 2930.3, "fill": 3240.0,
                              "memset": 3180.0}[p["kernel"]]
                    * (0.99 if p.get("shape") == "one-shot" else 1))
        elif e == "device-facts":
            rec["state"] = "ok"
            rec["note"] = ""
            rec["finding"] = "Facts read from the device (illustrative values of an H100 SXM)."
        elif e == "local" and p.get("pattern") == "lane-varying" and p.get("impl") == "local":
            rec["state"] = "failed"
            rec["verify"] = "failed"
            rec["note"] = ('output mismatch at out[11]: expected 1.5, got "nan" '
                           '<script>alert(1)</script> & more')
        elif e == "shuffle" and p.get("op") == "xor":
            rec["state"] = "waived"
            rec["note"] = "illustrative waiver: width < 32 needs sm_30 <or later> & a \"sync\" mask"
        out.append(rec)
        if e == "transfers" and p.get("mode") == "link" and p.get("link") == "gen5" and \
                not any(r["params"].get("mode") == "copy" for r in out):
            # The measured size sweep: pageable and pinned, both directions.
            for memory, asym in (("pageable", 24.0), ("pinned", 53.5)):
                for direction in ("h2d", "d2h"):
                    for k in range(12, 31, 2):
                        size = 1 << k
                        lat_us = 8.0 if memory == "pageable" else 2.2
                        gbs = size / (lat_us * 1e-6 + size / (asym * 1e9 * (0.97 if direction == "d2h" else 1))) / 1e9
                        r = {"experiment": "transfers",
                             "variant": f"memory={memory} direction={direction} size={size}",
                             "state": "ok", "note": "",
                             "params": {"mode": "copy", "memory": memory, "direction": direction,
                                        "size": size, "api": "cudaMemcpy"},
                             "bytes_read": size, "bytes_written": 0, "grid": 0, "block": 0,
                             "occupancy": None, "timing": None, "bandwidth_gbs": None,
                             "peak_fraction": None, "verify": "not_run", "model": None,
                             "counters": [], "extra": {}, "finding": ""}
                        measure(r, gbs=gbs)
                        r["peak_fraction"] = None
                        r["peak_class"] = None
                        r["peak_gbs"] = None
                        r["verify"] = "passed"
                        out.append(r)
    d["records"] = out
    text = json.dumps(d, indent=2, ensure_ascii=False) + "\n"
    with open(os.path.join(HERE, "results-measured.json.gz"), "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
            f.write(text.encode("utf-8"))


if __name__ == "__main__":
    main()
