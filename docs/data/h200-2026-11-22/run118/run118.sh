#!/usr/bin/env bash
# Run 118: on run 117's machine (same lease, same binaries), three more --cooldown-ms 1000 tables of
# the issue shapes: how much of #6's table-to-table spread is the machine. Decided before it ran:
# this is information on machine variance; #6's verdict stays with run 115, the session's final
# check, where it was missed.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin117; W=/tmp/r118; mkdir -p $W; B=$D/final/sgemm-bench
[ -x $B ] || { mkdir -p $D; tar xJf dist/run117.tar.xz -C $D; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version,serial --format=csv | tee $W/gpu.txt
for t in 1 2 3; do
  timeout 100 $B --kernels 'simt-13*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --cooldown-ms 1000 > $W/bench-cool1000-$t.txt 2>&1
  echo "cool1000-$t rc=$? $(grep -E '^(cublas|simt-13|tc-03)' $W/bench-cool1000-$t.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
tar czf $OUT/run118.tgz -C /tmp r118
