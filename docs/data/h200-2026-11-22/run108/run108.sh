#!/usr/bin/env bash
# Run 108: rung 13 with the next stage's barrier tested after the stage's last shared loads (ve)
# against main, alternated three times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin108; mkdir -p $D; tar xJf dist/run108.tar.xz -C $D; W=/tmp/r108; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=4096x4096x4096,8192x8192x8192,4096x4096x1024,2048x2048x2048
for pass in 1 2 3; do
  for b in main ve; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run108.tgz -C /tmp r108
