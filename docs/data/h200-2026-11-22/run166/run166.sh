#!/usr/bin/env bash
# Run 166: two diagnostic SASS patches of rung 13's k-loops (perf-notes, after run 165), built
# from main 870c2bd's sgemm-bench: parity/ (addends renamed into both factors' parity where
# possible) and noreuse/ (operand-reuse flags cleared). Idle tables alternating with orig/.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin166; mkdir -p $D; tar xJf dist/run166.tar.xz -C $D; W=/tmp/r166; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for i in 1 2; do for v in orig parity noreuse; do
  timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7, $NF}' | tr '\n' ' ')"
done; done
tar czf $OUT/run166.tgz -C /tmp r166
