#!/usr/bin/env bash
# Run 89: why run 88's TMA-store build was slower. main (5633779); v1: C through TMA stores as
# a compile-time variant (the kernels for beta != 0 are main's, instruction for instruction);
# v1off: v1 with the TMA path never taken (main's loops, 225 KB of shared memory); v2: v1 with
# scalar staging stores. Bench alternated twice at 4096^3 and 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin89; mkdir -p $D; tar xJf dist/run89.tar.xz -C $D; W=/tmp/r89; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for pass in 1 2; do
  for b in main v1 v1off v2; do
    timeout 120 $D/$b/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/bench-$b-$pass.txt 2>&1
    echo "$b $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $6, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run89.tgz -C /tmp r89
