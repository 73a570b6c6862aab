#!/usr/bin/env bash
# Run 63: does `auto` pick the fastest FP32 kernel for every op combination? simt-10..13 and
# cute-02 under NN / NT / TN / TT at 4096^3 and 8192^3, RowMajor, with what `auto` runs.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin63; mkdir -p $D; tar xJf dist/run62.tar.xz -C $D; B=$D/sgemm-bench; W=/tmp/r63; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 300 $B --kernels 'simt-10*,simt-11*,simt-12*,simt-13*,cute-02*' --shapes 4096x4096x4096,8192x8192x8192 --ops NN,NT,TN,TT --reps 10 > $W/ops.txt 2>&1; echo "ops rc=$?"
grep -hE "^(cublas|simt|cute)|^== " $W/ops.txt | awk '{print $1, $2, $3, $4, $5, $7}'
$B --list > $W/list.txt 2>&1; grep -iE "auto|priority" $W/list.txt | head -5
tar czf $OUT/run63.tgz -C /tmp r63
