#!/usr/bin/env bash
# cumemlab trace (src/cli/trace_cmd.c, docs/trace.md) without a GPU:
#   - --from on the committed traces of the lab's own kernels
#     (tests/data/trace/, written by tests/test_trace_model.c from the
#     mirrors): the text's summary and ranking, the lanes' picture, the
#     JSON (cumemlab-trace) and the CSV carry the figures derived by hand
#     there (transpose naive-row: the store, 32 sectors a request, 28672
#     bytes wasted; shared-banks: the column load, 31 conflicts a request);
#   - a damaged trace: one line naming the file and the offset, exit 1, no
#     output file; usage errors: one line naming the option, exit 2, no
#     output file;
#   - trace -- PROGRAM: the program's output and exit status pass through
#     (a program that makes no CUDA call: nothing traced, said once).
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/cli_test_util.sh" # $tmp, check, run
cd "$root" || exit 1
data=tests/data/trace

# --- the text ------------------------------------------------------------------
run "$bin" trace --from $data/transpose-naive-row.trace
check "transpose: exit 0" test $rc -eq 0
check "transpose: nothing on stderr" test ! -s "$tmp/err"
check "transpose: the store first, 32 sectors a request, 12.5%, 28672 bytes wasted" \
    grep -Eq '^1 +transposeNaiveRow +0x0010 +- +global store 4B +32 +32 +1024 +32\.00 +12\.5 +0 +28672$' \
    "$tmp/out"
check "transpose: the load second, coalesced" \
    grep -Eq '^2 +transposeNaiveRow +0x0000 +- +global load 4B +32 +32 +128 +4\.00 +100\.0 +0 +0$' \
    "$tmp/out"
check "transpose: each lane of the store in its own sector" \
    grep -Eq '^   sector +0123456789abcdefghijklmnopqrstuv +block 0, warp 0: 32 sectors$' "$tmp/out"
check "transpose: the lab's sentence" \
    grep -q "every lane lands in its own sector: no coalescing at all" "$tmp/out"
check "transpose: the launch, 32 warps of 32, 64 warp instructions, 4.00 and 32.00 sectors a request" \
    grep -Eq "^transposeNaiveRow +1 +1x4x1 +32x8x1 +32 of 32 +64 +4\.00 +32\.00 +22\.2 +0 +4096$" "$tmp/out"

# the block shape (docs/trace.md): 8 x 32 instead of 32 x 8, the store 1024 ->
# 256 sectors, the load unchanged (test_trace_shape.c derives it)
run "$bin" trace --from $data/transpose-naive-row.trace --json "$tmp/tr.json" --csv "$tmp/tr.csv"
check "transpose: the block shape under the store, marked with its assumption" \
    grep -Eq '^   - blocks of 8 x 32 threads instead of 32 x 8 \(if each index is blockIdx \* blockDim \+ threadIdx per dimension\): requests 32 ->$' \
    "$tmp/out"
check "transpose: the store's sectors under it" \
    grep -Eq '^     32, sectors 1024 -> 256 \(32\.00 -> 8\.00 a request\), efficiency 12\.5% -> 50\.0%; saves 24576 bytes \(every thread of the recorded$' \
    "$tmp/out"
check "transpose: the launch's two instructions under it" \
    grep -q '^     the block shape is one choice for the launch; its 2 fitted instructions together: wasted bytes 28672 -> 4096, saves 24576$' \
    "$tmp/out"
check "transpose JSON: the block shape's members" python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))["kernels"][0]["instructions_by_waste"]
w = [x for x in i[0]["whatif"] if x["transform"] == "block_shape"]
assert len(w) == 1, i[0]["whatif"]
w = w[0]
assert w["block_shape"] == [8, 32, 1] and w["block_shape_from"] == [32, 8, 1], w
assert w["before"]["sectors"] == 1024 and w["after"]["sectors"] == 256 and w["saved_bytes"] == 24576
assert w["stride_bytes"] is None and w["pad_elements"] is None and w["width_bytes"] is None
l = w["launch"]
assert l["instructions_fitted"] == 2 and l["shapes_judged"] == 8, l
assert l["wasted_bytes_before"] == 28672 and l["wasted_bytes_after"] == 4096 and l["saved_bytes"] == 24576
f = {x["pc"]: x for x in l["instructions"]}
assert f[16]["thread_coefficients_bytes"] == [128, 4, None] and f[16]["blocks"] == 4, f[16]
assert f[0]["thread_coefficients_bytes"] == [4, 128, None] and f[0]["saved_bytes"] == 0, f[0]
assert f[0]["before"]["sectors"] == 128 and f[0]["after"]["sectors"] == 128
p = [x for x in i[0]["whatif"] if x["transform"] == "pad"][0]
assert p["block_shape"] is None and p["launch"] is None, p
' "$tmp/tr.json"
check "transpose CSV: the store's block-shape row, the shape and the launch's bytes saved" \
    grep -q '^transposeNaiveRow,1,16,global,store,4,32,0,32,256,8,0.5,4096,0,0,0,4096,,,,block_shape,,,,32,24576,8,32,1,24576$' \
    "$tmp/tr.csv"
check "transpose CSV: the load's block-shape row saves nothing" \
    grep -q '^transposeNaiveRow,1,0,global,load,4,32,0,32,128,4,1,4096,0,0,0,0,,,,block_shape,,,,32,0,8,32,1,24576$' \
    "$tmp/tr.csv"

run "$bin" trace --from $data/shared-banks-col.trace
check "banks: the column load first, 32 wavefronts a request, 1984 conflicts" \
    grep -Eq '^1 +smemTileRowCol +0x0010 +- +shared load 4B +64 +64 +0 +32\.00 wf +- +1984 +253952$' \
    "$tmp/out"
check "banks: every lane of the column in bank 0" \
    grep -Eq '^   bank +00000000000000000000000000000000 +block 0, warp 0: 1 bank$' "$tmp/out"
check "banks: what if, marked as the model's" \
    grep -q "^   What if (the model's prediction, on these warps' addresses transformed):$" "$tmp/out"
check "banks: a pad of one float a row removes every conflict" \
    grep -q '^   - pad each row of 128 B by 1 element (4 B): requests 64 -> 64, wavefronts 2048 -> 64, conflicts 1984 -> 0; saves 253952 bytes$' \
    "$tmp/out"

# source lines and SASS: the trace names tests/data/trace/lines.cubin
run "$bin" trace --from $data/naive-row-lines.trace --json "$tmp/lines.json"
check "lines: the store first, at line 8 of lines.cu" \
    grep -Eq '^1 +naiveRow +0x0150 +lines\.cu:8 +global store 4B +32 +32 +1024 ' "$tmp/out"
check "lines: the details name the line" \
    grep -q '^#1 naiveRow +0x0150 (lines.cu:8): global store of 4 bytes a lane, 32 warps$' "$tmp/out"
check "lines: JSON's source" python3 -c "
import json, sys
i = json.load(open(sys.argv[1]))['kernels'][0]['instructions_by_waste']
assert i[0]['source']['line'] == 8 and i[0]['source']['file'].endswith('lines.cu'), i[0]['source']
assert i[0]['sass'] in (None, 'STG.E desc[UR4][R4.64], R3'), i[0]['sass']" "$tmp/lines.json"
if grep -q '^   sass ' "$tmp/out"; then
    check "sass: the store's instruction" grep -q '^   sass     STG.E desc\[UR4\]\[R4.64\], R3$' "$tmp/out"
    check "sass: the load's instruction" grep -q '^   sass     LDG.E R3, desc\[UR4\]\[R2.64\]$' "$tmp/out"
else
    echo "test_trace: no nvdisasm found: the SASS lines are not checked"
fi

# --- JSON and CSV ----------------------------------------------------------------
run "$bin" trace --from $data/read-offset.trace --json "$tmp/t.json" --csv "$tmp/t.csv" --quiet
check "read-offset --json --csv --quiet: exit 0, nothing on stdout" test $rc -eq 0 -a ! -s "$tmp/out"
check "read-offset JSON: the schema and the hand-derived figures" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "cumemlab-trace" and d["schema_version"] == 1, d["schema"]
assert d["complete"] is True and d["device"]["sm_count"] == 132
k = d["kernels"][0]
assert k["name"] == "readOffset" and k["grid"] == [4, 1, 1] and k["block"] == [512, 1, 1]
assert k["warps_total"] == 64 and k["warps_recorded"] == 64 and k["sample_stride"] == 1
assert k["modern"]["global_ld"]["sectors"] == 638 and k["modern"]["global_st"]["sectors"] == 256
assert k["levels"]["method"] == "whole"
i = k["instructions_by_waste"]
assert [x["pc"] for x in i] == [0, 16, 32], [x["pc"] for x in i]
assert i[0]["modern"]["sectors"] == 319 and i[0]["wasted_bytes"] == 2020
assert i[0]["example"]["addresses"][1] - i[0]["example"]["addresses"][0] == 4
assert i[0]["example"]["picture"] == "0000000111111112222222233333333" + "4", i[0]["example"]["picture"]
assert i[2]["op"] == "store" and i[2]["wasted_bytes"] == 4
' "$tmp/t.json"
check "read-offset CSV: a header, a row per instruction and per transform (the store's two widths)" \
    test "$(wc -l <"$tmp/t.csv")" -eq 6
check "read-offset CSV: the A load's row" \
    grep -q '^readOffset,1,0,global,load,4,64,0,64,319,4.984375,0.802115987460815,8188,0,0,0,2020,,,,,,,,,,,,,$' \
    "$tmp/t.csv"
# the store's 63 full warps joined by 2 (31 pairs, 1 left, the partial last
# warp as recorded: 33 requests) and by 4 (15 groups, 3 left, the partial: 19)
check "read-offset CSV: the store's 8-byte row, 33 requests, the same 256 sectors" \
    grep -q '^readOffset,1,32,global,store,4,64,0,33,256,7.757575757575758,0.99951171875,8188,0,0,0,4,,,,vector,,,8,62,0,,,,$' \
    "$tmp/t.csv"
check "read-offset CSV: the store's 16-byte row, 19 requests" \
    grep -q '^readOffset,1,32,global,store,4,64,0,19,256,[0-9.]*,0.99951171875,8188,0,0,0,4,,,,vector,,,16,60,0,,,,$' \
    "$tmp/t.csv"
check "read-offset JSON: the misaligned load has no transform, the store two, the text says so" python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))["kernels"][0]["instructions_by_waste"]
assert i[0]["whatif"] == [], i[0]["whatif"]
w = i[2]["whatif"]
assert [x["transform"] for x in w] == ["vector", "vector"], w
assert [x["width_bytes"] for x in w] == [8, 16] and w[0]["after"]["requests"] == 33
assert w[0]["before"]["requests"] == 64 and w[0]["saved_bytes"] == 0 and w[0]["pad_elements"] is None
' "$tmp/t.json"
run "$bin" trace --from $data/stride.trace --json -
check "--json -: the document alone on stdout" \
    python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/out"
check "--json -: the text on stderr" grep -q "^Instructions by the bytes they waste" "$tmp/err"

# --- HTML --------------------------------------------------------------------------
run "$bin" trace --from $data/shared-banks-col.trace --html "$tmp/t.html" --quiet
check "--html: exit 0, nothing on stdout or stderr" test $rc -eq 0 -a ! -s "$tmp/out" -a ! -s "$tmp/err"
check "--html: a whole document" grep -q '</html>' "$tmp/t.html"
check "--html: self-contained (no external reference)" \
    test -z "$(grep -Eo '(src|href)="(https?:|//)[^"]*"' "$tmp/t.html")"
check "--html: the ranking's first row, the column load and its 253952 bytes" \
    grep -q '<td class="txt">smemTileRowCol +0x0010</td><td class="txt">shared load 4B</td><td class="num">64</td><td class="num">64</td><td class="num">0</td><td class="num">32.00 wf</td><td class="num">-</td><td class="num">1984</td><td class="num">253952</td>' \
    "$tmp/t.html"
check "--html: the column's lanes all in bank 0, the address in the title" \
    test "$(grep -o '<td style="background:#cfe2ff" title="lane [0-9]*: 0x[0-9a-f]*">0</td>' "$tmp/t.html" | head -32 | wc -l)" -eq 32
check "--html: lane 1 of the column at 0x80 (its row, 128 bytes on)" grep -q 'title="lane 1: 0x80">0<' "$tmp/t.html"
check "--html: the what-if table, the model's pad" \
    grep -q '<td class="txt">pad each row of 128 B by 1 element (4 B)</td><td class="num">64 of 64</td><td class="num">64 &rarr; 64</td><td class="num">2048 &rarr; 64</td><td class="num">1984 &rarr; 0</td><td class="num">253952</td>' \
    "$tmp/t.html"
check "--html: the summary names the change that buys most" \
    grep -q 'conflicts 1984 -&gt; 0; saves 253952 bytes (64 of 64 warps)</td></tr>' "$tmp/t.html"
check "--html: the per-line chart, an SVG with a bar per PC" python3 -c '
import re, sys
h = open(sys.argv[1]).read()
svg = re.findall(r"<svg.*?</svg>", h, re.S)
assert len(svg) == 1, len(svg)
for pc in ("pc 0x0000", "pc 0x0010", "pc 0x0020"):
    assert pc in svg[0], pc
' "$tmp/t.html"
run "$bin" trace --from $data/naive-row-lines.trace --html "$tmp/l.html" --quiet
check "--html with lines: the chart's category is the source line" grep -q '>lines.cu:8</text>' "$tmp/l.html"
check "--html with lines: a pad that saves nothing is not the change that buys most, the block shape is" \
    grep -q '<td class="txt">blocks of 8 x 32 threads instead of 32 x 8 (if each index is blockIdx \* blockDim + threadIdx per dimension): requests 32 -&gt; 32, sectors 1024 -&gt; 256 ' \
    "$tmp/l.html"
check "--html with lines: the block shape's what-if row, and what it does to the launch" \
    grep -q 'the block shape is one choice for the launch; its 2 fitted instructions together: wasted bytes 28672 -&gt; 4096, saves 24576 bytes; naiveRow +0x0120 global load: sectors 128 -&gt; 128, saves nothing</p>' \
    "$tmp/l.html"
# a damaged trace: one line, exit 1, and no HTML file
head -c 40 $data/shared-banks-col.trace >"$tmp/short.trace"
run "$bin" trace --from "$tmp/short.trace" --html "$tmp/bad.html"
check "--html of a trace cut in its HEAD: exit 1, one line, no HTML" \
    test $rc -eq 1 -a "$(wc -l <"$tmp/err")" -eq 1 -a ! -e "$tmp/bad.html"
cp $data/shared-banks-col.trace "$tmp/corrupt.trace"
printf '\377\377\377\377' | dd of="$tmp/corrupt.trace" bs=1 seek=100 conv=notrunc 2>/dev/null
run "$bin" trace --from "$tmp/corrupt.trace" --html "$tmp/bad.html"
check "--html of a corrupt trace: exit 1, one line naming the offset, no HTML" \
    test $rc -eq 1 -a "$(wc -l <"$tmp/err")" -eq 1 -a -n "$(grep -F 'offset ' "$tmp/err")" -a ! -e "$tmp/bad.html"

# --- damaged traces: one line, exit 1, no output -----------------------------------
cp $data/stride.trace "$tmp/v2.trace"
printf '\002' | dd of="$tmp/v2.trace" bs=1 seek=8 conv=notrunc 2>/dev/null
run "$bin" trace --from "$tmp/v2.trace" --json "$tmp/v2.json"
check "a trace of another version: exit 1" test $rc -eq 1
check "a trace of another version: one line naming the file, the offset and why" \
    test "$(wc -l <"$tmp/err")" -eq 1 -a -n "$(grep -F "$tmp/v2.trace: offset 8: trace format version 2 (this cumemlab reads version 1)" "$tmp/err")"
check "a trace of another version: no JSON written" test ! -e "$tmp/v2.json"
# cut inside a launch's chunk (the program died while it was written): the
# launches before it are reported, the cut said
head -c 300 $data/stride.trace >"$tmp/cut.trace"
run "$bin" trace --from "$tmp/cut.trace" --json "$tmp/cut.json"
check "a cut trace: reported (exit 0)" test $rc -eq 0
check "a cut trace: incomplete, and the cut chunk's bytes left out" \
    grep -q "^Its last 189 bytes are a chunk cut short" "$tmp/out"
check "a cut trace: no launch survives the cut" grep -q "^No launch was recorded" "$tmp/out"
check "a cut trace: JSON says so" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['complete'] is False and d['truncated_bytes'] == 189 and d['kernels'] == []" "$tmp/cut.json"
# a trace whose END chunk is missing (the program died): reported, and said
size=$(wc -c <$data/stride.trace)
head -c $((size - 13)) $data/stride.trace >"$tmp/noend.trace"
run "$bin" trace --from "$tmp/noend.trace"
check "no END chunk: reported (exit 0)" test $rc -eq 0
check "no END chunk: says the trace is incomplete" grep -q "^Incomplete: the trace ends without" "$tmp/out"
check "no END chunk: its launch still ranked" grep -Eq '^1 +stride +0x0000 ' "$tmp/out"
run "$bin" trace --from README.md
check "not a trace: exit 1, says so" \
    test $rc -eq 1 -a -n "$(grep -F 'not a cumemlab trace' "$tmp/err")"

# --- usage: one line naming the option and its range, exit 2, nothing written ------
usage() { # what, expected text, then arguments
    local what=$1 text=$2
    shift 2
    run "$bin" trace "$@"
    check "$what: exit 2" test $rc -eq 2
    check "$what: one line" test "$(wc -l <"$tmp/err")" -eq 1
    check "$what: names it" grep -qF -- "$text" "$tmp/err"
    check "$what: no output file" test ! -e "$tmp/u.json" -a ! -e "$tmp/u.trace"
}
usage "--budget too small" "--budget: out of range: '5' (allowed: 1048576..68719476736)" \
    --budget 5 --json "$tmp/u.json" --out "$tmp/u.trace" -- true
usage "--budget too large" "--budget: out of range" --budget 65G --json "$tmp/u.json" -- true
usage "--launch 0" "--launch: out of range: '0' (allowed: 1..2147483647)" --launch 0 -- true
usage "--kernel not a regex" "--kernel: '(' is not a name or an extended regular expression" \
    --kernel '(' --out "$tmp/u.trace" -- true
usage "--kernel with --from" "--kernel applies when a program is traced" \
    --from $data/stride.trace --kernel x --json "$tmp/u.json"
usage "--from and a program" "--from reports a saved trace" --from $data/stride.trace -- true
usage "nothing to trace" "name a program after --" --json "$tmp/u.json"
usage "--html to a folder" "--html: $tmp: is a directory" --html "$tmp" --from $data/stride.trace
usage "--html - with a program" "--json, --csv and --html need a file when a program runs" \
    --html - -- true
usage "--json - with a program" "--json, --csv and --html need a file when a program runs" \
    --json - -- true

# --- a program: its output and status pass through -------------------------------
run "$bin" trace --out "$tmp/u.trace" -- sh -c 'echo to-stdout; echo to-stderr >&2; exit 3'
if grep -q "injection library (libcumemlab-inject.so) was not found" "$tmp/err"; then
    echo "trace -- PROGRAM: this build has no injection library (no Compute Sanitizer API): skipped"
else
    check "a program: its stdout passes through" grep -qx to-stdout "$tmp/out"
    check "a program: its stderr passes through" grep -qx to-stderr "$tmp/err"
    check "a program: its exit status passes through" test $rc -eq 3
    check "a program without CUDA: nothing traced, said once" \
        test "$(grep -c 'no trace was written' "$tmp/err")" -eq 1
    check "a program without CUDA: no trace left" test ! -e "$tmp/u.trace"
    run "$bin" trace -- /no/such/program
    check "a program that cannot run: exit 127, says so" \
        test $rc -eq 127 -a -n "$(grep -F "cannot run '/no/such/program'" "$tmp/err")"
fi

run "$bin" help trace
check "help trace: the usage, exit 0" test $rc -eq 0 -a -n "$(grep -F -- '--budget BYTES' "$tmp/out")"

echo "test_trace: $checks checks, $fails failed"
[ $fails -eq 0 ]
