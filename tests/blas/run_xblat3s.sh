#!/usr/bin/env bash
# Runs netlib's Level-3 BLAS test program for REAL, xblat3s (Debian's libblas-test), on SGEMM
# with libsgemm_blas.so preloaded, and fails unless
#   - xblat3s says SGEMM passed its error-exit tests and its computational tests, and
#   - the preloaded library took every call: with SGEMM_BLAS_TRACE=1 it writes one stderr line
#     per call, and their number must match what xblat3s counts.
# Usage: run_xblat3s.sh LIB [--force-gpu]
#   LIB          path to libsgemm_blas.so
#   --force-gpu  SGEMM_BLAS_FORCE_GPU=1, and every call that computes must then have run on the
#                GPU; exits 77 (CTest's skip) when the library finds no GPU.
# Environment:
#   XBLAT3S=/path/to/xblat3s  default: /usr/lib/<multiarch>/blas/xblat3s
#   SBLAT3_IN=/path/to/input  default: sblat3.in's standard parameters, with SGEMM the only
#                             routine on, written to the work directory
# The work directory, ./xblat3s (./xblat3s-gpu with --force-gpu), keeps the input, xblat3s'
# summary and the trace.
set -euo pipefail

usage() { echo "usage: $0 LIB [--force-gpu]" >&2; exit 2; }
[ $# -ge 1 ] || usage
lib="$(realpath "$1")"
force_gpu=0
case "${2-}" in
  "") ;;
  --force-gpu) force_gpu=1 ;;
  *) usage ;;
esac
[ -f "$lib" ] || { echo "run_xblat3s: no library at $1" >&2; exit 1; }

xblat3s="${XBLAT3S:-}"
if [ -z "$xblat3s" ]; then
  for candidate in /usr/lib/*/blas/xblat3s; do [ -x "$candidate" ] && xblat3s="$candidate"; done
fi
if [ -z "$xblat3s" ] || [ ! -x "$xblat3s" ]; then
  echo "run_xblat3s: xblat3s not found${xblat3s:+ at $xblat3s}: install Debian's libblas-test" \
       "(scripts/install-deps) or set XBLAT3S" >&2
  exit 1
fi

work="$PWD/xblat3s"
[ "$force_gpu" = 1 ] && work="$PWD/xblat3s-gpu"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

input="${SBLAT3_IN:-}"
if [ -z "$input" ]; then
  # The standard sblat3.in (sizes 0 1 2 3 5 9, alpha 0 1 0.7, beta 0 1 1.3, error exits on),
  # with every routine but SGEMM switched off.
  input="$work/sblat3.in"
  cat > "$input" <<'IN'
'sblat3.out'      NAME OF SUMMARY OUTPUT FILE
6                 UNIT NUMBER OF SUMMARY FILE
'SBLAT3.SNAP'     NAME OF SNAPSHOT OUTPUT FILE
-1                UNIT NUMBER OF SNAPSHOT FILE (NOT USED IF .LT. 0)
F        LOGICAL FLAG, T TO REWIND SNAPSHOT FILE AFTER EACH RECORD.
F        LOGICAL FLAG, T TO STOP ON FAILURES.
T        LOGICAL FLAG, T TO TEST ERROR EXITS.
16.0     THRESHOLD VALUE OF TEST RATIO
6                 NUMBER OF VALUES OF N
0 1 2 3 5 9       VALUES OF N
3                 NUMBER OF VALUES OF ALPHA
0.0 1.0 0.7       VALUES OF ALPHA
3                 NUMBER OF VALUES OF BETA
0.0 1.0 1.3       VALUES OF BETA
SGEMM  T PUT F FOR NO TEST. SAME COLUMNS.
SSYMM  F PUT F FOR NO TEST. SAME COLUMNS.
STRMM  F PUT F FOR NO TEST. SAME COLUMNS.
STRSM  F PUT F FOR NO TEST. SAME COLUMNS.
SSYRK  F PUT F FOR NO TEST. SAME COLUMNS.
SSYR2K F PUT F FOR NO TEST. SAME COLUMNS.
IN
fi
[ -f "$input" ] || { echo "run_xblat3s: no input file at $input" >&2; exit 1; }
# The summary's file name is the input's first quoted string.
summary="$(sed -n "1s/^'\([^']*\)'.*/\1/p" "$input")"

export SGEMM_BLAS_TRACE=1
unset SGEMM_BLAS_FORCE_CPU SGEMM_BLAS_FORCE_GPU
[ "$force_gpu" = 1 ] && export SGEMM_BLAS_FORCE_GPU=1
status=0
LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}" "$xblat3s" < "$input" > stdout.txt 2> trace.txt \
  || status=$?
[ -f "$summary" ] || summary=stdout.txt  # a summary on unit 6 without a file name
echo "run_xblat3s: $xblat3s < $input (exit $status); summary $work/$summary:"
cat "$summary"

fail() { echo "run_xblat3s: FAILED: $*" >&2; exit 1; }
[ "$status" = 0 ] || fail "xblat3s exited with $status"
grep -q "SGEMM  PASSED THE TESTS OF ERROR-EXITS" "$summary" \
  || fail "no 'SGEMM PASSED THE TESTS OF ERROR-EXITS'"
passed="$(sed -n 's/.*SGEMM  PASSED THE COMPUTATIONAL TESTS *( *\([0-9]*\) CALLS).*/\1/p' \
          "$summary")"
[ -n "$passed" ] || fail "no 'SGEMM PASSED THE COMPUTATIONAL TESTS'"
! grep -q "FAIL" "$summary" || fail "the summary reports a failure"

# The library's trace: one line per call it took (the format is in src/blas/README.md).
count() { grep -c -e "$1" trace.txt || true; }
traced="$(count '^sgemm_blas: sgemm_ ')"
invalid="$(count '^sgemm_blas: sgemm_ -> xerbla ')"
quick="$(count '^sgemm_blas: sgemm_ .* -> quick return$')"
on_gpu="$(count '^sgemm_blas: sgemm_ .* -> gpu$')"
no_gpu="$(count '(no GPU: ')"
computed=$((traced - invalid - quick))
echo "run_xblat3s: the library took $traced calls: $invalid with a bad argument, $quick quick" \
     "returns, $computed computed ($on_gpu on the GPU); xblat3s counted $passed"
[ "$invalid" -gt 0 ] || fail "no call with a bad argument reached the library (was it preloaded?)"
[ $((traced - invalid)) = "$passed" ] \
  || fail "the library took $((traced - invalid)) valid calls, xblat3s made $passed"
if [ "$force_gpu" = 1 ]; then
  if [ "$no_gpu" -gt 0 ]; then
    echo "run_xblat3s: SKIPPED: the library found no GPU: $(grep -m1 -o '(no GPU: .*)' trace.txt)"
    exit 77
  fi
  if [ "$on_gpu" != "$computed" ]; then
    grep -v -e '-> gpu$' -e '-> quick return$' -e '-> xerbla ' trace.txt | head -5 >&2
    fail "$((computed - on_gpu)) of $computed calls did not run on the GPU"
  fi
fi
echo "run_xblat3s: PASSED"
