#!/usr/bin/env bash
# Run 153: rung 13's consumers sleep 64 ns between tries on a full barrier that missed
# (consumer-backoff.patch, not on main) against main: three alternated bench passes; rung 13's
# case matrix; run 152's probe on this build under racecheck up to 8 times (90 s limit each).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin153; mkdir -p $D; tar xJf dist/run153.tar.xz -C $D; W=/tmp/r153; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
S=4096x4096x4096,8192x8192x8192,4096x4096x1024
for pass in 1 2 3; do
  for b in main b64; do
    timeout 100 $D/$b/sgemm-bench --kernels simt-13-tma --shapes $S > $W/bench-$b-$pass.txt 2>&1
    echo "$b pass $pass rc=$? $(grep -E '^(cublas|simt-13)' $W/bench-$b-$pass.txt | awk '{print $1, $5, $7}' | tr '\n' ' ')"
  done
done
timeout 120 $D/b64/sgemm-gpu-tests --gtest_brief=1 --gtest_filter='Kernels/CaseMatrix.*/simt_13*' > $W/tests-b64.log 2>&1
echo "b64 tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $W/tests-b64.log | tr '\n' ' ')"
start=$(date +%s)
for i in $(seq 1 8); do
  [ $(( $(date +%s) - start )) -gt 300 ] && break
  t0=$(date +%s.%N)
  timeout 90 compute-sanitizer --tool racecheck --print-limit 20 $D/b64/rc_probe > $W/racecheck-$i.txt 2>&1
  rc=$?
  echo "try $i rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s; slowest calls: $(grep -E '^rep' $W/racecheck-$i.txt | awk '{print $(NF-1)}' | sort -n | tail -3 | tr '\n' ' ') $(grep -E 'RACECHECK SUMMARY' $W/racecheck-$i.txt)"
done
tar czf $OUT/run153.tgz -C /tmp r153
