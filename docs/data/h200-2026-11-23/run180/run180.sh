#!/usr/bin/env bash
# Run 180 (diagnostic): the yield hint on rung 13's k-loop FFMAs (yieldpatch.py on main's
# 13_tma.reordered.o): line7 yields after the last instruction of each 128-byte line, line37 after
# line offsets 3 and 7, every after every FFMA. Exact results (the bench verifies each call). Idle
# tables of 4096³, 8192³ and 4096 x 4096 x 1024, alternated three times with main; then ncu's
# SASS-level samples of line7's whole-tile kernel at 4096³ (as run 177).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin180; mkdir -p $D; tar xJf dist/run180.tar.xz -C $D; W=/tmp/r180; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for i in 1 2 3; do for v in main line7 line37 every; do
  timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192,4096x4096x1024 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7, $NF}' | tr '\n' ' ')"
done; done
for v in line7; do
  timeout 200 ncu --clock-control none --section SourceCounters --section WarpStateStats --import-source no \
    --kernel-name regex:simt_13 --launch-skip 4 --launch-count 1 -o $W/$v \
    $D/$v/sgemm-bench 4096 4096 4096 --kernels simt-13-tma --reps 10 --warmup 1 > $W/ncu-$v.log 2>&1
  echo "ncu $v rc=$?"; tail -2 $W/ncu-$v.log
  ncu --import $W/$v.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $W/$v-source.csv.gz
done
tar czf $OUT/run180.tgz --exclude='*.ncu-rep' -C /tmp r180
