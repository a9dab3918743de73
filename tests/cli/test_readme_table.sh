#!/usr/bin/env bash
# The README's table of experiments ("## The experiments") is the registry's:
# the same numbers and names, in the same order, as `cumemlab list --json`,
# and every one has its page docs/experiments/NAME.md. The descriptions are
# the README's own (shorter than the rows' summaries), so they are not
# compared; an experiment added, removed or renumbered without the README
# fails here.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_test_util.sh" # $tmp, check, run
root=$(cd "$here/../.." && pwd)

run "$bin" list --json -
check "list --json succeeds" test "$rc" -eq 0
python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["experiments"]:
    print(r["number"], r["key"])' "$tmp/out" >"$tmp/registry"
# The rows of the first table after the heading: "| N | name | ... |".
awk '/^## The experiments/ { on = 1; next }
     on && /^## / { exit }
     on && /^\| *[0-9]+ *\|/ { gsub(/ /, ""); split($0, f, "|"); print f[2], f[3] }' \
    "$root/README.md" >"$tmp/readme"
check "the README lists experiments" test -s "$tmp/readme"
if ! diff -u "$tmp/registry" "$tmp/readme" >"$tmp/diff"; then
    sed 's/^/  /' "$tmp/diff" >&2
    check "the README's table of experiments is the registry's (number, name, order)" false
fi
while read -r _ key; do
    check "docs/experiments/$key.md exists" test -f "$root/docs/experiments/$key.md"
done <"$tmp/registry"

echo "test_readme_table: $((checks - fails)) of $checks checks passed"
[ "$fails" -eq 0 ]
