"""semfuzz beyond scalars: vectors, warp operations and atomics (this file),
fragments and the math modes (semfuzz_frag). Each generated case is one
kernel with its inputs and a checker written from the documents
(docs/reference/memory.md, warp-and-math.md, mma.md, operators.md).

A case: Case(name, kernel text, buffers, blocks, threads, check). Buffers are
('in', name, type, values) or ('out', name, type, count); every kernel
takes its buffers in that order and then `n: i32` (the thread count). The
checker gets {buffer name: values after the run} (inputs read back too:
atomics change them) and returns a list of mismatch texts.
"""
import random
import re

import semfuzz_ref as R
import semfuzz_gen as G

FILL = {1: 0xa5, 2: 0xa5a5, 4: 0xa5a5a5a5, 8: 0xa5a5a5a5a5a5a5a5}   # semfuzz_cuda fills outputs


class Case:
    def __init__(self, name, text, bufs, blocks, threads, check, family):
        self.name, self.text, self.bufs = name, text, bufs
        self.blocks, self.threads, self.check, self.family = blocks, threads, check, family


def fill_value(t):
    return R.wrap(t, FILL[R.SIZE[t]]) if R.is_int(t) else FILL[R.SIZE[t]]


def params(bufs):
    return ', '.join('%s: ptr<%s, global>' % (b[1], b[2]) for b in bufs) + ', n: i32'


def shows(t, vals):
    return ' or '.join(G.show(t, v) for v in vals)


# ---------------------------------------------------------------- warp operations

SHFL_TYPES = ['i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f16', 'bf16', 'f32', 'f64', 'i1']


def width_of(w):
    """A run-time width as the documents say: clamped to 1..32, rounded down
    to a power of two."""
    w = max(1, min(32, w))
    return 1 << (w.bit_length() - 1)


def shfl_src(op, lane, b, width):
    """The lane whose value `op` returns to `lane` (warp-and-math.md)."""
    seg = lane - lane % width
    b %= 32
    if op == 'shfl_up':
        j = lane - b
        return j if j >= seg else lane
    if op == 'shfl_down':
        j = lane + b
        return j if j < seg + width else lane
    if op == 'shfl_xor':
        j = lane ^ b
        return j if seg <= j < seg + width else lane
    return seg + b % width          # shfl_idx


def warp_case(rnd, name):
    op = rnd.choice(['shfl_up', 'shfl_down', 'shfl_xor', 'shfl_idx', 'shfl_xor'])
    t = rnd.choice(SHFL_TYPES)
    bt = 'i8' if t == 'i1' else t
    nthreads = 256
    vals = [G.random_value(rnd, bt) if bt != 'i8' or t != 'i1' else rnd.randint(0, 1)
            for _ in range(nthreads)]
    dvals = [rnd.choice([rnd.randint(-40, 40), rnd.getrandbits(32) - (1 << 31), rnd.randint(0, 31)])
             for _ in range(nthreads)]
    wvals = [rnd.choice([1, 2, 4, 8, 16, 32, 0, -3, 5, 100, 12, 33]) for _ in range(nthreads // 32)]
    dform = rnd.choice(['const', 'lane', 'warp'])
    wform = rnd.choice(['none', 'const', 'warp'])
    dconst = rnd.choice([0, 1, 2, 3, 5, 8, 16, 17, 31, 32, 33, -1, 40])
    wconst = rnd.choice([1, 2, 4, 8, 16, 32])
    d = {'const': str(dconst), 'lane': 'd_in[i]', 'warp': 'd_in[w]'}[dform]
    wt = {'none': '', 'const': ', width = %d' % wconst, 'warp': ', width = w_in[w]'}[wform]
    v = 'v_in[i] != 0' if t == 'i1' else 'v_in[i]'
    res = '%s(%s, %s%s)' % (op, v, d, wt)
    if t == 'i1':
        res = '(%s as i8)' % res
    text = ('kernel %s(%s) threads(128) {\n  let i = block_id() * 128 + thread_id()\n'
            '  let w = i / 32\n  out[i] = %s\n}\n' % (name, params(BUFS_W(bt)), res))

    def check(o):
        bad = []
        for i in range(nthreads):
            lane, wp = i % 32, i // 32
            b = {'const': dconst, 'lane': dvals[i], 'warp': dvals[wp]}[dform]
            width = {'none': 32, 'const': wconst, 'warp': width_of(wvals[wp])}[wform]
            src = wp * 32 + shfl_src(op, lane, b, width)
            want = vals[src]
            if t == 'i1':
                want = 1 if want != 0 else 0
            if not G.matches(bt, {want}, o['out'][i]) or (R.is_float(bt) and o['out'][i] != want):
                bad.append('thread %d (lane %d, operand %d, width %d): expected lane %d\'s %s, got %s'
                           % (i, lane, b, width, src % 32, G.show(bt, want), G.show(bt, o['out'][i])))
        return bad
    bufs = [('in', 'v_in', bt, vals), ('in', 'd_in', 'i32', dvals), ('in', 'w_in', 'i32', wvals),
            ('out', 'out', bt, nthreads)]
    return Case(name, text, bufs, 2, 128, check, 'warp')


def BUFS_W(bt):
    return [('in', 'v_in', bt, None), ('in', 'd_in', 'i32', None), ('in', 'w_in', 'i32', None),
            ('out', 'out', bt, None)]


def vote_case(rnd, name):
    """vote_*, redux_*, match_* over a mask of lanes (each warp its own mask,
    only the lanes in it execute), and lanemask_*."""
    op = rnd.choice(['vote_any', 'vote_all', 'vote_ballot', 'redux_add', 'redux_min', 'redux_max',
                     'redux_and', 'redux_or', 'redux_xor', 'match_any', 'match_all', 'lanemask'])
    nthreads = 256
    t = 'i32'
    if op.startswith('redux'):
        t = rnd.choice(['i32', 'u32'])  # redux.sync .s32 / .u32: min/max by the type
    if op.startswith('match'):
        t = rnd.choice([x for x in SHFL_TYPES if x != 'i1'])
    pool = [G.random_value(rnd, t) for _ in range(3)]
    if R.is_float(t):
        pool += [0, 1 << (R.bits_of(t) - 1)]                  # +0.0 and -0.0 differ by bits
    vals = [rnd.choice(pool) if op.startswith('match') or rnd.random() < 0.3 else G.random_value(rnd, t)
            for _ in range(nthreads)]
    if op == 'vote_all':
        vals = [v if rnd.random() < 0.2 else 5 for v in vals]
    masks = [rnd.choice([0xffffffff, rnd.getrandbits(32) | 1, 1 << rnd.randint(0, 31),
                         0x0000ffff, 0xaaaaaaaa]) for _ in range(nthreads // 32)]
    full = rnd.random() < 0.3 or op == 'lanemask'
    if full:
        masks = [0xffffffff] * len(masks)
    mk = '' if full else ', mask = m'
    ot = 'i8' if op in ('vote_any', 'vote_all') else t if op.startswith('redux') else 'i32'
    if op == 'lanemask':
        which = rnd.choice(['lt', 'le', 'eq', 'ge', 'gt'])
        call = 'lanemask_%s()' % which
    elif op.startswith('vote'):
        call = '%s(v_in[i] > 4%s)' % (op, mk)
    else:
        call = '%s(v_in[i]%s)' % (op, mk)
    if ot == 'i8':
        call = '(%s as i8)' % call
    body = '  out[i] = %s\n' % call
    if not full:
        body = '  if ((m >> lane_id()) & 1) != 0 {\n    out[i] = %s\n  }\n' % call
    text = ('kernel %s(%s) threads(128) {\n  let i = block_id() * 128 + thread_id()\n'
            '  let m = m_in[i / 32]\n%s}\n' % (name, params([('in', 'v_in', t), ('in', 'm_in', 'i32'),
                                                          ('out', 'out', ot)]), body))

    def expect(i):
        lane, wp = i % 32, i // 32
        m = masks[wp] & 0xffffffff
        if not (m >> lane) & 1:
            return fill_value(ot)
        ls = [wp * 32 + k for k in range(32) if (m >> k) & 1]
        xs = [vals[k] for k in ls]
        if op == 'lanemask':
            rel = {'lt': lambda k: k < lane, 'le': lambda k: k <= lane, 'eq': lambda k: k == lane,
                   'ge': lambda k: k >= lane, 'gt': lambda k: k > lane}[which]
            return R.wrap('i32', sum(1 << k for k in range(32) if rel(k)))
        if op.startswith('vote'):
            ps = [x > 4 for x in xs]
            if op == 'vote_any':
                return int(any(ps))
            if op == 'vote_all':
                return int(all(ps))
            return R.wrap('i32', sum(1 << (k % 32) for k, p in zip(ls, ps) if p))
        if op.startswith('redux'):
            f = op[6:]
            acc = xs[0]
            for x in xs[1:]:
                acc = {'add': lambda a, b: R.wrap(t, a + b), 'min': min, 'max': max,
                       'and': lambda a, b: R.wrap(t, a & b), 'or': lambda a, b: R.wrap(t, a | b),
                       'xor': lambda a, b: R.wrap(t, a ^ b)}[f](acc, x)
            return acc
        me = R.ubits(t, vals[i])
        same = [k for k in ls if R.ubits(t, vals[k]) == me]
        if op == 'match_any':
            return R.wrap('i32', sum(1 << (k % 32) for k in same))
        return R.wrap('i32', m) if len(same) == len(ls) else 0

    def check(o):
        bad = []
        for i in range(nthreads):
            want = expect(i)
            if R.ubits(ot, o['out'][i]) != R.ubits(ot, want):
                bad.append('thread %d (lane %d, mask 0x%08x): expected %s, got %s'
                           % (i, i % 32, masks[i // 32], want, o['out'][i]))
        return bad
    bufs = [('in', 'v_in', t, vals), ('in', 'm_in', 'i32', [R.wrap('i32', m) for m in masks]),
            ('out', 'out', ot, nthreads)]
    return Case(name, text, bufs, 2, 128, check, 'warp')


# ---------------------------------------------------------------- atomics

ATOMIC_INT = ['i32', 'i64', 'u32', 'u64']
ATOMIC_FLOAT = ['f16', 'bf16', 'f32', 'f64']


def ftz(t, b):
    """b with a subnormal flushed to the zero of its sign."""
    d = R.decode(t, b)
    if d[0] == 'fin' and d[2] != 0 and d[2] < R.decode(t, 1 << R.FLOAT_FMT[t][1])[2]:
        return b & (1 << (R.bits_of(t) - 1))
    return b


def atomic_allowed(t, old, v):
    """The values an uncontended atomic_add may leave: the sum rounded once;
    for f32 also the sum with subnormal operands and result flushed to
    zero (memory.md: PTX atom.add.f32 flushes them, there is no .noftz)."""
    exact = G._canon(t, R.binop('+', t, old, v)) if R.is_float(t) else R.binop('+', t, old, v)
    if t != 'f32':
        return {exact}
    return {exact, ftz(t, G._canon(t, R.binop('+', t, ftz(t, old), ftz(t, v))))}


def atomic_apply(op, t, old, v, cmp=None):
    """The new value of an atomic `op` on `old` (memory.md, builtins.md)."""
    if op == 'add':
        return R.binop('+', t, old, v)
    if op == 'min':
        return min(old, v)
    if op == 'max':
        return max(old, v)
    if op == 'exch':
        return v
    if op in ('and', 'or', 'xor'):
        return R.binop({'and': '&', 'or': '|', 'xor': '^'}[op], t, old, v)
    if op == 'cas':
        return v if R.ubits(t, old) == R.ubits(t, cmp) else old
    raise ValueError(op)


def atomic_case(rnd, name):
    op = rnd.choice(['add', 'add', 'min', 'max', 'exch', 'and', 'or', 'xor', 'cas'])
    t = rnd.choice(ATOMIC_INT + (ATOMIC_FLOAT if op == 'add' else []))
    if op == 'add' and rnd.random() < 0.4:
        t = rnd.choice(ATOMIC_FLOAT)
    group = rnd.choice([1, 1, 4, 32, 128])          # threads per location
    space = rnd.choice(['global', 'global', 'shared'])
    used = rnd.random() < 0.75 or op == 'cas'
    order = rnd.choice(['', '', ', order = relaxed', ', order = acq_rel', ', order = sc',
                        ', order = acquire', ', order = release'])
    scope = rnd.choice(['', '', ', scope = cta', ', scope = gpu', ', scope = sys'])
    nthreads = 256
    nloc = nthreads // group
    exact = R.is_float(t) and group > 1            # float sums in any order: keep them exact
    if exact:
        init = [R.f_from_py(t, float(rnd.randint(-8, 8))) for _ in range(nloc)]
        vals = [R.f_from_py(t, float(rnd.choice([-2, -1, 1, 2, 3]))) for _ in range(nthreads)]
    else:
        init = [G.random_value(rnd, t) for _ in range(nloc)]
        vals = [G.random_value(rnd, t) for _ in range(nthreads)]
    if op == 'cas':
        if group == 1:
            cmps = [init[i] if rnd.random() < 0.5 else G.random_value(rnd, t) for i in range(nthreads)]
        else:
            cmps = [init[i // group] for i in range(nthreads)]
            vals = [R.wrap(t, init[i // group] + 1 + i) for i in range(nthreads)]   # distinct, != init
    else:
        cmps = [0] * nthreads
    args = 'c_in[i], v_in[i]' if op == 'cas' else 'v_in[i]'
    lines = ['  let i = block_id() * 128 + thread_id()']
    per_block = 128 // group if group <= 128 else 1
    if space == 'shared':
        lines += ['  let s = shared<%s>[%d]' % (t, per_block),
                  '  if thread_id() < %d {' % per_block,
                  '    s[thread_id()] = buf[block_id() * %d + thread_id()]' % per_block, '  }',
                  '  sync_threads()']
        loc = 's[thread_id() / %d]' % group
    else:
        loc = 'buf[i / %d]' % group
    call = 'atomic_%s(%s, %s%s%s)' % (op, loc, args, order, scope)
    lines.append('  ret[i] = %s' % call if used else '  %s' % call)
    if space == 'shared':
        lines += ['  sync_threads()', '  if thread_id() < %d {' % per_block,
                  '    buf[block_id() * %d + thread_id()] = s[thread_id()]' % per_block, '  }']
    bufs = [('in', 'buf', t, init), ('in', 'v_in', t, vals), ('in', 'c_in', t, cmps),
            ('out', 'ret', t, nthreads)]
    text = 'kernel %s(%s) threads(128) {\n%s\n}\n' % (name, params(bufs), '\n'.join(lines))

    def eq(a, b):
        return G.matches(t, {a}, b)

    def check(o):
        bad = []
        for loc in range(nloc):
            ths = list(range(loc * group, (loc + 1) * group))
            fin = o['buf'][loc]
            if group == 1 or op in ('add', 'min', 'max', 'and', 'or', 'xor', 'exch'):
                want = init[loc]
                for th in ths:
                    want = atomic_apply(op, t, want, vals[th], cmps[th])
            if group == 1:
                th = ths[0]
                allowed = atomic_allowed(t, init[loc], vals[th]) if op == 'add' else {want}
                if not G.matches(t, allowed, fin):
                    bad.append('location %d: %s %s %s: expected %s, got %s' % (
                        loc, G.show(t, init[loc]), op, G.show(t, vals[th]) + (
                            ' (compare %s)' % G.show(t, cmps[th]) if op == 'cas' else ''),
                        shows(t, allowed), G.show(t, fin)))
                if used and not (R.ubits(t, o['ret'][th]) == R.ubits(t, init[loc])):
                    bad.append('location %d: returned %s, not the old value %s'
                               % (loc, G.show(t, o['ret'][th]), G.show(t, init[loc])))
                continue
            if op == 'cas':
                won = [th for th in ths if o['ret'][th] == init[loc]]
                if len(won) != 1 or fin != vals[won[0]] or any(
                        o['ret'][th] != fin for th in ths if th != won[0]):
                    bad.append('location %d: compare-and-swap by %d threads: %d won, final %s'
                               % (loc, group, len(won), G.show(t, fin)))
                continue
            if op in ('add', 'xor') and not eq(want, fin):
                bad.append('location %d: expected %s, got %s' % (loc, G.show(t, want), G.show(t, fin)))
                continue
            if op in ('min', 'max', 'and', 'or') and fin != want:
                bad.append('location %d: expected %s, got %s' % (loc, G.show(t, want), G.show(t, fin)))
                continue
            if not used:
                continue
            rets = [o['ret'][th] for th in ths]
            if op in ('add', 'xor'):
                after = sorted([init[loc]] + [atomic_apply(op, t, r, vals[th]) for r, th in zip(rets, ths)])
                if after != sorted(rets + [fin]):
                    bad.append('location %d: the returned values are no order of the %d %s operations'
                               % (loc, group, op))
            elif op == 'exch':
                if sorted(rets + [fin]) != sorted([init[loc]] + [vals[th] for th in ths]):
                    bad.append('location %d: the exchanged values are no permutation' % loc)
            else:
                for r in rets:
                    if atomic_apply(op, t, r, fin) != fin or atomic_apply(op, t, init[loc], r) != r:
                        bad.append('location %d: returned %s, not between %s and %s'
                                   % (loc, G.show(t, r), G.show(t, init[loc]), G.show(t, fin)))
                        break
        return bad
    return Case(name, text, bufs, 2, 128, check, 'atomic')


# ---------------------------------------------------------------- vectors

VEC_FLOAT = [('f16', 2), ('f16', 4), ('f16', 8), ('bf16', 2), ('bf16', 4), ('bf16', 8),
             ('f32', 2), ('f32', 4), ('f64', 2)]
VEC_INT = [('i8', 4), ('i8', 8), ('u8', 4), ('i16', 2), ('i16', 8), ('u16', 4), ('i32', 2),
           ('i32', 4), ('u32', 4), ('i64', 2), ('u64', 2)]
VSLOTS = 3                     # input vectors per row and type


def vec_ok(e, n):
    return n in (2, 4, 8) and n * R.SIZE[e] in (4, 8, 16)


class VecGen:
    """Trees over vec<E, N>: ('load', k), ('build', [scalar leaves]),
    ('lit', [bits]), ('perm', a, [indices]), ('bin', op, a, b), ('neg', a),
    ('mm', min|max, a, b), ('cast', a) (a of another float type, same N).
    Scalar leaves: ('sload', k) = in_E[...] or ('elem', tree, k)."""

    def __init__(self, rnd):
        self.rnd = rnd
        self.types = set()

    def tree(self, e, n, depth):
        rnd = self.rnd
        self.types.add(e)
        fl = R.is_float(e)
        if depth <= 0 or rnd.random() < 0.15:
            k = rnd.random()
            if k < 0.6:
                return ('load', e, n, rnd.randrange(VSLOTS))
            if k < 0.85 or not fl:
                return ('build', e, n, [self.scalar(e, n, depth - 1) for _ in range(n)])
            return ('lit', e, n, [G.random_value(rnd, e) for _ in range(n)])
        ops = ['perm', 'build'] + (['bin', 'bin', 'bin', 'neg', 'mm', 'cast'] if fl else [])
        k = rnd.choice(ops)
        if k == 'perm':
            return ('perm', e, n, self.tree(e, n, depth - 1), [rnd.randrange(n) for _ in range(n)])
        if k == 'build':
            return ('build', e, n, [self.scalar(e, n, depth - 1) for _ in range(n)])
        if k == 'bin':
            a = self.tree(e, n, depth - 1)
            b = self.tree(e, n, depth - 1) if rnd.random() < 0.8 else \
                ('lit', e, n, [G.random_value(rnd, e) for _ in range(n)])
            return ('bin', e, n, rnd.choice(['+', '-', '*']), a, b)
        if k == 'neg':
            return ('neg', e, n, self.tree(e, n, depth - 1))
        if k == 'mm':
            return ('mm', e, n, rnd.choice(['min', 'max']), self.tree(e, n, depth - 1),
                    self.tree(e, n, depth - 1))
        src = [f for f in ('f16', 'bf16', 'f32', 'f64') if f != e and vec_ok(f, n)]
        if not src:
            return self.tree(e, n, depth - 1)
        return ('cast', e, n, self.tree(rnd.choice(src), n, depth - 1))

    def scalar(self, e, n, depth):
        if depth > 0 and self.rnd.random() < 0.4:
            return ('elem', self.tree(e, n, depth - 1), self.rnd.randrange(n))
        return ('sload', e, self.rnd.randrange(VSLOTS * 8))


def vec_eval(node, env):
    """A list (per element) of sets of allowed values."""
    k, e, n = node[0], node[1], node[2]
    if k == 'load':
        return [{env[e][node[3] * n + j]} for j in range(n)]
    if k == 'lit':
        return [{v} for v in node[3]]
    if k == 'build':
        return [scalar_eval(s, env) for s in node[3]]
    if k == 'perm':
        a = vec_eval(node[3], env)
        return [a[j] for j in node[4]]
    if k == 'neg':
        return [{R.unop('-', e, x) for x in s} for s in vec_eval(node[3], env)]
    if k == 'cast':
        src = node[3][1]
        return [{G._canon(e, R.cast(src, e, x)) for x in s} for s in vec_eval(node[3], env)]
    a, b = vec_eval(node[4], env), vec_eval(node[5], env)
    out = []
    for sa, sb in zip(a, b):
        r = set()
        for x in sa:
            for y in sb:
                if k == 'bin':
                    r.add(G._canon(e, R.binop(node[3], e, x, y)))
                else:
                    v = R.fmin_max(node[3], e, x, y)
                    r |= set(v[1:]) if isinstance(v, tuple) else {v}
        out.append(r)
    return out


def scalar_eval(s, env):
    if s[0] == 'sload':
        return {env['s' + s[1]][s[2]]}
    return vec_eval(s[1], env)[s[2]]


class VecEmitter:
    def __init__(self):
        self.lines, self.count = [], 0

    def emit(self, node, ind='  '):
        """The name of a `let` holding node's value."""
        k, e, n = node[0], node[1], node[2]
        vt = 'vec<%s, %d>' % (e, n)
        if k == 'load':
            text = 'load(in_%s[i * %d + %d], vector = %d)' % (e, VSLOTS * 8, node[3] * n, n)
        elif k == 'lit':
            text = '{%s}' % ', '.join(G.lit_text(e, v) if R.decode(e, v)[0] != 'nan' else
                                      'bitcast<%s>(0x%x)' % (e, v) for v in node[3])
        elif k == 'build':
            text = '{%s}' % ', '.join(self.scalar(s) for s in node[3])
        elif k == 'perm':
            a = self.emit(node[3])
            names = 'xyzw'
            text = '{%s}' % ', '.join('%s.%s' % (a, names[j]) if j < 4 and j % 2 else '%s[%d]' % (a, j)
                                      for j in node[4])
        elif k == 'neg':
            text = '-%s' % self.emit(node[3])
        elif k == 'cast':
            text = '%s as %s' % (self.emit(node[3]), vt)
        elif k == 'bin':
            a = self.emit(node[4])
            b = self.emit(node[5]) if node[5][0] != 'lit' else \
                '{%s}' % ', '.join(G.lit_text(e, v) if R.decode(e, v)[0] != 'nan' else
                                   'bitcast<%s>(0x%x)' % (e, v) for v in node[5][3])
            text = '%s %s %s' % (a, node[3], b)
        else:
            text = '%s(%s, %s)' % (node[3], self.emit(node[4]), self.emit(node[5]))
        name = 'v%d' % self.count
        self.count += 1
        self.lines.append('%slet %s: %s = %s' % (ind, name, vt, text))
        return name

    def scalar(self, s):
        if s[0] == 'sload':
            return 's_%s[i * %d + %d]' % (s[1], VSLOTS * 8, s[2])
        return '%s[%d]' % (self.emit(s[1]), s[2])


VEC_TYPES_ALL = ['f16', 'bf16', 'f32', 'f64', 'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64']


def vector_case(rnd, name, rows=256, programs=6):
    """`programs` vector trees on `rows` threads, each stored whole."""
    vg = VecGen(rnd)
    trees = []
    for _ in range(programs):
        e, n = rnd.choice(VEC_FLOAT + VEC_FLOAT + VEC_INT)
        trees.append(vg.tree(e, n, rnd.randint(1, 4)))
    types = [t for t in VEC_TYPES_ALL if t in vg.types]
    env_in = {t: [G.random_value(rnd, t) for _ in range(rows * VSLOTS * 8)] for t in types}
    env_s = {t: [G.random_value(rnd, t) for _ in range(rows * VSLOTS * 8)] for t in types}
    for t in types:         # the first rows: edge values
        ev = G.edge_values(t)
        for j in range(min(len(env_in[t]), 32 * VSLOTS * 8)):
            env_in[t][j] = ev[(j * 7) % len(ev)]
    outs = {}
    em = VecEmitter()
    stores = []
    for p, tr in enumerate(trees):
        e, n = tr[1], tr[2]
        slot = -(-outs.get(e, 0) // n) * n           # aligned to the vector
        outs[e] = slot + n
        v = em.emit(tr, '    ')
        stores.append((p, e, n, slot))
        em.lines.append('    store(out_%s[i * OUTW + %d], %s)' % (e, slot, v))
    width = {e: max(8, ((w + 7) // 8) * 8) for e, w in outs.items()}
    lines = []
    for ln in em.lines:
        m = ln.find('out_')
        if m >= 0:
            e = ln[m + 4:].split('[')[0]
            ln = ln.replace('OUTW', str(width[e]))
        lines.append(ln)
    bufs = [('in', 'in_' + t, t, env_in[t]) for t in types] + \
           [('in', 's_' + t, t, env_s[t]) for t in types] + \
           [('out', 'out_' + e, e, rows * width[e]) for e in sorted(outs)]
    text = ('kernel %s(%s) threads(128) {\n  for i in grid_range(n) {\n%s\n  }\n}\n'
            % (name, params(bufs), '\n'.join(lines)))

    def check(o):
        bad = []
        for p, e, n, slot in stores:
            nbad = 0
            for r in range(rows):
                env = {t: env_in[t][r * VSLOTS * 8:(r + 1) * VSLOTS * 8] for t in types}
                env.update({'s' + t: env_s[t][r * VSLOTS * 8:(r + 1) * VSLOTS * 8] for t in types})
                want = vec_eval(trees[p], env)
                got = o['out_' + e][r * width[e] + slot:r * width[e] + slot + n]
                for j in range(n):
                    if not G.matches(e, want[j], got[j]):
                        nbad += 1
                        if nbad <= 2:
                            bad.append('program %d (%s), row %d, element %d: expected %s, got %s'
                                       % (p, 'vec<%s, %d>' % (e, n), r, j, shows(e, want[j]),
                                          G.show(e, got[j])))
            if nbad > 2:
                bad.append('program %d: %d mismatching elements in all' % (p, nbad))
        return bad
    return Case(name, text, bufs, 2, 128, check, 'vector')


# ---------------------------------------------------------------- vectors, folded

def _vlit(e, v):
    if R.is_float(e) and R.decode(e, v)[0] == 'nan':
        return 'bitcast<%s>(0x%x)' % (e, v)
    return G.lit_text(e, v)


def _literal(node, env):
    """node with its loads replaced by literals of env's values."""
    k = node[0]
    if k == 'load':
        e, n = node[1], node[2]
        return ('lit', e, n, [env[e][node[3] * n + j] for j in range(n)])
    if k == 'lit':
        return node
    if k == 'build':
        return node[:3] + ([_lit_scalar(s, env) for s in node[3]],)
    if k in ('perm',):
        return node[:3] + (_literal(node[3], env), node[4])
    if k in ('neg', 'cast'):
        return node[:3] + (_literal(node[3], env),)
    return node[:4] + (_literal(node[4], env), _literal(node[5], env))


def _lit_scalar(s, env):
    if s[0] == 'sload':
        return ('slit', s[1], env['s' + s[1]][s[2]])
    return ('elem', _literal(s[1], env), s[2])


class FoldEmitter(VecEmitter):
    def emit(self, node, ind='  '):
        if node[0] == 'lit':
            e, n = node[1], node[2]
            name = 'v%d' % self.count
            self.count += 1
            self.lines.append('%slet %s: vec<%s, %d> = {%s}' % (ind, name, e, n,
                                                               ', '.join(_vlit(e, v) for v in node[3])))
            return name
        return VecEmitter.emit(self, node, ind)

    def scalar(self, s):
        if s[0] == 'slit':
            return _vlit(s[1], s[2])
        return VecEmitter.scalar(self, s)


STORE = re.compile(r'st\.global(?:\.v(\d))?\.b(\d+)\s+\[%rd\d+(?:\+(\d+))?\],\s*(\{[^}]*\}|[^;]+);')


def folded_bytes(body, size, parse_imm):
    """The bytes the stores of a kernel body write (None: not all immediates)."""
    out = bytearray(size)
    seen = 0
    for m in STORE.finditer(body):
        bits, off = int(m.group(2)), int(m.group(3) or 0)
        ops = [o.strip() for o in m.group(4).strip('{}').split(',')]
        for j, op in enumerate(ops):
            if op.startswith('%'):
                mv = re.search(r'^\s*mov\.b%d\s+%s,\s*([^;]+);' % (bits, re.escape(op)), body, re.M)
                op = mv.group(1) if mv else op
            v = parse_imm(op, bits)
            if v is None:
                return None
            at = off + j * bits // 8
            if at + bits // 8 > size:
                return None
            out[at:at + bits // 8] = v.to_bytes(bits // 8, 'little')
            seen += bits // 8
    return bytes(out) if seen == size else None


def vector_fold(seed, count, compile_units, parse_imm, verbose=False):
    """`count` vector trees with literal inputs, folded by MLIR/LLVM: each
    kernel's stores must write the reference's elements. Returns (checked,
    not folded, mismatch texts)."""
    rnd = random.Random(seed)
    vg = VecGen(rnd)
    units, progs = [], []
    for k in range(count):
        e, n = rnd.choice(VEC_FLOAT + VEC_FLOAT + VEC_INT)
        tr = vg.tree(e, n, rnd.randint(1, 4))
        env = {}
        for t in VEC_TYPES_ALL:
            env[t] = [G.random_value(rnd, t) for _ in range(VSLOTS * 8)]
            env['s' + t] = [G.random_value(rnd, t) for _ in range(VSLOTS * 8)]
        em = FoldEmitter()
        v = em.emit(_literal(tr, env))
        units.append('kernel vf_%d(out: ptr<%s, global>) {\n%s\n  store(out[0], %s)\n}\n'
                     % (k, e, '\n'.join(em.lines), v))
        progs.append((e, n, vec_eval(tr, env)))
    ptx, rejected = compile_units(units)
    bodies = {m.group(1): m.group(2) for m in re.finditer(r'\.entry (\w+)\((.*?)\n}', ptx, re.S)}
    bad, checked, notfolded = [], 0, 0
    for k, (e, n, want) in enumerate(progs):
        if k in rejected:
            bad.append('tilec rejected a folded vector program: %s\n%s' % ('; '.join(rejected[k]), units[k]))
            continue
        data = folded_bytes(bodies.get('vf_%d' % k, ''), n * R.SIZE[e], parse_imm)
        if data is None:
            notfolded += 1
            if verbose:
                print('semfuzz: vector program not folded to stored immediates:\n%s' % units[k])
            continue
        checked += 1
        got = G.from_bytes(e, data)
        for j in range(n):
            if not G.matches(e, want[j], got[j]):
                bad.append('MISMATCH (folded vector) element %d: expected %s, got %s\n%s'
                           % (j, shows(e, want[j]), G.show(e, got[j]), units[k]))
                break
    return checked, notfolded, bad
