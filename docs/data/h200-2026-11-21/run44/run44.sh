#!/usr/bin/env bash
# Run 44: tile-group size sweep for the tensor-core rungs. ncu of the 3xTF32 call's kernels
# (pack, scan, tile kernel, fallback) and of the Tf32 tile kernel at 8192^3 for G = 4, 6, 8, 12
# and 16 (main); then tc-02 and tc-03 benches of main and G = 8 alternating at 4096^3 and 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin44; mkdir -p $D; tar xJf dist/run44.tar.xz -C $D; W=/tmp/r44; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
cat $W/gpu.txt
for g in main g4 g6 g8 g12; do
  timeout 100 ncu --clock-control none \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct \
    --kernel-id '::regex:tc_03_wgmma|tc_pack|tc_scan|tc_fallback:3' --csv \
    $D/sgemm-bench-$g 8192 8192 8192 --kernels 'tc-03*' --reps 10 --warmup 0 > $W/ncu-$g.csv 2>&1; echo "ncu $g rc=$?"
  grep -E "tc_03|tc_pack|tc_scan|tc_fallback" $W/ncu-$g.csv | awk -F'","' '{print $5" | "$(NF-2)" "$NF}' | sed 's/(.*) |/ |/; s/sgemm::<unnamed>:://; s/"$//'
done
i=0
for b in main g8 main g8; do
  i=$((i+1))
  timeout 90 $D/sgemm-bench-$b --kernels 'tc-02*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-0)|^[0-9]+ x" $W/tc-$i-$b.txt | awk '{print $1, $5, $7}'
done
tar czf $OUT/run44.tgz -C /tmp r44
