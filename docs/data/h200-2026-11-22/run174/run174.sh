#!/usr/bin/env bash
# Run 174: rung 13 with the tail kernel running its pieces first and then the CTA's whole tiles
# through the same k-loop (one kernel per call where there is a tail; vT.patch), against main.
# vT's rung-13 case matrix, Api tests and sanitizers; idle tables alternated three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin174; mkdir -p $D; tar xJf dist/run174.tar.xz -C $D; W=/tmp/r174; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
T=$D/vT/sgemm-gpu-tests
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*:Api.*' > $W/tests-vT.txt 2>&1
echo "vT case matrix + Api rc=$?"; grep -E '^\[  (PASSED|FAILED)|tests? from .* ran' $W/tests-vT.txt | tail -3
SF='Kernels/CaseMatrix.SanitizerShapes/simt_13*:Kernels/CaseMatrix.SanitizerTailShapes/simt_13*'
for tool in memcheck synccheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $T --gtest_filter="$SF" > $W/san-$tool.txt 2>&1
  echo "vT $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $W/san-$tool.txt | tail -1)"
done
for i in 1 2 3; do for v in main vT; do
  timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done; done
tar czf $OUT/run174.tgz -C /tmp r174
