#!/usr/bin/env bash
# gpu-check.sh: everything that needs a GPU, in one call on the GPU machine.
#
#   build (Release, sm_90) -> nvidia-smi and device facts -> ctest (all labels)
#   -> the suite, the tour, the book's programs, run --expr -> the timing
#   report -> validate -> compute-sanitizer memcheck and racecheck over the GPU
#   tests and the suite -> a summary table.
#
# The whole check takes longer than one call of the device tool may run
# (600 s), so it comes in parts, each ending with its own summary:
#   --part 1   build, device, ctest, no-device path, suite (with and without
#              counters), tour, the book's programs, run --expr, the benches
#   --part 2   build, compute-sanitizer memcheck over every GPU test and the
#              suite (small sizes; the suite up to 320 s, 249 s on an H200)
#   --part 3   build, compute-sanitizer racecheck over every GPU test but the
#              book's and the peak's (about 200 s on an H200)
#   --part 4   build, racecheck of gpu_test_book and gpu_test_peak, up to
#              260 s each (each ran past 100 s on an H200: racecheck
#              instruments every shared-memory access of their reductions)
#   --part 5   build, racecheck of the suite (the tour's variants at 64 KiB,
#              up to 540 s)
#   --part 6   build, validate (the model against the counters; up to 400 s,
#              208-215 s on an H200)
#   (none)     everything, in that order, within BUDGET
# The check passes when every part ends PASS with no step skipped.
#
# Each step's failure is recorded and the script goes on; it exits non-zero
# if any step failed. Logs and JSON go to $OUT (at most 8 files; ./gpu-check-out
# when OUT is unset); the summary table is printed LAST so it ends the output.
#
# Environment: OUT, JOBS (build parallelism), ARCH (default 90),
# SANITIZER_TIMEOUT (seconds per sanitizer run, default 100), BUDGET (seconds the
# whole script may take, default 570: the device tool stops a command at 600 s;
# sanitizer runs are shortened or skipped so that the summary is always printed).
# Never put CUDA's compat library folder on LD_LIBRARY_PATH: the machine's
# driver must be the one the runtime talks to.
set -u

PART=all
case "${1:-}" in
    --part)
        case "${2:-}" in
            1 | 2 | 3 | 4 | 5 | 6) PART=$2 ;;
            *) echo "gpu-check.sh: --part: expected 1 to 6, got '${2:-}'" >&2; exit 2 ;;
        esac ;;
    "") ;;
    *) echo "gpu-check.sh: unknown argument '$1' (usage: gpu-check.sh [--part 1-6])" >&2; exit 2 ;;
esac
# part_has N: whether this run includes part N.
part_has() { [ "$PART" = all ] || [ "$PART" = "$1" ]; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
OUT=${OUT:-$ROOT/gpu-check-out}
mkdir -p "$OUT"
BUILD=build-gpu
ARCH=${ARCH:-90}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-100}
BUDGET=${BUDGET:-570}
START_S=$(date +%s)
STEP_START_S=$START_S
# Seconds left of BUDGET.
remaining() { echo $((BUDGET - ($(date +%s) - START_S))); }

# The 8 files that come back (the device tool returns 8).
LOG_BUILD=$OUT/build.log
LOG_ENV=$OUT/build.log       # the device's facts follow the build's log,
LOG_CTEST=$OUT/build.log     # and ctest's follows them
JSON_EXPR=$OUT/expr.json
JSON_VALIDATE=$OUT/validate.json # gzipped: the verdicts, for bench/compare_levels.py
LOG_MEMCHECK=$OUT/sanitizers.log
LOG_RACECHECK=$OUT/sanitizers.log
LOG_VALIDATE=$OUT/validate.txt
LOG_RUN=$OUT/suite.log
JSON_SUITE=$OUT/suite.json
SUMMARY=$OUT/summary.txt
: >"$LOG_MEMCHECK"
: >"$LOG_RACECHECK"

declare -a STEP_NAMES=() STEP_RESULTS=()
FAILED=0
SKIPPED=0

# record NAME RC [note]: remember a step's outcome and how long it took
# (since the previous record). RC "skip": not run, for want of time.
record() {
    local name=$1 rc=$2 note=${3:-} now
    now=$(date +%s)
    note="${note:+$note, }$((now - STEP_START_S)) s"
    STEP_START_S=$now
    STEP_NAMES+=("$name")
    if [ "$rc" = skip ]; then
        STEP_RESULTS+=("SKIPPED ($note)")
        SKIPPED=1
    elif [ "$rc" -eq 0 ]; then
        STEP_RESULTS+=("ok${note:+ ($note)}")
    else
        STEP_RESULTS+=("FAILED rc=$rc${note:+ ($note)}")
        FAILED=1
    fi
}

banner() { printf '\n==== %s ====\n' "$*"; }

# ---------------------------------------------------------------------------
banner "build ($BUILD, sm_$ARCH, Release)"
{
    cmake -S . -B "$BUILD" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DCMAKE_BUILD_TYPE=Release &&
        cmake --build "$BUILD" -j "$JOBS"
} >"$LOG_BUILD" 2>&1
rc=$?
grep -E "error|warning" "$LOG_BUILD" | head -40
tail -3 "$LOG_BUILD"
record build $rc

# ---------------------------------------------------------------------------
banner "device"
{
    nvidia-smi || echo "nvidia-smi failed"
    nvidia-smi --query-gpu=name,memory.total,clocks.max.memory,clocks.mem,clocks.sm,ecc.mode.current,power.limit,temperature.gpu --format=csv || true
    nvcc --version | tail -2
    if [ -x "$BUILD/cumemlab" ] && "$BUILD/cumemlab" device >/dev/null 2>&1; then
        "$BUILD/cumemlab" device
    else
        echo "(cumemlab device not available yet; gpu_test_harness prints the facts below)"
        [ -x "$BUILD/tests/gpu_test_harness" ] &&
            CML_SKIP_PLANTED_ERRORS=1 "$BUILD/tests/gpu_test_harness" | grep -E "^device|SKIP"
    fi
} >"$OUT/device.tmp" 2>&1
cat "$OUT/device.tmp" | tee -a "$LOG_ENV"
rm -f "$OUT/device.tmp"

if part_has 1; then
# ---------------------------------------------------------------------------
banner "ctest (all labels)"
ctest --test-dir "$BUILD" --output-on-failure -V --timeout 400 >>"$LOG_CTEST" 2>&1
rc=$?
# The GPU tests' own lines (facts, timings, the peak table), then ctest's tally.
grep -E "^[0-9]+: (device 0|trivial|triad of|occupancy|1 PiB|planted|peak |cml_peak|references|best copy|persisting L2|WARN|SKIP|  [a-z]|kernel=|variant|cost:|profiler|timing:|batched|at once)" "$LOG_CTEST" | cut -c1-200 | head -80
sed -n '/tests passed/,$p' "$LOG_CTEST"
T_PASS=$(grep -cE "Test +#[0-9]+: .* Passed" "$LOG_CTEST")
T_FAIL=$(grep -cE "Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)|Test +#[0-9]+: .*(Not Run|SEGFAULT)" "$LOG_CTEST")
T_SKIP=$(grep -cE "Test +#[0-9]+: .*\*\*\*Skipped" "$LOG_CTEST")
record ctest $rc "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"

# No device visible: the harness must say so and the GPU tests must skip (77),
# never hang or crash.
banner "no-device path (CUDA_VISIBLE_DEVICES empty)"
if [ -x "$BUILD/tests/gpu_test_harness" ]; then
    nodev=$(CUDA_VISIBLE_DEVICES= timeout 60 "$BUILD/tests/gpu_test_harness" 2>&1)
    rc=$?
    echo "$nodev" | head -3
    if [ "$rc" -eq 77 ] && echo "$nodev" | grep -q "^SKIP: "; then
        record "no-device skip" 0
    else
        record "no-device skip" 1 "rc=$rc, expected 77 and SKIP"
    fi
fi

# ---------------------------------------------------------------------------
# The default suite at full (DRAM) sizes, hardware counters included: its
# wall time, and the spread of every measurement (the targets: the suite
# under 60 s, cv under 2%); then the same without counters (the target: the
# counters at most double the time).
# cv_note JSON: one line on the measurements of a suite's JSON file (the
# records over 2% go to stderr).
cv_note() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["records"] if r.get("timing") and r["state"] == "ok"]
over = [(r["experiment"], r["variant"], r["timing"]["cv"]) for r in rows if r["timing"]["cv"] > 0.02]
worst = max((r["timing"]["cv"] for r in rows), default=0)
fails = [r for r in d["records"] if r["state"] == "failed"]
more = [r["timing"]["reps"] for r in rows if r["timing"]["reps"] > 5]
kern = [r for r in rows if r["experiment"] not in ("transfers", "device-vars")]
kworst = max((r["timing"]["cv"] for r in kern), default=0)
ctr = sum(1 for r in d["records"] if r.get("counters"))
print(f"{len(rows)} measured, worst cv {100*worst:.2f}% (kernels other than transfers and "
      f"device-vars: {100*kworst:.2f}%), {len(over)} over 2%, {len(fails)} failed, "
      f"{len(more)} took more than the 5 samples of a settled median (most "
      f"{max(more, default=5)}), {ctr} with counters")
for e, v, cv in over[:20]:
    print(f"  cv {100*cv:.2f}%: {e} {v}", file=sys.stderr)
PY
}
banner "suite (default sizes, counters on where the profiler runs)"
PEAK=""
SUITE_S="?"
SUITE_OFF_S="?"
CV_NOTE="?"
CV_OFF_NOTE="?"
if [ -x "$BUILD/cumemlab" ]; then
    t0=$(date +%s.%N)
    # CML_COUNTERS_TIMING: where the counters' time went (one line on stderr).
    CML_COUNTERS_TIMING=1 "$BUILD/cumemlab" suite --json "$JSON_SUITE" >"$LOG_RUN" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    SUITE_S=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
    cut -c1-200 "$LOG_RUN" | head -400
    record "cumemlab suite" $rc "${SUITE_S} s"
    if [ -s "$JSON_SUITE" ]; then
        PEAK=$(grep -Eo '"peak_gbs" *: *[0-9.eE+-]+' "$JSON_SUITE" | head -1 | grep -Eo '[0-9.eE+-]+$')
        CV_NOTE=$(cv_note "$JSON_SUITE")
        echo "measurements: $CV_NOTE"
    fi
    banner "suite --counters off"
    [ "${SUITE_OFF:-1}" = 0 ] && echo "(skipped: SUITE_OFF=0)"
    t0=$(date +%s.%N)
    rc=0
    [ "${SUITE_OFF:-1}" = 0 ] ||
        "$BUILD/cumemlab" suite --counters off --quiet --json "$OUT/suite-off.json" >/dev/null 2>&1 ||
        rc=$?
    t1=$(date +%s.%N)
    SUITE_OFF_S=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
    record "cumemlab suite --counters off" $rc "${SUITE_OFF_S} s"
    if [ -s "$OUT/suite-off.json" ]; then
        CV_OFF_NOTE=$(cv_note "$OUT/suite-off.json")
        echo "measurements: $CV_OFF_NOTE"
    fi
    rm -f "$OUT/suite-off.json"
else
    echo "(cumemlab not built)" | tee "$LOG_RUN"
    record "cumemlab suite" 1 "not built"
fi
# The tour: what `make run` runs on this GPU.
if [ -x "$BUILD/cumemlab" ]; then
    banner "tour (make run's job)"
    t0=$(date +%s.%N)
    { echo; echo "==== tour ===="; "$BUILD/cumemlab"; } >>"$LOG_RUN" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    tail -5 "$LOG_RUN"
    record "cumemlab (the tour)" $rc "$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s"
fi
# The book's programs as the book runs them (docs/textbook.md), each with
# the lab's record of every launch: the book's own line, then the counters.
if [ -x "$BUILD/cumemlab" ]; then
    banner "the book's programs"
    rc=0
    for prog in "readSegment 0" "readSegment 11" "readSegmentUnroll 11" "writeSegment 0" \
        "writeSegment 11" "simpleMathAoS" "simpleMathSoA" "transpose 0" "transpose 1" \
        "transpose 2" "transpose 3" "transpose 4" "transpose 5" "transpose 6" "transpose 7" \
        "checkSmemSquare" "checkSmemRectangle" "constantStencil" "constantReadOnly" \
        "reduceIntegerShfl" "simpleShfl" "sumArrayZerocpy" "sumMatrixGPUManual"; do
        { echo; echo "==== cumemlab $prog ===="; } >>"$LOG_RUN"
        # shellcheck disable=SC2086
        timeout 60 "$BUILD/cumemlab" $prog >>"$LOG_RUN" 2>&1 || rc=$?
    done
    record "the book's programs" $rc
fi
# Index expressions compiled at run time (NVRTC) and run beside the model
# and the counters: the classic patterns written as expressions.
banner "run --expr (expressions compiled at run time)"
EXPR_NOTE="?"
if [ -x "$BUILD/cumemlab" ]; then
    "$BUILD/cumemlab" run --expr i --expr 'i + 11' --expr 'i*2' --expr 'i*4' --expr 'i*8' \
        --expr 'i*16' --expr 'i*32' --expr '(i%32)*33' --expr 0 --expr 'i/32' \
        --expr 'n - 1 - i' --expr '(i*5) % 1048576' --expr 'i ^ 1' --expr 'lane*32 + (i >> 5)' \
        --json "$JSON_EXPR" >>"$LOG_RUN" 2>&1
    rc=$?
    if [ -s "$JSON_EXPR" ]; then
        EXPR_NOTE=$(python3 - "$JSON_EXPR" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
recs = [r for r in d["records"] if r["experiment"] == "expr"]
ok = [r for r in recs if r["state"] == "ok" and r["verify"] == "passed"]
def extra(name):
    return [r["extra"][name]["value"] for r in recs if name in r["extra"] and r["extra"][name]["value"] is not None]
comp, cached = extra("compile_ms"), extra("cached_compile_ms")
print(f"{len(recs)} expressions, {len(ok)} verified; compile max {max(comp, default=0):.1f} ms, "
      f"cached max {1000*max(cached, default=0):.1f} us")
PY
)
    fi
    echo "$EXPR_NOTE"
    record "cumemlab run --expr" $rc "$EXPR_NOTE"
fi
# What the shared-memory counters of a transpose count (docs/model-evidence.md §4.3).
if [ -x "$BUILD/bench_shared_contention" ]; then
    banner "shared-memory counters under global traffic"
    timeout 120 "$BUILD/bench_shared_contention" 2>&1 | tee -a "$LOG_VALIDATE"
    record "bench_shared_contention" "${PIPESTATUS[0]}"
fi
# The timing bounds the GPU tests do not assert (bench/gpu/timing_report.c):
# reported beside ctest's log, never a failed step for a slow card.
if [ -x "$BUILD/bench_gpu_timing" ]; then
    banner "timing bounds (reported, not judged)"
    timeout 120 "$BUILD/bench_gpu_timing" 2>&1 | tee -a "$LOG_CTEST"
    record "bench_gpu_timing" "${PIPESTATUS[0]}"
fi

fi # part 1

# The model against the hardware counters: a part of its own (208-215 s on
# an H200 since the DRAM windows, bench/results/h200/2026-11-29-final/;
# part 1 with it ran past the device tool's 600 s).
VALIDATE="?"
if part_has 6; then
    banner "validate"
    if [ -x "$BUILD/cumemlab" ]; then
        CML_COUNTERS_TIMING=1 timeout 400 "$BUILD/cumemlab" validate --json "$JSON_VALIDATE" \
            >>"$LOG_VALIDATE" 2>&1
        rc=$?
        [ -f "$JSON_VALIDATE" ] && gzip -9nf "$JSON_VALIDATE"
        VALIDATE=$(grep -E "agree, [0-9]+ differ" "$LOG_VALIDATE" | tail -1)
        grep -E "DIFFER|failed" "$LOG_VALIDATE" | head -20
        echo "$VALIDATE"
        record "cumemlab validate" $rc
    else
        record "cumemlab validate" 1 "not built"
    fi
fi

# ---------------------------------------------------------------------------
# compute-sanitizer over each GPU test binary (quick sizes, no planted fault),
# and over the suite once the CLI has it. Errors are counted from the tool's
# own "ERROR SUMMARY" lines.
SAN_MEM_ERRORS=0
SAN_RACE_ERRORS=0
sanitize() { # tool log label cmd...
    local tool=$1 log=$2 label=$3 tmp rc n w limit
    shift 3
    # Keep 30 s for the summary; never start a run with less than 20 s.
    limit=$(($(remaining) - 30))
    [ "$limit" -gt "$SANITIZER_TIMEOUT" ] && limit=$SANITIZER_TIMEOUT
    if [ "$limit" -lt 20 ]; then
        printf '\n---- %s: %s ----\nnot run: the time budget (%s s) is spent\n' "$tool" "$label" "$BUDGET" >>"$log"
        record "$tool $label" skip "time budget"
        return
    fi
    tmp=$(mktemp)
    CML_SKIP_PLANTED_ERRORS=1 CML_QUICK_TEST=1 timeout "$limit" \
        compute-sanitizer --tool "$tool" --error-exitcode 99 "$@" >"$tmp" 2>&1
    rc=$?
    # memcheck: "ERROR SUMMARY: N errors"; racecheck: "... (N errors, M warnings)".
    # A racecheck warning is a hazard too (the book's warp-synchronous
    # reduction gave 40 warnings and 0 errors): both are counted and shown.
    n=$(grep -Eo "ERROR SUMMARY: [0-9]+" "$tmp" | tail -1 | grep -Eo "[0-9]+$")
    [ -z "$n" ] && n=$(grep -Eo "\([0-9]+ errors" "$tmp" | tail -1 | grep -Eo "[0-9]+")
    w=$(grep -Eo "[0-9]+ warnings\)" "$tmp" | tail -1 | grep -Eo "^[0-9]+")
    # rc 77: the test skipped itself (no GPU); not a sanitizer finding.
    [ "$rc" -eq 77 ] && rc=0
    {
        printf '\n---- %s: %s ----\n' "$tool" "$label"
        cat "$tmp"
        [ "$rc" -eq 124 ] && echo "TIMEOUT after ${limit}s"
        echo "$label: rc=$rc errors=${n:-?} warnings=${w:-0}"
    } >>"$log"
    rm -f "$tmp"
    if [ "$tool" = memcheck ]; then
        SAN_MEM_ERRORS=$((SAN_MEM_ERRORS + ${n:-0}))
    else
        SAN_RACE_ERRORS=$((SAN_RACE_ERRORS + ${n:-0} + ${w:-0}))
    fi
    record "$tool $label" "$rc" "${n:-?} errors, ${w:-0} warnings"
}

if ! part_has 2 && ! part_has 3 && ! part_has 4 && ! part_has 5; then
    : # part 1 alone: no sanitizer runs
elif command -v compute-sanitizer >/dev/null 2>&1; then
    banner "compute-sanitizer (part $PART)"
    # The newest GPU code first: the time budget may cut the list short.
    first="async_copy cluster_smem hierarchy l2_residency book peak"
    order=""
    for n in $first; do order="$order $BUILD/tests/gpu_test_$n"; done
    for t in "$BUILD"/tests/gpu_test_*; do
        case " $first " in *" ${t##*/gpu_test_} "*) ;; *) order="$order $t" ;; esac
    done
    for t in $order; do
        [ -x "$t" ] || continue
        part_has 2 && sanitize memcheck "$LOG_MEMCHECK" "$(basename "$t")" "$t"
        case "${t##*/}" in
            gpu_test_book | gpu_test_peak)
                part_has 4 && SANITIZER_TIMEOUT=260 sanitize racecheck "$LOG_RACECHECK" "$(basename "$t")" "$t" ;;
            *) part_has 3 && sanitize racecheck "$LOG_RACECHECK" "$(basename "$t")" "$t" ;;
        esac
    done
    # >>> SUITE UNDER THE SANITIZERS: every experiment at a small size.
    # memcheck: the full variant lists and the peak measured at DRAM size;
    # racecheck (which instruments every shared-memory access, so each
    # shared-memory kernel runs thousands of times slower): the tour's
    # variant lists (--quick), a given reference peak (--peak) and few rounds
    # and blocks of the shared-banks kernels; its tables go to the log, so a
    # timeout still shows how far it got.
    if [ -x "$BUILD/cumemlab" ] && "$BUILD/cumemlab" suite --help >/dev/null 2>&1; then
        # memcheck of the suite: 73 s on an H200 on 2026-11-27, 249 s on
        # 2026-11-29 with the experiments added since (100 s cut it short).
        part_has 2 && SANITIZER_TIMEOUT=320 sanitize memcheck "$LOG_MEMCHECK" "suite" "$BUILD/cumemlab" suite --size 4M --reps 2 --warmup 1 --quiet
        part_has 5 && SANITIZER_TIMEOUT=540 sanitize racecheck "$LOG_RACECHECK" "suite" "$BUILD/cumemlab" suite --size 64k --reps 1 --warmup 0 --quick --peak 3000 --iters 2 --blocks 8
    else
        echo "(cumemlab suite not available yet: suite not run under the sanitizers)" | tee -a "$LOG_MEMCHECK"
    fi
    # <<< SUITE
    grep -hE "^gpu_test_|^suite|TIMEOUT" "$LOG_MEMCHECK" "$LOG_RACECHECK"
else
    echo "compute-sanitizer not found" | tee "$LOG_MEMCHECK"
    record compute-sanitizer 1 "not found"
fi

THEO=""
part_has 1 && THEO=$(grep -Eo "theoretical [0-9.]+ GB/s" "$LOG_CTEST" | head -1 | grep -Eo "[0-9.]+")

# ---------------------------------------------------------------------------
{
    banner "summary (part $PART)"
    printf '%-44s %s\n' "step" "result"
    for i in "${!STEP_NAMES[@]}"; do
        printf '%-44s %s\n' "${STEP_NAMES[$i]}" "${STEP_RESULTS[$i]}"
    done
    printf '%-44s %s\n' "sanitizer findings" "memcheck $SAN_MEM_ERRORS errors, racecheck $SAN_RACE_ERRORS errors and warnings"
    if part_has 1; then
        printf '%-44s %s\n' "tests" "${T_PASS:-?} passed, ${T_FAIL:-?} failed, ${T_SKIP:-?} skipped"
        printf '%-44s %s\n' "peak bandwidth" "${PEAK:-?} GB/s (theoretical ${THEO:-?} GB/s)"
        [ -s "$JSON_SUITE" ] && printf '%-44s %s\n' "peak by class" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(", ".join("%s %.1f" % (k, v["gbs"]) for k, v in (d.get("peak_classes") or {}).items()))' "$JSON_SUITE")"
        printf '%-44s %s\n' "suite wall time" "${SUITE_S} s with counters, ${SUITE_OFF_S} s with --counters off ($(awk "BEGIN{if (\"$SUITE_OFF_S\" + 0 > 0) printf \"%.2fx\", \"$SUITE_S\" / \"$SUITE_OFF_S\"; else print \"?\"}"))"
        printf '%-44s %s\n' "counters" "$(grep -hE "^cumemlab: counters:" "$LOG_RUN" | head -1 | cut -c21-)"
        printf '%-44s %s\n' "run --expr" "$EXPR_NOTE"
        printf '%-44s %s\n' "suite measurements" "$CV_NOTE"
        printf '%-44s %s\n' "... with --counters off" "$CV_OFF_NOTE"
    fi
    part_has 6 && printf '%-44s %s\n' "validate" "$VALIDATE"
    printf '%-44s %s\n' "script wall time" "$(($(date +%s) - START_S)) s"
    printf '%-44s %s\n' "overall" "$([ $FAILED -ne 0 ] && echo FAIL || { [ $SKIPPED -ne 0 ] && echo "PASS (steps skipped)" || echo PASS; })"
} | tee "$SUMMARY"
exit $FAILED
