#!/usr/bin/env bash
# Run 96: tc-03 3xTF32 packing A's small part past the first 1024 rows inside its tile kernels
# (beta == 0), against main 22e69bd: the tensor-core case matrices (with the new LateRows) and
# Api tests, two mutants (no non-finite check in the late pack; rows written to the wrong
# place), memcheck on LateRows and the sanitizer shapes, and the bench alternated three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin96; mkdir -p $D; tar xJf dist/run96.tar.xz -C $D; W=/tmp/r96; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
F='Kernels/CaseMatrix.*/tc_0*:Kernels/CaseMatrix.LateRows/*:Api.*'
timeout 240 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$F" > $W/tests-new.txt 2>&1; echo "tests new rc=$?"; tail -3 $W/tests-new.txt; grep "^\[  FAILED" $W/tests-new.txt | head
for m in mut1 mut2; do
  timeout 120 $D/$m/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*' > $W/tests-$m.txt 2>&1; echo "tests $m rc=$? (must fail)"; grep "^\[  FAILED" $W/tests-$m.txt | head -4
done
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.LateRows/tc_03*:Kernels/CaseMatrix.SanitizerShapes/tc_03*' > $W/sanitizer-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $W/sanitizer-$tool.txt | tail -1)"
done
for pass in 1 2 3; do
  for b in main new; do
    timeout 120 $D/$b/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench-$b-$pass.txt 2>&1
    echo "$b $pass rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $6, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run96.tgz -C /tmp r96
