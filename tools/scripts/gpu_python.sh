#!/usr/bin/env bash
# The Python package on the GPU machine (no MLIR there: the PTX comes built).
#   TILEC_PTX_DIR=DIR tools/scripts/gpu_python.sh OUTDIR
# DIR holds safety, histogram{,_c16}, gemm_f16_{mc,nomc}, ring_gemm_f16, user, softmax and attention_user_f16 PTX with
# their .info.json (tools/scripts/python_ptx.sh DIR writes them where tilec
# is). Builds the extension against this machine's python3 (its torch), the
# C++ GEMM host and launch_bench; then runs, with full logs in OUTDIR:
#   pytest python/tests/test_gpu.py (GEMM, histogram, streams, errors,
#   torch.compile, the ring through torchrun on 2 GPUs) and test_gpu_ops.py
#   (tilec.ops: attention, matmul, scaled_mm; test_gpu_linear.py: linear and
#   batched matmul; the samples' PTX from
#   $TILEC_OPS_PTX_DIR, default DIR's parent: .gpu/ptx of a bundle), the examples, the
#   benchmark (python/examples/bench.py: GEMM device time Python vs C++ in the
#   same run; 20,000-launch overhead beside Triton, torch add_ and the C++
#   launch), and `pip install --no-build-isolation` of the package.
# Logs: build.log, pytest_gpu.log, pytest_gpu_ops.log, pytest_gpu_linear.log,
# pytest_gpu_activation.log (linear's activations, from DIR's parent's ops/), pytest_gpu_grad.log
# (the backward passes), examples.log, ring.log, bench.log,
# bench.json, pip.log. The summary is printed last.
set -uo pipefail
OUT=${1:?usage: gpu_python.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PTX_DIR=${TILEC_PTX_DIR:?set TILEC_PTX_DIR to the folder with the PTX and kernel info}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
BUILD=${BUILD:-$ROOT/build-python-gpu}
PY=${PYTHON:-$(command -v python3)}
export NCCL_NVLS_ENABLE=0 TILEC_PTX_DIR=$PTX_DIR TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-$BUILD/tilec-cache}
summary=()
note() { summary+=("$1"); echo "== $1"; }

{
  "$PY" -c "import sys, torch; print(sys.version); print('torch', torch.__version__, torch.version.cuda, torch.cuda.device_count(), 'GPUs')"
  "$PY" -c "import triton; print('triton', triton.__version__)" || true
  "$PY" -c "import pybind11; print('pybind11', pybind11.__version__)" || true
  nvidia-smi -L || true
} > "$OUT/build.log" 2>&1

if cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTILEC_ENABLE_COMPILER=OFF \
     -DTILEC_PTX_DIR="$PTX_DIR" -DTILEC_PYTHON="$PY" -DCUDAToolkit_ROOT="$CUDA_HOME" \
     >> "$OUT/build.log" 2>&1 &&
   ninja -C "$BUILD" -j"$(nproc)" tilec_python launch_bench gemm >> "$OUT/build.log" 2>&1; then
  note "build: ok ($(grep -m1 'tilec Python package' "$OUT/build.log"))"
else
  note "build: FAILED (tail: $(tail -3 "$OUT/build.log" | tr '\n' ' '))"
  printf '%s\n' "${summary[@]}"
  exit 1
fi
export PYTHONPATH=$BUILD/python
# tilec.ops (test_gpu_ops.py, examples/ops.py) loads the samples' PTX: a
# bundle's .gpu/ptx, after its activation instances (.gpu/ptx/ops).
BUNDLE_PTX=$(dirname "$PTX_DIR")
export TILEC_OPS_PTX_DIR=${TILEC_OPS_PTX_DIR:-$BUNDLE_PTX/ops:$BUNDLE_PTX}

if [ -z "${BENCH_ONLY:-}" ]; then # BENCH_ONLY=1: the build and the benchmark only
"$PY" -m pytest -v -rs -p no:cacheprovider python/tests/test_gpu.py > "$OUT/pytest_gpu.log" 2>&1
note "pytest (GPU): rc $? ($(tail -1 "$OUT/pytest_gpu.log"))"
"$PY" -m pytest -v -rs -p no:cacheprovider python/tests/test_gpu_ops.py > "$OUT/pytest_gpu_ops.log" 2>&1
note "pytest (GPU, tilec.ops): rc $? ($(tail -1 "$OUT/pytest_gpu_ops.log"))"
"$PY" -m pytest -v -rs -p no:cacheprovider python/tests/test_gpu_linear.py > "$OUT/pytest_gpu_linear.log" 2>&1
note "pytest (GPU, tilec.ops linear/bmm): rc $? ($(tail -1 "$OUT/pytest_gpu_linear.log"))"
"$PY" -m pytest -v -rs -p no:cacheprovider python/tests/test_gpu_activation.py > "$OUT/pytest_gpu_activation.log" 2>&1
note "pytest (GPU, linear's activations): rc $? ($(tail -1 "$OUT/pytest_gpu_activation.log"))"
"$PY" -m pytest -v -rs -p no:cacheprovider python/tests/test_gpu_grad.py > "$OUT/pytest_gpu_grad.log" 2>&1
note "pytest (GPU, matmul/linear backward): rc $? ($(tail -1 "$OUT/pytest_gpu_grad.log"))"

for ex in gemm histogram ops; do
  "$PY" python/examples/$ex.py > "$OUT/examples.log.$ex" 2>&1
  note "example $ex: $(tail -1 "$OUT/examples.log.$ex")"
done
{ cat "$OUT"/examples.log.*; rm -f "$OUT"/examples.log.*; } > "$OUT/examples.log"
if [ "$("$PY" -c 'import torch; print(torch.cuda.device_count())')" -ge 2 ]; then
  timeout 300 torchrun --nproc-per-node 2 python/examples/ring_gemm.py > "$OUT/ring.log" 2>&1
  note "ring (torchrun, 2 GPUs): rc $? ($(grep -c PASS "$OUT/ring.log") ranks PASS)"
else
  note "ring: SKIP (fewer than 2 GPUs)"
fi
fi

"$PY" python/examples/bench.py --gemm-bin "$BUILD/bin/gemm" --launch-bench "$BUILD/bin/launch_bench" \
  --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
note "bench: rc $?"
grep -E "^(  |GEMM|tilec launch|tilec.load|launch overhead)" "$OUT/bench.log"

# pip install from the checkout, reusing this build's extension, no network.
[ -n "${BENCH_ONLY:-}" ] && { printf '%s\n' "${summary[@]}"; exit 0; }
rm -rf /tmp/tilec-pip-target
if TILEC_BUILD_DIR=$BUILD "$PY" -m pip install --no-build-isolation --no-deps --no-index \
     --target /tmp/tilec-pip-target "$ROOT/python" > "$OUT/pip.log" 2>&1 &&
   (cd /tmp && PYTHONPATH=/tmp/tilec-pip-target "$PY" -c \
     "import tilec; print('installed tilec', tilec.__file__, tilec.device_count(), 'GPUs')") >> "$OUT/pip.log" 2>&1; then
  note "pip install --no-build-isolation: ok"
else
  note "pip install --no-build-isolation: FAILED (tail: $(tail -2 "$OUT/pip.log" | tr '\n' ' '))"
fi
printf '%s\n' "${summary[@]}"
