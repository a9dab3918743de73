#!/usr/bin/env bash
# cumemlab list --json: the registry as data (schema cumemlab-registry,
# docs/json-schema.md). The document is checked against what the program
# prints elsewhere (cumemlab list, cumemlab help NAME) and against the rows'
# C source (src/experiments), so that a row the writer drops or mangles
# fails here; and bad input is one line, exit 2 and no file.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../../src/experiments"
. "$here/cli_test_util.sh" # $tmp, check, run

reg="$tmp/registry.json"
run "$bin" list --json "$reg"
check "list --json FILE: exit 0" test $rc -eq 0
check "list --json FILE: nothing on stdout (the document is the output)" test ! -s "$tmp/out"
check "list --json FILE: nothing on stderr" test ! -s "$tmp/err"
check "list --json FILE: the file is written" test -s "$reg"

# Asserts with python3's json module; a failed assert names what differs.
py() { # description, then python code that reads the document from argv[1]
    local what=$1 code=$2
    shift 2
    check "$what" python3 -c "import json, sys
reg = json.load(open(sys.argv[1], encoding='utf-8'))
exps = {e['key']: e for e in reg['experiments']}
$code" "$reg" "$@"
}

py "schema name and version" '
assert reg["schema"] == "cumemlab-registry", reg["schema"]
assert reg["schema_version"] == 2 and type(reg["schema_version"]) is int, reg["schema_version"]'

# --- the same experiments as the text listing, in its order ---------------
"$bin" list >"$tmp/list.txt"
# experiment rows: "%2d  KEY  TITLE" (options and programs are indented)
sed -nE 's/^ ?[0-9]+  ([a-z0-9-]+) .*/\1/p' "$tmp/list.txt" >"$tmp/list_keys.txt"
check "cumemlab list prints experiment rows" test "$(wc -l <"$tmp/list_keys.txt")" -ge 20
py "as many experiments as cumemlab list prints, same keys, same order" '
keys = open(sys.argv[2]).read().split()
got = [e["key"] for e in reg["experiments"]]
assert got == keys, (got, keys)' "$tmp/list_keys.txt"

# --- read-offset --offset: what cumemlab help read-offset shows ------------
"$bin" help read-offset >"$tmp/help.txt"
# "  --offset     HELP" then "               allowed MIN..MAX; default LIST"
allowed=$(sed -n '/^  --offset /{n;s/^ *allowed \([^;]*\); default \(.*\)$/\1|\2/p;}' "$tmp/help.txt")
check "help read-offset shows the range and default of --offset" test -n "$allowed"
py "read-offset offset: min, max, allowed and default as help shows them" '
rng, default = sys.argv[2].split("|")
lo, hi = (int(x) for x in rng.split(".."))
o = next(o for o in exps["read-offset"]["options"] if o["name"] == "offset")
assert type(o["min"]) is int and type(o["max"]) is int, o
assert (o["min"], o["max"]) == (lo, hi), (o["min"], o["max"], lo, hi)
assert o["allowed"] == rng, o["allowed"]
assert o["default"] == default, (o["default"], default)
assert o["choices"] is None and o["in_variant"] is True, o' "$allowed"
# and an option of named choices: its names, no numeric range
py "read-offset path: choices ca, cg, nc, min and max null" '
o = next(o for o in exps["read-offset"]["options"] if o["name"] == "path")
assert o["choices"] == ["ca", "cg", "nc"], o["choices"]
assert o["min"] is None and o["max"] is None, o
assert o["allowed"] == "ca|cg|nc", o["allowed"]'
# n is sized from the device and so is not part of the variant name
# (CML_PARAM_NOVARIANT in src/experiments/offset/offset.c)
py "read-offset n: not in the variant name" '
o = next(o for o in exps["read-offset"]["options"] if o["name"] == "n")
assert o["in_variant"] is False, o'
py "every experiment lists every option help prints" '
import subprocess
for e in reg["experiments"]:
    text = subprocess.run([sys.argv[2], "help", e["key"]], capture_output=True, text=True).stdout
    shown = [l.split()[0][2:] for l in text.splitlines() if l.startswith("  --")]
    assert [o["name"] for o in e["options"]] == shown, (e["key"], shown)' "$bin"

# --- validate specs and their explained differences -----------------------
# The C source has one cml_validate_spec per experiment that validate runs,
# and one line starting with "{" per explained difference in the
# cml_explained_diff arrays: the document must carry them all.
nspecs=$(find "$src" -name '*.c' -exec cat {} + | grep -c 'cml_validate_spec [a-z_0-9]* = ')
nexplained=$(find "$src" -name '*.c' -exec cat {} + |
    awk '/cml_explained_diff [a-z_0-9]+\[\] = \{/{f=1;next} f&&/^};/{f=0} f&&/^[ \t]*\{/{n++} END{print n+0}')
check "the source declares validate specs and explained differences" \
    test "$nspecs" -gt 0 -a "$nexplained" -gt 0
py "every validate spec and every explained difference of the source" '
specs = [e for e in reg["experiments"] if e["validate"] is not None]
assert len(specs) == int(sys.argv[2]), (len(specs), sys.argv[2])
n = sum(len(e["validate"]["explained"]) for e in specs)
assert n == int(sys.argv[3]), (n, sys.argv[3])
for e in specs:
    v = e["validate"]
    assert v["settings"] and all(type(s) is str for s in v["settings"]), e["key"]
    for x in v["explained"]:
        assert x["direction"] in ("excess", "deficit"), x
        assert type(x["bound"]) in (int, float) and 0 < x["bound"] <= 0.10, x
        assert x["metric_has"] and x["section"] and x["mechanism"] and "=" in x["control"], x' \
    "$nspecs" "$nexplained"
# Hard-coded from the rows: write-offset and pitch2d, whose stores meeting
# in L1 and reads meeting in flight are inside the model's intervals
# (docs/model.md §16.8, l1_merge and l1_pooled), with their settings and no
# entry.
py "write-offset and pitch2d: inside the intervals, no entry" '
w = exps["write-offset"]["validate"]
assert w["settings"] == ["offset=0:32,128 path=wb,cg,cs"], w["settings"]
assert w["explained"] == [], w["explained"]
v = exps["pitch2d"]["validate"]
assert v["settings"] and v["explained"] == [], v'
# src/experiments/transpose/transpose.c, transpose_explained[0]:
#   {"smem", "_mem_shared_op_", 0, "§4.3 transpose tile kernels", "residency=one"}
py "transpose: the tile kernels explained by the residency=one control (transpose.c)" '
v = exps["transpose"]["validate"]["explained"]
assert len(v) == 1, v
x = dict(v[0])
assert x.pop("mechanism").startswith("a second tile block on the SM"), x
assert x == {"variant_has": "smem", "metric_has": "_mem_shared_op_", "direction": "excess",
             "bound": 0.1, "section": "\u00a74.3 transpose tile kernels",
             "control": "residency=one"}, x
assert "kernel=smem,smem-pad residency=one" in exps["transpose"]["validate"]["settings"]'
py "an experiment validate does not run has validate null" '
assert exps["shuffle"]["validate"] is None'

# --- charts (src/experiments/offset/offset.c, OFFSET_CHARTS) -------------
py "read-offset charts: bandwidth, then efficiency under both rules, vs offset" '
c = exps["read-offset"]["charts"]
assert len(c) == 3, len(c)
assert (c[0]["shape"], c[0]["xparam"], c[0]["xscale"]) == ("sweep", "offset", "linear"), c[0]
assert [m["metric"] for m in c[0]["metrics"]] == ["bandwidth"], c[0]["metrics"]
assert [m["metric"] for m in c[1]["metrics"]] == ["efficiency_modern", "efficiency_fermi"]
assert c[1]["yformat"] == "percent" and c[1]["metrics"][1]["lead"] == "under the Fermi/Kepler rules"
assert c[0]["describe"] is True and c[2]["describe"] is False'

# --- textbook aliases: each one cumemlab list names ------------------------
py "every textbook alias as cumemlab list shows it" '
text = open(sys.argv[2]).read()
aliases = [(e["key"], a) for e in reg["experiments"] for a in e["aliases"]]
assert aliases, "no aliases"
for key, a in aliases:
    assert ("cumemlab %-36s -> %s" % (a["usage"], key)) in text, (key, a)
    assert a["usage"].split()[0] == a["name"], a
mt = next(a for k, a in aliases if a["name"] == "memTransfer")
assert mt["fixed"] == "mode=copy memory=pageable direction=h2d,d2h size=16M", mt' "$tmp/list.txt"

# --- standard output -------------------------------------------------------
run "$bin" list --json -
check "list --json -: exit 0" test $rc -eq 0
check "list --json -: the same document on stdout" cmp -s "$tmp/out" "$reg"

# --- bad input: one line, exit 2, no file ----------------------------------
one_line() { test "$(wc -l <"$tmp/err")" -eq 1 && grep -q -- "--json" "$tmp/err"; }
run "$bin" list --json
check "list --json without a file: exit 2" test $rc -eq 2
check "list --json without a file: one line naming --json" one_line
check "list --json without a file: nothing on stdout" test ! -s "$tmp/out"

run "$bin" list --json /nonexistent/dir/x.json
check "list --json /nonexistent/dir/x.json: exit 2" test $rc -eq 2
check "list --json /nonexistent/dir/x.json: one line naming --json" one_line
check "list --json /nonexistent/dir/x.json: no file" test ! -e /nonexistent/dir/x.json

run "$bin" list --json "$tmp/no-such-folder/x.json"
check "list --json into a missing folder: exit 2" test $rc -eq 2
check "list --json into a missing folder: no folder, no file" test ! -e "$tmp/no-such-folder"

mkdir "$tmp/adir"
run "$bin" list --json "$tmp/adir"
check "list --json DIRECTORY: exit 2" test $rc -eq 2
check "list --json DIRECTORY: one line" one_line
check "list --json DIRECTORY: the folder left empty" test -z "$(ls -A "$tmp/adir")"

run "$bin" textbook --json "$tmp/t.json"
check "textbook --json: exit 2 (it applies to list)" test $rc -eq 2
check "textbook --json: no file" test ! -e "$tmp/t.json"

echo "list --json: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
