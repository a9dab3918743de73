#!/usr/bin/env bash
# The hierarchy's slice-mode L2 reads beside gpu-l2-cache on the same GPU in
# one call (issue 22; docs/experiments/hierarchy.md, "Comparing with other
# benchmarks").
#
#   GPU_L2_CACHE=/path/to/gpu-l2-cache OUT=DIR [MAX_KB=40960] \
#     bench/hierarchy-vs-gpu-l2-cache.sh [CUMEMLAB]
#
# gpu-l2-cache (github.com/te42kyfo/gpu-benches) is built by the caller in an
# ignored folder; its code is never committed here. Writes into OUT:
# gpu-l2-cache.txt (its stdout), hier.json.gz and hier.txt (cumemlab at the
# peer's data-set sizes up to MAX_KB kB: L2 sizes by default), compare.txt.
set -u
bin=${1:-build/cumemlab}
out=${OUT:-bench-l2}
peer=${GPU_L2_CACHE:?set GPU_L2_CACHE to the gpu-l2-cache binary}
max=${MAX_KB:-40960}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
"$peer" > "$out/gpu-l2-cache.txt" 2>&1
echo "gpu-l2-cache exit $?"
sizes=$(python3 "$here/hierarchy_vs_gpu_l2_cache.py" sizes "$out/gpu-l2-cache.txt" "$max") || exit 1
# The peer's launch: 200,000 blocks of 512 KiB (--walk, bytes a launch). The
# default launch (about 8,000 blocks, 0.4 ms) read 2-9% faster below 8 MiB on
# an H200, and as the peer with the peer's length: the launch's length is the
# difference (bench/results/h200/2026-11-29-slice-chunks/, the controls with
# both; why a short launch reads faster there was not isolated).
walk=$((200000 * 512 * 1024))
"$bin" run hierarchy --op read --path nc,cg --l2-mode slice --walk "$walk" --ws "$sizes" \
  --json "$out/hier.json" > "$out/hier.txt" 2>&1
echo "cumemlab run hierarchy exit $?"
python3 "$here/hierarchy_vs_gpu_l2_cache.py" compare "$out/gpu-l2-cache.txt" \
  "$out/hier.json" | tee "$out/compare.txt"
gzip -9nf "$out/hier.json"
