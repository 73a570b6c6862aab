#!/usr/bin/env bash
# Run 67: where run 66's tail kernel loses time. Builds: mainref (main's rung 13), new (run 66's
# tail kernel), v1 (the whole-tile kernel launched before the tail's workspace is set up on the
# host), v2 (v1 without the fixup's reads: timing only, its results are wrong). (1) bench
# alternated twice; (2) back-to-back calls (the energy probe: no host sync between calls);
# (3) ncu durations of v1's two kernels; (4) v1's tail tests and racecheck on SanitizerShapes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin67; mkdir -p $D; tar xJf dist/run67.tar.xz -C $D; W=/tmp/r67; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=4096x4096x4096,4096x4096x1024,8192x8192x8192
for pass in 1 2; do
  for v in mainref new v1 v2; do
    timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes $S --reps 20 > $W/bench-$v-$pass.txt 2>&1; echo "bench $v $pass rc=$?"
  done
done
for f in $W/bench-*.txt; do echo "== $(basename $f)"; grep -E "^(cublas|simt-13)" $f | awk '{print $1, $5, $6, $7}' | tr '\n' ' '; echo; done
for v in mainref new v1; do
  for shape in "4096 4096 4096 2" "4096 4096 1024 2" "8192 8192 8192 3"; do
    echo "$v $shape: $(timeout 30 $D/$v/energy simt-13-tma $shape 2>&1 | tail -1)"
  done
done | tee $W/steady.txt
for shape in 4096x4096x1024 4096x4096x4096; do
  timeout 100 ncu --clock-control none -k regex:simt_13 --launch-count 4 --metrics gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,sm__cycles_active.avg $D/v1/sgemm-bench --kernels simt-13-tma --shapes $shape --reps 10 --warmup 0 > $W/ncu-v1-$shape.txt 2>&1; echo "ncu $shape rc=$?"
  grep -E "simt_13_tma_kernel<|gpu__time|lts__|dram__|sm__cycles" $W/ncu-v1-$shape.txt | sed 's/(Canonical.*//' | head -20
done
timeout 100 $D/v1/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-v1.txt 2>&1; echo "v1 simt-13 case matrix rc=$?"; tail -2 $W/tests-v1.txt
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 99 $D/v1/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/simt_13*' > $W/racecheck-v1.txt 2>&1; echo "racecheck rc=$?: $(grep 'RACECHECK SUMMARY' $W/racecheck-v1.txt)"
tar czf $OUT/run67.tgz -C /tmp r67
