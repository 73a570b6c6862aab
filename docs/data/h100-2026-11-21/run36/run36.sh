#!/usr/bin/env bash
# Run 36: scripts/gpu-check on the candidate main (split sparse last rounds, b8cab9d's kernels);
# then main (784e74a) and this build alternating twice at 8192³ and 16384³ for 3xTF32 (the
# split's shapes), and the issue shapes for simt-13 (#4) and tc-02/03 (#6).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run36; B=$D/sgemm-bench; W=/tmp/r36; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=90 GPU_CHECK_SANITIZER_TIMEOUT=200 GPU_CHECK_BENCH_TIMEOUT=150 timeout 560 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 120 $D/$b --kernels 'tc-03-wgmma-rs-tf32x3' --shapes 8192x8192x8192,16384x16384x16384 --reps 10 > $W/split-$i-$b.txt 2>&1; echo "$i $b rc=$?"
  grep -hE "^(cublas|tc)|^[0-9]+ x" $W/split-$i-$b.txt
done
timeout 200 $B --kernels 'simt-13*,tc-02*,tc-03*' --shapes 8192x8192x8192,2048x2048x2048,16384x16384x16384 --cublas-tf32 --reps 20 > $W/bench-shapes.txt 2>&1; echo "shapes rc=$?"
timeout 100 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
cat $W/gpu.txt; grep -hE "^(cublas|simt-13|tc-0[23])|^[0-9]+ x" $W/gc/bench-4096.txt $W/bench-shapes.txt $W/bench-k1024.txt
tar czf $OUT/run36.tgz -C /tmp r36
