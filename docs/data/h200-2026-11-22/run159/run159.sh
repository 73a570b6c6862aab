#!/usr/bin/env bash
# Run 159: rung 13's tail sums added by a separate kernel when a tile has >= 8 slots. The new
# build's rung-13 case matrix and Api tests; a mutant that drops each tile's last slot from the
# sum (must fail); rung 13 timed by name, the session's first binaries (old) against the new, two
# alternated passes; then scripts/gpu-check on the new build.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin159; mkdir -p $D; tar xJf dist/run159.tar.xz -C $D; W=/tmp/r159; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 150 $D/final/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*:Api.*' > $W/tests-new.log 2>&1
echo "new tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-new.log | tr '\n' ' ')"
timeout 150 $D/mutant/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-mutant.log 2>&1
echo "mutant tests rc=$? (must fail) $(grep -E '^\[  (PASSED|FAILED)' $W/tests-mutant.log | tr '\n' ' ') $(grep -cE '^\[  FAILED  \] Kernels' $W/tests-mutant.log) failed"
S=128x128x65536,256x256x16384,384x384x8192,768x768x768,8x1400x2700,4095x4097x4093,1024x1024x4096,4096x4096x4096,8192x8192x8192
for pass in 1 2; do
  for b in old final; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S --csv $W/bench-$b-$pass.csv > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5}' | tr '\n' ' ')"
  done
done
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; cat $W/gc/summary.txt
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run159.tgz -C /tmp r159
