#!/usr/bin/env python3
"""L1's misses, the L2 Request Coalescer's merges and L2's reads, kernel by kernel.

Usage: lrc_counters.py NCU_RAW.csv...   (bench/lrc-counters.sh writes them)

For each profiled kernel: the global load sectors, L1's lookup misses, the
read sectors the LRC merged with a request in flight
(lrc__request_sectors_op_read_coalescing_achieved_type_hardware), L2's read
sectors from L1TEX (lts__t_sectors_srcunit_tex_op_read), the misses L2 did not
see (misses - L2 reads, and as a share of the misses), and what the merges
leave of that (misses - merged - L2 reads): near 0 when the LRC is where the
misses went.
"""
import csv
import io
import os
import sys

LD = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
MISS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"
MERGED = "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"
L2RD = "lts__t_sectors_srcunit_tex_op_read.sum"


def rows(path):
    """ncu's raw page: the quoted lines (the program's own output aside)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line for line in f if line.startswith('"')]
    table = list(csv.reader(io.StringIO("".join(lines))))
    if len(table) < 3:
        return []
    head = table[0]
    return [dict(zip(head, r)) for r in table[2:]]  # table[1]: units


def number(row, name):
    try:
        return float(row[name].replace(",", ""))
    except (KeyError, ValueError):
        return float("nan")


def main(paths):
    print(f"{'run':18} {'kernel':24} {'ld sectors':>11} {'L1 misses':>11} {'LRC merged':>11}"
          f" {'L2 reads':>11} {'misses-L2':>10} {'share':>7} {'-merged':>9}")
    for path in paths:
        name = os.path.basename(path).rsplit(".", 1)[0]
        for r in rows(path):
            ld, miss, merged, l2 = (number(r, k) for k in (LD, MISS, MERGED, L2RD))
            gone = miss - l2
            share = 100.0 * gone / miss if miss else float("nan")
            kernel = r.get("Kernel Name", "?").split("(")[0][:24]
            print(f"{name:18} {kernel:24} {ld:11.0f} {miss:11.0f} {merged:11.0f} {l2:11.0f}"
                  f" {gone:10.0f} {share:6.2f}% {gone - merged:9.0f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write("usage: lrc_counters.py NCU_RAW.csv...\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
