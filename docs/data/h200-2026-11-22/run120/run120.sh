#!/usr/bin/env bash
# Run 120: where a 3xTF32 call's energy goes. The energy probe (docs/data/h100-2026-11-21/run64/
# energy.cu, NVML's counter over back-to-back calls) linked against main (P3) and two probe builds
# of tc-03 that drop tensor-core work (p2.patch: 8 of 12 wgmmas per k-tile; p1.patch: 4), wrong
# results on purpose. 8192^3, alternated twice, with cuBLAS SGEMM and tc-03 Tf32 beside them; one
# pass at 4096^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin120; mkdir -p $D; tar xJf dist/run120.tar.xz -C $D; W=/tmp/r120; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for P in p3 p2 p1 p3 p2 p1; do
  timeout 30 $D/energy-$P tc-03-wgmma-rs-tf32x3:x3 8192 8192 8192 4 2>&1 | sed "s/^/$P /" | tee -a $W/energy.txt
done
timeout 30 $D/energy-p3 cublas-sgemm 8192 8192 8192 4 2>&1 | sed "s/^/p3 /" | tee -a $W/energy.txt
timeout 30 $D/energy-p3 tc-03-wgmma-rs-tf32:tf32 8192 8192 8192 4 2>&1 | sed "s/^/p3 /" | tee -a $W/energy.txt
for P in p3 p2 p1; do
  timeout 30 $D/energy-$P tc-03-wgmma-rs-tf32x3:x3 4096 4096 4096 3 2>&1 | sed "s/^/$P /" | tee -a $W/energy.txt
done
cp $W/* $OUT/
