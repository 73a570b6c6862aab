#!/usr/bin/env bash
# Run 55: (1) energy per call (NVML counter) and steady-state clock, back-to-back calls, for
# cuBLAS SGEMM / TF32, tc-03 Tf32 / 3xTF32 and simt-13 at 8192^3 and 4096^3; (2) simt-13 under
# the four ops (its four majorness instantiations) against cuBLAS; (3) simt-13 built with ptxas
# -regUsageLevel 0 / 8 against main, alternating; (4) ncu: cuBLAS TF32 and tc-03 Tf32 at 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin55; mkdir -p $D; tar xJf dist/run55.tar.xz -C $D; W=/tmp/r55; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
echo "== energy"
for s in 8192 4096; do
  t=3; [ $s = 4096 ] && t=2
  for who in cublas-sgemm simt-13-tma cublas-tf32 tc-03-wgmma-rs-tf32:tf32 tc-03-wgmma-rs-tf32x3:x3 cublas-tf32 tc-03-wgmma-rs-tf32:tf32 tc-03-wgmma-rs-tf32x3:x3; do
    timeout 30 $D/energy $who $s $s $s $t 2>&1 | tee -a $W/energy.txt
  done
done
echo "== ops"
timeout 120 $D/sgemm-bench-main --kernels simt-13-tma --shapes 4096x4096x4096,8192x8192x8192 --ops NN,NT,TN,TT --reps 20 > $W/ops.txt 2>&1; echo "ops rc=$?"
grep -hE "^(cublas|simt)|^[0-9]+ x|N[NT]|T[NT]" $W/ops.txt | head -60
echo "== regUsageLevel"
i=0
for b in main rul0 rul8 main rul0 rul8; do
  i=$((i+1))
  timeout 60 $D/sgemm-bench-$b --kernels simt-13-tma --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/rul-$i-$b.txt 2>&1; echo "rul $i $b rc=$?"
  grep -hE "^(cublas|simt)|^[0-9]+ x" $W/rul-$i-$b.txt
done
echo "== ncu"
for k in sm90_xmma tc_03_wgmma_rs_tf32_kernel; do
  timeout 150 ncu --clock-control none --section SpeedOfLight \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
    --kernel-id "::regex:$k:3" --csv \
    $D/sgemm-bench-main 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32 --cublas-tf32 --reps 10 --warmup 0 > $W/ncu-$k.csv 2>&1; echo "ncu $k rc=$?"
  grep -E "sm90_xmma|tc_03" $W/ncu-$k.csv | awk -F'","' '{print $(NF-3)" | "$(NF-2)" "$NF}' | sed 's/(sgemm::Canonical.*)//'
done
tar czf $OUT/run55.tgz -C /tmp r55
