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
  for dBᵀ = dCᵀ A) is column-major and no kernel reads A that way. The copy
  is chosen so that the gradient comes out in B's own layout (autograd would
  otherwise copy it once more to match the parameter): a row-major B gets
  dB = (Aᵀ copied) dC, a column-major B (an nn.Linear weight is that B
  transposed) dBᵀ = (dCᵀ copied) A. The copied operand's rows are M long: a
  ragged M (not a multiple of 8, which TMA's 16-byte row strides need) pads
  both operands of that GEMM with zero rows of the reduction, which add 0.
A batch folded into M in the forward (b one matrix) makes dB one GEMM whose
reduction runs over the whole batch; broadcast batch dims are summed after.

linear's y = act(x wᵀ + bias): dz = dy ∘ act'(z), dx = dz w, dw = dzᵀ x (w
row-major [N, K]: dz copied transposed), dbias = dz summed over rows (torch's
sum: f32 accumulation, one rounding). relu's derivative reads the output
(y > 0, as torch's relu backward does), so relu stays fused in the forward.
gelu, gelu_tanh and silu need the pre-activation z, which the fused kernel
does not write: under autograd linear runs the GEMM without the activation
(z, bias fused) and the activation in torch (ops.py, linear), whose
backward is torch's.

Every GEMM here is tilec.ops.matmul (f32 accumulation, one rounding to the
inputs' dtype); each input gets a gradient only if it requires one."""

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


def _reduce_over_rows(x, dy, x_first):
    """xᵀ dy (x [..., R, K], dy [..., R, N] -> [..., K, N]) when x_first,
    else dyᵀ x ([..., N, K]): one GEMM reducing over the R rows, the first
    operand copied transposed, both padded to whole 8-row groups."""
    first, second = (x, dy) if x_first else (dy, x)
    if first.numel() == 0 or second.numel() == 0:  # no rows, or an empty result
        return first.new_zeros(*first.shape[:-2], first.shape[-1], second.shape[-1])
    rp = _padded_rows(x.shape[-2])
    return _gemm(_transposed(first, rp), _pad_rows(second, rp))


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
        b_row_major = _row_major(b)
        if b.dim() == 2 or b.shape[:-2].numel() == 1:
            # One matrix b (the forward folded a's batch into M, or it is
            # broadcast): one GEMM reducing over every row of every batch.
            a2 = a.expand(*dc.shape[:-2], *a.shape[-2:]).reshape(-1, k)
            d = _reduce_over_rows(a2, dc.reshape(-1, n), b_row_major)
        else:
            a_full = a.expand(*dc.shape[:-2], *a.shape[-2:])
            d = _reduce_over_rows(a_full, dc, b_row_major)
        db = _sum_to(d if b_row_major else d.transpose(-1, -2), b.shape)
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
    dz = dy if y is None else torch.ops.aten.threshold_backward(dy, y, 0)
    dz = dz.contiguous().view(-1, n)
    dx = dw = dbias = None
    if need_x:
        # dz w: w [N, K] is the kernel's B, MN-major (a column-major w:
        # K-major); no copy.
        dx = _gemm(dz, w).view(x.shape)
    if need_w:
        x2 = x.reshape(-1, k)
        if _row_major(w):  # dw = dzᵀ x: dz copied transposed
            dw = _reduce_over_rows(x2, dz, False)
        else:  # a column-major w: dwᵀ = xᵀ dz, x copied transposed
            dw = _reduce_over_rows(x2, dz, True).t()
    if need_bias and ctx.has_bias:
        dbias = dz.sum(0)
    return dx, dw, dbias, None
