#!/usr/bin/env bash
# Run 111: why run 110's two-slice stages (s2) lost: s2 with 8 stages (s2s8, 192 KB ring) against
# main and s2, alternated twice; ncu warp-stall reasons of the whole-tile kernel at 4096³ for main
# and s2 (no_instruction would mean instruction-cache misses from the 2x longer loop).
set -u
PASSES=${PASSES:-1 2}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin111; mkdir -p $D; tar xJf dist/run111.tar.xz -C $D; W=/tmp/r111; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=4096x4096x4096,8192x8192x8192
for pass in $PASSES; do
  for b in main s2 s2s8; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active
for r in no_instruction long_scoreboard short_scoreboard dispatch_stall wait barrier math_pipe_throttle not_selected selected branch_resolving; do
  M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
for b in main s2; do
  timeout 150 ncu --clock-control none --kernel-name regex:simt_13 --launch-count 1 --metrics $M --csv \
    $D/$b/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096 --reps 10 --warmup 1 > $W/ncu-$b.csv 2> $W/ncu-$b.err
  echo "ncu $b rc=$?"
  grep -E '^"[0-9]' $W/ncu-$b.csv | awk -F'","' '{print $(NF-2), $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
tar czf $OUT/run111.tgz -C /tmp r111
