#!/usr/bin/env bash
# Run 32: scripts/gpu-check on the final main of the fourth session (run 29 plus the test Api.Tf32AccuracyAgainstCublasTf32; the library code is run 29's).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
W=/tmp/r32; mkdir -p $W
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=200 GPU_CHECK_BENCH_TIMEOUT=150 timeout 420 scripts/gpu-check --bin dist/run32 --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep -hE "^(cublas|simt-13|tc-0[23])|^[0-9]+ x" $W/gc/bench-4096.txt
tar czf $OUT/run32.tgz -C /tmp r32
