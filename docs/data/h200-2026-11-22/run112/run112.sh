#!/usr/bin/env bash
# Run 112: compute-sanitizer initcheck (DESIGN.md lists it; scripts/gpu-check did not run it) over
# gpu-check's sanitizer tests, main's binaries (d5798f0; kernels as 65ab5e0's).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin112; mkdir -p $D; tar xJf dist/run112.tar.xz -C $D; W=/tmp/r112; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
compute-sanitizer --version | tail -1 | tee -a $W/gpu.txt
F='Kernels/CaseMatrix.SanitizerShapes/*:Kernels/CaseMatrix.SanitizerTailShapes/simt_13*:Kernels/CaseMatrix.SanitizerTailShapes/tc_03*'
start=$(date +%s)
timeout 400 compute-sanitizer --tool initcheck --error-exitcode 99 --print-limit 40 \
  $D/main/sgemm-gpu-tests --gtest_brief=1 --gtest_filter="$F" > $W/initcheck.log 2>&1
echo "initcheck rc=$? ($(( $(date +%s) - start )) s) $(grep -Eo 'ERROR SUMMARY: [0-9]+ error' $W/initcheck.log | tail -1)"
grep -E "^\[  (PASSED|FAILED)|tests? ran" $W/initcheck.log | tail -3
grep -E "^=========  *(Uninitialized|Invalid|Host|Saved)|^=========     at |Kernel|Address" $W/initcheck.log | sort | uniq -c | sort -rn | head -30
tar czf $OUT/run112.tgz -C /tmp r112
