#!/usr/bin/env bash
# Run 173: what instructions added to rung 13's producer k-tile cost the CTA. main; vH (64
# dependent UIMADs, run 172's), vI (66 UIMADs in 8 chains), vA (64 dependent UIADD3/ULOP3), vF
# (64 dependent FFMAs). Idle tables of 4096³ and 8192³, alternated twice. Patches: run172/vH.patch,
# vI.patch, vA.patch, vF.patch.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin173; mkdir -p $D; tar xJf dist/run173.tar.xz -C $D; W=/tmp/r173; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for i in 1 2; do for v in main vH vI vA vF; do
  timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done; done
tar czf $OUT/run173.tgz -C /tmp r173
