#!/usr/bin/env bash
# tc-02 tile-group size (kTileGroupM in common/tf32_pack.cuh): 4, 8, 16 (committed), 32.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
W=/tmp/tg; mkdir -p $W
for g in 16 4 8 32; do
  timeout 90 dist/tg/sgemm-bench-g$g --shapes 4096x4096x4096,8192x8192x8192,16384x16384x16384 --kernels 'tc-02*' --cublas-tf32 --reps 10 --warmup 1 --csv $W/g$g.csv > $W/g$g.txt 2>$W/g$g.err
  echo "g$g rc=$?"; awk -F, -v g=$g 'NR>1 {printf "g%-3s %5sx%5sx%5s %-22s %8.2f TFLOPS %6.3f x cuBLAS %s\n", g, $12, $13, $14, $6, $18, $19, $23}' $W/g$g.csv
done
tar czf $OUT/tg.tgz -C /tmp tg
