#!/usr/bin/env bash
# Run 155: rung 13's new auto_suits (the rule from run 154) on shapes it was not fitted to:
# auto's choice as the library makes it on this GPU (auto_probe.cpp, linked with the build's
# libsgemm.a; not part of the project), rungs 13 and 10 timed on the same shapes, the rule's
# prediction (rule.py) beside them; then scripts/gpu-check on the build.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin155; mkdir -p $D; tar xJf dist/run155.tar.xz -C $D; W=/tmp/r155; mkdir -p $W; B=$D/final/sgemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
R="640x640x640 896x896x896 1280x1280x1280 1792x1792x1792 384x384x8192 1024x1024x512 1536x1536x256
16384x128x1024 32768x128x2048 4096x256x2048 256x4096x2048 3584x1024x1024 2048x768x4096
512x512x512 1024x1024x1024 8192x128x8192"
args=""; for s in $R; do args="$args row NN $s"; done; args="$args col NN 256x4096x2048 col NN 128x11008x4096"
$D/final/auto_probe $args | tee $W/auto-choice.txt
timeout 150 $B --kernels 'simt-13*,simt-10*' --shapes $(echo $R | tr ' ' ',') --csv $W/held-out-row-NN.csv > $W/held-out-row-NN.txt 2>&1; echo "bench row rc=$?"
timeout 60 $B --kernels 'simt-13*,simt-10*' --shapes 256x4096x2048,128x11008x4096 --layout col --csv $W/held-out-col-NN.csv > $W/held-out-col-NN.txt 2>&1; echo "bench col rc=$?"
timeout 420 scripts/gpu-check --bin $D/final --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; cat $W/gc/summary.txt
grep -E "^(cublas|simt-13|tc-03|tc-04)" $W/gc/bench-4096.txt | awk '{print $1, $5, $6, $7, $9}'
tar czf $OUT/run155.tgz -C /tmp r155
