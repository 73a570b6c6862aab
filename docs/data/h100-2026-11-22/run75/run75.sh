#!/usr/bin/env bash
# Run 75: rung 13's tail kernel with one float per slot store (no spills, no re-derived place),
# against main's rung 13 (mainref, 8d8c911's kernels). (0) a mutant whose fixup reads the slot
# in the wrong order must fail TailShapes; (1) the new build's rung-13 case matrix and sanitizers
# on its SanitizerShapes; (2) bench alternated twice: issue shapes and the K = 1024 sweep;
# (3) ncu of both kernels at 4096^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin75; mkdir -p $D; tar xJf dist/run75.tar.xz -C $D; W=/tmp/r75; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 120 $D/mut3/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.TailShapes/simt_13*' > $W/tests-mut3.txt 2>&1; echo "mut3 TailShapes rc=$? (must be nonzero)"; tail -2 $W/tests-mut3.txt
timeout 120 $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-new.txt 2>&1; echo "new simt-13 case matrix rc=$?"; tail -2 $W/tests-new.txt
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $D/new/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/simt_13*' > $W/san-$tool.txt 2>&1; echo "$tool rc=$?"; tail -1 $W/san-$tool.txt
done
for pass in 1 2; do
  for v in mainref new; do
    timeout 150 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192,2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-$v-$pass.txt 2>&1; echo "bench $v $pass rc=$?"
    timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/k1024-$v-$pass.txt 2>&1; echo "k1024 $v $pass rc=$?"
  done
done
for f in $W/bench-*.txt $W/k1024-*.txt; do echo "== $(basename $f)"; grep -E "^(cublas|simt-13)" $f | awk '{print $1, $5, $6, $7}' | tr '\n' ' '; echo; done
timeout 100 ncu --clock-control none -k regex:simt_13 --launch-count 2 --metrics gpu__time_duration.sum,lts__t_sector_hit_rate.pct,sm__cycles_active.avg,smsp__inst_executed.sum $D/new/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096 --reps 10 --warmup 0 > $W/ncu-new-4096.txt 2>&1; echo "ncu rc=$?"
grep -E "simt_13_tma_kernel<|gpu__time|lts__|smsp__inst|sm__cycles" $W/ncu-new-4096.txt | sed 's/(Canonical.*//'
tar czf $OUT/run75.tgz -C /tmp r75
