"""Random well-typed scalar expression trees for tools/semfuzz, their .tile
text and their value under the reference rules (semfuzz_ref).

A tree's leaves are kernel inputs (`a_<type>_<k>`, run-time values) and
literals; a literal is written bare where a typed operand beside it gives it
its type, else `(V as T)`, else bound by `let` (a name is never a constant
for the checker, while MLIR and LLVM still fold it). Subtrees are bound to
`let`s at random, `var` + `for` loops and `if` statements compute some of
them, so the folded path and the run-time path both see every shape.
"""
import itertools
import math
import random
import struct

import semfuzz_ref as R

INTS = R.INT_TYPES
FLOATS = R.FLOAT_TYPES
SCALARS = INTS + FLOATS          # types with parameters (i1 comes from comparisons)
RESULT_TYPES = SCALARS + ['i1']
NPARAM = 3                       # inputs per type: a_<t>_0 .. a_<t>_2
ARITH = ['+', '-', '*', '/']
INT_ONLY = ['%', '<<', '>>', '&', '|', '^']
CMPS = ['==', '!=', '<', '<=', '>', '>=']
SAME_SIZE = {8: ['i8', 'u8'], 16: ['i16', 'u16', 'f16', 'bf16'],
             32: ['i32', 'u32', 'f32'], 64: ['i64', 'u64', 'f64']}


class Node:
    __slots__ = ('k', 't', 'c', 'x')

    def __init__(self, k, t, c=(), x=None):
        self.k, self.t, self.c, self.x = k, t, list(c), x


# ---------------------------------------------------------------- values

_EDGES = {}


def edge_values(t):
    """Boundary values of a type (as the reference's ints/bits)."""
    if t not in _EDGES:
        _EDGES[t] = _edge_values(t)
    return _EDGES[t]


def _edge_values(t):
    if R.is_int(t):
        n = R.INT_BITS[t]
        lo, hi = R.int_min(t), R.int_max(t)
        vs = {0, 1, 2, lo, hi, lo + 1, hi - 1, n - 1, n, n + 1, 2 * n, 7, 31, 32, 63, 64}
        if R.is_signed(t):
            vs |= {-1, -2, -n}
        # integer -> float ties and overflow: halfway between two neighbours
        # of bf16 (8 significant bits), f16 (11), f32 (24), f64 (53), either
        # side of even, and just below 2^63; f16's overflow threshold 65520
        ties = {257, 259, 2049, 2051, 65519, 65520, 2 ** 24 + 1, 2 ** 24 + 3, 2 ** 53 + 1,
                2 ** 53 + 3, 2 ** 63 - 2 ** 38, 2 ** 63 - 2 ** 9}
        vs |= {v for v in ties | {-v for v in ties} if lo <= v <= hi}
        return sorted({R.wrap(t, v) for v in vs})
    f = lambda x: R.f_from_py(t, x)
    e, m, _, nb = R.FLOAT_FMT[t]
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, math.inf, -math.inf, math.nan,
            2.0 ** 31, -2.0 ** 31, 2.0 ** 31 - 128, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64,
            65504.0, 65520.0, 448.0, 464.0, 57344.0, 61440.0, 127.5, -128.5, 255.5, 256.0,
            32767.5, -32768.5, 2.0 ** -9, 2.0 ** -16, 2.0 ** -24, 1e-30,
            # float -> float ties (halfway for bf16, f16, fp8 and f32 from f64:
            # even below, odd below), the largest f32 below 2^31 and 2^63
            1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -11, -(1 + 3 * 2.0 ** -11),
            1 + 2.0 ** -4, 1 + 3 * 2.0 ** -4, 1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24,
            2.0 ** 31 - 128, 2.0 ** 63 - 2.0 ** 39, -2.0 ** 63 - 2.0 ** 40, 2.0 ** -25, 3 * 2.0 ** -26]
    bits = [f(x) for x in vals]
    sub = 1                                   # smallest subnormal
    bits += [sub, sub | (1 << (nb - 1)), (1 << m) - 1, 1 << m,
             R.max_finite_bits(t, 0), R.max_finite_bits(t, 1), R.nan_bits(t) | (1 << (nb - 1)),
             R.inf_bits(t, 0) | 1, R.inf_bits(t, 1) | 5]          # signalling NaNs
    return sorted(set(bits))


def random_value(rnd, t):
    if rnd.random() < 0.4:
        return rnd.choice(edge_values(t))
    if R.is_int(t):
        n = R.INT_BITS[t]
        if rnd.random() < 0.5:
            return R.wrap(t, rnd.randint(-40, 40))
        return R.wrap(t, rnd.getrandbits(n))
    if rnd.random() < 0.5:
        x = rnd.choice([-1, 1]) * rnd.randint(0, 1 << 20) / (1 << rnd.randint(0, 20))
        if rnd.random() < 0.3:
            x *= 2.0 ** rnd.randint(-30, 70)
        return R.f_from_py(t, x)
    return rnd.getrandbits(R.FLOAT_FMT[t][3])


# ---------------------------------------------------------------- trees

class Gen:
    def __init__(self, rnd, allow_loops=True):
        self.rnd = rnd
        self.allow_loops = allow_loops
        self.in_fn = False          # a function body sees its parameters only

    def leaf(self, t, scope):
        rnd = self.rnd
        if t == 'i1':
            if rnd.random() < 0.15:
                return Node('lit', 'i1', x=rnd.randint(0, 1))
            u = rnd.choice(SCALARS)
            return Node('cmp', 'i1', [self.leaf(u, scope), self.leaf(u, scope)], rnd.choice(CMPS))
        scope = [v for v in scope if not (v[1] == 'i1' and R.is_float(t))]   # no i1 -> float cast
        if scope and (self.in_fn or rnd.random() < 0.5) and rnd.random() < 0.8:
            v = rnd.choice(scope)
            if v[1] == t:
                return Node('var', t, x=v[0])
            return Node('cast', t, [Node('var', v[1], x=v[0])])
        if self.in_fn or rnd.random() < 0.3:
            return Node('lit', t, x=random_value(rnd, t))
        return Node('param', t, x=rnd.randrange(NPARAM))

    def expr(self, t, d, scope=()):
        rnd = self.rnd
        if d <= 0 or rnd.random() < 0.15:
            return self.leaf(t, scope)
        d1 = d - 1
        g = lambda u: self.expr(u, d1, scope)
        r = rnd.random()
        if t == 'i1':
            if r < 0.45:
                u = rnd.choice(RESULT_TYPES)
                ops = ['==', '!='] if u == 'i1' else CMPS
                return Node('cmp', 'i1', [g(u), g(u)], rnd.choice(ops))
            if r < 0.75:
                return Node('bin', 'i1', [g('i1'), g('i1')], rnd.choice(['&&', '||', '&', '|', '^']))
            if r < 0.85:
                return Node('un', 'i1', [g('i1')], rnd.choice(['!', '~']))
            return Node('sel', 'i1', [g('i1'), g('i1'), g('i1')])
        if self.allow_loops and r < 0.05:
            return self.loop(t, d1, scope)
        if not self.in_fn and rnd.random() < 0.04:
            return self.function(t, d1, scope)
        if r < 0.10:
            return Node('ifstmt', t, [g('i1'), g(t), g(t)])
        if r < 0.18:
            return Node('sel', t, [g('i1'), g(t), g(t)])
        if r < 0.33:
            src = rnd.choice(RESULT_TYPES if R.is_int(t) else SCALARS)
            if src == t:
                src = 'f32' if R.is_int(t) else 'i32'
            return Node('cast', t, [g(src)])
        if r < 0.37:
            src = rnd.choice([u for u in SAME_SIZE[R.bits_of(t)] if u != t])
            # a float operand only as an input: a computed NaN's bits are unspecified
            if not R.is_float(src):
                arg = g(src)
            elif self.in_fn:
                arg = Node('lit', src, x=random_value(rnd, src))
            else:
                arg = Node('param', src, x=rnd.randrange(NPARAM))
            return Node('bitcast', t, [arg])
        if R.is_float(t) and t != 'f64' and r < 0.41:
            src = rnd.choice(['f16', 'bf16', 'f32'])
            return Node('fp8', t, [g(src)], rnd.choice(R.FP8_TYPES))
        if r < 0.55:
            return self.call(t, d1, scope)
        if r < 0.62:
            if R.is_float(t):
                return Node('un', t, [g(t)], '-')
            return Node('un', t, [g(t)], rnd.choice(['-', '~']))
        if t in ('i32', 'u32', 'i64', 'u64') and r < 0.66:
            return self.bitcount(t, d1, scope)
        ops = ARITH + (INT_ONLY if R.is_int(t) else [])
        return Node('bin', t, [g(t), g(t)], rnd.choice(ops))

    def call(self, t, d1, scope):
        rnd = self.rnd
        g = lambda: self.expr(t, d1, scope)
        names = ['min', 'max', 'clamp', 'abs']
        if R.is_float(t):
            names += ['fma', 'copysign', 'floor', 'ceil', 'trunc', 'round', 'rint', 'sqrt']
        name = rnd.choice(names)
        n = {'min': 2, 'max': 2, 'clamp': 3, 'fma': 3, 'copysign': 2}.get(name, 1)
        args = [g() for _ in range(n)]
        if name == 'copysign':   # the sign of a computed NaN is unspecified
            args[1] = self.leaf(t, ())
        return Node('call', t, args, name)

    def bitcount(self, t, d1, scope):
        rnd = self.rnd
        if t == 'i32':
            name = rnd.choice(['popc', 'clz', 'bfind', 'brev'])
        elif t == 'u32':
            name = rnd.choice(['bfind', 'brev'])
        else:
            name = 'brev'
        if name == 'brev':
            src = t
        elif name == 'bfind':
            src = rnd.choice(['i32', 'i64'] if t == 'i32' else ['u32', 'u64'])
        else:
            src = rnd.choice(['i32', 'i64', 'u32', 'u64'])
        return Node('bits', t, [self.expr(src, d1, scope)], name)

    def loop(self, t, d1, scope):
        rnd = self.rnd
        name = 'v%d' % rnd.getrandbits(20)
        j = 'j%d' % rnd.getrandbits(20)
        init = self.expr(t, d1, scope)
        inner = list(scope) + [(name, t), (j, 'i32')]
        body = self.expr(t, max(1, d1), inner)
        if rnd.random() < 0.4:      # written as a compound assignment `v op= e`
            ops = ARITH + (INT_ONLY if R.is_int(t) else [])
            body = Node('bin', t, [Node('var', t, x=name), body], rnd.choice(ops))
        if rnd.random() < 0.5 or self.in_fn:
            trips = Node('lit', 'i32', x=rnd.randint(0, 3))
        else:
            trips = Node('bin', 'i32', [Node('param', 'i32', x=rnd.randrange(NPARAM)),
                                        Node('lit', 'i32', x=3)], '&')
        kids = [init, body, trips]
        exit_kind = None
        if rnd.random() < 0.3:      # `if c { break }` / `if c { continue }` before the update
            exit_kind = rnd.choice(['break', 'continue'])
            kids.append(self.expr('i1', 1, inner))
        return Node('loop', t, kids, (name, j, exit_kind))

    def function(self, t, d1, scope):
        """A call of a file-level `fn` (inlined by tilec) whose body sees
        only its parameters; `if c { return a } return b` or `return e`."""
        rnd = self.rnd
        name = 'f%d' % rnd.getrandbits(24)
        ptypes = [rnd.choice(RESULT_TYPES if i else SCALARS) for i in range(rnd.randint(1, 3))]
        params = [('p%d_%d' % (i, rnd.getrandbits(12)), pt) for i, pt in enumerate(ptypes)]
        args = [self.expr(pt, d1, scope) for pt in ptypes]
        self.in_fn = True
        if rnd.random() < 0.3:
            body = Node('sel', t, [self.expr('i1', 1, params), self.expr(t, max(1, d1), params),
                                   self.expr(t, max(1, d1), params)])
            style = 'ifreturn'
        else:
            body = self.expr(t, max(1, d1), params)
            style = 'return'
        self.in_fn = False
        return Node('fn', t, args, (name, params, body, style))

    def root(self, t, d):
        """An expression of type t; a float root may be a math function
        with an error bound (only at the root: its error would otherwise
        propagate)."""
        if R.is_float(t) and t != 'f64' and self.rnd.random() < 0.15:
            return Node('call', t, [self.expr(t, d - 1)], self.rnd.choice(R.APPROX_FUNCS))
        return self.expr(t, d)


# ---------------------------------------------------------------- evaluation

def evaluate(n, env):
    """The set of values the documents allow (usually one)."""
    k = n.k
    if k == 'param':
        return {env['a_%s_%d' % (n.t, n.x)]}
    if k == 'lit':
        return {n.x}
    if k == 'var':
        return {env[n.x]}
    if k == 'loop':
        name, j, exit_kind = n.x
        out = set()
        for v0 in evaluate(n.c[0], env):
            for trips in evaluate(n.c[2], env):
                vs = {v0}
                for it in range(max(0, trips)):
                    nv = set()
                    for v in vs:
                        e2 = dict(env)
                        e2[name], e2[j] = v, it
                        conds = evaluate(n.c[3], e2) if exit_kind else {0}
                        if 1 in conds:
                            if exit_kind == 'break':
                                out.add(v)
                            else:
                                nv.add(v)
                        if 0 in conds:
                            nv |= evaluate(n.c[1], e2)
                    vs = nv
                out |= vs
        return out
    if k == 'fn':
        name, params, body, _ = n.x
        out = set()
        for args in _product([evaluate(c, env) for c in n.c]):
            out |= evaluate(body, {p[0]: a for p, a in zip(params, args)})
        return out
    if CONTRACT and k == 'bin' and n.x in ('+', '-') and n.t in FLOATS:
        return _contracted(n, env)
    cs = [evaluate(c, env) for c in n.c]
    res = set()
    for args in _product(cs):
        res |= _apply(n, args)
    return res


# --fmad=true (the default): a product feeding + or - may be fused into one
# fma (operators.md "FMA contraction"); evaluate() then allows both forms.
CONTRACT = False


def _product_of(c):
    """(a, b, negated) when c is a float product a * b or -(a * b)."""
    if c.k == 'bin' and c.x == '*':
        return c.c[0], c.c[1], False
    if c.k == 'un' and c.x == '-' and c.c[0].k == 'bin' and c.c[0].x == '*':
        return c.c[0].c[0], c.c[0].c[1], True
    return None


def _contracted(n, env):
    t = n.t
    cs = [evaluate(c, env) for c in n.c]
    res = set()
    for args in _product(cs):
        res |= _apply(n, args)
    for side in (0, 1):
        for p in _products(n.c[side], env):
            _fuse(n, t, side, p, cs[1 - side], env, res)
    return res


def _products(c, env):
    """The products c may be (through the branch a `?:` or `if` takes)."""
    if c.k in ('sel', 'ifstmt'):
        out = []
        for cond in evaluate(c.c[0], env):
            out += _products(c.c[1] if cond else c.c[2], env)
        return out
    p = _product_of(c)
    return [p] if p else []


def _fuse(n, t, side, p, other, env, res):
    """Adds to res the fma values of n with the product p on `side`."""
    neg = p[2] != (side == 1 and n.x == '-')          # c - a*b = fma(-a, b, c)
    for a in evaluate(p[0], env):
        for b in evaluate(p[1], env):
            for c in other:
                if side == 0 and n.x == '-':
                    c = R.unop('-', t, c)
                res.add(_canon(t, R.fma_exact(t, R.unop('-', t, a) if neg else a, b, c)))


def _product(sets):
    out = [[]]
    for s in sets:
        out = [o + [v] for o in out for v in s]
    return out


def _canon(t, v):
    """Computed NaNs as one pattern (their sign and payload are unspecified)."""
    if R.is_float(t) and R.decode(t, v)[0] == 'nan':
        return R.nan_bits(t)
    return v


def _apply(n, a):
    k, t = n.k, n.t
    if k == 'bin':
        return {_canon(t, R.binop(n.x, t, a[0], a[1]))}
    if k == 'cmp':
        return {R.binop(n.x, n.c[0].t, a[0], a[1])}
    if k == 'un':
        return {R.unop(n.x, t, a[0])}
    if k in ('sel', 'ifstmt'):
        return {a[1] if a[0] else a[2]}
    if k == 'cast':
        return {_canon(t, R.cast(n.c[0].t, t, a[0]))}
    if k == 'bitcast':
        v = R.ubits(n.c[0].t, a[0])
        return {R.wrap(t, v) if R.is_int(t) else v}
    if k == 'fp8':
        src = n.c[0].t
        return {_canon(t, R.cast(n.x, t, R.cast(src, n.x, a[0])))}
    if k == 'bits':
        return {R.bitcount(n.x, n.c[0].t, a[0])}
    if k == 'call':
        r = R.builtin(n.x, t, a)
        if isinstance(r, tuple) and r[0] == 'either':
            return set(r[1:])
        if isinstance(r, tuple):
            return {r}
        return {_canon(t, r)}
    raise ValueError(k)


def matches(t, allowed, got):
    """Whether a device/folded result (bits or value of t) is allowed."""
    for a in allowed:
        if isinstance(a, tuple) and a[0] == 'fast':
            import semfuzz_frag
            if semfuzz_frag.fast_ok(t, a[1], a[2], got):
                return True
            continue
        if isinstance(a, tuple):
            if R.approx_ok(t, R.ubits(t, got) if not R.is_float(t) else got, a[1], a[2]):
                return True
            continue
        if R.is_float(t):
            if R.decode(t, got)[0] == 'nan' and R.decode(t, a)[0] == 'nan':
                return True
            if got == a:
                return True
        elif R.ubits(t, got) == R.ubits(t, a):
            return True
    return False


def show(t, v):
    if isinstance(v, tuple):
        return '~%r(+-%g ulp)' % (v[1], v[2])
    if R.is_float(t):
        return '%r(0x%x)' % (R.f_to_py(t, v), v)
    return str(v)


# ---------------------------------------------------------------- printing

def float_text(t, b):
    x = R.f_to_py(t, b)
    if math.isnan(x):
        return '-nan' if b >> (R.FLOAT_FMT[t][3] - 1) else 'nan'
    if math.isinf(x):
        return '-inf' if x < 0 else 'inf'
    s = repr(x).replace('e+', 'e')
    if 'e' in s and '.' not in s.split('e')[0]:
        s = s.replace('e', '.0e', 1)
    return s


def lit_text(t, v):
    if t == 'i1':
        return 'true' if v else 'false'
    if R.is_int(t):
        return str(v)
    return float_text(t, v)


def castable(t, v):
    """Whether `(V as T)` gives v: V's default type (i32, f32) holds it."""
    if R.is_int(t):
        return -(1 << 31) <= v < (1 << 32) and (R.is_signed(t) or v < (1 << 31) or t == 'u32')
    if t == 'f64':
        x = R.f_to_py(t, v)
        return math.isnan(x) or R.f_to_py('f32', R.f_from_py('f32', x)) == x
    return True


class Emitter:
    """Writes a tree as statements + an expression. Tracks which texts
    are constants for the checker (literals, operators, casts, min/max/
    clamp of constants) and keeps a constant operand that the checker would
    reject (shift amount out of range, division by zero, MIN / -1, a cast of
    NaN or an out-of-range value to an integer) out of its reach: it is
    bound to a `let` (the folded and run-time paths still compute it)."""
    ADAPT = ('bin', 'cmp', 'sel', 'min', 'max', 'clamp')

    def __init__(self, rnd, let_prob=0.15, inline_lits=True, probe=False, fn_ids=None):
        self.rnd = rnd
        self.n = 0
        self.fn_ids = fn_ids if fn_ids is not None else itertools.count()  # shared within a file
        self.let_prob = let_prob
        self.inline_lits = inline_lits
        self.probe = probe          # leave constant errors in; list them in self.errors
        self.errors = []
        self.fns = []               # file-level functions the emitted code calls

    def fresh(self, p):
        self.n += 1
        return '%s%d' % (p, self.n)

    def bind(self, stmts, t, text, ind):
        name = self.fresh('s')
        stmts.append('%slet %s: %s = %s' % (ind, name, t, text))
        return name

    # returns (text, const value or None, bare literal?)
    def emit(self, n, stmts, ind):
        k, t = n.k, n.t
        if k == 'param':
            return 'a_%s_%d' % (t, n.x), None, False
        if k == 'var':
            return n.x, None, False
        if k == 'lit':
            if R.is_float(t) and R.decode(t, n.x)[0] == 'nan' and \
                    n.x & ~(1 << (R.FLOAT_FMT[t][3] - 1)) != R.nan_bits(t):
                # a NaN other than `nan` and `-nan`: its bits
                return self.bind(stmts, t, 'bitcast<%s>(0x%x)' % (t, n.x), ind), None, False
            if not self.inline_lits:
                return self.bind(stmts, t, lit_text(t, n.x), ind), None, False
            return lit_text(t, n.x), n.x, True
        if k == 'fn':
            return self.emit_fn(n, stmts, ind)
        if k == 'loop':
            name, j, exit_kind = n.x
            init = self.fix(n.c[0], self.emit(n.c[0], stmts, ind), stmts, ind)
            trips = self.fix(n.c[2], self.emit(n.c[2], stmts, ind), stmts, ind)
            stmts.append('%svar %s: %s = %s' % (ind, name, t, init[0]))
            stmts.append('%sfor %s in 0 .. %s {' % (ind, j, trips[0]))
            if exit_kind:
                c = self.fix(n.c[3], self.emit(n.c[3], stmts, ind + '  '), stmts, ind + '  ')
                stmts.append('%s  if %s { %s }' % (ind, c[0], exit_kind))
            b = n.c[1]
            if b.k == 'bin' and b.c[0].k == 'var' and b.c[0].x == name:
                rhs = self.fix(b.c[1], self.emit(b.c[1], stmts, ind + '  '), stmts, ind + '  ')
                if rhs[1] is not None:   # the checker rejects `v <<= 99` as it does `v << 99`
                    rhs = self.avoid_const_errors(b, [(name, None, False), rhs], stmts, ind + '  ')[1]
                stmts.append('%s  %s %s= %s' % (ind, name, b.x, rhs[0]))
            else:
                body = self.fix(b, self.emit(b, stmts, ind + '  '), stmts, ind + '  ')
                stmts.append('%s  %s = %s' % (ind, name, body[0]))
            stmts.append('%s}' % ind)
            return name, None, False
        if k == 'ifstmt':
            # c ? x : y as `var r = y; if c { r = x }`
            c = self.fix(n.c[0], self.emit(n.c[0], stmts, ind), stmts, ind)
            a = self.fix(n.c[2], self.emit(n.c[2], stmts, ind), stmts, ind)
            name = self.fresh('r')
            stmts.append('%svar %s: %s = %s' % (ind, name, t, a[0]))
            stmts.append('%sif %s {' % (ind, c[0]))
            b = self.fix(n.c[1], self.emit(n.c[1], stmts, ind + '  '), stmts, ind + '  ')
            stmts.append('%s  %s = %s' % (ind, name, b[0]))
            stmts.append('%s}' % ind)
            return name, None, False
        parts, marks = [], []
        for c in n.c:
            parts.append(self.emit(c, stmts, ind))
            marks.append(len(self.errors))
        if k == 'sel' and parts[0][1] is not None:
            # a constant condition: the checker looks only at the chosen side
            lo, hi = (marks[1], marks[2]) if parts[0][1] else (marks[0], marks[1])
            del self.errors[lo:hi]
        adapt = k in ('bin', 'cmp', 'sel') or (k == 'call' and n.x in ('min', 'max', 'clamp'))
        typed = [p for i, p in enumerate(parts) if not p[2] and (k != 'sel' or i > 0)]
        # A shift's literal value is typed by its context, never by the
        # amount (docs/reference/operators.md, "Shift amounts"): a context
        # this tree does not track, so the value is always given its type.
        shift_value = k == 'bin' and n.x in ('<<', '>>')
        fixed = []
        for i, (c, p) in enumerate(zip(n.c, parts)):
            if p[2] and (shift_value and i == 0 or
                         not (adapt and typed and (k != 'sel' or i > 0))):
                p = self.fix(c, p, stmts, ind)
            fixed.append(p)
        parts = fixed
        # keep constant errors away from the checker
        parts = self.avoid_const_errors(n, parts, stmts, ind)
        txt = [p[0] for p in parts]
        if k == 'bin':
            s = '(%s %s %s)' % (txt[0], n.x, txt[1])
        elif k == 'cmp':
            s = '(%s %s %s)' % (txt[0], n.x, txt[1])
        elif k == 'un':
            s = '(%s%s)' % (n.x, txt[0])
        elif k == 'sel':
            s = '(%s ? %s : %s)' % tuple(txt)
        elif k == 'cast':
            s = '(%s as %s)' % (txt[0], t)
        elif k == 'bitcast':
            s = 'bitcast<%s>(%s)' % (t, txt[0])
        elif k == 'fp8':
            s = '((%s as %s) as %s)' % (txt[0], n.x, t)
        elif k in ('call', 'bits'):
            s = '%s(%s)' % (n.x, ', '.join(txt))
        else:
            raise ValueError(k)
        const = None
        if k == 'sel' and parts[0][1] is not None:
            # the checker: a constant condition makes the chosen side the value
            const = parts[1][1] if parts[0][1] else parts[2][1]
        elif all(p[1] is not None for p in parts) and (
                k in ('bin', 'cmp', 'un', 'cast', 'fp8') or (k == 'call' and n.x in ('min', 'max', 'clamp'))):
            vals = _apply(n, [p[1] for p in parts])
            if len(vals) == 1:
                const = next(iter(vals))
            else:            # a choice the checker makes its own way: not a constant for us
                s = self.bind(stmts, t, s, ind)
        if const is None and k not in ('cmp',) and self.rnd.random() < self.let_prob:
            s = self.bind(stmts, t, s, ind)
        elif const is not None and self.rnd.random() < self.let_prob and \
                (R.is_float(t) or exact_int(n) is not None):
            # a `const`: the checker's value of the expression is what runs
            name = self.fresh('c')
            stmts.append('%sconst %s: %s = %s' % (ind, name, t, s))
            s = name
        return s, const, False

    def emit_fn(self, n, stmts, ind):
        name, params, body, style = n.x
        name = '%s_%d' % (name, next(self.fn_ids))   # a tree may be emitted twice in one file
        # Sometimes a function with two results: the value and its first
        # parameter, in either order, bound by `let (x, _)`, `var (x, y)` or
        # assigned by `(x, y) = f(...)`; the value is the one-result call's.
        multi = self.rnd.random() < 0.3
        first = self.rnd.random() < 0.5
        other = params[0]

        def ret(e):
            return '(%s, %s)' % ((e, other[0]) if first else (other[0], e)) if multi else e
        results = ('(%s, %s)' % ((n.t, other[1]) if first else (other[1], n.t))) if multi else n.t
        lines = ['fn %s(%s) -> %s {' % (name, ', '.join('%s: %s' % p for p in params), results)]
        if style == 'ifreturn':
            c = self.fix(body.c[0], self.emit(body.c[0], lines, '  '), lines, '  ')
            lines.append('  if %s {' % c[0])
            a = self.fix(body.c[1], self.emit(body.c[1], lines, '    '), lines, '    ')
            lines.append('    return %s' % ret(a[0]))
            lines.append('  }')
            b = self.fix(body.c[2], self.emit(body.c[2], lines, '  '), lines, '  ')
            lines.append('  return %s' % ret(b[0]))
        else:
            e = self.fix(body, self.emit(body, lines, '  '), lines, '  ')
            lines.append('  return %s' % ret(e[0]))
        lines.append('}')
        self.fns.append('\n'.join(lines))
        # arguments: literals adapt to the parameter types
        args = [self.emit(c, stmts, ind) for c in n.c]
        args = [(p[0], p[1], False) if p[2] and c.t != 'i1' else self.fix(c, p, stmts, ind)
                for c, p in zip(n.c, args)]
        call = '%s(%s)' % (name, ', '.join(a[0] for a in args))
        if not multi:
            return call, None, False
        x, y = self.fresh('m'), self.fresh('m')
        form = self.rnd.choice(['let', 'var', 'assign'])
        names = (x, y if form != 'let' else '_') if first else (y if form != 'let' else '_', x)
        stmts.append('%s%s (%s, %s) = %s' % (ind, 'let' if form == 'let' else 'var',
                                             names[0], names[1], call))
        if form == 'assign':   # the same pure call again, into the same vars
            stmts.append('%s(%s, %s) = %s' % (ind, names[0], names[1], call))
        return x, None, False

    def fix(self, node, p, stmts, ind):
        """A bare literal without a typed neighbour: `(V as T)` or a let."""
        if not p[2]:
            return p
        t, v = node.t, node.x
        if t == 'i1':
            return p[0], p[1], False
        if castable(t, v) and self.rnd.random() < 0.7:
            return '(%s as %s)' % (p[0], t), v, False
        return self.bind(stmts, t, p[0], ind), None, False

    def avoid_const_errors(self, n, parts, stmts, ind):
        k = n.k
        out = list(parts)

        def unconst(i, error):
            if self.probe:
                self.errors.append(error)
                return
            out[i] = (self.bind(stmts, n.c[i].t, out[i][0], ind), None, False)
        if k == 'bin' and R.is_int(n.t):
            a, b = out[0][1], out[1][1]
            if n.x in ('<<', '>>') and b is not None and R.ubits(n.t, b) >= R.INT_BITS[n.t]:
                unconst(1, 'is out of range for %s (0 to %d)' % (n.t, R.INT_BITS[n.t] - 1))
            elif n.x in ('/', '%') and b is not None and b == 0:
                unconst(1, 'division by zero' if n.x == '/' else 'remainder by zero')
            elif n.x in ('/', '%') and a is not None and b is not None and b == -1 \
                    and a == R.int_min(n.t):
                unconst(1, '%d / -1 overflows %s' % (a, n.t))
        if k == 'cast' and R.is_int(n.t) and R.is_float(n.c[0].t) and out[0][1] is not None:
            src, v = n.c[0].t, out[0][1]
            d = R.decode(src, v)
            if d[0] == 'nan':
                unconst(0, 'cast of NaN to %s' % n.t)
            elif d[0] != 'fin' or not (R.int_min(n.t) <= int(d[2]) * (-1 if d[1] else 1) <= R.int_max(n.t)):
                unconst(0, 'cast of ')
        return out


def exact_int(n):
    """The value of an all-literal integer tree when no step wraps (a typed
    integer `const` must not wrap, docs/reference/kernels.md); else None.
    Float constants use the run-time (wrapping) rules and need no check."""
    t = n.t
    if n.k == 'lit':
        return n.x if not R.is_float(t) else None
    v = [exact_int(c) for c in n.c]
    if any(x is None for x in v):
        return None
    k, r = n.k, None
    if k == 'bin' and t != 'i1':
        a, b = v
        if n.x in ('+', '-', '*'):
            r = a + b if n.x == '+' else a - b if n.x == '-' else a * b
        elif n.x in ('/', '%') and b != 0:
            q = abs(a) // abs(b) * (-1 if (a < 0) != (b < 0) else 1)
            r = q if n.x == '/' else a - q * b
        elif n.x == '<<' and a >= 0 and 0 <= b <= 62 and (a >> (62 - b)) == 0:
            r = a << b
        elif n.x == '>>' and 0 <= b <= 63:
            r = a >> b
        elif n.x in ('&', '|', '^'):
            r = a & b if n.x == '&' else a | b if n.x == '|' else a ^ b
    elif k == 'cmp' and not R.is_float(n.c[0].t):
        r = R.binop(n.x, n.c[0].t, v[0], v[1])
    elif k == 'bin' and t == 'i1':
        r = R.binop(n.x, t, v[0], v[1])
    elif k == 'un':
        if n.x == '-':
            r = -v[0]
        elif t == 'i1' or R.is_signed(t):
            r = R.unop(n.x, t, v[0])
        elif R.INT_BITS[t] < 64:
            r = R.int_max(t) ^ v[0]
    elif k == 'cast' and not R.is_float(t) and not R.is_float(n.c[0].t):
        r = v[0]
    elif k == 'call' and n.x in ('min', 'max', 'clamp'):
        r = min(v) if n.x == 'min' else max(v) if n.x == 'max' else min(max(v[0], v[1]), v[2])
    elif k == 'sel':
        r = v[1] if v[0] else v[2]
    if r is None or (t != 'i1' and not R.int_min(t) <= r <= R.int_max(t)):
        return None
    if not -(1 << 63) <= r < (1 << 63):     # the checker's exact steps are i64
        return None
    return r


def out_type(t):
    """The element type a result is stored as (i1 as i8)."""
    return 'i8' if t == 'i1' else t


def emit_store(em, node, target, ind):
    stmts = []
    text, const, bare = em.emit(node, stmts, ind)
    if bare:
        text, const, _ = em.fix(node, (text, const, bare), stmts, ind)
    if node.t == 'i1':
        text = '(%s as i8)' % text
    stmts.append('%s%s = %s' % (ind, target, text))
    return stmts


def uses(n, acc=None):
    """The kernel inputs a tree reads: {(type, k)}."""
    acc = set() if acc is None else acc
    if n.k == 'param':
        acc.add((n.t, n.x))
    for c in n.c:
        uses(c, acc)
    return acc


def to_bytes(t, values):
    """Values of a type as the device's little-endian bytes."""
    size = R.SIZE[t]
    fmt = {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[size]
    return struct.pack('<%d%s' % (len(values), fmt), *[R.ubits(t, v) if R.is_int(t) else v for v in values])


def from_bytes(t, data):
    size = R.SIZE[t]
    fmt = {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[size]
    raw = struct.unpack('<%d%s' % (len(data) // size, fmt), data)
    return [R.wrap(t, v) if R.is_int(t) else v for v in raw]
