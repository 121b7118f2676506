#!/usr/bin/env python3
"""semfuzz: a differential tester of what tile programs mean.

Random well-typed scalar expression trees (semfuzz_gen) are compiled by
tilec and their results compared with the reference evaluator (semfuzz_ref),
which implements docs/reference/operators.md, types.md and warp-and-math.md.

  semfuzz.py cpu --tilec BIN [--seed S] [--programs N] [--ptxas BIN]
      the folded path: every tree with its inputs bound to literals by `let`
      (not constants for the checker, folded by MLIR/LLVM) and once more with
      literal inputs (constants for the checker), compiled to PTX; the stored
      immediate must be an allowed value. Also: constant-error probes (the
      checker must reject them with the documented message), the fixed
      REGRESSIONS, and the run-time form through ptxas. --tilec-arg=-O0 etc.
  semfuzz.py emit-gpu [--seed S] [--programs N] -o FILE.tile
      the kernels of the GPU run (compile with tilec --fmad=false).
  semfuzz.py gpu --ptx FILE.ptx [--seed S] [--programs N] [--rows R]
      runs those kernels on R input rows (edge values and random ones), and
      the fixed edge programs on 65536 rows, and compares every result; exit
      77 when there is no CUDA device.
  semfuzz.py ext-cpu|ext-emit|ext-gpu ...
      vectors, fragments, math modes, atomics, warp operations (semfuzz_ext).
  semfuzz.py mma-cpu|mma-emit|mma-gpu [--seed S] [--programs N] ...
      random wgmma kernels and what feeds and follows them (semfuzz_mma):
      mma-cpu compiles and scans ptxas -v (no serialised wgmma, injected
      waits or spills), mma-emit writes the .tile (tilec --fmad=false),
      mma-gpu runs the PTX and checks every output (77: no device).
Exit status 1 on any mismatch; each is printed with its program.
"""
import argparse
import hashlib
import itertools
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import semfuzz_ref as R      # noqa: E402
import semfuzz_gen as G      # noqa: E402

PER_KERNEL = 40              # expressions per GPU kernel


def make_trees(seed, count, allow_loops=True):
    rnd = random.Random(seed)
    gen = G.Gen(rnd, allow_loops)
    trees = []
    for _ in range(count):
        t = rnd.choice(G.RESULT_TYPES)
        trees.append(G.Node('root', t, [gen.root(t, rnd.randint(1, 4))]))
    return [n.c[0] for n in trees]


def param_value_text(t, v):
    if R.is_float(t) and R.decode(t, v)[0] == 'nan':
        return 'bitcast<%s>(0x%x)' % (t, v)
    return G.lit_text(t, v)


# ---------------------------------------------------------------- the folded path

def fold_source(trees, envs, seed, inline_inputs):
    """One kernel per tree storing its value; inputs bound by let (or
    written as literals: inline_inputs). Returns the kernels' texts (each
    with the functions it calls)."""
    rnd = random.Random(seed)
    units = []
    fn_ids = itertools.count()
    for i, (n, env) in enumerate(zip(trees, envs)):
        lines = []
        em = G.Emitter(rnd, fn_ids=fn_ids)
        t = G.out_type(n.t)
        head = len(lines)
        lines.append('kernel f_%d(out: ptr<%s, global>) {' % (i, t))
        body = n
        if inline_inputs:
            body = _inline(n, env)
        else:
            for (pt, k) in sorted(G.uses(n)):
                lines.append('  let a_%s_%d: %s = %s' % (pt, k, pt,
                                                         param_value_text(pt, env['a_%s_%d' % (pt, k)])))
        store = G.emit_store(em, body, 'out[0]', '  ')
        lines[head:head] = em.fns   # before the kernel
        lines += store
        lines.append('}')
        units.append('\n'.join(lines) + '\n')
    return units


def compile_units(tilec, units, extra):
    """Compiles the kernels in one file; when tilec rejects some, those
    (found from the errors' line numbers) are set aside and the rest compiled
    again. Returns (ptx, {unit index: errors})."""
    rejected = {}
    live = list(range(len(units)))
    for _ in range(4):
        starts, src, line = [], '', 1
        for u in live:
            starts.append(line)
            src += units[u]
            line += units[u].count('\n')
        rc, ptx, err = run_tilec(tilec, src, extra)
        if rc == 0:
            return ptx, rejected
        bad = set()
        for m in re.finditer(r'\.tile:(\d+):\d+: error: (.*)', err):
            k = max(i for i, st in enumerate(starts) if st <= int(m.group(1)))
            bad.add(live[k])
            rejected.setdefault(live[k], []).append(m.group(2))
        if not bad:
            rejected[-1] = [err[:2000]]
            return '', rejected
        live = [u for u in live if u not in bad]
    return '', rejected


def _inline(n, env):
    if n.k == 'param':
        return G.Node('lit', n.t, x=env['a_%s_%d' % (n.t, n.x)])
    m = G.Node(n.k, n.t, [_inline(c, env) for c in n.c], n.x)
    return m


IMM = re.compile(r'st\.global\.b(\d+)\s+\[%rd\d+\],\s*([^;]+);')


def parse_imm(text, bits):
    text = text.strip()
    if text.startswith('0f') or text.startswith('0F'):
        v = int(text[2:], 16)
    elif text.startswith('0d') or text.startswith('0D'):
        v = int(text[2:], 16)
    elif text.startswith('0x') or text.startswith('0X'):
        v = int(text[2:], 16)
    elif re.fullmatch(r'-?\d+', text):
        v = int(text)
    else:
        return None
    return v & ((1 << bits) - 1)


def stored_constants(ptx):
    """kernel name -> the immediate its one store writes (None: not folded)."""
    out = {}
    for m in re.finditer(r'\.entry (\w+)\((.*?)\n}', ptx, re.S):
        name, body = m.group(1), m.group(2)
        stores = IMM.findall(body)
        val = None
        if len(stores) == 1:
            bits, op = stores[0]
            op = op.strip()
            while op.startswith('%'):
                # a register written once, by a mov of an immediate or of
                # another such register (a pinned NaN: operators.md "NaN bits")
                defs = re.findall(r'^\s*[\w.]+\s+%s,\s*([^;]+);' % re.escape(op), body, re.M)
                mv = re.search(r'^\s*mov\.b%s\s+%s,\s*([^;]+);' % (bits, re.escape(op)), body, re.M)
                if not mv or len(defs) != 1 or mv.group(1).strip() == op:
                    break
                op = mv.group(1).strip()
            val = parse_imm(op, int(bits))
        out[name] = val
    return out


def kernel_text(src, name):
    m = re.search(r'(^kernel %s\(.*?^})' % name, src, re.S | re.M)
    return m.group(1) if m else '(kernel %s not found)' % name


def ptxas_error(ptxas, ptx):
    """ptxas -arch=sm_90a's message for PTX it rejects (its first 4000 characters), else None."""
    with tempfile.NamedTemporaryFile('w', suffix='.ptx', delete=False) as f:
        f.write(ptx)
    try:
        p = subprocess.run([ptxas, '-arch=sm_90a', f.name, '-o', os.devnull],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    return None if p.returncode == 0 else p.stderr[:4000]


def run_tilec(tilec, src, extra, emit='ptx'):
    with tempfile.NamedTemporaryFile('w', suffix='.tile', delete=False) as f:
        f.write(src)
        path = f.name
    try:
        p = subprocess.run([tilec, path, '--emit=' + emit, '-o', '-'] + extra,
                           capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(path)
    return p.returncode, p.stdout, p.stderr


def program_text(n, env=None):
    em = G.Emitter(random.Random(0), let_prob=0.0)
    lines = []
    if env:
        for (pt, k) in sorted(G.uses(n)):
            lines.append('  let a_%s_%d: %s = %s' % (pt, k, pt,
                                                     param_value_text(pt, env['a_%s_%d' % (pt, k)])))
    lines += G.emit_store(em, n, 'out[0]', '  ')
    return '\n'.join(lines)


def random_env(rnd):
    return {'a_%s_%d' % (t, k): G.random_value(rnd, t) for t in G.SCALARS for k in range(G.NPARAM)}


def cpu_mode(args):
    start = time.time()
    trees = [n for n in make_trees(args.seed, args.programs) for _ in range(args.envs)]
    rnd = random.Random(args.seed + 1)
    envs = [random_env(rnd) for _ in trees]       # args.envs input sets per tree
    expected = [G.evaluate(n, env) for n, env in zip(trees, envs)]
    bad = 0
    notfolded = 0
    checked = 0
    for mode, inline in (('let inputs', False), ('literal inputs', True)):
        units = fold_source(trees, envs, args.seed + 2, inline)
        src = ''.join(units)
        ptx, rejected = compile_units(args.tilec, units, ['--fmad=false'] + args.tilec_args)
        for u, errs in sorted(rejected.items()):
            bad += 1
            print('semfuzz: FAIL tilec rejected a folded program (%s): %s\n%s'
                  % (mode, '; '.join(errs), units[u] if u >= 0 else ''))
        if rejected:
            _save(args, 'fold-%s.tile' % mode.split()[0], src)
        consts = stored_constants(ptx)
        for i, n in enumerate(trees):
            got = consts.get('f_%d' % i)
            if i in rejected:
                continue
            if got is None:
                notfolded += 1
                if args.verbose:
                    print('semfuzz: not folded to one store (%s):\n%s' % (mode, kernel_text(src, 'f_%d' % i)))
                continue
            checked += 1
            t = G.out_type(n.t)
            g = R.wrap(t, got) if R.is_int(t) else got
            if not G.matches(t, expected[i], g):
                bad += 1
                print('semfuzz: MISMATCH (folded, %s) kernel f_%d: expected %s, got %s\n%s\n'
                      % (mode, i, ' or '.join(G.show(t, v) for v in expected[i]), G.show(t, g),
                         kernel_text(src, 'f_%d' % i)))
    bad += error_probes(args, trees, envs)
    bad += regressions(args)
    # the run-time form: accepted and assembled
    src = gpu_source(args.seed, min(args.programs, 2 * PER_KERNEL))
    rc, ptx, err = run_tilec(args.tilec, src, ['--fmad=false'] + args.tilec_args)
    if rc != 0:
        bad += 1
        print('semfuzz: FAIL tilec rejected the run-time program:\n%s' % err[:4000])
        _save(args, 'runtime.tile', src)
    elif args.ptxas:
        error = ptxas_error(args.ptxas, ptx)
        if error is not None:
            bad += 1
            print('semfuzz: FAIL ptxas rejected the run-time program:\n%s' % error)
    print('semfuzz cpu: seed %d, %d programs x %d inputs, %d folded results checked (%d not folded '
          'to one store), %d mismatches, %.1f s' % (args.seed, args.programs, args.envs, checked,
                                                     notfolded, bad, time.time() - start))
    return 1 if bad else 0


# Minimised past findings of the folded path, checked on every cpu run:
# (result type, kernel body, the documented value).
REGRESSIONS = [
    ('u16', 'let x: u16 = 65512\n  out[0] = abs(x)', 65512),
    ('f32', 'const A = ((1.3 as e4m3) as f32)\n  out[0] = A', 0x3FA00000),
    ('u16', 'const H = (((inf as f16) as e5m2) as f32)\n  out[0] = (H as u16)', 57344),
    ('i32', 'const T: i1 = ~true\n  out[0] = T ? 1 : 0', 0),
    ('u32', 'const A: u32 = ~(31 as u32)\n  out[0] = A', 4294967264),
    ('u64', 'const M: u64 = 18446744073709551615\n  out[0] = M', (1 << 64) - 1),
    # (min/max of a signalling NaN the program spells no longer fold: a
    # spelled NaN keeps its bits, operators.md "NaN bits", and runs on PTX
    # min/max; tests/lit/ptx/semantics-minmax-snan.tile.)
    # A folded NaN has the GPU's canonical bits (operators.md "NaN bits").
    ('u32', 'let z = 0.0\n  out[0] = bitcast<u32>(z / z)', 0x7FFFFFFF),
    ('u16', 'let z: f16 = 0.0\n  out[0] = bitcast<u16>(-(z / z))', 0x7FFF),
    ('u64', 'let i: f64 = inf\n  out[0] = bitcast<u64>(i - i)', 0xFFF8000000000000),
]


def regressions(args):
    units = ['kernel r_%d(out: ptr<%s, global>) {\n  %s\n}\n' % (i, t, body)
             for i, (t, body, _) in enumerate(REGRESSIONS)]
    ptx, rejected = compile_units(args.tilec, units, ['--fmad=false'] + args.tilec_args)
    consts = stored_constants(ptx)
    # Without LLVM's optimisation (-O0, -O1) a conversion may stay in the
    # code (`cvt.rzi.u32.f32` of the checker's 57344.0): not folded is then
    # not a finding, a wrong immediate still is.
    unoptimised = any(a in ('-O0', '-O1') for a in args.tilec_args)
    bad = 0
    for i, (t, body, want) in enumerate(REGRESSIONS):
        got = consts.get('r_%d' % i)
        if got is None and unoptimised and i not in rejected:
            continue
        if i in rejected or got is None or R.ubits(t, got) != R.ubits(t, want):
            bad += 1
            print('semfuzz: MISMATCH (folded regression) expected %s, got %s:\n%s'
                  % (want, '; '.join(rejected.get(i, [])) or got, units[i]))
    return bad


def error_probes(args, trees, envs):
    """The checker's constant errors: trees with literal inputs written so
    that a constant operand is out of range must be rejected with the
    documented message (operators.md "Constant operands that are errors")."""
    rnd = random.Random(args.seed + 5)
    bad = probes = 0
    for i, (n, env) in enumerate(zip(trees, envs)):
        if probes >= args.probes:
            break
        em = G.Emitter(rnd, let_prob=0.0, probe=True)
        t = G.out_type(n.t)
        lines = G.emit_store(em, _inline(n, env), 'out[0]', '  ')
        if not em.errors:
            continue
        probes += 1
        src = '%skernel e_%d(out: ptr<%s, global>) {\n%s\n}\n' % (
            ''.join(f + '\n' for f in em.fns), i, t, '\n'.join(lines))
        rc, _, err = run_tilec(args.tilec, src, [])
        if rc == 0 or not any(e in err for e in em.errors):
            bad += 1
            print('semfuzz: MISMATCH (constant error) expected an error containing %s; tilec %s:\n%s\n%s'
                  % (' or '.join(repr(e) for e in em.errors),
                     'accepted it' if rc == 0 else 'said', err[:2000], src))
    if args.verbose:
        print('semfuzz cpu: %d constant-error probes' % probes)
    return bad


def _save(args, name, text):
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        with open(os.path.join(args.save, name), 'w') as f:
            f.write(text)


# ---------------------------------------------------------------- the run-time path

EDGE_ROWS = 65536            # every i16 value (and every i8 value 256 times)


def edge_trees():
    """Fixed programs on the values where integer negation and abs wrap
    (-MIN = abs(MIN) = MIN), read back in ways that see all 32 or 64 bits:
    run on EDGE_ROWS rows (every i16 value; MIN, MAX, ... for i32 and i64)."""
    N = G.Node
    P = lambda t: N('param', t, x=0)
    L = lambda t, v: N('lit', t, x=v)
    neg = lambda e: N('un', e.t, [e], '-')
    absn = lambda e: N('call', e.t, [e], 'abs')
    cast = lambda e, t: N('cast', t, [e])
    bin_ = lambda op, a, b: N('bin', a.t, [a, b], op)
    cmp = lambda op, a, b: N('cmp', 'i1', [a, b], op)
    out = []
    for t in ('i8', 'i16'):
        out += [cast(neg(P(t)), 'i32'), cast(absn(P(t)), 'i32'), cast(bin_('-', L(t, 0), P(t)), 'i32'),
                cast(bin_('*', P(t), L(t, -1)), 'i64'), cmp('<', neg(P(t)), L(t, 0)),
                cast(bin_('/', neg(P(t)), L(t, 3)), 'i32'),
                bin_('>>', cast(absn(P(t)), 'u32'), L('u32', 8)), cast(neg(P(t)), 'f32')]
    for t in ('i32', 'i64'):
        w = R.INT_BITS[t]
        sel = N('sel', t, [cmp('<', P(t), L(t, 0)), neg(P(t)), P(t)])
        out += [bin_('%', absn(P(t)), L(t, 40)), cmp('<', absn(P(t)), L(t, 0)),
                cast(absn(P(t)), 'i64' if t == 'i32' else 'f64'), bin_('>>', absn(P(t)), L(t, w - 1)),
                bin_('%', sel, L(t, 7)), bin_('/', neg(P(t)), L(t, 3)), cast(absn(P(t)), 'f32'),
                cmp('>', neg(P(t)), L(t, 0)), cast(sel, 'u64' if t == 'i32' else 'f32')]
    return out


def edge_rows(rows):
    rnd = random.Random(5)
    envs = []
    for r in range(rows):
        env = {'a_%s_%d' % (t, k): 0 for t in G.SCALARS for k in range(G.NPARAM)}
        env['a_i16_0'] = R.wrap('i16', r + 32768)         # -32768 first
        env['a_i8_0'] = R.wrap('i8', r + 128)             # -128 first
        for t in ('i32', 'i64'):
            ev = G.edge_values(t)
            env['a_%s_0' % t] = ev[r % len(ev)] if r < 4 * len(ev) else G.random_value(rnd, t)
        envs.append(env)
    return envs


def gpu_layout(trees, first=0):
    """Kernels of PER_KERNEL trees; each tree's (index, output type, slot)."""
    kernels = []
    for k0 in range(0, len(trees), PER_KERNEL):
        slots = {}
        items = []
        for i in range(k0, min(len(trees), k0 + PER_KERNEL)):
            t = G.out_type(trees[i].t)
            items.append((first + i, t, slots.get(t, 0)))
            slots[t] = slots.get(t, 0) + 1
        kernels.append((items, slots))
    return kernels


def gpu_programs(seed, programs):
    """The random trees, then the edge programs; the kernels as (name suffix,
    items, slots, row set)."""
    trees = make_trees(seed, programs)
    edges = edge_trees()
    groups = [('K%d' % kn, items, slots, 'random') for kn, (items, slots) in enumerate(gpu_layout(trees))]
    groups.append(('E', gpu_layout(edges, len(trees))[0][0], gpu_layout(edges)[0][1], 'edges'))
    return trees + edges, groups


def gpu_source(seed, programs):
    trees, groups = gpu_programs(seed, programs)
    rnd = random.Random(seed + 3)
    body = []
    fn_ids = itertools.count()
    for name, items, slots, _ in groups:
        outs = sorted(slots)
        params = ['in_%s: ptr<%s, global>' % (t, t) for t in G.SCALARS]
        params += ['out_%s: ptr<%s, global>' % (t, t) for t in outs]
        body.append('kernel semfuzz_%s(%s, n: i32) {' % (name, ', '.join(params)))
        body.append('  for row in grid_range(n) {')
        used = set()
        for i, _, _ in items:
            used |= G.uses(trees[i])
        for (t, k) in sorted(used):
            body.append('    let a_%s_%d = in_%s[row * %d + %d]' % (t, k, t, G.NPARAM, k))
        em = G.Emitter(rnd, fn_ids=fn_ids)
        for i, t, slot in items:
            body.append('    // program %d' % i)
            body += G.emit_store(em, trees[i], 'out_%s[row * %d + %d]' % (t, slots[t], slot), '    ')
        body.append('  }')
        body.append('}')
        body += em.fns
    text = '\n'.join(body) + '\n'
    tag = hashlib.sha1(text.encode()).hexdigest()[:10]
    head = ('// Generated by tools/semfuzz/semfuzz.py emit-gpu --seed %d --programs %d: do not edit.\n'
            % (seed, programs))
    return head + text.replace('kernel semfuzz_', 'kernel semfuzz_%s_' % tag)


def emit_gpu(args):
    text = gpu_source(args.seed, args.programs)
    with open(args.output, 'w') as f:
        f.write(text)
    return 0


def gpu_rows(seed, rows):
    rnd = random.Random(seed + 4)
    envs = []
    for r in range(rows):
        env = random_env(rnd)
        if r < 64:           # rows of one edge value for every input of a type
            for t in G.SCALARS:
                ev = G.edge_values(t)
                for k in range(G.NPARAM):
                    env['a_%s_%d' % (t, k)] = ev[(r + 7 * k) % len(ev)]
        envs.append(env)
    return envs


_STATE = {}


def _check_program(i):
    """Mismatches of program i over every row: (count, first few reports)."""
    st = _STATE
    n, (t, vals, stride, slot, rowset) = st['trees'][i], st['where'][i]
    bad, reports = 0, []
    for r, env in enumerate(st['envsets'][rowset]):
        got = vals[r * stride + slot]
        try:
            exp = G.evaluate(n, env)
        except Exception as e:           # the reference's own defect: say so, check the rest
            return bad + 1, reports + ['row %d: the reference failed: %r' % (r, e)]
        if not G.matches(t, exp, got):
            bad += 1
            if len(reports) < 3:
                ins = ', '.join('a_%s_%d = %s' % (u[0], u[1], G.show(u[0], env['a_%s_%d' % u]))
                                for u in sorted(G.uses(n)))
                reports.append('row %d: expected %s, got %s; inputs: %s'
                               % (r, ' or '.join(G.show(t, v) for v in exp), G.show(t, got), ins or '-'))
    return bad, reports


def program_lines(src, i):
    """Program i's statements in the generated kernel, with the functions
    they call."""
    m = re.search(r'^ *// program %d\n(.*?)(?=^ *// program|^  }$)' % i, src, re.S | re.M)
    if not m:
        return '(program %d not found)' % i
    text = m.group(1).rstrip()
    seen, todo = set(), re.findall(r'\b(f\d+_\d+)\(', text)
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        d = re.search(r'^fn %s\(.*?^}$' % f, src, re.S | re.M)
        if d:
            text += '\n' + d.group(0)
            todo += re.findall(r'\b(f\d+_\d+)\(', d.group(0))
    return text


def _inner_fast(n, root=True):
    """Whether a tree is beyond the --fast-math reference: a fast form below
    the root (its error would propagate), a float + or - of a loop's or a
    function's value, or a float loop (a product computed there may be fused
    with a sum after unrolling or inlining, also with the next iteration's;
    the reference sees only direct products)."""
    if not root and n.k == 'call' and n.x in R.FAST_FUNCS:
        return True
    if n.k == 'bin' and n.x in ('+', '-') and n.t in G.FLOATS and any(
            _hides_product(c) for c in n.c):
        return True
    if n.k == 'loop' and n.t in G.FLOATS:    # one iteration's product, the next one's sum
        return True
    if n.k == 'fn':
        return _inner_fast(n.x[2], False) or any(_inner_fast(c, False) for c in n.c)
    return any(_inner_fast(c, False) for c in n.c)


def _hides_product(c):
    if c.k in ('sel', 'ifstmt'):
        return _hides_product(c.c[1]) or _hides_product(c.c[2])
    return c.k in ('loop', 'fn')


def gpu_mode(args):
    import multiprocessing
    import semfuzz_cuda as C
    start = time.time()
    with open(args.ptx) as f:
        ptx = f.read()
    src = gpu_source(args.seed, args.programs)
    tag = re.search(r'kernel (semfuzz_\w+)_K0', src).group(1)
    if tag + '_K0' not in ptx:
        print('semfuzz gpu: %s was not built from this generator (no kernel %s_K0): rebuild it '
              'with `semfuzz.py emit-gpu --seed %d --programs %d`' % (args.ptx, tag, args.seed,
                                                                     args.programs))
        return 1
    dev = C.Device.open()
    if dev is None:
        print('SKIP: no CUDA device')
        return 77
    if os.environ.get('TILEC_GPU_TEST_SMALL'):
        args.rows = min(args.rows, 128)      # under compute-sanitizer
    trees, groups = gpu_programs(args.seed, args.programs)
    if args.fast:            # compiled with --fast-math: contraction and the fast forms
        G.CONTRACT = R.FAST = True
    envsets = {'random': gpu_rows(args.seed, args.rows),
               'edges': edge_rows(4096 if os.environ.get('TILEC_GPU_TEST_SMALL') else EDGE_ROWS)}
    mod = dev.load(ptx)
    inputs = {}
    for key, envs in envsets.items():
        for t in G.SCALARS:
            vals = [env['a_%s_%d' % (t, k)] for env in envs for k in range(G.NPARAM)]
            inputs[key, t] = dev.upload(G.to_bytes(t, vals))
    where = {}
    for name, items, slots, rowset in groups:
        rows = len(envsets[rowset])
        outs = sorted(slots)
        obufs = {t: dev.alloc(rows * slots[t] * R.SIZE[t]) for t in outs}
        fn = mod.function('%s_%s' % (tag, name))
        dev.launch(fn, (rows + 127) // 128, 128,
                   [inputs[rowset, t] for t in G.SCALARS] + [obufs[t] for t in outs], rows)
        results = {t: G.from_bytes(t, dev.download(obufs[t], rows * slots[t] * R.SIZE[t]))
                   for t in outs}
        for i, t, slot in items:
            where[i] = (t, results[t], slots[t], slot, rowset)
        for b in obufs.values():
            dev.free(b)
    ran = time.time() - start
    _STATE.update(trees=trees, envsets=envsets, where=where)
    jobs = args.jobs or os.cpu_count() or 1
    # under --fast-math a fast form inside a tree has no exact value to go on with
    checked = [i for i in range(len(trees)) if not (args.fast and _inner_fast(trees[i]))]
    if jobs > 1:
        with multiprocessing.get_context('fork').Pool(jobs) as pool:
            outcome = pool.map(_check_program, checked, chunksize=4)
    else:
        outcome = [_check_program(i) for i in checked]
    outcome = dict(zip(checked, outcome))
    outcome = [outcome.get(i, (0, [])) for i in range(len(trees))]
    bad = sum(o[0] for o in outcome)
    failing = [i for i, o in enumerate(outcome) if o[0]]
    for i in failing[:args.show]:
        print('semfuzz: MISMATCH (GPU) program %d (%s, %d of %d rows):\n  %s\n%s\n'
              % (i, trees[i].t, outcome[i][0], len(envsets[where[i][4]]), '\n  '.join(outcome[i][1]),
                 program_lines(src, i)))
    results = sum(len(envsets[where[i][4]]) for i in range(len(trees)))
    print('semfuzz gpu%s: seed %d, %d random programs x %d input rows + %d edge programs x %d rows '
          '= %d results, %d mismatches (%d programs; %d not checked), %.1f s on the GPU, %.1f s in all'
          % (' --fast-math' if args.fast else '', args.seed, args.programs, args.rows, len(trees) - args.programs,
             len(envsets['edges']), results, bad, len(failing), len(trees) - len(checked), ran, time.time() - start))
    return 1 if bad else 0


# ---------------------------------------------------------------- vectors, fragments, math modes, atomics, warp ops

def ext_cases(seed, fast=False):
    """The cases of the extended run (semfuzz_ext, semfuzz_frag), a function
    of the seed; fast: the math calls without `approx =`, for --fast-math."""
    import semfuzz_ext as X
    import semfuzz_frag as F
    rnd = random.Random(seed * 7919 + (1 if fast else 0))
    if fast:
        plan = [('fast', lambda r, nm: F.math_case(r, nm, explicit=False), 12)]
    else:
        plan = [('warp', X.warp_case, 40), ('vote', X.vote_case, 30), ('atomic', X.atomic_case, 50),
                ('vector', X.vector_case, 16), ('frag', F.frag_case, 30), ('math', F.math_case, 12)]
    cases = []
    for fam, make, count in plan:
        for k in range(count):
            cases.append(make(rnd, 'sfx_%s_%d' % (fam, k)))
    text = ''.join(c.text for c in cases)
    tag = hashlib.sha1(text.encode()).hexdigest()[:8]
    for c in cases:
        c.text = c.text.replace('kernel sfx_', 'kernel sfx_%s_' % tag)
        c.name = c.name.replace('sfx_', 'sfx_%s_' % tag)
    return cases


def ext_source(seed, fast=False):
    cases = ext_cases(seed, fast)
    return ('// Generated by tools/semfuzz/semfuzz.py ext-emit --seed %d%s: do not edit.\n'
            % (seed, ' --fast' if fast else '')) + ''.join(c.text for c in cases)


def ext_emit(args):
    with open(args.output, 'w') as f:
        f.write(ext_source(args.seed, args.fast))
    return 0


def ext_cpu(args):
    """The extended kernels compile (tilec) and assemble (ptxas)."""
    start = time.time()
    bad = kernels = 0
    for fast, extra in ((False, ['--fmad=false']), (True, ['--fast-math'])):
        src = ext_source(args.seed, fast)
        kernels += src.count('\nkernel ')
        rc, ptx, err = run_tilec(args.tilec, src, extra + args.tilec_args)
        if rc != 0:
            bad += 1
            print('semfuzz ext: FAIL tilec rejected the %s kernels:\n%s' % ('fast' if fast else 'main', err[:4000]))
            _save(args, 'ext%s.tile' % ('-fast' if fast else ''), src)
            continue
        if args.ptxas:
            error = ptxas_error(args.ptxas, ptx)
            if error is not None:
                bad += 1
                print('semfuzz ext: FAIL ptxas rejected the kernels:\n%s' % error)
    import semfuzz_ext as X
    checked, notfolded, msgs = X.vector_fold(
        args.seed, args.programs, lambda units: compile_units(args.tilec, units, ['--fmad=false'] + args.tilec_args),
        parse_imm, args.verbose)
    for m in msgs:
        print('semfuzz: ' + m)
    bad += len(msgs)
    print('semfuzz ext cpu: seed %d, %d kernels compiled and assembled; %d folded vector programs checked '
          '(%d not folded); %d failures, %.1f s' % (args.seed, kernels, checked, notfolded, bad, time.time() - start))
    return 1 if bad else 0


def _ext_check(i):
    c, o = _STATE['ext'][i]
    try:
        return c.check(o)
    except Exception as e:           # the reference's own defect: say so
        return ['the checker failed: %r' % e]


def ext_gpu(args):
    import semfuzz_cuda as C
    start = time.time()
    dev = C.Device.open()
    if dev is None:
        print('SKIP: no CUDA device')
        return 77
    total = bad_cases = 0
    fams = {}
    for fast, path in ((False, args.ptx), (True, args.fast_ptx)):
        if not path:
            continue
        with open(path) as f:
            ptx = f.read()
        cases = ext_cases(args.seed, fast)
        if cases[0].name not in ptx:
            print('semfuzz ext: %s was not built from this generator (no kernel %s): rebuild it with '
                  '`semfuzz.py ext-emit --seed %d%s`' % (path, cases[0].name, args.seed, ' --fast' if fast else ''))
            return 1
        mod = dev.load(ptx)
        for c in cases:
            ptrs, sizes = [], []
            for b in c.bufs:
                if b[0] == 'in':
                    ptrs.append(dev.upload(G.to_bytes(b[2], b[3])))
                    sizes.append(len(b[3]))
                else:
                    ptrs.append(dev.alloc(b[3] * R.SIZE[b[2]]))
                    sizes.append(b[3])
            n = c.blocks * c.threads
            try:
                dev.launch(mod.function(c.name), c.blocks, c.threads, ptrs, n)
            except C.CudaError as e:     # the context is lost: nothing more can run
                print('semfuzz: FAIL (GPU) kernel %s: %s\n%s' % (c.name, e, c.text))
                return 1
            o = {}
            for b, p, sz in zip(c.bufs, ptrs, sizes):
                o[b[1]] = G.from_bytes(b[2], dev.download(p, sz * R.SIZE[b[2]]))
                dev.free(p)
            _STATE.setdefault('ext', []).append((c, o))
    import multiprocessing
    jobs = args.jobs or os.cpu_count() or 1
    ran = time.time() - start
    with multiprocessing.get_context('fork').Pool(jobs) as pool:
        outcome = pool.map(_ext_check, range(len(_STATE['ext'])), chunksize=1)
    for (c, _), msgs in zip(_STATE['ext'], outcome):
        total += 1
        f = fams.setdefault(c.family, [0, 0])
        f[0] += 1
        if msgs:
            bad_cases += 1
            f[1] += 1
            if bad_cases <= args.show:
                print('semfuzz: MISMATCH (GPU, %s) kernel %s:\n  %s\n%s' % (
                    c.family, c.name, '\n  '.join(msgs[:6]), c.text))
    print('semfuzz ext gpu: seed %d, %d kernels, %d mismatching (%s), %.1f s on the GPU, %.1f s in all' % (
        args.seed, total, bad_cases, ', '.join('%s %d/%d' % (k, v[1], v[0]) for k, v in sorted(fams.items())),
        ran, time.time() - start))
    return 1 if bad_cases else 0


def mma_mode(args):
    """mma and the fragment paths around it (semfuzz_mma)."""
    import semfuzz_mma_run as MM
    if args.mode == 'mma-emit':
        with open(args.output, 'w') as f:
            f.write(MM.mma_source(args.seed, args.programs))
        return 0
    if args.mode == 'mma-gpu':
        return MM.mma_gpu(args)

    def ptxas_v(ptx):
        with tempfile.NamedTemporaryFile('w', suffix='.ptx', delete=False) as f:
            f.write(ptx)
        try:
            p = subprocess.run([args.ptxas, '-arch=sm_90a', '-v', f.name, '-o', os.devnull],
                               capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        return p.stdout + p.stderr + ('' if p.returncode == 0 else '\nerror: ptxas exit %d' % p.returncode)
    return MM.mma_cpu(args, run_tilec, ptxas_v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('mode', choices=['cpu', 'emit-gpu', 'gpu', 'ext-cpu', 'ext-emit', 'ext-gpu',
                                     'mma-cpu', 'mma-emit', 'mma-gpu'])
    ap.add_argument('--fast', action='store_true',
                    help='ext-emit: the --fast-math kernels; gpu: the PTX was compiled with --fast-math')
    ap.add_argument('--fast-ptx', help='ext-gpu: the PTX of `ext-emit --fast` (compiled with --fast-math)')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--programs', type=int, default=None)
    ap.add_argument('--tilec')
    ap.add_argument('--ptxas')
    ap.add_argument('--ptx')
    ap.add_argument('--rows', type=int, default=2048)
    ap.add_argument('--show', type=int, default=20, help='failing programs printed in full')
    ap.add_argument('--jobs', type=int, default=0, help='checking processes (default: every core)')
    ap.add_argument('--save', help='folder for rejected programs')
    ap.add_argument('--probes', type=int, default=40, help='constant-error probes (cpu)')
    ap.add_argument('--envs', type=int, default=2, help='input sets per program (cpu)')
    ap.add_argument('--tilec-arg', dest='tilec_args', action='append', default=[],
                    help='one more tilec option for the cpu mode (-O1, ...); repeatable')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('-o', '--output')
    args = ap.parse_args()
    if args.programs is None:
        args.programs = 200 if args.mode in ('cpu', 'ext-cpu') else 40 if args.mode.startswith('mma') else 400
    if args.mode == 'cpu':
        return cpu_mode(args)
    if args.mode == 'emit-gpu':
        return emit_gpu(args)
    if args.mode.startswith('mma-'):
        return mma_mode(args)
    if args.mode.startswith('ext-'):
        return {'ext-cpu': ext_cpu, 'ext-emit': ext_emit, 'ext-gpu': ext_gpu}[args.mode](args)
    return gpu_mode(args)


if __name__ == '__main__':
    sys.exit(main())
