#!/usr/bin/env bash
# Run 92: tensor-core rung 03's timeline at 8192^3 (3xTF32 and Tf32) and 4096^3 (3xTF32):
# globaltimer stamps per CTA from a probe build (not on main), and the bench for context.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin92; mkdir -p $D; tar xJf dist/run92.tar.xz -C $D; W=/tmp/r92; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 60 $D/probe03 8192 tf32x3 > $W/probe-8192-tf32x3.txt 2>&1; echo "probe 8192 x3 rc=$?"
timeout 60 $D/probe03 8192 tf32 > $W/probe-8192-tf32.txt 2>&1; echo "probe 8192 tf32 rc=$?"
timeout 60 $D/probe03 4096 tf32x3 > $W/probe-4096-tf32x3.txt 2>&1; echo "probe 4096 x3 rc=$?"
grep -E "call|back|failed" $W/probe-*.txt
timeout 120 $D/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench.txt 2>&1; echo "bench rc=$?"
grep -E "^(cublas|tc-03)" $W/bench.txt | awk '{print $1, $5, $6, $7}'
tar czf $OUT/run92.tgz -C /tmp r92
