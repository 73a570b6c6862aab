#!/usr/bin/env bash
# Run 149: rung 13 with de-phased consumer warps (vS: warps 4-7 start half a k-tile late; vU: warp
# c starts 318 c cycles late; dephase.patch, not on main) against main, three alternated passes;
# rung 13's case matrix for both builds.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin149; mkdir -p $D; tar xJf dist/run149.tar.xz -C $D; W=/tmp/r149; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for b in vS vU; do
  timeout 120 $D/$b/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-$b.log 2>&1
  echo "$b tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-$b.log | tr '\n' ' ')"
done
S=4096x4096x4096,8192x8192x8192,4096x4096x1024
for pass in 1 2 3; do
  for b in main vS vU; do
    timeout 100 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run149.tgz -C /tmp r149
