#!/usr/bin/env bash
# Usage errors as a new user (or an attacker) meets them: an option's value
# is never the next option, nothing is silently ignored, the same case gets
# the same exit code and wording everywhere, and every message says what
# happened. Each case: exit 2, one line on stderr, no output file.
set -u
bin=$1
. "$(dirname "$0")/cli_test_util.sh" # $tmp, check, run
has() { grep -qF -- "$1" "$tmp/${2:-err}"; }
lines() { wc -l <"$tmp/err"; }
cd "$tmp" || exit 1

# usage CASE EXPECTED-TEXT ARGS...: exit 2, one line naming EXPECTED-TEXT.
usage() {
    local what=$1 text=$2
    shift 2
    run "$bin" "$@"
    check "$what: exit 2" test "$rc" -eq 2
    check "$what: one line" test "$(lines)" -eq 1
    check "$what: says '$text'" has "$text"
    [ "$rc" -eq 2 ] || cat "$tmp/err" >&2
}

# 5. A value is never the next option: no file named --quiet.
usage "--json --quiet" "--json needs a value" model read-offset --json --quiet
check "--json --quiet: no file named --quiet" test ! -e "$tmp/--quiet"
run "$bin" model read-offset --offset 1 --quiet --json=./-x.json
check "--json=./-x.json is a file name" test "$rc" -eq 0 -a -s "$tmp/-x.json"

# 6. Nothing silently ignored: an option or argument that does not apply.
usage "tour --expr" "--expr does not apply to tour" --expr i
usage "suite --expr" "--expr does not apply to suite" suite --expr i
usage "list --offset" "--offset does not apply to list" list --offset 3
usage "help extra argument" "help takes one topic" help read-offset extra
usage "--version --frob" "--version does not apply" model read-offset --version --frob
for opt in "--reps 5" "--warmup 3" "--peak 1000" "--device 1" "--counters on"; do
    # shellcheck disable=SC2086 # the option and its value are two words
    usage "model $opt" "does not apply to model" model read-offset $opt
done
usage "device takes no experiment option" "--offset does not apply to device" device --offset 3
usage "device --all --device 1" "--all and --device N name different GPUs" device --all --device 1
usage "run --all" "--all does not apply to run" run peer --all

# 7. One code, one wording for --model on the GPU-only commands.
for cmd in run suite device validate; do
    if [ "$cmd" = run ]; then set -- run read-offset; else set -- "$cmd"; fi
    usage "$cmd --model" "--model does not apply to $cmd" "$@" --model
done

# 8. Messages say what happened.
usage "-x" "unknown option '-x'" -x
usage "model -x" "unknown option '-x'" model -x
usage "-qh" "unknown option '-qh'" -qh
usage "model --version" "--version does not apply to model" model --version
usage "help read" "'read' is ambiguous: read-offset, read-only" help read
usage "--json ." "is a directory" model read-offset --json .
usage "--n 2^70" "--n: out of range: '2^70' (allowed: 0..17179869184)" model read-offset --n 2^70
usage "--offset 99999999999999999999" "out of range" model read-offset --offset 99999999999999999999
usage "readSegment abc" "argument 1 (offset): 'abc' is not an integer" readSegment abc
check "readSegment abc: no model-only notice first" sh -c "! grep -q 'no GPU used' '$tmp/err'"

usage "--expr --block 33x33" "--block 33x33: 1089 threads per block" model --expr i --block 33x33
# A sweep the model would answer in minutes: refused before anything runs.
usage "model sweep of 49152 points" \
    "49152 points (--offset 512 x --path 3 x --block 32); a model run answers at most 1024" \
    model read-offset --offset 0:511 --block 32:1024:32 --json "$tmp/big.json"
check "model sweep of 49152 points: no output file" test ! -e "$tmp/big.json"
check "--block 33x33 names what was typed" sh -c "! grep -q -- '--bdx' '$tmp/err'"

# 9. Every thread inactive: waived with the reason, not "0.00 sectors per
# request"; and a run whose every record is waived showed nothing: exit 1
# (a run that failed), saying so after the reasons, the file still written.
run "$bin" model read-offset --offset 1048576 --n 2^20 --path ca --json "$tmp/w.json"
check "offset past n: exit 1, nothing to show" test "$rc" -eq 1
check "offset past n: says the one record was waived" \
    has "nothing to show: the one record was waived"
check "offset past n: waived" grep -q '"state": "waived"' "$tmp/w.json"
check "offset past n: says nothing is read" grep -q 'every thread is guarded off and nothing is read' "$tmp/w.json"
check "offset past n: no sectors finding" sh -c "! grep -q '0.00 sectors per request' '$tmp/w.json'"
check "offset past n: a warning diagnostic" grep -q '"level": "warning"' "$tmp/w.json"

run "$bin" model expr --base 3138 --n 4096 --quiet
check "expr, every variant refused: exit 1" test "$rc" -eq 1
check "expr, every variant refused: the reasons" has "must be a multiple of --elem"
check "expr, every variant refused: says so last" \
    sh -c "tail -n 1 '$tmp/err' | grep -q 'nothing to show: all 17 records were waived'"
run "$bin" model aos-soa --touched 4 --fields 2
check "no variant left: exit 1" test "$rc" -eq 1
check "no variant left: says so" has "no records: the options given leave no variant to run"
# ... but a run with figures beside waived records is a run that worked.
run "$bin" --model --quick --quiet
check "tour beside a waived device-facts: exit 0" test "$rc" -eq 0

# 10. A stray argument or an unknown option is named as such.
usage "list extra" "list takes no arguments, not 'extra'" list extra
usage "model NAME extra" "model read-offset: unexpected argument 'extra'" model read-offset extra
usage "run NAME extra" "run read-offset: unexpected argument 'extra'" run read-offset extra
usage "--bogus alone" "unknown option '--bogus' (cumemlab --help lists the options)" --bogus
usage "model NAME --bogus" \
    "unknown option '--bogus' (cumemlab help read-offset lists its options)" \
    model read-offset --bogus
usage "--offset alone still needs a value" "--offset needs a value" model read-offset --offset
usage "--bogus 1 names the experiment's options" "--bogus: not an option of read-offset" \
    model read-offset --bogus 1

# 11. The range an option declares is the range it accepts: what --help
# allows runs, what cannot run is refused before the run.
for h in 1 2 4 8; do
    usage "hierarchy --hops $h" "--hops: out of range: '$h' (allowed: 0 or powers of two in 16.." \
        model hierarchy --op chase --hops "$h"
done
usage "hierarchy --ws=1024" \
    "--ws: 1024 does not suit --op read: read needs a multiple of 1024 bytes, 16384 at least" \
    model hierarchy --ws=1024
usage "suite --ws=1024" "--ws: 1024 does not suit --op read" suite --ws=1024
run "$bin" model hierarchy --ws=1024 --op chase --hops 16 --quiet
check "hierarchy chase at 1K, 16 hops: exit 0" test "$rc" -eq 0

# An experiment's own option wins over the global one of the same name, and
# takes lists; sizes take T.
run "$bin" model transfers --mode link --size 64M,512M --link gen4 --lanes 16 --json "$tmp/t.json"
check "transfers --size list: exit 0" test "$rc" -eq 0
check "transfers --size list: two link records" test "$(grep -c '"mode": "link"' "$tmp/t.json")" -eq 2
run "$bin" run read-offset --size 1T --model
check "--size 1T parses (the run then refuses --model)" has "--model does not apply to run"

# No output file was left by any refused command.
check "no stray files" test -z "$(ls -A "$tmp" | grep -v -e '^out$' -e '^err$' -e '^-x.json$' \
    -e '^w.json$' -e '^t.json$')"

echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
