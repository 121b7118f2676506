"""The backward passes of tilec.ops.matmul and tilec.ops.linear (torch.library
register_autograd of tilec::matmul and tilec::linear), through tilec's own
GEMMs.

C = A B (A [..., M, K], B [..., K, N]) has dA = dC Bᵀ and dB = Aᵀ dC. The
GEMM kernels read A row-major (K-major) only and B either way (`gemm` K-major,
`gemm_bmn` MN-major; samples/gemm/gemm.tile), so:
- dA = dC Bᵀ runs as it stands: dC row-major is the kernel's A, Bᵀ is B read
  in the other major (a row-major B's Bᵀ is K-major, a column-major one's
  MN-major), no copy.
- dB needs one operand transposed in memory, since its A operand (Aᵀ, or dCᵀ
  for dBᵀ = dCᵀ A) is column-major and no kernel reads A that way: dB =
  (Aᵀ copied) dC comes out row-major, dB = ((dCᵀ copied) A)ᵀ column-major.
  The form that moves fewer elements runs: the copy (M K or M N), plus K N
  where its result's layout is not B's (autograd copies such a gradient
  once more to B's layout when it accumulates it). The copied operand's
  rows are M long: a ragged M (not a multiple of 8, which TMA's 16-byte row
  strides need) pads both operands of that GEMM with zero rows of the
  reduction, which add 0.
A batch folded into M in the forward (b one matrix) makes dB one GEMM whose
reduction runs over the whole batch; broadcast batch dims are summed after.

linear's y = act(x wᵀ + bias): dz = dy ∘ act'(z), dx = dz w (no copy), dw =
dzᵀ x as dB above (dz or x copied), dbias = dz summed over rows (torch's
sum: f32 accumulation, one rounding). relu's derivative reads the output
(y > 0, as torch's relu backward does), so relu stays fused in the forward.
gelu, gelu_tanh and silu need the pre-activation z, which the fused kernel
does not write: under autograd linear runs the GEMM without the activation
(z, bias fused) and the activation in torch (ops.py, linear), whose
backward is torch's.

Every GEMM here is tilec.ops.matmul (f32 accumulation, one rounding to the
inputs' dtype); each input gets a gradient only if it requires one."""

import math

import torch
import torch.nn.functional as F

try:
    from torch._subclasses.fake_tensor import FakeTensor
    from torch._subclasses.functional_tensor import FunctionalTensor
    _TRACED = (FakeTensor, FunctionalTensor)
except ImportError:  # an older torch: tracing is told by torch.compiler alone
    _TRACED = ()


def _gemm(a, b):
    """a @ b by tilec.ops.matmul: its own call path on real CUDA tensors (no
    custom op dispatch), the custom op while torch traces (fake tensors:
    AOTAutograd tracing the backward under torch.compile) so the graph
    records it."""
    from . import ops
    if torch.compiler.is_compiling() or isinstance(a, _TRACED) or isinstance(b, _TRACED):
        return torch.ops.tilec.matmul(a, b)
    return ops.matmul(a, b)


def _padded_rows(m):
    return (m + 7) // 8 * 8


def _pad_rows(t, mp):
    """t [..., M, X] with zero rows appended to mp rows (row-major result)."""
    m = t.shape[-2]
    return t.contiguous() if mp == m else F.pad(t, (0, 0, 0, mp - m))


def _transposed(t, mp):
    """t [..., M, X] as a row-major [..., X, mp] copy (tᵀ, zero columns
    appended): the kernel's A operand of a reduction over M."""
    m = t.shape[-2]
    tt = t.transpose(-1, -2)
    return tt.contiguous() if mp == m else F.pad(tt, (0, mp - m)).contiguous()


def _row_major(t):
    """Each matrix of t row-major (the last dim contiguous)."""
    m, n = t.shape[-2:]
    return (t.stride(-1) == 1 or n == 1) and (t.stride(-2) == n or m == 1)


def _reduce_over_rows(first, second):
    """firstᵀ second (first [..., R, P], second [..., R, Q] -> [..., P, Q]):
    one GEMM reducing over the R rows, first copied transposed, both padded
    to whole 8-row groups."""
    if first.numel() == 0 or second.numel() == 0:  # no rows, or an empty result
        return first.new_zeros(*first.shape[:-2], first.shape[-1], second.shape[-1])
    rp = _padded_rows(first.shape[-2])
    return _gemm(_transposed(first, rp), _pad_rows(second, rp))


def _transposed_product(x, d, row_major):
    """xᵀ d (x [..., R, P], d [..., R, Q] -> [..., P, Q]), a weight's
    gradient, for an input whose matrices are row-major or not: xᵀ d copies
    x transposed and comes out row-major, (dᵀ x)ᵀ copies d and comes out
    column-major. The form that moves fewer elements runs, counting the copy
    autograd makes of a gradient whose layout is not its input's."""
    pq = x.shape[-1] * d.shape[-1] * (x.numel() // max(1, x.shape[-2] * x.shape[-1]))
    copy_x = x.numel() + (0 if row_major else pq)
    copy_d = d.numel() + (pq if row_major else 0)
    if copy_x <= copy_d:
        return _reduce_over_rows(x, d)
    return _reduce_over_rows(d, x).transpose(-1, -2)


def _sum_to(g, shape):
    """g summed over the batch dims it was broadcast along to `shape` (size-1
    leading dims of `shape` that g lacks added back)."""
    if tuple(g.shape) == tuple(shape):
        return g
    if g.dim() < len(shape):
        g = g.reshape((1,) * (len(shape) - g.dim()) + tuple(g.shape))
    return g.sum_to_size(shape)


# ------------------------------------------------------------------ matmul


def matmul_setup(ctx, inputs, output):
    a, b = inputs
    ctx.save_for_backward(a, b)


def matmul_backward(ctx, dc):
    a, b = ctx.saved_tensors
    need_a, need_b = ctx.needs_input_grad[:2]
    da = db = None
    dc = dc.contiguous()
    if need_a:
        # dC Bᵀ: Bᵀ is the kernel's B in the other major; no copy.
        da = _sum_to(_gemm(dc, b.transpose(-1, -2)), a.shape)
    if need_b:
        k, n = b.shape[-2:]
        if b.dim() == 2 or b.shape[:-2].numel() == 1:
            # One matrix b (the forward folded a's batch into M, or it is
            # broadcast): one GEMM reducing over every row of every batch.
            a_rows = a.expand(*dc.shape[:-2], *a.shape[-2:]).reshape(-1, k)
            d = _transposed_product(a_rows, dc.reshape(-1, n), _row_major(b))
        else:
            d = _transposed_product(a.expand(*dc.shape[:-2], *a.shape[-2:]), dc, _row_major(b))
        db = _sum_to(d, b.shape)
    return da, db


# ------------------------------------------------------------------ linear


def linear_setup(ctx, inputs, output):
    x, w, bias, activation = inputs
    # relu's derivative is read from the output (y > 0); the other
    # activations never reach this op under autograd (ops.linear).
    ctx.save_for_backward(x, w, output if activation == "relu" else None)
    ctx.has_bias = bias is not None


def linear_backward(ctx, dy):
    x, w, y = ctx.saved_tensors
    need_x, need_w, need_bias = ctx.needs_input_grad[:3]
    n, k = w.shape
    m = math.prod(x.shape[:-1])
    dz = dy if y is None else torch.ops.aten.threshold_backward(dy, y, 0)
    dz = dz.contiguous().reshape(m, n)
    dx = dw = dbias = None
    if need_x:
        # dz w: w [N, K] is the kernel's B, MN-major (a column-major w:
        # K-major); no copy.
        dx = _gemm(dz, w).view(x.shape)
    if need_w:  # dzᵀ x
        dw = _transposed_product(dz, x.reshape(m, k), _row_major(w))
    if need_bias and ctx.has_bias:
        dbias = dz.sum(0)
    return dx, dw, dbias, None
