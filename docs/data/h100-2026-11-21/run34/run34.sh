#!/usr/bin/env bash
# Run 34: rung 03 with the last partial round split along k (Stream-K hybrid, common/stream_k.cuh).
# Its tests (case matrix of tc-02/03 with the new SplitLastRound, Api) and three sanitizers on
# SanitizerShapes + SplitLastRound of tc-03; then main (784e74a) and this one alternating twice at 4096³ and 8192³, once each at 2048³ and 16384³.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run34; T=$D/sgemm-gpu-tests; W=/tmp/r34; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Kernels/CaseMatrix.*/tc_02*' > $W/case.txt 2>&1; echo "case rc=$?"; grep -E "Failure|FAILED|PASSED|wrong" $W/case.txt | head -10
timeout 120 $T --gtest_brief=1 --gtest_filter='Api.*' > $W/api.txt 2>&1; echo "api rc=$?"; grep -E "tc-03|Failure|FAILED|PASSED" $W/api.txt | head -20
for tool in memcheck racecheck synccheck; do timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*:Kernels/CaseMatrix.SplitLastRound/tc_03*' > $W/$tool.txt 2>&1; echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $W/$tool.txt; done
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 100 $D/$b --kernels 'tc-03*' --cublas-tf32 --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench-$i-$b.txt 2>&1; echo "$i $b rc=$?"
  grep -hE "^(cublas|tc)|^[0-9]+ x" $W/bench-$i-$b.txt
done
for b in sgemm-bench-main sgemm-bench; do
  timeout 150 $D/$b --kernels 'tc-03*,tc-02-wgmma-tf32' --cublas-tf32 --shapes 2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-shapes-$b.txt 2>&1; echo "shapes $b rc=$?"
  grep -hE "^(cublas|tc)|^[0-9]+ x" $W/bench-shapes-$b.txt
done
cat $W/gpu.txt
tar czf $OUT/run34.tgz -C /tmp r34
