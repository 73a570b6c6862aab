#!/usr/bin/env bash
# Run 147: rung 13's producer sleeping between its tries on the empty barrier (sleep) against
# main (run 144's binaries): rung 13's case matrix, Api tests, memcheck and synccheck for sleep;
# two alternated bench passes; racecheck of rung 13's SanitizerShapes four times each, alternated,
# each in its own process under a 50 s limit, timed.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin147; mkdir -p $D; tar xJf dist/run147.tar.xz -C $D; W=/tmp/r147; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 200 $D/sleep/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*:Api.*' > $W/tests-sleep.log 2>&1
echo "sleep tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-sleep.log | tr '\n' ' ')"
SF='Kernels/CaseMatrix.SanitizerShapes/simt_13*:Kernels/CaseMatrix.SanitizerTailShapes/simt_13*'
for tool in memcheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $D/sleep/sgemm-gpu-tests --gtest_filter="$SF" > $W/san-$tool-sleep.log 2>&1
  echo "sleep $tool rc=$? $(grep -Eo 'ERROR SUMMARY: [0-9]+ [a-z]+' $W/san-$tool-sleep.log | tail -1) $(grep -E '^\[  PASSED' $W/san-$tool-sleep.log)"
done
for pass in 1 2; do
  for b in main sleep; do
    timeout 100 $D/$b/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096,8192x8192x8192 > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
for i in 1 2 3 4; do
  for b in main sleep; do
    start=$(date +%s%N)
    timeout 50 compute-sanitizer --tool racecheck --error-exitcode 99 $D/$b/sgemm-gpu-tests --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/simt_13*' > $W/racecheck-$b-$i.log 2>&1
    rc=$?
    echo "racecheck $b try $i rc=$rc $(( ($(date +%s%N) - start) / 1000000 )) ms $(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' $W/racecheck-$b-$i.log | tail -1) $(grep -E '^\[       OK' $W/racecheck-$b-$i.log | awk '{print $(NF-1), $NF}')"
  done
done
tar czf $OUT/run147.tgz -C /tmp r147
