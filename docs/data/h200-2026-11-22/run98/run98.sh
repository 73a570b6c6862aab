#!/usr/bin/env bash
# Run 98: tc-03's Tf32 loop in k8 steps with two commit groups in flight (after cuBLAS TF32's
# loop), against main 65ab5e0: tc-03's case matrix and Api tests, the sanitizers on tc-03's
# sanitizer shapes, ncu of the Tf32 tile kernel at 8192³, and the bench alternated three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin98; mkdir -p $D; tar xJf dist/run98.tar.xz -C $D; W=/tmp/r98; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
F='Kernels/CaseMatrix.*/tc_03*:Api.*'
timeout 240 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$F" > $W/tests-new.txt 2>&1; echo "tests new rc=$?"; tail -3 $W/tests-new.txt; grep "^\[  FAILED" $W/tests-new.txt | head
S='Kernels/CaseMatrix.SanitizerShapes/tc_03*:Kernels/CaseMatrix.SanitizerTailShapes/tc_03*'
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$S" > $W/sanitizer-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $W/sanitizer-$tool.txt | tail -1) $(grep -c '^\[       OK' $W/sanitizer-$tool.txt) ok"
done
for b in main new; do
  timeout 120 ncu --clock-control none -k regex:tc_03_wgmma_rs_tf32_kernel --launch-skip 2 --launch-count 1 --section SpeedOfLight --metrics sm__cycles_elapsed.max \
    $D/$b/sgemm-bench --kernels tc-03-wgmma-rs-tf32 --shapes 8192x8192x8192 --reps 10 > $W/ncu-$b.txt 2>&1
  echo "ncu $b rc=$? $(grep -E 'Duration|SM Frequency|sm__cycles_elapsed.max|hmma_cycles' $W/ncu-$b.txt | awk '{print $NF}' | tr '\n' ' ')"
done
for pass in 1 2 3; do
  for b in main new; do
    timeout 120 $D/$b/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench-$b-$pass.txt 2>&1
    echo "$b $pass rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $6, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run98.tgz -C /tmp r98
