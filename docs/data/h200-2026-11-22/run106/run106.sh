#!/usr/bin/env bash
# Run 106: the review's fix to the timing plan's warm-up count (the sizing run counts, >= 1):
# the bench with --warmup 0, with a budget cut, and the default, checked in the CSV.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin106; mkdir -p $D; tar xJf dist/run106.tar.xz -C $D; W=/tmp/r106; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for args in "--warmup 0" "--reps 100 --budget 0.1" ""; do
  name=$(echo "x$args" | tr -c 'a-z0-9\n' '_')
  timeout 120 $B --kernels 'simt-13-tma,tc-03*' --cublas-tf32 $args --csv $W/$name.csv > $W/$name.txt 2>&1
  echo "[$args] rc=$?"; grep -E "^(each|cublas|simt|tc-03)" $W/$name.txt | awk '{print $1, $2, $3, $4, $5, $6, $7, $8, $NF}'
  cut -d, -f6,17,19,23- $W/$name.csv
done
tar czf $OUT/run106.tgz -C /tmp r106
