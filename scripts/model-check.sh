#!/usr/bin/env bash
# The model's JSON over a fixed set of settings, to show that a change to
# the kernels' C side (a mirror rewritten, a body shared with the .cu file)
# leaves every prediction as it was.
#
#   scripts/model-check.sh save DIR [BINARY]     write DIR/NAME--SETTINGS.json
#   scripts/model-check.sh compare OLD NEW       identical / differing per case
#
# BINARY defaults to build/cumemlab. Typical use: save from main's build into
# build-modelcheck/main, change the code, save into build-modelcheck/new,
# compare. The cases are each experiment's defaults and settings chosen to
# reach guards, partial warps and odd sizes (CASES below); experiments that
# fail in model mode (they need a GPU) still leave their error text, which
# is compared too.
set -u

# One case a line: experiment, then its options (none: the defaults).
CASES=$(cat <<'EOF'
read-offset
read-offset --offset 0,1,7,31,33,127 --block 96 --n 100003
read-offset --offset 5 --path cg,nc --block 1000 --n 4099
write-offset
write-offset --offset 0,1,7,31,33,127 --block 96 --n 100003
write-offset --offset 5 --path cg,cs --block 1000 --n 4099
aos-soa
aos-soa --touched 1,3,5 --fields 5,7,16 --block 96 --n 10007
aos-soa --touched 16 --fields 16 --block 1000 --n 3001
unroll
unroll --offset 0,3,11 --block 96 --n 100003
unroll --offset 1 --unroll 4 --width 16 --block 1000 --n 9999
parallelism
parallelism --block 32,96,1000 --n 100003
stride
stride --stride 1,3,33,1024 --block 96 --n 100003
stride --pattern gather,scatter --window 32,64,0 --block 1000 --n 100003
stride --pattern broadcast --block 33 --n 5000
read-only
read-only --table 128,4k --block 96 --n 100003
read-only --pattern stencil,copy --block 1000 --n 9
pitch2d
pitch2d --block 8x32,256x1,16x8 --type u16,f64 --width 33 --height 7 --images 3
pitch2d --block 32x32,128x2 --layout pitch,pad128 --width 1 --height 1
local
local --K 8,33,256 --index 0,7,255 --block 32,1024 --n 4096
local --pattern lane-varying --K 9 --index 3 --block 64 --n 100
local --pattern struct,spill --K 130 --index 129 --block 1024 --n 1500
constant
constant --k 3,31 --stride 2,526 --block 32,1024 --n 10007
constant --pattern stencil --coef constant,readonly,global --block 64 --residency one --n 999
shuffle
shuffle --arg 0,5,31 --width 2,4,16 --block 32,1024 --n 100003
shuffle --op reduce-smem,warp-reduce-shfl --block 64 --n 31
shared-banks
shared-banks --pattern tile --alloc dynamic --pad 0,3,32 --tile 16x32 --blocks 3 --iters 2
shared-banks --pattern stride --stride 1,2,31,64 --wstride 3,32 --elem 4,8,16 --blocks 7 --iters 5
transfers
device-vars
transpose
transpose --kernel all --block 32x16,16x16 --nx 1000 --ny 333
transpose --kernel all --block 32x32 --nx 33 --ny 4097 --residency one
hierarchy
hierarchy --op read --path ca,cg,nc --ws 16K,17K,31K,1000K,60M,102401K
hierarchy --op read --path nc --ws 17K,60M --walk 1M
hierarchy --op write --ws 16K,17K,4M,61M,102401K
hierarchy --op copy --ws 32K,34K,66K,62M,130M --walk 3M
hierarchy --op chase --pattern random,stride --path ca,cg,nc --hop 8,64,128 --ws 1K,3K,64K,1M --hops 16,1024
hierarchy --op chase --ws 100M,2G --tlb-reach 1G --hops 0
l2-residency
l2-residency --hot 10,333 --stream 1537024
async-copy
async-copy --workload transpose --method all --width 4,8,16 --stages 1,3 --n 100000
async-copy --workload reduce --method all --width 4,8 --stages 2 --resident 0,3 --n 50000
cluster-smem
cluster-smem --cluster 1,3,16 --smem 4,128 --passes 3 --steps 7
peak-bandwidth
peak-bandwidth --shape all --kernel copy,sum,fill --block 32,96 --size 4100,40012
peak-bandwidth --shape all --kernel scale,add,triad --block 1024,160 --size 16,1028,123460
peak-bandwidth --shape all --kernel sum,triad --block 64 --size 4101,1000004
peak-bandwidth --shape gs-v16-u8,os-v16-u8,gs-v4-u4,os-v8-u1,gs-v16-u4-cs --kernel all --block 32 --size 16777228,20000004
expr
expr --elem 1,16 --threads 5000 --bdx 96 --base 16
expr --path cg,cs --elem 8 --threads 70000
EOF
)

slug() { printf '%s' "$*" | tr -c 'A-Za-z0-9,=.-' '_'; }

case "${1:-}" in
save)
    dir=${2:?usage: model-check.sh save DIR [BINARY]}
    bin=${3:-build/cumemlab}
    mkdir -p "$dir"
    # The results record the command line, argv[0] included: the binary
    # runs through one fixed path, so that two builds (build-before/, build/)
    # compare equal where only their folders differ.
    run=build-modelcheck/.run
    mkdir -p "$run"
    ln -sfn "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$run/cumemlab"
    while read -r line; do
        [ -n "$line" ] || continue
        # shellcheck disable=SC2086 # the options split on purpose
        "$run/cumemlab" model $line --json - >"$dir/$(slug "$line").json" 2>"$dir/$(slug "$line").err"
        echo "rc=$?" >>"$dir/$(slug "$line").err"
    done <<<"$CASES"
    ;;
compare)
    old=${2:?usage: model-check.sh compare OLD NEW}
    new=${3:?usage: model-check.sh compare OLD NEW}
    same=0 differ=0
    while read -r line; do
        [ -n "$line" ] || continue
        s=$(slug "$line")
        if cmp -s "$old/$s.json" "$new/$s.json" && cmp -s "$old/$s.err" "$new/$s.err"; then
            printf 'identical  %s\n' "$line"
            same=$((same + 1))
        else
            printf 'DIFFERENT  %s\n' "$line"
            differ=$((differ + 1))
        fi
    done <<<"$CASES"
    printf '%d identical, %d different\n' "$same" "$differ"
    [ "$differ" -eq 0 ]
    ;;
*)
    sed -n '2,14p' "$0"
    exit 2
    ;;
esac
