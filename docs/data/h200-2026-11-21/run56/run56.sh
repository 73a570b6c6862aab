#!/usr/bin/env bash
# Run 56: tc-03 in 2-CTA clusters sharing A by multicast. (1) tc-03's case matrix, the Api tests,
# compute-sanitizer memcheck / racecheck / synccheck on tc-03's sanitizer shapes; (2) energy per
# call, main (run 55's build) and the cluster build alternating, at 8192^3 and 4096^3; (3) bench
# alternating; (4) ncu of the cluster build's tile kernels at 8192^3 (L2 -> SM sectors).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin56; mkdir -p $D; tar xJf dist/run56.tar.xz -C $D; W=/tmp/r56; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 300 $D/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Api.*' > $W/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[accuracy\]|PASSED|FAILED|tests? from" $W/tests.log | tail -12
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $D/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo 'ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard' $W/san-$tool.log | tail -1) $(grep -Eo '[0-9]+ tests? ran|PASSED.*' $W/san-$tool.log | tail -1)"
done
echo "== energy"
for s in 8192 4096; do
  t=3; [ $s = 4096 ] && t=2
  for pass in 1 2; do
    for who in cublas-tf32 tc-03-wgmma-rs-tf32:tf32 tc-03-wgmma-rs-tf32x3:x3; do
      for b in main cluster; do
        [ $who = cublas-tf32 ] && [ $b = cluster ] && continue
        echo -n "$b "; timeout 30 $D/energy-$b $who $s $s $s $t 2>&1
      done
    done
  done
done | tee $W/energy.txt
echo "== bench"
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-03)|^[0-9]+ x" $W/tc-$i-$b.txt
done
echo "== ncu"
for k in tc_03_wgmma_rs_tf32_kernel tc_03_wgmma_rs_tf32x3_kernel; do
  timeout 120 ncu --clock-control none \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum \
    --kernel-id "::regex:$k:3" --csv \
    $D/sgemm-bench 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32,tc-03-wgmma-rs-tf32x3 --reps 10 --warmup 0 > $W/ncu-$k.csv 2>&1; echo "ncu $k rc=$?"
  grep -E "tc_03" $W/ncu-$k.csv | awk -F'","' '{print $(NF-2)" "$NF}'
done
tar czf $OUT/run56.tgz -C /tmp r56
