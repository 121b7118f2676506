#!/usr/bin/env bash
# Both ring GEMMs on one 4-GPU machine in one go (about 4.5 minutes on 4
# H200s: build 35 s, benchmarks 40 s, checks and planted hangs 65 s, ctest
# 10 s, memcheck about 25 s per ring and form; RINGS_ONLY splits it): runs on
# the GPU machine in the repository root, after tools/scripts/make_gpu_bundle.sh
# filled .gpu/ on the development machine.
#   1. configure + build ring_gemm, ring_gemm_rs, tilec-run and the host tests
#      (compiler OFF, PTX from .gpu/ptx)
#   2. ctest: the host tests, the shape rejections, ptxas -v of both rings
#   3. checks (every rank against NCCL + cuBLAS and float64): both rings at
#      D = 2 and 4 (the default shape, f16 and bf16, 512x768x2112 on 4
#      clusters, 256^3), each ring in both forms (--mode sm: the SMs move
#      the data; --mode ce: copy engines); the planted hang of each
#      (--hang-test on the --debug-hangs build: the report from the
#      runtime's hang record) at D = 2 (ctest gpu2.*_hang) and D = 4
#   4. benchmarks at D = 2 and 4, f16 and bf16, MS 1024 and 2048, NCCL +
#      cuBLAS and the local-GEMM floor in the same processes as both forms
#      of the ring (--modes sm,ce):
#      OUTDIR/rs_d2.md, rs_d4.md (docs/perf/ring_gemm_rs.md), ag_d2.md,
#      ag_d4.md (docs/perf/ring_gemm.md); all also in OUTDIR/tables.md
#   5. memcheck of both rings at D = 4 (D = 2 on 2 GPUs) on 256^3, both forms
# With fewer than 4 GPUs the D = 4 steps are skipped (and say so). Logs in
# OUTDIR, and all of them with the tables in OUTDIR/rings_logs.tar.gz (a GPU
# run may return only a few files); a summary is printed last; exit 1 if
# anything failed.
#
#   bash tools/scripts/rings_gpu_run.sh OUTDIR
# Environment: TILEC_GPU_BUILD (default build-gpu), TILEC_GPU_BUNDLE (.gpu), JOBS (16);
# RINGS_ONLY (a bash regex: only the checks, hangs, benchmarks and memchecks
# whose name matches run, e.g. 'ag ce|ag bench'; the build and ctest always),
# RINGS_CTEST (the ctest -R regex; default: the host tests, rejections,
# ptxas -v and the planted hangs at D = 2); RINGS_CHECK_TIMEOUT (s, default
# 120) and RINGS_BENCH_TIMEOUT (s, default 180) bound each check and benchmark;
# RINGS_RUNS / RINGS_WARMUP (default 30 / 10) the benchmarks' repetitions;
# RINGS_AG_COMPARE (default pull,push) the all-gather CE layouts timed
# beside its ring (ring_gemm --ce-compare).
set -u
OUT=${1:?usage: rings_gpu_run.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
START=$(date +%s)
export NCCL_NVLS_ENABLE=0
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH="$CUDA_HOME/bin:$PATH"
BUILD=${TILEC_GPU_BUILD:-$ROOT/build-gpu}
BUNDLE=${TILEC_GPU_BUNDLE:-$ROOT/.gpu}
PTX=$BUNDLE/ptx
export TILEC_PTX_DIR=$PTX
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$BUILD/cubin-cache}
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
SUMMARY=()
FAILED=0
sum() { SUMMARY+=("$*"); }
# want NAME: the step is selected (RINGS_ONLY unset, or matching NAME).
want() { [ -z "${RINGS_ONLY:-}" ] || [[ "$1" =~ $RINGS_ONLY ]]; }
bad() { FAILED=1; sum "FAIL: $*"; }
note() { echo "[rings $(( $(date +%s) - START ))s] $*"; }

{ date -u; nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv
  nvidia-smi topo -m; [ -f "$BUNDLE/BUNDLE.txt" ] && cat "$BUNDLE/BUNDLE.txt"; } > "$OUT/build.log" 2>&1
note "configure + build ($NGPU GPUs)"
cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTILEC_ENABLE_COMPILER=OFF \
  -DTILEC_PTX_DIR="$PTX" -DTILEC_CATCH2_INCLUDE_DIR="$BUNDLE/catch2" -DCUDAToolkit_ROOT="$CUDA_HOME" \
  >> "$OUT/build.log" 2>&1 || bad "configure"
ninja -C "$BUILD" -j"${JOBS:-16}" ring_gemm ring_gemm_rs tilec-run ring_gemm_host_tests \
  ring_gemm_rs_host_tests >> "$OUT/build.log" 2>&1 || bad "build (build.log)"
# The runtime's host side (copy-engine pulls, stream-ordered counters) against
# the fake driver and fake NCCL, where the build has them.
ninja -C "$BUILD" -j"${JOBS:-16}" tilec_runtime_fakedriver_tests >> "$OUT/build.log" 2>&1 || true
RUN=$BUILD/bin/tilec-run RS=$BUILD/bin/ring_gemm_rs AG=$BUILD/bin/ring_gemm
CK=$OUT/checks.log
: > "$CK"
(cd "$BUILD" && ctest -R "${RINGS_CTEST:-^ring_gemm(_rs)?\.|ptxas_v\.ring_gemm|^gpu2\.ring_gemm(_ce|_rs|_rs_ce)?_hang}" \
   --output-on-failure) >> "$CK" 2>&1 || bad "ctest host / rejections / ptxas -v / hang (checks.log)"
if [ -x "$BUILD/bin/tilec_runtime_fakedriver_tests" ]; then
  (cd "$BUILD" && ctest -R '^unit\.runtime\.fakedriver$' --output-on-failure) >> "$CK" 2>&1 ||
    bad "ctest unit.runtime.fakedriver (checks.log)"
fi
sum "ctest: $(grep -E 'tests passed' "$CK" | tail -1)"

# chk NAME RANKS CMD...: one --check run on RANKS GPUs (skipped with fewer)
chk() {
  local name=$1 n=$2; shift 2
  want "$name" || return 0
  if [ "$NGPU" -lt "$n" ]; then sum "$name: skipped ($NGPU GPUs)"; return; fi
  note "$name"
  echo "===== $name" >> "$CK"
  if timeout -k 5 "${RINGS_CHECK_TIMEOUT:-120}" "$RUN" -n "$n" "$@" >> "$CK" 2>&1; then
    sum "$name: PASS"
  else
    bad "$name (checks.log)"
  fi
}
chk "rs check D=2 1024x4096x4096 f16" 2 "$RS" --check --dtype f16
chk "rs check D=2 512x768x2112 bf16, 4 clusters" 2 "$RS" --check --ms 512 --n 768 --k 2112 --dtype bf16 --clusters 4
chk "rs check D=4 1024x4096x4096 bf16" 4 "$RS" --check --dtype bf16
chk "rs check D=4 512x768x2112 f16, 4 clusters" 4 "$RS" --check --ms 512 --n 768 --k 2112 --dtype f16 --clusters 4
chk "rs check D=4 256^3 f16" 4 "$RS" --check --ms 256 --n 256 --k 256 --dtype f16
chk "rs ce check D=2 1024x4096x4096 bf16" 2 "$RS" --check --mode ce --dtype bf16
chk "rs ce check D=4 1024x4096x4096 f16" 4 "$RS" --check --mode ce --dtype f16
chk "rs ce check D=4 512x768x2112 bf16, 4 clusters" 4 "$RS" --check --mode ce --ms 512 --n 768 --k 2112 --dtype bf16 --clusters 4
chk "rs ce check D=2 512x768x2112 f16, 1 chunk" 2 "$RS" --check --mode ce --ms 512 --n 768 --k 2112 --dtype f16 --ce-chunks 1
chk "ag check D=2 1024x4096x4096 bf16" 2 "$AG" --check --dtype bf16
chk "ag check D=2 512x768x2112 f16, 4 clusters" 2 "$AG" --check --ms 512 --n 768 --k 2112 --dtype f16 --clusters 4
chk "ag check D=4 1024x4096x4096 f16" 4 "$AG" --check --dtype f16
chk "ag check D=4 512x768x2112 bf16, 4 clusters" 4 "$AG" --check --ms 512 --n 768 --k 2112 --dtype bf16 --clusters 4
chk "ag ce check D=2 1024x4096x4096 f16" 2 "$AG" --check --mode ce --dtype f16
chk "ag ce check D=2 512x768x2112 bf16, 4 clusters" 2 "$AG" --check --mode ce --ms 512 --n 768 --k 2112 --dtype bf16 --clusters 4
chk "ag ce check D=4 1024x4096x4096 bf16" 4 "$AG" --check --mode ce --dtype bf16
chk "ag ce check D=4 512x768x2112 f16, 3 chunks" 4 "$AG" --check --mode ce --ms 512 --n 768 --k 2112 --dtype f16 --ce-chunks 3
chk "ag ce check D=2 1024x4096x4096 bf16, pushed" 2 "$AG" --check --mode ce --dtype bf16 --ce-push
chk "ag ce check D=4 1024x4096x4096 f16, one counter a copy" 4 "$AG" --check --mode ce --dtype f16 --ce-counters copy
chk "ag ce check D=4 512x768x2112 bf16, pushed in 3 chunks, one counter a copy" 4 "$AG" --check --mode ce --ms 512 --n 768 --k 2112 --dtype bf16 --ce-push --ce-chunks 3 --ce-counters copy
# The planted hang at D = 4: ranks 0 .. 2 report (exit 3 wanted).
hang() {
  local name=$1 prog=$2 ptx=$3; shift 3
  want "$name" || return 0
  if [ "$NGPU" -lt 4 ] || [ ! -f "$ptx" ]; then sum "$name: skipped"; return; fi
  note "$name"
  echo "===== $name" >> "$CK"
  timeout -k 5 60 "$RUN" -n 4 "$prog" --hang-test --ptx "$ptx" --ms 256 --n 256 --k 256 --dtype f16 \
    "$@" > "$OUT/hang.tmp" 2>&1
  local rc=$?
  cat "$OUT/hang.tmp" >> "$CK"
  if [ $rc -eq 3 ] && grep -q 'tilec: hang: device [0-2]: wait(sem\[' "$OUT/hang.tmp"; then
    sum "$name: $(grep -c 'tilec: hang: device' "$OUT/hang.tmp") report(s), exit 3: $(grep -m1 'tilec: hang: device' "$OUT/hang.tmp")"
  else bad "$name (exit $rc, checks.log)"; fi
  rm -f "$OUT/hang.tmp"
}
hang "ag hang-test D=4" "$AG" "$PTX/ring_gemm_f16_debug.ptx"
hang "ag ce hang-test D=4" "$AG" "$PTX/ring_gemm_ce_f16_debug.ptx" --mode ce
hang "rs hang-test D=4" "$RS" "$PTX/ring_gemm_rs_f16_debug.ptx"
hang "rs ce hang-test D=4" "$RS" "$PTX/ring_gemm_rs_ce_f16_debug.ptx" --mode ce

LOG=$OUT/bench.log
: > "$LOG"
# bench NAME RANKS MD CMD...
bench() {
  local name=$1 n=$2 md=$3; shift 3
  want "$name" || return 0
  if [ "$NGPU" -lt "$n" ]; then sum "$name: skipped ($NGPU GPUs)"; return; fi
  note "$name"
  echo "===== $name" >> "$LOG"
  if timeout -k 5 "${RINGS_BENCH_TIMEOUT:-180}" "$RUN" -n "$n" "$@" --bench --shapes 1024x4096x4096,2048x4096x4096 \
       --runs "${RINGS_RUNS:-30}" --warmup "${RINGS_WARMUP:-10}" --out "$md" >> "$LOG" 2>&1; then
    sum "$name: ok ($(basename "$md"))"
  else
    bad "$name (bench.log)"
  fi
  [ -f "$md" ] && grep -E '^\| (f16|bf16) ' "$md" | while read -r l; do sum "  $l"; done
}
bench "rs bench D=2" 2 "$OUT/rs_d2.md" "$RS" --modes sm,ce
bench "rs bench D=4" 4 "$OUT/rs_d4.md" "$RS" --modes sm,ce
# The all-gather's CE ring also with one counter per copy, pulled and pushed,
# as lines under its table (its default: a counter per 128-row block).
bench "ag bench D=2" 2 "$OUT/ag_d2.md" "$AG" --modes sm,ce --ce-compare "${RINGS_AG_COMPARE:-pull,push}"
bench "ag bench D=4" 4 "$OUT/ag_d4.md" "$AG" --modes sm,ce --ce-compare "${RINGS_AG_COMPARE:-pull,push}"

MC=$OUT/memcheck.log
: > "$MC"
# D = 4 (D = 2 on a 2-GPU machine, named so).
MCD=4
[ "$NGPU" -lt 4 ] && MCD=2
for what in "$RS" "$RS --mode ce" "$AG" "$AG --mode ce"; do
  read -r prog mode <<< "$what"
  name="memcheck $(basename "$prog")${mode:+ $mode} D=$MCD"
  want "$name" || continue
  if [ "$NGPU" -lt 2 ] || ! command -v compute-sanitizer > /dev/null 2>&1; then
    sum "$name: skipped"; continue
  fi
  note "$name"
  echo "===== $name 256^3" >> "$MC"
  # shellcheck disable=SC2086 # $mode: "--mode ce" or nothing
  if timeout -k 5 150 "$RUN" -n "$MCD" compute-sanitizer --tool memcheck --report-api-errors no \
       --print-limit 20 --error-exitcode 99 "$prog" --check --ms 256 --n 256 --k 256 --dtype f16 \
       --repeat 2 $mode >> "$MC" 2>&1; then
    sum "$name 256^3: 0 errors"
  else
    bad "$name (memcheck.log)"
  fi
done
# The four tables in one file, and every log and table in one tar (only a
# few files come back from a GPU run).
for md in rs_d2 rs_d4 ag_d2 ag_d4; do
  [ -f "$OUT/$md.md" ] && { echo "## $md"; echo; cat "$OUT/$md.md"; echo; }
done > "$OUT/tables.md"
(cd "$OUT" && tar czf rings_logs.tar.gz --exclude=rings_logs.tar.gz -- *.md *.log 2> /dev/null)
echo "===== rings_gpu_run summary ($(( $(date +%s) - START ))s)"
printf '%s\n' "${SUMMARY[@]}"
exit $FAILED
