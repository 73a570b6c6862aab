#!/usr/bin/env bash
# Run 137: where tc-04 beats tc-03, for `auto`: one --cooldown-ms 1000 table of both modes of
# both rungs (and cuBLAS TF32) over square shapes 1024-6144, two K = 1024 shapes and two LLM
# shapes; then 3xTF32 on normal data at 8192³. Binaries of 3d8999e (run 136's w).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin137; mkdir -p $D; tar xJf dist/run136.tar.xz -C $D; W=/tmp/r137; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=1024x1024x1024,2048x2048x2048,3072x3072x3072,4096x4096x4096,6144x6144x6144,4096x4096x1024,8192x8192x1024,512x11008x4096,2048x11008x4096
timeout 300 $D/w/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32*,tc-04-*' --shapes $S --cublas-tf32 --reps 20 --cooldown-ms 1000 > $W/sweep.txt 2>&1
echo "sweep rc=$?"
awk '/ x .* x /{shape=$1"x"$3"x"$5} /^(cublas|tc-0)/{printf "%s %s %s %s\n", shape, $1, $5, $7}' $W/sweep.txt
timeout 120 $D/w/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32x3,tc-04-wgmma-f16-tf32x3' --shapes 4096x4096x4096,8192x8192x8192 --values normal --reps 20 --cooldown-ms 1000 > $W/bench-normal.txt 2>&1
echo "normal rc=$? $(grep -E '^(cublas|tc-0)' $W/bench-normal.txt | awk '{print $1, $5, $7, $9}' | tr '\n' ' ')"
tar cJf $OUT/run137-logs.tar.xz -C $W .
