#!/usr/bin/env bash
# Run 57: tc-03 clusters, second look. (1) ncu of main and the cluster build in the same run at
# 8192^3 (both modes: time, clock, cycles, DRAM bytes, L2 -> SM sectors); (2) bench alternating
# main / cluster (G = 8) / cluster G = 4 / cluster G = 16, twice, at 4096^3 and 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin57; mkdir -p $D; tar xJf dist/run57.tar.xz -C $D; W=/tmp/r57; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
echo "== ncu"
for b in sgemm-bench-main sgemm-bench; do
  for k in tc_03_wgmma_rs_tf32_kernel tc_03_wgmma_rs_tf32x3_kernel; do
    timeout 120 ncu --clock-control none \
      --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum \
      --kernel-id "::regex:$k:3" --csv \
      $D/$b 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32,tc-03-wgmma-rs-tf32x3 --reps 10 --warmup 0 > $W/ncu-$b-$k.csv 2>&1
    echo "ncu $b $k rc=$? $(grep -E 'tc_03' $W/ncu-$b-$k.csv | awk -F'","' '{printf "%s=%s  ", $(NF-2), $NF}' | sed 's/\"//g')"
  done
done
echo "== bench"
i=0
for b in main "" g4 g16 main "" g4 g16; do
  i=$((i+1)); n=sgemm-bench${b:+-$b}
  timeout 90 $D/$n --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i-$n.txt 2>&1; echo "tc $i $n rc=$?"
  grep -hE "^(cublas|tc-03)|^[0-9]+ x" $W/tc-$i-$n.txt
done
tar czf $OUT/run57.tgz -C /tmp r57
