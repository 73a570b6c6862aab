#!/usr/bin/env bash
# Run 135: where tc-04's per-tile time goes. ncu of the tile kernel at 4096³ and 8192³ for w
# (7562cc1) and nostore (the same, its epilogue's stores skipped: results wrong, timing only).
# Then normal data whose operands have a value set aside (8192³ after a 4096³ shape, two rows
# each: bench seed 2, one value in A and one in B by numpy), with ncu of the correction kernel.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin135; mkdir -p $D; tar xJf dist/run135.tar.xz -C $D; W=/tmp/r135; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second
for b in w nostore; do for s in 4096 8192; do
  timeout 100 ncu --clock-control none --metrics $M -k regex:'tc_04' --launch-count 3 --csv \
    $D/$b/sgemm-bench $s $s $s --kernels tc-04-wgmma-f16-tf32 --reps 10 --warmup 0 > $W/ncu-$b-$s.csv 2>&1
  echo "ncu $b $s rc=$? $(grep -E 'tc_04' $W/ncu-$b-$s.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}' | sed 's/\"//g')"
done; done
timeout 100 $D/w/sgemm-bench --kernels tc-04-wgmma-f16-tf32 --shapes 4096x4096x4096,8192x8192x8192 --values normal --reps 20 > $W/bench-normal-seed2.txt 2>&1
echo "bench normal seed 2 rc=$? $(grep -E '^(cublas|tc-0)' $W/bench-normal-seed2.txt | awk '{print $1, $5, $9}' | tr '\n' ' ')"
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:'f16_correct' --launch-count 40 --csv \
  $D/w/sgemm-bench --kernels tc-04-wgmma-f16-tf32 --shapes 4096x4096x4096,8192x8192x8192 --values normal --reps 10 --warmup 0 > $W/ncu-correct.csv 2>&1
echo "ncu correct rc=$? $(grep -E 'f16_correct' $W/ncu-correct.csv | awk -F'","' '{printf "%s ", $NF}' | sed 's/\"//g')"
tar cJf $OUT/run135-logs.tar.xz -C $W .
