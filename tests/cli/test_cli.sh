#!/usr/bin/env bash
# The command line as a user meets it: help, list, the model's figures for
# the textbook cases, bad input (one line naming the option, exit 2, no
# output file), the no-GPU behaviour, and the output files.
set -u
bin=$1
. "$(dirname "$0")/cli_test_util.sh" # $tmp, check, run
has() { grep -qF -- "$1" "$tmp/${2:-out}"; }
lines() { wc -l <"$tmp/${1:-err}"; }

run "$bin" --help
check "--help exits 0" test $rc -eq 0
check "--help shows usage" has "Usage:"
run "$bin" --version
check "--version" has "cumemlab 0."

run "$bin" list
check "list exits 0" test $rc -eq 0
check "list names read-offset" has "read-offset"
check "list shows ranges" has "0..1048576"
check "list shows textbook names" has "readSegment [offset] [blocksize]"

# The textbook figures (model): offset 11 reads at n = 2^20, block 512.
run "$bin" model read-offset --offset 11 --path ca --n 2^20 --block 512 --json "$tmp/r.json" --csv "$tmp/r.csv"
check "model read-offset exits 0" test $rc -eq 0
check "5.00 sectors per request at offset 11" has "5.00"
check "80.0% modern efficiency" has "80.0"
check "50.0% Fermi cached efficiency" has "50.0"
check "JSON written" test -s "$tmp/r.json"
check "CSV written" test -s "$tmp/r.csv"
check "JSON numbers are numbers" grep -q '"offset": *11' "$tmp/r.json"
check "no temporary file left" test -z "$(ls "$tmp" | grep tmp)"

# Textbook program names with their positional arguments.
run "$bin" writeSegment 11
check "writeSegment 11 exits 0" test $rc -eq 0
check "writeSegment shows 5.00 sectors per request" has "5.00"

# Index expressions.
run "$bin" model --expr 'i*2' --n 2^21
check "--expr i*2 exits 0" test $rc -eq 0
check "--expr i*2: 8 sectors per request" has "8.00"
run "$bin" model --expr '(i%32)*33' --space shared --threads 1024 --n 2^20
check "--expr shared padded column: exits 0" test $rc -eq 0
run "$bin" model --expr '1+' 
check "--expr syntax error exits 2" test $rc -eq 2
check "--expr error shows a caret" has "^" err
run "$bin" model --expr 'i/0'
check "--expr division by zero exits 2" test $rc -eq 2

# Bad input: one line, naming the option and the range, exit 2, no file.
for bad in "--offset 99999999" "--offset abc" "--path xx" "--block 0" "--block 2048" "--bogus 1"; do
    rm -f "$tmp/bad.json"
    run "$bin" model read-offset $bad --json "$tmp/bad.json"
    opt=${bad%% *}
    check "$bad exits 2" test $rc -eq 2
    check "$bad: one line" test "$(lines)" -eq 1
    check "$bad: names the option" has "$opt" err
    check "$bad: no output file" test ! -e "$tmp/bad.json"
done
run "$bin" model read-offset --offset 99999999
check "range shown" has "allowed: 0..1048576" err
for bad in "--reps 0" "--reps x" "--warmup -1" "--device 99999" "--where l3" "--size 1" \
    "--peak 0" "--peak 2000000" "--peak fast"; do
    run "$bin" run read-offset $bad
    check "$bad exits 2" test $rc -eq 2
    check "$bad: one line" test "$(lines)" -eq 1
done
check "--peak's range shown" has "allowed: 1..1000000" err
# suite and the tour: an experiment option applies where an experiment has
# it; one that none has, or a value out of range, is bad input.
run "$bin" suite --frob 3
check "suite --frob exits 2" test $rc -eq 2
check "suite --frob says no experiment has it" has "--frob: no experiment has this option" err
run "$bin" --iters 0
check "tour --iters 0 exits 2" test $rc -eq 2
check "tour --iters 0 names the range" has "allowed: 1..65536" err
run "$bin" --quick --quiet --iters 3 --model --json "$tmp/iters.json"
check "tour --iters 3 exits 0" test $rc -eq 0
check "tour --iters 3 reaches shared-banks" grep -q '"iters": *3' "$tmp/iters.json"
check "tour --iters 3 leaves no default" test "$(grep -c '"iters": *256' "$tmp/iters.json")" -eq 0
check "tour --quiet to a log: no progress lines" sh -c "! grep -q 'elapsed' '$tmp/err'"
# Progress where stderr is no terminal (here a file): a plain line as each
# experiment starts, never the terminal's rewritten line (none with --quiet:
# the tour --iters 3 above).
nexp=$("$bin" list | grep -cE '^ ?[0-9]+  [a-z]')
run "$bin" --model --quick
check "tour to a log: a line as the first experiment starts" \
    grep -q "^cumemlab: \[1/$nexp\] read-offset \.\.\. [0-9.]* s elapsed$" "$tmp/err"
check "tour to a log: and as the last starts" grep -q "^cumemlab: \[$nexp/$nexp\] " "$tmp/err"
# (a sweep longer than 10 s, as under the sanitizers, adds "NAME 5/16 ..." lines)
check "tour to a log: one line per experiment as it starts" \
    test "$(grep -c "^cumemlab: \[[0-9]*/$nexp\] [a-z0-9-]* \.\.\. " "$tmp/err")" -eq "$nexp"
check "tour to a log: no terminal control" sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/err'"
check "tour to a log: no progress on stdout" sh -c "! grep -q 'elapsed' '$tmp/out'"
run "$bin" frobnicate
check "unknown command exits 2" test $rc -eq 2
run "$bin" model no-such-experiment
check "unknown experiment exits 2" test $rc -eq 2
run "$bin" model read-offset --json /nonexistent/dir/x.json
check "unwritable --json exits 2 before running" test $rc -eq 2
check "unwritable --json says why" has "--json" err

# Without a GPU: GPU commands say so in one line and exit 1; the tour falls
# back to the model and says so.
if "$bin" device >/dev/null 2>&1; then
    echo "a GPU is present: the no-GPU checks are left to CI" >&2
else
    run "$bin" run read-offset
    check "run without GPU exits 1" test $rc -eq 1
    check "run without GPU: one line" test "$(lines)" -eq 1
    check "run without GPU says so" has "needs a GPU" err
    run "$bin" suite
    check "suite without GPU exits 1" test $rc -eq 1
    check "suite without GPU: one line" test "$(lines)" -eq 1
    check "suite without GPU: names the model-only forms" \
        has "cumemlab --model runs the tour on the model alone and cumemlab model NAME" err
    run "$bin" device
    check "device without GPU exits 1" test $rc -eq 1
    run "$bin" device --all --json "$tmp/all.json"
    check "device --all without GPU exits 1" test $rc -eq 1
    check "device --all without GPU: one line" test "$(lines)" -eq 1
    check "device --all without GPU says so" has "device --all needs a GPU" err
    check "device --all without GPU: no results file" test ! -e "$tmp/all.json"
    run "$bin" --json "$tmp/tour.json"
    check "tour without GPU exits 0" test $rc -eq 0
    check "tour says it is model-only" has "the model alone runs" err
    check "tour table says predictions" has "prediction"
    check "tour JSON says model_only" grep -q '"model_only": *true' "$tmp/tour.json"
fi

echo "$((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
