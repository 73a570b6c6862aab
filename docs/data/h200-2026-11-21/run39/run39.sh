#!/usr/bin/env bash
# Run 39: scripts/gpu-check on a76ab5c (rung 10 fetches only whole K-tiles under the arithmetic;
# Vec4TileLoader's checked path rewritten), then rungs 06-10 of main (41e7a7b, sgemm-bench-main)
# and of a76ab5c alternating twice at 4096³ and at 4095 x 4097 x 4093.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=dist/run39; W=/tmp/r39; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=90 GPU_CHECK_SANITIZER_TIMEOUT=200 GPU_CHECK_BENCH_TIMEOUT=150 timeout 450 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
i=0
for b in sgemm-bench-main sgemm-bench sgemm-bench-main sgemm-bench; do
  i=$((i+1))
  timeout 60 $D/$b --kernels 'simt-06*,simt-07*,simt-08*,simt-09*,simt-10*' --shapes 4096x4096x4096,4095x4097x4093 --reps 20 > $W/bench-$i-$b.txt 2>&1; echo "$i $b rc=$?"
  grep -hE "^(cublas|simt)|^[0-9]+ x" $W/bench-$i-$b.txt
done
cat $W/gpu.txt; grep -hE "^(cublas|simt-1[03]|tc-0[23])|^[0-9]+ x" $W/gc/bench-4096.txt
tar czf $OUT/run39.tgz -C /tmp r39
