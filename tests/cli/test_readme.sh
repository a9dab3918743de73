#!/usr/bin/env bash
# The README's examples are the program's real output: every fenced block
# line that starts with "$ " is run (as `cumemlab` on the PATH, or
# `./build/cumemlab`, the built binary either way, from a scratch folder that
# holds the repository's tests/ so the committed fixtures are found), and
# the lines under it, up to the next "$ " or the end of the block, must be
# its output (standard output, then standard error) line for line. A line
# "..." stands for lines left out; trailing spaces do not count. So an
# example that drifts from the program fails here, naming the command and
# the first line that differs.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_test_util.sh" # $tmp, check, run
root=$(cd "$here/../.." && pwd)
readme=$root/README.md

mkdir -p "$tmp/bin" "$tmp/work/build"
ln -s "$bin" "$tmp/bin/cumemlab"
ln -s "$bin" "$tmp/work/build/cumemlab"
ln -s "$root/tests" "$tmp/work/tests"

# The examples, one file each: line 1 the command, then the lines shown.
n=$(awk -v dir="$tmp" '
    /^```/ { inblock = !inblock; out = ""; next }
    inblock && /^\$ / { k++; out = dir "/example" k; print substr($0, 3) > out; next }
    inblock && out != "" { print > out }
    END { print k + 0 }' "$readme")
check "the README shows examples with their commands" test "$n" -ge 3

# same EXPECTED ACTUAL: the shown lines, in order, with "..." for gaps.
same() {
    awk -v shown="$1" '
        function rtrim(s) { sub(/[ \t]+$/, "", s); return s }
        BEGIN {
            while ((getline l < shown) > 0) want[++nw] = rtrim(l)
            # the command is line 1; a block may end in blank lines
            while (nw > 1 && want[nw] == "") nw--
        }
        { got[++ng] = rtrim($0) }
        END {
            i = 2; j = 1
            while (i <= nw) {
                if (want[i] == "...") {
                    i++
                    if (i > nw) exit 0
                    while (j <= ng && got[j] != want[i]) j++
                    if (j > ng) {
                        printf "shown line %d not found after a gap: %s\n", i, want[i]
                        exit 1
                    }
                    continue
                }
                if (j > ng || got[j] != want[i]) {
                    printf "line %d differs:\n  shown:  %s\n  output: %s\n", i - 1, want[i],
                           (j > ng ? "(end of output)" : got[j])
                    exit 1
                }
                i++; j++
            }
            if (j <= ng) { printf "the output goes on past the shown lines: %s\n", got[j]; exit 1 }
        }' "$2"
}

for ((k = 1; k <= n; k++)); do
    cmd=$(head -n 1 "$tmp/example$k")
    (cd "$tmp/work" && PATH="$tmp/bin:$PATH" bash -c "$cmd" >"$tmp/got$k" 2>"$tmp/err$k")
    cat "$tmp/err$k" >>"$tmp/got$k"
    if ! same "$tmp/example$k" "$tmp/got$k" >"$tmp/why$k"; then
        echo "README example \$ $cmd:" >&2
        cat "$tmp/why$k" >&2
    fi
    check "README example $k ($cmd) is its output" test ! -s "$tmp/why$k"
done

echo "$((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
