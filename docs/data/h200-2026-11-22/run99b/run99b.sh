#!/usr/bin/env bash
# Run 99b: ncu, one isolated launch each at 8192³ on main 65ab5e0 of tc-03's whole-tile kernels
# (the third launch matching the name: run 99 took the fourth, a tail kernel).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin99; mkdir -p $D; tar xJf dist/run99.tar.xz -C $D; W=/tmp/r99b; mkdir -p $W; B=$D/main/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
prof() {  # name, kernel regex, bench args
  timeout 150 ncu --clock-control none -k "regex:$2" --launch-skip "${SKIP:-3}" --launch-count 1 --section SpeedOfLight --metrics sm__cycles_elapsed.max,dram__bytes_read.sum,lts__t_sectors_srcunit_tex.sum \
    $B --shapes 8192x8192x8192 --reps 10 "${@:3}" > $W/ncu-$1.txt 2>&1
  echo "$1 rc=$? $(grep -E ' Duration|SM Frequency|sm__cycles_elapsed.max|dram__bytes_read.sum|lts__t_sectors_srcunit_tex.sum' $W/ncu-$1.txt | awk '{print $(NF-1), $NF}' | tr '\n' ' ')"
}

SKIP=2 prof tc03-tf32 'tc_03_wgmma_rs_tf32_kernel' --kernels tc-03-wgmma-rs-tf32
SKIP=2 prof tc03-x3 'tc_03_wgmma_rs_tf32x3_kernel' --kernels tc-03-wgmma-rs-tf32x3

tar czf $OUT/run99b.tgz -C /tmp r99b
