#!/usr/bin/env bash
# Run 52: tc-03 with the fewest persistent blocks for the same number of rounds (128 instead of
# 132 at every issue shape) against the final build of run 48, alternating three times at
# 4096^3 and 8192^3 with both cuBLAS modes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin52; mkdir -p $D; tar xJf dist/run48.tar.xz -C $D; xz -dc dist/sgemm-bench-balanced.xz > $D/sgemm-bench-balanced; chmod +x $D/sgemm-bench-balanced
W=/tmp/r52; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
i=0
for b in sgemm-bench sgemm-bench-balanced sgemm-bench sgemm-bench-balanced sgemm-bench sgemm-bench-balanced; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-0)|^[0-9]+ x" $W/tc-$i-$b.txt | awk '{print $1, $5, $7}'
done
tar czf $OUT/run52.tgz -C /tmp r52
