#!/usr/bin/env bash
# Run 181 (microbenchmark): ffma_stream.cu (nvcc -O3 -arch=sm_90a), FFMAs issued per SMSP cycle
# for loop bodies of 2-64 KB of code and 1-4 warps per SMSP; twice, to see the spread.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin181; mkdir -p $D; tar xJf dist/run181.tar.xz -C $D; W=/tmp/r181; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for i in 1 2; do timeout 120 $D/ffma_stream | tee $W/ffma_stream-$i.txt; done
tar czf $OUT/run181.tgz -C /tmp r181
