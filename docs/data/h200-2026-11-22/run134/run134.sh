#!/usr/bin/env bash
# Run 134: tc-04 sets aside values below FP16's range and corrects C after its tile kernel;
# flagged calls go to tc-03 (gated on the flag). Builds: w (working tree), mut1 (flag never
# raised), mut2 (correction never added): each mutant must fail Api.Tf32WideRangeOperands.
# All GPU tests, sanitizers on tc-04's shapes and the wide-range test, ncu of one call at 4096³
# (uniform) and 8192³ (normal), --cooldown-ms 1000 tables on uniform and normal data.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin134; mkdir -p $D; tar xJf dist/run134.tar.xz -C $D; W=/tmp/r134; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 30 $D/w/sgemm-bench 1000 1100 1200 --kernels 'tc-0*' > $W/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc"; tail -3 $W/smoke.txt
if [ $rc -ne 0 ]; then tar cJf $OUT/run134-logs.tar.xz -C $W .; exit 1; fi
timeout 150 $D/w/sgemm-gpu-tests --gtest_brief=1 > $W/tests-w.log 2>&1
echo "tests w rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-w.log | tr '\n' ' ')"
grep -E 'FAILED|Failure' $W/tests-w.log | head -10
for mut in mut1 mut2; do
  timeout 60 $D/$mut/sgemm-gpu-tests --gtest_filter='Api.Tf32WideRangeOperands' > $W/tests-$mut.log 2>&1
  echo "tests $mut rc=$? (must fail) $(grep -E '^\[  (PASSED|FAILED)' $W/tests-$mut.log | tr '\n' ' ')"
  grep -E 'tc-04.*(every|two) row' $W/tests-$mut.log | cut -c1-160 | head -4
done
for tool in memcheck racecheck synccheck initcheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $D/w/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_04*:Api.Tf32WideRangeOperands' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"
done
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum
timeout 100 ncu --clock-control none --metrics $M -k regex:'f16_|tc_0|tc_fallback' --launch-count 9 --csv \
  $D/w/sgemm-bench 4096 4096 4096 --kernels tc-04-wgmma-f16-tf32 --reps 10 --warmup 0 > $W/ncu-4096.csv 2>&1
echo "ncu 4096 rc=$?"; grep -E 'f16_|tc_0|tc_fallback' $W/ncu-4096.csv | awk -F'","' '{printf "%s %s=%s\n", substr($5,1,34), $(NF-2), $NF}' | sed 's/\"//g' | grep -E 'duration|elapsed.max'
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:'f16_|tc_0|tc_fallback' --launch-count 9 --csv \
  $D/w/sgemm-bench 8192 8192 8192 --kernels tc-04-wgmma-f16-tf32 --values normal --reps 10 --warmup 0 > $W/ncu-8192n.csv 2>&1
echo "ncu 8192 normal rc=$?"; grep -E 'f16_|tc_0|tc_fallback' $W/ncu-8192n.csv | awk -F'","' '{printf "%s %s=%s\n", substr($5,1,34), $(NF-2), $NF}' | sed 's/\"//g'
for v in uniform normal; do for i in 1 2; do
  [ $SECONDS -lt 480 ] || break
  timeout 100 $D/w/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32,tc-04-wgmma-f16-tf32' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --values $v --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "bench $v $i rc=$? $(grep -E '^(cublas|tc-0)' $W/bench-$v-$i.txt | awk '{print $1, $5, $9}' | tr '\n' ' ')"
done; done
tar cJf $OUT/run134-logs.tar.xz -C $W .
