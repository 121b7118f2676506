#!/usr/bin/env bash
# Runs on the development machine (MLIR, no GPU). Builds tilec and every sample's
# PTX, then fills .gpu/ (git-ignored) with what the GPU machine cannot make itself:
#   .gpu/ptx/*.ptx               the samples' PTX (from build/ptx), ptxas-checked here:
#                                histogram, ping-pong, the GPU tests' kernels and
#                                samples/kernels' ready .tile files (kernels_<name>.ptx)
#   .gpu/ptx/*.info.json         each PTX's kernel info (tilec --emit=info), which the
#                                host programs load beside it (tile::Module::fromFiles)
#   .gpu/ptx/{user,softmax,...}  the Python package's test modules (python_ptx.sh)
#   .gpu/ptx/ops/*.ptx           every instance tilec.ops.linear can pick with an
#                                activation (ACT > 0; tools/scripts/ops_ptx.py --all), in
#                                files of the samples' names; the python.gpu_activation
#                                ctest reads them ($TILEC_OPS_PTX_DIR)
#   .gpu/ptx/*_compile_time.txt  tilec compile times measured here (samples/gemm:
#                                gemm_compile_time.txt; the GEMM bench prints it)
#   .gpu/catch2/catch2/catch.hpp Catch2 2.x single header for the GPU tests
# Then carry .gpu to the GPU machine and run tools/scripts/gpu_run.sh OUTDIR there.
#
#   tools/scripts/make_gpu_bundle.sh          (JOBS=N for ninja -jN; CATCH2_HPP=path)
set -euo pipefail
cd "$(dirname "$0")/../.."
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CATCH2_HPP=${CATCH2_HPP:-/usr/include/catch2/catch.hpp}
JOBS=${JOBS:-}

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$CUDA_HOME"
fi
# tilec_python: ops_ptx.py asks the extension's rule table for the instances.
ninja -C build ${JOBS:+-j"$JOBS"} sample_ptx ptx_gemm_compile_time tilec_python

shopt -s nullglob
ptx=(build/ptx/*.ptx)
if [ ${#ptx[@]} -eq 0 ]; then
  echo "make_gpu_bundle: error: no PTX in build/ptx after 'ninja sample_ptx'" >&2
  exit 1
fi
for f in "${ptx[@]}"; do
  if [ ! -f "${f%.ptx}.info.json" ]; then
    echo "make_gpu_bundle: error: $f has no kernel info ${f%.ptx}.info.json after 'ninja sample_ptx'" >&2
    exit 1
  fi
done
if [ ! -f "$CATCH2_HPP" ]; then
  echo "make_gpu_bundle: error: $CATCH2_HPP not found (apt-get install catch2, or set CATCH2_HPP)" >&2
  exit 1
fi

rm -rf .gpu/ptx .gpu/catch2
mkdir -p .gpu/ptx .gpu/catch2/catch2
cp "${ptx[@]}" .gpu/ptx/
for f in "${ptx[@]}"; do cp "${f%.ptx}.info.json" .gpu/ptx/; done
times=(build/ptx/*_compile_time.txt)
[ ${#times[@]} -eq 0 ] || cp "${times[@]}" .gpu/ptx/
gemm_ptx=(build/ptx/gemm_*.ptx)
if [ ${#gemm_ptx[@]} -eq 0 ]; then
  echo "make_gpu_bundle: error: no gemm_*.ptx after 'ninja sample_ptx'" >&2
  exit 1
fi
# samples/ring_gemm and samples/ring_gemm_rs: the bundle must carry both dtypes
# of each ring (gpu_run.sh's RING_ONLY=1 and step 4b, rings_gpu_run.sh).
if [ -f samples/ring_gemm/ring_gemm.tile ]; then
  for d in f16 bf16; do
    for k in ring_gemm ring_gemm_ce; do
      if [ ! -f build/ptx/${k}_$d.ptx ]; then
        echo "make_gpu_bundle: error: no ${k}_$d.ptx after 'ninja sample_ptx'" >&2
        exit 1
      fi
    done
  done
fi
if [ -f samples/ring_gemm_rs/ring_gemm_rs.tile ]; then
  for d in f16 bf16; do
    for k in ring_gemm_rs ring_gemm_rs_ce; do
      if [ ! -f build/ptx/${k}_$d.ptx ]; then
        echo "make_gpu_bundle: error: no ${k}_$d.ptx after 'ninja sample_ptx'" >&2
        exit 1
      fi
    done
  done
fi
cp "$CATCH2_HPP" .gpu/catch2/catch2/catch.hpp
# The Python package's GPU tests (ctest python.gpu reads $TILEC_PTX_DIR, this
# subfolder there): their modules, compiled here as tools/scripts/python_ptx.sh
# does. A folder of their own: gemm_f16_mc, ring_gemm_f16 and others are
# samples' names too, with other instances.
TILEC=build/bin/tilec bash tools/scripts/python_ptx.sh .gpu/ptx/python > /dev/null
# linear's activations (ACT > 0; the samples' build compiles ACT = 0 only):
# the GPU machine has no tilec to compile them on first use. A folder of
# their own, as the samples' names hold the ACT = 0 instances.
python3 tools/scripts/ops_ptx.py .gpu/ptx/ops --all --tilec build/bin/tilec > /dev/null

# The GPU machine JITs this PTX; catch assembler errors here, where tilec lives.
bad=0
# (ptx/ops is not assembled again: every module there has wgmma, and tilec's
# default wgmma check has assembled it with this ptxas, failing on an error.)
for f in .gpu/ptx/*.ptx .gpu/ptx/python/*.ptx; do
  if ! "$CUDA_HOME/bin/ptxas" -arch=sm_90a "$f" -o /dev/null 2>"/tmp/make_gpu_bundle.$$.err"; then
    echo "make_gpu_bundle: ptxas rejects $f:" >&2
    cat "/tmp/make_gpu_bundle.$$.err" >&2
    bad=1
  fi
done
rm -f "/tmp/make_gpu_bundle.$$.err"

{
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty)')"
  echo "made $(date -u '+%Y-%m-%d %H:%M UTC')"
  ls .gpu/ptx
} > .gpu/BUNDLE.txt

echo "make_gpu_bundle: .gpu/ptx: ${#ptx[@]} PTX files ($(ls .gpu/ptx | tr '\n' ' '))"
echo "make_gpu_bundle: .gpu/catch2/catch2/catch.hpp from $CATCH2_HPP"
echo "next: on the GPU machine (carry .gpu):  bash tools/scripts/gpu_run.sh \$OUT"
exit $bad
