#!/usr/bin/env bash
# Run 154: which FP32 kernel `auto` should pick where rung 13's 128 x 256 tiles do not fill the
# GPU (auto_suits: today rung 10 takes every call with fewer tiles than SMs). Rungs 13, 10, 11 and
# cute-02 beside cuBLAS on shapes of few tiles, RowMajor NN / NT / TN and ColMajor NN; main's bench.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin154; mkdir -p $D; tar xJf dist/run154.tar.xz -C $D; W=/tmp/r154; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=512x512x512,768x768x768,1024x1024x1024,1536x1536x1536,2048x2048x2048,2560x2560x2560,3072x3072x3072
S=$S,1024x1024x256,2048x2048x256,1024x1024x4096,2048x1024x2048,4096x512x4096,512x4096x4096
S=$S,8192x128x8192,128x8192x8192,128x128x65536,256x256x16384,16x11008x4096,128x11008x4096
S=$S,2048x11008x4096,1024x2048x8192
K='simt-13*,simt-10*,simt-11*,cute-02*'
for lo in "row NN" "row NT" "row TN" "col NN"; do
  set -- $lo
  timeout 140 $B --kernels "$K" --shapes $S --layout $1 --ops $2 --csv $W/few-tiles-$1-$2.csv > $W/few-tiles-$1-$2.txt 2>&1
  echo "$1 $2 rc=$?"
done
tar czf $OUT/run154.tgz -C /tmp r154
