#!/usr/bin/env bash
# On a GPU: do the kernels of this tree read the same hardware counters as
# those of an earlier source tree? Issue 21 moved every kernel into a body
# shared with the model and every experiment into a folder; the SASS check
# (scripts/sass-check.sh) proves the machine code unchanged, this proves the
# counters the lab reads on the card unchanged, launch for launch.
#
#   bench/same-counters.sh BEFORE_SRC OUT
#
# BEFORE_SRC: the earlier tree's sources (e.g. `git archive REV -- src
# include cmake CMakeLists.txt Makefile scripts tests bench | tar -x -C DIR`,
# carried to the GPU machine). Builds both for the card's architecture,
# then runs, with the counters on:
#   - the suite of each build (before, after, and after again: the control
#     of what two runs of one build differ by), at --size SIZE (default the
#     lab's own sizes);
#   - the book's programs of each build, as gpu-check runs them, each
#     launch recorded (--json);
# and compares them with bench/same_counters.py: exact counters equal, the
# cache levels beside the control. OUT gets each run's counters
# (*.counters.tsv.gz), the comparison (compare.txt) and the logs, and a
# summary is printed last. WHAT="suite book" (the default;
# "validate" adds validate with each build, its verdicts compared check by
# check) picks the parts: a suite takes about a minute on an H100, the
# book's programs less, validate about two.
set -u
before=${1:?usage: same-counters.sh BEFORE_SRC OUT}
out=${2:?usage: same-counters.sh BEFORE_SRC OUT}
here=$(cd "$(dirname "$0")/.." && pwd)
arch=${ARCH:-90}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
before=$(cd "$before" && pwd)
out=$(cd "$out" && pwd)

build() { # SRC DIR
    cmake -S "$1" -B "$2" -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_BUILD_TYPE=Release \
        >"$out/build-$(basename "$2").log" 2>&1 &&
        cmake --build "$2" -j "$jobs" --target cumemlab >>"$out/build-$(basename "$2").log" 2>&1
}
t0=$(date +%s)
build "$before" "$before/build-same" & pb=$!
build "$here" "$here/build-same" & pa=$!
wait $pb; rb=$?
wait $pa; ra=$?
echo "build: before rc=$rb, after rc=$ra, $(( $(date +%s) - t0 )) s"
[ $rb -eq 0 ] && [ $ra -eq 0 ] || { tail -20 "$out"/build-*.log; exit 1; }
B=$before/build-same/cumemlab
A=$here/build-same/cumemlab
size_opt=${SIZE:+--size $SIZE}

suite() { # BIN NAME
    local t=$(date +%s)
    # shellcheck disable=SC2086
    "$1" suite --counters on $size_opt -q --json "$out/$2.json" >"$out/$2.log" 2>&1
    echo "suite $2: rc=$?, $(( $(date +%s) - t )) s"
}
what=${WHAT:-suite book}
has() { case " $what " in *" $1 "*) return 0 ;; esac; return 1; }
if has suite; then
    suite "$B" suite-before
    suite "$A" suite-after
    suite "$A" suite-control
fi

book() { # BIN NAME: every program's launches in one JSON each, then merged
    local rc=0 i=0
    mkdir -p "$out/$2"
    for prog in "readSegment 0" "readSegment 11" "readSegmentUnroll 11" "writeSegment 0" \
        "writeSegment 11" "simpleMathAoS" "simpleMathSoA" "transpose 0" "transpose 1" \
        "transpose 2" "transpose 3" "transpose 4" "transpose 5" "transpose 6" "transpose 7" \
        "checkSmemSquare" "checkSmemRectangle" "constantStencil" "constantReadOnly" \
        "reduceIntegerShfl" "simpleShfl" "sumArrayZerocpy" "sumMatrixGPUManual" "sumMatrixGPUManaged"; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        timeout 120 "$1" $prog --counters on --json "$out/$2/$i.json" >>"$out/$2.log" 2>&1 || rc=$?
    done
    python3 - "$out/$2" "$out/$2.json" <<'PY'
import glob, json, os, sys
recs = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json")), key=lambda p: int(os.path.basename(p)[:-5])):
    recs += json.load(open(f)).get("records", [])
json.dump({"records": recs}, open(sys.argv[2], "w"))
PY
    rm -rf "${out:?}/$2"
    echo "book $2: rc=$rc"
}
if has book; then
    book "$B" book-before
    book "$A" book-after
    book "$A" book-control
fi

# validate (the model against the counters, docs/model-evidence.md) with each
# build: the same verdicts, record by record (the lines ending "=> ...").
if has validate; then
    for side in before after; do
        bin=$B
        [ $side = after ] && bin=$A
        t=$(date +%s)
        timeout 400 "$bin" validate >"$out/validate-$side.txt" 2>&1
        echo "validate $side: rc=$?, $(( $(date +%s) - t )) s"
    done
fi

for part in suite book; do
    has $part || continue
    echo "== $part: before against after (control: after again)"
    python3 "$here/bench/same_counters.py" "$out/$part-before.json" "$out/$part-after.json" \
        "$out/$part-control.json"
    echo "$part verdict rc=$?"
done >"$out/compare.txt" 2>&1
if has validate; then
    {
        echo "== validate: before against after (each check's verdict)"
        for side in before after; do
            # the check (its first two columns: experiment or E-number, and
            # variant or label) and its verdict, not its measured values
            grep -E "=> " "$out/validate-$side.txt" |
                awk -F'  +' '{ v = $0; sub(/.*=> /, "", v); print $1 " | " $2 " => " v }' \
                    >"$out/verdicts-$side"
            echo "$side: $(grep -E "agree, .* differ" "$out/validate-$side.txt" | tail -1)"
        done
        if diff "$out/verdicts-before" "$out/verdicts-after" >"$out/verdicts-diff"; then
            echo "validate verdicts: the same for all $(wc -l <"$out/verdicts-after") checks"
        else
            echo "validate verdicts that differ:"; cat "$out/verdicts-diff"
        fi
        rm -f "$out"/verdicts-*
    } >>"$out/compare.txt" 2>&1
fi
# What the comparison read, kept small enough to commit: each record's
# experiment, variant and measured counters (bench/same_counters.py
# --extract: about 30 KB a suite; the whole results files are large, and
# CML_SAME_KEEP=1 keeps them too, gzip-compressed).
for f in "$out"/*.json; do
    python3 "$here/bench/same_counters.py" --extract "$f" "${f%.json}.counters.tsv.gz"
    [ "${CML_SAME_KEEP:-0}" = 1 ] || rm -f "$f"
done
[ "${CML_SAME_KEEP:-0}" = 1 ] && gzip -f "$out"/*.json
device=$(nvidia-smi -i "${CUDA_VISIBLE_DEVICES:-0}" --query-gpu=name,driver_version,clocks.sm,clocks.mem \
    --format=csv,noheader 2>&1 | head -1)
echo "device: $device; date: $(date -u +%FT%TZ)" >>"$out/compare.txt"
# The logs (and validate's output) in one archive beside the JSON files.
(cd "$out" && tar czf logs.tgz ./*.log ./validate-*.txt 2>/dev/null; rm -f ./*.log ./validate-*.txt)
echo "== summary ($device)"
grep -E "^== |records:|exact counters|shared wavefronts|level counters|SAME|DIFFERENT|verdict|^before:|^after:" "$out/compare.txt"
