#!/usr/bin/env bash
# Run 45: (1) scripts/gpu-check on the new build (tile groups of 8, fallback grid striding over
# C, tc-03 testing B in its tile kernel with beta == 0; NanInfPropagation now also beta == 0 and
# Inf in B only); (2) tc-02/03 benches of main (G = 16), G = 8 alone, and the new build,
# alternating twice at 4096^3 and 8192^3; (3) evidence for #4: ncu of simt-13 and cuBLAS SGEMM
# at 8192^3 (time, clock, DRAM bytes), nvidia-smi power/clock during a simt-13 bench.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin45; mkdir -p $D; tar xJf dist/run45.tar.xz -C $D; W=/tmp/r45; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
cat $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=120 GPU_CHECK_BENCH_TIMEOUT=150 timeout 400 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -h "NanInf" $W/gc/*.log 2>/dev/null | grep -E "FAILED|OK" | sort | uniq -c | head -5
i=0
for b in sgemm-bench-main sgemm-bench-g8 sgemm-bench sgemm-bench-main sgemm-bench-g8 sgemm-bench; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-02*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-0)|^[0-9]+ x" $W/tc-$i-$b.txt | awk '{print $1, $5, $7}'
done
timeout 120 ncu --clock-control none \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sector_hit_rate.pct \
  --kernel-id '::regex:simt_13|sgemm|xmma|gemm:3' --csv \
  $D/sgemm-bench 8192 8192 8192 --kernels simt-13-tma --reps 10 --warmup 0 > $W/ncu-simt13.csv 2>&1; echo "ncu rc=$?"
grep -E "simt_13|gemm" $W/ncu-simt13.csv | grep -v "^==" | awk -F'","' '{print $5" | "$(NF-2)" "$NF}' | sed 's/(.*) |/ |/; s/"$//' | cut -c1-160
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm --format=csv,noheader -lms 100 > $W/smi-simt13-8192.csv &
P=$!
timeout 60 $D/sgemm-bench --kernels simt-13-tma --shapes 8192x8192x8192 --reps 200 > $W/smi-bench.txt 2>&1
kill $P
echo "power/clock samples during the simt-13 bench (cuBLAS SGEMM first, then simt-13), in order:"
awk -F', ' '{printf "%s/%s ", int($2), $3} END {print ""}' $W/smi-simt13-8192.csv
tar czf $OUT/run45.tgz -C /tmp r45
