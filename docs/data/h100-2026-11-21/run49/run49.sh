#!/usr/bin/env bash
# Run 49: run 48 again on an H100 (same binaries: dist/run48.tar.xz; their sm_90a code is
# that of the final main), plus the rounding probe with the library's pre-sm_90 emulation of
# cvt.rn compared against the instruction. (1) scripts/gpu-check; (2) Api.Tf32x3SplitExactOnTies
# on a mutant build whose to_tf32 breaks ties away (cvt.rna) while the TFLOAT32 map breaks them
# to even: tc-03 RowMajor NN must fail, everything else pass; (3) the issue shapes: simt-13 (#4)
# at 4096^3, 8192^3, 2048^3, 16384^3 and K = 1024; tc-02/03 (#6) at 4096^3 and 8192^3 (twice)
# with cuBLAS SGEMM and TF32.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin49; mkdir -p $D; tar xJf dist/run48.tar.xz -C $D; B=$D/sgemm-bench; W=/tmp/r49; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
GPU_CHECK_KERNEL_TIMEOUT=60 GPU_CHECK_SANITIZER_TIMEOUT=120 GPU_CHECK_BENCH_TIMEOUT=150 timeout 400 scripts/gpu-check --bin $D --out $W/gc > $W/gpu-check.out 2>&1
echo "gpu-check rc=$?"; sed -n '/^---- summary/,$p' $W/gpu-check.out
grep "accuracy\] tc-0[23]" $W/gc/gpu-tests-api.log
timeout 60 dist/tma_round > $W/tma_round.txt 2>&1; echo "probe rc=$?"; grep -v "^  " $W/tma_round.txt
timeout 100 $D/sgemm-gpu-tests-mutant --gtest_filter='Api.Tf32x3SplitExactOnTies' > $W/mutant-ties.txt 2>&1; echo "mutant rc=$?"
grep -E "accuracy|Failure|rel. Frobenius|FAILED|PASSED" $W/mutant-ties.txt | cut -c1-200 | head -12
for pass in 1 2 3; do
  timeout 120 $B --kernels 'simt-13*,tc-02*,tc-03*' --shapes 4096x4096x4096,8192x8192x8192 --cublas-tf32 --reps 20 > $W/bench-issue-$pass.txt 2>&1; echo "issue $pass rc=$?"
done
timeout 200 $B --kernels 'simt-13*' --shapes 2048x2048x2048,16384x16384x16384 --reps 20 > $W/bench-simt-shapes.txt 2>&1; echo "simt shapes rc=$?"
timeout 100 $B --kernels 'simt-13*' --sweep k1024 --reps 20 > $W/bench-k1024.txt 2>&1; echo "k1024 rc=$?"
grep -hE "^(cublas|simt-13|tc-0[23])|^[0-9]+ x" $W/bench-issue-1.txt $W/bench-issue-2.txt $W/bench-simt-shapes.txt $W/bench-k1024.txt | awk '{print $1, $2, $3, $5, $6, $7}'
tar czf $OUT/run49.tgz -C /tmp r49
