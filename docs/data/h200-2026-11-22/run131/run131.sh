#!/usr/bin/env bash
# Run 131: tc-04 persistent, A scaled in one read (rows kept in shared memory); as run 130.
# Builds: w (the working tree), mut (w's tests against
# a tc-04 that never raises its flag: Tf32WideRangeOperands and NanInf must fail). Tests,
# sanitizers, ncu of one call at 8192^3, energy probe, --cooldown-ms 1000 tables.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin131; mkdir -p $D; tar xJf dist/run131.tar.xz -C $D; W=/tmp/r131; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 30 $D/w/sgemm-bench 1000 1100 1200 --kernels tc-04-wgmma-f16-tf32 > $W/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc"; tail -3 $W/smoke.txt
if [ $rc -ne 0 ]; then tar cJf $OUT/run131-logs.tar.xz -C $W .; exit 1; fi
timeout 150 $D/w/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_04*:Api.*' > $W/tests-w.log 2>&1
echo "tests w rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-w.log | tr '\n' ' ')"
grep -E 'FAILED|Failure' $W/tests-w.log | head -10
timeout 100 $D/mut/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Api.Tf32WideRangeOperands:Kernels/CaseMatrix.NanInfPropagation/tc_04*' > $W/tests-mut.log 2>&1
echo "tests mut rc=$? (must fail) $(grep -E '^\[  (PASSED|FAILED)' $W/tests-mut.log | tr '\n' ' ')"
grep -E '^\[  FAILED' $W/tests-mut.log | head -5
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $D/w/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_04*:Kernels/CaseMatrix.SanitizerTailShapes/tc_04*' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"
done
timeout 120 ncu --clock-control none \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum \
  -k regex:'f16_|tc_04|tc_fallback' --launch-count 5 --csv \
  $D/w/sgemm-bench 8192 8192 8192 --kernels tc-04-wgmma-f16-tf32 --reps 10 --warmup 0 > $W/ncu.csv 2>&1
echo "ncu rc=$?"; grep -E 'f16_|tc_04|tc_fallback' $W/ncu.csv | awk -F'","' '{printf "%s %s=%s\n", substr($5,1,40), $(NF-2), $NF}' | sed 's/\"//g'
P="tc-04-wgmma-f16-tf32:tf32 tc-03-wgmma-rs-tf32:tf32 cublas-tf32"
for s in 8192 4096; do for pass in 1 2; do for c in $P; do
  timeout 30 $D/w/energy $c $s $s $s 3 2>&1 | grep -v experiment | tee -a $W/energy.txt
done; done; done
for i in 1 2 3; do
  [ $SECONDS -lt 420 ] || break
  timeout 100 $D/w/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32,tc-04-wgmma-f16-tf32' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 --cooldown-ms 1000 > $W/bench-$i.txt 2>&1
  echo "bench $i rc=$? $(grep -E '^(cublas|tc-0)' $W/bench-$i.txt | awk '{print $1, $5, $9}' | tr '\n' ' ')"
done
tar cJf $OUT/run131-logs.tar.xz -C $W .
