#!/usr/bin/env bash
# Run 61: tc-03's TMA-store epilogue, second build (only when C's width is a multiple of 4).
# (1) scripts/gpu-check on the new build (SanitizerShapes now has a beta == 0 case with aligned
# rows of C); (2) ncu cycles of both tile kernels, main and new, 8192^3; (3) energy per call
# alternating; (4) bench main / new alternating three times; (5) issue shapes on the new build.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin61; mkdir -p $D; tar xJf dist/run61.tar.xz -C $D; B=$D/sgemm-bench; W=/tmp/r61; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=150 GPU_CHECK_BENCH_TIMEOUT=150 timeout 450 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep "accuracy\] tc-03" $W/gc/gpu-tests-api.log
for b in sgemm-bench-main sgemm-bench; do
  for k in tc_03_wgmma_rs_tf32_kernel tc_03_wgmma_rs_tf32x3_kernel; do
    timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max \
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
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-03)|^[0-9]+ x" $W/tc-$i-$b.txt | awk '{print $1, $5, $7}' | tr '\n' ' '; echo
done
timeout 120 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-issue.txt 2>&1; echo "issue rc=$?"
timeout 200 $B --kernels 'simt-13*' --shapes 2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-simt-shapes.txt 2>&1; echo "simt shapes rc=$?"
timeout 100 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
grep -hE "^(cublas|simt-13|tc-03)|^[0-9]+ x" $W/bench-issue.txt $W/bench-simt-shapes.txt $W/bench-k1024.txt | awk '{print $1, $2, $3, $5, $6, $7}'
tar czf $OUT/run61.tgz -C /tmp r61
