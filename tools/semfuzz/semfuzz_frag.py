"""semfuzz: fragments (docs/reference/mma.md, "Epilogue on fragments" and
"The fragment algebra") and the fast math forms (warp-and-math.md, "Fast
forms"), as semfuzz_ext cases.

A fragment case loads two f32/f16/bf16 fragments with load_frag, a per_row
and a per_col value with load_per_row/load_per_col, scalars and i32 indices,
computes a random tree of the element-wise operations (+ - * / unary -, min,
max, fma, select on masks from comparisons and from frag_row/frag_col index
arithmetic, abs, exp2/exp/log2/log/sqrt/rsqrt/sin/cos/tanh accurate or
approx, erf, conversions) and
stores the fragment (row_stride) or a per_row value (row_max, row_sum).
"""
import math

import semfuzz_ref as R
import semfuzz_gen as G
from semfuzz_ext import Case, params, shows

FAST_FUNCS = ['sqrt', 'rsqrt', 'exp', 'exp2', 'log', 'log2', 'sin', 'cos', 'tanh']
# The math functions on f32 fragments (mma.md "The fragment algebra"): each
# element as the scalar builtin, accurate (the ulp bounds of semfuzz_ref) or
# `approx = true` (fast_ok's bounds); erf has no fast form.
FRAG_MATH = ['exp2', 'exp', 'log2', 'log', 'sqrt', 'rsqrt', 'sin', 'cos', 'tanh', 'erf']


def _ref(fn, x):
    if fn == 'sqrt':
        return math.nan if (math.isnan(x) or x < 0) else (x if x == 0 else math.sqrt(x))
    try:
        return R._MATH[fn](x)
    except (OverflowError, ValueError):
        return math.nan


def fast_ok(t, fn, xb, got):
    """Whether got (bits of t) is within the documented error of the fast
    form of fn at x (bits of t): warp-and-math.md "Fast forms"."""
    x = R.f_to_py(t, xb)
    g = R.f_to_py(t, got)
    ref = _ref(fn, x)
    if math.isnan(ref):
        return math.isnan(g)
    if math.isnan(g):
        return False
    if math.isinf(ref) or (ref == 0 and fn in ('sqrt', 'exp', 'exp2')):
        return g == ref             # (a zero of either sign for sqrt(+-0) and exp's underflow)
    if fn in ('exp2', 'exp') and abs(ref) < 2.0 ** -126 and g == 0:
        return True                 # ex2.approx.ftz.f32 (bf16 goes through it too)
    if t != 'f32':          # 16-bit: the f32 form's interval, rounded to t; or 2 ulp of t
        if not math.isinf(g) and abs(g - ref) <= 2 * R.ulp_of(t, ref):
            return True
        e = f32_error(fn, x, ref, g)
        lo, hi = R.f_to_py(t, R.f_from_py(t, ref - e)), R.f_to_py(t, R.f_from_py(t, ref + e))
        return lo <= g <= hi
    if math.isinf(g):
        return abs(ref) + 3 * R.ulp_of('f32', ref) >= R.f_to_py('f32', R.max_finite_bits('f32', 0))
    if fn in ('sin', 'cos') and not -math.pi <= x <= math.pi:
        return abs(g) <= 1.0          # "larger outside": no bound is written
    return abs(g - ref) <= f32_error(fn, x, ref, g)


def f32_error(fn, x, ref, g):
    """The documented absolute error of the f32 fast form at x."""
    ulp = R.ulp_of('f32', ref)
    if fn == 'sqrt':
        return 2.0 ** -23 * abs(ref)
    if fn == 'rsqrt':
        return 2.0 ** -22.9 * abs(ref)
    if fn in ('exp2', 'exp'):
        return (2 if fn == 'exp2' else 2 + 1.16 * abs(x)) * ulp
    if fn in ('log2', 'log'):
        if 0.5 <= x <= 2:
            return 2.0 ** -22 if fn == 'log2' else 2.0 ** -21.4
        return (2 if fn == 'log2' else 3) * ulp
    if fn in ('sin', 'cos'):
        return 2.0 ** -20.5 if -math.pi <= x <= math.pi else 2.0
    if fn == 'tanh':
        return 2.0 ** -11 * abs(ref)
    raise ValueError(fn)


def math_values(rnd, t, fn, count):
    """Inputs for a math function: edge values, the documented ranges, and
    random values across the format."""
    ev = G.edge_values(t)
    out = []
    for j in range(count):
        k = j % 4
        if j < len(ev):
            out.append(ev[j])
        elif k == 0:
            out.append(G.random_value(rnd, t))
        elif k == 1:
            lo, hi = {'sin': (-math.pi, math.pi), 'cos': (-math.pi, math.pi), 'log': (0.5, 2.0),
                      'log2': (0.5, 2.0), 'exp2': (-130.0, 130.0), 'exp': (-90.0, 90.0)}.get(fn, (0.0, 4.0))
            out.append(R.f_from_py(t, rnd.uniform(lo, hi)))
        elif k == 2:
            out.append(R.f_from_py(t, rnd.uniform(-20, 20)))
        else:
            out.append(R.f_from_py(t, 2.0 ** rnd.uniform(-140, 127) * rnd.choice([1, -1, 1])))
    return out


def math_case(rnd, name, explicit=True, rows=1024):
    """fn(x, approx = true) (or fn(x) under --fast-math: explicit=False) on
    `rows` inputs, for a few functions."""
    fns = rnd.sample(FAST_FUNCS, 3)
    t = rnd.choice(['f32', 'f32', 'f16', 'bf16'])
    if t != 'f32':
        fns = [f for f in fns if f != 'tanh' or True]
    arg = ', approx = true' if explicit else ''
    bufs, lines, ins = [], [], {}
    for j, fn in enumerate(fns):
        ins[j] = math_values(rnd, t, fn, rows)
        bufs.append(('in', 'x%d' % j, t, ins[j]))
    for j, fn in enumerate(fns):
        bufs.append(('out', 'y%d' % j, t, rows))
        lines.append('    y%d[i] = %s(x%d[i]%s)' % (j, fn, j, arg))
    text = ('kernel %s(%s) threads(128) {\n  for i in grid_range(n) {\n%s\n  }\n}\n'
            % (name, params(bufs), '\n'.join(lines)))

    def check(o):
        bad = []
        for j, fn in enumerate(fns):
            nb = 0
            for i in range(rows):
                if not fast_ok(t, fn, ins[j][i], o['y%d' % j][i]):
                    nb += 1
                    if nb <= 3:
                        x = R.f_to_py(t, ins[j][i])
                        bad.append('%s(%s: %s, approx): exact %r, got %s' % (
                            fn, G.show(t, ins[j][i]), t, _ref(fn, x), G.show(t, o['y%d' % j][i])))
            if nb > 3:
                bad.append('%s: %d of %d results outside the bound' % (fn, nb, rows))
        return bad
    return Case(name, text, bufs, rows // 128, 128, check, 'math' if explicit else 'fast-math')


# ---------------------------------------------------------------- fragments

M = 64
KIND_ORDER = {'S': 0, 'C': 1, 'R': 1, 'F': 2}


def kind_of(*ks):
    ks = set(ks)
    if 'F' in ks or ('R' in ks and 'C' in ks):
        return 'F'
    return 'R' if 'R' in ks else 'C' if 'C' in ks else 'S'


class FragGen:
    def __init__(self, rnd, t):
        self.rnd, self.t = rnd, t

    def tree(self, depth):
        rnd, t = self.rnd, self.t
        if depth <= 0 or rnd.random() < 0.2:
            k = rnd.random()
            if k < 0.4:
                return ('x', 'F', rnd.randrange(2))
            if k < 0.55:
                return ('pr', 'R')
            if k < 0.7:
                return ('pc', 'C')
            if k < 0.8:
                return ('rowf', 'R', rnd.randint(-3, 3))
            if k < 0.9:
                return ('s', 'S', rnd.randrange(4))
            return ('lit', 'S', G.random_value(rnd, t) if rnd.random() < 0.5 else
                    R.f_from_py(t, rnd.choice([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -math.inf, math.inf])))
        k = rnd.choice(['bin', 'bin', 'bin', 'neg', 'mm', 'fma', 'sel', 'sel', 'abs'])
        if k == 'bin':
            a, b = self.tree(depth - 1), self.tree(depth - 1)
            return ('bin', kind_of(a[1], b[1]), rnd.choice(['+', '-', '*', '/']), a, b)
        if k in ('neg', 'abs'):
            a = self.tree(depth - 1)
            return (k, a[1], a)
        if k == 'mm':
            a, b = self.tree(depth - 1), self.tree(depth - 1)
            return ('mm', kind_of(a[1], b[1]), rnd.choice(['min', 'max']), a, b)
        if k == 'fma':
            a, b, c = self.tree(depth - 1), self.tree(depth - 1), self.tree(depth - 1)
            return ('fma', kind_of(a[1], b[1], c[1]), a, b, c)
        m = self.mask(depth - 1)
        a, b = self.tree(depth - 1), self.tree(depth - 1)
        if kind_of(m[1], a[1], b[1]) == 'S':     # select needs a distributed argument
            a = ('x', 'F', rnd.randrange(2))
        return ('sel', kind_of(m[1], a[1], b[1]), m, a, b)

    def mask(self, depth):
        rnd = self.rnd
        op = rnd.choice(G.CMPS)
        if rnd.random() < 0.5:
            a, b = self.tree(depth - 1), self.tree(depth - 1)
            return ('cmp', kind_of(a[1], b[1]), op, a, b)
        a, b = self.index(rnd.choice('RC'), 2), self.index(rnd.choice('RCS'), 2)
        return ('icmp', kind_of(a[1], b[1]), op, a, b)

    def index(self, kind, depth):
        """An i32 tree of one kind (R: rows, C: columns, S: scalars)."""
        rnd = self.rnd
        if depth <= 0 or rnd.random() < 0.3:
            if kind == 'R':
                return ('row', 'R') if rnd.random() < 0.8 else ('prI', 'R')
            if kind == 'C':
                return ('col', 'C') if rnd.random() < 0.8 else ('pcI', 'C')
            return ('ni', 'S', rnd.randrange(4)) if rnd.random() < 0.6 else \
                ('ilit', 'S', rnd.choice([0, 1, -1, 3, 7, 64, -(1 << 31), (1 << 31) - 1]))
        op = rnd.choice(['+', '-', '*', '/', 'min', 'max'])
        a = self.index(kind, depth - 1)
        b = self.index(kind if rnd.random() < 0.5 else 'S', depth - 1)
        if rnd.random() < 0.5:
            a, b = b, a
        if op == '/' and not _runtime(b):     # a constant divisor 0 is an error
            b = ('ni', 'S', rnd.randrange(4))
        # Literal arithmetic whose exact value leaves i32 is an error
        # (operators.md, constant operands): keep such a step at run time.
        if not _runtime(a) and not _runtime(b) and \
                not -(1 << 31) <= _exact(('ibin', 'S', op, a, b)) < (1 << 31):
            b = ('ni', 'S', rnd.randrange(4))
        return ('ibin', kind_of(a[1], b[1]), op, a, b)


def _runtime(n):
    """Whether an index tree reads a run-time value."""
    return n[0] in ('row', 'col', 'prI', 'pcI', 'ni') or (n[0] == 'ibin' and (_runtime(n[3]) or _runtime(n[4])))


def _exact(n):
    """The exact (unwrapped) value of a constant index tree (no `/`: its
    divisor is always a run-time value)."""
    if n[0] == 'ilit':
        return n[2]
    a, b = _exact(n[3]), _exact(n[4])
    return {'+': a + b, '-': a - b, '*': a * b, 'min': min(a, b), 'max': max(a, b)}[n[2]]


def lit(t, v):
    if R.decode(t, v)[0] == 'nan':
        return 'bitcast<%s>(0x%x)' % (t, v)
    return G.lit_text(t, v) if t == 'f32' else '(%s as %s)' % (G.lit_text(t, v), t)


def ftext(n, t):
    k = n[0]
    if k == 'x':
        return 'x%d' % n[2]
    if k in ('pr', 'pc'):
        return k
    if k == 'rowf':
        return '((frag_row(x0) + %d) as %s)' % (n[2], t)
    if k == 's':
        return 's%d' % n[2]
    if k == 'lit':
        return lit(t, n[2])
    if k == 'bin':
        return '(%s %s %s)' % (ftext(n[3], t), n[2], ftext(n[4], t))
    if k == 'neg':
        return '(-%s)' % ftext(n[2], t)
    if k == 'abs':
        return 'abs(%s)' % ftext(n[2], t)
    if k == 'mm':
        return '%s(%s, %s)' % (n[2], ftext(n[3], t), ftext(n[4], t))
    if k == 'fma':
        return 'fma(%s, %s, %s)' % tuple(ftext(c, t) for c in n[2:])
    if k == 'sel':
        return 'select(%s, %s, %s)' % tuple(ftext(c, t) for c in n[2:])
    if k in ('cmp', 'icmp'):
        return '(%s %s %s)' % (ftext(n[3], t), n[2], ftext(n[4], t))
    if k == 'row':
        return 'frag_row(x0)'
    if k == 'col':
        return 'frag_col(x0)'
    if k in ('prI', 'pcI'):
        return '(%s as i32)' % k[:2]
    if k == 'ni':
        return 'n%d' % n[2]
    if k == 'ilit':
        return str(n[2]) if n[2] >= 0 else '(%d)' % n[2]
    if k == 'ibin':
        if n[2] in ('min', 'max'):
            return '%s(%s, %s)' % (n[2], ftext(n[3], t), ftext(n[4], t))
        return '(%s %s %s)' % (ftext(n[3], t), n[2], ftext(n[4], t))
    raise ValueError(k)


def feval(n, t, r, c, env):
    """The allowed values of element (r, c) (a set)."""
    k = n[0]
    if k == 'x':
        return {env['x%d' % n[2]][r * env['N'] + c]}
    if k == 'pr':
        return {env['pr'][r]}
    if k == 'pc':
        return {env['pc'][c]}
    if k == 'rowf':
        return {R.cast('i32', t, R.wrap('i32', r + n[2]))}
    if k == 's':
        return {env['s'][n[2]]}
    if k in ('lit', 'ilit'):
        return {n[2]}
    if k == 'row':
        return {r}
    if k == 'col':
        return {c}
    if k == 'prI':
        return {R.cast(t, 'i32', env['pr'][r])}
    if k == 'pcI':
        return {R.cast(t, 'i32', env['pc'][c])}
    if k == 'ni':
        return {env['ni'][n[2]]}
    if k in ('neg', 'abs'):
        return {R.unop('-', t, a) if k == 'neg' else R.builtin('abs', t, [a]) for a in feval(n[2], t, r, c, env)}
    if k == 'sel':
        out = set()
        for m in feval(n[2], t, r, c, env):
            out |= feval(n[3] if m else n[4], t, r, c, env)
        return out
    if k == 'fma':
        sets = [feval(x, t, r, c, env) for x in n[2:]]
        return {G._canon(t, R.fma_exact(t, a, b, d)) for a in sets[0] for b in sets[1] for d in sets[2]}
    a, b = feval(n[3], t, r, c, env), feval(n[4], t, r, c, env)
    out = set()
    for x in a:
        for y in b:
            if k == 'bin':
                out.add(G._canon(t, R.binop(n[2], t, x, y)))
            elif k == 'mm':
                v = R.fmin_max(n[2], t, x, y)
                out |= set(v[1:]) if isinstance(v, tuple) else {v}
            elif k == 'cmp':
                out.add(R.binop(n[2], t, x, y))
            elif k == 'icmp':
                out.add(R.binop(n[2], 'i32', x, y))
            elif n[2] in ('min', 'max'):
                out.add(min(x, y) if n[2] == 'min' else max(x, y))
            else:
                out.add(R.binop(n[2], 'i32', x, y))
    return out


def row_reduce(op, vals):
    """row_sum / row_max of one row as mma.md says: each quad lane combines
    its columns in order, then the lanes combine with shfl.bfly 1 and 2.
    Returns the allowed results (row_sum may start from +0 or from the
    first element)."""
    N = len(vals)
    f = (lambda a, b: G._canon('f32', R.binop('+', 'f32', a, b))) if op == 'row_sum' else None
    outs = set()
    for start_zero in ((False, True) if op == 'row_sum' else (False,)):
        parts = []
        for q in range(4):
            cols = sorted([8 * j + 2 * q for j in range(N // 8)] + [8 * j + 2 * q + 1 for j in range(N // 8)])
            accs = {0} if start_zero else {vals[cols[0]]}
            for cc in (cols if start_zero else cols[1:]):
                nxt = set()
                for a in accs:
                    if f:
                        nxt.add(f(a, vals[cc]))
                    else:
                        v = R.fmin_max('max', 'f32', a, vals[cc])
                        nxt |= set(v[1:]) if isinstance(v, tuple) else {v}
                accs = nxt
            parts.append(accs)

        def comb(sa, sb):
            o = set()
            for a in sa:
                for b in sb:
                    if f:
                        o.add(f(a, b))
                    else:
                        v = R.fmin_max('max', 'f32', a, b)
                        o |= set(v[1:]) if isinstance(v, tuple) else {v}
            return o
        outs |= comb(comb(parts[0], parts[1]), comb(parts[2], parts[3]))
    return outs


def frag_case(rnd, name, programs=4):
    t = rnd.choice(['f32', 'f32', 'f16', 'bf16'])
    N = rnd.choice([8, 16, 32])
    fg = FragGen(rnd, t)
    progs = []
    while len(progs) < programs:
        root = rnd.choice(['store', 'store', 'cast', 'math', 'row', 'rowval'])
        if t != 'f32' and root in ('math', 'row'):
            continue
        tr = fg.tree(rnd.randint(1, 4))
        want = 'R' if root == 'rowval' else 'F'
        if tr[1] != want:
            continue
        extra = None
        if root == 'cast':
            extra = rnd.choice([x for x in ('f32', 'f16', 'bf16') if x != t])
        elif root == 'math':
            fn = rnd.choice(FRAG_MATH)
            extra = (fn, fn != 'erf' and rnd.random() < 0.5) # erf has no fast form
        elif root == 'row':
            extra = rnd.choice(['row_sum', 'row_max'])
        progs.append((root, tr, extra))
    env = {'N': N,
           'x0': [G.random_value(rnd, t) for _ in range(M * N)],
           'x1': [G.random_value(rnd, t) for _ in range(M * N)],
           'pr': [G.random_value(rnd, t) for _ in range(M)],
           'pc': [G.random_value(rnd, t) for _ in range(N)],
           's': [G.random_value(rnd, t) for _ in range(4)],
           'ni': [R.wrap('i32', rnd.choice([0, 1, 3, 17, 40, -1, -5, rnd.getrandbits(32)])) for _ in range(4)]}
    ev = G.edge_values(t)
    for j in range(len(ev)):
        env['x0'][(j * 37) % (M * N)] = ev[j]
    bufs = [('in', 'x0_in', t, env['x0']), ('in', 'x1_in', t, env['x1']), ('in', 'pr_in', t, env['pr']),
            ('in', 'pc_in', t, env['pc']), ('in', 's_in', t, env['s']), ('in', 'n_in', 'i32', env['ni'])]
    lines = ['  let x0 = load_frag(x0_in, zeros<%s>[64, %d], row_stride = %d)' % (t, N, N),
             '  let x1 = load_frag(x1_in, x0, row_stride = %d)' % N,
             '  let pr = load_per_row(pr_in, x0)', '  let pc = load_per_col(pc_in, x0)']
    lines += ['  let s%d = s_in[%d]' % (k, k) for k in range(4)]
    lines += ['  let n%d = n_in[%d]' % (k, k) for k in range(4)]
    outs = []
    for p, (root, tr, extra) in enumerate(progs):
        e = ftext(tr, t)
        if root in ('store', 'cast'):
            ot = extra or t
            lines.append('  store(o%d, %s, row_stride = %d)' % (p, e if ot == t else '%s as %s' % (e, ot), N))
            outs.append(('out', 'o%d' % p, ot, M * N))
        elif root == 'math':
            approx = '' if extra[0] == 'erf' else ', approx = %s' % ('true' if extra[1] else 'false')
            lines.append('  store(o%d, %s(%s%s), row_stride = %d)' % (p, extra[0], e, approx, N))
            outs.append(('out', 'o%d' % p, t, M * N))
        elif root == 'row':
            lines.append('  store(o%d, %s(%s))' % (p, extra, e))
            outs.append(('out', 'o%d' % p, t, M))
        else:
            lines.append('  store(o%d, %s)' % (p, e))
            outs.append(('out', 'o%d' % p, t, M))
    bufs += outs
    text = 'kernel %s(%s) threads(128) {\n%s\n}\n' % (name, params(bufs), '\n'.join(lines))

    def expect(p, r, c):
        root, tr, extra = progs[p]
        vals = feval(tr, t, r, c, env)
        if root == 'cast':
            return {G._canon(extra, R.cast(t, extra, v)) for v in vals}
        if root == 'math':
            if extra[1]:
                return {('fast', extra[0], v) for v in vals}
            return {R.builtin(extra[0], t, [v]) for v in vals}
        return vals

    def check(o):
        bad = []
        for p, (root, tr, extra) in enumerate(progs):
            ot = extra if root == 'cast' else t
            got = o['o%d' % p]
            nb = skipped = 0
            for r in range(M):
                if root == 'row':
                    els = [feval(tr, t, r, c, env) for c in range(N)]
                    if any(len(s) != 1 for s in els):
                        skipped += 1
                        continue
                    cases = [((r, None), row_reduce(extra, [next(iter(s)) for s in els]), got[r])]
                elif root == 'rowval':
                    cases = [((r, None), expect(p, r, 0), got[r])]
                else:
                    cases = [((r, c), expect(p, r, c), got[r * N + c]) for c in range(N)]
                for (rr, cc), want, g in cases:
                    if not G.matches(ot, want, g):
                        nb += 1
                        if nb <= 3:
                            bad.append('program %d (%s %s, frag<%s>[64, %d]), element [%d, %s]: expected %s, '
                                       'got %s\n  %s' % (p, root, extra or '', t, N, rr, cc, shows(ot, want),
                                                         G.show(ot, g), lines[12 + p]))
            if nb > 3:
                bad.append('program %d: %d mismatching elements in all' % (p, nb))
        return bad
    return Case(name, text, bufs, 1, 128, check, 'fragment')
