#!/usr/bin/env bash
# Run 7: scripts/gpu-check on the final code, 8192^3 for rungs 04 and up, ncu on cute-02 and rung 10.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=dist/run7/sgemm-bench; W=/tmp/r7; mkdir -p $W
GPU_CHECK_KERNEL_TIMEOUT=45 GPU_CHECK_SANITIZER_TIMEOUT=150 GPU_CHECK_BENCH_TIMEOUT=150 timeout 420 scripts/gpu-check --bin dist/run7 --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out; grep -E "^\[accuracy\]" $W/gpu-check.out
grep -vE "^FP32" $W/gc/bench-4096.txt
timeout 120 $B 8192 8192 8192 --kernels 'simt-04*,simt-05*,simt-06*,simt-07*,simt-08*,simt-09*,simt-1*,cute-*,tc-*' --cublas-tf32 --reps 10 --warmup 1 --csv $W/bench-8192.csv > $W/bench-8192.txt 2>$W/bench-8192.err; echo "8192 rc=$?"; grep -vE "^device|^FP32" $W/bench-8192.txt
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio
for k in cute_02_fast simt_10_warptile; do
  slug=$(echo $k | tr _ -)
  timeout 60 ncu --clock-control none --metrics $M -k regex:$k --launch-count 1 --csv $B 4096 4096 4096 --kernels "$slug" --reps 10 --warmup 0 > $W/ncu-$k.csv 2>&1
  echo "$k: $(grep -E '"(l1tex|sm__|smsp)' $W/ncu-$k.csv | awk -F'","' '{gsub(/"/,"",$NF); printf "%s=%s ", $(NF-2), $NF}')"
done
tar czf $OUT/run7.tgz -C /tmp r7
