#!/usr/bin/env bash
# Run 38: the Api GPU tests after the two accuracy-against-cuBLAS tests were folded onto one
# helper (test code only; the library is run 37's).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
W=/tmp/r38; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
timeout 200 dist/run38/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Api.*' > $W/api.txt 2>&1; echo "api rc=$?"
grep -E "accuracy|Failure|FAILED|PASSED" $W/api.txt; cat $W/gpu.txt
tar czf $OUT/run38.tgz -C /tmp r38
