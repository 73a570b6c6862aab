#!/usr/bin/env bash
# Run 93: the element-wise pack for k-contiguous operands (tc_pack_rows_kernel) against main
# (5633779's kernels): the tensor-core case matrices and Api tests, a mutant (no non-finite
# check in the new pack), memcheck on the tensor-core case matrices, ncu on the pack kernels at
# 8192^3, and tc-03 in the bench alternated three times at 4096^3 and 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin93; mkdir -p $D; tar xJf dist/run93.tar.xz -C $D; W=/tmp/r93; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
F='Kernels/CaseMatrix.*/tc_0*:Api.*'
timeout 200 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$F" > $W/tests-new.txt 2>&1; echo "tests new rc=$?"; tail -3 $W/tests-new.txt
timeout 200 $D/mut/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$F" > $W/tests-mutant.txt 2>&1; echo "tests mutant rc=$? (must fail)"; grep "^\[  FAILED" $W/tests-mutant.txt | head -5
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_0*' > $W/memcheck.txt 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $W/memcheck.txt | tail -1)"
for b in main new; do
  timeout 120 ncu --clock-control none --kernel-name regex:tc_pack --launch-count 3 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $D/$b/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32x3' --shapes 8192x8192x8192 --reps 1 > $W/ncu-$b.txt 2>&1
  echo "ncu $b rc=$?"; grep -E "tc_pack|gpu__time_duration|dram__bytes" $W/ncu-$b.txt | head -9
done
for pass in 1 2 3; do
  for b in main new; do
    timeout 120 $D/$b/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench-$b-$pass.txt 2>&1
    echo "$b $pass rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $6, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run93.tgz -C /tmp r93
