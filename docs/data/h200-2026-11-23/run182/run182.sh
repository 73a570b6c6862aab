#!/usr/bin/env bash
# Run 182 (microbenchmark): ffma_stream.cu (nvcc -O3 -arch=sm_90a) as ptxas compiled it, and three
# SASS rewrites of its loops by ffma_pattern.py (ideal, runstart3, conflict); FFMAs per SMSP cycle
# for loop bodies of 2-32 KB and 1-4 warps per SMSP; ptxas and ideal twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin182; mkdir -p $D; tar xJf dist/run182.tar.xz -C $D; W=/tmp/r182; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for v in ptxas ideal runstart3 conflict ideal ptxas; do
  echo "== $v"; timeout 120 $D/ffma_$v | tee -a $W/ffma-$v.txt
done
tar czf $OUT/run182.tgz -C /tmp r182
