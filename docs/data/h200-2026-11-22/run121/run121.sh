#!/usr/bin/env bash
# Run 121: which per-k-tile work of tc-03's 3xTF32 loop costs the energy. The energy probe linked
# against main (P3) and two probe builds that keep all 12 wgmmas per k-tile (q1.patch: no sums per
# k-tile; q2.patch: A's small part never loaded), wrong results on purpose. 8192^3, alternated
# three times; one pass at 4096^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin121; mkdir -p $D; tar xJf dist/run121.tar.xz -C $D; W=/tmp/r121; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
for P in p3 q1 q2 p3 q1 q2 p3 q1 q2; do
  timeout 30 $D/energy-$P tc-03-wgmma-rs-tf32x3:x3 8192 8192 8192 4 2>&1 | sed "s/^/$P /" | tee -a $W/energy121.txt
done
for P in p3 q1 q2; do
  timeout 30 $D/energy-$P tc-03-wgmma-rs-tf32x3:x3 4096 4096 4096 3 2>&1 | sed "s/^/$P /" | tee -a $W/energy121.txt
done
cp $W/energy121.txt $OUT/
