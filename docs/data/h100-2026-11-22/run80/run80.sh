#!/usr/bin/env bash
# Run 80: the tenth session's final code with the Tf32 Frobenius check in the GPU tests.
# (0) the tc-03 mutant (tail tiles stored at the wrong place) must now fail TailShapes in both
# modes; (1) scripts/gpu-check on this build (the library is run 79's; only the tests changed).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin80; mkdir -p $D; tar xJf dist/run80.tar.xz -C $D; W=/tmp/r80; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 120 $D/tcmut/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.TailShapes/tc_03*' > $W/tests-tcmut.txt 2>&1; echo "tcmut TailShapes rc=$? (must be nonzero)"; grep -E "FAILED|PASSED|Frobenius" $W/tests-tcmut.txt | head
GPU_CHECK_KERNEL_TIMEOUT=90 GPU_CHECK_SANITIZER_TIMEOUT=200 GPU_CHECK_BENCH_TIMEOUT=150 timeout 400 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run80.tgz -C /tmp r80
