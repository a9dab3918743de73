#!/usr/bin/env bash
# Where L2 reads fall below L1's misses: Hopper's L2 Request Coalescer (LRC)
# counted beside them, kernel by kernel (issue 22; docs/model-evidence.md §4.7,
# docs/model.md §16.8). Nsight Compute profiles each kernel of a short run
# (the L2 flushed before each, clocks as found) for L1's load sectors and
# misses, L2's read sectors from L1TEX and the LRC's read counters.
#
#   OUT=DIR bench/lrc-counters.sh [CUMEMLAB]
#
# Writes DIR/<name>.csv (ncu's raw page) and DIR/lrc-table.txt
# (bench/lrc_counters.py: misses, sectors the LRC merged, L2 reads, and what
# misses less merges leaves of the L2 reads).
set -u
bin=${1:-build/cumemlab}
out=${OUT:-bench-lrc}
here=$(cd "$(dirname "$0")" && pwd)
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
mkdir -p "$out"
M=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum
M=$M,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
M=$M,lrc__xbar2lrc_requests_op_read.sum,lrc__request_sectors_op_read_coalescable.sum
M=$M,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum
M=$M,lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum
prof() { # name, then the cumemlab arguments
    local name=$1
    shift
    # Every kernel but the fills and the peak references of a first run.
    timeout 240 "$ncu" --clock-control none --cache-control all --replay-mode kernel \
        -k 'regex:^(?!cml_fill|pitch2d_fill|peak_)' --launch-count 3 --metrics "$M" \
        --csv --page raw "$bin" run "$@" --counters off --reps 2 --warmup 1 \
        > "$out/$name.csv" 2> "$out/$name.err"
    echo "$name: exit $?"
}
prof expr-padded33 expr --expr 7 --where l2
prof pitch2d-u8 pitch2d --type u8 --layout unpadded --block 32x8 --width 777 --height 555 --where l2
prof pitch2d-f32 pitch2d --type f32 --layout unpadded --block 32x8 --width 777 --height 555 --where l2
prof hot-gather-ca read-only --pattern hot-gather --path ca --table 16384 --where l2
prof hot-gather-cg read-only --pattern hot-gather --path cg --table 16384 --where l2
prof stencil-cg read-only --pattern stencil --path cg --where l2
prof gather-1024 stride --pattern gather --window 1024 --where l2
prof gather-0 stride --pattern gather --window 0 --where l2
prof hier-shared-256M hierarchy --op read --path cg --l2-mode shared --ws 256M
prof hier-slice-256M hierarchy --op read --path cg --l2-mode slice --ws 256M
prof hier-slice-4M hierarchy --op read --path cg --l2-mode slice --ws 4M --walk 1G
prof read-offset-1 read-offset --offset 1 --where l2
prof write-offset-1 write-offset --offset 1 --where l2
python3 "$here/lrc_counters.py" "$out"/*.csv | tee "$out/lrc-table.txt"
