"""semfuzz: `mma` and the fragment paths around it (docs/reference/mma.md,
tma-and-rings.md), one kernel per case.

A case multiplies random operands (normal data rounded to the operand type,
never zero) with wgmma: f16, bf16, e4m3/e5m2 (any pair); an f32 or f16
accumulator, overwritten (`mma(a, b, zeros)`), started from +0 (`var acc =
zeros`) or loaded (`load_frag`); 1-3 products into one accumulator, written
out, in a constant loop or in a loop of a run-time trip count, from a
shared tile of several chunks (`rows(t, j, n)`). A comes from a shared tile
(K-major, or MN-major through `trans()`) or from registers (a fragment
converted to the operand type, scaled first: overflow, satfinite, NaN); B
K-major (`trans()` of [N, K]) or MN-major ([K, N]). Tiles are filled by
generic stores, by TMA (`copy_async` of a tensor parameter) or by fragment
stores (`store(rows(t, i, 64), f as T)`). One warpgroup (`threads(128)`) or
two consumer warpgroups of a `warpgroups` block.

After the product: the accumulator is stored raw and checked against the
exact product within the documented accumulation bound (mma.md,
"Precision"); a chained second product reads it converted (in registers, or
through a fragment store into a shared tile); and random element-wise
epilogues (semfuzz_frag's trees with x0 = the accumulator) are stored to
global memory (any even stride), to a shared tile (read back), or reduced
(row_sum/row_max), and checked bit for bit against the reference applied to
the accumulator the GPU returned.
"""
import bisect
import math
import struct

import semfuzz_ref as R
import semfuzz_gen as G
import semfuzz_frag as F
from semfuzz_ext import shows

ES = {'f16': 2, 'bf16': 2, 'e4m3': 1, 'e5m2': 1, 'f32': 4}


class MmaCase:
    def __init__(self, name):
        self.name = name
        self.params = []        # ('buf', name, type, values|None, count) | ('tensor', name, type, R, C, values) | ('i32'|'f32', name, value)
        self.lines = []
        self.tiles = []
        self.threads = 128
        self.family = 'mma'
        self.check = None
        self.text = ''

    def buf(self, name, t, values=None, count=0):
        self.params.append(('buf', name, t, values, count if values is None else len(values)))

    def tensor_box(self, t, c):
        """The TMA box and swizzle of a [R, C] tile (tma-and-rings.md)."""
        inner = c * ES[t]
        swz = {32: 32, 64: 64}.get(inner, 128)
        return (min(c, 128 // ES[t]), swz)


def valid_inner(t, c):
    b = c * ES[t]
    return b in (32, 64, 128) or (b % 128 == 0 and c <= 256)


_FP8 = {}


def _fp8_table(t):
    if t not in _FP8:
        pos = sorted((R.f_to_py(t, b), b) for b in range(0x80) if not math.isinf(R.f_to_py(t, b))
                     and not math.isnan(R.f_to_py(t, b)))
        _FP8[t] = ([v for v, _ in pos], [b for _, b in pos], [R.f_to_py(t, b) for b in range(256)])
    return _FP8[t]


def to_bits(t, x):
    """Bits of the t value nearest to the Python float x (round to nearest
    even; fp8 with satfinite): R.f_from_py, fast where the host's own
    conversions are exact (one rounding)."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return R.f_from_py(t, x)
    try:
        if t == 'f32':
            return struct.unpack('<I', struct.pack('<f', x))[0]
        if t == 'f16':
            return struct.unpack('<H', struct.pack('<e', x))[0]
        if t == 'bf16':
            b = struct.unpack('<I', struct.pack('<f', x))[0]
            if struct.unpack('<f', struct.pack('<I', b))[0] == x and (b >> 23) & 0xff not in (0, 0xff):
                return (b + 0x7fff + ((b >> 16) & 1)) >> 16
            return R.f_from_py(t, x)
    except OverflowError:
        return R.f_from_py(t, x)
    if t in ('e4m3', 'e5m2'):
        vals, bits, _ = _fp8_table(t)
        a = abs(x)
        i = bisect.bisect_left(vals, a)
        if i == len(vals):
            b = bits[-1]                                     # satfinite
        elif vals[i] == a:
            b = bits[i]
        else:                                                # vals[0] is +0
            lo, hi = vals[i - 1], vals[i]
            b = bits[i - 1] if a - lo < hi - a or (a - lo == hi - a and bits[i - 1] % 2 == 0) else bits[i]
        return b | (0x80 if x < 0 else 0)
    return R.f_from_py(t, x)


def to_py(t, b):
    if t == 'f32':
        return struct.unpack('<f', struct.pack('<I', b))[0]
    if t == 'f16':
        return struct.unpack('<e', struct.pack('<H', b))[0]
    if t == 'bf16':
        return struct.unpack('<f', struct.pack('<I', b << 16))[0]
    if t in ('e4m3', 'e5m2'):
        return _fp8_table(t)[2][b]
    return R.f_to_py(t, b)


def nonzero(rnd, t, scale=1.0):
    while True:
        v = to_bits(t, to_py('f32', to_bits('f32', rnd.gauss(0.0, 1.0) * scale)))
        if to_py(t, v) != 0:
            return v


def bound_rule(ta, acc_t, steps):
    """(relative, absolute) of the documented accumulation bound: mma.md
    'Precision': per wgmma instruction 2^-21 of the magnitudes for 16-bit
    operands into f32, 2^-12 for fp8, 2^-10 for an f16 accumulator."""
    p = 2.0 ** -12 if ta in ('e4m3', 'e5m2') else 2.0 ** -21
    if acc_t == 'f16':
        p = max(p, 2.0 ** -10)
    return (steps + 1) * p, (steps + 1) * (2.0 ** -24 if acc_t == 'f16' else 2.0 ** -126)


def product_ok(acc_t, terms, c0, got, rel, ab):
    """Whether got (bits of acc_t) is c0 + sum(terms) within the bound."""
    g = to_py(acc_t, got)
    vals = terms + [c0]
    top = R.f_to_py(acc_t, R.max_finite_bits(acc_t, 0))
    fin = [v for v in vals if not math.isinf(v)]
    mag = math.fsum(abs(v) for v in fin)
    if mag * (1 + rel) + ab >= top and (math.isinf(g) or math.isnan(g)):
        return True                         # a partial sum may overflow: any infinity or NaN
    if any(math.isnan(v) for v in vals) or (math.inf in vals and -math.inf in vals):
        return math.isnan(g)
    if math.inf in vals or -math.inf in vals:
        return g == (math.inf if math.inf in vals else -math.inf)
    exact = math.fsum(vals)
    err = rel * mag + ab
    if math.isnan(g) or math.isinf(g):
        return False
    return abs(g - exact) <= err


class Builder:
    """One random case: the kernel text, its parameters, and the checker."""

    def __init__(self, rnd, name):
        self.rnd, self.c = rnd, MmaCase(name)
        self.ind = '  '
        self.body = []
        self.fills = []
        self.fills_decl = []
        self.tma = []
        self.ring = None
        self.roles = False

    def line(self, s):
        self.body.append(self.ind + s)

    # ------------------------------------------------------------ tiles

    def tile(self, nm, t, rows, cols, values, allow_frag=True):
        """A shared tile [rows, cols] of t holding values (bits, row-major),
        filled by generic stores, TMA or fragment stores."""
        rnd, c = self.rnd, self.c
        self.c.tiles.append((nm, t, rows, cols))
        self.fills_decl.append('  let %s = shared<%s>[%d, %d]' % (nm, t, rows, cols))
        ways = ['plain', 'tma', 'tma']
        if allow_frag and t in ('f16', 'bf16') and rows % 64 == 0 and cols % 8 == 0 and cols <= 128 \
                and c.threads == 128:
            ways.append('frag')
        how = rnd.choice(ways)
        if how == 'plain':
            c.buf(nm + '_in', t, values)
            self.fills.append('  for e in block_range(%d) { %s[e / %d, e %% %d] = %s_in[e] }'
                              % (rows * cols, nm, cols, cols, nm))
        elif how == 'tma':
            c.params.append(('tensor', nm.upper() + '_T', t, rows, cols, values))
            self.tma.append('    copy_async(%s, %s_T[0, 0], bar)' % (nm, nm.upper()))
        else:
            c.buf(nm + '_in', 'f32', [to_bits('f32', to_py(t, v)) for v in values])
            for i in range(rows // 64):
                self.fills.append('  store(rows(%s, %d, 64), load_frag(%s_in + %d, zeros<f32>[64, %d], '
                                  'row_stride = %d) as %s)' % (nm, i, nm, i * 64 * cols, cols, cols, t))
        return how

    # ------------------------------------------------------------ the case

    def build(self):
        rnd, c = self.rnd, self.c
        kind = rnd.choice(['f16', 'bf16', 'f16', 'bf16', 'fp8', 'fp8'])
        if kind == 'fp8':
            ta, tb = rnd.choice(['e4m3', 'e5m2']), rnd.choice(['e4m3', 'e5m2'])
        else:
            ta = tb = kind
        fp8 = kind == 'fp8'
        acc_t = 'f16' if rnd.random() < 0.25 and ta != 'bf16' else 'f32'    # bf16 x bf16: f32 only
        W = 2 if rnd.random() < 0.3 else 1
        M = 64 if W == 2 or rnd.random() < 0.6 else 128
        kstep = 32 if fp8 else 16
        asrc = rnd.choice(['K', 'K', 'reg'] + ([] if fp8 or W == 2 else ['MN']))
        bsrc = 'K' if fp8 else rnd.choice(['K', 'MN'])
        T = rnd.choice([1, 1, 2, 3])
        # K: the A/B K-major tiles need a swizzle inner extent; MN-major ones an N/M extent
        ks = [k for k in (16, 32, 64, 128, 256) if k % kstep == 0 and k * ES[ta] <= 256]
        if asrc == 'K' or bsrc == 'K':
            ks = [k for k in ks if valid_inner(ta, k)]
        K = rnd.choice(ks)
        if bsrc == 'MN':
            ns = [n for n in (16, 32, 64, 128, 192, 256) if valid_inner(tb, n)]
        else:
            ns = list(range(8, 257, 8))
        if bsrc == 'MN' or asrc == 'MN':
            T = min(T, 256 // K)
        if asrc == 'K':
            T = min(T, 256 // (W * M))
        extra = rnd.random() < 0.85          # a chained product or epilogues: more live fragments
        cap = 4096 if extra else 16384 if M == 64 else 8192     # N up to 256 for one [64, N] accumulator
        fit = [n for n in ns if M * n <= cap and (bsrc != 'K' or T * n <= 256)]
        N = rnd.choice(fit or [n for n in ns if M * n <= cap] or [min(ns)])
        if not fit:
            T = 1
        if T * W * M * K * ES[ta] + T * N * K * ES[tb] > 120 * 1024:
            T = 1
        # a producer role filling a ring by TMA, W consumer warpgroups multiplying in consume blocks
        stage = (W * M * K * ES[ta] if asrc == 'K' else 0) + N * K * ES[tb]
        ring = T >= 2 and asrc != 'MN' and rnd.random() < 0.35 and 2 * stage <= 150 * 1024
        self.roles = ring or W == 2
        init = rnd.choice(['zerovar', 'load'] if ring else ['zeros', 'zerovar', 'load'])
        form = rnd.choice(['loop', 'rtloop']) if ring else \
            rnd.choice(['unrolled', 'loop', 'rtloop']) if T > 1 else 'unrolled'
        if ring:
            stages = 3 if 3 * stage <= 150 * 1024 and rnd.random() < 0.5 else 2
            inflight = 0 if asrc == 'reg' else rnd.choice([0, 1])
            self.ring = (stages, inflight, asrc == 'K', bsrc)
            form = 'ring %d/%d %s' % (stages, inflight, form)
        c.threads = 128 * (W + (1 if ring else 0))
        self.spec = dict(ta=ta, tb=tb, acc_t=acc_t, W=W, M=M, N=N, K=K, T=T, asrc=asrc, bsrc=bsrc,
                         init=init, form=form)
        # logical operands: A[w][j][m][k], B[j][k][n] as bits of the operand type
        sc = 1.0
        regconv = None
        if asrc == 'reg':
            regconv = rnd.choice(['f32', 'f32', 'direct'] if not fp8 else ['f32'])
            if regconv == 'f32':
                sc = rnd.choice([1.0, 1.0, 64.0, 1000.0] if fp8 else [1.0, 1.0, 3.0e4, 1.0e5])
        A = [[[[nonzero(rnd, ta) for _ in range(K)] for _ in range(M)] for _ in range(T)] for _ in range(W)]
        B = [[[nonzero(rnd, tb) for _ in range(N)] for _ in range(K)] for _ in range(T)]
        # ---- A
        if asrc == 'K':
            vals = []
            for j in range(T):
                for w in range(W):
                    for m in range(M):
                        vals += A[w][j][m]
            if ring:
                c.params.append(('tensor', 'A_T', ta, T * W * M, K, vals, W * M))
            else:
                self.tile('ta', ta, T * W * M, K, vals)
        elif asrc == 'MN':
            vals = [A[0][j][m][k] for j in range(T) for k in range(K) for m in range(M)]
            self.tile('ta', ta, T * K, M, vals)
        else:
            if regconv == 'f32':        # f32 data the conversion rounds (and scales)
                raw = [[[[to_bits('f32', rnd.gauss(0.0, 1.0)) for _ in range(K)] for _ in range(M)]
                        for _ in range(T)] for _ in range(W)]
                if fp8 and rnd.random() < 0.3:
                    raw[0][0][rnd.randrange(M)][rnd.randrange(K)] = R.nan_bits('f32')
                for w in range(W):
                    for j in range(T):
                        for m in range(M):
                            for k in range(K):
                                A[w][j][m][k] = to_bits(ta, to_py('f32', to_bits('f32', to_py('f32', raw[w][j][m][k]) * sc)))
                flat = [v for j in range(T) for w in range(W) for m in range(M) for v in raw[w][j][m]]
                c.buf('ar_in', 'f32', flat)
            else:
                flat = [v for j in range(T) for w in range(W) for m in range(M) for v in A[w][j][m]]
                c.buf('ar_in', ta, flat)
        # ---- B
        if bsrc == 'K':
            vals = [B[j][k][n] for j in range(T) for n in range(N) for k in range(K)]
            if ring:
                c.params.append(('tensor', 'B_T', tb, T * N, K, vals, N))
            else:
                self.tile('tb', tb, T * N, K, vals)
        else:
            vals = [B[j][k][n] for j in range(T) for k in range(K) for n in range(N)]
            if ring:
                c.params.append(('tensor', 'B_T', tb, T * K, N, vals, K))
            else:
                self.tile('tb', tb, T * K, N, vals)
        c.params.append(('i32', 'kt', T))
        c.params.append(('f32', 'sc', sc))
        # ---- C
        C0 = None
        if init == 'load':
            C0 = [[nonzero(rnd, acc_t, 4.0) for _ in range(M * N)] for _ in range(W)]
            c.buf('c_in', acc_t, [v for w in range(W) for v in C0[w]])
        wgx = ' + wg * %d' % (M * N) if W == 2 else ''

        def aview(j):
            if asrc == 'K' and ring:
                return 'rows(s.a, wg, %d)' % M if W == 2 else 's.a'
            if asrc == 'K':
                if T * W == 1 and rnd.random() < 0.5:
                    return 'ta'
                return 'rows(ta, %s, %d)' % (j if W == 1 else '%s * 2 + wg' % j, M)
            if asrc == 'MN':
                return 'trans(ta)' if T == 1 and rnd.random() < 0.5 else 'trans(rows(ta, %s, %d))' % (j, K)
            off = '%s * %d' % (j, W * M * K) + (' + wg * %d' % (M * K) if W == 2 else '')
            if regconv == 'direct':
                return 'load_frag(ar_in + %s, zeros<%s>[%d, %d], row_stride = %d)' % (off, ta, M, K, K)
            f = 'load_frag(ar_in + %s, zeros<f32>[%d, %d], row_stride = %d)' % (off, M, K, K)
            return '(%s * sc) as %s' % (f, ta) if sc != 1.0 else '%s as %s' % (f, ta)

        def bview(j):
            if ring:
                return 'trans(s.b)' if bsrc == 'K' else 's.b'
            if bsrc == 'K':
                return 'trans(tb)' if T == 1 and rnd.random() < 0.5 else 'trans(rows(tb, %s, %d))' % (j, N)
            return 'tb' if T == 1 and rnd.random() < 0.5 else 'rows(tb, %s, %d)' % (j, K)

        zero = 'zeros<%s>[%d, %d]' % (acc_t, M, N)
        first = 0
        if init == 'zeros':
            self.line('var acc = mma(%s, %s, %s)' % (aview(0), bview(0), zero))
            first = 1
        elif init == 'zerovar':
            self.line('var acc = %s' % zero)
        else:
            self.line('var acc = load_frag(c_in%s, %s, row_stride = %d)' % (wgx, zero, N))
        if ring:
            self.line('for j in 0 .. %s {' % ('kt' if 'rtloop' in form else T))
            self.line('  consume ring as s inflight(%d) { acc = mma(%s, %s, acc) }' % (inflight, aview('j'), bview('j')))
            self.line('}')
        elif form == 'unrolled':
            for j in range(first, T):
                self.line('acc = mma(%s, %s, acc)' % (aview(j), bview(j)))
        elif first < T:
            self.line('for j in %d .. %s {' % (first, 'kt' if form == 'rtloop' else T))
            self.line('  acc = mma(%s, %s, acc)' % (aview('j'), bview('j')))
            self.line('}')
        c.buf('o_acc', acc_t, count=W * M * N)
        self.line('store(o_acc%s, acc, row_stride = %d)' % (wgx, N))
        steps = T * (K // kstep)
        rel, ab = bound_rule(ta, acc_t, steps)
        Afl = [[[[to_py(ta, v) for v in row] for row in A[w][j]] for j in range(T)] for w in range(W)]
        Bfl = [[[to_py(tb, v) for v in row] for row in B[j]] for j in range(T)]
        checks = [('mma', (M, N, acc_t, 'o_acc', Afl, Bfl, C0, rel, ab, T, K))]
        # ---- a second product reading the accumulator
        if extra and acc_t == 'f32' and rnd.random() < 0.4:
            checks.append(self.chain(M, N, W, wgx))
        # ---- epilogues
        if extra and rnd.random() < 0.85:
            checks += self.epilogue(M, N, W, acc_t, wgx)
        return self.finish(checks)

    def chain(self, M, N, W, wgx):
        """acc2 = mma(acc converted, b2, zeros): in registers or through a
        fragment store into a shared tile."""
        rnd, c = self.rnd, self.c
        via = rnd.choice(['reg', 'smem']) if valid_inner('f16', N) and N % 16 == 0 and N <= 128 else 'reg'
        t2s = ['f16', 'bf16'] + (['e4m3', 'e5m2'] if via == 'reg' and N % 32 == 0 else [])
        if N % 16:
            return ('none', None)
        t2 = rnd.choice(t2s)
        fp8 = t2 in ('e4m3', 'e5m2')
        tb2 = rnd.choice(['e4m3', 'e5m2']) if fp8 else t2
        bsrc = 'K' if fp8 else rnd.choice(['K', 'MN'])
        if bsrc == 'K':
            if not valid_inner(tb2, N):
                return ('none', None)
            N2 = rnd.choice([n for n in range(8, 129, 8) if M * n <= 4096])
        else:
            N2 = rnd.choice([n for n in (16, 32, 64, 128) if M * n <= 4096])
        B2 = [[nonzero(rnd, tb2) for _ in range(N2)] for _ in range(N)]
        if bsrc == 'K':
            self.tile('tb2', tb2, N2, N, [B2[k][n] for n in range(N2) for k in range(N)], allow_frag=False)
            bv = 'trans(tb2)'
        else:
            self.tile('tb2', tb2, N, N2, [v for row in B2 for v in row], allow_frag=False)
            bv = 'tb2'
        sc2 = rnd.choice([1.0, 0.5, 300.0] if not fp8 else [1.0, 8.0, 100.0])
        c.params.append(('f32', 'sc2', sc2))
        src = 'acc * sc2' if sc2 != 1.0 else 'acc'
        if via == 'reg':
            av = '(%s) as %s' % (src, t2)
        else:
            self.fills_decl.append('  let tp = shared<%s>[%d, %d]' % (t2, W * M, N))
            self.c.tiles.append(('tp', t2, W * M, N))
            self.line('store(%s, (%s) as %s)' % ('rows(tp, wg, %d)' % M if W == 2 else 'tp', src, t2))
            self.line('sync_threads()')
            av = 'rows(tp, wg, %d)' % M if W == 2 else 'tp'
        c.buf('o_acc2', 'f32', count=W * M * N2)
        self.line('let acc2 = mma(%s, %s, zeros<f32>[%d, %d])' % (av, bv, M, N2))
        self.line('store(o_acc2%s, acc2, row_stride = %d)' % (wgx.replace(str(M * N), str(M * N2)), N2))
        rel, ab = bound_rule(t2, 'f32', N // (32 if fp8 else 16))
        B2f = [[to_py(tb2, v) for v in row] for row in B2]
        return ('chain', (M, N, N2, t2, sc2, B2f, rel, ab, via))

    def epilogue(self, M, N, W, t, wgx):
        rnd, c = self.rnd, self.c
        fg = F.FragGen(rnd, t)
        env = {'N': N, 'x1': [G.random_value(rnd, t) for _ in range(W * M * N)],
               'pr': [G.random_value(rnd, t) for _ in range(M)],
               'pc': [G.random_value(rnd, t) for _ in range(N)],
               's': [G.random_value(rnd, t) for _ in range(4)],
               'ni': [R.wrap('i32', rnd.choice([0, 1, 3, 17, 40, -1, -5, rnd.getrandbits(32)])) for _ in range(4)]}
        for nm, tt, key in (('x1_in', t, 'x1'), ('pr_in', t, 'pr'), ('pc_in', t, 'pc'), ('s_in', t, 's'),
                            ('n_in', 'i32', 'ni')):
            c.buf(nm, tt, env[key])
        self.line('let x0 = acc')
        self.line('let x1 = load_frag(x1_in%s, x0, row_stride = %d)' % (wgx, N))
        self.line('let pr = load_per_row(pr_in, x0)')
        self.line('let pc = load_per_col(pc_in, x0)')
        for k in range(4):
            self.line('let s%d = s_in[%d]' % (k, k))
            self.line('let n%d = n_in[%d]' % (k, k))
        out = []
        for p in range(rnd.randint(1, 2)):
            while True:
                root = rnd.choice(['store', 'store', 'cast', 'cols', 'smem', 'smem', 'row', 'rowval'])
                if t != 'f32' and root == 'row':
                    continue
                tr = fg.tree(rnd.randint(1, 3))
                if tr[1] == ('R' if root == 'rowval' else 'F'):
                    break
            e = F.ftext(tr, t)
            nm = 'ep%d' % p
            if root in ('store', 'cast'):
                ot = rnd.choice([x for x in ('f32', 'f16', 'bf16') if x != t]) if root == 'cast' else t
                ld = rnd.choice([N, N, N + 8, 2 * N])
                c.buf(nm, ot, count=W * M * ld)
                self.line('store(%s%s, %s, row_stride = %d)' % (nm, wgx.replace(str(M * N), str(M * ld)),
                                                               e if ot == t else '(%s) as %s' % (e, ot), ld))
                out.append(('ep', (nm, root, tr, ot, ld, env)))
            elif root == 'cols':
                w = rnd.choice([x for x in range(8, N + 1, 8) if N % x == 0])
                j = rnd.randrange(N // w)
                ot = rnd.choice([t, t, 'f32', 'f16', 'bf16'])
                c.buf(nm, ot, count=W * M * w)
                v = 'cols(%s, %d, %d)' % (e, j, w)
                self.line('store(%s%s, %s, row_stride = %d)' % (nm, wgx.replace(str(M * N), str(M * w)),
                                                               v if ot == t else '%s as %s' % (v, ot), w))
                out.append(('ep', (nm, 'cols', tr, ot, (w, j), env)))
            elif root == 'smem':
                ot = rnd.choice(['f16', 'bf16', 'f32'])
                ts = 'ts%d' % p
                self.fills_decl.append('  let %s = shared<%s>[%d, %d]' % (ts, ot, W * M, N))
                self.c.tiles.append((ts, ot, W * M, N))
                v = e if ot == t else '(%s) as %s' % (e, ot)
                self.line('store(%s, %s)' % ('rows(%s, wg, %d)' % (ts, M) if W == 2 else ts, v))
                if valid_inner(ot, N) and rnd.random() < 0.5:       # published by a TMA store
                    tn = nm.upper() + '_T'
                    c.params.append(('tensor', tn, ot, W * M, N, None))
                    if self.roles:
                        self.line('copy_async(%s[0, 0], %s)' % (tn, ts))
                    else:
                        self.line('sync_threads()')
                        self.line('if thread_id() == 0 { copy_async(%s[0, 0], %s) }' % (tn, ts))
                    out.append(('ep', (tn, root, tr, ot, N, env)))
                    continue
                c.buf(nm, ot, count=W * M * N)
                self.line('sync_threads()')
                tid = 'role_thread_id()' if self.roles else 'thread_id()'
                self.line('for q in 0 .. %d {' % (W * M * N // (128 * W)))
                self.line('  let e = q * %d + %s' % (128 * W, tid))
                self.line('  %s[e] = %s[e / %d, e %% %d]' % (nm, ts, N, N))
                self.line('}')
                out.append(('ep', (nm, root, tr, ot, N, env)))
            elif root == 'row':
                red = rnd.choice(['row_sum', 'row_max'])
                c.buf(nm, t, count=W * M)
                self.line('store(%s%s, %s(%s))' % (nm, ' + wg * %d' % M if W == 2 else '', red, e))
                out.append(('ep', (nm, red, tr, t, 0, env)))
            else:
                c.buf(nm, t, count=W * M)
                self.line('store(%s%s, %s)' % (nm, ' + wg * %d' % M if W == 2 else '', e))
                out.append(('ep', (nm, root, tr, t, 0, env)))
        return out

    # ------------------------------------------------------------ text and checker

    def finish(self, checks):
        c, s = self.c, self.spec
        W = s['W']
        parts = []
        for p in c.params:
            if p[0] == 'buf':
                parts.append('%s: ptr<%s, global>' % (p[1], p[2]))
            elif p[0] == 'tensor':
                parts.append('%s: tensor<%s>[%d, %d]' % (p[1], p[2], p[3], p[4]))
            else:
                parts.append('%s: %s' % (p[1], p[0]))
        lines = list(self.fills_decl)
        if self.tma:
            lines.append('  let bar = mbarrier(1)')
        lines += self.fills
        if self.tma:
            lines += ['  if thread_id() == 0 {'] + self.tma + ['    arrive(bar)', '  }', '  wait(bar)']
        lines.append('  sync_threads()')
        if self.ring:
            stages, _, has_a, bsrc = self.ring
            T, M, N, K = s['T'], s['M'], s['N'], s['K']
            bt = '[%d, %d]' % ((N, K) if bsrc == 'K' else (K, N))
            a = 'a: shared<%s>[%d, %d], ' % (s['ta'], W * M, K) if has_a else ''
            lines.insert(0, '  let ring = pipeline[%d] { %sb: shared<%s>%s }' % (stages, a, s['tb'], bt))
            cp = ('copy_async(s.a, A_T[j * %d, 0]); ' % (W * M) if has_a else '') + \
                'copy_async(s.b, B_T[j * %d, 0])' % (N if bsrc == 'K' else K)
            lines += ['  warpgroups {', '    producer(regs = 40) {',
                      '      for j in 0 .. %s {' % ('kt' if 'rtloop' in s['form'] else T),
                      '        produce ring as s { %s }' % cp, '      }', '    }',
                      '    consumer(warpgroups = %d, regs = 232) {' % W, '      let wg = warpgroup_rank()']
            lines += ['    ' + b for b in self.body] + ['    }', '  }']
        elif W == 2:
            lines += ['  warpgroups {', '    consumer(warpgroups = 2) {', '      let wg = warpgroup_rank()']
            lines += ['    ' + b for b in self.body] + ['    }', '  }']
        else:
            lines += self.body
        c.text = 'kernel %s(%s) threads(%d) {\n%s\n}\n' % (c.name, ', '.join(parts), c.threads, '\n'.join(lines))
        c.spec = s
        c.checks = checks
        c.check = lambda o: check_case(c, o)
        return c


def check_case(c, o):
    s = c.spec
    W, M = s['W'], s['M']
    bad = []

    def note(msg):
        if len(bad) < 8:
            bad.append(msg)
    nbad = 0
    for kind, d in c.checks:
        if kind == 'mma':
            M_, N, acc_t, nm, Afl, Bfl, C0, rel, ab, T, K = d
            for w in range(W):
                for m in range(M):
                    for n in range(N):
                        terms = [Afl[w][j][m][k] * Bfl[j][k][n] for j in range(T) for k in range(K)]
                        c0 = to_py(acc_t, C0[w][m * N + n]) if C0 else 0.0
                        g = o[nm][w * M * N + m * N + n]
                        if not product_ok(acc_t, terms, c0, g, rel, ab):
                            nbad += 1
                            note('acc [wg %d, %d, %d]: expected %r (+- %.3g), got %s' % (
                                w, m, n, math.fsum(terms + [c0]), rel * (abs(c0) + sum(abs(x) for x in terms)) + ab,
                                G.show(acc_t, g)))
        elif kind == 'chain':
            M_, N, N2, t2, sc2, B2f, rel, ab, via = d
            for w in range(W):
                for m in range(M):
                    arow = []
                    for k in range(N):
                        v = to_py('f32', o['o_acc'][w * M * N + m * N + k])
                        if sc2 != 1.0:
                            v = to_py('f32', to_bits('f32', v * sc2))
                        arow.append(to_py(t2, to_bits(t2, v)))
                    for n in range(N2):
                        terms = [arow[k] * B2f[k][n] for k in range(N)]
                        g = o['o_acc2'][w * M * N2 + m * N2 + n]
                        if not product_ok('f32', terms, 0.0, g, rel, ab):
                            nbad += 1
                            note('chained mma (%s as %s, %s) [wg %d, %d, %d]: expected %r, got %s' % (
                                'acc * %g' % sc2, t2, via, w, m, n, math.fsum(terms), G.show('f32', g)))
        elif kind == 'ep':
            nm, root, tr, ot, ld, env0 = d
            t = s['acc_t']
            N = env0['N']
            for w in range(W):
                env = dict(env0)
                env['x0'] = o['o_acc'][w * M * N:(w + 1) * M * N]
                env['x1'] = env0['x1'][w * M * N:(w + 1) * M * N]
                for m in range(M):
                    if root in ('row_sum', 'row_max'):
                        els = [F.feval(tr, t, m, cc, env) for cc in range(N)]
                        if any(len(x) != 1 for x in els):
                            continue
                        cases = [(None, F.row_reduce(root, [next(iter(x)) for x in els]), o[nm][w * M + m])]
                    elif root == 'rowval':
                        cases = [(None, F.feval(tr, t, m, 0, env), o[nm][w * M + m])]
                    elif root == 'cols':
                        cw, j = ld
                        cases = []
                        for cc in range(cw):
                            want = F.feval(tr, t, m, j * cw + cc, env)
                            if ot != t:
                                want = {G._canon(ot, R.cast(t, ot, v)) for v in want}
                            cases.append((j * cw + cc, want, o[nm][w * M * cw + m * cw + cc]))
                    else:
                        cases = []
                        for cc in range(N):
                            want = F.feval(tr, t, m, cc, env)
                            if ot != t:
                                want = {G._canon(ot, R.cast(t, ot, v)) for v in want}
                            cases.append((cc, want, o[nm][w * M * ld + m * ld + cc]))
                        if ld > N:          # the columns between rows stay untouched
                            for cc in range(N, ld):
                                cases.append((cc, {o_fill(ot)}, o[nm][w * M * ld + m * ld + cc]))
                    for cc, want, g in cases:
                        if not G.matches(ot, want, g):
                            nbad += 1
                            note('epilogue %s (%s) [wg %d, %d, %s]: expected %s, got %s\n    %s' % (
                                nm, root, w, m, cc, shows(ot, want), G.show(ot, g), F.ftext(tr, t)))
    if nbad > len(bad):
        bad.append('%d mismatching elements in all' % nbad)
    return bad


def o_fill(t):
    from semfuzz_ext import fill_value
    return fill_value(t)


def mma_cases(seed, count):
    import hashlib
    import random
    rnd = random.Random(seed * 104729 + 3)
    cases = [Builder(rnd, 'sfm_%d' % k).build() for k in range(count)]
    tag = hashlib.sha1(''.join(c.text for c in cases).encode()).hexdigest()[:8]
    for c in cases:
        c.text = c.text.replace('kernel sfm_', 'kernel sfm_%s_' % tag)
        c.name = c.name.replace('sfm_', 'sfm_%s_' % tag)
    return cases


def mma_source(seed, count):
    return ('// Generated by tools/semfuzz/semfuzz.py mma-emit --seed %d --programs %d: do not edit.\n'
            % (seed, count)) + ''.join(c.text for c in mma_cases(seed, count))
