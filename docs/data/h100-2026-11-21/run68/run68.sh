#!/usr/bin/env bash
# Run 68: the tail kernel with each CTA's pieces in k order (the next tile's start first) and the
# recalibrated split rule (v3), against main's rung 13 (mainref) and run 67's v1 (pieces in range
# order). (1) v3's rung-13 tests; (2) bench alternated twice: issue shapes and the K = 1024 sweep;
# (3) back-to-back calls at 4096^3 and 8192^3; (4) ncu of v3's tail kernel at 4096^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin68; mkdir -p $D; tar xJf dist/run68.tar.xz -C $D; W=/tmp/r68; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 100 $D/v3/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-v3.txt 2>&1; echo "v3 simt-13 case matrix rc=$?"; tail -2 $W/tests-v3.txt
for pass in 1 2; do
  for v in mainref v1 v3; do
    timeout 150 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192,2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-$v-$pass.txt 2>&1; echo "bench $v $pass rc=$?"
    timeout 100 $D/$v/sgemm-bench --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/k1024-$v-$pass.txt 2>&1; echo "k1024 $v $pass rc=$?"
  done
done
for f in $W/bench-*.txt $W/k1024-*.txt; do echo "== $(basename $f)"; grep -E "^(cublas|simt-13)" $f | awk '{print $1, $5, $6, $7}' | tr '\n' ' '; echo; done
for v in mainref v1 v3; do
  for shape in "4096 4096 4096 2" "8192 8192 8192 3"; do
    echo "$v $shape: $(timeout 30 $D/$v/energy simt-13-tma $shape 2>&1 | tail -1)"
  done
done | tee $W/steady.txt
timeout 100 ncu --clock-control none -k regex:simt_13 --launch-count 2 --metrics gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,sm__cycles_active.avg $D/v3/sgemm-bench --kernels simt-13-tma --shapes 4096x4096x4096 --reps 10 --warmup 0 > $W/ncu-v3-4096.txt 2>&1; echo "ncu rc=$?"
grep -E "simt_13_tma_kernel<|gpu__time|lts__|dram__|sm__cycles" $W/ncu-v3-4096.txt | sed 's/(Canonical.*//'
tar czf $OUT/run68.tgz -C /tmp r68
