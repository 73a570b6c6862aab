#!/usr/bin/env bash
# Run 21: where persistent rung 03 Tf32 loses to cuBLAS TF32 at 8192^3: ncu full set with
# SASS-level stall sampling on both kernels; the metric names for the tensor pipe.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run21; B=$D/sgemm-bench; W=/tmp/r21; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
ncu --query-metrics --chip gh100 2>/dev/null | grep -iE "gmma|tensor_op|pipe_tensor" > $W/tensor-metrics.txt
timeout 300 ncu --clock-control none --set full --import-source no \
  --kernel-id '::regex:tc_03|tf32f32:2' -o $W/tf32-8192 \
  $B 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32 --cublas-tf32 --reps 10 --warmup 0 > $W/ncu.log 2>&1; echo "ncu rc=$?"
ncu --import $W/tf32-8192.ncu-rep --page details --csv > $W/details.csv 2>&1
ncu --import $W/tf32-8192.ncu-rep --page source --csv --print-source sass > $W/source.csv 2>&1
python3 $D/stall_summary.py $W/source.csv
grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|L2 Hit Rate|DRAM Throughput|Issue Slots Busy|Executed Ipc Active" $W/details.csv | cut -c1-200
gzip $W/source.csv; rm -f $W/tf32-8192.ncu-rep
tar czf $OUT/run21.tgz -C /tmp r21
