#!/usr/bin/env bash
# Run 59: how much of tc-03's time is the epilogue and the tile switch. A timing-only build whose
# tile kernels skip the stores of C (wrong results on purpose) against main: ncu at 8192^3 (both
# modes) and energy per call (Tf32 and 3xTF32, 8192^3). Also lists ncu's tensor-pipe metrics.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin59; mkdir -p $D; tar xJf dist/run59.tar.xz -C $D; W=/tmp/r59; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
ncu --query-metrics --chip gh100 > $W/metrics-gh100.txt 2>&1; grep -iE "gmma|pipe_tensor" $W/metrics-gh100.txt | head -20
for b in sgemm-bench sgemm-bench-nostore; do
  for k in tc_03_wgmma_rs_tf32_kernel tc_03_wgmma_rs_tf32x3_kernel; do
    timeout 120 ncu --clock-control none \
      --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,dram__bytes_write.sum \
      --kernel-id "::regex:$k:3" --csv \
      $D/$b 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32,tc-03-wgmma-rs-tf32x3 --reps 10 --warmup 0 > $W/ncu-$b-$k.csv 2>&1
    echo "ncu $b $k: $(grep -E 'tc_03' $W/ncu-$b-$k.csv | awk -F'","' '{printf "%s=%s  ", $(NF-2), $NF}' | sed 's/\"//g')"
  done
done
for pass in 1 2; do
  for who in cublas-tf32 tc-03-wgmma-rs-tf32:tf32 tc-03-wgmma-rs-tf32x3:x3; do
    for b in energy energy-nostore; do
      [ $who = cublas-tf32 ] && [ $b = energy-nostore ] && continue
      echo -n "$b "; timeout 30 $D/$b $who 8192 8192 8192 3 2>&1
    done
  done
done | tee $W/energy.txt
tar czf $OUT/run59.tgz -C /tmp r59
