"""How tilec.ops.matmul and tilec.ops.linear reach the 2-D GEMM: the
shapes torch.matmul and torch.nn.functional.linear take, checked and turned
into GEMMs of a [M, K] rows by b [K, N], with each refusal naming the
argument, both shapes and what is supported.

- linear: input [..., K] (contiguous) is one GEMM of M = prod(leading dims)
  rows; weight [N, K] is B K-major as stored; y is [..., N].
- matmul with one matrix b ([K, N], or a batch of one: [1, ..., K, N]) and
  a contiguous a [..., M, K]: the batch folds into M (one GEMM of all of
  a's rows).
- matmul otherwise: torch.matmul's broadcast of the batch dims, and one
  launch of the same GEMM per matrix of c, at each operand's offset (its
  batch strides; 0 along a broadcast dim). Each matrix of a must be
  row-major and each of b row- or column-major.
"""

import math

from ._ops_kernels import OpArgumentError, OpTypeError, View, is_torch


class GemmShapes:
    """m, n, k of the GEMM; c_shape; batched (launches per matrix), with
    the element offsets of each launch's a, b and c matrices."""

    __slots__ = ("m", "n", "k", "c_shape", "batched", "a_offsets", "b_offsets", "c_offsets")

    def __init__(self, m, n, k, c_shape, offsets=None):
        self.m, self.n, self.k, self.c_shape = m, n, k, tuple(c_shape)
        self.batched = offsets is not None
        self.a_offsets, self.b_offsets, self.c_offsets = offsets or ((), (), ())

    @property
    def launches(self):
        return len(self.c_offsets) if self.batched else 1


def _dims(shape):
    return list(shape)


def _broadcast(op, aa, ba, a_batch, b_batch):
    """torch's broadcast of two batch shapes, or a refusal naming both."""
    out = []
    for i in range(max(len(a_batch), len(b_batch))):
        x = a_batch[len(a_batch) - 1 - i] if i < len(a_batch) else 1
        y = b_batch[len(b_batch) - 1 - i] if i < len(b_batch) else 1
        if x != y and x != 1 and y != 1:
            raise OpArgumentError(
                f"tilec.ops.{op}: a is {_dims(aa.shape)} and b {_dims(ba.shape)}: their batch "
                f"dims {_dims(a_batch)} and {_dims(b_batch)} do not broadcast (each pair of "
                f"extents must be equal or one of them 1, as torch.matmul asks)")
        out.append(max(x, y) if min(x, y) != 0 else 0)
    return tuple(reversed(out))


def _offsets(batch, shape, strides):
    """The element offset of each matrix of `batch` (row-major order) in an
    operand of `shape` and `strides` broadcast to it (0 along a broadcast dim)."""
    lead = len(batch) - (len(shape) - 2)
    st = [0] * lead + [0 if d == 1 else s for d, s in zip(shape[:-2], strides[:-2])]
    offs = [0]
    for extent, stride in zip(batch, st):
        offs = [o + i * stride for o in offs for i in range(extent)]
    return offs


def _rows_major(a):
    """a's matrices are row-major [M, K] (any batch strides)."""
    m, k = a.shape[-2:]
    return (a.strides[-1] == 1 or k == 1) and (a.strides[-2] == k or m == 1)


def matmul_shapes(aa, ba):
    op = "matmul"
    for x in (aa, ba):
        if len(x.shape) < 2:
            raise OpArgumentError(
                f"tilec.ops.{op}: argument '{x.name}' has shape {_dims(x.shape)}: tilec.ops."
                f"matmul takes matrices and batches of them (a [..., M, K], b [..., K, N]); a "
                f"vector is {x.name}.unsqueeze({0 if x.name == 'a' else -1}) and back")
    m, k = aa.shape[-2:]
    k2, n = ba.shape[-2:]
    if k2 != k:
        raise OpArgumentError(f"tilec.ops.{op}: a is {_dims(aa.shape)} and b {_dims(ba.shape)}: "
                              f"a's columns (K = {k}) must be b's rows ({k2})")
    a_batch, b_batch = tuple(aa.shape[:-2]), tuple(ba.shape[:-2])
    c_batch = _broadcast(op, aa, ba, a_batch, b_batch)
    c_shape = c_batch + (m, n)
    if math.prod(b_batch) == 1 and math.prod(a_batch) == math.prod(c_batch) and (
            aa.contiguous() or not m * k * math.prod(a_batch)):
        # One matrix b and a contiguous a: the batch is rows of a, one GEMM.
        return GemmShapes(math.prod(a_batch) * m, n, k, c_shape)
    if m * k and math.prod(c_batch) and not _rows_major(aa):
        raise OpArgumentError(f"tilec.ops.{op}: argument 'a' (shape {_dims(aa.shape)}, strides "
                              f"{list(aa.strides)}): each matrix must be row-major (the kernel "
                              f"reads A's rows by TMA); pass a.contiguous()")
    count = math.prod(c_batch)
    return GemmShapes(m, n, k, c_shape,
                      (_offsets(c_batch, aa.shape, aa.strides),
                       _offsets(c_batch, ba.shape, ba.strides),
                       [i * m * n for i in range(count)]))


def linear_shapes(xa, wa, ba):
    op = "linear"
    if len(wa.shape) != 2:
        raise OpArgumentError(f"tilec.ops.{op}: argument 'weight' has shape {_dims(wa.shape)}: "
                              f"it is [N, K] = [out_features, in_features]")
    n, k = wa.shape
    if len(xa.shape) < 1 or xa.shape[-1] != k:
        raise OpArgumentError(f"tilec.ops.{op}: input is {_dims(xa.shape)} and weight "
                              f"{_dims(wa.shape)}: input's last dim must be weight's in_features "
                              f"(K = {k})")
    if ba is not None and tuple(ba.shape) != (n,):
        raise OpArgumentError(f"tilec.ops.{op}: argument 'bias' has shape {_dims(ba.shape)} and "
                              f"weight {_dims(wa.shape)}: bias is [N] = [{n}] (weight's "
                              f"out_features)")
    m = math.prod(xa.shape[:-1])
    if m and k and not xa.contiguous():
        raise OpArgumentError(f"tilec.ops.{op}: argument 'input' (shape {_dims(xa.shape)}, "
                              f"strides {list(xa.strides)}) is not contiguous: its leading dims "
                              f"fold into the GEMM's rows, read by TMA; pass input.contiguous()")
    if ba is not None and n and not ba.contiguous():
        raise OpArgumentError(f"tilec.ops.{op}: argument 'bias' (strides {list(ba.strides)}) "
                              f"is not contiguous: pass bias.contiguous()")
    return GemmShapes(m, n, k, tuple(xa.shape[:-1]) + (n,))


def b_major(op, ba, k, n, name="b"):
    """'k' when b [K, N] is column-major (b.t() contiguous: [N, K] rows, an
    nn.Linear weight's .t()), 'mn' when row-major, else a refusal (the last
    two dims: each matrix of a batch)."""
    ks, ns = ba.strides[-2:]
    if ns == 1 and (ks == n or k == 1):
        return "mn"
    if ks == 1 and (ns == k or n == 1):
        return "k"
    fix = (f"{name}.contiguous()" if name == "b" else
           f"{name}.contiguous() (an [N, K] row-major weight)")
    raise OpArgumentError(
        f"tilec.ops.{op}: argument '{name}' (shape {_dims(ba.shape)}, strides "
        f"{list(ba.strides)}) is neither row-major nor column-major: pass {fix}")


def gemm_dtypes(op, *args):
    """Every argument float16 or bfloat16, all one of them."""
    for x in args:
        if x.dtype not in ("f16", "bf16"):
            raise OpTypeError(f"tilec.ops.{op}: argument '{x.name}' has dtype {x.dtype}; the "
                              f"kernel takes float16 or bfloat16 (fp8: tilec.ops.scaled_mm)")
    first = args[0]
    for x in args[1:]:
        if x.dtype != first.dtype:
            raise OpTypeError(f"tilec.ops.{op}: {first.name} is {first.dtype} and {x.name} "
                              f"{x.dtype}: they must be one dtype (convert {x.name} to "
                              f"{first.name}'s)")


def broadcast_bias(c, bias, m, n, activation=None):
    """K = 0: input @ weight.T is zeros, so linear's result is the bias in
    every row (through the activation, computed in f32 as the epilogue
    does, by torch's own functions: no kernel runs)."""
    if is_torch(c):
        if activation is not None:
            bias = torch_activation(bias.float(), activation).to(c.dtype)
        return c.view(m, n).copy_(bias.expand(m, n)).view(c.shape)
    raise OpArgumentError("tilec.ops.linear: K = 0 with a bias needs torch tensors (the "
                          "result is the bias broadcast over the rows)")


def torch_activation(t, activation):
    """linear's activation (not None) by torch's function of that name, on
    t's dtype (torch computes a float16 or bfloat16 one in f32 and rounds
    once) and differentiable: torch's backward."""
    import torch.nn.functional as F
    return (F.relu(t) if activation == "relu" else
            F.gelu(t) if activation == "gelu" else
            F.gelu(t, approximate="tanh") if activation == "gelu_tanh" else
            F.silu(t))


def rows_view(x, rows, cols):
    """x (contiguous: checked) as a [rows, cols] view of all its elements,
    no copy (as torch's view, which refuses another count)."""
    if tuple(x.shape) == (rows, cols):
        return x
    if math.prod(x.shape) != rows * cols:
        raise ValueError(f"a [{rows}, {cols}] view of an array of shape {_dims(x.shape)}")
    return x.view(rows, cols) if is_torch(x) else View(x, (rows, cols))


def matrix_view(x, offset, rows, cols):
    """The [rows, cols] row-major matrix at element `offset` of x's storage
    (a launch reads its address only)."""
    if is_torch(x):
        return x.as_strided((rows, cols), (cols, 1), x.storage_offset() + offset)
    return View(x, (rows, cols), offset)
