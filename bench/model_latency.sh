#!/usr/bin/env bash
# How long `model` commands take on ONE core (not a test: timings depend on
# the machine and on what else runs on it).
#
#   bench/model_latency.sh BUILD/cumemlab [LIMIT_S]      (default limit 5)
#
# Runs every case issue 23 found slow (and the model-only tours) pinned to
# CPU 0 with `taskset -c 0`, each the better of two runs, with its output
# discarded (-q), and prints per case the wall time, the CPU time (user +
# sys) and the exit status. On a shared machine the wall time includes
# waiting for CPU 0; the CPU time is what the command itself costs. A case
# over LIMIT_S of CPU time is marked SLOW and makes the script exit 1.
set -u
bin=${1:?usage: model_latency.sh BUILD/cumemlab [LIMIT_S]}
limit=${2:-5}
command -v taskset >/dev/null || { echo "model_latency.sh: needs taskset (util-linux)" >&2; exit 2; }

cases=(
    "model write-offset --block 33 --path wb"
    "model write-offset --block=33"
    "model read-offset --block 33"
    "model --expr i --elem 16 --op copy --threads 2^30"
    "model --expr (i*i)%n --threads 2^30"
    "model --expr i*2 --threads 2^24"
    "model --expr i*2 --threads 2^27"
    "model --expr i+11 --threads 2^30 --block 33"
    "model --expr (i*7919)%n --threads 2^29 --block 100"
    "model expr --threads 2^31"
    "model pitch2d --width=16384 --images=1,65535"
    "model pitch2d --width 16384 --height 16384 --images 65535 --block all --type all --layout all"
    "model transpose --ny=0:131072:1310"
    "model stride --block 33"
    "model read-only --block 33"
    "--model"
    "--size 1T"
)

# Seconds (wall, cpu) of one run; the exit status in $rc.
one() {
    local t0 t1 tf
    tf=$(mktemp)
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086 (the cases are words; globs are quoted below)
    ( set -f; TIMEFORMAT='%U %S'; { time taskset -c 0 "$bin" $1 -q >/dev/null 2>&1; } 2>"$tf" )
    rc=$?
    t1=$(date +%s.%N)
    wall=$(echo "$t1 - $t0" | bc)
    cpu=$(awk '{print $1 + $2}' "$tf")
    rm -f "$tf"
}

printf '%s\n' "command: bench/model_latency.sh $bin $limit"
printf '%s\n' "machine: $(uname -m), $(nproc) CPUs, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"
printf '%s\n' "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
printf '%s\n\n' "each case: taskset -c 0 cumemlab CASE -q, the better of two runs"
printf '%8s %8s %3s  %-6s %s\n' "wall s" "cpu s" "rc" "" "case"
status=0
for c in "${cases[@]}"; do
    best_wall=; best_cpu=; best_rc=
    for run in 1 2; do
        one "$c"
        if [ -z "$best_cpu" ] || [ "$(echo "$cpu < $best_cpu" | bc)" -eq 1 ]; then
            best_wall=$wall; best_cpu=$cpu; best_rc=$rc
        fi
    done
    mark=ok
    if [ "$(echo "$best_cpu >= $limit" | bc)" -eq 1 ]; then
        mark=SLOW
        status=1
    fi
    printf '%8.2f %8.2f %3d  %-6s %s\n' "$best_wall" "$best_cpu" "$best_rc" "$mark" "$c"
done
exit $status
