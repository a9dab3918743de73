#!/usr/bin/env bash
# The README's table of experiments ("## The experiments") is generated
# output: scripts/readme-table.py writes it from `cumemlab list --json`
# (number, key, title, summary, each key linked to its page), so adding an
# experiment is its folder and its doc page, and the README follows by
# running the script. This checks that the committed table is what the
# script writes from this build's registry (an experiment added, removed,
# renumbered or retitled without running it fails here, with the diff), and
# that every experiment has its page docs/experiments/NAME.md.
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
if ! python3 "$root/scripts/readme-table.py" --check "$bin" "$root/README.md" >"$tmp/diff" 2>&1; then
    sed 's/^/  /' "$tmp/diff" >&2
    check "the README's table of experiments is the registry's (run scripts/readme-table.py $bin)" false
fi
while read -r _ key; do
    check "docs/experiments/$key.md exists" test -f "$root/docs/experiments/$key.md"
done <"$tmp/registry"

echo "test_readme_table: $((checks - fails)) of $checks checks passed"
[ "$fails" -eq 0 ]
