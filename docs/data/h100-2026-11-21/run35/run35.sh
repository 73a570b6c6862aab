#!/usr/bin/env bash
# Run 35: rung 03 with only sparse last rounds split along k (10fa50d). Its tests (case matrix of
# tc-02/03 with SplitLastRound, Api); memcheck and synccheck on SanitizerShapes + SplitLastRound
# of tc-03, racecheck on SanitizerShapes (run 34: it did not finish the split shapes in 150 s);
# then main (784e74a) and this one alternating twice at 4096³ and 8192³, once each at 16384³.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run35; T=$D/sgemm-gpu-tests; W=/tmp/r35; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Kernels/CaseMatrix.*/tc_02*' > $W/case.txt 2>&1; echo "case rc=$?"; grep -E "Failure|FAILED|PASSED|wrong" $W/case.txt | head -10
timeout 120 $T --gtest_brief=1 --gtest_filter='Api.*' > $W/api.txt 2>&1; echo "api rc=$?"; grep -E "tc-03|Failure|FAILED|PASSED" $W/api.txt | head -20
for tool in memcheck synccheck racecheck; do
  f='Kernels/CaseMatrix.SanitizerShapes/tc_03*:Kernels/CaseMatrix.SplitLastRound/tc_03*'
  [ $tool = racecheck ] && f='Kernels/CaseMatrix.SanitizerShapes/tc_03*'
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $T --gtest_brief=1 --gtest_filter="$f" > $W/$tool.txt 2>&1; echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $W/$tool.txt
done
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 100 $D/$b --kernels 'tc-03*' --cublas-tf32 --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench-$i-$b.txt 2>&1; echo "$i $b rc=$?"
  grep -hE "^(cublas|tc)|^[0-9]+ x" $W/bench-$i-$b.txt
done
for b in sgemm-bench-main sgemm-bench; do
  timeout 150 $D/$b --kernels 'tc-03*' --cublas-tf32 --shapes 16384x16384x16384 --reps 10 > $W/bench-16384-$b.txt 2>&1; echo "16384 $b rc=$?"
  grep -hE "^(cublas|tc)|^[0-9]+ x" $W/bench-16384-$b.txt
done
cat $W/gpu.txt
tar czf $OUT/run35.tgz -C /tmp r35
