#!/usr/bin/env bash
# Run 97: the final main of the eleventh session (22e69bd's library; the GPU tests now also hold
# 3xTF32 to a relative Frobenius error of 2^-19): a mutant pack that writes A's small part into
# the neighbouring row, against the tests before and after that check, then scripts/gpu-check.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin97; mkdir -p $D; tar xJf dist/run97.tar.xz -C $D; W=/tmp/r97; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for m in swapold swapnew; do
  timeout 150 $D/$m/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_0*x3' > $W/tests-$m.txt 2>&1
  echo "tests $m rc=$? $(grep -c '^\[  FAILED' $W/tests-$m.txt) failed"; grep "^\[  FAILED" $W/tests-$m.txt | head -8
done
grep -m3 "relative Frobenius" $W/tests-swapnew.txt
timeout 400 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run97.tgz -C /tmp r97
