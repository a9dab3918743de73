#!/usr/bin/env bash
# `cumemlab report` over a fleet (docs/fleet.md), on the fixtures of
# tests/data/fleet/ (make_fleet_fixtures.py says how each was made):
#   - three H100 runs and an H200: the planted outlier (h100-c-planted) is
#     named, on read-offset offset=1 at -10.0% (0.9 x the median, which is
#     h100-b's value) and on its ld sectors (+32); the H200 has no other
#     H200 to compare with; exit 0;
#   - healthy runs name no outlier: the same run twice beside a third;
#   - the fleet file of 3 ranks: rank 1 failed, listed with its diagnostic,
#     the two others compared by the two-GPU rule, no outlier;
#   - the fleet file with the planted rank: named, with its end clock
#     (1410 MHz, sw_thermal_slowdown) beside the group's and its driver;
#   - CSV, JSON (schema cumemlab-fleet-comparison) and HTML: one chart per
#     experiment and figure kind, every GPU a series, the outlier named;
#   - --threshold: 11 leaves the -10% figure unflagged; out of range or not
#     a number: one line naming --threshold and 0.1..100, exit 2, no file;
#   - hostile fleet files: one line naming the file, line, column and
#     member, exit 1, no output file.
# Without zlib (CML_EXPECT_ZLIB=0) the fleet files are decompressed by
# gzip(1) first.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../data/fleet"
. "$here/cli_test_util.sh" # $tmp, check, run

a="$data/h100-a.json" b="$data/h100-b.json" c="$data/h100-c-planted.json" h200="$data/h200.json"
gzip -dc "$data/fleet-3.json.gz" >"$tmp/fleet-3.json"
gzip -dc "$data/fleet-outlier.json.gz" >"$tmp/fleet-outlier.json"
fleet3="$tmp/fleet-3.json" fleetout="$tmp/fleet-outlier.json"

# --- three H100 runs and an H200 ------------------------------------------
run "$bin" report "$a" "$b" "$c" "$h200" --csv "$tmp/f.csv" --json "$tmp/f.json" \
    --html "$tmp/f.html"
check "four runs: exit 0 (outliers are findings) [$rc]" test $rc -eq 0
check "four runs: two models" grep -q "^Fleet: 4 GPUs, 2 models" "$tmp/out"
check "the H200 alone is not compared" \
    grep -q "NVIDIA H200: 1 GPU: no other NVIDIA H200 to compare with" "$tmp/out"
check "one outlier" grep -qx "1 outlier:" "$tmp/out"
check "the planted run is the outlier" \
    grep -qx "  h100-c-planted.json: GPU 0 NVIDIA H100 80GB HBM3: OUTLIER" "$tmp/out"
check "the others are not" test "$(grep -c ": OUTLIER$" "$tmp/out")" -eq 1
# one flag where the others have none: P(X >= 1) at a mean of 1 is 1 - 1/e
check "its one flagged speed figure, -10.0%, in read-offset, a chance of 0.63" \
    grep -qx "    1 of 3 speed figures flagged (1 slower, 0 faster), median -10.0%, in read-offset; a chance of 0.63 at the other GPUs' rate (0)" \
    "$tmp/out"
check "its counter that differs" \
    grep -qx "    1 of 12 exact counters differ from the group's: l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum in read-offset" \
    "$tmp/out"
check "the experiment lines" \
    grep -q "^  stride .*none flagged$" "$tmp/out"
# CSV: one row per GPU per figure; the flagged rows are exactly the two planted
check "CSV header" \
    grep -qx "experiment,variant,figure,gpu,model,value,reference,deviation_pct,flagged" "$tmp/f.csv"
check "CSV: 3 GPUs x (3 bandwidth + 12 counter figures) = 45 rows" \
    test "$(($(wc -l <"$tmp/f.csv") - 1))" -eq 45
check "CSV: two flagged rows" test "$(grep -c ',yes$' "$tmp/f.csv")" -eq 2
check "CSV: the planted bandwidth, 0.9 x the median" \
    grep -q '^read-offset,offset=1 path=ca block=512,bandwidth,h100-c-planted.json: GPU 0 NVIDIA H100 80GB HBM3,NVIDIA H100 80GB HBM3,2326.4714814033146,2584.9683126703494,-9.99999999999999[0-9]*,yes$' \
    "$tmp/f.csv"
check "CSV: the planted counter, 6144030 against 6143998" \
    grep -q '^read-offset,offset=1 path=ca block=512,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,h100-c-planted.json: [^,]*,NVIDIA H100 80GB HBM3,6144030,6143998,.*,yes$' \
    "$tmp/f.csv"
if command -v python3 >/dev/null; then
    check "JSON: schema, outliers [2], 15 figures, the H200 in a group of its own" python3 - "$tmp/f.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "cumemlab-fleet-comparison" and d["schema_version"] == 1, d["schema"]
assert d["threshold_pct"] == 3
assert d["outliers"] == [2], d["outliers"]
assert len(d["figures"]) == 15, len(d["figures"])
assert [g["model"] for g in d["groups"]] == ["NVIDIA H100 80GB HBM3", "NVIDIA H200"]
assert d["groups"][1]["compared"] is False and d["groups"][1]["gpus"] == [3]
g = d["gpus"][2]
assert (g["speed_compared"], g["speed_flagged"], g["counters_flagged"]) == (3, 1, 1)
assert abs(g["median_flagged_deviation_pct"] + 10) < 1e-9
flagged = [f for f in d["figures"] if any(v["flagged"] for v in f["values"])]
assert [(f["variant"], f["figure"], f["rule"]) for f in flagged] == [
    ("offset=1 path=ca block=512", "bandwidth", "median"),
    ("offset=1 path=ca block=512", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "majority")]
EOF
fi
check "HTML: one chart per experiment and figure kind (2 x 2)" \
    test "$(grep -c '<svg' "$tmp/f.html")" -eq 4
check "HTML: the outlier named in the legend" grep -q "h100-c-planted.json: outlier" "$tmp/f.html"
check "HTML: the flagged marks as a series of their own" grep -q ">flagged<" "$tmp/f.html"
check "HTML: the group of one said" grep -q "no other NVIDIA H200 to compare with" "$tmp/f.html"

# --- healthy: the same run twice beside a third ----------------------------
run "$bin" report "$a" "$a" "$b"
check "healthy: exit 0 [$rc]" test $rc -eq 0
check "healthy: no outlier" grep -q "^No outlier: every figure within 3% of the fleet's median" \
    "$tmp/out"
check "healthy: nothing flagged" test "$(grep -c "flagged [a-z]" "$tmp/out")" -eq 0

# --- the threshold ------------------------------------------------------------
run "$bin" report "$a" "$b" "$c" --threshold 11
check "--threshold 11: the -10% figure is not flagged, the counter still is" \
    grep -qx "    no speed figure flagged (of 3)" "$tmp/out"
run "$bin" report "$a" "$b" "$c" --threshold 9.5%
check "--threshold 9.5%: flagged again" grep -q "1 of 3 speed figures flagged" "$tmp/out"
for bad in 0 0.05 100.5 -3 abc 3x nan inf 0x10 "" " 5"; do
    run "$bin" report "$a" "$b" "$c" --threshold="$bad" --json "$tmp/bad.json"
    check "--threshold '$bad': exit 2 [$rc]" test $rc -eq 2
    check "--threshold '$bad': one line naming the option and the range" \
        test "$(wc -l <"$tmp/err")" -eq 1 -a "$(grep -c -- "--threshold.*0.1..100" "$tmp/err")" -eq 1
    check "--threshold '$bad': no output file" test ! -e "$tmp/bad.json"
done
run "$bin" report "$a" --threshold 5 --json "$tmp/bad.json"
check "--threshold on one results file: exit 2 [$rc]" test $rc -eq 2
check "--threshold on one results file: says why" grep -q -- "--threshold compares a fleet" "$tmp/err"
check "--threshold on one results file: no output file" test ! -e "$tmp/bad.json"
run "$bin" report "$a" "$c" --threshold 3
check "two runs with --threshold: the fleet's two-GPU rule" \
    grep -q "(two GPUs: the reference is the faster)" "$tmp/out"
check "two runs with --threshold: the slower's figure flagged" \
    grep -q "flagged h100-c-planted.json 1 speed (up to -10.1%)" "$tmp/out"
check "two runs with --threshold: one flagged figure names no outlier (at least 3)" \
    grep -q "^No outlier: 1 speed figure flagged" "$tmp/out"
run "$bin" report "$a" "$b"
check "two runs without --threshold: the two-run comparison as before" \
    grep -q "^cumemlab .*: two runs compared, B against A" "$tmp/out"

# --- the fleet file of 3 ranks, one failed ----------------------------------
run "$bin" report "$fleet3" --json "$tmp/f3.json"
check "fleet of 3: exit 0 [$rc]" test $rc -eq 0
check "fleet of 3: the two-GPU rule" \
    grep -q "NVIDIA H100 80GB HBM3: 2 GPUs, 15 figures compared (two GPUs: the reference is the faster)" \
    "$tmp/out"
check "fleet of 3: rank 1 failed, with its diagnostic" \
    grep -qx "  rank 1 node-a: exit 1: no CUDA device found" "$tmp/out"
check "fleet of 3: no outlier" grep -q "^No outlier" "$tmp/out"
check "fleet of 3: the JSON lists rank 1 without results" \
    grep -q '"diagnostic": "no CUDA device found"' "$tmp/f3.json"

# --- the fleet file with the planted rank -------------------------------------
run "$bin" report "$fleetout"
check "planted fleet: rank 2 named" \
    grep -qx "  rank 2 node-b GPU 0 NVIDIA H100 80GB HBM3: OUTLIER" "$tmp/out"
check "planted fleet: its clocks beside the group's" \
    grep -qx "    start SM 1980 / mem 2619 MHz, 52 C, 88 W, end SM 1410 / mem 2619 MHz, 86 C, 700 W (sw_thermal_slowdown)" \
    "$tmp/out"
check "planted fleet: the group's medians" \
    grep -qx "    (the group's median: start SM 1980 / mem 2619 MHz, 31 C, 71 W, end SM 1980 / mem 2619 MHz, 44 C, 305 W)" \
    "$tmp/out"
check "planted fleet: its driver" grep -qx "    driver 570.86.15, the group's 580.65.06" "$tmp/out"
run "$bin" report "$fleet3" "$c"
check "a fleet file and a results file together: 4 runs, the planted named" \
    grep -q "^Fleet: 4 GPUs (1 fleet file" "$tmp/out"
check "... the planted one is the outlier" grep -q "h100-c-planted.json: GPU 0 NVIDIA H100 80GB HBM3: OUTLIER" "$tmp/out"

# --- hostile fleet files -----------------------------------------------------
hostile() { # expected message (grep -E), then the JSON text
    local want=$1 text=$2
    printf '%s' "$text" >"$tmp/h.json"
    run "$bin" report "$tmp/h.json" --json "$tmp/hout.json"
    check "hostile ($want): exit 1 [$rc]" test $rc -eq 1
    check "hostile ($want): one line" test "$(wc -l <"$tmp/err")" -eq 1
    check "hostile ($want): the message" grep -qE "h.json: line [0-9]+, column [0-9]+ \(byte [0-9]+\): $want" "$tmp/err"
    grep -qE "$want" "$tmp/err" || sed 's/^/  got: /' "$tmp/err" >&2
    check "hostile ($want): no output file" test ! -e "$tmp/hout.json"
}
top='"schema": "cumemlab-fleet", "schema_version": 1'
okrank='{"rank": 0, "host": "n", "exit_status": 1, "diagnostic": "x", "gpu": null, "results": null}'
hostile 'schema: "cumemlab-flet" is not "cumemlab-results"' '{"schema": "cumemlab-flet", "ranks": []}'
hostile 'ranks: expected an array' "{$top, \"ranks\": {}}"
hostile 'top level: missing member "ranks"' "{$top}"
hostile 'top level: missing member "schema_version"' '{"schema": "cumemlab-fleet", "ranks": []}'
hostile 'schema_version 2 is newer' '{"schema": "cumemlab-fleet", "schema_version": 2, "ranks": []}'
hostile 'ranks\[0\]: missing member "exit_status"' "{$top, \"ranks\": [{\"rank\": 0, \"host\": \"n\", \"results\": null}]}"
hostile 'ranks\[0\]: missing member "results"' "{$top, \"ranks\": [{\"rank\": 0, \"host\": \"n\", \"exit_status\": 0}]}"
hostile 'ranks\[0\]: missing member "host"' "{$top, \"ranks\": [{\"rank\": 0, \"exit_status\": 0, \"results\": null}]}"
hostile 'ranks\[0\]: missing member "rank"' "{$top, \"ranks\": [{\"host\": \"n\", \"exit_status\": 0, \"results\": null}]}"
hostile 'ranks\[0\].exit_status: expected an integer in 0..255, found 1e400' \
    "{$top, \"ranks\": [{\"rank\": 0, \"host\": \"n\", \"exit_status\": 1e400, \"results\": null}]}"
hostile 'ranks\[0\].rank: expected an integer in 0..2147483647, found 99999999999999999999999' \
    "{$top, \"ranks\": [{\"rank\": 99999999999999999999999, \"host\": \"n\", \"exit_status\": 0, \"results\": null}]}"
hostile 'ranks\[0\].results: expected an object or null' \
    "{$top, \"ranks\": [{\"rank\": 0, \"host\": \"n\", \"exit_status\": 0, \"results\": [1]}]}"
hostile 'ranks\[0\].results: schema: "x" is not "cumemlab-results"' \
    "{$top, \"ranks\": [{\"rank\": 0, \"host\": \"n\", \"exit_status\": 0, \"results\": {\"schema\": \"x\"}}]}"
hostile 'ranks\[0\].gpu.start.sm_clock_mhz: expected an integer in 0..100000 or null, found 1e9' \
    "{$top, \"ranks\": [{\"rank\": 0, \"host\": \"n\", \"exit_status\": 0, \"results\": null, \"gpu\": {\"start\": {\"sm_clock_mhz\": 1e9}}}]}"
hostile 'ranks\[1\].rank: 0, but the ranks come in rank order \(expected 1\)' "{$top, \"ranks\": [$okrank, $okrank]}"
hostile 'ranks_total: 3, but "ranks" has 1 item' "{$top, \"ranks_total\": 3, \"ranks\": [$okrank]}"
echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
