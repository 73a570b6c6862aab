#!/usr/bin/env bash
# Run 114: the tail kernels launched as programmatic dependents of the whole-tile kernels (pdl)
# against main: pdl's case matrices for simt-13 and tc-03 and the Api tests, the four sanitizers
# on their tail shapes, then the bench alternated three times (rung 13 in the default protocol,
# tc-03 with --cooldown-ms 1000 as #6 is judged).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin114; mkdir -p $D; tar xJf dist/run114.tar.xz -C $D; W=/tmp/r114; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
T=$D/pdl/sgemm-gpu-tests
timeout 300 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13_tma:Kernels/CaseMatrix.*/tc_03*:Api.*' > $W/pdl-tests.txt 2>&1
echo "pdl tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/pdl-tests.txt | tr '\n' ' ')"
grep -E "FAILED|Failure" $W/pdl-tests.txt | head -10
F='Kernels/CaseMatrix.Sanitizer*Shapes/simt_13*:Kernels/CaseMatrix.Sanitizer*Shapes/tc_03*'
for tool in memcheck racecheck synccheck initcheck; do
  start=$(date +%s)
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $T --gtest_brief=1 --gtest_filter="$F" > $W/san-$tool.txt 2>&1
  echo "$tool rc=$? ($(( $(date +%s) - start )) s) $(grep -Eo 'ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard' $W/san-$tool.txt | tail -1) $(grep -E '^\[  PASSED' $W/san-$tool.txt)"
done
for pass in 1 2 3; do
  for b in main pdl; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096,8192x8192x8192,4096x4096x1024 > $W/bench13-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench13-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
    timeout 150 $D/$b/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --cooldown-ms 1000 > $W/bench03-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|tc-03)' $W/bench03-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run114.tgz -C /tmp r114
