#!/usr/bin/env bash
# Run 53 (H100): tc-03 3xTF32 staging two k-tiles per fresh accumulator. (1) the Api accuracy
# tests and tc-03's case matrix on that build; (2) 3xTF32 of the final build (run 48's) and this
# one alternating three times at 4096^3 and 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin53; mkdir -p $D; tar xJf dist/run48.tar.xz -C $D; tar xJf dist/run53.tar.xz -C $D
W=/tmp/r53; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
timeout 200 $D/sgemm-gpu-tests-stage2 --gtest_filter='Api.Tf32x3*:Kernels/CaseMatrix.*/tc_03*' > $W/tests-stage2.txt 2>&1; echo "tests rc=$?"
grep -E "accuracy\] tc-03|Failure|FAILED|PASSED" $W/tests-stage2.txt | cut -c1-200 | head -20
i=0
for b in sgemm-bench sgemm-bench-stage2 sgemm-bench sgemm-bench-stage2 sgemm-bench sgemm-bench-stage2; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-03-wgmma-rs-tf32x3' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-0)|^[0-9]+ x" $W/tc-$i-$b.txt | awk '{print $1, $5, $7, $9}'
done
tar czf $OUT/run53.tgz -C /tmp r53
