#!/usr/bin/env bash
# Run 162: what the tail split costs now (docs/perf-notes.md, twenty-third session). Rung 13 and
# tc-03 (both modes) on 30 RowMajor NN shapes, three builds of main alternated twice: main, one
# whose kTailCosts are {0, 0} (splits every last round) and one with {1e9, 0} (never splits).
# Then main's other small-shape candidates once, for auto.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin162; mkdir -p $D; tar xJf dist/run162.tar.xz -C $D; W=/tmp/r162; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=256x256x256,256x256x1024,512x512x128,512x512x256,512x512x512,512x512x1024,768x768x256
S=$S,768x768x512,1024x1024x128,1024x1024x256,1024x1024x512,1536x1536x128,1536x1536x256
S=$S,1536x1536x512,2048x2048x128,2048x1024x256,2048x1024x512,3584x1024x512,1024x2048x1024
S=$S,2560x2560x640,2560x2560x1280,3072x3072x768,3072x3072x1536,4096x4096x512,4096x4096x1024
S=$S,8192x8192x256,8192x8192x512,4096x2048x1024,6144x6144x512,6144x6144x1024
for pass in 1 2; do
  for b in main always never; do
    timeout 170 $D/$b/sgemm-bench --kernels 'simt-13*,tc-03*' --cublas-tf32 --shapes $S \
      --csv $W/split-$b-$pass.csv > $W/split-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$?"
  done
done
timeout 170 $D/main/sgemm-bench --kernels 'simt-07*,simt-09*,simt-10*,cute-02*' --shapes $S \
  --csv $W/others.csv > $W/others.txt 2>&1
echo "others rc=$?"
tar czf $OUT/run162.tgz -C /tmp r162
