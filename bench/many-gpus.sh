#!/usr/bin/env bash
# Many GPUs in one call (a host with two or more GPUs and mpirun):
#   1. build (Release, sm_$ARCH, MPI where found) and the peer test, also
#      under compute-sanitizer memcheck; the hierarchy test on every GPU
#      (its chase runs a warp on every SM: the fleet compares its latency);
#   2. cumemlab run peer beside nvbandwidth's device-to-device tests
#      (bench/peer-nvbandwidth.sh; NVBANDWIDTH names its binary);
#   3. cumemlab device --all;
#   4. mpirun -np N cumemlab suite --json: the fleet of this host's GPUs on
#      healthy cards, then again while a background copy loop keeps the last
#      GPU busy (nvbandwidth's device_local_copy on that GPU alone; clocks and
#      settings untouched), each followed by report on the fleet file.
# Writes into OUT at most 8 files: summary.txt (every step's outcome, printed
# last), peer-compare.txt, peer.json.gz, device-all.txt, fleet-healthy.txt,
# fleet-busy.txt (the rank tables and the comparisons), fleet-reports.tgz
# (report's JSON and CSV of both fleets, the device --all JSON) and
# logs.tgz (the rest).
#
#   OUT=DIR NVBANDWIDTH=path ARCH=90 bench/many-gpus.sh   (SKIP_PEER=1: not step 2)
set -u
OUT=${OUT:?set OUT}
ARCH=${ARCH:-90}
NVB=${NVBANDWIDTH:-}
BUILD=build-gpu
mkdir -p "$OUT"
logs=$(mktemp -d)
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
step() { # step NAME RC
    if [ "$2" -eq 0 ]; then say "ok      $1"; else say "FAILED  $1 (rc $2)"; fi
}
start=$(date +%s)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
say "many-gpus: $(date -u '+%Y-%m-%d %H:%M UTC'), $ngpu GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ' | tr '\n' ';')"

cmake -S . -B "$BUILD" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DCMAKE_BUILD_TYPE=Release \
    >"$logs/build.log" 2>&1 && cmake --build "$BUILD" -j "$(nproc)" >>"$logs/build.log" 2>&1
rc=$?
step "build ($(grep -o 'CUMEMLAB_MPI:BOOL=[A-Z]*' "$BUILD/CMakeCache.txt"))" $rc
[ $rc -eq 0 ] || { tail -30 "$logs/build.log"; exit 1; }
bin=$BUILD/cumemlab

# (each status kept before the line that reports it runs other commands)
timeout 180 "$BUILD/tests/gpu_test_peer" >"$logs/gpu_test_peer.txt" 2>&1
rc=$?
step "gpu_test_peer: $(grep -E 'checks (passed|failed)' "$logs/gpu_test_peer.txt" | tail -1)" $rc
CML_QUICK_TEST=1 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$BUILD/tests/gpu_test_peer" >"$logs/memcheck-peer.txt" 2>&1
rc=$?
step "memcheck gpu_test_peer: $(grep 'ERROR SUMMARY' "$logs/memcheck-peer.txt")" $rc
for ((d = 0; d < ngpu; d++)); do
    CUDA_VISIBLE_DEVICES=$d timeout 180 "$BUILD/tests/gpu_test_hierarchy" \
        >"$logs/gpu_test_hierarchy-$d.txt" 2>&1
    rc=$?
    step "gpu_test_hierarchy on GPU $d: $(grep -E 'checks (passed|failed)' "$logs/gpu_test_hierarchy-$d.txt" | tail -1)" $rc
done

if [ -n "$NVB" ] && [ -z "${SKIP_PEER:-}" ]; then
    OUT=$logs/peer NVBANDWIDTH=$NVB timeout 400 bash bench/peer-nvbandwidth.sh "$bin" \
        >"$logs/peer-run.txt" 2>&1
    rc=$?
    cp "$logs/peer/compare.txt" "$OUT/peer-compare.txt" 2>/dev/null
    cp "$logs/peer/peer.json.gz" "$OUT/peer.json.gz" 2>/dev/null
    step "peer beside nvbandwidth: $(tail -1 "$OUT/peer-compare.txt" 2>/dev/null)" $rc
fi

"$bin" device --all --json "$logs/device-all.json" >"$OUT/device-all.txt" 2>&1
step "device --all" $?

# The fleet: as root, Open MPI asks to be told so.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fleet() { # fleet NAME: mpirun the suite on every GPU, then report on it
    local name=$1
    timeout 420 mpirun -np "$ngpu" "$bin" suite --json "$logs/fleet-$name.json" \
        >"$OUT/fleet-$name.txt" 2>"$logs/fleet-$name.err"
    local rc=$?
    step "mpirun -np $ngpu suite ($name)" $rc
    # rank 0 printed the comparison; report writes it as data too
    "$bin" report "$logs/fleet-$name.json" --json "$logs/fleet-$name-report.json" \
        --csv "$logs/fleet-$name-report.csv" -q 2>>"$logs/fleet-$name.err"
    rc=$?
    step "report on the $name fleet: $(grep -m1 -E '^[0-9]+ outliers?:|^No outlier' "$OUT/fleet-$name.txt")" $rc
}
fleet healthy
if [ -n "$NVB" ] && [ "$ngpu" -ge 2 ]; then
    busy=$((ngpu - 1))
    CUDA_VISIBLE_DEVICES=$busy "$NVB" -t device_local_copy -i 100000 >"$logs/busy.txt" 2>&1 &
    loop=$!
    sleep 3
    say "background copy loop on GPU $busy: pid $loop ($(nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader | tr '\n' ';'))"
    fleet busy
    kill "$loop" 2>/dev/null
    wait "$loop" 2>/dev/null
fi
tar -czf "$OUT/fleet-reports.tgz" -C "$logs" $(cd "$logs" && ls fleet-*-report.* device-all.json 2>/dev/null)
gzip -9n "$logs"/fleet-*.json 2>/dev/null
tar -czf "$OUT/logs.tgz" -C "$logs" .
say "many-gpus: $(($(date +%s) - start)) s"
cat "$summary" >/dev/null
