#!/usr/bin/env bash
# Run 41: scripts/gpu-check (mended) on the sixth session's final main (kernels, tests and bench
# as a76ab5c: run 39's binaries), then the issue shapes: simt-13 (#4) at 4096³, 8192³, 2048³,
# 16384³ and the K = 1024 sweep; tc-02/03 (#6) at 4096³ and 8192³ with cuBLAS SGEMM and TF32.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run39; B=$D/sgemm-bench; W=/tmp/r41; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=120 GPU_CHECK_BENCH_TIMEOUT=150 timeout 400 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
for pass in 1 2; do
  timeout 120 $B --kernels 'simt-13*,tc-02*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-issue-$pass.txt 2>&1; echo "issue $pass rc=$?"
done
timeout 200 $B --kernels 'simt-13*' --shapes 2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-simt-shapes.txt 2>&1; echo "simt shapes rc=$?"
timeout 100 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
cat $W/gpu.txt; grep -hE "^(cublas|simt-13|tc-0[23])|^[0-9]+ x" $W/bench-issue-1.txt $W/bench-issue-2.txt $W/bench-simt-shapes.txt $W/bench-k1024.txt
tar czf $OUT/run41.tgz -C /tmp r41
