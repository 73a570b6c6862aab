#!/usr/bin/env bash
# Run 122: tc-03 3xTF32 with two k-tiles per fresh sum, cross terms of both first (pairs.patch)
# against main (f5dc172's binaries): tc-03's case matrix and Api tests (accuracy lines), the
# sanitizers on tc-03's shapes, the energy probe at 8192^3 alternated three times, and
# --cooldown-ms 1000 bench tables alternated three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin122; mkdir -p $D; tar xJf dist/run122.tar.xz -C $D; W=/tmp/r122; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
T=$D/pairs/sgemm-gpu-tests
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Api.*' > $W/tests.log 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests.log | tr '\n' ' ')"
grep -E "^\[accuracy\] tc-03|FAILED|Failure" $W/tests.log | head -30
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 $T --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*:Kernels/CaseMatrix.SanitizerTailShapes/tc_03*' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"
done
for b in main pairs main pairs main pairs; do
  timeout 30 $D/$b/energy tc-03-wgmma-rs-tf32x3:x3 8192 8192 8192 4 2>&1 | sed "s/^/$b /" | tee -a $W/energy.txt
done
i=0
for b in main pairs main pairs main pairs; do
  i=$((i+1))
  timeout 100 $D/$b/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32x3' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$i-$b.txt 2>&1
  echo "bench $i $b rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$i-$b.txt | awk '{print $1, $5, $7, $9}' | tr '\n' ' ')"
done
cp $W/* $OUT/
