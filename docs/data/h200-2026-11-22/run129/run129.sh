#!/usr/bin/env bash
# Run 129: tensor-core rung 04 (Tf32 math on FP16 wgmma, operands scaled by powers of two) against
# tc-03 Tf32 and cuBLAS TF32. One build (w, the working tree). Smoke test, tc-04's case matrix and
# the Api tests, sanitizers on tc-04, ncu of one call's kernels at 8192^3 (passes + tile kernel),
# the energy probe (8192^3 two passes, 4096^3 one), --cooldown-ms 1000 tables.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin129; mkdir -p $D; tar xJf dist/run129.tar.xz -C $D; W=/tmp/r129; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 30 $D/w/sgemm-bench 1000 1100 1200 --kernels tc-04-wgmma-f16-tf32 > $W/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc"; tail -4 $W/smoke.txt
if [ $rc -ne 0 ]; then tar cJf $OUT/run129-logs.tar.xz -C $W .; exit 1; fi
timeout 150 $D/w/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_04*:Api.*' > $W/tests-w.log 2>&1
echo "tests w rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-w.log | tr '\n' ' ')"
grep -E 'FAILED|Failure' $W/tests-w.log | head -20
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $D/w/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_04*:Kernels/CaseMatrix.SanitizerTailShapes/tc_04*' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"
done
timeout 120 ncu --clock-control none \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum \
  -k regex:'f16_|tc_04|tc_fallback' --launch-count 6 --csv \
  $D/w/sgemm-bench 8192 8192 8192 --kernels tc-04-wgmma-f16-tf32 --reps 10 --warmup 0 > $W/ncu.csv 2>&1
echo "ncu rc=$?"; grep -E 'f16_|tc_04|tc_fallback' $W/ncu.csv | awk -F'","' '{printf "%s %s=%s\n", $5, $(NF-2), $NF}' | sed 's/\"//g'
P="w:tc-04-wgmma-f16-tf32:tf32 w:tc-03-wgmma-rs-tf32:tf32 w:cublas-tf32"
for pass in 1 2; do
  for c in $P; do
    timeout 30 $D/w/energy ${c#*:} 8192 8192 8192 4 2>&1 | grep -v experiment | tee -a $W/energy.txt
  done
done
for c in $P; do
  timeout 30 $D/w/energy ${c#*:} 4096 4096 4096 3 2>&1 | grep -v experiment | tee -a $W/energy.txt
done
for i in 1 2 3; do
  [ $SECONDS -lt 420 ] || break
  timeout 100 $D/w/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32,tc-04-wgmma-f16-tf32' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 --cooldown-ms 1000 > $W/bench-$i.txt 2>&1
  echo "bench $i rc=$? $(grep -E '^(cublas|tc-0)' $W/bench-$i.txt | awk '{print $1, $5, $7, $9}' | tr '\n' ' ')"
done
tar cJf $OUT/run129-logs.tar.xz -C $W .
