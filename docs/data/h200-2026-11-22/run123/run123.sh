#!/usr/bin/env bash
# Run 123: L2 eviction priorities on tc-03's TMA loads (l2-hints.patch): A evict_last, B
# evict_first; H8 with tile groups of 8 rows, H6 with 6; against main (f5dc172's binaries).
# tc-03 tests of both builds, ncu DRAM bytes of the tile kernels at 8192^3, the energy probe
# alternated three times, and --cooldown-ms 1000 tables alternated twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin123; mkdir -p $D; tar xJf dist/run123.tar.xz -C $D; W=/tmp/r123; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for b in h8 h6; do
  timeout 200 $D/$b/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_0*:Api.*' > $W/tests-$b.txt 2>&1
  echo "tests $b rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-$b.txt | tr '\n' ' ')"
done
for b in main h8 h6; do
  for k in tc_03_wgmma_rs_tf32_kernel tc_03_wgmma_rs_tf32x3_kernel; do
    timeout 120 ncu --clock-control none \
      --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct \
      --kernel-id "::regex:$k:3" --csv \
      $D/$b/sgemm-bench 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32,tc-03-wgmma-rs-tf32x3 --reps 10 --warmup 0 > $W/ncu-$b-$k.csv 2>&1
    echo "ncu $b $k rc=$? $(grep -E 'tc_03' $W/ncu-$b-$k.csv | awk -F'","' '{printf "%s=%s  ", $(NF-2), $NF}' | sed 's/\"//g')"
  done
done
for b in main h8 h6 main h8 h6 main h8 h6; do
  timeout 30 $D/$b/energy tc-03-wgmma-rs-tf32x3:x3 8192 8192 8192 4 2>&1 | sed "s/^/$b /" | tee -a $W/energy.txt
done
for b in main h8 h6; do
  timeout 30 $D/$b/energy tc-03-wgmma-rs-tf32:tf32 8192 8192 8192 3 2>&1 | sed "s/^/$b /" | tee -a $W/energy.txt
done
i=0
for b in main h8 h6 main h8 h6; do
  i=$((i+1))
  timeout 100 $D/$b/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 --cooldown-ms 1000 > $W/bench-$i-$b.txt 2>&1
  echo "bench $i $b rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$i-$b.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
cp $W/* $OUT/
