#!/usr/bin/env bash
# Run 127: tc-03 Tf32 with 192 x 256 tiles (tc-03-wgmma-rs-tf32-wide, two 64-column groups per
# consumer warpgroup) against tc-03 Tf32 (256 x 128) and cuBLAS TF32. Builds: w (the working
# tree: both Tf32 kernels, the 256 x 128 one on run 98's k8-step loop), main (fea4c5f's tc-03).
# tc-03 tests and sanitizers on w, ncu of both Tf32 kernels at 8192^3, the energy probe
# (8192^3 three passes, 4096^3 two), --cooldown-ms 1000 tables three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin127; mkdir -p $D; tar xJf dist/run127.tar.xz -C $D; W=/tmp/r127; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
# Smoke test first: the first build of w hung (setmaxnreg asked for more than the block held).
timeout 30 $D/w/sgemm-bench 1000 1100 1200 --kernels tc-03-wgmma-rs-tf32-wide > $W/smoke.txt 2>&1
rc=$?; echo "smoke rc=$rc"; if [ $rc -ne 0 ]; then tail -5 $W/smoke.txt; tar cJf $OUT/run127-logs.tar.xz -C $W .; exit 1; fi
timeout 150 $D/w/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/tc_03*:Api.*' > $W/tests-w.log 2>&1
echo "tests w rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-w.log | tr '\n' ' ')"
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $D/w/sgemm-gpu-tests --gtest_brief=1 \
    --gtest_filter='Kernels/CaseMatrix.SanitizerShapes/tc_03_wgmma_rs_tf32_wide:Kernels/CaseMatrix.SanitizerTailShapes/tc_03_wgmma_rs_tf32_wide' > $W/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+' $W/san-$tool.log | tail -1)"
done
for k in tf32 tf32-wide; do
  timeout 120 ncu --clock-control none \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum \
    -k regex:tc_03_wgmma_rs_tf32_kernel --launch-skip 2 --launch-count 2 --csv \
    $D/w/sgemm-bench 8192 8192 8192 --kernels tc-03-wgmma-rs-$k --reps 10 --warmup 0 > $W/ncu-$k.csv 2>&1
  echo "ncu $k rc=$? $(grep -E 'tc_03' $W/ncu-$k.csv | awk -F'","' '{printf "%s=%s  ", $(NF-2), $NF}' | sed 's/\"//g')"
done
P8="main:tc-03-wgmma-rs-tf32:tf32 w:tc-03-wgmma-rs-tf32:tf32 w:tc-03-wgmma-rs-tf32-wide:tf32 w:cublas-tf32"
for pass in 1 2 3; do
  for c in $P8; do
    timeout 30 $D/${c%%:*}/energy ${c#*:} 8192 8192 8192 4 2>&1 | grep -v experiment | sed "s/^/${c%%:*} /" | tee -a $W/energy.txt
  done
done
for pass in 1 2; do
  for c in $P8; do
    timeout 30 $D/${c%%:*}/energy ${c#*:} 4096 4096 4096 3 2>&1 | grep -v experiment | sed "s/^/${c%%:*} /" | tee -a $W/energy.txt
  done
done
for i in 1 2 3; do
  [ $SECONDS -lt 480 ] || break
  timeout 100 $D/w/sgemm-bench --kernels 'tc-03-wgmma-rs-tf32,tc-03-wgmma-rs-tf32-wide' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 --cooldown-ms 1000 > $W/bench-$i.txt 2>&1
  echo "bench $i rc=$? $(grep -E '^(cublas|tc-03)' $W/bench-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
tar cJf $OUT/run127-logs.tar.xz -C $W .
