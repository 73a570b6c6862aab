#!/usr/bin/env bash
# Run 145: run 144's racecheck again (it ran past gpu-check's 300 s limit with no test finished),
# on the same binaries, with gpu-check's filter, each test's progress in the log.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin144; mkdir -p $D; [ -x $D/final/sgemm-gpu-tests ] || tar xJf dist/run144.tar.xz -C $D
W=/tmp/r145; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
F='Kernels/CaseMatrix.SanitizerShapes/*:Kernels/CaseMatrix.SanitizerTailShapes/simt_13*:Kernels/CaseMatrix.SanitizerTailShapes/tc_03*'
start=$(date +%s)
timeout 500 compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 20 $D/final/sgemm-gpu-tests --gtest_filter="$F" > $W/sanitizer-racecheck.log 2>&1
echo "racecheck rc=$? ($(( $(date +%s) - start )) s) $(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard[^(]*' $W/sanitizer-racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED)' $W/sanitizer-racecheck.log | tr '\n' ' ')"
grep -E '^\[       OK' $W/sanitizer-racecheck.log | awk '{print $4, $5, $6}' | tr '\n' ' ' | cut -c1-3000
tar czf $OUT/run145.tgz -C /tmp r145
