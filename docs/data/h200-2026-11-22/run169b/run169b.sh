#!/usr/bin/env bash
# Run 169b: run 169's ncu step again (it had passed --reps 5, which sgemm-bench refuses): main's
# rung 13 at 4096³, full set with SASS-level stall sampling, the 5th and 6th rung-13 launches
# (a whole-tile kernel and its tail kernel).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin169; mkdir -p $D; [ -x $D/main/sgemm-bench ] || tar xJf dist/run169.tar.xz -C $D; W=/tmp/r169b; mkdir -p $W
timeout 300 ncu --clock-control none --set full --import-source no --kernel-name regex:simt_13 \
  --launch-skip 4 --launch-count 2 -o $W/main4096 \
  $D/main/sgemm-bench 4096 4096 4096 --kernels simt-13-tma --reps 10 --warmup 1 > $W/ncu.log 2>&1
echo "ncu rc=$?"; tail -3 $W/ncu.log
ncu --import $W/main4096.ncu-rep --page details --csv > $W/main4096-details.csv 2>&1
ncu --import $W/main4096.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $W/main4096-source.csv.gz
ls -la $W; tar czf $OUT/run169b.tgz --exclude='*.ncu-rep' -C /tmp r169b
