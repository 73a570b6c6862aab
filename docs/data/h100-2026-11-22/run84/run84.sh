#!/usr/bin/env bash
# Run 84: scripts/gpu-check (default time limits) on the tenth session's final main (3a42649): the
# library as in runs 82-83 (b61dc7d); the long-k tail case is its own test (SanitizerTailShapes),
# sanitized for simt_13 and tc_03 only.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin84; mkdir -p $D; tar xJf dist/run84.tar.xz -C $D; W=/tmp/r84; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 560 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -E "FAIL" $W/gpu-check.out | head -20
grep -E "^(cublas|simt-13|tc-03)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run84.tgz -C /tmp r84
