#!/usr/bin/env bash
# Run 184: ncu with SASS-level stall sampling (as run 177) on main's rung 13 in RowMajor TN (A
# M-major: a near-ideal FFMA stream, 33 three-reads, no clashes) at 4096³, the 5th rung-13 launch
# (a whole-tile kernel); and the same for NN with the same sections, for a like-for-like pair.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin183; mkdir -p $D; [ -x $D/main/sgemm-bench ] || tar xJf dist/run183.tar.xz -C $D; W=/tmp/r184; mkdir -p $W
for op in TN NN; do
  timeout 200 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SchedulerStats --import-source no \
    --kernel-name regex:simt_13 --launch-skip 4 --launch-count 1 -o $W/$op \
    $D/main/sgemm-bench 4096 4096 4096 --ops $op --kernels simt-13-tma --reps 10 --warmup 1 > $W/ncu-$op.log 2>&1
  echo "ncu $op rc=$?"; tail -2 $W/ncu-$op.log
  ncu --import $W/$op.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $W/$op-source.csv.gz
  ncu --import $W/$op.ncu-rep --page details 2>&1 > $W/$op-details.txt
done
tar czf $OUT/run184.tgz --exclude='*.ncu-rep' -C /tmp r184
