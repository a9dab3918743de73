#!/usr/bin/env bash
# The HTML report in a real browser: `cumemlab report` renders the model's
# results of the tour (`cumemlab --model --json`, written at test time by
# ctest's fixture_results_model into $CML_TEST_GENERATED, or here when that
# is not set), tests/data/results-measured.json.gz (such a file with
# illustrative measurements and counters; decompressed there too, so that a
# build without zlib renders it as well) and compares two runs
# (tests/data/compare-a.json and compare-b.json: every chart must draw both),
# then headless Chromium loads each page with the network mapped to nowhere:
# the page must load with no console message (an SVG attribute error, a
# blocked fetch, a CSP violation would all show up there), every chart's
# <svg> must be in the DOM with marks in it, no table may run past the
# window, and a PNG screenshot is written for a person to look at (its path
# is printed).
# Chromium is Debian's `chromium` package (scripts/install-deps.sh installs
# it); without it the test is skipped (exit 77) and says why.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../data"
. "$here/cli_test_util.sh" # $tmp, check, run
model="${CML_TEST_GENERATED:-$tmp}/results-model.json"
measured="${CML_TEST_GENERATED:-$tmp}/results-measured.json"
[ -s "$model" ] || "$bin" --model --quiet --json "$model" 2>/dev/null
[ -s "$measured" ] || gzip -dc "$data/results-measured.json.gz" >"$measured"

# --- the report command itself (no browser needed) -----------------------
run "$bin" report
check "report without a file: exit 2" test $rc -eq 2
run "$bin" report "$tmp/missing.json"
check "report of a missing file: exit 1" test $rc -eq 1
check "report of a missing file: says so" grep -q "missing.json: cannot open" "$tmp/err"
printf '{"schema": "cumemlab-results",\n "schema_version": 1,\n "records": [1,]}\n' >"$tmp/bad.json"
run "$bin" report "$tmp/bad.json" --html "$tmp/bad.html"
check "malformed JSON: exit 1" test $rc -eq 1
check "malformed JSON: one line naming line, column and byte" \
    grep -qx "cumemlab: report: $tmp/bad.json: line 3, column 16 (byte 68): trailing comma before ']'" "$tmp/err"
check "malformed JSON: no HTML written" test ! -e "$tmp/bad.html"
run "$bin" report "$model" --offset 3
check "report with an experiment option: exit 2" test $rc -eq 2
run "$bin" report --help
check "report --help" grep -q "cumemlab report FILE.json" "$tmp/out"

for name in model measured; do
    src=$model
    [ $name = measured ] && src=$measured
    run "$bin" report "$src" --html "$tmp/$name.html" --csv "$tmp/$name.csv" --json "$tmp/$name.json"
    check "$name: report exits 0" test $rc -eq 0
    check "$name: table on stdout" grep -q "read-offset" "$tmp/out"
    check "$name: HTML written" test -s "$tmp/$name.html"
    check "$name: CSV written" test -s "$tmp/$name.csv"
    # JSON -> results -> JSON -> results -> JSON: the same text.
    run "$bin" report "$tmp/$name.json" --quiet --json "$tmp/$name-2.json" --html "$tmp/$name-2.html"
    check "$name: JSON round trip is exact" cmp -s "$tmp/$name.json" "$tmp/$name-2.json"
    check "$name: HTML from the re-read JSON is the same page" cmp -s "$tmp/$name.html" "$tmp/$name-2.html"
    # Self-contained: nothing that could fetch or run anything.
    check "$name: no script" sh -c "! grep -qi '<script' '$tmp/$name.html'"
    check "$name: no external reference" sh -c "! grep -Eqi 'https?://|src=|url\\(|@import|<link' '$tmp/$name.html'"
done
check "model-only banner" grep -q "No GPU was used:" "$tmp/model.html"
check "measured header" grep -q "Measured peak bandwidth: <strong>3011.2 GB/s</strong>" "$tmp/measured.html"
check "transfer-size chart from the copy records" \
    grep -q "<figcaption>Measured transfer bandwidth vs transfer size</figcaption>" "$tmp/measured.html"
check "counters chart" grep -q "Hardware counters: measured vs the model" "$tmp/measured.html"
# The run's diagnostics: a short section near the top (before the list of
# experiments), escaped, an experiment's linked to its section; none when
# the run had nothing to say.
"$bin" model read-offset --offset 0 --json "$tmp/quiet.json" >/dev/null 2>&1
"$bin" report "$tmp/quiet.json" --quiet --html "$tmp/quiet.html"
check "a run with no diagnostics: no diagnostics section" \
    sh -c "grep -q '\"diagnostics\": \[\]' '$tmp/quiet.json' && ! grep -q 'id=\"diagnostics\"' '$tmp/quiet.html'"
check "model: the tour's own diagnostic (device-facts waived without a GPU) shown" \
    grep -q 'id="diagnostics"' "$tmp/model.html"
# Two diagnostics of our own, put first in the tour's.
sed 's|^  "diagnostics": \[$|\
  "diagnostics": [{"level": "warning", "experiment": null, "message": "counters unavailable: <libcupti> \& more"},\
                  {"level": "error", "experiment": "stride", "message": "stride=2 failed"},|' \
    "$model" >"$tmp/diag.json"
run "$bin" report "$tmp/diag.json" --quiet --html "$tmp/diag.html"
check "diagnostics: report exits 0" test $rc -eq 0
check "diagnostics: the run's, escaped" grep -qF \
    '<tr><td class="waived">warning</td><td>run</td><td>counters unavailable: &lt;libcupti&gt; &amp; more</td></tr>' \
    "$tmp/diag.html"
check "diagnostics: an experiment's, linked to its section" grep -qF \
    '<tr><td class="failed">error</td><td><a href="#exp-6-stride">stride</a></td><td>stride=2 failed</td></tr>' \
    "$tmp/diag.html"
check "diagnostics: the section is there" grep -q 'id="exp-6-stride"' "$tmp/diag.html"
check "diagnostics: before the list of experiments" sh -c \
    "test \$(grep -n 'id=\"diagnostics-h\"' '$tmp/diag.html' | cut -d: -f1) -lt \$(grep -n '^<nav ' '$tmp/diag.html' | cut -d: -f1)"
check "--html on a run (model read-offset)" \
    "$bin" model read-offset --offset 0:32 --path ca,cg --quiet --html "$tmp/run.html"
check "--html on a run: charts drawn" grep -q "<figcaption>Predicted efficiency vs read offset" "$tmp/run.html"
# A live run and `report` of its JSON write the same table, CSV and HTML.
"$bin" model shared-banks --json "$tmp/live.json" --csv "$tmp/live.csv" \
    --html "$tmp/live.html" >"$tmp/live.txt" 2>/dev/null
"$bin" report "$tmp/live.json" --csv "$tmp/re.csv" --html "$tmp/re.html" >"$tmp/re.txt" 2>/dev/null
check "live run vs report: same table" cmp -s "$tmp/live.txt" "$tmp/re.txt"
check "live run vs report: same CSV" cmp -s "$tmp/live.csv" "$tmp/re.csv"
check "live run vs report: same HTML" cmp -s "$tmp/live.html" "$tmp/re.html"
check "live run: HTML has charts" grep -q "<svg class=\"chart\"" "$tmp/live.html"
run "$bin" model read-offset --html ""
check "--html with no file name: exit 2" test $rc -eq 2

# --- two runs compared -------------------------------------------------------
# tests/data/compare-{a,b}.json (tests/data/make_compare_fixtures.py lists
# their figures): two devices, one record only in each run, a counter and a
# model figure that differ.
run "$bin" report "$data/compare-a.json" "$data/compare-b.json" --html "$tmp/compare.html" \
    --csv "$tmp/compare.csv" --json "$tmp/compare.json"
check "compare: exit 0" test $rc -eq 0
check "compare: a line per experiment, with B/A" grep -qx \
    "read-offset     2       1       1     1.37x  1.25x offset=0  1.50x offset=11     0.73x         0      0" "$tmp/out"
check "compare: only in A" grep -qx "  read-offset (1): offset=32 path=ca block=512" "$tmp/out"
check "compare: runs named by device" grep -q "^B  NVIDIA H200: " "$tmp/out"
check "compare: CSV row" grep -qx \
    "stride,pattern=stride stride=8 block=256,both,ok,ok,400,400,1,0.04194304,0.04194304,1,0,1,,modern.global_ld.sectors=2097152/2098152" \
    "$tmp/compare.csv"
check "compare: JSON schema" grep -q '"schema": "cumemlab-comparison"' "$tmp/compare.json"
check "compare: HTML written" test -s "$tmp/compare.html"
check "compare: HTML has no script" sh -c "! grep -qi '<script' '$tmp/compare.html'"
run "$bin" report "$data/compare-a.json" "$tmp/missing.json"
check "compare with a missing file: exit 1" test $rc -eq 1
check "compare with a missing file: says which" grep -q "missing.json: cannot open" "$tmp/err"
run "$bin" report - - <"$data/compare-a.json"
check "compare: standard input only once: exit 2" test $rc -eq 2
run "$bin" report a.json b.json c.json
check "report of three files is a fleet: a missing file, exit 1" test $rc -eq 1
check "report of three files: says which" grep -q "a.json: cannot open" "$tmp/err"
run "$bin" report
check "report of no file: exit 2" test $rc -eq 2

# --- the browser -----------------------------------------------------------
. "$here/browser_util.sh" # find_browser, browse, browser_works, layout_of
find_browser
if [ -z "$browser" ]; then
    echo "$checks checks, $fails failed before the browser part"
    [ $fails -eq 0 ] || exit 1
    echo "SKIP: no headless Chromium (Debian package 'chromium'; scripts/install-deps.sh installs it when run as root)"
    exit 77
fi
# Can this browser run here at all? (A missing display library or a broken
# install is a reason to skip, not a failure of the report.)
if ! browser_works; then
    echo "$checks checks, $fails failed before the browser part"
    [ $fails -eq 0 ] || exit 1
    echo "SKIP: $browser cannot render a trivial page here: $browser_why"
    exit 77
fi

shots=${CML_SCREENSHOT_DIR:-$PWD/report-screenshots}
mkdir -p "$shots"
for name in model measured compare; do
    page="$tmp/$name.html"
    browse --dump-dom "file://$page" >"$tmp/$name.dom" 2>"$tmp/$name.log"
    load_rc=$?
    check "$name: Chromium loads the page" test $load_rc -eq 0
    check "$name: the whole page is in the DOM" grep -q 'id="cml-end"' "$tmp/$name.dom"
    # Console messages of the page (errors, warnings, CSP violations) and
    # uncaught errors: there must be none.
    grep -E 'CONSOLE|Uncaught|Refused to|Failed to load' "$tmp/$name.log" >"$tmp/$name.console"
    check "$name: no console message" test ! -s "$tmp/$name.console"
    [ -s "$tmp/$name.console" ] && sed 's/^/  /' "$tmp/$name.console" | head -20 >&2
    # Every chart in the file reached the DOM, each with its marks.
    want=$(grep -o '<svg class="chart"' "$page" | wc -l)
    check "$name: the page has charts" test "$want" -ge 6
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$tmp/$name.dom" "$want" "$name" >"$tmp/$name.svgcheck" 2>&1 <<'PY'
import sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts, self.depth, self.cur = [], 0, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "chart" in (a.get("class") or ""):
            self.cur = {"label": a.get("aria-label", ""), "marks": 0, "texts": 0,
                        "w": a.get("width"), "h": a.get("height"), "nodata": False,
                        "groups": set()}
            self.depth = 1
            return
        if self.cur is not None:
            if tag == "g" and a.get("data-group"):
                self.cur["groups"].add(a["data-group"])
            if tag in ("circle", "rect", "path", "polyline", "line"):
                # The frame rect and the grid are not marks: count only filled
                # markers, bars and data lines.
                if tag == "polyline" or (tag in ("circle", "path") and a.get("fill", "").startswith("#")) \
                        or (tag == "rect" and a.get("fill", "") not in ("#fff", "")):
                    self.cur["marks"] += 1
            if tag == "text":
                self.cur["texts"] += 1
            if tag not in ("circle", "rect", "path", "polyline", "line"):
                self.depth += 1
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.cur is not None and tag not in ("circle", "rect", "path", "polyline", "line", "svg"):
            self.depth -= 1
    def handle_endtag(self, tag):
        if self.cur is None:
            return
        if tag in ("circle", "rect", "path", "polyline", "line"):
            return
        self.depth -= 1
        if tag == "svg" and self.depth <= 0:
            self.charts.append(self.cur)
            self.cur = None
    def handle_data(self, data):
        if self.cur is not None and data.strip() == "no data":
            self.cur["nodata"] = True

p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
want = int(sys.argv[2])
bad = [c for c in p.charts if c["marks"] == 0 or c["texts"] < 3 or c["nodata"]
       or not c["w"] or not c["h"]]
# Two runs compared: every chart draws both (series of groups A and B).
one = [c for c in p.charts if sys.argv[3] == "compare" and c["groups"] != {"A", "B"}]
print(f"{len(p.charts)} charts in the DOM (the file has {want}); {len(bad)} empty"
      + (f"; {len(p.charts) - len(one)} with both runs" if sys.argv[3] == "compare" else ""))
for c in bad:
    print("  empty chart:", c["label"])
for c in one:
    print("  a chart without both runs:", c["label"], sorted(c["groups"]))
sys.exit(0 if len(p.charts) == want and not bad and not one else 1)
PY
        svg_rc=$?
        check "$name: every chart's SVG is in the DOM, none empty: $(head -1 "$tmp/$name.svgcheck")" \
            test $svg_rc -eq 0
        [ -s "$tmp/$name.svgcheck" ] && tail -n +2 "$tmp/$name.svgcheck" >&2
    else
        got=$(grep -o '<svg class="chart"' "$tmp/$name.dom" | wc -l)
        check "$name: every chart's SVG is in the DOM ($got of $want)" test "$got" -eq "$want"
    fi
    # No table wider than the window: each scrolls in its own box, at a
    # desktop width and a narrow one.
    for width in 1280 700; do
        layout_of "$page" $width >"$tmp/$name.layout"
        check "$name: at $width px every table fits or scrolls in its box" \
            grep -qx FITS "$tmp/$name.layout"
        grep -qx FITS "$tmp/$name.layout" || sed 's/^/  /' "$tmp/$name.layout" >&2
    done
    browse --window-size=1280,2400 --screenshot="$shots/report-$name.png" "file://$page" \
        >/dev/null 2>"$tmp/$name.shot.log"
    check "$name: screenshot written" test -s "$shots/report-$name.png"
    check "$name: screenshot is a PNG" sh -c "head -c 8 '$shots/report-$name.png' | od -An -tx1 | tr -d ' \n' | grep -qx 89504e470d0a1a0a"
    echo "screenshot: $shots/report-$name.png"
done

echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
