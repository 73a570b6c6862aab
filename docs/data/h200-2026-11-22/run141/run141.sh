#!/usr/bin/env bash
# Run 141: scripts/gpu-check on main after the new Tf32 accuracy shape (k = 8320, past tc-04's
# row cache; the kernels as run 140's), and a mutant whose scaling pass drops the values past the
# row cache: Api.Tf32AccuracyAgainstCublasTf32 (and the 3xTF32 accuracy test at K = 16384) must
# fail it.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin141; mkdir -p $D; tar xJf dist/run141.tar.xz -C $D; W=/tmp/r141; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 120 $D/mut4/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Api.Tf32AccuracyAgainstCublasTf32:Api.Tf32x3AccuracyAgainstCublasSgemm' > $W/tests-mut4.log 2>&1
echo "mut4 rc=$? (must fail) $(grep -E '^\[  (PASSED|FAILED)' $W/tests-mut4.log | tr '\n' ' ')"
grep -E 'tc-04' $W/tests-mut4.log | grep -E 'Failure|error|8320|16384' | cut -c1-160 | head -6
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E '^\[accuracy\].*8320' $W/gc/gpu-tests-api.log
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run141.tgz -C /tmp r141
