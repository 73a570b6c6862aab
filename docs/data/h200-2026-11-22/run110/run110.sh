#!/usr/bin/env bash
# Run 110: rung 13 with two 8-deep slices per stage (s2; 16-deep k-tiles, 4 stages of 24 KB)
# against main: s2's case matrix for simt-13, then the bench alternated three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin110; mkdir -p $D; tar xJf dist/run110.tar.xz -C $D; W=/tmp/r110; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 200 $D/s2/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13_tma:Api.*' > $W/s2-tests.txt 2>&1
echo "s2 tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/s2-tests.txt | tr '\n' ' ')"
grep -E "FAILED|Failure" $W/s2-tests.txt | head -10
S=4096x4096x4096,8192x8192x8192,4096x4096x1024,2048x2048x2048
for pass in 1 2 3; do
  for b in main s2; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
for b in main s2; do
  timeout 150 $D/$b/sgemm-bench --kernels simt-13-tma --shapes 16384x16384x16384,8192x8192x1024,16384x16384x1024 > $W/bench-$b-big.txt 2>&1
  echo "$b big rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-big.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
tar czf $OUT/run110.tgz -C /tmp r110
