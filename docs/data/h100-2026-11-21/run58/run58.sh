#!/usr/bin/env bash
# Run 58: (1) rung 13 variants (FFMA nest kk-j-r; 6 and 12 stages) against main, alternating
# twice at 4096^3 and 8192^3; (2) scripts/gpu-check on main; (3) the issue shapes: simt-13 at
# 4096^3, 8192^3, 2048^3, 16384^3 and K = 1024; tc-03 at 4096^3 and 8192^3 (twice) with cuBLAS
# SGEMM and TF32.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin58; mkdir -p $D; tar xJf dist/run58.tar.xz -C $D; B=$D/sgemm-bench; W=/tmp/r58; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
i=0
for v in "" v6_kkjr v3_st6 v4_st12 "" v6_kkjr v3_st6 v4_st12; do
  i=$((i+1)); n=sgemm-bench${v:+-$v}
  timeout 60 $D/$n --kernels simt-13-tma --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/var-$i-$n.txt 2>&1; echo "var $i $n rc=$?"
  grep -hE "^(cublas|simt)" $W/var-$i-$n.txt | awk '{print $1, $5, $6, $7}' | tr '\n' ' '; echo
done
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=120 GPU_CHECK_BENCH_TIMEOUT=150 timeout 400 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep "accuracy\] tc-03" $W/gc/gpu-tests-api.log
for pass in 1 2; do
  timeout 120 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-issue-$pass.txt 2>&1; echo "issue $pass rc=$?"
done
timeout 200 $B --kernels 'simt-13*' --shapes 2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-simt-shapes.txt 2>&1; echo "simt shapes rc=$?"
timeout 100 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
grep -hE "^(cublas|simt-13|tc-03)|^[0-9]+ x" $W/bench-issue-1.txt $W/bench-issue-2.txt $W/bench-simt-shapes.txt $W/bench-k1024.txt | awk '{print $1, $2, $3, $5, $6, $7}'
tar czf $OUT/run58.tgz -C /tmp r58
