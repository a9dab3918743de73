#!/usr/bin/env bash
# What cumemlab trace costs on a GPU (docs/trace.md): the wall time of a
# program run alone and run under `cumemlab trace`, and the trace's size,
# for two programs:
#   1. a 1 GiB streaming kernel: the lab's read-offset, offset 0, on arrays
#      of 2^28 floats (1 GiB each), one timed launch; every launch of it
#      recorded whole would take 2^23 warps x 3 records x 288 bytes (7.2
#      GB of device buffer), so it is sampled (one warp in k, the report
#      says k): at the default budget and at --budget 16G;
#   2. the book's transpose (`cumemlab transpose 2`, 2048 x 2048 floats),
#      its transposeNaiveRow recorded whole.
# Writes OUT/trace-overhead.txt: the device, the commands, the seconds
# alone and traced, the ratio, the trace's bytes and what was sampled.
#
#   OUT=DIR [CUMEMLAB=build/cumemlab] bench/trace-overhead.sh
set -u
OUT=${OUT:?set OUT}
bin=${CUMEMLAB:-build/cumemlab}
mkdir -p "$OUT"
report=$OUT/trace-overhead.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$report"
say() { echo "$*" | tee -a "$report"; }

now() { date +%s.%N; }
# timed VAR CMD...: the wall time of CMD in seconds into VAR, its exit
# status into rc (its output into $work/last.*)
timed() {
    local var=$1 t0 t1
    shift
    t0=$(now)
    "$@" >"$work/last.out" 2>"$work/last.err"
    rc=$?
    t1=$(now)
    printf -v "$var" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
}

say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
say "cumemlab: $("$bin" --version) ($(git rev-parse --short HEAD 2>/dev/null || echo '?'))"

# measure NAME REGEX BUDGET PROGRAM...: the program alone, then traced
measure() {
    local name=$1 regex=$2 budget=$3
    shift 3
    say ""
    say "== $name"
    say "program: $*"
    local alone traced
    timed alone "$@"
    say "alone: ${alone} s (exit $rc)"
    local budget_arg=()
    [ -n "$budget" ] && budget_arg=(--budget "$budget")
    timed traced "$bin" trace --kernel "$regex" "${budget_arg[@]}" \
        --out "$work/$name.trace" --json "$work/$name.json" --quiet -- "$@"
    say "traced: ${traced} s (exit $rc): cumemlab trace --kernel '$regex' ${budget_arg[*]} -- $*"
    say "slowdown: $(awk -v a="$alone" -v t="$traced" 'BEGIN { printf "%.1f", (a > 0 ? t / a : 0) }')x"
    say "trace: $(wc -c <"$work/$name.trace" 2>/dev/null || echo 0) bytes"
    python3 - "$work/$name.json" <<'EOF' | tee -a "$report"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no trace report: %s" % e)
    sys.exit(0)
for k in d["kernels"]:
    print("%s: %d of %d warps recorded (one in %d, %d lost), %d warp instructions" % (
        k["name"], k["warps_recorded"], k["warps_total"], k["sample_stride"],
        k["warps_lost"], k["instructions"]))
EOF
}

stream=(run read-offset --offset 0 --path ca --n 268435456 --reps 1 --warmup 0 --counters off
        --quiet)
measure stream-1GiB 'readOffset_ca' "" "$bin" "${stream[@]}"
measure stream-1GiB-16G 'readOffset_ca' 16G "$bin" "${stream[@]}"
measure transpose 'transposeNaiveRow(\(|P)' 1G "$bin" transpose 2 --counters off

say ""
say "(wall times of the whole program: start-up, the modules' patching and every launch)"
