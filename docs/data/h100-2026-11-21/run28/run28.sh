#!/usr/bin/env bash
# Run 28: the final check of main in the fourth session: scripts/gpu-check, then the issue shapes
# for rung 13 (#4) and the tensor-core rungs 02 and 03 with cuBLAS TF32 (#6).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=dist/run28/sgemm-bench; W=/tmp/r28; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=200 GPU_CHECK_BENCH_TIMEOUT=150 timeout 420 scripts/gpu-check --bin dist/run28 --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
timeout 200 $B --kernels 'simt-13*,tc-02*,tc-03*' --shapes 8192x8192x8192,2048x2048x2048,16384x16384x16384 --cublas-tf32 --reps 20 > $W/bench-shapes.txt 2>&1; echo "shapes rc=$?"
timeout 100 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
timeout 100 $B --kernels 'tc-02*,tc-03*' --sweep k1024 --cublas-tf32 --reps 20 > $W/bench-tc-k1024.txt 2>&1; echo "tc k1024 rc=$?"
cat $W/gpu.txt; grep -hE "^(cublas|simt-13|tc-0[23])|^[0-9]+ x" $W/gc/bench-4096.txt $W/bench-shapes.txt $W/bench-k1024.txt $W/bench-tc-k1024.txt
tar czf $OUT/run28.tgz -C /tmp r28
