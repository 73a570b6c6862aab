#!/usr/bin/env bash
# Run 37: scripts/gpu-check on the final main of the fifth session (kernels as 784e74a: both of
# this session's experiments reverted), then 4096³ and 8192³ for simt-13 and tc-02/03 with
# cuBLAS SGEMM and TF32.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run37; B=$D/sgemm-bench; W=/tmp/r37; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=90 GPU_CHECK_SANITIZER_TIMEOUT=200 GPU_CHECK_BENCH_TIMEOUT=150 timeout 480 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
timeout 100 $B --kernels 'simt-13*,tc-03*' --shapes 8192x8192x8192,4096x4096x4096 --cublas-tf32 --reps 20 > $W/bench-shapes.txt 2>&1; echo "shapes rc=$?"
cat $W/gpu.txt; grep -hE "^(cublas|simt-13|tc-0[23])|^[0-9]+ x" $W/gc/bench-4096.txt $W/bench-shapes.txt
tar czf $OUT/run37.tgz -C /tmp r37
