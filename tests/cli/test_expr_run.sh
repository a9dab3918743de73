#!/usr/bin/env bash
# Index expressions on the command line: run --expr refuses what it cannot
# run (exit 2, one line naming the expression, the range and the limit)
# before anything is compiled, and without a GPU exits 1 with one line;
# model --expr takes several expressions and prints the generated kernel
# with --show-kernel. (The GPU side: tests/gpu/test_expr_kernels.c.)
set -u
bin=$1
. "$(dirname "$0")/cli_test_util.sh" # $tmp, check, run
has() { grep -qF -- "$1" "$tmp/${2:-out}"; }
lines() { wc -l <"$tmp/${1:-err}"; }

# --- refusals: exit 2, one line, nothing written -----------------------------
refused() { # what, text the line must hold, then the arguments
    local what=$1 says=$2; shift 2
    rm -f "$tmp/refused.json"
    run "$bin" run "$@" --json "$tmp/refused.json"
    check "$what: exit 2" test $rc -eq 2
    check "$what: one line" test "$(lines)" -eq 1
    check "$what: says '$says'" has "$says" err
    check "$what: no output file" test ! -e "$tmp/refused.json"
}
refused "below zero" "--expr 'i - 1' reaches elements -1.." --expr 'i - 1'
refused "division by zero" "division by zero" --expr 'i / (tx - tx)'
refused "past n" "past the 1000 elements of the array (n, --n)" --expr 'i' --n 1000
refused "uses n, reaches n" "reaches elements" --expr 'i + n'
refused "copy source below zero" "--src 'i - 5' reaches elements -5.." --expr i --op copy --src 'i - 5'
refused "constant bank" "constant bank" --expr 'lane*4096' --space constant
refused "load through a store path" "--path wb: a store path" --expr i --path wb
refused "store through a load path" "--path nc: a load path" --expr i --op store --path nc
refused "constant store" "read-only" --expr i --space constant --op store
refused "misaligned base" "--base 2: must be a multiple of --elem 4" --expr i --base 2
refused "--src without --expr" "--src: give the expressions with --expr" --src i
refused "unknown option" "--bogus" --expr i --bogus 1

run "$bin" run --expr '1 +'
check "syntax error: exit 2" test $rc -eq 2
check "syntax error: a caret under the place" has "^" err
args=()
for k in $(seq 17); do args+=(--expr i); done
run "$bin" run "${args[@]}"
check "17 expressions: exit 2" test $rc -eq 2
check "17 expressions: says at most 16" has "at most 16" err

# --- no GPU: exit 1, one line --------------------------------------------------
if "$bin" device >/dev/null 2>&1; then
    echo "SKIP (a GPU is here): the no-GPU checks of run --expr"
else
    run "$bin" run --expr 'i*2'
    check "run --expr without GPU: exit 1" test $rc -eq 1
    check "run --expr without GPU: one line" test "$(lines)" -eq 1
    check "run --expr without GPU: says why" has "run --expr needs a GPU" err
    check "run --expr without GPU: nothing on stdout" test ! -s "$tmp/out"
    # the size limit of the model alone (1 TiB): refused even here
    refused "too big" "more than the 1.0 TiB the model allows" --expr 'i*65536'
    run "$bin" run expr --block 32x8
    check "run expr without GPU: exit 1" test $rc -eq 1
    check "run expr without GPU: one line" test "$(lines)" -eq 1
fi

# --- model --expr --show-kernel ------------------------------------------------
run "$bin" model --expr '(i%32)*33' --show-kernel
check "--show-kernel: exit 0" test $rc -eq 0
check "--show-kernel: a __global__ kernel" has "__global__ void cml_expr_kernel("
check "--show-kernel: the expression, generated" has "const cml_i64 idx = ((i % 32LL) * 33LL);"
check "--show-kernel: never the user's text" sh -c "! grep -qF '(i%32)*33' '$tmp/out'"
check "--show-kernel: no table" sh -c "! grep -q 'sect/req' '$tmp/out'"
run "$bin" model --expr 'i*2' --expr 'tx*32' --space shared --op store --elem 8 --show-kernel
check "--show-kernel, two: exit 0" test $rc -eq 0
check "--show-kernel, two: both" test "$(grep -c '__global__' "$tmp/out")" -eq 2
check "--show-kernel, two: numbered" has "/* expression 2 of 2 */"
check "--show-kernel, shared store: the tile's poison" has "tile[j] = (unsigned long long)~0ull;"
run "$bin" model --expr i --op copy --src 'n - 1 - i' --path cs --show-kernel
check "--show-kernel, copy: the source" has "const cml_i64 s = ((n - 1LL) - i);"
check "--show-kernel, copy: the store path" has "__stcs(&dst[idx], src[s]);"
run "$bin" model --expr i --space local --show-kernel
check "--show-kernel, local: exit 2" test $rc -eq 2
check "--show-kernel, local: one line" test "$(lines)" -eq 1
run "$bin" model --show-kernel
check "--show-kernel without --expr: exit 2" test $rc -eq 2
run "$bin" model --expr i --src i
check "--src without --op copy: exit 2" test $rc -eq 2

# --- model --expr, several ------------------------------------------------------
run "$bin" model --expr 'i*2' --expr '(i%32)*33' --threads 2^16 --json "$tmp/m.json"
check "model, two expressions: exit 0" test $rc -eq 0
check "model, two expressions: two records" test "$(grep -c '"variant"' "$tmp/m.json")" -eq 2
check "model, two expressions: each named" grep -qF '"expr": "(i%32)*33"' "$tmp/m.json"
check "model, two expressions: 8 and 32 sectors per request" sh -c \
    "grep -q ' 8.00 ' '$tmp/out' && grep -q '32.00 ' '$tmp/out'"
run "$bin" model --expr 'i*4' --n 1000 --threads 1024
check "model keeps guarding threads off: exit 0" test $rc -eq 0
check "model keeps guarding threads off: counted" has "left inactive"
# i*4 < 1000 for i < 250: 774 of 1024 threads guarded off, 1000 bytes read
# (each thread once: the cache levels' walk of the grid counts none again)
run "$bin" model --expr 'i*4' --n 1000 --threads 1024 --json "$tmp/g.json"
check "guarded threads: exactly 774" grep -qF '774 thread(s) had an index outside 0..999' "$tmp/g.json"
check "guarded threads: 250 reads of 4 bytes" grep -qF '"bytes_read": 1000,' "$tmp/g.json"
# no period: 2^30 threads from a sample of warps, the sample and the bound stated
run "$bin" model --expr '(i*i)%n' --threads 2^30 --json "$tmp/s.json"
check "sampled: exit 0" test $rc -eq 0
check "sampled: the sample in the table" has "sampled_warps"
check "sampled: the bound in the finding" has "with 99% confidence the grid's sectors"
check "sampled: the sample in the record" sh -c \
    "tr -d ' \\n' <'$tmp/s.json' | grep -qF '\"sample\":{\"warps\":65536,\"of\":33554432'"

# --- model --expr's size follows --where and --size, as run --expr's does -----
threads_of() { # the threads a run of model --expr with these options recorded
    "$bin" model --expr i -q --json "$tmp/s.json" "$@" >/dev/null 2>&1 &&
        sed -n 's/.*"threads": \([0-9]*\).*/\1/p' "$tmp/s.json" | head -n 1
}
check "model --expr: DRAM by default (2^24 threads without a device)" \
    test "$(threads_of)" = 16777216
check "model --expr --where l2: half the 50 MiB L2 of the model's H100 in two arrays" \
    test "$(threads_of --where l2)" = 2097152
check "model --expr --where l1: 16 KiB per array" test "$(threads_of --where l1)" = 4096
check "model --expr --size 4M: a float per thread" test "$(threads_of --size 4M)" = 1048576
check "model --expr: --threads wins" test "$(threads_of --size 4M --threads 1000)" = 1000
check "model --expr, shared: 2^20 whatever the size" \
    test "$(threads_of --size 4M --space shared)" = 1048576
check "model expr: the same threads" sh -c \
    "'$bin' model expr expr=0 --size 4M -q --json '$tmp/x.json' && \
     grep -q '\"threads\": 1048576' '$tmp/x.json'"
run "$bin" model --expr i --size 1T
check "model --expr --size 1T: exit 2" test $rc -eq 2
check "model --expr --size 1T: one line with the range" has "1..1073741824 threads" err

# --- the experiment's own model, and where it is listed ----------------------
run "$bin" model expr --threads 2^16 --json "$tmp/e.json"
check "model expr: exit 0" test $rc -eq 0
check "model expr: the built-in set" has "shared column"
check "model expr: labelled by pattern" grep -qF '"expr": "stride 32"' "$tmp/e.json"
run "$bin" list
check "list names expr" has "Your own access pattern"
run "$bin" help expr
check "help expr: exit 0" test $rc -eq 0
check "help expr: its options" has "--threads"

echo "$checks checks, $fails failed"
test $fails -eq 0
