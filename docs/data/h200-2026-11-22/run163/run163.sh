#!/usr/bin/env bash
# Run 163: the refit tail-split costs (rung 13 {11, 11}; tc-03 Tf32 {18, 18}, 3xTF32 {12, 5}) and
# rung 13's auto_suits by time estimates (docs/perf-notes.md, twenty-third session).
# 1. The new build's case matrices of rung 13, tc-03, tc-04 and the Api tests.
# 2. auto's choice on the device for every call of runs 154, 155, 162 and the held-out set
#    (run157/auto_probe.cpp, linked with this build; rule.py must print the same).
# 3. Held-out shapes (not in run 162's fit), RowMajor NN: rung 13 and tc-03 in run 162's builds
#    that always / never split and in the new build, rung 10 in the new build.
# 4. The calls whose rung-13 decision changed, in RowMajor NT / TN and ColMajor NN: rungs 13, 10.
# 5. tc-03 at 4096³ (3xTF32 now splits) and 8192³, old against new, two alternated passes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin163; mkdir -p $D; tar xJf dist/run163.tar.xz -C $D; W=/tmp/r163; mkdir -p $W
R=docs/data/h200-2026-11-22/run163
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 200 $D/final/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*:Kernels/CaseMatrix.*/tc_03*:Kernels/CaseMatrix.*/tc_04*:Api.*' > $W/tests-new.log 2>&1
echo "new tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-new.log | tr '\n' ' ')"
$D/final/auto_probe $(tr ':' ' ' < $R/calls.txt) > $W/auto-choice.txt; echo "probe rc=$?"
H=384x384x384,384x640x512,640x1024x192,896x896x320,1280x768x256,1152x1152x384,1792x1024x384
H=$H,2048x1536x256,512x2048x512,3072x512x768,256x1024x640,768x1536x1024,1600x1600x200
H=$H,128x2048x2048,4096x1024x192,5120x5120x256,5120x5120x384,3584x3584x512,7168x7168x320
H=$H,2816x2816x768,4608x4608x640,3328x3328x1024
for b in always never final; do
  timeout 170 $D/$b/sgemm-bench --kernels 'simt-13*,tc-03*' --shapes $H --csv $W/held-$b.csv > $W/held-$b.txt 2>&1
  echo "held $b rc=$?"
done
timeout 170 $D/final/sgemm-bench --kernels 'simt-10*' --shapes $H --csv $W/held-r10.csv > $W/held-r10.txt 2>&1
echo "held r10 rc=$?"
C=256x256x256,512x512x256,512x512x512,768x768x256,1024x1024x256,1536x1536x256,1536x1536x512
C=$C,3584x1024x1024,2048x1024x256,1024x1024x128
for lo in "row NT" "row TN" "col NN"; do
  set -- $lo
  timeout 170 $D/final/sgemm-bench --kernels 'simt-13*,simt-10*' --shapes $C --layout $1 --ops $2 --csv $W/changed-$1-$2.csv > $W/changed-$1-$2.txt 2>&1
  echo "changed $1 $2 rc=$?"
done
for pass in 1 2; do
  for b in old final; do
    timeout 170 $D/$b/sgemm-bench --kernels 'tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --csv $W/tc03-$b-$pass.csv > $W/tc03-$b-$pass.txt 2>&1
    echo "tc03 $b pass $pass rc=$? $(grep -E '^(cublas|tc-03)' $W/tc03-$b-$pass.txt | awk '{print $1, $5}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run163.tgz -C /tmp r163
