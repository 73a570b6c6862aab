#!/usr/bin/env bash
# Run 19: evidence for rung 03's next step. ncu throughput sections on tc-03 (both modes, with the
# 3xTF32 call's pack and scan kernels) and cuBLAS TF32 at 8192^3. (Binary: run 18's.)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=dist/run19/sgemm-bench; W=/tmp/r19; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 400 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section MemoryWorkloadAnalysis --section LaunchStats --section WarpStateStats \
  --metrics sm__cycles_elapsed.avg.per_second,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum \
  --kernel-id '::regex:tc_03|tf32f32|tc_pack|tc_scan:3' \
  --csv $B 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32,tc-03-wgmma-rs-tf32x3 --cublas-tf32 --reps 10 --warmup 0 \
  > $W/tc03-8192.csv 2>&1; echo "ncu rc=$?"
tar czf $OUT/run19.tgz -C /tmp r19
