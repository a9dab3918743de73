#!/usr/bin/env python3
"""Summarize a cumemlab JSON result file as Markdown for bench/results/.

Usage: bench/summarize.py suite.json[.gz] [--title TEXT] > bench/results/NAME.md
Prints the device, the command, the measured peak, and per experiment the
measured variants (median, cv, GB/s, share of peak, verification) beside the
model's sectors per request, and the spread statistics the measurement rules
ask for (worst cv, records over 2%).
"""
import sys

import results_file


def spr(rec, cls):
    m = rec.get("model") or {}
    c = (m.get("modern") or {}).get(cls)
    return c.get("sectors_per_request") if c else None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = results_file.load(sys.argv[1])
    title = sys.argv[sys.argv.index("--title") + 1] if "--title" in sys.argv else "cumemlab results"
    dev = d.get("device") or {}
    print(f"# {title}\n")
    print(f"- command: `{d.get('command_line')}`")
    print(f"- tool version: {d.get('tool_version')}")
    if dev:
        print(f"- device: {dev.get('name')} (cc {dev.get('cc_major')}.{dev.get('cc_minor')}, "
              f"{dev.get('sm_count')} SMs, L2 {dev.get('l2_bytes', 0) / 2**20:.0f} MiB, "
              f"ECC {'on' if dev.get('ecc_enabled') else 'off'}, driver {dev.get('driver_version')}, "
              f"runtime {dev.get('runtime_version')})")
        print(f"- theoretical DRAM bandwidth: {dev.get('theoretical_gbs', 0):.1f} GB/s; "
              f"measured peak: {d.get('peak_gbs') or 0:.1f} GB/s")
    else:
        print("- model only (no GPU)")
    recs = d["records"]
    timed = [r for r in recs if r.get("timing") and r["state"] == "ok"]
    over = [r for r in timed if r["timing"]["cv"] > 0.02]
    worst = max((r["timing"]["cv"] for r in timed), default=0.0)
    failed = [r for r in recs if r["state"] == "failed"]
    print(f"- {len(recs)} records, {len(timed)} measured, {len(failed)} failed; worst cv "
          f"{100 * worst:.2f}%, {len(over)} measurement(s) over 2%")
    for r in over:
        print(f"  - cv {100 * r['timing']['cv']:.2f}%: {r['experiment']} {r['variant']}")
    print()
    exps = []
    for r in recs:
        if r["experiment"] not in exps:
            exps.append(r["experiment"])
    for e in exps:
        rows = [r for r in recs if r["experiment"] == e and r.get("timing")]
        if not rows:
            continue
        print(f"## {e}\n")
        print("| variant | median ms | cv % | GB/s | % of peak | verified | model ld sect/req | model st sect/req |")
        print("|---|---:|---:|---:|---:|---|---:|---:|")
        for r in rows:
            t = r["timing"]
            pf = r.get("peak_fraction")
            ld, st = spr(r, "global_ld"), spr(r, "global_st")
            print(f"| {r['variant']} | {t['median_ms']:.4f} | {100 * t['cv']:.2f} | "
                  f"{r.get('bandwidth_gbs') or 0:.1f} | {'' if pf is None else f'{100 * pf:.1f}'} | "
                  f"{r.get('verify')} | {'' if ld is None else f'{ld:.2f}'} | "
                  f"{'' if st is None else f'{st:.2f}'} |")
        print()


if __name__ == "__main__":
    main()
