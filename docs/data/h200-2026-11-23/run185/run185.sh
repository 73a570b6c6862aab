#!/usr/bin/env bash
# Run 185: the twenty-eighth session's final check, on main (its device code's source is 0554f9b's;
# this session changed docs only), then shared-load metrics of rung 13 in RowMajor NN and TN.
# auto's choice for run 163's 170 calls; scripts/gpu-check; three --cooldown-ms 1000 tables of #4's
# 4096³ and 8192³; #4's other shapes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin185; mkdir -p $D; tar xJf dist/run185.tar.xz -C $D; W=/tmp/r185; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
$D/final/auto_probe $(cat docs/data/h200-2026-11-22/run163/calls.txt | tr ':' ' ') > $W/auto-choice.txt; echo "auto_probe rc=$? $(grep -c simt-13 $W/auto-choice.txt) calls to simt-13"
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; cat $W/gc/summary.txt
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
for i in 1 2 3; do
  timeout 100 $B --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-cool1000-$i.txt 2>&1
  echo "cool1000-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-cool1000-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
timeout 150 $B --kernels simt-13-tma --shapes 2048x2048x2048,16384x16384x16384,2048x2048x1024,4096x4096x1024,8192x8192x1024,16384x16384x1024 > $W/bench-issue4-shapes.txt 2>&1
echo "issue4 shapes rc=$?"; grep -E '^([0-9]|cublas|simt-13)' $W/bench-issue4-shapes.txt | awk '{print $1, $2, $3, $4, $5, $7}'
for op in NN TN; do
  timeout 120 ncu --clock-control none --kernel-name regex:simt_13 --launch-skip 4 --launch-count 1 \
    --metrics smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum \
    $B 4096 4096 4096 --ops $op --kernels simt-13-tma --reps 10 --warmup 1 > $W/ncu-smem-$op.txt 2>&1
  echo "ncu $op rc=$?"; grep -E "shared|issue_active|per_second|duration" $W/ncu-smem-$op.txt
done
tar czf $OUT/run185.tgz -C /tmp r185
