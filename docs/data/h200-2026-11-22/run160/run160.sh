#!/usr/bin/env bash
# Run 160: #4's shapes on main's final code (9bf8f5b, run 159's build). 16384³ and 16384 x 16384
# x 1024 leave 8 tiles to the tail (8192 mod 132), so they now take the separate tail sum: timed
# old (the session's first binaries) against new, alternated; then #4's other shapes and three
# --cooldown-ms 1000 tables of 4096³ and 8192³ on the final build.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin160; mkdir -p $D; tar xJf dist/run160.tar.xz -C $D; W=/tmp/r160; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for pass in 1 2; do
  for b in old final; do
    timeout 120 $D/$b/sgemm-bench --kernels simt-13-tma --shapes 16384x16384x16384,16384x16384x1024 > $W/bench-16k-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-16k-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
timeout 150 $D/final/sgemm-bench --kernels simt-13-tma --shapes 2048x2048x2048,16384x16384x16384,2048x2048x1024,4096x4096x1024,8192x8192x1024,16384x16384x1024 > $W/bench-issue4-shapes.txt 2>&1
echo "issue4 shapes rc=$?"; grep -E '^([0-9]|cublas|simt-13)' $W/bench-issue4-shapes.txt | awk '{print $1, $2, $3, $4, $5, $7}'
for i in 1 2 3; do
  timeout 100 $D/final/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-cool1000-$i.txt 2>&1
  echo "cool1000-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-cool1000-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
tar czf $OUT/run160.tgz -C /tmp r160
