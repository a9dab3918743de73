#!/usr/bin/env bash
# The hierarchy's chase latency beside gpu-latency on the same GPU in one
# call (issue 22; docs/experiments/hierarchy.md, "Comparing with other
# benchmarks").
#
#   GPU_LATENCY=/path/to/cuda-latency OUT=DIR [PEER_S=300] [HOPS=0] \
#     bench/hierarchy-vs-gpu-latency.sh [CUMEMLAB]
#
# gpu-latency (github.com/te42kyfo/gpu-benches) is built by the caller in an
# ignored folder; its code is never committed here. It walks its sizes from
# 1 KiB up until PEER_S seconds pass (on an H200, 300 s reach 203 of its 204
# sizes). Writes into OUT: gpu-latency.txt (its stdout), chase.json.gz and
# chase.txt (cumemlab's random chase, 64-byte hops, at the peer's sizes it
# reached, 16 KiB on, each 1.6x the last; HOPS as --hops, 0 by the level),
# compare.txt.
set -u
bin=${1:-build/cumemlab}
out=${OUT:-bench-latency}
peer=${GPU_LATENCY:?set GPU_LATENCY to the gpu-latency binary}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
timeout "${PEER_S:-300}" "$peer" > "$out/gpu-latency.txt" 2>&1
echo "gpu-latency exit $? (124: stopped at PEER_S)"
sizes=$(python3 "$here/hierarchy_vs_gpu_latency.py" sizes "$out/gpu-latency.txt") || exit 1
"$bin" run hierarchy --op chase --path ca --hop 64 --pattern random --hops "${HOPS:-0}" \
  --ws "$sizes" --json "$out/chase.json" > "$out/chase.txt" 2>&1
echo "cumemlab run hierarchy exit $?"
python3 "$here/hierarchy_vs_gpu_latency.py" compare "$out/gpu-latency.txt" \
  "$out/chase.json" | tee "$out/compare.txt"
gzip -9nf "$out/chase.json"
