#!/usr/bin/env bash
# Run 20: persistent rung 03. Its case matrix, Api tests, memcheck and synccheck on the sanitizer
# shapes; then the bench: run 18's binary (one CTA per tile) and this one, same shapes, one after
# the other, each against cuBLAS in its own run.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run20; T=$D/sgemm-gpu-tests; W=/tmp/r20; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*' > $W/case.txt 2>&1; echo "case rc=$?"; tail -3 $W/case.txt
timeout 120 $T --gtest_brief=1 --gtest_filter='Api.*' > $W/api.txt 2>&1; echo "api rc=$?"; grep -E "tc-03|Failure|FAILED|PASSED" $W/api.txt | head -20
for tool in memcheck synccheck; do timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*' > $W/$tool.txt 2>&1; echo "$tool rc=$?"; grep -E "ERROR SUMMARY" $W/$tool.txt; done
for b in sgemm-bench-run18 sgemm-bench; do
  timeout 150 $D/$b --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-$b.txt 2>&1; echo "$b rc=$?"
  grep -hE "^(cublas|tc)|^[0-9]+ x" $W/bench-$b.txt
done
cat $W/gpu.txt
tar czf $OUT/run20.tgz -C /tmp r20
