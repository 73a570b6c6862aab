#!/usr/bin/env bash
# Run 51 (H100, same machine as run 50): the final build's tc-03 against cuBLAS SGEMM and cuBLAS
# TF32, four tables at 4096^3 and 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin51; mkdir -p $D; tar xJf dist/run48.tar.xz -C $D; W=/tmp/r51; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
for i in 1 2 3 4; do
  timeout 90 $D/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i.txt 2>&1; echo "tc $i rc=$?"
  grep -hE "^(cublas|tc-0)|^[0-9]+ x" $W/tc-$i.txt | awk '{print $1, $5, $7}'
done
tar czf $OUT/run51.tgz -C /tmp r51
