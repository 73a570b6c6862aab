#!/usr/bin/env bash
# Run 12: rung 14 with a division-free, register-held schedule (rung 13's loop restored): its GPU
# tests and compute-sanitizer on its split shapes, then rungs 13 and 14 against cuBLAS.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=dist/run12/sgemm-bench; T=dist/run12/sgemm-gpu-tests; W=/tmp/r12; mkdir -p $W
timeout 120 $T --gtest_brief=1 --gtest_filter='*simt_14*:*simt_13*' > $W/gpu-tests.log 2>&1; echo "gpu tests 13+14 rc=$?"; tail -2 $W/gpu-tests.log
for tool in memcheck racecheck; do timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SplitShapes/simt_14*' > $W/san-$tool.log 2>&1; echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"; done
timeout 200 $B --kernels 'simt-13*,simt-14*' --shapes 2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x4096x1024,16384x16384x16384 --reps 20 > $W/bench.txt 2>&1; echo "bench rc=$?"
grep -hE "^(cublas|simt)|^[0-9]+ x" $W/bench.txt
tar czf $OUT/run12.tgz -C /tmp r12
