#!/usr/bin/env bash
# Run 62: the eighth session's final main (f40d011's kernels) on an H100. (1) scripts/gpu-check;
# (2) the issue shapes: simt-13 at 4096^3, 8192^3, 2048^3, 16384^3 and K = 1024; tc-03 at 4096^3
# and 8192^3 three times with cuBLAS SGEMM and TF32; (3) energy per call at 8192^3 (tc-03 and
# both cuBLAS modes).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin62; mkdir -p $D; tar xJf dist/run62.tar.xz -C $D; B=$D/sgemm-bench; W=/tmp/r62; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=150 GPU_CHECK_BENCH_TIMEOUT=150 timeout 450 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep "accuracy\] tc-03" $W/gc/gpu-tests-api.log
for pass in 1 2 3; do
  timeout 120 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-issue-$pass.txt 2>&1; echo "issue $pass rc=$?"
done
timeout 200 $B --kernels 'simt-13*' --shapes 2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-simt-shapes.txt 2>&1; echo "simt shapes rc=$?"
timeout 100 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
grep -hE "^(cublas|simt-13|tc-03)|^[0-9]+ x" $W/bench-issue-*.txt $W/bench-simt-shapes.txt $W/bench-k1024.txt | awk '{print $1, $2, $3, $5, $6, $7}'
for who in cublas-sgemm cublas-tf32 tc-03-wgmma-rs-tf32:tf32 tc-03-wgmma-rs-tf32x3:x3; do
  timeout 30 $D/energy $who 8192 8192 8192 3 2>&1
done | tee $W/energy.txt
tar czf $OUT/run62.tgz -C /tmp r62
