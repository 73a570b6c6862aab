#!/usr/bin/env bash
# Run 17: the final check of main in the third session (code unchanged since run 13):
# scripts/gpu-check, then the issue shapes for rung 13, tc-02 at 4096³ and 8192³ with cuBLAS TF32.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=dist/run17/sgemm-bench; W=/tmp/r17; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=200 GPU_CHECK_BENCH_TIMEOUT=150 timeout 420 scripts/gpu-check --bin dist/run17 --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
timeout 150 $B --kernels 'simt-13*,tc-02*' --shapes 8192x8192x8192,2048x2048x2048,16384x16384x16384 --cublas-tf32 --reps 20 > $W/bench-shapes.txt 2>&1; echo "shapes rc=$?"
timeout 100 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
cat $W/gpu.txt; grep -hE "^(cublas|simt|tc)|^[0-9]+ x" $W/gc/bench-4096.txt $W/bench-shapes.txt $W/bench-k1024.txt
tar czf $OUT/run17.tgz -C /tmp r17
