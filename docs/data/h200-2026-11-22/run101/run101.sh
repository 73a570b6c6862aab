#!/usr/bin/env bash
# Run 101: does a kernel's median depend on what ran before it? The tensor-core calls run at the
# 700 W cap, and the power controller remembers ~1 s of history, while the bench's default
# warm-up is 3 calls. The issue-shape tables on main 65ab5e0, default warm-up against 400
# warm-up calls (each kernel then timed in its own steady state), alternated twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin99; mkdir -p $D; tar xJf dist/run99.tar.xz -C $D; W=/tmp/r101; mkdir -p $W; B=$D/main/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for pass in 1 2; do
  for w in 3 400; do
    timeout 200 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 --warmup $w > $W/bench-w$w-$pass.txt 2>&1
    echo "warmup $w pass $pass rc=$? $(grep -E '^(cublas|simt-13|tc-03)' $W/bench-w$w-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run101.tgz -C /tmp r101
