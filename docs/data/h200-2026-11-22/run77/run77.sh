#!/usr/bin/env bash
# Run 77: how much does tc-03 lose to its partial last round? tc-03 at 8192^3 (3xTF32: 4096 tiles
# of 128 x 128 = 31 rounds + 4 tiles; Tf32: 2048 tiles of 256 x 128 = 15 rounds + 68) against
# shapes of the same work made of whole rounds (7936 x 8448: 4092 tiles = 31 rounds; 7680 x 8448:
# 1980 tiles = 15 rounds), twice each, alternated. Binaries: dist/final10 (f359d1d).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin77; mkdir -p $D; tar xJf dist/final10.tar.xz -C $D; B=$D/sgemm-bench; W=/tmp/r77; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for pass in 1 2; do
  for s in 8192x8192x8192 7936x8448x8192 7680x8448x8192; do
    timeout 120 $B --kernels 'tc-03*' --shapes $s --cublas-tf32 --reps 20 > $W/bench-$s-$pass.txt 2>&1; echo "$s $pass rc=$?"
  done
done
for f in $W/bench-*.txt; do echo "== $(basename $f)"; grep -E "^(cublas|tc-03)" $f | awk '{print $1, $5, $6, $7}' | tr '\n' ' '; echo; done
tar czf $OUT/run77.tgz -C /tmp r77
