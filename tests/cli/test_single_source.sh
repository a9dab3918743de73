#!/usr/bin/env bash
# One source per kernel (src/gpu/kernel_body.h): an experiment whose kernel
# bodies are in a header NAME_body.h has its kernels and its model mirror
# compiled from that header, so none of its C files may call cml_emit itself
# (a hand-written mirror beside the body would drift from the kernel again,
# and only a GPU would show it), and no comment may still ask to keep a
# kernel and its mirror "in step" by hand.
#
# A kernel generated at run time (expr) has one source of another kind, its
# plan (src/model/expr_plan.h): checked at the end.
#
# The experiments not converted yet are listed (UNCONVERTED, by the C file
# that emits); a file that emits and is not listed fails (a new hand-written
# mirror), and so does a listed file that no longer emits (tighten the list).
# Every experiment is converted now: the list is empty, and stays so.
# The binary argument of the CLI tests is not used: this checks the sources.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exp="$here/../../src/experiments"
lab="$here/../../src/lab"
. "$here/cli_test_util.sh" # $tmp, check

UNCONVERTED=""

# The experiments' files, wherever they sit under src/experiments, and the
# engine's (src/lab): the peak kernels are the engine's, their bodies in
# lab/peak_body.h, their mirror in experiments/peak/peak_model.c.
find "$exp" "$lab" -type f \( -name '*.c' -o -name '*.cu' -o -name '*.h' \) | sort >"$tmp/files"
bodies=$(grep '_body\.h$' "$tmp/files" | sed 's|.*/||; s|_body\.h$||' | sort)
check "there are kernel body headers" test -n "$bodies"
echo "kernel body headers: $(echo $bodies | sed 's/\([a-z0-9_]*\)/\1_body.h/g')"

# The experiment a file belongs to: the body NAME it starts with (NAME.c,
# NAME.cu, NAME_kernels.h, NAME_zerocopy.c, ...), else nothing.
converted_name() {
    local base=$1 b
    for b in $bodies; do
        case $base in "$b".* | "$b"_*) echo "$b"; return ;; esac
    done
}

# Functions of a C file with cml_emit in their bodies (top-level functions:
# the file's style puts their braces in column 0).
emitting_functions() {
    awk '/^[A-Za-z].*\(/ && !/;[ \t]*$/ { fn = $0; sub(/\(.*/, "", fn); sub(/.* \**/, "", fn) }
         /^}/ { fn = "" }
         fn != "" && /cml_emit\(/ { print fn; fn = "" }' "$1" | sort -u | tr '\n' ' '
}

# A comment's lines joined, so that "keep them in\n * step" is found too.
joined() { tr '\n' ' ' <"$1" | sed 's/[[:space:]]\*[[:space:]]/ /g; s/[[:space:]]\+/ /g'; }

remaining=""
while read -r f; do
    base=${f##*/}
    name=$(converted_name "$base")
    if [ -n "$name" ]; then
        check "$base ($name has ${name}_body.h): no cml_emit of its own" \
            test -z "$(grep -n 'cml_emit(' "$f")"
        check "$base ($name has ${name}_body.h): no 'keep in step' comment" \
            test -z "$(joined "$f" | grep -io 'keep \(them \)\{0,1\}in step')"
        continue
    fi
    case $base in *.c) ;; *) continue ;; esac
    grep -q 'cml_emit(' "$f" || continue
    remaining="$remaining $base"
    echo "unconverted: $base emits in: $(emitting_functions "$f")"
    check "$base: a hand-written mirror only where UNCONVERTED lists it (else write NAME_body.h)" \
        grep -qw "$base" <<<"$UNCONVERTED"
done <"$tmp/files"
for u in $UNCONVERTED; do
    check "$u is listed as unconverted and still emits (else take it off UNCONVERTED)" \
        grep -qw "$u" <<<"$remaining"
done

# A kernel generated at run time (expr: its CUDA C printed by
# src/model/expr_codegen.c, compiled by NVRTC) has no body for two
# compilers: its one source is the kernel's plan (src/model/expr_plan.h),
# which the generator prints and the experiment's mirror walks. So: the
# generator prints from the plan, the mirror walks it and emits nothing of
# its own (no file of the folder, headers included), the sites are numbered
# in the plan alone, and no comment asks to keep the two in step.
model="$here/../../src/model"
check "expr_codegen.c prints the kernel from its plan (cml_expr_plan_make)" \
    grep -q 'cml_expr_plan_make(' "$model/expr_codegen.c"
check "expr.c's mirror walks the kernel's plan (cml_expr_plan_walk)" \
    grep -q 'cml_expr_plan_walk(' "$exp/expr/expr.c"
check "src/experiments/expr: no emission of its own (the plan's walker emits)" \
    test -z "$(grep -rl 'cml_emit[a-z_]*(' "$exp/expr")"
check "the expr kernel's sites are numbered in src/model/expr_plan.c alone" \
    test -z "$(grep -rlE '\<S_(IDX|OUT|FILL_LD|FILL_ST|COPY_LD|COPY_ST|CONST_HI)\>' "$exp/expr" \
        "$model" | grep -v '/expr_plan\.c$')"
for f in "$exp"/expr/* "$model"/expr_codegen.c "$model"/expr_plan.[ch]; do
    check "${f##*/} (a generated kernel's plan): no 'keep in step' comment" \
        test -z "$(joined "$f" | grep -io 'keep \(them \)\{0,1\}in step')"
done

echo "single source: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
