#!/usr/bin/env bash
# The book's programs on the command line (model alone, --model, so the
# same on any machine): the program's own lines first, as its printf()s
# print them, then the lab's records; positional arguments read as the
# book's main() reads argv, and anything else refused with one line, exit 2.
set -u
bin=$1
. "$(dirname "$0")/cli_test_util.sh" # $tmp, check, run
has() { grep -qF -- "$1" "$tmp/${2:-out}"; }
lines() { wc -l <"$tmp/${1:-err}"; }
cd "$tmp" || exit 1

# usage CASE EXPECTED-TEXT ARGS...: exit 2, one line naming EXPECTED-TEXT.
usage() {
    local what=$1 text=$2
    shift 2
    run "$bin" "$@"
    check "$what: exit 2" test "$rc" -eq 2
    check "$what: one line" test "$(lines)" -eq 1
    check "$what: says '$text'" has "$text" err
    [ "$rc" -eq 2 ] || cat "$tmp/err" >&2
}

# readSegment 11 512: the book's lines (its %4d padding), then the records.
run "$bin" readSegment 11 512 --model
check "readSegment 11 512: exit 0" test "$rc" -eq 0
check "readSegment: the book's first line" \
    has "readSegment starting reduction at device 0: (no GPU: the model alone)  with array size 1048576"
check "readSegment: warmup line" has "warmup     <<< 2048,  512 >>> offset   11 elapsed n/a sec"
check "readSegment: readOffset line" has "readOffset <<< 2048,  512 >>> offset   11 elapsed n/a sec"
check "readSegment: the book's lines come first" \
    test "$(head -1 "$tmp/out" | cut -c1-11)" = "readSegment"
check "readSegment: two records" has "readSegment.cu (2 records)"
check "readSegment: the book's Fermi figure beside the model" has "49.81"
check "readSegment: 5 sectors per request" has "5.00"
run "$bin" readSegment --model
check "readSegment defaults: offset 0, block 512" \
    has "readOffset <<< 2048,  512 >>> offset    0 elapsed n/a sec"
run "$bin" readOffset 11 --model
check "readOffset answers as readSegment" has "readOffset <<< 2048,  512 >>> offset   11"
run "$bin" readSegment 11 --launch readOffset --model
check "--launch readOffset: one record" has "readSegment.cu (1 record)"
check "--launch readOffset: no warmup line" sh -c "! grep -q '^warmup' '$tmp/out'"

# The other programs' lines.
run "$bin" writeSegment 11 --model
check "writeSegment: its padding" has "writeOffset <<< 2048,  512 >>> offset   11 elapsed n/a sec"
check "writeSegment: unroll4 at a quarter grid" has "unroll4     <<<  512,  512 >>> offset   11"
run "$bin" simpleMathAoS --model
check "simpleMathAoS: its line" has "innerstruct <<< 32768, 128 >>> elapsed n/a sec"
check "simpleMathAoS: the book's 50%" has "book_fermi_gld_eff"
run "$bin" transpose 2 --model
check "transpose 2: exit 0" test "$rc" -eq 0
check "transpose 2: the book's first line" has "with matrix nx 2048 ny 2048 with kernel 2"
check "transpose 2: the kernel's line" \
    has "NaiveRow       elapsed n/a sec <<< grid (128,128) block (16,16)>>> effective bandwidth n/a GB"
check "transpose 2: warmup and NaiveRow only" has "transpose.cu (2 records)"
run "$bin" transpose 4 --model
check "transpose 4: grid.x for four columns a thread" has "grid (32,128) block (16,16)"
run "$bin" checkSmemSquare 1 --model
check "checkSmemSquare: its banner" has "with Bank Mode:4-Byte <<< grid (1,1) block (32,32)>>>"
check "checkSmemSquare 1: prints the transposed indices" \
    has "set row read col   :     0   32   64   96  128"
check "checkSmemSquare: six launches" has "checkSmemSquare.cu (6 records)"
run "$bin" checkSmemRectangle --model
check "checkSmemRectangle: 16 wavefronts a column read" has "16.00"
check "checkSmemRectangle 0: no data lines" sh -c "! grep -q 'setRowReadRow       :' '$tmp/out'"
run "$bin" constantStencil --model
check "constantStencil: the book's grid" has "array size: 16777216 (grid, block) 524288,32"
run "$bin" reduceIntegerShfl --model
check "reduceIntegerShfl: exit 0" test "$rc" -eq 0
cpu=$(sed -n 's/^cpu reduce          : \([0-9]*\)$/\1/p' "$tmp/out")
check "reduceIntegerShfl: the cpu sum" test -n "$cpu"
check "reduceIntegerShfl: reduceShfl's line" has "reduceShfl          : $cpu <<<grid 8 block 128>>>"
run "$bin" sumMatrixGPUManaged --model
check "sumMatrixGPUManaged: its gpu line" has "sumMatrix on gpu :	 n/a sec <<<(128,128), (32,32)>>>"

# simpleShfl: the shuffles' results by PTX's rules, width 16 (the book's
# printed output).
run "$bin" simpleShfl --model
check "simpleShfl: exit 0" test "$rc" -eq 0
check "simpleShfl: bcast" has "shfl bcast		:  2  2  2  2  2  2  2  2  2  2  2  2  2  2  2  2 "
check "simpleShfl: wrap right" has "shfl wrap right		: 14 15  0  1  2  3"
check "simpleShfl: up keeps lanes 0, 1" has "shfl up 		:  0  1  0  1  2  3  4"
check "simpleShfl: down keeps lanes 14, 15" has "shfl down 		:  2  3  4  5  6  7  8  9 10 11 12 13 14 15 14 15 "
check "simpleShfl: xor 1" has "shfl xor 1		:  1  0  3  2"
check "simpleShfl: xor -8 leaves the 16-lane segment" \
    has "shfl xor -1		:  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 "
check "simpleShfl: int4" has "shfl int4 1		:  4  5  6  7  0  1  2  3 12 13 14 15  8  9 10 11 "
check "simpleShfl: 15 launches" has "simpleShfl.cu (15 records)"

# The JSON on standard output: the program's lines go to standard error.
run "$bin" readSegment 11 --model --quiet --json -
check "--json -: exit 0" test "$rc" -eq 0
check "--json -: standard output is the JSON" test "$(head -c 1 "$tmp/out")" = "{"
check "--json -: the book's lines on standard error" has "readOffset <<< 2048" err

# The list and the help.
run "$bin" textbook
check "textbook: exit 0" test "$rc" -eq 0
check "textbook: files" has "chapter05/checkSmemSquare.cu"
check "textbook: usage" has "transpose [iKernel] [blockx] [blocky] [nx] [ny]"
check "textbook: the lab's names too" has "memTransfer"
run "$bin" help readSegment
check "help readSegment: argv" has "argv[2]  block"
check "help readSegment: the book's default" has "the book's default 512"
run "$bin" help transpose
check "help transpose: the experiment" has "transpose (experiment 17)"
check "help transpose: points to the book's program" has "The book's chapter04/transpose.cu"
run "$bin" list
check "list: the book's programs" has "cumemlab readSegment [offset] [blocksize]"

# Bad arguments: one line, exit 2, before anything runs.
usage "readSegment abc" "argument 1 (offset): 'abc' is not an integer" readSegment abc
usage "readSegment 11 2000" "argument 2 (block): '2000' is out of range (allowed 1..1024" \
    readSegment 11 2000
usage "readSegment 1 2 3" "3 arguments given, the program reads 2" readSegment 1 2 3
usage "readSegment --offset 11" "takes its arguments by position" readSegment --offset 11
usage "readSegment --size 4M" "--size: the book's programs run the book's sizes" \
    readSegment 11 --size 4M
usage "transpose 0 64 32" "block 64 x 32 is 2048 threads" transpose 0 64 32
usage "transpose 8" "argument 1 (kernel): '8' is out of range (allowed 0..7" transpose 8
usage "reduceIntegerShfl 30" "(allowed 7..23" reduceIntegerShfl 30
usage "simpleShfl 1" "1 argument given, the program reads 0" simpleShfl 1
usage "readSegment --launch bogus" "--launch" readSegment --launch bogus
check "no output file from a refused command" test -z "$(ls -A "$tmp" | grep -v -e '^out$' -e '^err$')"

echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
