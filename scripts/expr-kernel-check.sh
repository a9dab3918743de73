#!/usr/bin/env bash
# The CUDA C that `cumemlab model --expr EXPR --show-kernel` prints (the
# source run --expr compiles with NVRTC), from two binaries, for every
# combination of --op, --space, --path, --elem and --src over a few
# expressions: identical text is an identical kernel, so a change to the
# generator (src/model/expr_codegen.c, src/model/expr_plan.c) that should
# leave the kernels alone shows here that it did. Refused combinations are
# compared too (their message and exit status).
#
#   scripts/expr-kernel-check.sh OLD_BINARY [NEW_BINARY]
#
# NEW_BINARY defaults to build/cumemlab. Exit 0 when every case is
# identical, 1 otherwise (each differing case named, with its diff).
set -u
old=${1:?usage: expr-kernel-check.sh OLD_BINARY [NEW_BINARY]}
new=${2:-build/cumemlab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Expressions that reach every part of the text the expression decides
# (each operator, helper, variable, a negative and a large constant).
EXPRS=(
    'i'
    '(i%32)*33 + 7'
    'min(max(i - 3, 0), n - 1) >> 1'
    'tx + ty*bdx + (bx << 2) ^ (by | 5) & ~lane'
    'i / 3 % -4 - 9223372036854775807 - 1 + gdx * bdy + gdy'
)
# --src: none, or one; and two --expr at once (the text numbers them).
SRCS=('' 'n - 1 - i')

same=0 differ=0
case_no=0
run_case() {
    local bin=$1 dir=$2
    shift 2
    "$bin" model "$@" --show-kernel >"$dir/out" 2>"$dir/err"
    echo "rc=$?" >>"$dir/err"
}
mkdir -p "$tmp/old" "$tmp/new"
for op in load store copy; do
    for space in global shared constant local; do
        for path in auto ca cg nc cs wb; do
            for elem in 1 2 4 8 16; do
                for src in "${SRCS[@]}"; do
                    for e in "${!EXPRS[@]}"; do
                        args=(--expr "${EXPRS[$e]}")
                        # the last expression also with a second one beside it
                        [ "$e" -eq $((${#EXPRS[@]} - 1)) ] && args+=(--expr "${EXPRS[0]}")
                        args+=(--op "$op" --space "$space" --path "$path" --elem "$elem")
                        [ -n "$src" ] && args+=(--src "$src")
                        case_no=$((case_no + 1))
                        run_case "$old" "$tmp/old" "${args[@]}"
                        run_case "$new" "$tmp/new" "${args[@]}"
                        if cmp -s "$tmp/old/out" "$tmp/new/out" &&
                            cmp -s "$tmp/old/err" "$tmp/new/err"; then
                            same=$((same + 1))
                        else
                            differ=$((differ + 1))
                            printf 'DIFFERENT  %s\n' "${args[*]}"
                            diff "$tmp/old/out" "$tmp/new/out" | head -20
                            diff "$tmp/old/err" "$tmp/new/err" | head -5
                        fi
                        # how many produced a kernel (the rest are refusals)
                        [ -s "$tmp/new/out" ] && echo x >>"$tmp/kernels"
                    done
                done
            done
        done
    done
done
kernels=$(wc -l <"$tmp/kernels" 2>/dev/null || echo 0)
printf '%d cases (%d printed a kernel, the others a refusal): %d identical, %d different\n' \
    "$case_no" "$kernels" "$same" "$differ"
[ "$differ" -eq 0 ]
