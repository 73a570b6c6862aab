#!/usr/bin/env bash
# Run 143: rung 13 with the full barrier tested by lane 0 alone (v12: vote.sync hands the answer
# to the warp, __syncwarp passes the acquire on; barriers before the stages as in run 142's v3)
# against main, alternated three times; rung 13's case matrix, Api tests and memcheck / racecheck /
# synccheck for v12; ncu issue and stall metrics of the whole-tile kernel at 4096³.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin143; mkdir -p $D; tar xJf dist/run143.tar.xz -C $D; W=/tmp/r143; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
F='Kernels/CaseMatrix.*/simt_13*:Api.*'
SF='Kernels/CaseMatrix.SanitizerShapes/simt_13*:Kernels/CaseMatrix.SanitizerTailShapes/simt_13*'
for b in v12; do
  timeout 200 $D/$b/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$F" > $W/tests-$b.log 2>&1
  echo "$b tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-$b.log | tr '\n' ' ')"
  for tool in memcheck racecheck synccheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 $D/$b/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$SF" > $W/san-$tool-$b.log 2>&1
    echo "$b $tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool-$b.log | tail -1) $(grep -E '^\[  PASSED' $W/san-$tool-$b.log)"
  done
done
S=4096x4096x4096,8192x8192x8192,4096x4096x1024,2048x2048x2048
for pass in 1 2 3; do
  for b in main v12; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for r in no_instruction long_scoreboard short_scoreboard dispatch_stall wait barrier math_pipe_throttle mio_throttle not_selected selected branch_resolving; do
  M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
for b in main v12; do
  timeout 150 ncu --clock-control none --kernel-name regex:simt_13 --launch-count 1 --metrics $M --csv \
    $D/$b/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096 --reps 10 --warmup 1 > $W/ncu-$b.csv 2> $W/ncu-$b.err
  echo "ncu $b rc=$?"
  grep -E '^"[0-9]' $W/ncu-$b.csv | awk -F'","' '{print $(NF-2), $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
tar czf $OUT/run143.tgz -C /tmp r143
