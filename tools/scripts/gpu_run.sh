#!/usr/bin/env bash
# The GPU side in one go. Runs on the GPU machine (CUDA, nvcc, no MLIR, no
# network), in the repository root, after tools/scripts/make_gpu_bundle.sh filled
# .gpu/ on the development machine:
#   1. nvidia-smi summary
#   2. configure + build: compiler OFF, CUDA references ON, PTX from .gpu/ptx
#   3. ctest: the gpu-labelled tests, then the rest (unit tests on a real driver);
#      3b. on 2+ GPUs only: ctest -L multi_device and peer_test (2 ranks) under memcheck
#   4. the runtime's per-launch check cost (launch_bench, one row), the
#      histogram sample (default 1e8 inputs), the histogram benchmark
#      (512 threads -> OUTDIR/histogram_bench.md; 256 and 1024 threads too);
#      the cluster ping-pong sample (10000 iterations) and its benchmark
#      (-> OUTDIR/pingpong_bench.md); samples/kernels at the check sizes and
#      kernels_bench --bench (.tile vs nvcc vs cuBLAS -> OUTDIR/kernels_bench.md)
#      and the TMA multicast benchmark (CUDA
#      reference A/B for C = 1, 2, 4, and the .tile kernels where their PTX is
#      in the bundle -> OUTDIR/tma_multicast_bench.md); the GEMM benchmark
#      (samples/gemm: the sweep of docs/perf/gemm.md, the kernel chosen and
#      tuned per shape, vs cuBLAS -> OUTDIR/gemm_bench.md, gemm_bench.csv,
#      gemm_tune.txt, gemm_tflops.png via plot.py)
#   4b. with 2 or more GPUs: samples/ring_gemm (tilec-run -n 2): its
#      multi_device checks when RING_ONLY=1 (else step 3b ran them), the ring benchmark (tilec ring vs NCCL all-gather +
#      cuBLAS vs the local-GEMM floor -> OUTDIR/ring_gemm_bench.md) and
#      memcheck on a small shape; with 1 GPU a row says it was skipped
#   5. every gpu-labelled test command under compute-sanitizer memcheck,
#      racecheck and synccheck (TILEC_GPU_TEST_SMALL=1: small problems), the
#      ping-pong GPU test and sample included: round-robin by tool, fastest
#      tests first, so a budget cut leaves every test and tool run at least
#      once; the runs that did not fit are listed in the summary
# Tests labelled `nosanitizer` (gpu.debug_hangs: a trap is its expected outcome)
# stay out of the sanitizer runs.
# Full logs go to OUTDIR; a short summary table is printed last. Never stops at
# the first failure; exits 1 if anything failed.
#
#   bash tools/scripts/gpu_run.sh OUTDIR
# Environment: TILEC_GPU_BUILD (build dir, default build-gpu), JOBS (16),
#   TILEC_GPU_BUNDLE (default .gpu),
#   SANITIZER_TIMEOUT (seconds per sanitizer run, 150), TIME_BUDGET (480 s for
#   everything: sanitizer runs are cut to fit), SKIP_SANITIZERS=1, SKIP_BENCH=1,
#   GEMM_ONLY=1 (only the GEMM: build the gemm targets, ctest -R gemm, the GEMM
#   benchmark + plot, the sanitizers on the gemm GPU tests), GEMM_RUNS /
#   GEMM_WARMUP (the GEMM benchmark's --runs, default 30, and --warmup, 10),
#   GEMM_SHAPES (its --shapes, default the whole sweep),
#   RING_ONLY=1 (only samples/ring_gemm and ring_gemm_rs, step 4b: build them +
#   tilec-run, ctest -R ring_gemm (both rings' checks; gpu4.* with 4 GPUs),
#   the all-gather ring's benchmark, memcheck on the small shape;
#   tools/scripts/rings_gpu_run.sh benchmarks both rings at D = 2 and 4).
set -uo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
OUT=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
BUILD=${TILEC_GPU_BUILD:-build-gpu}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
JOBS=${JOBS:-16}
SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-150}
TIME_BUDGET=${TIME_BUDGET:-480}  # seconds for the whole script; sanitizer runs get what is left
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH="$CUDA_HOME/bin:$PATH"
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$BUILD/cubin-cache}
START=$(date +%s)
GEMM_ONLY=${GEMM_ONLY:-0}
RING_ONLY=${RING_ONLY:-0}
# GEMM_ONLY=1: the build, ctest and sanitizer steps keep to samples/gemm.
NINJA_TARGETS=()
CTEST_FILTER=()
if [ "$GEMM_ONLY" = 1 ]; then
  NINJA_TARGETS=(gemm gemm_host_tests)
  CTEST_FILTER=(-R '(^|\.)gemm|^ptxas_v\.')  # not kernels' sgemm_*
fi
if [ "$RING_ONLY" = 1 ]; then
  NINJA_TARGETS=(ring_gemm ring_gemm_host_tests ring_gemm_rs ring_gemm_rs_host_tests tilec-run)
  CTEST_FILTER=(-R 'ring_gemm')
fi

ROWS=()      # "step|result|log" for the summary
FAILED=0
row() { ROWS+=("$1|$2|$3"); }
fail() { FAILED=1; row "$1" "FAIL: $2" "$3"; }
elapsed() { echo $(( $(date +%s) - START ))s; }
note() { echo "[gpu_run $(elapsed)] $*"; }

# ---------------------------------------------------------------- 1. device
note "nvidia-smi"
if nvidia-smi > "$OUT/nvidia-smi.log" 2>&1; then
  DEVICE=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv 2>&1 |
    tee -a "$OUT/nvidia-smi.log"
  row "device" "${DEVICE:-?}" "nvidia-smi.log"
else
  fail "device" "nvidia-smi failed" "nvidia-smi.log"
fi

# ---------------------------------------------------------------- 2. build
BUNDLE=${TILEC_GPU_BUNDLE:-$ROOT/.gpu}
PTX_DIR=$BUNDLE/ptx
CATCH_DIR=$BUNDLE/catch2
if ! ls "$PTX_DIR"/*.ptx > /dev/null 2>&1; then
  fail "bundle" "no $PTX_DIR/*.ptx (run tools/scripts/make_gpu_bundle.sh on the dev machine, carry .gpu)" "-"
else
  row "bundle" "$(ls "$PTX_DIR"/*.ptx | wc -l) PTX files" "$( [ -f "$BUNDLE/BUNDLE.txt" ] && head -1 "$BUNDLE/BUNDLE.txt" || echo -)"
fi
[ -f "$CATCH_DIR/catch2/catch.hpp" ] || fail "bundle" "no $CATCH_DIR/catch2/catch.hpp" "-"

note "configure ($BUILD)"
NVCC=$(command -v nvcc || echo "$CUDA_HOME/bin/nvcc")
if cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
     -DTILEC_ENABLE_COMPILER=OFF -DTILEC_ENABLE_CUDA_REFERENCES=ON \
     -DTILEC_PTX_DIR="$PTX_DIR" -DTILEC_CATCH2_INCLUDE_DIR="$CATCH_DIR" \
     -DCUDAToolkit_ROOT="$CUDA_HOME" -DCMAKE_CUDA_COMPILER="$NVCC" > "$OUT/configure.log" 2>&1; then
  row "configure" "ok" "configure.log"
else
  fail "configure" "cmake failed (tail: $(tail -1 "$OUT/configure.log"))" "configure.log"
fi

note "build (-j$JOBS)"
# -k 0: build every target that can be built even when one fails
if ninja -C "$BUILD" -j"$JOBS" -k 0 ${NINJA_TARGETS[@]+"${NINJA_TARGETS[@]}"} > "$OUT/build.log" 2>&1; then
  row "build" "ok" "build.log"
else
  fail "build" "$(grep -c 'FAILED:' "$OUT/build.log") target(s) failed" "build.log"
fi

# ---------------------------------------------------------------- 3. ctest
# ctest_counts LOG: sets CT_FAIL/CT_SKIP/CT_TOTAL and COUNTS="P passed, F failed, S skipped"
ctest_counts() {
  local log=$1 line
  # "100% tests passed out of 4" or "75% tests passed, 1 tests failed out of 4"
  line=$(grep -E 'tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$log" | tail -1)
  CT_FAIL=$(echo "$line" | sed -nE 's/.* ([0-9]+) tests? failed out of.*/\1/p')
  CT_TOTAL=$(echo "$line" | sed -nE 's/.*out of ([0-9]+).*/\1/p')
  CT_SKIP=$(grep -cE '\((Skipped|Not Run|Disabled)\)' "$log")
  CT_FAIL=${CT_FAIL:-0}; CT_TOTAL=${CT_TOTAL:-0}
  COUNTS="$(( CT_TOTAL - CT_FAIL - CT_SKIP )) passed, $CT_FAIL failed, $CT_SKIP skipped"
}

if [ "$RING_ONLY" != 1 ]; then  # the ring has no gpu-labelled test (multi_device, step 4b)
note "ctest -L gpu"
ctest --test-dir "$BUILD" -L gpu ${CTEST_FILTER[@]+"${CTEST_FILTER[@]}"} --output-on-failure --timeout 300 > "$OUT/ctest_gpu.log" 2>&1
rc=$?
ctest_counts "$OUT/ctest_gpu.log"
if [ "$CT_TOTAL" -eq 0 ]; then
  fail "ctest gpu" "no gpu tests ran" "ctest_gpu.log"
elif [ $rc -ne 0 ] || [ "$CT_FAIL" -ne 0 ] || [ "$CT_SKIP" -ne 0 ]; then
  # a skip on the GPU machine means the device was not seen: a failure here
  fail "ctest gpu" "$COUNTS" "ctest_gpu.log"
else
  row "ctest gpu" "$COUNTS" "ctest_gpu.log"
fi
fi  # RING_ONLY != 1

note "ctest -LE gpu"
# multi_device tests run in their own step below (on 2+ GPUs only: 3b; RING_ONLY=1: 4b).
ctest --test-dir "$BUILD" -LE 'gpu|multi_device' ${CTEST_FILTER[@]+"${CTEST_FILTER[@]}"} --output-on-failure --timeout 300 > "$OUT/ctest_other.log" 2>&1
rc=$?
ctest_counts "$OUT/ctest_other.log"
if [ $rc -ne 0 ] || [ "$CT_FAIL" -ne 0 ]; then
  fail "ctest other" "$COUNTS" "ctest_other.log"
else
  row "ctest other" "$COUNTS" "ctest_other.log"
fi

# ---------------------------------------------------------------- 3b. multi-GPU (2+ GPUs only)
# ctest -L multi_device: symmetric buffers (gpu2.symmetric_*), peer references
# and semaphores (gpu2.peer_nccl, gpu2.peer_local: TMA into the next rank,
# signal/wait, 100 launches back to back; gpu2.peer_debug_hangs: the planted
# missing signal reported by --debug-hangs), then `peer_test nccl` on 2 ranks
# under compute-sanitizer memcheck. Skipped (not failed) on a 1-GPU machine.
NGPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
# gpu4.* tests need 4 GPUs (they skip, exit 77, with fewer; a skip fails the
# steps below): left out on a smaller machine.
MULTI_EXCLUDE=()
if [ "${NGPUS:-0}" -lt 4 ]; then
  MULTI_EXCLUDE=(-E '^gpu4\.')
fi
if [ "$GEMM_ONLY" = 1 ] || [ "$RING_ONLY" = 1 ]; then
  :  # RING_ONLY=1: the ring's multi_device tests run in step 4b
elif [ "${NGPUS:-0}" -lt 2 ]; then
  row "ctest multi_device" "skipped (${NGPUS:-0} GPU; needs 2)" "-"
else
  note "ctest -L multi_device ($NGPUS GPUs)"
  ctest --test-dir "$BUILD" -L multi_device ${MULTI_EXCLUDE[@]+"${MULTI_EXCLUDE[@]}"} --output-on-failure --timeout 300 > "$OUT/ctest_multi_device.log" 2>&1
  rc=$?
  ctest_counts "$OUT/ctest_multi_device.log"
  if [ "$CT_TOTAL" -eq 0 ]; then
    fail "ctest multi_device" "no multi_device tests ran" "ctest_multi_device.log"
  elif [ $rc -ne 0 ] || [ "$CT_FAIL" -ne 0 ] || [ "$CT_SKIP" -ne 0 ]; then
    fail "ctest multi_device" "$COUNTS" "ctest_multi_device.log"
  else
    row "ctest multi_device" "$COUNTS" "ctest_multi_device.log"
  fi
  # One process per GPU (tilec-run), each under memcheck: a sanitizer that
  # serialized one process's launches cannot stall the kernels of the other.
  PEERBIN=$BUILD/bin/peer_test
  RUNBIN=$BUILD/bin/tilec-run
  if [ "${SKIP_SANITIZERS:-0}" != 1 ] && command -v compute-sanitizer > /dev/null 2>&1 && [ -x "$PEERBIN" ] && [ -x "$RUNBIN" ]; then
    note "tilec-run -n 2 compute-sanitizer memcheck peer_test nccl"
    (cd "$BUILD" && TILEC_PTX_DIR="$PTX_DIR" timeout "$SANITIZER_TIMEOUT" "$RUNBIN" -n 2 \
       compute-sanitizer --tool memcheck --report-api-errors no --print-limit 50 --error-exitcode 99 "$PEERBIN" nccl) \
       > "$OUT/sanitizer_memcheck_peer_nccl.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
      row "memcheck peer_test (2 ranks)" "clean" "sanitizer_memcheck_peer_nccl.log"
    else
      fail "memcheck peer_test (2 ranks)" "exit $rc" "sanitizer_memcheck_peer_nccl.log"
    fi
  fi
fi

# ---------------------------------------------------------------- 4. sample + bench (before the sanitizers, so the time budget never eats them)
if [ "$GEMM_ONLY" != 1 ] && [ "$RING_ONLY" != 1 ]; then  # every sample but the GEMMs (below)
note "histogram sample"
HIST=$BUILD/bin/histogram
run_sample() {  # binary name log args...
  local bin=$1 name=$2 log=$3
  shift 3
  if [ ! -x "$bin" ]; then
    fail "$name" "not built" "build.log"
  elif "$bin" "$@" > "$OUT/$log" 2>&1; then
    row "$name" "ok, exact; $(grep -m1 '^time:' "$OUT/$log" | sed 's/^time: //')" "$log"
  else
    fail "$name" "$(tail -1 "$OUT/$log")" "$log"
  fi
}
run_sample "$HIST" "histogram (1e8, uniform, cluster 2)" sample_histogram.log --skip-code 77
run_sample "$HIST" "histogram (1e8, skewed, cluster 1)" sample_histogram_skewed_c1.log \
  --dist skewed --cluster 1 --ptx "$PTX_DIR/histogram_c1.ptx" --skip-code 77

PINGPONG_BIN=$BUILD/bin/pingpong
note "pingpong sample"
run_sample "$PINGPONG_BIN" "pingpong (128 CTAs, cluster 8, 1e4 iterations)" sample_pingpong.log \
  --iters 10000 --runs 5 --ptx "$PTX_DIR/pingpong.ptx" --skip-code 77

KERNELS_BIN=$BUILD/bin/kernels
note "kernels sample"
if [ ! -x "$KERNELS_BIN" ]; then
  fail "kernels (check sizes)" "not built" "build.log"
elif "$KERNELS_BIN" --skip-code 77 > "$OUT/sample_kernels.log" 2>&1; then
  row "kernels (check sizes)" "ok; $(grep -m1 '^kernels:' "$OUT/sample_kernels.log" | sed 's/^kernels: //')" sample_kernels.log
else
  fail "kernels (check sizes)" "$(grep -m1 '^kernels:' "$OUT/sample_kernels.log" || tail -1 "$OUT/sample_kernels.log")" sample_kernels.log
fi

# The host cost per launch of the runtime's checks (docs/runtime.md, "Opt-outs").
LBENCH=$BUILD/bin/launch_bench
if [ ! -x "$LBENCH" ]; then
  fail "launch cost" "launch_bench not built" "build.log"
elif "$LBENCH" --ptx-dir "$PTX_DIR" > "$OUT/launch_bench.log" 2>&1; then
  row "launch cost" "$(grep -m1 '^launch_bench:' "$OUT/launch_bench.log" | sed 's/^launch_bench: //')" launch_bench.log
else
  fail "launch cost" "$(tail -1 "$OUT/launch_bench.log")" launch_bench.log
fi

BENCH=$BUILD/bin/histogram_bench
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  row "bench" "skipped (SKIP_BENCH=1)" "-"
elif [ ! -x "$BENCH" ]; then
  fail "bench" "histogram_bench not built" "build.log"
else
  for t in 512 256 1024; do
    md=histogram_bench.md
    [ $t = 512 ] || md=histogram_bench_t$t.md
    note "histogram_bench --threads $t"
    if "$BENCH" --threads $t --ptx-dir "$PTX_DIR" --out "$OUT/$md" > "$OUT/${md%.md}.log" 2>&1; then
      row "bench $t threads" "ok, all exact" "$md"
    else
      fail "bench $t threads" "$(grep -c 'PROBLEM' "$OUT/${md%.md}.log") problem line(s); tail: $(tail -1 "$OUT/${md%.md}.log")" "${md%.md}.log"
    fi
  done
fi

PPBENCH=$BUILD/bin/pingpong_bench
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  row "pingpong bench" "skipped (SKIP_BENCH=1)" "-"
elif [ ! -x "$PPBENCH" ]; then
  fail "pingpong bench" "pingpong_bench not built" "build.log"
else
  note "pingpong_bench"
  if "$PPBENCH" --iters 10000 --runs 15 --ptx-dir "$PTX_DIR" --out "$OUT/pingpong_bench.md" \
       > "$OUT/pingpong_bench.log" 2>&1; then
    row "pingpong bench" "ok, all exact" "pingpong_bench.md"
  else
    fail "pingpong bench" "$(grep -c 'PROBLEM\|NOT RUN' "$OUT/pingpong_bench.log") problem line(s); tail: $(tail -1 "$OUT/pingpong_bench.log")" "pingpong_bench.log"
  fi
fi

KBENCH=$BUILD/bin/kernels_bench
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  row "kernels bench" "skipped (SKIP_BENCH=1)" "-"
elif [ ! -x "$KBENCH" ]; then
  fail "kernels bench" "kernels_bench not built" "build.log"
else
  note "kernels_bench --bench"
  if "$KBENCH" --bench --runs 20 --out "$OUT/kernels_bench.md" > "$OUT/kernels_bench.log" 2>&1; then
    row "kernels bench" "ok, all checked" "kernels_bench.md"
  else
    fail "kernels bench" "$(grep -c 'PROBLEM' "$OUT/kernels_bench.log") problem line(s); tail: $(tail -1 "$OUT/kernels_bench.log")" "kernels_bench.log"
  fi
fi

TMABENCH=$BUILD/bin/tma_multicast_bench
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  row "tma multicast bench" "skipped (SKIP_BENCH=1)" "-"
elif [ ! -x "$TMABENCH" ]; then
  fail "tma multicast bench" "tma_multicast_bench not built" "build.log"
else
  note "tma_multicast_bench"
  if "$TMABENCH" --runs 15 --ptx-dir "$PTX_DIR" --out "$OUT/tma_multicast_bench.md" \
       > "$OUT/tma_multicast_bench.log" 2>&1; then
    row "tma multicast bench" "ok, all exact" "tma_multicast_bench.md"
  else
    fail "tma multicast bench" "$(grep -c 'PROBLEM' "$OUT/tma_multicast_bench.log") problem line(s); tail: $(tail -1 "$OUT/tma_multicast_bench.log")" "tma_multicast_bench.log"
  fi
fi

fi  # GEMM_ONLY != 1 && RING_ONLY != 1

# samples/gemm: the sweep (squares, decode / LLM shapes, non-multiples), each
# shape's kernel tuned (--tune) and timed against cuBLAS, checked against
# cuBLAS after timing; the table for docs/perf/gemm.md and the plot.
GEMMBIN=$BUILD/bin/gemm
if [ "$RING_ONLY" = 1 ]; then
  :
elif [ "${SKIP_BENCH:-0}" = 1 ]; then
  row "gemm bench" "skipped (SKIP_BENCH=1)" "-"
elif [ ! -x "$GEMMBIN" ]; then
  fail "gemm bench" "gemm not built" "build.log"
else
  note "gemm --bench"
  "$GEMMBIN" --bench --tune --tune-cache "$OUT/gemm_tune.txt" --runs "${GEMM_RUNS:-30}" \
    --warmup "${GEMM_WARMUP:-10}" ${GEMM_SHAPES:+--shapes "$GEMM_SHAPES"} --out "$OUT/gemm_bench.md" --csv "$OUT/gemm_bench.csv" --skip-code 77 > "$OUT/gemm_bench.log" 2>&1
  rc=$?
  if [ $rc -eq 77 ]; then
    fail "gemm bench" "no CUDA device seen" "gemm_bench.log"
  elif [ $rc -eq 0 ]; then
    if grep -q 'not built' "$OUT/gemm_bench.md"; then
      fail "gemm bench" "cuBLAS measured; the .tile GEMM not built (no gemm_*.ptx in the bundle)" "gemm_bench.md"
    else
      row "gemm bench" "ok, all checked against cuBLAS" "gemm_bench.md"
    fi
  else
    fail "gemm bench" "$(grep -c 'PROBLEM' "$OUT/gemm_bench.log") problem line(s); tail: $(tail -1 "$OUT/gemm_bench.log")" "gemm_bench.log"
  fi
  if [ -s "$OUT/gemm_bench.csv" ]; then
    if python3 "$ROOT/samples/gemm/plot.py" "$OUT/gemm_bench.csv" -o "$OUT/gemm_tflops.png" \
         > "$OUT/gemm_plot.log" 2>&1 && [ -f "$OUT/gemm_tflops.png" ]; then
      row "gemm plot" "ok" "gemm_tflops.png"
    else
      row "gemm plot" "not drawn: $(tail -1 "$OUT/gemm_plot.log")" "gemm_plot.log"
    fi
  fi
fi

# sanitizer_errors LOG -> number of errors compute-sanitizer reported
sanitizer_errors() {
  awk '/ERROR SUMMARY: [0-9]+ error/ { for (i = 1; i < NF; ++i) if ($i == "SUMMARY:") n += $(i + 1) }
       /RACECHECK SUMMARY: [0-9]+ hazard/ { if (match($0, /\(([0-9]+) error/)) n += substr($0, RSTART + 1, RLENGTH - 7) }
       END { print n + 0 }' "$1"
}


# ---------------------------------------------------------------- 4b. samples/ring_gemm on 2 GPUs
# One process per GPU through tilec-run. With RING_ONLY=1 the ring's
# multi_device ctests (against NCCL all-gather + cuBLAS: the benchmark shape and
# 512x768x2112, f16 and bf16, 256^3, 4 clusters; step 3b runs them otherwise),
# then the benchmark (the table of docs/perf/ring_gemm.md) and memcheck of
# both ranks on the 256^3 shape.
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
RINGBIN=$BUILD/bin/ring_gemm
RUNNER=$BUILD/bin/tilec-run
if [ "$GEMM_ONLY" = 1 ]; then
  :
elif [ "${NGPU:-0}" -lt 2 ]; then
  row "ring gemm (2 GPUs)" "skipped: ${NGPU:-0} GPU(s) here (run on nvidia-h200-x2)" "-"
elif [ ! -x "$RINGBIN" ] || [ ! -x "$RUNNER" ]; then
  fail "ring gemm (2 GPUs)" "ring_gemm or tilec-run not built" "build.log"
else
  if [ "$RING_ONLY" = 1 ]; then  # else step 3b ran every multi_device test, the ring's too
    note "ctest -L multi_device -R ring_gemm"
    ctest --test-dir "$BUILD" -L multi_device ${CTEST_FILTER[@]+"${CTEST_FILTER[@]}"} ${MULTI_EXCLUDE[@]+"${MULTI_EXCLUDE[@]}"} --output-on-failure --timeout 300 > "$OUT/ctest_multi_device_ring.log" 2>&1
    rc=$?
    ctest_counts "$OUT/ctest_multi_device_ring.log"
    if [ "$CT_TOTAL" -eq 0 ]; then
      fail "ctest multi_device ring" "no ring_gemm multi_device tests ran" "ctest_multi_device_ring.log"
    elif [ $rc -ne 0 ] || [ "$CT_FAIL" -ne 0 ] || [ "$CT_SKIP" -ne 0 ]; then
      # a skip with 2 GPUs means a device or the ring's PTX was missing: a failure here
      fail "ctest multi_device ring" "$COUNTS" "ctest_multi_device_ring.log"
    else
      row "ctest multi_device ring" "$COUNTS" "ctest_multi_device_ring.log"
    fi
  fi
  if [ "${SKIP_BENCH:-0}" = 1 ]; then
    row "ring gemm bench" "skipped (SKIP_BENCH=1)" "-"
  else
    note "tilec-run -n 2 ring_gemm --bench"
    "$RUNNER" -n 2 "$RINGBIN" --bench --shapes 1024x4096x4096,2048x4096x4096 --runs 30 --warmup 10 \
      --out "$OUT/ring_gemm_bench.md" \
      > "$OUT/ring_gemm_bench.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && ! grep -q 'not built' "$OUT/ring_gemm_bench.md" 2>/dev/null; then
      row "ring gemm bench" "ok, all checked against NCCL+cuBLAS" "ring_gemm_bench.md"
    elif grep -q 'not built' "$OUT/ring_gemm_bench.md" 2>/dev/null; then
      fail "ring gemm bench" "a .tile kernel not built (no ring_gemm_*.ptx / gemm_*_mc.ptx in the bundle)" "ring_gemm_bench.md"
    else
      fail "ring gemm bench" "exit $rc; $(grep -c 'PROBLEM' "$OUT/ring_gemm_bench.log") problem line(s); tail: $(tail -1 "$OUT/ring_gemm_bench.log")" "ring_gemm_bench.log"
    fi
  fi
  if [ "${SKIP_SANITIZERS:-0}" = 1 ]; then
    row "memcheck ring gemm" "skipped (SKIP_SANITIZERS=1)" "-"
  elif ! command -v compute-sanitizer > /dev/null 2>&1; then
    fail "memcheck ring gemm" "compute-sanitizer not found" "-"
  else
    note "tilec-run -n 2 compute-sanitizer --tool memcheck ring_gemm (256^3)"
    left=$(( TIME_BUDGET - ($(date +%s) - START) - 15 ))
    limit=$(( left < SANITIZER_TIMEOUT ? left : SANITIZER_TIMEOUT ))
    limit=$(( limit < 60 ? 60 : limit ))  # at least a minute
    # --report-api-errors no: ncclCommInitRank probes cudaFuncGetAttributes on
    # kernels its fatbin lacks for this GPU (cudaErrorNoKernelImageForDevice
    # inside libnccl, 3 per rank on the H200s); memcheck still checks every
    # kernel's memory accesses, and tilec's runtime checks its own calls.
    timeout -k 10 "$limit" "$RUNNER" -n 2 compute-sanitizer --tool memcheck --report-api-errors no --print-limit 50 \
      --error-exitcode 99 "$RINGBIN" --check --ms 256 --n 256 --k 256 --dtype f16 --repeat 2 \
      > "$OUT/sanitizer_memcheck_ring_gemm.log" 2>&1
    rc=$?
    errs=$(sanitizer_errors "$OUT/sanitizer_memcheck_ring_gemm.log")
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
      fail "memcheck ring gemm" "timed out after ${limit}s ($errs errors so far)" "sanitizer_memcheck_ring_gemm.log"
    elif [ $rc -ne 0 ] || [ "$errs" -ne 0 ]; then
      fail "memcheck ring gemm" "$errs errors, exit $rc" "sanitizer_memcheck_ring_gemm.log"
    else
      row "memcheck ring gemm" "0 errors (2 ranks, 256^3, 2 launches)" "sanitizer_memcheck_ring_gemm.log"
    fi
  fi
fi

# ---------------------------------------------------------------- 5. sanitizers (each run limited to what is left of TIME_BUDGET)
# The command of every gpu-labelled ctest (one per line, shell-quoted).
gpu_test_commands() {
  if command -v python3 > /dev/null 2>&1 &&
     ctest --test-dir "$BUILD" -L gpu -LE nosanitizer --show-only=json-v1 > "$OUT/gpu_tests.json" 2>/dev/null; then
    python3 - "$OUT/gpu_tests.json" <<'EOF'
import json, shlex, sys
for t in json.load(open(sys.argv[1])).get("tests", []):
    if t.get("command"):
        print(t["name"] + "\t" + " ".join(shlex.quote(a) for a in t["command"]))
EOF
  else
    printf 'gpu.histogram\t%q %q\n' "$BUILD/bin/tilec_gpu_tests" "[histogram]"
    printf 'gpu.runtime_checks\t%q %q\n' "$BUILD/bin/tilec_gpu_tests" "[runtime]"
    printf 'gpu.safety\t%q\n' "$BUILD/bin/safety_test"
    printf 'gpu.launch_bench\t%q\n' "$BUILD/bin/launch_bench"
    printf 'gpu.histogram_sample\t%q --bins 1001 --n 1000003 --cluster 2 --runs 2\n' "$BUILD/bin/histogram"
    printf 'gpu.histogram_sample_c16\t%q --bins 1001 --n 1000003 --cluster 16 --runs 2\n' "$BUILD/bin/histogram"
    printf 'gpu.pingpong\t%q %q\n' "$BUILD/bin/tilec_gpu_tests" "[pingpong]"
    printf 'gpu.arith_semantics\t%q %q\n' "$BUILD/bin/tilec_gpu_tests" "[arith]"
    printf 'gpu.pingpong_sample\t%q --iters 1000 --runs 2\n' "$BUILD/bin/pingpong"
    printf 'gpu.pingpong_debug_hangs\t%q --iters 1000 --runs 2 --ptx %q\n' "$BUILD/bin/pingpong" "$PTX_DIR/pingpong_debug.ptx"
    # samples/kernels: TILEC_KERNELS_READY of samples/kernels/CMakeLists.txt
    for k in vector_add sgemm_smem stencil5; do
      printf 'gpu.kernels_%s\t%q --kernel %s\n' "$k" "$BUILD/bin/kernels" "$k"
    done
    printf 'gpu.kernels_twins\t%q\n' "$BUILD/bin/kernels_bench"
    printf 'gpu.tma_multicast_ref\t%q --steps 256 --tiles 16 --panels 4 --clusters-per-launch 8 --runs 2 --warmup 1\n' "$BUILD/bin/tma_multicast_bench"
    printf 'gpu.rings\t%q %q\n' "$BUILD/bin/tilec_gpu_tests" "[rings]"
    for c in 1 2 4; do
      for v in a b; do
        printf 'gpu.tma_multicast_%s_c%s\t%q --variant %s --cluster %s --steps 256 --tiles 16 --panels 4 --clusters-per-launch 8 --runs 2\n' "$v" "$c" "$BUILD/bin/tma_multicast" "$v" "$c"
      done
    done
    printf 'gpu.gemm_reference\t%q --check --reference-only --m 384 --n 640 --k 2112 --dtype bf16 --bmajor mn\n' "$BUILD/bin/gemm"
    printf 'gpu.gemm_check_512x768x320_bf16_k_multicast_on\t%q --check --m 512 --n 768 --k 320 --dtype bf16 --bmajor k --multicast on\n' "$BUILD/bin/gemm"
    printf 'gpu.gemm_check_768x512x1024_f16_mn_multicast_on\t%q --check --m 768 --n 512 --k 1024 --dtype f16 --bmajor mn --multicast on\n' "$BUILD/bin/gemm"
    # Edge tiles and K tails: the persistent kernel and split-K on a shape of no tile multiple.
    printf 'gpu.gemm_check_77x200x136_f16_k_multicast_on_bn_256\t%q --check --m 77 --n 200 --k 136 --multicast on --bn 256\n' "$BUILD/bin/gemm"
    printf 'gpu.gemm_check_77x200x136_f16_k_splits_3\t%q --check --m 77 --n 200 --k 136 --splits 3\n' "$BUILD/bin/gemm"
    printf 'gpu.gemm_check_130x264x1000_bf16_mn_splits_2\t%q --check --m 130 --n 264 --k 1000 --dtype bf16 --bmajor mn --splits 2\n' "$BUILD/bin/gemm"
  fi
}

if [ "$RING_ONLY" = 1 ]; then
  :  # the ring's memcheck ran in step 4b
elif [ "${SKIP_SANITIZERS:-0}" = 1 ]; then
  row "sanitizers" "skipped (SKIP_SANITIZERS=1)" "-"
elif ! command -v compute-sanitizer > /dev/null 2>&1; then
  fail "sanitizers" "compute-sanitizer not found" "-"
else
  if [ "$GEMM_ONLY" = 1 ]; then
    mapfile -t TESTS < <(gpu_test_commands | grep '^gpu\.gemm')
  else
    mapfile -t TESTS < <(gpu_test_commands)
  fi
  [ ${#TESTS[@]} -gt 0 ] || fail "sanitizers" "no gpu test commands" "-"
  # Order: every test gets one sanitizer before any test gets a second, each
  # test a different tool than its neighbour (round-robin by tool), and the
  # fastest tests first (their plain run time in ctest_gpu.log): when the
  # budget runs out, what is left is the slow tests' second and third tools,
  # and every test and every tool has run on the small shapes. Runs that did
  # not fit are one summary row, by name.
  mapfile -t TESTS < <(
    for entry in "${TESTS[@]}"; do
      name=${entry%%$'\t'*}
      secs=$(grep -E "Test +#[0-9]+: ${name//./\\.} \\.+" "$OUT/ctest_gpu.log" 2>/dev/null |
             sed -nE 's/.* ([0-9]+\.[0-9]+) sec.*/\1/p' | tail -1)
      printf '%s\t%s\n' "${secs:-99999}" "$entry"
    done | sort -s -t $'\t' -k1,1g | cut -f2-)
  TOOLS=(memcheck racecheck synccheck)
  NOT_RUN=()
  for pass in 0 1 2; do
    for i in "${!TESTS[@]}"; do
      entry=${TESTS[$i]}
      tool=${TOOLS[$(( (i + pass) % 3 ))]}
      name=${entry%%$'\t'*}
      cmd=${entry#*$'\t'}
      log="sanitizer_${tool}_${name}.log"
      left=$(( TIME_BUDGET - ($(date +%s) - START) - 15 ))
      limit=$(( left < SANITIZER_TIMEOUT ? left : SANITIZER_TIMEOUT ))
      if [ $limit -lt 10 ]; then
        NOT_RUN+=("$tool $name")
        continue
      fi
      note "compute-sanitizer --tool $tool $name"
      eval "argv=($cmd)"
      (cd "$BUILD" && TILEC_GPU_TEST_SMALL=1 timeout -k 10 "$limit" \
         compute-sanitizer --tool "$tool" --print-limit 50 --error-exitcode 99 "${argv[@]}") \
         > "$OUT/$log" 2>&1
      rc=$?
      errs=$(sanitizer_errors "$OUT/$log")
      if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        fail "$tool $name" "timed out after ${limit}s ($errs errors so far)" "$log"
      elif [ $rc -ne 0 ] || [ "$errs" -ne 0 ]; then
        fail "$tool $name" "$errs errors, exit $rc" "$log"
      else
        row "$tool $name" "0 errors" "$log"
      fi
    done
  done
  if [ ${#NOT_RUN[@]} -gt 0 ]; then
    fail "sanitizers not run" "TIME_BUDGET=${TIME_BUDGET}s used up before ${#NOT_RUN[@]} run(s): $(IFS=,; echo "${NOT_RUN[*]}" | sed 's/,/, /g') (raise TIME_BUDGET)" "-"
  fi
fi

# ---------------------------------------------------------------- summary (last)
{
  echo
  # The bundle names the commit its PTX was built from; a copied work tree's
  # .git may name an older one.
  commit=$(sed -n 's/^commit //p' "$BUNDLE/BUNDLE.txt" 2>/dev/null | head -1)
  echo "## gpu_run summary ($(date -u '+%Y-%m-%d %H:%M UTC'), $(elapsed), commit ${commit:-$(git rev-parse --short HEAD 2>/dev/null || echo ?)})"
  echo
  echo "| step | result | log |"
  echo "|---|---|---|"
  for r in "${ROWS[@]}"; do
    IFS='|' read -r a b c <<< "$r"
    echo "| $a | $b | $c |"
  done
  if [ -f "$OUT/histogram_bench.md" ]; then
    echo
    grep -E '^\||^- best|^- PROBLEM' "$OUT/histogram_bench.md"
  fi
  if [ -f "$OUT/pingpong_bench.md" ]; then
    echo
    grep -E '^\||^- NOT RUN|^- PROBLEM' "$OUT/pingpong_bench.md"
  fi
  if [ -f "$OUT/kernels_bench.md" ]; then
    echo
    grep -E '^\||^- PROBLEM|^- WAITING' "$OUT/kernels_bench.md"
  fi
  if [ -f "$OUT/tma_multicast_bench.md" ]; then
    echo
    grep -E '^\||^- C =|^- PROBLEM' "$OUT/tma_multicast_bench.md"
  fi
  if [ -f "$OUT/gemm_bench.md" ]; then
    echo
    grep -E '^\||^- physical|^- compile time|^- PROBLEM' "$OUT/gemm_bench.md"
  fi
  if [ -f "$OUT/ring_gemm_bench.md" ]; then
    echo
    grep -E '^\||^- .* model|^- PROBLEM' "$OUT/ring_gemm_bench.md"
  fi
  echo
  if [ $FAILED -eq 0 ]; then echo "gpu_run: ALL OK (logs in $OUT)"; else echo "gpu_run: FAILURES (logs in $OUT)"; fi
} | tee "$OUT/summary.md"
exit $FAILED
