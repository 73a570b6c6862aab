#!/usr/bin/env bash
# Run 43: (1) rungs 06/07 with __launch_bounds__(256, 2) against main, alternating, at 4096^3 and
# 4095 x 4097 x 4093; (2) tc-03 with tile groups of 8 / 16 (main) / 32 rows, alternating, at
# 4096^3 and 8192^3; (3) ncu: the 3xTF32 tile kernel at 8192^3, G = 16 and G = 8 (time, clock,
# DRAM bytes, L2 hit rate); (4) nvidia-smi power and clock during 3xTF32 calls at 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin43; mkdir -p $D; tar xJf dist/run43.tar.xz -C $D; W=/tmp/r43; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
cat $W/gpu.txt
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 60 $D/$b --kernels 'simt-06*,simt-07*' --shapes 4096x4096x4096,4095x4097x4093 --reps 20 > $W/simt-$i-$b.txt 2>&1; echo "simt $i $b rc=$?"
  grep -hE "^(cublas|simt)|^[0-9]+ x" $W/simt-$i-$b.txt
done
i=0
for b in sgemm-bench-main sgemm-bench-g8 sgemm-bench-g32 sgemm-bench-g8 sgemm-bench-main sgemm-bench-g32; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-03)|^[0-9]+ x" $W/tc-$i-$b.txt
done
for b in sgemm-bench-main sgemm-bench-g8; do
  timeout 120 ncu --clock-control none \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum \
    --kernel-id '::regex:tc_03_wgmma_rs_tf32x3|tc_pack|tc_scan:3' --csv \
    $D/$b 8192 8192 8192 --kernels tc-03-wgmma-rs-tf32x3 --reps 10 --warmup 0 > $W/ncu-$b.csv 2>&1; echo "ncu $b rc=$?"
  grep -E "tc_03|tc_pack|tc_scan" $W/ncu-$b.csv | awk -F'","' '{print $5" | "$(NF-2)" "$NF}' | sed 's/(sgemm::Canonical.*)//; s/sgemm::<unnamed>:://' 
done
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader -lms 100 > $W/smi-x3-8192.csv &
P=$!
timeout 60 $D/sgemm-bench-main --kernels tc-03-wgmma-rs-tf32x3 --shapes 8192x8192x8192 --reps 300 > $W/smi-bench.txt 2>&1
kill $P
echo "power/clock samples (x3 8192^3 bench incl. cuBLAS SGEMM):"; awk -F', ' '{print $2, $3}' $W/smi-x3-8192.csv | sort | uniq -c | sort -rn | head -15
tar czf $OUT/run43.tgz -C /tmp r43
