#!/usr/bin/env bash
# Run 30: as run 27 (kt+1 prepared before the wait for kt-1; A 5 x 32 KB, B 3 x 16 KB rings), each fragment buffer now read once more after its retiring wait so that ptxas keeps its registers.
# three sanitizers on its shapes; then main (run 29)  and this one, alternating twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run30; T=$D/sgemm-gpu-tests; W=/tmp/r30; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Kernels/CaseMatrix.*/tc_02*' > $W/case.txt 2>&1; echo "case rc=$?"; grep -E "Failure|FAILED|PASSED|wrong" $W/case.txt | head -10
timeout 120 $T --gtest_brief=1 --gtest_filter='Api.*' > $W/api.txt 2>&1; echo "api rc=$?"; grep -E "tc-03|Failure|FAILED|PASSED" $W/api.txt | head -20
for tool in memcheck racecheck synccheck; do timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*' > $W/$tool.txt 2>&1; echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $W/$tool.txt; done
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 100 $D/$b --kernels 'tc-03*' --cublas-tf32 --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench-$i-$b.txt 2>&1; echo "$i $b rc=$?"
  grep -hE "^(cublas|tc)|^[0-9]+ x" $W/bench-$i-$b.txt
done
cat $W/gpu.txt
tar czf $OUT/run30.tgz -C /tmp r30
