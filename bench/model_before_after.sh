#!/usr/bin/env bash
# The model's records before and after its shortcuts, field by field (not a
# test: it needs a build of the code before them).
#
#   bench/model_before_after.sh OLD/cumemlab NEW/cumemlab
#
# OLD: a build of the commit before the exact shortcut of repeating grids
# and the samples (0ed7a14: git archive 0ed7a14 | tar -x -C DIR; cmake -S
# DIR -B DIR/build -DCUMEMLAB_CUDA=OFF; cmake --build DIR/build --target
# cumemlab). Each case runs `model ... --json` with both, at sizes where the
# old walk of every block finishes, and bench/compare_model_json.py compares
# every field of every record: the model under both rule sets, the cache
# levels, parameters, bytes, extras, findings. A record the new model
# sampled is checked against its stated bound instead. Exits 1 if a case
# differs where it must not.
set -u
old=${1:?usage: model_before_after.sh OLD/cumemlab NEW/cumemlab}
new=${2:?usage: model_before_after.sh OLD/cumemlab NEW/cumemlab}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case | fields allowed to differ (and why, printed)
cases=(
    "model write-offset --block 33 --path wb|"
    "model write-offset --block=33 --n 2^20|"
    "model read-offset --block 33 --n 2^20|"
    "model aos-soa --block 33 --n 2^20|"
    "model unroll --block 100 --n 2^20|"
    "model parallelism --block 33,100,1000 --n 2^20|"
    "model stride --block 33|"
    "model read-only --block 33|"
    "model pitch2d --width=16384 --images=1,65535|"
    "model transpose --nx=777 --ny=555|model_blocks_traced"
    "model transpose --ny=1310,2620,3930|model_blocks_traced"
    "model expr --threads 2^24|"
    "model --expr i --elem 16 --op copy --threads 2^22|"
    "model --expr (i*i)%n --threads 2^22|"
    "model --expr i+11 --threads 1000000 --block 33|"
    "model --expr (i%32)*33 --threads 2^20 --block 33|"
    "model --expr i*3+7 --threads 50000 --n 40000 --elem 8|inactive bytes_read finding"
    "model --expr i*4 --op copy --src i+5 --threads 100001 --n 200000 --block 48|inactive bytes_read bytes_written finding"
    "model --expr tx*33 --space shared --threads 2^16 --block 32x8|"
    "model --expr i --space local --elem 8 --threads 2^16 --block 40|"
    "--model|"
)

status=0
k=0
for c in "${cases[@]}"; do
    args=${c%%|*}
    allow=${c#*|}
    k=$((k + 1))
    # shellcheck disable=SC2086 (the arguments are words; no globbing)
    ( set -f; "$old" $args -q --json "$tmp/old$k.json" >/dev/null 2>&1 )
    ( set -f; "$new" $args -q --json "$tmp/new$k.json" >/dev/null 2>&1 )
    echo "== cumemlab $args"
    # shellcheck disable=SC2086
    out=$(python3 "$here/compare_model_json.py" "$tmp/old$k.json" "$tmp/new$k.json" \
        ${allow:+--allow $allow})
    rc=$?
    printf '%s\n' "$out" | sed -e "s|$tmp/||g"
    [ $rc -eq 0 ] || status=1
    if [ -n "$allow" ]; then
        echo "   allowed: $allow"
    fi
done
exit $status
