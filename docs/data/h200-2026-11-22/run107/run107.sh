#!/usr/bin/env bash
# Run 107: rung 13 with the next stage's barrier tested a k-tile early (vd) against main, alternated
# twice; then ncu of tc-03's whole-tile and tail kernels at 8192^3 in both modes (kernel times in
# isolation).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin107; mkdir -p $D; tar xJf dist/run107.tar.xz -C $D; W=/tmp/r107; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=4096x4096x4096,8192x8192x8192,4096x4096x1024
for pass in 1 2; do
  for b in main vd; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
for m in tf32x3 tf32; do
  timeout 150 ncu --clock-control none --kernel-name regex:tc_03 --launch-count 6 \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct \
    --csv $D/main/sgemm-bench --kernels 'tc-03*' --math $m --shapes 8192x8192x8192 --reps 10 --warmup 1 \
    > $W/ncu-$m.csv 2> $W/ncu-$m.err
  echo "ncu $m rc=$?"
  grep -E "gpu__time_duration|per_second" $W/ncu-$m.csv | awk -F'","' '{print $5, $(NF-2), $NF}' | cut -c1-160
done
tar czf $OUT/run107.tgz -C /tmp r107
