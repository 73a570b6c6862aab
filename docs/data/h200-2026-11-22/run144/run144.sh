#!/usr/bin/env bash
# Run 144: the twenty-first session's final check on main's binaries (0747e88; kernels as
# 9f2cc6a's). scripts/gpu-check; three --cooldown-ms 1000 tables of #4's 4096³ and 8192³ (rung 13
# against cuBLAS SGEMM); #4's other shapes; the whole ladder from rung 04 on at 8192³, for the
# summary table of docs/ladder.md (the 4096³ one is gpu-check's bench).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin144; mkdir -p $D; tar xJf dist/run144.tar.xz -C $D; W=/tmp/r144; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out; cat $W/gc/summary.txt
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
for i in 1 2 3; do
  timeout 100 $B --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192 --reps 20 --cooldown-ms 1000 > $W/bench-cool1000-$i.txt 2>&1
  echo "cool1000-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-cool1000-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done
timeout 150 $B --kernels simt-13-tma --shapes 2048x2048x2048,16384x16384x16384,2048x2048x1024,4096x4096x1024,8192x8192x1024,16384x16384x1024 > $W/bench-issue4-shapes.txt 2>&1
echo "issue4 shapes rc=$?"; grep -E '^([0-9]|cublas|simt-13)' $W/bench-issue4-shapes.txt | awk '{print $1, $2, $3, $4, $5, $7}'
timeout 150 $B --kernels 'simt-04*,simt-05*,simt-06*,simt-07*,simt-08*,simt-09*,simt-1*,cute-*,tc-*' --shapes 8192x8192x8192 --cublas-tf32 --csv $W/bench-ladder-8192.csv > $W/bench-ladder-8192.txt 2>&1
echo "ladder 8192 rc=$?"; grep -E '^[a-z]' $W/bench-ladder-8192.txt | awk '{print $1, $5, $6, $7, $11}'
tar czf $OUT/run144.tgz -C /tmp r144
