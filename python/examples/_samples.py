"""Where the examples get their kernels: compiled from the repository's .tile
sources by tilec.compile (cached), or, on a machine without the compiler
(no MLIR), loaded from PTX + kernel info built elsewhere into $TILEC_PTX_DIR
(tools/scripts/make_gpu_bundle.sh writes them)."""

import os

import tilec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sample_module(tile, ptx_name, **compile_options):
    """`tile`: a path under the repository; `ptx_name`: the prebuilt PTX's file
    name in $TILEC_PTX_DIR (its .info.json beside it)."""
    ptx_dir = os.environ.get("TILEC_PTX_DIR")
    if ptx_dir and os.path.exists(os.path.join(ptx_dir, ptx_name)):
        return tilec.load(os.path.join(ptx_dir, ptx_name))
    return tilec.compile(os.path.join(ROOT, tile), **compile_options)
