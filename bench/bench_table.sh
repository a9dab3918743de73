#!/usr/bin/env bash
# How long `cumemlab report` takes to lay out the terminal table of a big
# results file (not a test: timings depend on the machine).
#
#   bench/bench_table.sh BUILD/cumemlab [RECORDS...]     (default: 25000 50000 100000)
#
# For each size it writes a results file of that many read-offset records
# (copies of the model's read-offset record, written by `cumemlab model
# read-offset --json`, each with its own offset, variant and finding: the
# worst case for a layout
# that compares records pairwise), then times
#   cumemlab report FILE --quiet      reading and checking the file alone
#   cumemlab report FILE >/dev/null   the same plus the table
# (each the better of two runs) and prints both, their difference (the
# table), and the peak memory (of the whole report: mostly the reader's). The
# table used to grow with the square of the records (12,000: 0.9 s, 24,000:
# 3.8 s); it is linear now. Exits 1 if a table of 100,000 records or fewer
# takes 5 s or more. (The reader streams: its peak memory is the records it
# made, about twice the file; tests/report_memory.c checks that bound.)
set -eu
bin=${1:?usage: bench_table.sh BUILD/cumemlab [RECORDS...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(25000 50000 100000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture="$tmp/one.json"
"$bin" model read-offset --offset 0 --path ca --quiet --json "$fixture" || {
    echo "bench_table: $bin model read-offset --json failed" >&2
    exit 2
}

# Seconds of one command, its output discarded: the better of two runs (the
# machine may be busy); its peak memory (KiB) is left in $tmp/rss.
measure() {
    local best="" start end s k
    for k in 1 2; do
        start=$(date +%s.%N)
        if [ -x /usr/bin/time ]; then
            /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/err"
        else
            echo 0 >"$tmp/rss"
            "$@" >/dev/null 2>"$tmp/err"
        fi || {
            echo "bench_table: failed: $*" >&2
            cat "$tmp/err" >&2
            exit 2
        }
        end=$(date +%s.%N)
        s=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
        if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$s; fi
    done
    echo "$best"
}

status=0
printf '%8s %9s %10s %10s %9s %10s\n' records "file MB" "read s" "+table s" "table s" "peak MiB"
for n in "${sizes[@]}"; do
    python3 - "$fixture" "$n" "$tmp/big.json" <<'EOF'
import json, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = json.load(open(src))
tmpl = next(r for r in d["records"] if r["experiment"] == "read-offset")
recs = []
for i in range(n):
    r = json.loads(json.dumps(tmpl))
    r["params"]["offset"] = i
    r["variant"] = "offset=%d path=ca block=512" % i
    r["finding"] = "Finding number %d, distinct from every other." % i
    recs.append(r)
d["records"] = recs
with open(out, "w") as f:
    json.dump(d, f, indent=2)
EOF
    mb=$(awk -v b="$(stat -c %s "$tmp/big.json")" 'BEGIN { printf "%.0f", b / 1e6 }')
    read_s=$(measure "$bin" report "$tmp/big.json" --quiet)
    all_s=$(measure "$bin" report "$tmp/big.json")
    rss=$(awk '{ printf "%.0f", $1 / 1024 }' "$tmp/rss")
    table_s=$(awk -v a="$all_s" -v r="$read_s" 'BEGIN { d = a - r; printf "%.2f", d < 0 ? 0 : d }')
    printf '%8d %9s %10s %10s %9s %10s\n' "$n" "$mb" "$read_s" "$all_s" "$table_s" "$rss"
    if [ "$n" -le 100000 ] && awk -v t="$table_s" 'BEGIN { exit !(t >= 5) }'; then
        echo "bench_table: the table of $n records took $table_s s (limit 5 s)" >&2
        status=1
    fi
done
exit $status
