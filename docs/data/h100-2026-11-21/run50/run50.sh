#!/usr/bin/env bash
# Run 50 (H100): tc-03 of the session's starting main (3bfb0d4) and of the final build (run 48's)
# alternating three times at 4096^3 and 8192^3, to see whether the seventh session's changes
# help on an H100 as on the H200s (runs 45, 47).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin50; mkdir -p $D; tar xJf dist/run48.tar.xz -C $D; xz -dc dist/sgemm-bench-main.xz > $D/sgemm-bench-main; chmod +x $D/sgemm-bench-main
W=/tmp/r50; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-0)|^[0-9]+ x" $W/tc-$i-$b.txt | awk '{print $1, $5, $7}'
done
tar czf $OUT/run50.tgz -C /tmp r50
