#!/usr/bin/env bash
# Run 152: where rung 13's intermittently slow racecheck goes. rc_probe (rc_probe.cpp, linked with
# main's libsgemm.a; not part of the project) makes rung 13's SanitizerShapes calls twice each and
# times every call; it runs under racecheck up to 10 times (90 s limit each, ~420 s in all).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
D=/tmp/bin152; mkdir -p $D; tar xJf dist/run152.tar.xz -C $D; W=/tmp/r152; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv | tee $W/gpu.txt
$D/rc_probe > $W/plain.txt 2>&1; echo "plain rc=$?"; cat $W/plain.txt | tr '\n' ';'; echo
start=$(date +%s)
for i in $(seq 1 10); do
  [ $(( $(date +%s) - start )) -gt 330 ] && break
  t0=$(date +%s.%N)
  timeout 90 compute-sanitizer --tool racecheck --print-limit 20 $D/rc_probe > $W/racecheck-$i.txt 2>&1
  rc=$?
  echo "try $i rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s; slowest calls: $(grep -E '^rep' $W/racecheck-$i.txt | sort -t: -k2 | awk '{print $(NF-1)}' | sort -n | tail -3 | tr '\n' ' ') $(grep -E 'RACECHECK SUMMARY' $W/racecheck-$i.txt)"
done
tar czf $OUT/run152.tgz -C /tmp r152
