#!/usr/bin/env bash
# Run 60: tc-03 with C staged in shared memory and written by TMA stores (beta == 0).
# (1) tc-03's case matrix, the Api tests, memcheck / racecheck / synccheck on tc-03's sanitizer
# shapes; (2) ncu of both tile kernels at 8192^3 (cycles); (3) energy per call, main and the new
# build alternating, 8192^3; (4) bench alternating twice at 4096^3 and 8192^3 with both cuBLAS modes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin60; mkdir -p $D; tar xJf dist/run60.tar.xz -C $D; W=/tmp/r60; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 300 $D/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Api.*' > $W/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[accuracy\] tc-03|FAILED|tests? from|Failure" $W/tests.log | head -20
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $D/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03*' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo 'ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard' $W/san-$tool.log | tail -1) $(grep -Eo 'PASSED.*' $W/san-$tool.log | tail -1)"
done
for b in sgemm-bench-main sgemm-bench; do
  for k in tc_03_wgmma_rs_tf32_kernel tc_03_wgmma_rs_tf32x3_kernel; do
    timeout 120 ncu --clock-control none \
      --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,dram__bytes_write.sum \
      --kernel-id "::regex:$k:3" --csv \
      $D/$b 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32,tc-03-wgmma-rs-tf32x3 --reps 10 --warmup 0 > $W/ncu-$b-$k.csv 2>&1
    echo "ncu $b $k: $(grep -E 'tc_03' $W/ncu-$b-$k.csv | awk -F'","' '{printf "%s=%s  ", $(NF-2), $NF}' | sed 's/\"//g')"
  done
done
for pass in 1 2; do
  for who in cublas-tf32 tc-03-wgmma-rs-tf32:tf32 tc-03-wgmma-rs-tf32x3:x3; do
    for b in main new; do
      [ $who = cublas-tf32 ] && [ $b = new ] && continue
      echo -n "$b "; timeout 30 $D/energy-$b $who 8192 8192 8192 3 2>&1
    done
  done
done | tee $W/energy.txt
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-03)|^[0-9]+ x" $W/tc-$i-$b.txt | awk '{print $1, $5, $6, $7}' | tr '\n' ' '; echo
done
tar czf $OUT/run60.tgz -C /tmp r60
