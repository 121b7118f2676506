#!/usr/bin/env bash
# Writes the PTX and kernel info the Python package's GPU tests, examples and
# benchmark load where there is no compiler (tools/scripts/gpu_python.sh):
#   tools/scripts/python_ptx.sh DIR   (TILEC=path/to/tilec, default build/bin/tilec)
set -euo pipefail
DIR=${1:?usage: python_ptx.sh DIR}
cd "$(dirname "$0")/../.."
TILEC=${TILEC:-build/bin/tilec}
mkdir -p "$DIR"
emit() { # name source args...
  local name=$1 src=$2
  shift 2
  "$TILEC" "$src" "$@" -o "$DIR/$name.ptx"
  "$TILEC" "$src" "$@" --emit=info -o "$DIR/$name.info.json"
}
emit safety tests/gpu/safety.tile
emit fp8_conversions tests/gpu/fp8.tile
emit histogram samples/histogram/histogram.tile
emit histogram_c16 samples/histogram/histogram.tile --cluster=16
emit gemm_f16_mc samples/gemm/gemm.tile -D T=f16 -D BN=256,128 -D gemm_splitk.BN=128 -D gemm_splitk.S=6 -D gemm_splitk.NB=1 -D gemm_splitk_bmn.BN=128 -D ACT=0
emit gemm_f16_nomc samples/gemm/gemm.tile -D T=f16 -D BN=256,128 -D gemm_splitk.BN=128 -D gemm_splitk.S=6 -D gemm_splitk.NB=1 -D gemm_splitk_bmn.BN=128 -D ACT=0 --cluster=1
emit ring_gemm_f16 samples/ring_gemm/ring_gemm.tile -D T=f16 -D BN=256
emit user python/tests/user.tile -D T=f16,bf16,f32,i32
emit softmax samples/kernels/softmax.tile
emit attention_user_f16 samples/attention/attention.tile -D 'attention<f16, 128, false, 2, 176, 0>' \
  -D 'attention<f16, 128, true, 2, 128, 0>'
ls "$DIR"
