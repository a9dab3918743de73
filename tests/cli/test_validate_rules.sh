#!/usr/bin/env bash
# cumemlab validate --rules --json FILE: every explanation validate accepts
# (schema cumemlab-validate-rules, docs/json-schema.md), without a GPU. The
# listing parses; every entry has all its fields; none is unbounded,
# two-sided or wider than 10%; each has a control "option=value" and a
# section that docs/model-evidence.md has; it lists as many as list --json
# carries; bad usage is one line, exit 2 and no file.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/cli_test_util.sh" # $tmp, check, run

rules="$tmp/rules.json"
run "$bin" validate --rules --json "$rules"
check "validate --rules --json FILE: exit 0 (no GPU needed)" test $rc -eq 0
check "validate --rules --json FILE: nothing on stderr" test ! -s "$tmp/err"
check "validate --rules --json FILE: the text listing on stdout" grep -q "mechanism: " "$tmp/out"

py() { # description, then python code that reads the listing from argv[1]
    local what=$1 code=$2
    shift 2
    check "$what" python3 -c "import json, sys
doc = json.load(open(sys.argv[1], encoding='utf-8'))
rules = doc['explanations']
$code" "$rules" "$@"
}
py "schema, version, the widest bound" '
assert doc["schema"] == "cumemlab-validate-rules" and doc["schema_version"] == 1, doc["schema"]
assert doc["max_bound"] == 0.1, doc["max_bound"]
assert len(rules) == 3, len(rules)'
py "every entry: all fields, one direction, 0 < bound <= 10%, a control option=value" '
fields = {"experiment", "scope", "variant_has", "metric_has", "mechanism", "direction",
          "bound", "control", "section"}
for x in rules:
    assert set(x) == fields, (set(x) ^ fields, x)
    assert x["direction"] in ("excess", "deficit"), x
    assert type(x["bound"]) in (int, float) and 0 < x["bound"] <= 0.10, x
    k, _, v = x["control"].partition("=")
    assert k and v and " " not in x["control"], x
    assert x["metric_has"] and x["mechanism"] and x["section"].startswith("\u00a7"), x
    assert (x["experiment"] is None) == (x["scope"] == "everywhere"), x'
py "every section is a heading of docs/model-evidence.md" '
import re
text = open(sys.argv[2], encoding="utf-8").read()
for x in rules:
    num = re.match("\u00a7([0-9.]+) ", x["section"]).group(1)
    assert re.search("^### %s " % re.escape(num), text, re.M), x["section"]' \
    "$root/docs/model-evidence.md"
py "the noise floors validate judges above (bytes)" '
f = doc["noise_floor_bytes"]
assert f["dram__bytes_read.sum"] == 262144 and f["dram__bytes_write.sum"] == 262144, f
assert f["lts__t_sectors_srcunit_tex_op_read.sum"] == 32768, f
assert len(f) == 5, f
assert "background control" in doc["dram_floor_growth"], doc
assert "stream controls" in doc["dram_floor_growth"], doc'
# The same entries as list --json carries, experiment by experiment.
"$bin" list --json "$tmp/reg.json"
py "the same explanations as list --json" '
reg = json.load(open(sys.argv[2]))
mine = [(x["experiment"], x["metric_has"], x["control"], x["bound"]) for x in rules]
theirs = [(e["key"], x["metric_has"], x["control"], x["bound"])
          for e in reg["experiments"] if e["validate"] for x in e["validate"]["explained"]]
theirs += [(None, x["metric_has"], x["control"], x["bound"]) for x in reg["explained_everywhere"]]
assert mine == theirs, (mine, theirs)' "$tmp/reg.json"

run "$bin" validate --rules --json -
check "--rules --json -: the listing alone on stdout" cmp -s "$tmp/out" "$rules"

# --- bad usage: one line, exit 2, no file -------------------------------------
run "$bin" validate --rules --from "$rules" --json "$tmp/x.json"
check "--rules with --from: exit 2" test $rc -eq 2
check "--rules with --from: one line naming --rules" \
    test "$(wc -l <"$tmp/err")" -eq 1 -a -n "$(grep -- --rules "$tmp/err")"
check "--rules with --from: no file" test ! -e "$tmp/x.json"
run "$bin" validate --rules --size 1M
check "--rules with --size: exit 2" test $rc -eq 2
run "$bin" validate --rules --json "$tmp/no-such-dir/r.json"
check "--rules --json into a missing folder: exit 2, no folder" test $rc -eq 2 -a ! -e "$tmp/no-such-dir"
run "$bin" list --rules
check "--rules is validate's alone: exit 2" test $rc -eq 2

echo "test_validate_rules: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
