#!/usr/bin/env bash
# Run 18: first run of tensor-core rung 03 (B converted in registers): its case matrix and tc-02's
# (shared wgmma header), the Api tests, memcheck on the sanitizer shapes, then tc-02 vs tc-03.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run18; T=$D/sgemm-gpu-tests; B=$D/sgemm-bench; W=/tmp/r18; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Kernels/CaseMatrix.*/tc_02*' > $W/case.txt 2>&1; echo "case rc=$?"; tail -5 $W/case.txt
timeout 120 $T --gtest_brief=1 --gtest_filter='Api.*' > $W/api.txt 2>&1; echo "api rc=$?"; grep -E "accuracy|Failure|FAILED|PASSED" $W/api.txt | head -40
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|=====" $W/memcheck.txt | head -12
timeout 150 $B --kernels 'tc-02*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench.txt 2>&1; echo "bench rc=$?"
cat $W/gpu.txt; grep -hE "^(cublas|simt|tc)|^[0-9]+ x|FAIL|rel" $W/bench.txt | head -40
tar czf $OUT/run18.tgz -C /tmp r18
