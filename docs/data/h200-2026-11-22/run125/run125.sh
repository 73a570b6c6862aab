#!/usr/bin/env bash
# Run 125: the paired tile order of tc-03 (pairs-order.patch) in both modes, against main
# (87a3888's binaries). Builds: o (SGEMM_EXP_CLUSTER=1), l (=3: 3xTF32 in clusters of two without
# multicast, stages refilled when both blocks released them), o6 (=1 with groups of 6 tile rows).
# tc-03 tests of each, the sanitizers on l, ncu of both tile kernels at 8192^3, the energy probe
# (3xTF32 8192^3 three passes, 4096^3 two, Tf32 8192^3 two), --cooldown-ms 1000 tables twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin125; mkdir -p $D; tar xJf dist/run125.tar.xz -C $D; W=/tmp/r125; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for b in o l o6; do
  timeout 200 $D/$b/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Api.*' > $W/tests-$b.log 2>&1
  echo "tests $b rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-$b.log | tr '\n' ' ') $(grep -m1 experiment $W/tests-$b.log)"
done
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 $D/l/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*:Kernels/CaseMatrix.SanitizerTailShapes/tc_03*' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"
done
for b in main o l o6; do
  for k in tf32x3 tf32; do
    timeout 120 ncu --clock-control none \
      --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum \
      --kernel-id "::regex:tc_03_wgmma_rs_${k}_kernel:3" --csv \
      $D/$b/sgemm-bench 8192 8192 8192 --kernels tc-03-wgmma-rs-$k --reps 10 --warmup 0 > $W/ncu-$b-$k.csv 2>&1
    echo "ncu $b $k rc=$? $(grep -E 'tc_03' $W/ncu-$b-$k.csv | awk -F'","' '{printf "%s=%s  ", $(NF-2), $NF}' | sed 's/\"//g')"
  done
done
for b in main o l o6 main o l o6 main o l o6; do
  timeout 30 $D/$b/energy tc-03-wgmma-rs-tf32x3:x3 8192 8192 8192 4 2>&1 | grep -v experiment | sed "s/^/$b /" | tee -a $W/energy.txt
done
for b in main o l o6 main o l o6; do
  timeout 30 $D/$b/energy tc-03-wgmma-rs-tf32x3:x3 4096 4096 4096 3 2>&1 | grep -v experiment | sed "s/^/$b /" | tee -a $W/energy.txt
done
for b in main o o6 main o o6; do
  timeout 30 $D/$b/energy tc-03-wgmma-rs-tf32:tf32 8192 8192 8192 3 2>&1 | grep -v experiment | sed "s/^/$b /" | tee -a $W/energy.txt
done
i=0
for b in main o l o6 main o l o6; do
  [ $SECONDS -lt 500 ] || break
  i=$((i+1))
  timeout 100 $D/$b/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 --cooldown-ms 1000 > $W/bench-$i-$b.txt 2>&1
  echo "bench $i $b rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$i-$b.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
tar cJf $OUT/run125-logs.tar.xz -C $W .
