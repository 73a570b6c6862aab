#!/usr/bin/env bash
# Run 95: the eleventh session's final check on main (22e69bd: the element-wise pack and the
# extended NanInf test): scripts/gpu-check with its default limits, then the issue shapes:
# simt-13 and tc-03 at 4096^3 and 8192^3 three times with cuBLAS SGEMM and TF32; simt-13 at
# 2048^3, 16384^3 and K = 1024.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin95; mkdir -p $D; tar xJf dist/run95.tar.xz -C $D; B=$D/final/sgemm-bench; W=/tmp/r95; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 300 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
for pass in 1 2 3; do
  timeout 60 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-issue-$pass.txt 2>&1; echo "issue $pass rc=$?"
done
timeout 90 $B --kernels 'simt-13*' --shapes 2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-simt-shapes.txt 2>&1; echo "simt shapes rc=$?"
timeout 60 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
for f in $W/bench-*.txt; do echo "== $(basename $f)"; grep -E "^(cublas|simt-13|tc-03)" $f | awk '{print $1, $5, $6, $7}' | tr '\n' ' '; echo; done
tar czf $OUT/run95.tgz -C /tmp r95
