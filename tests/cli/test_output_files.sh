#!/usr/bin/env bash
# Output files on the command line (--json, --csv, --html; rules in
# src/report/output_file.h and docs/json-schema.md):
#   - standard output by any name ("-", /dev/stdout, a link to
#     /proc/self/fd/1) is written in place and never replaced, nor is a
#     device or a FIFO; a link to a regular file stays a link while its
#     target is replaced; a directory is refused;
#   - a replaced file keeps its mode (and, when root writes, its owner); a
#     new one gets 0666 & ~umask; no temporary file is ever left;
#   - every output path is checked before anything runs: a bad one, or two
#     outputs naming one file, is a usage error (exit 2) and writes nothing;
#   - `report` refuses input beyond its 1 GiB cap (an endless stream of white
#     space stops there), and stops at the first byte that cannot be JSON.
# Runs as root or not. As root, system files are never used as targets (a
# regression would replace them): links in the scratch folder stand in for
# /dev/stdout and /dev/null. The parts that need root, or need not to be
# root, are skipped otherwise, saying so.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_test_util.sh" # $tmp, check, run
root=0
[ "$(id -u)" -eq 0 ] && root=1
gen=("$bin" model read-offset --offset 0,11 --path ca --quiet)
is_json() { grep -q '"schema": "cumemlab-results"' "$1"; }
no_temporaries() { [ -z "$(find "$tmp" -name '*.tmp*' -print -quit)" ]; }

# --- standard output, in place ----------------------------------------------
run "${gen[@]}" --json -
check "--json -: exit 0" test $rc -eq 0
check "--json -: the JSON on standard output" is_json "$tmp/out"

# Without -q: standard output holds the machine format alone (it parses),
# and what a person reads (the table) goes to standard error.
human=("$bin" model read-offset --offset 0,11 --path ca)
json_alone() { # one JSON document and nothing else (python3 parses it where present)
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"
    else
        [ "$(head -c 1 "$1")" = "{" ] && [ "$(tail -n 1 "$1")" = "}" ]
    fi
}
run "${human[@]}" --json -
check "--json - without -q: exit 0" test $rc -eq 0
check "--json - without -q: standard output is the JSON alone" json_alone "$tmp/out"
check "--json - without -q: the table on standard error" grep -q 'sect/req' "$tmp/err"
run "${human[@]}" --csv /dev/stdout
check "--csv /dev/stdout without -q: standard output starts with the CSV header" \
    sh -c "head -n 1 '$tmp/out' | grep -q '^experiment,'"
check "--csv /dev/stdout without -q: no table there" sh -c "! grep -q 'sect/req' '$tmp/out'"
check "--csv /dev/stdout without -q: the table on standard error" grep -q 'sect/req' "$tmp/err"
run "${human[@]}" --json "$tmp/file.json"
check "--json FILE: the table stays on standard output" grep -q 'sect/req' "$tmp/out"
run "$bin" readSegment 11 --json -
check "readSegment --json -: standard output is the JSON alone" json_alone "$tmp/out"

cd "$tmp" || exit 1
ln -s /proc/self/fd/1 o.json
run "${gen[@]}" --json o.json
check "link to /proc/self/fd/1: exit 0" test $rc -eq 0
check "link to /proc/self/fd/1: still a link" test -L o.json
check "link to /proc/self/fd/1: the JSON on standard output" is_json "$tmp/out"

# Standard output redirected to a file: written through, the file (the
# shell's) not replaced.
if [ $root -eq 1 ]; then stdout_name=$tmp/stdout-link; ln -s /proc/self/fd/1 "$stdout_name"
else stdout_name=/dev/stdout; fi
: >"$tmp/redirected.txt"
ino=$(stat -c %i "$tmp/redirected.txt")
"${gen[@]}" --csv "$stdout_name" >>"$tmp/redirected.txt" 2>"$tmp/err"
check "--csv $stdout_name: exit 0" test $? -eq 0
check "--csv $stdout_name: the CSV in the redirected file" grep -q '^experiment,' "$tmp/redirected.txt"
check "--csv $stdout_name: that file not replaced" test "$(stat -c %i "$tmp/redirected.txt")" = "$ino"
[ $root -eq 1 ] && check "--csv $stdout_name: still a link" test -L "$stdout_name"

# --- devices and FIFOs, in place --------------------------------------------
if [ $root -eq 1 ]; then null_name=$tmp/null-link; ln -s /dev/null "$null_name"
else null_name=/dev/null; fi
run "${gen[@]}" --json "$null_name" --csv "$tmp/with-null.csv"
check "--json $null_name: exit 0" test $rc -eq 0
check "--json $null_name: /dev/null still a device" test -c /dev/null
[ $root -eq 1 ] && check "--json $null_name: the link stays" test -L "$null_name"
# Two outputs thrown away are no conflict: /dev/null takes each in place.
run "${gen[@]}" --json /dev/null --csv /dev/null --html /dev/null
check "--json, --csv and --html all /dev/null: exit 0" test $rc -eq 0
check "--json, --csv and --html all /dev/null: nothing said" test ! -s "$tmp/err"

mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
reader=$!
run "${gen[@]}" --json "$tmp/fifo"
# Had the run not opened the FIFO, the reader would wait for ever: give it
# its end of file.
kill -0 $reader 2>/dev/null && timeout 5 sh -c ": >'$tmp/fifo'"
wait $reader
check "FIFO: exit 0" test $rc -eq 0
check "FIFO: the reader got the JSON" is_json "$tmp/from-fifo"
check "FIFO: still a FIFO" test -p "$tmp/fifo"

# --- files: replaced atomically, mode kept ------------------------------------
printf 'old\n' >"$tmp/private.json"
chmod 600 "$tmp/private.json"
run "${gen[@]}" --json "$tmp/private.json"
check "0600 file: replaced" is_json "$tmp/private.json"
check "0600 file: still 0600" test "$(stat -c %a "$tmp/private.json")" = 600
(umask 077 && "${gen[@]}" --json "$tmp/new077.json")
check "new file, umask 077: 0600" test "$(stat -c %a "$tmp/new077.json")" = 600
(umask 022 && "${gen[@]}" --json "$tmp/new022.json")
check "new file, umask 022: 0644" test "$(stat -c %a "$tmp/new022.json")" = 644

mkdir "$tmp/real"
printf 'old\n' >"$tmp/real/target.json"
ln -s real/target.json "$tmp/link.json"
run "${gen[@]}" --json "$tmp/link.json"
check "link to a file: exit 0" test $rc -eq 0
check "link to a file: still a link" test -L "$tmp/link.json"
check "link to a file: its target replaced" is_json "$tmp/real/target.json"

run "${gen[@]}" --json "$tmp/real"
check "directory: refused" test $rc -ne 0
check "directory: says so" grep -q "is a directory" "$tmp/err"
check "directory: still a directory" test -d "$tmp/real"

if [ $root -eq 1 ]; then
    printf 'old\n' >"$tmp/users.json"
    chown 65534:65534 "$tmp/users.json"
    run "${gen[@]}" --json "$tmp/users.json"
    check "root replacing a user's file: replaced" is_json "$tmp/users.json"
    check "root replacing a user's file: still the user's" \
        test "$(stat -c %u:%g "$tmp/users.json")" = 65534:65534
else
    echo "SKIP (not root): owner kept when root replaces a user's file"
fi
check "no temporary file left" no_temporaries

# --- checked before the run -----------------------------------------------------
run "${gen[@]}" --json "$tmp/a.json" --csv "$tmp/nodir/x.csv" --html "$tmp/a.html"
check "missing folder: usage error (exit 2)" test $rc -eq 2
check "missing folder: named" grep -q "nodir" "$tmp/err"
check "missing folder: nothing written" test ! -e "$tmp/a.json" -a ! -e "$tmp/a.html"
run "${gen[@]}" --json "$tmp/a.json" --html "$tmp/real"
check "directory as output: exit 2" test $rc -eq 2
check "directory as output: nothing written" test ! -e "$tmp/a.json"
run "${gen[@]}" --json "$tmp/same.json" --csv "$tmp/./real/../same.json"
check "two outputs, one file: exit 2" test $rc -eq 2
check "two outputs, one file: nothing written" test ! -e "$tmp/same.json"
run "${gen[@]}" --json "$tmp/link.json" --csv "$tmp/real/target.json"
check "two outputs, one file by a link: exit 2" test $rc -eq 2
if [ $root -eq 0 ]; then
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    run "${gen[@]}" --json "$tmp/ro/x.json"
    check "read-only folder: exit 2" test $rc -eq 2
    check "read-only folder: says so" grep -q "not writable" "$tmp/err"
    chmod 755 "$tmp/ro"
else
    echo "SKIP (root): a read-only folder (root may write anywhere)"
fi

# --- the reader's input cap -------------------------------------------------------
run "$bin" report /dev/zero
check "report /dev/zero: stops, exit 1" test $rc -eq 1
check "report /dev/zero: at its first byte" \
    grep -q "/dev/zero: line 1, column 1 (byte 0): unexpected byte 0x00" "$tmp/err"
# White space for ever is valid JSON so far: only the cap stops it.
tr '\0' ' ' </dev/zero | "$bin" report - >"$tmp/out" 2>"$tmp/err"
rc=$?
check "report of endless white space: stops, exit 1" test $rc -eq 1
check "report of endless white space: names the 1 GiB cap" grep -q "larger than 1 GiB" "$tmp/err"

cd / || exit 1
echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
