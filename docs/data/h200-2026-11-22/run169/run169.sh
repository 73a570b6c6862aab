#!/usr/bin/env bash
# Run 169: (1) the reorder with reuse flags also across shared loads (slot B, as ptxas sets its
# own): v2/ built from main d5892ab with that change to scripts/ffma_reorder.py; rung 13's case
# matrices on its tests, then idle tables alternating main/ (run 168's binaries) and v2/.
# (2) ncu with SASS-level stall sampling on main's rung 13 at 4096³ (where the cycles go now).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin169; mkdir -p $D; tar xJf dist/run169.tar.xz -C $D; W=/tmp/r169; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 200 $D/v2/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-v2.txt 2>&1
echo "v2 case matrices rc=$?"; grep -E '^\[  (PASSED|FAILED)|tests? from .* ran' $W/tests-v2.txt | tail -3
for i in 1 2 3; do for v in main v2; do
  timeout 120 $D/$v/sgemm-bench --kernels 'simt-13*' --shapes 4096x4096x4096,8192x8192x8192,4096x4096x1024 --reps 20 --cooldown-ms 1000 > $W/bench-$v-$i.txt 2>&1
  echo "$v-$i rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$v-$i.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
done; done
timeout 240 ncu --clock-control none --set full --import-source no --kernel-id '::regex:simt_13:3' \
  -o $W/main4096 $D/main/sgemm-bench 4096 4096 4096 --kernels simt-13-tma --reps 5 --warmup 0 > $W/ncu.log 2>&1
echo "ncu rc=$?"
ncu --import $W/main4096.ncu-rep --page details --csv > $W/main4096-details.csv 2>&1
ncu --import $W/main4096.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $W/main4096-source.csv.gz
tar czf $OUT/run169.tgz --exclude='*.ncu-rep' -C /tmp r169
