#!/usr/bin/env bash
# Run 31: the new test Api.Tf32AccuracyAgainstCublasTf32 on main (must pass) and on run 30's
# variant (wrong by ~1e-2 at large shapes while the case matrix passed: must fail).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run31; W=/tmp/r31; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
for v in main variant; do
  timeout 200 $D/sgemm-gpu-tests-$v --gtest_brief=1 --gtest_filter='Api.*' > $W/api-$v.txt 2>&1; echo "$v Api rc=$?"
  grep -E "\[accuracy\].*(cuBLAS TF32)|Failure|FAILED|PASSED|Which is|rel. Frobenius" $W/api-$v.txt | head -16
done
cat $W/gpu.txt
tar czf $OUT/run31.tgz -C /tmp r31
