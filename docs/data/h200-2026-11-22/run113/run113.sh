#!/usr/bin/env bash
# Run 113: rung 13 with the two quads of a k-tile as a loop (ql; `#pragma unroll 1`)
# against main: the bench alternated three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin113; mkdir -p $D; tar xJf dist/run113.tar.xz -C $D; W=/tmp/r113; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=4096x4096x4096,8192x8192x8192,4096x4096x1024,2048x2048x2048
for pass in 1 2 3; do
  for b in main ql; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
for b in main ql; do
  timeout 150 $D/$b/sgemm-bench --kernels simt-13-tma --shapes 16384x16384x16384,8192x8192x1024,16384x16384x1024 > $W/bench-$b-big.txt 2>&1
  echo "$b big rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-big.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
tar czf $OUT/run113.tgz -C /tmp r113
