#!/usr/bin/env bash
# Run 165: rung 13 with its k-loop accumulators renamed in SASS (perf-notes, "renaming the
# accumulators"). orig/ is main 870c2bd's sgemm-bench; patched/ the same executables with the
# eight rung-13 kernels' k-loops patched (disassembly checked against the expected renaming).
# Rung 13's case matrices on the patched tests, then idle tables alternating orig and patched.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin165; mkdir -p $D; tar xJf dist/run165.tar.xz -C $D; W=/tmp/r165; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 200 $D/patched/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-patched.txt 2>&1
echo "patched case matrices rc=$?"; grep -E '^\[  (PASSED|FAILED)|tests? from .* ran' $W/tests-patched.txt | tail -3
for i in 1 2; do for v in orig patched; do
  timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done; done
tar czf $OUT/run165.tgz -C /tmp r165
