#!/usr/bin/env bash
# Run 172: does the producer's instruction count on SMSP 0 set rung 13's pace? main; vW (producer
# run by warp 0 with one elected lane: 28 instead of 38 instructions per k-tile); vH (diagnostic:
# main + 64 dependent IMADs per producer k-tile). vW's rung-13 case matrix and sanitizers, then
# idle tables of 4096³ and 8192³, alternated three times. Patches: vW.patch, vH.patch.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin172; mkdir -p $D; tar xJf dist/run172.tar.xz -C $D; W=/tmp/r172; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
T=$D/vW/sgemm-gpu-tests
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*:Api.*' > $W/tests-vW.txt 2>&1
echo "vW case matrix + Api rc=$?"; grep -E '^\[  (PASSED|FAILED)|tests? from .* ran' $W/tests-vW.txt | tail -3
SF='Kernels/CaseMatrix.SanitizerShapes/simt_13*:Kernels/CaseMatrix.SanitizerTailShapes/simt_13*'
for tool in memcheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $T --gtest_filter="$SF" > $W/san-$tool.txt 2>&1
  echo "vW $tool rc=$? $(tail -1 $W/san-$tool.txt)"
done
for i in 1 2 3; do for v in main vW vH; do
  timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done; done
tar czf $OUT/run172.tgz -C /tmp r172
