#!/usr/bin/env bash
# Run 83: scripts/gpu-check (default time limits) on the tenth session's final main: the library
# as in run 82 (b61dc7d); SanitizerShapes' long-k case is 8 x 1400 x 2700, which still splits in
# rung 13 and both tc-03 modes, with far fewer multiply-adds under racecheck than 300 x 200 x 3000.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin83; mkdir -p $D; tar xJf dist/run83.tar.xz -C $D; W=/tmp/r83; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 560 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run83.tgz -C /tmp r83
