#!/usr/bin/env bash
# Run 132: the nineteenth session's final check. scripts/gpu-check on the working tree's
# binaries (tc-04 in the registry and in auto), then in the same run three --cooldown-ms 1000
# tables of #6's shapes (all three must meet all four targets), one --warmup-ms 2000 table, #4's
# other shapes in the default protocol, and the mutant (tc-04 never raising its flag) against
# Api.Tf32WideRangeOperands, which must fail.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin132; mkdir -p $D; tar xJf dist/run132.tar.xz -C $D; W=/tmp/r132; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 60 $D/mut/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Api.Tf32WideRangeOperands' > $W/tests-mut.log 2>&1
echo "mutant rc=$? (must fail) $(grep -E '^\[  (PASSED|FAILED)' $W/tests-mut.log | tr '\n' ' ')"
grep -m3 -E 'tc-04.*(NN|TT):' $W/tests-mut.log | cut -c1-200
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
run_issue() {  # $1 name, rest: flags
  local name=$1; shift
  timeout 150 $B --kernels 'simt-13*,tc-03*,tc-04*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 "$@" > $W/bench-$name.txt 2>&1
  echo "$name rc=$? $(grep -E '^(cublas|simt-13|tc-03|tc-04)' $W/bench-$name.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
}
run_issue cool1000-1 --cooldown-ms 1000
run_issue cool1000-2 --cooldown-ms 1000
run_issue cool1000-3 --cooldown-ms 1000
run_issue wms2000 --warmup-ms 2000
timeout 150 $B --kernels simt-13-tma --shapes 2048x2048x2048,16384x16384x16384,2048x2048x1024,4096x4096x1024,8192x8192x1024,16384x16384x1024 > $W/bench-issue4-shapes.txt 2>&1
echo "issue4 shapes rc=$?"; grep -E '^([0-9]|cublas|simt-13)' $W/bench-issue4-shapes.txt | awk '{print $1, $2, $3, $4, $5, $7}'
tar czf $OUT/run132.tgz -C /tmp r132
