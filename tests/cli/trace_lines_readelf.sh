#!/usr/bin/env bash
# The line table of a cubin the build compiled afresh (tests/data/trace/
# lines.cu, -lineinfo), as src/trace/trace_lines.c reads it, against
# binutils' readelf --debug-dump=decodedline, an independent reader: the
# same rows (line, address), whatever nvcc version made the cubin.
# Usage: trace_lines_readelf.sh TEST_TRACE_LINES CUBIN. Skipped (77)
# without readelf.
set -u
command -v readelf >/dev/null 2>&1 || { echo "readelf not found: skipped"; exit 77; }
# "LINE ADDRESS" per row, the address in decimal, a sequence's end as "-"
decimal() { while read -r line addr; do echo "$line $((addr))"; done; }
ours=$("$1" "$2" | awk '{ print ($2 == 0 ? "-" : $2), $3 }' | decimal | sort)
theirs=$(readelf --debug-dump=decodedline "$2" 2>/dev/null |
    awk '$1 ~ /\.cu$/ && NF >= 3 && ($2 ~ /^[0-9]+$/ || $2 == "-") { print $2, $3 }' |
    decimal | sort)
if [ -z "$theirs" ]; then
    echo "FAIL: readelf found no line table in $2"
    exit 1
fi
if [ "$ours" != "$theirs" ]; then
    echo "FAIL: the line table differs from readelf's"
    diff <(echo "$ours") <(echo "$theirs")
    exit 1
fi
echo "trace_lines_readelf: $(echo "$ours" | wc -l) rows, the same as readelf's"
