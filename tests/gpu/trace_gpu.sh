#!/usr/bin/env bash
# cumemlab trace on a GPU (label gpu; exit 77 without one): the injection
# library records the book's programs as cumemlab runs them, and the trace
# must give, per kernel, the requests, sectors and wavefronts of the lab's
# own model of the same launch (the program's --json), with the right
# source line at the top (docs/trace.md):
#   readSegment 11 512   readOffset: the loads of line `C[i] = A[k] + B[k]`
#   transpose 2          transposeNaiveRow: the store
#   checkSmemSquare      setRowReadCol: the column read of the tile
# and the program's own output and exit status pass through. Then a
# program of the test's own (trace_program.cu: several kernels, two
# streams, Thrust's sort, cuBLAS where built): its output and status
# unchanged under trace, every kernel traced, its own kernels' figures the
# hand-derived ones; and the same program made to fault: its status
# passes through and what ran before the fault is still reported.
# Usage: trace_gpu.sh CUMEMLAB TRACE_PROGRAM
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
prog=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/../cli/cli_test_util.sh" # $tmp, check, run
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "trace_gpu: no GPU: skipped"
    exit 77
fi

# The line of `pattern` inside the body of kernel `name` in `file`.
line_of() { # file name pattern
    awk -v name="$2" -v pat="$3" 'index($0, " " name "(") { inside = 1 }
        inside && index($0, pat) { print NR; exit }' "$1"
}

# trace_book WHAT KERNEL-REGEX VARIANT PROGRAM...: trace one kernel of a book
# program run by cumemlab, then compare the trace with the program's record
# VARIANT on the classes named in $classes and the figures in $figures.
trace_book() {
    local what=$1 regex=$2 variant=$3
    shift 3
    run "$bin" trace --kernel "$regex" --budget 1G --counters on --out "$tmp/$what.trace" \
        --json "$tmp/$what-trace.json" -- "$bin" "$@" --counters off --json "$tmp/$what.json"
    check "$what: exit 0" test $rc -eq 0
    check "$what: the program's own lines pass through" grep -q "$pass_through" "$tmp/out"
    check "$what: the trace's figures are the model's of the same launch" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
variant, classes, figures = sys.argv[3], sys.argv[4].split(","), sys.argv[5].split(",")
assert len(t["kernels"]) == 1, [k["name"] for k in t["kernels"]]
k = t["kernels"][0]
assert k["sample_stride"] == 1 and k["warps_lost"] == 0, (k["sample_stride"], k["warps_lost"])
rec = [x for x in r["records"] if x["variant"] == variant]
assert len(rec) == 1, variant
m = rec[0]["model"]["modern"]
for c in classes:
    for f in figures:
        a, b = k["modern"].get(c, {}).get(f, 0), m.get(c, {}).get(f, 0)
        assert a == b, "%s %s: trace %s, model %s" % (c, f, a, b)
' "$tmp/$what-trace.json" "$tmp/$what.json" "$variant" "$classes" "$figures"
    check "$what: the counters of the same launch equal the model at L1" measured_l1 \
        "$tmp/$what-trace.json" 1
}

# measured_l1 TRACE-JSON MIN-KERNELS [REGEX]: every kernel was measured
# (no error), at least MIN-KERNELS of them; each whose name matches REGEX
# (default: all) has its L1 counts (requests, sectors, shared wavefronts,
# bank conflicts) judged and agreeing with the model. The others (library
# kernels with instructions the model has no rules for) are printed.
measured_l1() {
    python3 - "$1" "$2" "${3:-.}" <<'PY'
import json, re, sys
t = json.load(open(sys.argv[1]))
measured = 0
for k in t["kernels"]:
    m = k.get("measured")
    if m is None:
        continue
    assert not m["error"], (k["name"], m["error"])
    l1 = [x for x in m["metrics"] if x["metric"].startswith(("l1tex__t_requests",
          "l1tex__t_sectors_pipe", "l1tex__data_pipe", "l1tex__data_bank"))
          and "lookup_hit" not in x["metric"]]
    judged = [x for x in l1 if x["verdict"] != "not judged"]
    bad = [(x["metric"], x["value"], x["model"]) for x in judged if x["verdict"] != "agrees"]
    print(k["name"][:60], "measured:", len(judged), "L1 counts judged,", len(bad), "differ",
          bad[:4])
    # per instruction (CUPTI SASS metrics): what the model sets beside
    per = [(i["pc"], x["metric"], x["value"], x["model"], x["verdict"])
           for i in k["instructions_by_waste"] if i.get("measured")
           for x in i["measured"] if x["verdict"] != "not judged"]
    pbad = [p for p in per if p[4] != "agrees"]
    print("   per instruction:", len(per), "judged,", len(pbad), "differ", pbad[:4],
          k.get("measured_per_instruction"))
    if re.search(sys.argv[3], k["name"]):
        assert k["sample_stride"] == 1 and k["warps_lost"] == 0, k["name"]
        assert judged and not bad, (k["name"], bad)
        assert per and not pbad, (k["name"], "per instruction", pbad)
    measured += 1
assert measured >= int(sys.argv[2]), ("kernels measured", measured)
PY
}

cd "$root" || exit 1

pass_through="readOffset <<< 2048,  512 >>> offset   11"
classes=global_ld,global_st figures=instructions,requests,sectors,requested_bytes
trace_book readSegment 'readOffset(\(|P)' "launch=readOffset offset=11 block=512" \
    readSegment 11 512
want=$(line_of src/book/read_segment.cu readOffset "C[i] = A[k] + B[k]")
check "readSegment: the loads of line $want first" python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))["kernels"][0]["instructions_by_waste"]
for x in i[:2]:
    assert x["op"] == "load" and x["space"] == "global", x
    assert x["source"] and x["source"]["line"] == int(sys.argv[2]), x["source"]
' "$tmp/readSegment-trace.json" "$want"

pass_through="NaiveRow"
trace_book transpose 'transposeNaiveRow(\(|P)' \
    "launch=transposeNaiveRow kernel=2 blockx=16 blocky=16 nx=2048 ny=2048" transpose 2
want=$(line_of src/book/transpose_book.cu transposeNaiveRow "out[ix * ny + iy] = in[iy * nx + ix]")
check "transpose: the store of line $want first" python3 -c '
import json, sys
x = json.load(open(sys.argv[1]))["kernels"][0]["instructions_by_waste"][0]
assert x["op"] == "store" and x["space"] == "global", x
assert x["source"] and x["source"]["line"] == int(sys.argv[2]), x["source"]
' "$tmp/transpose-trace.json" "$want"

pass_through="checkSmemSquare"
classes=shared_ld,shared_st,global_st figures=instructions,requests,wavefronts,bank_conflicts
trace_book checkSmemSquare 'setRowReadCol(\(|Pi)' "launch=setRowReadCol iprintf=0" checkSmemSquare
want=$(line_of src/book/check_smem_square.cu setRowReadCol "out[idx] = tile[threadIdx.x][threadIdx.y]")
check "checkSmemSquare: the column read of line $want first" python3 -c '
import json, sys
x = json.load(open(sys.argv[1]))["kernels"][0]["instructions_by_waste"][0]
assert x["op"] == "load" and x["space"] == "shared", x
assert x["modern"]["bank_conflicts"] == 31 * x["modern"]["requests"], x["modern"]
assert x["source"] and x["source"]["line"] == int(sys.argv[2]), x["source"]
' "$tmp/checkSmemSquare-trace.json" "$want"

# A program's status passes through: the book program with a bad argument.
run "$bin" trace -- "$bin" readSegment not-a-number
check "a failing program: its exit status (2) passes through" test $rc -eq 2

# A program of its own, untraced and then traced: the same lines, status 0.
"$prog" >"$tmp/alone.out" 2>&1
alone_rc=$?
check "trace_program alone: exit 0" test $alone_rc -eq 0
run "$bin" trace --budget 1G --quiet --json "$tmp/prog.json" -- "$prog"
check "trace_program traced: its exit status (0) passes through" test $rc -eq 0
check "trace_program traced: its output unchanged" cmp -s "$tmp/alone.out" "$tmp/out"
# Hand-derived (tests/gpu/trace_program.cu): scale and gather run 2^20
# threads (32768 warps), tile_columns 256 blocks of 32 warps (8192).
check "trace_program: every kernel traced, its own kernels' figures exact" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
names = [k["name"] for k in t["kernels"]]
def one(part):
    ks = [k for k in t["kernels"] if part in k["name"]]
    assert len(ks) == 1, (part, names)
    assert ks[0]["sample_stride"] == 1 and ks[0]["warps_lost"] == 0, part
    return ks[0]["modern"]
def fig(m, c, f):
    return m.get(c, {}).get(f, 0)
want = {
    "5scale": {("global_ld", "requests"): 32768, ("global_ld", "sectors"): 131072,
               ("global_st", "requests"): 32768, ("global_st", "sectors"): 131072},
    "6gather": {("global_ld", "requests"): 32768, ("global_ld", "sectors"): 262144,
                ("global_st", "sectors"): 131072},
    "12tile_columns": {("global_ld", "sectors"): 32768, ("global_st", "sectors"): 32768,
                       ("shared_st", "requests"): 8192, ("shared_st", "wavefronts"): 8192,
                       ("shared_ld", "requests"): 8192, ("shared_ld", "wavefronts"): 262144,
                       ("shared_ld", "bank_conflicts"): 253952},
}
for part, figs in want.items():
    m = one(part)
    for (c, f), v in figs.items():
        assert fig(m, c, f) == v, (part, c, f, fig(m, c, f), v)
assert any("cub" in n or "thrust" in n for n in names), ("no Thrust/CUB kernel", names)
if sys.argv[2] == "1":
    assert any("gemm" in n.lower() for n in names), ("no cuBLAS kernel", names)
' "$tmp/prog.json" "$(grep -c "sgemm ok" "$tmp/alone.out")"
check "trace_program: every kernel's counters measured in the second run, L1 equal to the model" \
    measured_l1 "$tmp/prog.json" 3 '5scale|6gather|12tile_columns' 

# The same program made to fault: status 3 either way, and the kernels
# that ran before the fault are still reported.
"$prog" fault >"$tmp/alone.out" 2>&1
alone_rc=$?
check "trace_program fault alone: exit 3" test $alone_rc -eq 3
run "$bin" trace --budget 1G --quiet --json "$tmp/fault.json" -- "$prog" fault
check "trace_program fault traced: its exit status (3) passes through" test $rc -eq 3
check "trace_program fault traced: its output unchanged" cmp -s "$tmp/alone.out" "$tmp/out"
check "trace_program fault traced: the faulting launch is named" \
    grep -q "a traced launch failed.*wild" "$tmp/err"
check "trace_program fault traced: what ran before the fault is reported" python3 -c '
import json, sys
names = [k["name"] for k in json.load(open(sys.argv[1]))["kernels"]]
assert any("5scale" in n for n in names) and any("6gather" in n for n in names), names
' "$tmp/fault.json"

echo "trace_gpu: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
