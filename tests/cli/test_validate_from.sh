#!/usr/bin/env bash
# cumemlab validate --from FILE: the judging of `validate` (src/lab/validate.c)
# on a saved results file, without a GPU; --json writes the verdicts (schema
# cumemlab-validation, docs/json-schema.md).
#   - the text is held byte for byte: tests/data/validate-from-measured.txt.gz
#     (the records' lines as validate printed them before its judging became
#     data; the kinds' lines and the exit line since explanations became
#     mechanisms with controls, issue 22; the DRAM background line since
#     its control), and a committed suite's text is
#     held to its sha256 (bench/results/h100/2026-11-27-suite-55s);
#   - the exit line names the unexplained count the exit status follows
#     (failed runs included), so it never reads 0 while the exit is 1;
#   - the JSON says what the text says (same counts, same exit), and points
#     at the records it judged;
#   - a hostile results file (any value where a number stands, unknown
#     names, control characters) gives a clear error or a correct report,
#     never a crash; usage errors are exit 2.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/cli_test_util.sh" # $tmp, check, run
cd "$root" || exit 1

gzip -dc tests/data/results-measured.json.gz >"$tmp/measured.json"

# --- the text, byte for byte ----------------------------------------------
run "$bin" validate --from tests/data/results-measured.json.gz
if [ "${CML_EXPECT_ZLIB:-1}" = 1 ]; then
    check "validate --from the measured fixture: exit 1 (it has failed records)" test $rc -eq 1
    check "validate --from the measured fixture: the text validate has always printed" \
        cmp "$tmp/out" <(gzip -dc tests/data/validate-from-measured.txt.gz)
    suite=bench/results/h100/2026-11-27-suite-55s.json.gz
    run "$bin" validate --from "$suite"
    check "validate --from a suite: exit 1 (a suite runs variants validate does not judge)" \
        test $rc -eq 1
    # The suite's records carry the intervals of their day, before L1's
    # merged requests were part of them (docs/model.md §16.8, l1_merge);
    # the explanations that covered those merges went with that change, so
    # its 24 write-offset, stride and read-only .cg differences read as
    # unexplained (the file is not re-modelled). Since the DRAM background
    # control, the header says whether the file holds one (this does not:
    # the fixed floor), one line more. Since the shared counters' interval
    # where blocks share an SM (docs/model.md §5.2), the 252 excess shared
    # wavefronts and conflicts of its shared-banks tiles, constant stencils
    # and async-copy tiles lie within it (774 unexplained values -> 522).
    # Since the intervals take every SM as one (l1_pooled), the pitch2d and
    # read-only hot-gather entries went; this file's stored intervals are
    # older, so the 8 values those entries explained are unexplained (530).
    check "validate --from a suite: the text validate has always printed" \
        test "$(sha256sum <"$tmp/out" | cut -d' ' -f1)" = \
        bb735996bdce022ddf3f07026e9b1127d8558189b70126b0fdb0c7243463f94d
fi

# --- --json: the verdicts ------------------------------------------------------
run "$bin" validate --from "$tmp/measured.json" --json "$tmp/v.json"
check "--json FILE: exit 1, as the text says" test $rc -eq 1
check "--json FILE: the text still on stdout" \
    grep -q "^exit 1: 131 unexplained (3 values, 128 failed)$" "$tmp/out"
check "--json FILE: one line per kind, the unexplained with the failed runs" \
    grep -q "^unexplained  *3 values, and 128 failed$" "$tmp/out"
check "--json FILE: nothing on stderr" test ! -s "$tmp/err"
cp "$tmp/out" "$tmp/text.txt"
py() { # description, then python code that reads the verdicts from argv[1]
    local what=$1 code=$2
    shift 2
    check "$what" python3 -c "import json, sys
doc = json.load(open(sys.argv[1], encoding='utf-8'))
$code" "$@"
}
py "schema, version, the summary the text prints" '
assert doc["schema"] == "cumemlab-validation" and doc["schema_version"] == 2, doc["schema"]
s = doc["summary"]
text = open(sys.argv[2]).read()
line = "records: %d agree, %d differ (%d explained in docs/model-evidence.md, %d unexplained), %d failed, %d skipped" % (
    s["agree"], s["differ"], s["explained"], s["unexplained"], s["failed"], s["skipped"])
assert line in text, line
labels = {"exact": "exact", "within-interval": "within interval",
          "explained": "explained by a control", "not-judged": "not judged (~)",
          "unexplained": "unexplained"}
for k, label in labels.items():
    assert ("\n%-24s %8d values" % (label, s["values"][k])) in text, (k, s["values"])
assert s["values"]["exact"] == 27 and s["values"]["unexplained"] == 3, s["values"]
assert s["unexplained_total"] == s["values"]["unexplained"] + s["failed"] == 131, s
assert ("exit 1: %d unexplained" % s["unexplained_total"]) in text
assert s["exit"] == 1 and doc["from"].endswith("measured.json") and doc["device"]
v = doc["verdicts"]
for k in ("agree", "failed", "skipped"):
    assert sum(x["verdict"] == k for x in v) == s[k], k
assert sum(x["verdict"] == "differ-unexplained" for x in v) == s["unexplained"]
assert sum(x["verdict"] == "differ-explained" for x in v) == s["explained"]' "$tmp/v.json" "$tmp/text.txt"
py "each verdict: its record, its counters, the rule and figures of a differing one" '
recs = json.load(open(sys.argv[2]))["records"]
v = doc["verdicts"]
judged = [x for x in v if x["subject"] == "record"]
assert judged, "no record verdicts"
for x in judged:
    r = recs[x["record"]]
    assert (r["experiment"], r["variant"]) == (x["experiment"], x["variant"]), x
    for c in x["counters"]:
        assert c["verdict"] in ("exact", "within-interval", "explained", "not-judged",
                                "unexplained", "info"), c
        if c["verdict"] in ("exact", "within-interval", "explained", "unexplained"):
            assert c["lo"] is not None and c["lo"] <= c["hi"], c
        assert c["rule"] in ("none", "exact", "percent", "relative", "not-judged"), c
        if c["predicted"] is not None and c["measured"] is not None:
            assert abs(c["difference"] - (c["measured"] - c["predicted"])) <= 1e-6 * abs(c["measured"]) + 1e-9, c
        if c["verdict"] == "unexplained":
            assert c["explanation"] is None and c["explain_reference"] is not None, c
        if c["rule"] == "relative":
            assert c["tolerance"] > 0 and c["reference"] is not None, c
    if x["verdict"] == "failed":
        assert x["reason"] == r["note"] or x["reason"].startswith("no counters read"), x
    if x["verdict"] == "differ-unexplained":
        assert any(c["verdict"] == "unexplained" for c in x["counters"]), x
for x in v:
    if x["subject"] == "experiment":
        assert x["verdict"] == "skipped" and x["record"] is None and x["reason"], x' \
    "$tmp/v.json" "$tmp/measured.json"

run "$bin" validate --from "$tmp/measured.json" --json -
check "--json -: the document alone on stdout" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/out"
check "--json -: the text on stderr" grep -q "^exit 1: " "$tmp/err"

# --- hostile files ------------------------------------------------------------
printf 'not json' >"$tmp/bad.json"
run "$bin" validate --from "$tmp/bad.json" --json "$tmp/bad-out.json"
check "not JSON: exit 1" test $rc -eq 1
check "not JSON: one line naming the file" \
    test "$(wc -l <"$tmp/err")" -eq 1 -a -n "$(grep -F "$tmp/bad.json" "$tmp/err")"
check "not JSON: no verdicts written" test ! -e "$tmp/bad-out.json"
run "$bin" validate --from "$tmp/no-such-file.json"
check "a missing file: exit 1, one line" test $rc -eq 1 -a "$(wc -l <"$tmp/err")" -eq 1

# Every number of a counter, the model and the levels set to extremes, names
# the registry does not know, control characters: a report, never a crash.
python3 - "$tmp/measured.json" "$tmp" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
values = [1.7976931348623157e308, -1.7976931348623157e308, 5e-324, 0, -1,
          18446744073709551615, None]
def walk(o, v):
    if isinstance(o, dict):
        return {k: (v if isinstance(x, (int, float)) and not isinstance(x, bool) else walk(x, v))
                for k, x in o.items()}
    if isinstance(o, list):
        return [walk(x, v) for x in o]
    return o
for i, v in enumerate(values):
    d = json.loads(json.dumps(doc))
    for r in d["records"]:
        r["counters"] = walk(r["counters"], v if v is not None or True else v)
        for c in r["counters"]:
            if v is None:
                c["measured"] = None
        if r.get("model") and v is not None and isinstance(v, int) and v >= 0:
            r["model"] = walk(r["model"], v)
    d["records"][0]["experiment"] = "zzz-unknown"
    d["records"][1]["variant"] = "offset=\u0001\"\\ residency=one"
    d["records"][2]["experiment"] = ""
    json.dump(d, open("%s/hostile-%d.json" % (sys.argv[2], i), "w"))
EOF
for f in "$tmp"/hostile-*.json; do
    n=$(basename "$f" .json)
    run "$bin" validate --from "$f" --json "$tmp/$n-v.json"
    check "$n: exit 0 or 1, not a crash (exit $rc)" test $rc -eq 0 -o $rc -eq 1
    if [ $rc -le 1 ] && grep -q "^exit [01]: " "$tmp/out"; then
        check "$n: the verdicts' exit is the command's" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['summary']['exit'] == int(sys.argv[2]), (d['summary'], sys.argv[2])
assert (d['summary']['unexplained_total'] > 0) == (d['summary']['exit'] == 1), d['summary']
assert any(x['experiment'] == 'zzz-unknown' and x['verdict'] == 'skipped' for x in d['verdicts'])" \
            "$tmp/$n-v.json" $rc
    else
        check "$n: refused with one line" test "$(wc -l <"$tmp/err")" -eq 1
    fi
done

# --- usage -----------------------------------------------------------------------
run "$bin" validate --from "$tmp/measured.json" --size 1M
check "--from with --size: exit 2" test $rc -eq 2
run "$bin" validate --from "$tmp/measured.json" --records "$tmp/r.json"
check "--from with --records: exit 2" test $rc -eq 2
run "$bin" validate --from "$tmp/measured.json" --json "$tmp/no-such-dir/v.json"
check "--json into a missing folder: exit 2, nothing judged" test $rc -eq 2 -a ! -s "$tmp/out"
run "$bin" run read-offset --from "$tmp/measured.json"
check "--from is validate's alone: exit 2" test $rc -eq 2
run "$bin" validate --help
check "validate --help names --from and --json's verdicts" \
    grep -q "validate --from FILE" "$tmp/out"

echo "test_validate_from: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
