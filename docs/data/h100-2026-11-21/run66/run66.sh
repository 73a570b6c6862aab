#!/usr/bin/env bash
# Run 66: rung 13's last round as a separate stream-K tail kernel (ninth session). (1) the new
# build's case matrix for simt-13 (with TailShapes), TailShapes + SanitizerShapes for every kernel,
# the sanitizers on simt-13; (2) two mutants of the fixup must fail; (3) main's rung 13 and the
# new one alternated twice at the issue shapes; (4) ncu durations of the two kernels at 4096^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin66; mkdir -p $D; tar xJf dist/run66.tar.xz -C $D; W=/tmp/r66; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
T=$D/new/sgemm-gpu-tests
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-simt13.txt 2>&1; echo "simt-13 case matrix rc=$?"; tail -3 $W/tests-simt13.txt
timeout 200 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.TailShapes/*:Kernels/CaseMatrix.SanitizerShapes/*' > $W/tests-tail-all.txt 2>&1; echo "all kernels tail+sanitizer shapes rc=$?"; tail -3 $W/tests-tail-all.txt
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $T --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/simt_13*:Kernels/CaseMatrix.TailShapes/simt_13*' > $W/san-$tool.txt 2>&1
  echo "$tool rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $W/san-$tool.txt | tail -1)"
done
for m in mut1 mut2; do
  timeout 100 $D/$m/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.TailShapes/simt_13*:Kernels/CaseMatrix.SanitizerShapes/simt_13*' > $W/$m.txt 2>&1
  echo "$m rc=$? (must be nonzero): $(grep -cE 'Failure' $W/$m.txt) failures; $(grep -E 'FAILED  \]|PASSED' $W/$m.txt | head -3 | tr '\n' ' ')"
done
for pass in 1 2; do
  for v in mainref new; do
    timeout 150 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192,2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-$v-$pass.txt 2>&1; echo "bench $v $pass rc=$?"
    timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/k1024-$v-$pass.txt 2>&1; echo "k1024 $v $pass rc=$?"
  done
done
for f in $W/bench-*.txt $W/k1024-*.txt; do echo "== $(basename $f)"; grep -E "^(cublas|simt-13)" $f | awk '{print $1, $2, $3, $4, $5, $6, $7}'; done
timeout 120 ncu --clock-control none -k regex:simt_13 --launch-count 6 --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg $D/new/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096 --reps 10 --warmup 0 > $W/ncu-4096.txt 2>&1; echo "ncu rc=$?"
grep -E "simt_13_tma_kernel|gpu__time|sm__cycles" $W/ncu-4096.txt | cut -c1-160 | head -30
tar czf $OUT/run66.tgz -C /tmp r66
