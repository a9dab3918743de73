#!/usr/bin/env bash
# The peer experiment beside nvbandwidth's device-to-device tests, on the
# same GPUs in one call (issue: many GPUs; docs/experiments/peer.md).
#
#   NVBANDWIDTH=/path/to/nvbandwidth OUT=DIR bench/peer-nvbandwidth.sh [CUMEMLAB]
#
# nvbandwidth (github.com/NVIDIA/nvbandwidth) is built by the caller in an
# ignored folder; its code is never committed here. Writes into OUT: the
# topology (nvidia-smi topo -m), peer.json.gz and peer.txt (cumemlab run
# peer, its full default sweep), nvbandwidth.json, and compare.txt
# (bench/peer_vs_nvbandwidth.py: each target, ours beside theirs).
set -u
bin=${1:-build/cumemlab}
out=${OUT:-bench-peer}
nvbw=${NVBANDWIDTH:-}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
{ date -u; nvidia-smi -L; nvidia-smi topo -m; } > "$out/topo.txt" 2>&1
tests="device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce
  device_to_device_bidirectional_memcpy_read_ce device_to_device_bidirectional_memcpy_write_ce
  device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm
  device_to_device_bidirectional_memcpy_read_sm device_to_device_bidirectional_memcpy_write_sm"
if [ -n "$nvbw" ]; then
  # shellcheck disable=SC2086
  "$nvbw" -j -t $tests > "$out/nvbandwidth.json" 2> "$out/nvbandwidth.err"
  echo "nvbandwidth exit $?"
fi
start=$(date +%s)
"$bin" run peer --json "$out/peer.json" > "$out/peer.txt" 2>&1
echo "cumemlab run peer exit $? in $(( $(date +%s) - start )) s"
if [ -n "$nvbw" ]; then
  # The second nvbandwidth run after ours: how much its own figures move
  # between two runs of the same call (the control of every comparison).
  # shellcheck disable=SC2086
  "$nvbw" -j -t $tests > "$out/nvbandwidth-2.json" 2>> "$out/nvbandwidth.err"
fi
python3 "$here/peer_vs_nvbandwidth.py" "$out/peer.json" "$out/nvbandwidth.json" \
  "$out/nvbandwidth-2.json" | tee "$out/compare.txt"
gzip -9nf "$out/peer.json"
