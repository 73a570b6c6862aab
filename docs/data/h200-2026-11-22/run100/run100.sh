#!/usr/bin/env bash
# Run 100: why tc-03 Tf32 runs at a lower clock than cuBLAS TF32 back to back at 8192³ although
# its kernels take fewer cycles (run 99): nvidia-smi samples power, SM clock, temperature and the
# clock-event reasons every 20 ms while the bench runs 400 back-to-back calls of each.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin99; mkdir -p $D; tar xJf dist/run99.tar.xz -C $D; W=/tmp/r100; mkdir -p $W; B=$D/main/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.hw_power_brake_slowdown,clocks_event_reasons.sw_thermal_slowdown,clocks_event_reasons.hw_thermal_slowdown --format=csv,nounits -lms 20 > $W/smi.csv 2>&1 &
SMI=$!
sleep 1; date +%H:%M:%S.%N > $W/marks.txt
timeout 200 $B --kernels tc-03-wgmma-rs-tf32 --cublas-tf32 --shapes 8192x8192x8192 --reps 400 > $W/bench.txt 2>&1; echo "bench rc=$?"
date +%H:%M:%S.%N >> $W/marks.txt; sleep 1; kill $SMI
grep -E "^(cublas|tc-03)" $W/bench.txt
wc -l $W/smi.csv; head -3 $W/smi.csv
tar czf $OUT/run100.tgz -C /tmp r100
