#!/usr/bin/env bash
# Run 148: rung 13 with the quad's A held and B streamed, b reused over 16 rows (v20, RowMajor NN
# only) against main (run 144's binaries), three alternated passes; rung 13's case matrix for v20.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin148; mkdir -p $D; tar xJf dist/run148.tar.xz -C $D; W=/tmp/r148; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
timeout 120 $D/v20/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-v20.log 2>&1
echo "v20 tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-v20.log | tr '\n' ' ')"
S=4096x4096x4096,8192x8192x8192,4096x4096x1024
for pass in 1 2 3; do
  for b in main v20; do
    timeout 100 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
tar czf $OUT/run148.tgz -C /tmp r148
