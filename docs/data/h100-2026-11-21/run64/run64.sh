#!/usr/bin/env bash
# Run 64: the final main (235b660). (1) scripts/gpu-check; (2) what `auto` costs against the
# kernels and cuBLAS, RowMajor TT and NN at 4096^3 and 8192^3 (energy probe's timing of
# back-to-back calls, 2 s each); (3) the issue shapes once more.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin64; mkdir -p $D; tar xJf dist/run64.tar.xz -C $D; B=$D/sgemm-bench; W=/tmp/r64; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=150 GPU_CHECK_BENCH_TIMEOUT=150 timeout 450 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
for s in 4096 8192; do
  for ops in TT NN; do
    for who in cublas-sgemm auto simt-13-tma simt-10-warptile; do
      timeout 30 $D/energy $who $s $s $s 2 $ops 2>&1
    done
  done
done | tee $W/auto.txt
timeout 120 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-issue.txt 2>&1; echo "issue rc=$?"
grep -hE "^(cublas|simt-13|tc-03)|^[0-9]+ x" $W/bench-issue.txt | awk '{print $1, $2, $3, $5, $6, $7}'
tar czf $OUT/run64.tgz -C /tmp r64
