#!/usr/bin/env bash
# Run 178: reuse chains capped in SASS (reusecap.py on main's 13_tma.reordered.o): cap5 clears the
# reuse flags of every 5th FFMA in a row to set one (no FFMA follows 5 reuse-setting FFMAs), cap4
# of every 4th. Exact results (the bench verifies each call). Idle tables of 4096³ and 8192³ and
# 4096 x 4096 x 1024, alternated three times with main.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin178; mkdir -p $D; tar xJf dist/run178.tar.xz -C $D; W=/tmp/r178; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for i in 1 2 3; do for v in main cap5 cap4; do
  timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192,4096x4096x1024 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7, $NF}' | tr '\n' ' ')"
done; done
tar czf $OUT/run178.tgz -C /tmp r178
