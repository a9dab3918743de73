#!/usr/bin/env bash
# The committed results (bench/results/**/*.json.gz) as a reader meets them:
#   - `cumemlab report` renders every one: exit 0, and a terminal table that
#     names the device and the command that made the file (validate's
#     verdicts, cumemlab-validation: bench/compare_levels.py --verdicts
#     reads each and names the device);
#   - nothing generated is committed there (no .html), and no plain .json;
#   - the two cards' runs compared, by the command h100-vs-h200.md gives;
#   - the HTML page of each full suite is at most 3 MB (it was 6.8 MB: the
#     counters written once per reading, every repeated reading charted
#     again), and with headless Chromium, no table on it runs past the
#     window at 1280 or 700 px (each scrolls in its own box);
#   - a cumemlab built without zlib (CML_EXPECT_ZLIB=0, set by the build)
#     refuses each file with one line that says so, and writes nothing.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
results="$here/../../bench/results"
. "$here/cli_test_util.sh" # $tmp, check, run

# validate's verdicts (schema cumemlab-validation) are no results file: their
# reader is bench/compare_levels.py --verdicts, checked below.
files=() verdicts=()
while IFS= read -r f; do
    if gzip -dc "$f" | head -c 400 | grep -q '"schema": *"cumemlab-validation"'; then
        verdicts+=("$f")
    else
        files+=("$f")
    fi
done < <(find "$results" -name '*.json.gz' | sort)
check "there are committed results to read (${#files[@]})" test ${#files[@]} -gt 0
for f in "${verdicts[@]}"; do
    out=$(python3 "$here/../../bench/compare_levels.py" --verdicts "$f" 2>&1)
    check "${f#$results/}: compare_levels.py --verdicts reads it" \
        sh -c "printf '%s' \"\$1\" | grep -q '^device: NVIDIA H'" _ "$out"
done
for name in h100/2026-11-24-suite h100/2026-11-24-suite-2 h200/2026-11-24-suite \
    h100/2026-11-24-hierarchy 2026-11-24-h100-expr; do
    check "$name.json.gz is there" test -s "$results/$name.json.gz"
done
check "no generated HTML committed" sh -c "[ -z \"\$(find '$results' -name '*.html')\" ]"
check "no uncompressed results committed" sh -c "[ -z \"\$(find '$results' -name '*.json')\" ]"

if [ "${CML_EXPECT_ZLIB:-1}" = 0 ]; then
    for f in "${files[@]}"; do
        run "$bin" report "$f" --html "$tmp/no.html"
        check "${f#$results/}: exit 1 without zlib" test $rc -eq 1
        check "${f#$results/}: says that zlib is missing" \
            grep -q "compressed with gzip, but this cumemlab was built without zlib" "$tmp/err"
        check "${f#$results/}: no HTML written" test ! -e "$tmp/no.html"
    done
    echo "$checks checks, $fails failed (built without zlib: every file must be refused)"
    [ $fails -eq 0 ]
    exit
fi

for f in "${files[@]}"; do
    run "$bin" report "$f"
    check "${f#$results/}: report exits 0" test $rc -eq 0
    check "${f#$results/}: a table naming the command and the GPU" \
        sh -c "grep -q '^command: .*cumemlab' '$tmp/out' && grep -q '^GPU 0: NVIDIA H' '$tmp/out'"
done

# The two cards compared, as bench/results/h100-vs-h200.md says to make the
# page it no longer commits.
run "$bin" report "$results/h100/2026-11-24-suite-2.json.gz" "$results/h200/2026-11-24-suite.json.gz" \
    --html "$tmp/h100-vs-h200.html"
check "H100 against H200: exit 0" test $rc -eq 0
# (the lines wrap where the paths are long: read them joined)
tr -s ' \n' '  ' <"$tmp/out" >"$tmp/joined"
check "H100 against H200: 1158 records on each side" sh -c \
    "grep -q 'A NVIDIA H100 80GB HBM3: [^,]*, 1158 records' '$tmp/joined' && grep -q 'B NVIDIA H200: [^,]*, 1158 records' '$tmp/joined'"
check "H100 against H200: the page written" test -s "$tmp/h100-vs-h200.html"
check "h100-vs-h200.md gives that command" grep -qF \
    "build/cumemlab report bench/results/h100/2026-11-24-suite-2.json.gz bench/results/h200/2026-11-24-suite.json.gz --html h100-vs-h200.html" \
    "$results/h100-vs-h200.md"

# The full suites' pages: at most 3 MB.
limit=3000000
for name in h100/2026-11-24-suite h100/2026-11-24-suite-2 h200/2026-11-24-suite; do
    page="$tmp/$(echo "$name" | tr / -).html"
    run "$bin" report "$results/$name.json.gz" --quiet --html "$page"
    size=$(stat -c %s "$page" 2>/dev/null || echo 0)
    echo "$name: HTML $size bytes"
    check "$name: HTML written" test $rc -eq 0 -a "$size" -gt 100000
    check "$name: HTML $size bytes, at most $limit" test "$size" -le $limit
done

# And in a browser: no table wider than the window.
. "$here/browser_util.sh" # find_browser, browse, browser_works, layout_of
find_browser
if [ -z "$browser" ] || ! browser_works; then
    echo "$checks checks, $fails failed; the layout in a browser not checked: ${browser:-no headless Chromium}${browser_why:+: $browser_why}"
    [ $fails -eq 0 ] || exit 1
    exit 77
fi
page="$tmp/h100-2026-11-24-suite-2.html"
for width in 1280 700; do
    layout_of "$page" $width >"$tmp/layout"
    check "the suite's page at $width px: every table fits or scrolls in its box" \
        grep -qx FITS "$tmp/layout"
    grep -qx FITS "$tmp/layout" || sed 's/^/  /' "$tmp/layout" >&2
done
echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
