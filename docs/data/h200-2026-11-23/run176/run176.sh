#!/usr/bin/env bash
# Run 176 (diagnostic, nothing for main): what rung 13's shared loads cost its k-loop. main; nop
# (every LDS.128 of every rung-13 k-loop a NOP with the same stall count and no scoreboard);
# lds32 (every LDS.128 an LDS.32 to the same address and destination). The rewritten binaries
# compute wrong results (their rows say FAIL) and are timed all the same. ldspatch.py made them
# from main's 13_tma.reordered.o. Idle tables of 4096³ and 8192³, alternated three times; then
# ncu's warp-state and scheduler sections for main's and nop's whole-tile kernel at 4096³.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin176; mkdir -p $D; tar xJf dist/run176.tar.xz -C $D; W=/tmp/r176; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for i in 1 2 3; do for v in main nop lds32; do
  timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done; done
for v in main nop; do
  timeout 150 ncu --clock-control none -k regex:simt_13_tma_kernel --launch-count 1 --section WarpStateStats --section SchedulerStats --section SpeedOfLight \
    $D/$v/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096 --reps 1 > $W/ncu-$v.txt 2>&1
  echo "ncu $v rc=$?"; grep -E "Issued Warp Per Scheduler|No Eligible|Warp Cycles Per Issued|Duration|SM Frequency" $W/ncu-$v.txt | head -8
done
tar czf $OUT/run176.tgz -C /tmp r176
