#!/usr/bin/env bash
# Run 15: rung 13 with the tail split (sgemm-bench) against main's rung 13 (sgemm-bench-main),
# alternated in one run; rung 13's GPU tests with the new SplitShapes, memcheck and racecheck.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run15; W=/tmp/r15; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 150 $D/sgemm-gpu-tests --gtest_filter='*simt_13*:Api.*' > $W/tests.txt 2>&1; echo "tests rc=$?"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $D/sgemm-gpu-tests --gtest_filter='Kernels/CaseMatrix.SplitShapes/simt_13*' > $W/san-$tool.txt 2>&1; echo "$tool rc=$?"
done
S=4096x4096x4096,8192x8192x8192,2048x2048x2048,16384x16384x16384,4096x4096x1024,8192x8192x1024
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  timeout 100 $D/$b --kernels 'simt-13*' --shapes $S --reps 20 > $W/bench-$b.txt 2>&1; echo "$b rc=$?"
  cat $W/bench-$b.txt >> $W/bench-all-$b.txt
done
tar czf $OUT/run15.tgz -C /tmp r15
