#!/usr/bin/env bash
# Run 161: tc-03's tail sums added by a separate kernel too (tiles of >= 8 slots), the sum loop
# shared with rung 13 (common/tail_split.cuh). The new build's case matrices of rung 13, tc-03
# and tc-04 and the Api tests; a mutant whose shared sum leaves each tile's last slot out (must
# fail rung 13 and tc-03); tc-03 in both modes timed by name, the session's first binaries (old)
# against the new, two alternated passes; then scripts/gpu-check on the new build.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin161; mkdir -p $D; tar xJf dist/run161.tar.xz -C $D; W=/tmp/r161; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 200 $D/final/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*:Kernels/CaseMatrix.*/tc_03*:Kernels/CaseMatrix.*/tc_04*:Api.*' > $W/tests-new.log 2>&1
echo "new tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-new.log | tr '\n' ' ')"
timeout 200 $D/mutant/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*:Kernels/CaseMatrix.*/tc_03*' > $W/tests-mutant.log 2>&1
echo "mutant tests rc=$? (must fail) $(grep -E '^\[  FAILED  \] Kernels' $W/tests-mutant.log | awk '{print $4}' | tr '\n' ' ')"
S=128x128x65536,256x256x16384,384x384x8192,8x1400x2700,4096x4096x4096,8192x8192x8192
for pass in 1 2; do
  for b in old final; do
    timeout 150 $D/$b/sgemm-bench --kernels 'tc-03*' --cublas-tf32 --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$b-$pass.txt | awk '{print $1, $5}' | tr '\n' ' ')"
  done
done
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; cat $W/gc/summary.txt
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run161.tgz -C /tmp r161
