#!/usr/bin/env bash
# Run 47: to_tf32 rounds ties to even (as a TFLOAT32 map does), and tc-03 3xTF32 reads A's big
# part in place (only the small part packed). (1) scripts/gpu-check on this build; (2) tc-02/03
# benches of the previous build (01029fc) and this one alternating, three times each, at 4096^3
# and 8192^3 with cuBLAS TF32; (3) ncu of the 3xTF32 call's kernels at 8192^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin47; mkdir -p $D; tar xJf dist/run47.tar.xz -C $D; W=/tmp/r47; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=120 GPU_CHECK_BENCH_TIMEOUT=150 timeout 400 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep "accuracy\] tc-03" $W/gc/gpu-tests-api.log
i=0
for b in sgemm-bench-prev sgemm-bench sgemm-bench-prev sgemm-bench sgemm-bench-prev sgemm-bench; do
  i=$((i+1))
  timeout 90 $D/$b --kernels 'tc-02*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/tc-$i-$b.txt 2>&1; echo "tc $i $b rc=$?"
  grep -hE "^(cublas|tc-0)|^[0-9]+ x" $W/tc-$i-$b.txt | awk '{print $1, $5, $7}'
done
timeout 100 ncu --clock-control none \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum \
  --kernel-id '::regex:tc_03_wgmma|tc_pack|tc_fallback:3' --csv \
  $D/sgemm-bench 8192 8192 8192 --kernels 'tc-03*' --reps 10 --warmup 0 > $W/ncu-tc03.csv 2>&1; echo "ncu rc=$?"
grep '"' $W/ncu-tc03.csv | tail -n +2 | python3 -c "
import csv,sys
for r in csv.reader(sys.stdin): print(r[4][:40], r[12], r[14])"
tar czf $OUT/run47.tgz -C /tmp r47
