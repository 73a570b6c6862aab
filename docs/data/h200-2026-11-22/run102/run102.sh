#!/usr/bin/env bash
# Run 102: the twelfth session's final check: scripts/gpu-check on main (65ab5e0's kernels; this
# session changed docs only), then the issue shapes in the bench's default protocol.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin102; mkdir -p $D; tar xJf dist/run102.tar.xz -C $D; W=/tmp/r102; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 400 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
for pass in 1 2; do
  timeout 90 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-issue-$pass.txt 2>&1
  echo "issue $pass rc=$? $(grep -E '^(cublas|simt-13|tc-03)' $W/bench-issue-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
tar czf $OUT/run102.tgz -C /tmp r102
