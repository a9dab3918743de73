#!/usr/bin/env bash
# Fleet runs through MPI (src/cli/fleet_mpi.c, docs/fleet-mpi.md), with
# Open MPI's mpirun and no GPU (the CI's machine):
#   - three ranks of the model-only tour make one fleet file: every rank in
#     order with its host and results, each rank's records those of the
#     same command run plainly, and `report` reads each rank's results;
#   - a rank whose options are refused (MPMD: its own command line) is a
#     diagnostic of the fleet file, its usage line, beside the others'
#     results, and mpirun's status says it failed;
#   - `run` where there is no GPU: each rank exits 1 and says why, no hang;
#   - a rank's command killed by a signal from outside (SIGKILL, found as
#     the child its rank forked) is "killed by signal 9" in the file;
#   - without --json the table alone; --json - puts the file on standard
#     output and the table on standard error; a command with no results
#     (list) has its output forwarded, each line prefixed by its rank.
# Built without MPI, a rank that a launcher's environment describes runs
# alone and only rank 0 writes output files (checked with that environment
# made up, there being no MPI to launch with); then the rest is skipped.
# Skipped (exit 77, saying why) without mpirun or where it cannot start.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_test_util.sh" # $tmp, check, run
cd "$tmp" || exit 1

# --- built without MPI ---------------------------------------------------------
if [ "${CML_EXPECT_MPI:-1}" != 1 ]; then
    run env OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_LOCAL_RANK=1 \
        "$bin" model read-offset --offset 11 --json r1.json
    check "no MPI, rank 1: exit 0" test $rc -eq 0
    check "no MPI, rank 1: no output file" test ! -e r1.json
    check "no MPI, rank 1: says it writes none" grep -q "rank 1 writes no output file" err
    run env OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_LOCAL_RANK=0 \
        "$bin" model read-offset --offset 11 --json r0.json
    check "no MPI, rank 0: exit 0" test $rc -eq 0
    check "no MPI, rank 0: says once that it was built without MPI" \
        test "$(grep -c "cumemlab was built without MPI" err)" -eq 1
    check "no MPI, rank 0: writes its results, not a fleet file" \
        grep -q '"schema": "cumemlab-results"' r0.json
    echo "test_fleet_mpi: $checks checks, $fails failed"
    [ "$fails" -eq 0 ] || exit 1
    echo "SKIP: cumemlab was built without MPI (-DCUMEMLAB_MPI=OFF or no MPI found;" \
        "Debian: libopenmpi-dev openmpi-bin, scripts/install-deps.sh)"
    exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: no mpirun (Debian: openmpi-bin, scripts/install-deps.sh)"
    exit 77
fi
# CI runs as root, which Open MPI refuses unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ! timeout 60 mpirun --oversubscribe -np 1 true >mpi.log 2>&1; then
    echo "SKIP: mpirun cannot start a process here: $(tail -n 3 mpi.log | tr '\n' ' ')"
    exit 77
fi
# A hang guard, not a speed target: three ranks of the model's tour on two
# cores under ASan took over 120 s once the span passes (src/model/cache_span.c)
# made the tour 1.3x slower, and the whole test 296-300 s (CI, 2026-11-28)
# once span_worth (src/model/cache_bounds.c) gave 7 of the tour's grids the
# wider pass (1.6 s of the plain build's 7.5 s tour).
mpi() { timeout 600 mpirun --oversubscribe "$@"; }
# The ranks' private folders go here, to be found if one is left behind.
export TMPDIR=$tmp/ranks-tmp
mkdir "$TMPDIR"

# py SCRIPT ARGS...: a check written in Python on the fleet file; it prints
# what is wrong and exits 1.
py() { python3 -c "$@"; }

# --- three ranks of the model's tour --------------------------------------------
run "$bin" --model --quiet --json plain.json
check "plain tour: exit 0" test $rc -eq 0
run mpi -np 3 "$bin" --model --quiet --json fleet.json
check "fleet of 3: exit 0" test $rc -eq 0
check "fleet of 3: the file, every rank with the plain run's records" py '
import json, socket, sys
f = json.load(open("fleet.json"))
plain = json.load(open("plain.json"))
bad = []
def want(cond, what):
    if not cond: bad.append(what)
want(f["schema"] == "cumemlab-fleet" and f["schema_version"] == 1, "schema")
want(f["launcher"] == "openmpi", "launcher %r" % f["launcher"])
want(f["ranks_total"] == 3 and len(f["ranks"]) == 3, "3 ranks")
want(f["command_line"].endswith(" --model --quiet --json fleet.json"), "command_line")
for i, r in enumerate(f["ranks"]):
    want(r["rank"] == i and r["local_rank"] == i, "rank %d in order" % i)
    want(r["host"] == socket.gethostname(), "rank %d host %r" % (i, r["host"]))
    want(r["exit_status"] == 0 and r["diagnostic"] is None, "rank %d exit" % i)
    want(r["gpu"] is None, "rank %d: no GPU" % i)
    res = r["results"]
    want(res["schema"] == "cumemlab-results" and res["model_only"], "rank %d results" % i)
    want(res["records"] == plain["records"], "rank %d records differ from the plain run" % i)
    want(len(res["records"]) > 100, "rank %d: the tour records" % i)
    json.dump(res, open("rank%d.json" % i, "w"))
print("\n".join(bad)); sys.exit(1 if bad else 0)'
check "fleet of 3: the table, a line per rank" \
    test "$(grep -cE "^ +[0-2] +$(hostname) " out)" -eq 3
run "$bin" report rank2.json --quiet --json rank2-again.json
check "report reads a rank's results: exit 0" test $rc -eq 0
check "report reads a rank's results: the same records" py '
import json, sys
a = json.load(open("rank2.json"))["records"]; b = json.load(open("rank2-again.json"))["records"]
sys.exit(0 if a == b else 1)'

# --- a rank whose options are refused --------------------------------------------
run "$bin" model read-offset --offset 99999999 --json usage.json
check "plain usage error: exit 2" test $rc -eq 2
usage=$(tail -n 1 err)
usage=${usage#cumemlab: }
run mpi -np 2 "$bin" model read-offset --offset 11 --json mpmd.json : \
    -np 1 "$bin" model read-offset --offset 99999999 --json mpmd.json
check "MPMD with a refused rank: mpirun's status is not 0" test $rc -ne 0
export USAGE="$usage"
check "MPMD with a refused rank: its usage line, the others' results" py '
import json, os, sys
f = json.load(open("mpmd.json"))
r = f["ranks"]
ok = (f["ranks_total"] == 3 and [x["rank"] for x in r] == [0, 1, 2]
      and all(x["exit_status"] == 0 and x["results"]["schema"] == "cumemlab-results"
              and len(x["results"]["records"]) == 3 for x in r[:2])
      and r[2]["exit_status"] == 2 and r[2]["results"] is None
      and r[2]["diagnostic"] == os.environ["USAGE"])
print(json.dumps(r[2]["diagnostic"])); sys.exit(0 if ok else 1)'
check "MPMD with a refused rank: its line forwarded with its rank" \
    grep -qF "[rank 2 $(hostname)] cumemlab: $usage" err
check "MPMD with a refused rank: no temporary file left beside the fleet file" \
    test "$(ls -a | grep -c '^\.mpmd\|mpmd.json.')" -eq 0

# --- run without a GPU -------------------------------------------------------------
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "(run without a GPU: not checked, this machine has one)"
else
    run "$bin" run read-offset --offset 11
    nogpu=$(tail -n 1 err)
    nogpu=${nogpu#cumemlab: }
    run mpi -np 2 "$bin" run read-offset --offset 11 --json nogpu.json
    check "run without a GPU: mpirun's status 1" test $rc -eq 1
    export WHY="$nogpu"
    check "run without a GPU: each rank exits 1, saying why" py '
import json, os, sys
r = json.load(open("nogpu.json"))["ranks"]
ok = len(r) == 2 and all(x["exit_status"] == 1 and x["diagnostic"] == os.environ["WHY"]
                         and x["gpu"] is None for x in r)
print(os.environ["WHY"]); sys.exit(0 if ok and "needs a GPU" in os.environ["WHY"] else 1)'
fi

# --- a rank's command killed by a signal ---------------------------------------------
# Rank 0's command is `report -`, which reads its results from standard
# input: mpirun gives rank 0 its own, a FIFO this test holds open and never
# writes, so the command waits until it is killed. It is found as the
# process whose parent has the same command line (the rank forks without
# exec), and killed with SIGKILL, as the kernel's OOM killer would.
mkfifo stdin.fifo
exec 3<>stdin.fifo
mpi -np 1 "$bin" report - --json killed.json : -np 1 "$bin" model read-offset --offset 11 \
    --json killed.json <stdin.fifo >killed.out 2>killed.err &
launcher=$!
child=""
for _ in $(seq 1 200); do
    for p in $(pgrep -f -- "$bin report - --json killed.json" || true); do
        pp=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)
        if [ -n "$pp" ] && cmp -s "/proc/$p/cmdline" "/proc/$pp/cmdline"; then
            child=$p
        fi
    done
    [ -n "$child" ] && break
    sleep 0.1
done
check "killed rank: its command's process found" test -n "$child"
[ -n "$child" ] && kill -KILL "$child"
wait $launcher
rc=$?
exec 3>&-
check "killed rank: mpirun's status is not 0" test $rc -ne 0
check "killed rank: killed by signal 9, the other rank's results" py '
import json, sys
r = json.load(open("killed.json"))["ranks"]
ok = (r[0]["exit_status"] == 128 + 9 and r[0]["results"] is None
      and r[0]["diagnostic"].startswith("killed by signal 9 (")
      and r[1]["exit_status"] == 0 and r[1]["results"]["schema"] == "cumemlab-results")
print(r[0]["diagnostic"]); sys.exit(0 if ok else 1)'

# --- the outputs ---------------------------------------------------------------------
run mpi -np 2 "$bin" model read-offset --offset 11
check "no --json: exit 0, the table" grep -q "^Fleet of 2 ranks (openmpi): 2 ran without error" out
before=$(ls)
run mpi -np 2 "$bin" model read-offset --offset 11 --quiet
check "no --json: no file written" test "$(ls)" = "$before"
run mpi -np 2 "$bin" model read-offset --offset 11 --json -
check "--json -: the fleet file on standard output" py '
import json, sys
f = json.load(open("out")); sys.exit(0 if f["ranks_total"] == 2 else 1)'
check "--json -: the table on standard error" grep -q "^Fleet of 2 ranks" err
# (mpirun merges the ranks' streams in pieces, not lines: each rank's own
# output is checked in the file --output-filename keeps of it.)
"$bin" list >list.plain
run mpi --output-filename list-out -np 2 "$bin" list
for r in 0 1; do
    sed -n "s/^\[rank $r $(hostname)\] //p" list-out/1/rank.$r/stdout >list.$r
    check "list: rank $r's listing forwarded whole, each line prefixed" cmp -s list.plain list.$r
done
run mpi -np 2 "$bin" model read-offset --offset 11 --csv x.csv --json csv.json
check "--csv in a fleet: not written, and said once" \
    test ! -e x.csv -a "$(grep -c "a fleet run writes one file" err)" -eq 1


check "no rank left its private folder behind" test -z "$(ls "$TMPDIR")"

echo "test_fleet_mpi: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
