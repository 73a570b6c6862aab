#!/usr/bin/env bash
# Run 157: auto's tensor-core choices on shapes of few tiles and on k >= 16384 (Tf32 leaves
# k >= 16384 to tc-02 by run 28's measurement, an older tc-03). Every tensor-core kernel in both
# modes beside cuBLAS SGEMM and TF32, RowMajor NN and ColMajor NN; main's bench (4de2433).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin157; mkdir -p $D; tar xJf dist/run157.tar.xz -C $D; W=/tmp/r157; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=512x512x512,768x768x768,1024x1024x1024,1536x1536x1536,2048x2048x2048,2560x2560x2560,3072x3072x3072
S=$S,1024x1024x256,2048x2048x256,1024x1024x4096,2048x1024x2048,4096x512x4096,512x4096x4096
S=$S,8192x128x8192,128x8192x8192,128x128x65536,256x256x16384,16x11008x4096,128x11008x4096
S=$S,2048x11008x4096,1024x2048x8192,1024x1024x16384,2048x2048x16384,4096x4096x16384,4096x1024x32768
for lay in row col; do
  timeout 280 $B --kernels 'tc-*' --cublas-tf32 --shapes $S --layout $lay --csv $W/tc-$lay-NN.csv > $W/tc-$lay-NN.txt 2>&1
  echo "$lay rc=$?"
done
$D/final/auto_probe --math tf32x3 $(for s in $(echo $S | tr ',' ' '); do echo row NN $s col NN $s; done) > $W/auto-tf32x3.txt; echo "probe rc=$?"
$D/final/auto_probe --math tf32 $(for s in $(echo $S | tr ',' ' '); do echo row NN $s col NN $s; done) > $W/auto-tf32.txt; echo "probe rc=$?"
tar czf $OUT/run157.tgz -C /tmp r157
