#!/usr/bin/env bash
# Run 124: tc-03 3xTF32 in 2-CTA clusters that multicast A (clusters.patch), against main
# (87a3888's binaries). Builds: main; o (SGEMM_EXP_CLUSTER=1: the paired tile order alone, tiles
# 2q and 2q + 1 side by side in one tile row); c (SGEMM_EXP_CLUSTER=2: the paired order, clusters
# of two, rank 0 multicasting A's big part and rank 1 its small part). tc-03 tests of o and c,
# the sanitizers on c, ncu of the 3xTF32 tile kernel at 8192^3 for all three, the energy probe
# alternated three times at 8192^3 and once at 4096^3, and --cooldown-ms 1000 tables twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin124; mkdir -p $D; tar xJf dist/run124.tar.xz -C $D; W=/tmp/r124; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for b in o c; do
  timeout 200 $D/$b/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Api.*' > $W/tests-$b.log 2>&1
  echo "tests $b rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-$b.log | tr '\n' ' ') $(grep -m1 experiment $W/tests-$b.log)"
done
grep -E "^\[accuracy\] tc-03-wgmma-rs-tf32x3|FAILED|Failure" $W/tests-c.log | head -20
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 $D/c/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*:Kernels/CaseMatrix.SanitizerTailShapes/tc_03*' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"
done
for b in main o c; do
  timeout 120 ncu --clock-control none \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum \
    --kernel-id "::regex:tc_03_wgmma_rs_tf32x3_kernel:3" --csv \
    $D/$b/sgemm-bench 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32x3 --reps 10 --warmup 0 > $W/ncu-$b.csv 2>&1
  echo "ncu $b rc=$? $(grep -E 'tc_03' $W/ncu-$b.csv | awk -F'","' '{printf "%s=%s  ", $(NF-2), $NF}' | sed 's/\"//g')"
done
for b in main o c main o c main o c; do
  timeout 30 $D/$b/energy tc-03-wgmma-rs-tf32x3:x3 8192 8192 8192 4 2>&1 | grep -v experiment | sed "s/^/$b /" | tee -a $W/energy.txt
done
for b in main o c; do
  timeout 30 $D/$b/energy tc-03-wgmma-rs-tf32x3:x3 4096 4096 4096 3 2>&1 | grep -v experiment | sed "s/^/$b 4096 /" | tee -a $W/energy.txt
done
i=0
for b in main o c main o c; do
  i=$((i+1))
  timeout 100 $D/$b/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32x3' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-$i-$b.txt 2>&1
  echo "bench $i $b rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$i-$b.txt | awk '{print $1, $5, $7, $9}' | tr '\n' ' ')"
done
tar cJf $OUT/run124-logs.tar.xz -C $W .
