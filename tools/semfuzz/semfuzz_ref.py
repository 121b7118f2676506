"""The reference evaluator of tools/semfuzz: the documented meaning of every
scalar operator, builtin and cast (docs/reference/operators.md, types.md,
warp-and-math.md), written from the documents, not from C.

Values are Python ints: integers hold their value (signed types signed,
unsigned types in 0 .. 2^N-1, i1 0/1), floats and fp8 hold their bit
pattern. Float arithmetic is exact (fractions) and rounded once to nearest,
ties to even, in the result's format, so the rounding of every format comes
from one routine. Math functions with an error bound (exp, log, sin, ...)
return ('approx', value as a Python float, bound in ulps of the type).
"""
import math
import struct
from fractions import Fraction

INT_BITS = {'i8': 8, 'i16': 16, 'i32': 32, 'i64': 64,
            'u8': 8, 'u16': 16, 'u32': 32, 'u64': 64}
# float formats: (exponent bits, fraction bits, has inf, bits)
FLOAT_FMT = {'f16': (5, 10, True, 16), 'bf16': (8, 7, True, 16),
             'f32': (8, 23, True, 32), 'f64': (11, 52, True, 64),
             'e4m3': (4, 3, False, 8), 'e5m2': (5, 2, True, 8)}
INT_TYPES = list(INT_BITS)
FLOAT_TYPES = ['f16', 'bf16', 'f32', 'f64']
FP8_TYPES = ['e4m3', 'e5m2']
SIZE = {'i1': 1, 'i8': 1, 'u8': 1, 'e4m3': 1, 'e5m2': 1, 'i16': 2, 'u16': 2,
        'f16': 2, 'bf16': 2, 'i32': 4, 'u32': 4, 'f32': 4,
        'i64': 8, 'u64': 8, 'f64': 8}


def is_int(t):
    return t in INT_BITS


def is_signed(t):
    return t[0] == 'i' and t != 'i1'


def is_float(t):
    return t in FLOAT_FMT


def bits_of(t):
    return 1 if t == 'i1' else INT_BITS.get(t) or FLOAT_FMT[t][3]


def int_min(t):
    return -(1 << (INT_BITS[t] - 1)) if is_signed(t) else 0


def int_max(t):
    n = INT_BITS[t]
    return (1 << (n - 1)) - 1 if is_signed(t) else (1 << n) - 1


def wrap(t, v):
    """v modulo 2^N, as t's value."""
    if t == 'i1':
        return v & 1
    n = INT_BITS[t]
    v &= (1 << n) - 1
    if is_signed(t) and v >> (n - 1):
        v -= 1 << n
    return v


def ubits(t, v):
    """The N-bit pattern of an integer value (i1 included)."""
    return v & ((1 << bits_of(t)) - 1)


# ---------------------------------------------------------------- floats
# A decoded float: ('nan', sign), ('inf', sign) or ('fin', sign, Fraction >= 0).

def decode(t, b):
    e, m, has_inf, n = FLOAT_FMT[t]
    sign = b >> (n - 1)
    ex = (b >> m) & ((1 << e) - 1)
    fr = b & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if t == 'e4m3':
        if ex == 15 and fr == 7:
            return ('nan', sign)
    elif ex == (1 << e) - 1:
        return ('inf', sign) if fr == 0 else ('nan', sign)
    if ex == 0:
        mag = Fraction(fr, 1 << m) * Fraction(2) ** (1 - bias)
    else:
        mag = Fraction((1 << m) + fr, 1 << m) * Fraction(2) ** (ex - bias)
    return ('fin', sign, mag)


def nan_bits(t):
    e, m, _, n = FLOAT_FMT[t]
    if t == 'e4m3':
        return 0x7f
    return (((1 << e) - 1) << m) | (1 << (m - 1))


def inf_bits(t, sign):
    e, m, _, n = FLOAT_FMT[t]
    return (sign << (n - 1)) | (((1 << e) - 1) << m)


def max_finite_bits(t, sign):
    e, m, _, n = FLOAT_FMT[t]
    if t == 'e4m3':
        return (sign << 7) | 0x7e
    return (sign << (n - 1)) | ((((1 << e) - 2) << m) | ((1 << m) - 1))


def _ilog2(q):
    """k with 2^k <= q < 2^(k+1), q a positive Fraction."""
    k = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** k > q:
        k -= 1
    elif Fraction(2) ** (k + 1) <= q:
        k += 1
    return k


def round_to(t, sign, mag, satfinite=False):
    """The bits of the t value nearest to (-1)^sign * mag (ties to even);
    beyond the largest finite value +-inf (satfinite, or a format without
    inf: the largest finite value)."""
    e, m, has_inf, n = FLOAT_FMT[t]
    bias = (1 << (e - 1)) - 1
    emin = 1 - bias
    if mag == 0:
        return sign << (n - 1)
    q = max(_ilog2(mag), emin) - m      # the quantum of the result
    scaled = mag / Fraction(2) ** q
    i = scaled.numerator // scaled.denominator
    rem = scaled - i
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and i & 1):
        i += 1
    if i == 0:
        return sign << (n - 1)
    val = Fraction(i) * Fraction(2) ** q
    if val > decode(t, max_finite_bits(t, 0))[2]:
        if satfinite or not has_inf:
            return max_finite_bits(t, sign)
        return inf_bits(t, sign)
    k = _ilog2(val)
    if k < emin:
        return (sign << (n - 1)) | int(val / Fraction(2) ** (emin - m))
    fr = int(val / Fraction(2) ** (k - m)) - (1 << m)
    return (sign << (n - 1)) | ((k + bias) << m) | fr


def f_from_py(t, x):
    """Bits of the t value nearest to the Python float x (exact for f64)."""
    if math.isnan(x):
        return nan_bits(t)
    if math.isinf(x):
        return inf_bits(t, 1 if x < 0 else 0)
    if t == 'f64':
        return struct.unpack('<Q', struct.pack('<d', x))[0]
    return round_to(t, 1 if math.copysign(1.0, x) < 0 else 0, Fraction(abs(x)))


def f_to_py(t, b):
    """The t value of bits b as a Python float (exact: every format fits)."""
    if t == 'f64':
        return struct.unpack('<d', struct.pack('<Q', b))[0]
    d = decode(t, b)
    if d[0] == 'nan':
        return math.nan
    if d[0] == 'inf':
        return -math.inf if d[1] else math.inf
    v = float(d[2])
    return -v if d[1] else v


def _round_py(t, x):
    """Round a Python float result of an f16/bf16/f32 operation (exact for
    + - * / sqrt: the double has more than 2p+2 bits) to t."""
    if t == 'f64' or math.isnan(x) or math.isinf(x):
        return f_from_py(t, x)
    if t == 'f32':
        try:
            return struct.unpack('<I', struct.pack('<f', x))[0]
        except OverflowError:
            return inf_bits(t, 1 if x < 0 else 0)
    if t == 'f16':
        try:
            return struct.unpack('<H', struct.pack('<e', x))[0]
        except OverflowError:
            return inf_bits(t, 1 if x < 0 else 0)
    return f_from_py(t, x)


def _exact(d):
    return -d[2] if d[1] else d[2]


def fma_exact(t, a, b, c):
    da, db, dc = decode(t, a), decode(t, b), decode(t, c)
    x, y, z = f_to_py(t, a), f_to_py(t, b), f_to_py(t, c)
    if dc[0] == 'inf' and da[0] == db[0] == 'fin':
        return c                # a finite product (however large) plus an infinity
    if 'nan' in (da[0], db[0], dc[0]) or 'inf' in (da[0], db[0], dc[0]):
        p = x * y if not ((x == 0 and math.isinf(y)) or (y == 0 and math.isinf(x))) else math.nan
        return f_from_py(t, p + z)
    p = _exact(da) * _exact(db)
    s = p + _exact(dc)
    if s == 0:
        # exact zero: sign as IEEE (x*y + z with round to nearest)
        ps = da[1] ^ db[1]
        if p == 0 and _exact(dc) == 0:
            sign = 1 if (ps and dc[1]) else 0
        else:
            sign = 0
        return sign << (FLOAT_FMT[t][3] - 1)
    return round_to(t, 1 if s < 0 else 0, abs(s))


# ---------------------------------------------------------------- casts

def cast(src, dst, v):
    """`v as dst` for v of type src (operators.md: Casts)."""
    if src == dst:
        return v
    if src == 'i1':
        return v if is_int(dst) else None
    if is_int(src) and is_int(dst):
        return wrap(dst, v)     # sign- or zero-extension by src's value, then low bits
    if is_int(src) and is_float(dst):
        if v == 0:
            return 0
        return round_to(dst, 1 if v < 0 else 0, Fraction(abs(v)),
                        satfinite=dst in FP8_TYPES)
    if is_float(src) and is_int(dst):
        d = decode(src, v)
        if d[0] == 'nan':
            return 0
        if d[0] == 'inf':
            return int_min(dst) if d[1] else int_max(dst)
        i = int(d[2])           # toward zero
        if d[1]:
            i = -i
        return max(int_min(dst), min(int_max(dst), i))
    # float -> float: one rounding from the exact value
    d = decode(src, v)
    sat = dst in FP8_TYPES
    if d[0] == 'nan':
        return nan_bits(dst)
    if d[0] == 'inf':
        return max_finite_bits(dst, d[1]) if sat else inf_bits(dst, d[1])
    return round_to(dst, d[1], d[2], satfinite=sat)


# ---------------------------------------------------------------- operators

def _fbin(op, t, a, b):
    x, y = f_to_py(t, a), f_to_py(t, b)
    if op in ('+', '-', '*'):
        r = x + y if op == '+' else x - y if op == '-' else x * y
        if t == 'f64' or t == 'f32' or t == 'f16':
            return _round_py(t, r)
        return f_from_py(t, r)
    if op == '/':
        if y == 0:
            if x == 0 or math.isnan(x):
                return nan_bits(t)
            neg = (math.copysign(1, x) < 0) != (math.copysign(1, y) < 0)
            return inf_bits(t, 1 if neg else 0)
        return _round_py(t, x / y) if t != 'bf16' else f_from_py(t, x / y)
    raise ValueError(op)


def _fcmp(op, t, a, b):
    x, y = f_to_py(t, a), f_to_py(t, b)
    return int({'==': x == y, '!=': x != y, '<': x < y, '<=': x <= y,
                '>': x > y, '>=': x >= y}[op])


def binop(op, t, a, b):
    """a op b, both of type t; comparisons give i1."""
    if op in ('==', '!=', '<', '<=', '>', '>='):
        if is_float(t):
            return _fcmp(op, t, a, b)
        return int({'==': a == b, '!=': a != b, '<': a < b, '<=': a <= b,
                    '>': a > b, '>=': a >= b}[op])
    if is_float(t):
        return _fbin(op, t, a, b)
    if op in ('&&', '||'):
        return int(bool(a) and bool(b)) if op == '&&' else int(bool(a) or bool(b))
    if op in ('&', '|', '^'):
        ua, ub = ubits(t, a), ubits(t, b)
        r = ua & ub if op == '&' else ua | ub if op == '|' else ua ^ ub
        return wrap(t, r) if t != 'i1' else r
    n = INT_BITS[t]
    if op == '+':
        return wrap(t, a + b)
    if op == '-':
        return wrap(t, a - b)
    if op == '*':
        return wrap(t, a * b)
    if op == '<<':
        s = ubits(t, b)
        return 0 if s >= n else wrap(t, a << s)
    if op == '>>':
        s = ubits(t, b)
        if s >= n:
            return -1 if a < 0 else 0
        return a >> s           # arithmetic for signed (Python), logical for unsigned values
    if op == '/':
        if b == 0:
            return -1 if is_signed(t) else int_max(t)
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        return wrap(t, q)
    if op == '%':
        if b == 0:
            return a
        q = binop('/', t, a, b)
        return wrap(t, a - q * b)
    raise ValueError(op)


def unop(op, t, a):
    if op == '-':
        if is_float(t):
            return a ^ (1 << (bits_of(t) - 1))
        return wrap(t, -a)
    if op == '~':
        return wrap(t, ~a) if t != 'i1' else a ^ 1
    if op == '!':
        return a ^ 1
    raise ValueError(op)


def fmin_max(op, t, a, b):
    x, y = f_to_py(t, a), f_to_py(t, b)
    if math.isnan(x):
        return b
    if math.isnan(y):
        return a
    if x == y == 0:
        # minNum/maxNum of zeros of both signs: either is allowed by IEEE;
        # report both (the caller accepts a set)
        return ('either', a, b) if a != b else a
    if op == 'min':
        return a if x < y else b
    return a if x > y else b


def builtin(name, t, args):
    """A builtin call whose operands have type t; returns the bits/value, a
    tuple ('either', v1, v2) for a documented choice, or
    ('approx', x, ulps) for a function with an error bound."""
    if name in ('min', 'max'):
        a, b = args
        if is_float(t):
            return fmin_max(name, t, a, b)
        return min(a, b) if name == 'min' else max(a, b)
    if name == 'clamp':
        x, lo, hi = args

        def opts(v):
            return set(v[1:]) if isinstance(v, tuple) else {v}
        out = set()
        for m in opts(builtin('max', t, [x, lo])):
            out |= opts(builtin('min', t, [m, hi]))
        return out.pop() if len(out) == 1 else ('either',) + tuple(sorted(out))
    if name == 'abs':
        a, = args
        if is_float(t):
            return a & ~(1 << (bits_of(t) - 1))
        return wrap(t, abs(a))
    if name == 'fma':
        return fma_exact(t, *args)
    if name == 'copysign':
        a, b = args
        sb = 1 << (bits_of(t) - 1)
        return (a & ~sb) | (b & sb)
    x = f_to_py(t, args[0])
    if name in ('floor', 'ceil', 'trunc', 'round', 'rint'):
        if math.isnan(x) or math.isinf(x) or x == 0:
            return args[0] if not math.isnan(x) else nan_bits(t)
        r = {'floor': math.floor, 'ceil': math.ceil, 'trunc': math.trunc,
             'round': lambda v: math.floor(Fraction(abs(v)) + Fraction(1, 2)) * (1 if v > 0 else -1),
             'rint': lambda v: round(Fraction(v))}[name](x)   # Fraction rounds ties to even
        if r == 0:
            return (1 << (bits_of(t) - 1)) if x < 0 else 0
        return f_from_py(t, float(r))
    if FAST and name in FAST_FUNCS:
        return ('fast', name, args[0])
    if name == 'sqrt':
        if math.isnan(x) or x < 0:
            return nan_bits(t)
        if x == 0 or math.isinf(x):
            return args[0]
        return _round_py(t, math.sqrt(x))     # math.sqrt is correctly rounded
    bound = MATH_ULPS[name] if t == 'f32' else 1.0
    try:
        v = _MATH[name](x)
    except (OverflowError, ValueError):
        v = math.nan
    return ('approx', v, bound)


# --fast-math: every function with a fast form is that form (warp-and-math.md)
FAST = False
FAST_FUNCS = ['sqrt', 'rsqrt', 'exp', 'exp2', 'log', 'log2', 'sin', 'cos', 'tanh']


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _exp2(x):
    try:
        return 2.0 ** x
    except OverflowError:
        return math.inf


def _log(f):
    def g(x):
        if math.isnan(x) or x < 0:
            return math.nan
        if x == 0:
            return -math.inf
        if math.isinf(x):
            return math.inf
        return f(x)
    return g


def _trig(f):
    def g(x):
        if math.isinf(x) or math.isnan(x):
            return math.nan
        return f(x)
    return g


def _rsqrt(x):
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    if math.isinf(x):
        return 0.0
    return 1.0 / math.sqrt(x)


_MATH = {'exp': _exp, 'exp2': _exp2, 'log': _log(math.log), 'log2': _log(math.log2),
         'sin': _trig(math.sin), 'cos': _trig(math.cos), 'tanh': math.tanh,
         'erf': math.erf, 'rsqrt': _rsqrt}
# docs/reference/warp-and-math.md, accurate forms in f32
MATH_ULPS = {'exp': 2.0, 'exp2': 2.5, 'log': 1.0, 'log2': 1.0, 'sin': 2.0,
             'cos': 2.0, 'tanh': 2.0, 'erf': 2.0, 'rsqrt': 1.5}
APPROX_FUNCS = list(MATH_ULPS)
EXACT_FLOAT_FUNCS = ['abs', 'floor', 'ceil', 'trunc', 'round', 'rint', 'sqrt']


def bitcount(name, t, a):
    n = INT_BITS[t]
    u = ubits(t, a)
    if name == 'popc':
        return bin(u).count('1')
    if name == 'clz':
        return n - u.bit_length()
    if name == 'brev':
        return wrap(t, int(format(u, '0%db' % n)[::-1], 2))
    if name == 'bfind':
        if is_signed(t):
            v = u if a >= 0 else ubits(t, ~a)
        else:
            v = u
        if v == 0:
            return -1 if is_signed(t) else 0xffffffff
        return v.bit_length() - 1
    raise ValueError(name)


def ulp_of(t, x):
    """The spacing of t's values at |x| (x a Python float)."""
    e, m, _, _ = FLOAT_FMT[t]
    bias = (1 << (e - 1)) - 1
    if x == 0 or math.isinf(x) or math.isnan(x):
        return 2.0 ** (1 - bias - m)
    k = math.frexp(abs(x))[1] - 1
    return 2.0 ** (max(k, 1 - bias) - m)


def approx_ok(t, got_bits, ref, ulps):
    """Whether a result of t (bits) is within ulps of the exact ref."""
    g = f_to_py(t, got_bits)
    if math.isnan(ref):
        return math.isnan(g)
    if math.isnan(g):
        return False
    rb = f_from_py(t, ref) if not math.isinf(ref) else inf_bits(t, 1 if ref < 0 else 0)
    if math.isinf(f_to_py(t, rb)) or math.isinf(g):
        return got_bits == rb or (not math.isinf(g) and abs(g) == f_to_py(t, max_finite_bits(t, 0))
                                  and abs(ref) < f_to_py(t, max_finite_bits(t, 0)) + ulps * ulp_of(t, ref))
    return abs(g - ref) <= ulps * ulp_of(t, ref)
