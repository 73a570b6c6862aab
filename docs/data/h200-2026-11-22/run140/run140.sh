#!/usr/bin/env bash
# Run 140: the twentieth session's final check after the review fixes, on 9f2cc6a's binaries
# (final), with run 138's protocol. The mutants (mut1: tc-04 never raises its flag; mut2: never
# adds its correction; mut3: decides "fits" on the scaled value, dropping values that underflow
# to zero) against Api.WideRangeOperands, which all must fail; scripts/gpu-check; three
# --cooldown-ms 1000 tables of #6's shapes (all three must meet all four targets), one
# --warmup-ms 2000 table; #4's other shapes; 16384³ of the tensor-core modes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin140; mkdir -p $D; tar xJf dist/run140.tar.xz -C $D; W=/tmp/r140; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for mut in mut1 mut2 mut3; do
  timeout 60 $D/$mut/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Api.WideRangeOperands' > $W/tests-$mut.log 2>&1
  echo "$mut rc=$? (must fail) $(grep -E '^\[  (PASSED|FAILED)' $W/tests-$mut.log | tr '\n' ' ')"
  grep -E 'tc-04.*(every|two) row' $W/tests-$mut.log | cut -c1-120 | head -8
done
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
[ $SECONDS -lt 520 ] && timeout 70 $B --kernels 'tc-02-wgmma-tf32,tc-03-wgmma-rs-tf32x3,tc-04-*' --shapes 16384x16384x16384 --cublas-tf32 > $W/bench-16384.txt 2>&1
echo "16384 rc=$? $(grep -E '^(cublas|tc-0)' $W/bench-16384.txt | awk '{print $1, $5, $7, $9}' | tr '\n' ' ')"
tar czf $OUT/run140.tgz -C /tmp r140
