# Sourced by the CLI tests (tests/cli/test_*.sh): a scratch folder $tmp
# removed on exit, the counters $checks and $fails, and:
#   check WHAT CMD...  counts a check; CMD must succeed, else "FAIL: WHAT"
#   run CMD...         captures stdout in $tmp/out, stderr in $tmp/err, the
#                      exit status in $rc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0

check() { # description, then a command that must succeed
    local what=$1; shift
    checks=$((checks + 1))
    if ! "$@"; then
        echo "FAIL: $what" >&2
        fails=$((fails + 1))
    fi
}
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
