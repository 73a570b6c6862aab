#!/usr/bin/env bash
# Run 90: rung 13's tail storing its sums through store_tile (the whole tiles' epilogue) and
# summing the slots float4 by float4, against main (5633779): rung 13's case matrix, a mutant (the
# tail's sum without beta * C), the sanitizers on rung 13's sanitizer shapes, the bench alternated
# three times at 4096^3 and 8192^3, and once at 16384^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin90; mkdir -p $D; tar xJf dist/run90.tar.xz -C $D; W=/tmp/r90; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
F='Kernels/CaseMatrix.*/simt_13*'
timeout 150 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$F" > $W/tests-new.txt 2>&1; echo "tests new rc=$?"; tail -3 $W/tests-new.txt
timeout 150 $D/mut/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$F" > $W/tests-mutant.txt 2>&1; echo "tests mutant rc=$? (must fail)"; grep -c "^\[  FAILED" $W/tests-mutant.txt
S='Kernels/CaseMatrix.SanitizerShapes/simt_13*:Kernels/CaseMatrix.SanitizerTailShapes/simt_13*'
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$S" > $W/sanitizer-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $W/sanitizer-$tool.txt | tail -1)"
done
for pass in 1 2 3; do
  for b in main new; do
    timeout 120 $D/$b/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench-$b-$pass.txt 2>&1
    echo "$b $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $6, $7}' | tr '\n' ' ')"
  done
done
for b in main new; do
  timeout 200 $D/$b/sgemm-bench --kernels 'simt-13*' --shapes 16384x16384x16384 --reps 10 > $W/bench16k-$b.txt 2>&1
  echo "$b 16384 rc=$? $(grep -E '^(cublas|simt-13)' $W/bench16k-$b.txt | awk '{print $1, $5, $6, $7}' | tr '\n' ' ')"
done
tar czf $OUT/run90.tgz -C /tmp r90
