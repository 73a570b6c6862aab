#!/usr/bin/env bash
# Run 136: tc-04's 3xTF32 mode (tc-04-wgmma-f16-tf32x3). Builds: w (working tree), mut1 (flag
# never raised), mut2 (correction never added): each mutant must fail Api.WideRangeOperands in
# both tc-04 modes. All GPU tests, sanitizers on tc-04's shapes and the wide-range test, ncu of
# one 3xTF32 call at 8192³, --cooldown-ms 1000 tables of 3xTF32 at 4096³ and 8192³.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin136; mkdir -p $D; tar xJf dist/run136.tar.xz -C $D; W=/tmp/r136; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 30 $D/w/sgemm-bench 1000 1100 1200 --kernels 'tc-0*' > $W/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc"; grep -E '^tc-0' $W/smoke.txt
if [ $rc -ne 0 ]; then tar cJf $OUT/run136-logs.tar.xz -C $W .; exit 1; fi
timeout 200 $D/w/sgemm-gpu-tests --gtest_brief=1 > $W/tests-w.log 2>&1
echo "tests w rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-w.log | tr '\n' ' ')"
grep -E 'FAILED|Failure' $W/tests-w.log | head -10
grep -E '^\[accuracy\].*(tc-04|tc-03)' $W/tests-w.log | head -12
for mut in mut1 mut2; do
  timeout 60 $D/$mut/sgemm-gpu-tests --gtest_filter='Api.WideRangeOperands' > $W/tests-$mut.log 2>&1
  echo "tests $mut rc=$? (must fail) $(grep -E '^\[  (PASSED|FAILED)' $W/tests-$mut.log | tr '\n' ' ')"
  grep -E 'tc-04.*(every|two) row' $W/tests-$mut.log | cut -c1-150 | head -8
done
for tool in memcheck racecheck synccheck initcheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $D/w/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_04*:Api.WideRangeOperands' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"
done
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second
timeout 120 ncu --clock-control none --metrics $M -k regex:'f16_|tc_0|tc_fallback' --launch-count 8 --csv \
  $D/w/sgemm-bench 8192 8192 8192 --kernels tc-04-wgmma-f16-tf32x3 --reps 10 --warmup 0 > $W/ncu-8192.csv 2>&1
echo "ncu rc=$?"; grep -E 'f16_|tc_0|tc_fallback' $W/ncu-8192.csv | awk -F'","' '{printf "%s %s=%s\n", substr($5,1,34), $(NF-2), $NF}' | sed 's/\"//g' | grep -E 'duration|elapsed.max'
for i in 1 2 3; do
  [ $SECONDS -lt 470 ] || break
  timeout 100 $D/w/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32x3,tc-04-wgmma-f16-tf32x3' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$i.txt 2>&1
  echo "bench $i rc=$? $(grep -E '^(cublas|tc-0)' $W/bench-$i.txt | awk '{print $1, $5, $7, $9}' | tr '\n' ' ')"
done
tar cJf $OUT/run136-logs.tar.xz -C $W .
