#!/usr/bin/env bash
# Run 16: rung 13 builds that differ only in ptxas's register assignment (consumer registers 216
# and FFMA source order), against main's rung 13; alternated, same run.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run16; W=/tmp/r16; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
S=4096x4096x4096,8192x8192x8192,2048x2048x2048,4096x4096x1024
for pass in 1 2; do
for v in main r_j_kk_216 j_r_kk_216 b216_d; do
  timeout 60 $D/sgemm-bench-$v --kernels 'simt-13*' --shapes $S --reps 20 > $W/bench-$v-$pass.txt 2>&1; echo "$v pass $pass rc=$?"
  grep -hE "^simt" $W/bench-$v-$pass.txt | awk '{print "   ", $5, $6, $7}'
done; done
cat $W/gpu.txt
tar czf $OUT/run16.tgz -C /tmp r16
