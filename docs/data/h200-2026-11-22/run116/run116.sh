#!/usr/bin/env bash
# Run 116: tc-03 with tile groups of 6 rows (g6; kTileGroupM = 6) against main (8), both modes,
# --cooldown-ms 1000 tables alternated three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin116; mkdir -p $D; tar xJf dist/run116.tar.xz -C $D; W=/tmp/r116; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for pass in 1 2 3; do
  for b in main g6; do
    timeout 150 $D/$b/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --cooldown-ms 1000 > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run116.tgz -C /tmp r116
