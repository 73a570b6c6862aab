#!/usr/bin/env bash
# Run 87: rung 13's timeline at 4096^3 and 8192^3 (globaltimer stamps per CTA, a probe build not
# on main), and the bench at 4096^3 for context.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin87; mkdir -p $D; tar xJf dist/run87.tar.xz -C $D; W=/tmp/r87; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 60 $D/probe13 4096 > $W/probe-4096.txt 2>&1; echo "probe 4096 rc=$?"
timeout 60 $D/probe13 8192 > $W/probe-8192.txt 2>&1; echo "probe 8192 rc=$?"
grep -E "call|back" $W/probe-*.txt
timeout 120 $D/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench.txt 2>&1; echo "bench rc=$?"
grep -E "^(cublas|simt-13)" $W/bench.txt | awk '{print $1, $5, $6, $7}'
tar czf $OUT/run87.tgz -C /tmp r87
