#!/usr/bin/env bash
# Run 103: the bench's timing plan (sized from a warm run; --warmup-ms) through scripts/gpu-check
# and the issue shapes in both protocols; the launch-overhead probe.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin103; mkdir -p $D; tar xJf dist/run103.tar.xz -C $D; W=/tmp/r103; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 400 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(each|cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
timeout 60 $B --kernels simt-13-tma --reps 100 --budget 0.1 --csv $W/budget.csv > $W/bench-budget.txt 2>&1
echo "budget rc=$?"; grep -E "^(each|cublas|simt)" $W/bench-budget.txt; tail -2 $W/budget.csv
for n in 4096 2048 8192; do timeout 120 $D/final/launch_overhead $n > $W/overhead-$n.txt 2>&1; echo "overhead $n rc=$?"; grep "pass 3" $W/overhead-$n.txt; done
run_issue() {  # $1 name, rest: flags
  local name=$1; shift
  timeout 150 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 "$@" > $W/bench-$name.txt 2>&1
  echo "$name rc=$? $(grep -E '^(cublas|simt-13|tc-03)' $W/bench-$name.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
}
run_issue default-1
run_issue wms2000-1 --warmup-ms 2000
run_issue wms2000-2 --warmup-ms 2000
run_issue default-2
tar czf $OUT/run103.tgz -C /tmp r103
