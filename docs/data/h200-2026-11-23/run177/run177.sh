#!/usr/bin/env bash
# Run 177: ncu with SASS-level stall sampling (as run 169b) on run 176's main and nop binaries,
# rung 13 at 4096³, the 5th rung-13 launch (a whole-tile kernel).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin176; mkdir -p $D; [ -x $D/main/sgemm-bench ] || tar xJf dist/run176.tar.xz -C $D; W=/tmp/r177; mkdir -p $W
for v in main nop; do
  timeout 250 ncu --clock-control none --set full --import-source no --kernel-name regex:simt_13 \
    --launch-skip 4 --launch-count 1 -o $W/$v \
    $D/$v/sgemm-bench 4096 4096 4096 --kernels simt-13-tma --reps 10 --warmup 1 > $W/ncu-$v.log 2>&1
  echo "ncu $v rc=$?"; tail -2 $W/ncu-$v.log
  ncu --import $W/$v.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $W/$v-source.csv.gz
done
ls -la $W; tar czf $OUT/run177.tgz --exclude='*.ncu-rep' -C /tmp r177
