#!/usr/bin/env bash
# Run 46: (1) a probe of how a TFLOAT32 tensor map rounds (bit-exact against cvt.rna and cvt.rn);
# (2) does NanInfPropagation catch a tc-03 that forgets to raise the flag for B? The mutant
# build (flag store removed) must fail it, the real build pass it.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin46; mkdir -p $D; tar xJf dist/run46.tar.xz -C $D; W=/tmp/r46; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
timeout 60 $D/tma_round > $W/tma_round.txt 2>&1; echo "probe rc=$?"; cat $W/tma_round.txt
for t in sgemm-gpu-tests-mutant sgemm-gpu-tests; do
  timeout 60 $D/$t --gtest_filter='Kernels/CaseMatrix.NanInfPropagation/*tc_0*' > $W/naninf-$t.txt 2>&1; echo "$t rc=$?"
  grep -E "^\[ *(OK|FAILED|PASSED) |Inf in B only|Inf/NaN in A" $W/naninf-$t.txt | cut -c1-220 | head -12
done
tar czf $OUT/run46.tgz -C /tmp r46
