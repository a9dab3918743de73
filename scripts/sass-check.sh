#!/usr/bin/env bash
# Kernel by kernel, is the machine code of the work tree the machine code of
# a git revision? Compiles every .cu file under src/ of both (no GPU needed)
# for each architecture the build targets, dumps each kernel's SASS with
# cuobjdump and compares them. A change that is meant to leave the kernels
# alone (a kernel body moved into a header shared with the C model, a
# rename) must print "identical" for every kernel it touches.
#
# An experiment folder of the two-file form (src/experiments/NAME/ with
# NAME_body.h and no .cu file: cmake/experiments.cmake) carries its kernels
# in NAME_body.h. Like the build, this compiles for it a file that only
# includes that header, under the name NAME.cu, so its kernels are compared
# as NAME--KERNEL with the kernels of the old form's NAME.cu on the other
# side: a folder converted from one form to the other compares kernel by
# kernel with itself before.
#
#   scripts/sass-check.sh [-r REV] [-a "75 80 90"] [NAME...]
#
# REV: the revision to compare with (default main). NAME: only the .cu
# files whose base name (without .cu; for a two-file folder, its NAME) is
# one of these. Output: one line per (architecture, file, kernel):
# identical, DIFFERENT, or only in one side; the exit status is 1 if any
# kernel differs or is missing.
# Compiled files and dumps go to build-sass/ (ignored by git); the
# revision's side is kept per commit and reused.
#
# Needs nvcc and cuobjdump (CUDA's bin/, or PATH; where the toolkit lacks
# cuobjdump, pip's nvidia-cuda-cuobjdump has it: set CUOBJDUMP to it).
# The flags are the build's (CMakeLists.txt): -O2 -lineinfo, C++17, the
# include and src folders on the include path.
set -euo pipefail

rev=main
archs="75 80 90"
while getopts "r:a:" opt; do
    case $opt in
    r) rev=$OPTARG ;;
    a) archs=$OPTARG ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
names=("$@")

root=$(git rev-parse --show-toplevel)
cd "$root"
cuda_bin=${CUDA_BIN:-/usr/local/cuda/bin}
nvcc=${NVCC:-$(command -v nvcc || echo "$cuda_bin/nvcc")}
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || echo "$cuda_bin/cuobjdump")}
for tool in "$nvcc" "$cuobjdump"; do
    [ -x "$tool" ] || { echo "sass-check: $tool not found (set NVCC / CUOBJDUMP)" >&2; exit 2; }
done

commit=$(git rev-parse --verify "$rev^{commit}")
out=build-sass
old=$out/rev-$commit
new=$out/worktree
mkdir -p "$out"

# The revision's sources, once per commit.
if [ ! -d "$old/src" ]; then
    rm -rf "$old"
    mkdir -p "$old"
    git archive "$commit" include src | tar -x -C "$old"
fi
rm -rf "$new"
mkdir -p "$new"

# Compile one .cu file of the source tree TREE for one architecture and split the dump
# into one file per kernel: DEST/sass/smARCH/FILE--KERNEL.sass. Only the
# dump's headers (the cubin's file name) are dropped: every instruction and
# its encoding is compared.
compile_one() {
    local tree=$1 dest=$2 src=$3 arch=$4 nvcc=$5 cuobjdump=$6
    local base file
    base=$(basename "$src" .cu)
    case $src in
    /*) file=$src ;; # a file generated for a two-file folder (list_cu)
    *) file=$tree/$src ;;
    esac
    local dir=$dest/sass/sm$arch
    mkdir -p "$dir" "$dest/cubin"
    local cubin=$dest/cubin/$base.sm$arch.cubin
    if ! "$nvcc" -cubin -arch=sm_"$arch" -O2 -lineinfo -std=c++17 -I"$tree/include" \
        -I"$tree/src" "$file" -o "$cubin" 2>"$cubin.log"; then
        echo "sass-check: $file failed to compile for sm_$arch:" >&2
        cat "$cubin.log" >&2
        return 1
    fi
    "$cuobjdump" -sass "$cubin" | awk -v dir="$dir" -v base="$base" '
        /^[ \t]*Function : / { name = $3; file = dir "/" base "--" name ".sass"; next }
        name != "" && /^[ \t]*\/\*[0-9a-f]+\*\// { print > file; next }
        name != "" && /^[ \t]*\/\* 0x[0-9a-f]+ \*\// { print > file; next }
    '
}
export -f compile_one
export NVCC_=$nvcc CUOBJDUMP_=$cuobjdump

# The .cu files of the source tree TREE (paths relative to it), and for
# each two-file experiment folder a file DEST/gen/NAME.cu (an absolute path)
# that includes its NAME_body.h, as the build's generated one does.
list_cu() {
    local tree=$1 dest=$2
    {
        (cd "$tree" && find src -name '*.cu')
        for body in "$tree"/src/experiments/*/*_body.h; do
            [ -f "$body" ] || continue
            local dir name
            dir=$(dirname "$body")
            name=$(basename "$dir")
            [ "$body" = "$dir/${name}_body.h" ] || continue
            ls "$dir"/*.cu >/dev/null 2>&1 && continue
            mkdir -p "$dest/gen"
            printf '#include "experiments/%s/%s_body.h"\n' "$name" "$name" >"$dest/gen/$name.cu"
            echo "$(cd "$dest/gen" && pwd)/$name.cu"
        done
    } | sort | while read -r f; do
        local b
        b=$(basename "$f" .cu)
        if [ ${#names[@]} -eq 0 ] || printf '%s\n' "${names[@]}" | grep -qx "$b"; then
            echo "$f"
        fi
    done
}

jobs=$(nproc 2>/dev/null || echo 2)
{
    # The work tree is compiled in place (its include/ and src/ are ".").
    list_cu . "$new" | while read -r f; do
        for a in $archs; do echo ". $new $f $a"; done
    done
    if [ ! -f "$old/.complete-$(echo "$archs" | tr ' ' _)" ] || [ ${#names[@]} -ne 0 ]; then
        list_cu "$old" "$old" | while read -r f; do
            for a in $archs; do echo "$old $old $f $a"; done
        done
    fi
} | xargs -P "$jobs" -L 1 bash -c 'compile_one "$@" "$NVCC_" "$CUOBJDUMP_"' _
[ ${#names[@]} -ne 0 ] || touch "$old/.complete-$(echo "$archs" | tr ' ' _)"

same=0 differ=0 missing=0
for a in $archs; do
    for f in $( (ls "$old/sass/sm$a" 2>/dev/null; ls "$new/sass/sm$a" 2>/dev/null) | sort -u); do
        base=${f%%--*}
        if [ ${#names[@]} -ne 0 ] && ! printf '%s\n' "${names[@]}" | grep -qx "$base"; then
            continue
        fi
        k=${f%.sass}
        if [ ! -f "$old/sass/sm$a/$f" ]; then
            printf 'sm_%s  only in work tree  %s\n' "$a" "$k"; missing=$((missing + 1))
        elif [ ! -f "$new/sass/sm$a/$f" ]; then
            printf 'sm_%s  only in %s  %s\n' "$a" "$rev" "$k"; missing=$((missing + 1))
        elif cmp -s "$old/sass/sm$a/$f" "$new/sass/sm$a/$f"; then
            printf 'sm_%s  identical  %s\n' "$a" "$k"; same=$((same + 1))
        else
            printf 'sm_%s  DIFFERENT  %s\n' "$a" "$k"; differ=$((differ + 1))
        fi
    done
done
printf '%d identical, %d different, %d only on one side (%s vs the work tree)\n' \
    "$same" "$differ" "$missing" "$rev"
[ "$differ" -eq 0 ] && [ "$missing" -eq 0 ]
