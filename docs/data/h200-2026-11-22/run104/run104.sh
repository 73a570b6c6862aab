#!/usr/bin/env bash
# Run 104: the issue shapes with every kernel's burst starting from rest (--cooldown-ms 1000 and
# 3000), alternated with the default protocol.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin104; mkdir -p $D; tar xJf dist/run104.tar.xz -C $D; W=/tmp/r104; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
run_issue() {  # $1 name, rest: flags
  local name=$1; shift
  timeout 150 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 "$@" > $W/bench-$name.txt 2>&1
  echo "$name rc=$? $(grep -E '^(cublas|simt-13|tc-03)' $W/bench-$name.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
}
run_issue cool1000-1 --cooldown-ms 1000
run_issue default-1
run_issue cool3000-1 --cooldown-ms 3000
run_issue cool1000-2 --cooldown-ms 1000
run_issue default-2
tar czf $OUT/run104.tgz -C /tmp r104
