#!/usr/bin/env bash
# Run 14: evidence before changes. ncu (full set, SASS-level stall sampling) on rung 13 and cuBLAS
# SGEMM at 4096^3; throughput sections on tc-02 and cuBLAS TF32 at 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=dist/run14/sgemm-bench; W=/tmp/r14; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 200 ncu --clock-control none --set full --import-source no \
  --kernel-id '::regex:simt_13|xmma_gemm_f32f32:3' -o $W/sgemm4096 \
  $B 4096 4096 4096 --kernels simt-13-tma --reps 10 --warmup 0 > $W/ncu-sgemm.log 2>&1; echo "ncu sgemm rc=$?"
ncu --import $W/sgemm4096.ncu-rep --page details --csv > $W/sgemm4096-details.csv 2>&1
ncu --import $W/sgemm4096.ncu-rep --page source --csv --print-source sass > $W/sgemm4096-source.csv 2>&1
timeout 200 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats \
  --metrics sm__cycles_elapsed.avg.per_second --kernel-id '::regex:tf32|xmma|cutlass|sm90:3' \
  --csv $B 8192 8192 8192 --kernels tc-02-wgmma-tf32,tc-02-wgmma-tf32x3 --cublas-tf32 --reps 10 --warmup 0 \
  > $W/tf32-8192.csv 2>&1; echo "ncu tf32 rc=$?"
tar czf $OUT/run14.tgz --exclude='*.ncu-rep' -C /tmp r14
