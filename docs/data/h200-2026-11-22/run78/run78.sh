#!/usr/bin/env bash
# Run 78: tc-03 with the tail split (common/tail_split.cuh) against the tenth session's main
# (dist/final10). (0) a mutant that stores tail tiles at the wrong place must fail TailShapes;
# (1) tc-03's case matrix, the Api tests (accuracy) and the sanitizers on its SanitizerShapes;
# (2) tc-03 at 8192^3 and 4096^3 with cuBLAS SGEMM and TF32, alternated twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin78; mkdir -p $D/old; tar xJf dist/run78.tar.xz -C $D; tar xJf dist/final10.tar.xz -C $D/old; W=/tmp/r78; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 120 $D/tcmut/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.TailShapes/tc_03*' > $W/tests-tcmut.txt 2>&1; echo "tcmut TailShapes rc=$? (must be nonzero)"; tail -2 $W/tests-tcmut.txt
timeout 200 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*' > $W/tests-new.txt 2>&1; echo "new tc-03 case matrix rc=$?"; tail -2 $W/tests-new.txt
timeout 200 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Api.*' > $W/tests-api.txt 2>&1; echo "new Api rc=$?"; grep -E "^\[accuracy\]" $W/tests-api.txt; tail -2 $W/tests-api.txt
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*' > $W/san-$tool.txt 2>&1; echo "$tool rc=$?"; tail -1 $W/san-$tool.txt
done
for pass in 1 2; do
  for v in old new; do
    timeout 120 $D/$v/sgemm-bench --kernels 'tc-03*' --shapes 8192x8192x8192,4096x4096x4096 --cublas-tf32 --reps 20 > $W/bench-$v-$pass.txt 2>&1; echo "bench $v $pass rc=$?"
  done
done
for f in $W/bench-*.txt; do echo "== $(basename $f)"; grep -E "^(cublas|tc-03)" $f | awk '{print $1, $5, $6, $7}' | tr '\n' ' '; echo; done
tar czf $OUT/run78.tgz -C /tmp r78
