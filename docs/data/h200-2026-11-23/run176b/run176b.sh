#!/usr/bin/env bash
# Run 176b: run 176's ncu part again (it had passed --reps 1, which the bench refuses): warp
# states and scheduler statistics of main's and nop's whole-tile kernel at 4096³.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin176; mkdir -p $D; [ -x $D/main/sgemm-bench ] || tar xJf dist/run176.tar.xz -C $D; W=/tmp/r176b; mkdir -p $W
for v in main nop; do
  timeout 200 ncu --clock-control none -k regex:simt_13_tma_kernel --launch-count 1 --section WarpStateStats --section SchedulerStats --section SpeedOfLight \
    $D/$v/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096 --reps 10 > $W/ncu-$v.txt 2>&1
  echo "ncu $v rc=$?"; grep -E "Issued Warp Per Scheduler|No Eligible|Warp Cycles Per Issued|Duration|SM Frequency|Stall" $W/ncu-$v.txt | head -30
done
tar czf $OUT/run176b.tgz -C /tmp r176b
