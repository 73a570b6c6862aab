#!/usr/bin/env bash
# Run 176c: the stall reasons per issued instruction (the warp-state section printed only its
# summary in run 176b) for main's and nop's whole-tile kernel at 4096³.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin176; mkdir -p $D; [ -x $D/main/sgemm-bench ] || tar xJf dist/run176.tar.xz -C $D; W=/tmp/r176c; mkdir -p $W
M=""; for r in dispatch_stall short_scoreboard long_scoreboard wait no_instruction not_selected selected math_pipe_throttle mio_throttle branch_resolving barrier membar sleeping misc drain lg_throttle; do
  M="$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
M="smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.avg$M"
for v in main nop; do
  timeout 200 ncu --clock-control none -k regex:simt_13_tma_kernel --launch-count 1 --metrics $M \
    $D/$v/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096 --reps 10 > $W/ncu-$v.txt 2>&1
  echo "ncu $v rc=$?"; grep -E "smsp__|sm__" $W/ncu-$v.txt | awk '{print $1, $NF}'
done
tar czf $OUT/run176c.tgz -C /tmp r176c
