"""semfuzz mma: the CPU mode (the generated kernels compile and assemble
without serialised wgmma or spills; minimised findings; rejected programs)
and the GPU mode (run every kernel through the driver API, check it against
semfuzz_mma's reference)."""
import ctypes
import multiprocessing
import os
import re
import time

import semfuzz_ref as R
import semfuzz_gen as G
from semfuzz_mma import mma_cases, mma_source


C75 = re.compile(r'C75(1[0-8])|wgmma.*serializ', re.I)
SPILL = re.compile(r'(\d+) bytes spill stores, (\d+) bytes spill loads')


def describe(c):
    s = c.spec
    return '%s x %s -> %s, %d wg, [%d, %d] K %d x %d (%s), A %s, B %s, %s' % (
        s['ta'], s['tb'], s['acc_t'], s['W'], s['M'], s['N'], s['K'], s['T'], s['form'], s['asrc'],
        s['bsrc'], s['init'])


# Minimised findings, compiled and scanned with the generated kernels on every
# CPU run (docs/fuzzing.md): ptxas must not inject waits or serialise.
REGRESSIONS = [
    # var acc = zeros (128 rows), then acc = mma(.., acc): +0.0 moves between fence and wgmma (C7519/C7517)
    """kernel sfm_reg_zero_var(o: ptr<f32, global>) threads(128) {
  let ta = shared<f16>[128, 16]
  let tb = shared<f16>[16, 16]
  var acc = zeros<f32>[128, 16]
  acc = mma(ta, tb, acc)
  store(o, acc, row_stride = 16)
}
""",
    # an f16 accumulator two mmas wrote, compared with a literal half by half (C7514)
    """kernel sfm_reg_f16_compare(o: ptr<f16, global>, c: ptr<f16, global>) threads(128) {
  let ta = shared<f16>[64, 16]
  let tb = shared<f16>[16, 64]
  var acc = load_frag(c, zeros<f16>[64, 64], row_stride = 64)
  acc = mma(ta, tb, acc)
  acc = mma(ta, tb, acc)
  store(o, select(acc < 0.5, acc, 1.0), row_stride = 64)
}
""",
]
# Programs the documents reject, with the message: bf16 x bf16 has no f16 accumulator.
PROBES = [
    ("""kernel p(o: ptr<f16, global>) threads(128) {
  let a = shared<bf16>[64, 16]
  let b = shared<bf16>[16, 64]
  let acc = mma(a, b, zeros<f16>[64, 64])
  store(o, acc, row_stride = 64)
}
""", 'bf16 operands need an f32 accumulator'),
    ("""kernel p(o: ptr<f32, global>) threads(128) {
  let a = shared<f32>[64, 8]
  let b = shared<f32>[8, 64]
  let acc = mma(a, b, zeros<f32>[64, 64])
  store(o, acc, row_stride = 64)
}
""", 'mma operands must both be f16, both bf16, both fp8 or both i8/u8'),  # no tf32
    ("""kernel p(o: ptr<f32, global>) threads(128) {
  let a = shared<i8>[64, 32]
  let b = shared<i8>[64, 32]
  let acc = mma(a, trans(b), zeros<f32>[64, 64])
  store(o, acc, row_stride = 64)
}
""", 'an integer mma accumulates in frag<i32>'),      # int8 into f32
    ("""kernel p(o: ptr<f16, global>, x: ptr<f32, global>) threads(128) {
  let b = shared<bf16>[16, 64]
  let acc = mma(load_frag(x, zeros<f32>[64, 16], row_stride = 16) as bf16, b, zeros<f16>[64, 64])
  store(o, acc, row_stride = 64)
}
""", 'bf16 operands need an f32 accumulator'),
]


def mma_cpu(args, run_tilec, ptxas_v):
    """The generated kernels compile (--fmad=false) and assemble without
    serialised wgmma (C7510-C7518) or spills; every tensor parameter's box
    and swizzle in --emit=info are the ones the GPU mode encodes."""
    import json
    start = time.time()
    cases = mma_cases(args.seed, args.programs)
    src = mma_source(args.seed, args.programs) + ''.join(REGRESSIONS)
    bad = 0
    for text, msg in PROBES:
        rc, _, err = run_tilec(args.tilec, text, ['--no-wgmma-check'])
        if rc == 0 or msg not in err:
            bad += 1
            print('semfuzz mma: FAIL a program the documents reject was %s (expected "%s"):\n%s%s'
                  % ('accepted' if rc == 0 else 'rejected otherwise', msg, text, err[:2000]))
    rc, ptx, err = run_tilec(args.tilec, src, ['--fmad=false', '--no-wgmma-check'] + args.tilec_args)
    if rc != 0:
        starts = [m.start() for m in re.finditer(r'^kernel ', src, re.M)]
        lines = sorted({int(x) for x in re.findall(r':(\d+):\d+: error', err)})
        named = set()
        for ln in lines:
            off = sum(len(x) + 1 for x in src.split('\n')[:ln - 1])
            k = max([i for i, s in enumerate(starts) if s <= off] or [0])
            named.add(k)
        for k in sorted(named):
            if k >= len(cases):
                print('semfuzz mma: FAIL tilec rejected a regression kernel')
                continue
            print('semfuzz mma: FAIL tilec rejected kernel %s (%s):\n%s' % (cases[k].name, describe(cases[k]),
                                                                          cases[k].text))
        print(err[:6000])
        return 1
    out = ptxas_v(ptx)
    per = {}
    cur = None
    for ln in out.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", ln)
        if m:
            cur = m.group(1)
            continue
        named = re.search(r"function '(\w+)'", ln)
        k = named.group(1) if named else cur
        if C75.search(ln) or re.search(r'warning|error', ln, re.I):
            per.setdefault(k, []).append(ln.strip())
        m = SPILL.search(ln)
        if m and (int(m.group(1)) or int(m.group(2))):
            per.setdefault(k, []).append(ln.strip())
    for k in per:
        if k not in {c.name for c in cases} or k.startswith('sfm_reg_'):
            bad += 1
            print('semfuzz mma: FAIL ptxas: %s' % '\n  '.join(per[k]))
    for c in cases:
        if c.name in per:
            bad += 1
            print('semfuzz mma: FAIL ptxas on %s (%s):\n  %s' % (c.name, describe(c), '\n  '.join(per[c.name])))
            if bad <= args.show:
                print(c.text)
    rc, info, err = run_tilec(args.tilec, src, ['--fmad=false', '--no-wgmma-check'] + args.tilec_args,
                              emit='info')
    if rc != 0:
        print('semfuzz mma: FAIL --emit=info failed:\n%s' % err[:2000])
        return 1
    info = json.loads(info)
    boxes = {}
    for k in info['kernels']:
        for p in k['params']:
            if 'tensor' in p:
                boxes[(k['name'], p['name'])] = (p['tensor']['box'], p['tensor']['swizzle'])
    ntensor = 0
    for c in cases:
        for p in c.params:
            if p[0] == 'tensor':
                ntensor += 1
                box, swz = c.tensor_box(p[2], p[4])
                want = ([p[6] if len(p) > 6 else p[3], box], swz)
                if boxes.get((c.name, p[1])) != want:
                    bad += 1
                    print('semfuzz mma: FAIL %s %s: --emit=info says box/swizzle %s, the runner encodes %s'
                          % (c.name, p[1], boxes.get((c.name, p[1])), want))
    print('semfuzz mma cpu: seed %d, %d kernels and %d regressions compiled and assembled (%d TMA maps '
          'checked), %d rejected programs probed; %d failures, %.1f s'
          % (args.seed, len(cases), len(REGRESSIONS), ntensor, len(PROBES), bad, time.time() - start))
    return 1 if bad else 0


_RUN = []


def _check(i):
    c, o = _RUN[i]
    try:
        return c.check(o)
    except Exception as e:           # the reference's own defect: say so
        import traceback
        return ['the checker failed: %r\n%s' % (e, traceback.format_exc())]


def mma_gpu(args):
    import semfuzz_cuda as CU
    start = time.time()
    dev = CU.Device.open()
    if dev is None:
        print('SKIP: no CUDA device')
        return 77
    cases = mma_cases(args.seed, args.programs)
    with open(args.ptx) as f:
        ptx = f.read()
    if cases[0].name not in ptx:
        print('semfuzz mma: %s was not built from this generator (no kernel %s): rebuild it with '
              '`semfuzz.py mma-emit --seed %d --programs %d`' % (args.ptx, cases[0].name, args.seed, args.programs))
        return 1
    mod = dev.load(ptx)
    failed = []
    for c in cases:
        argv, outs, ptrs = [], [], []
        for p in c.params:
            if p[0] == 'buf':
                if p[3] is not None:
                    ptr = dev.upload(G.to_bytes(p[2], p[3]))
                else:
                    ptr = dev.alloc(p[4] * R.SIZE[p[2]])
                    outs.append((p[1], p[2], ptr, p[4]))
                ptrs.append(ptr)
                argv.append(ctypes.c_uint64(ptr.value))
            elif p[0] == 'tensor':
                if p[5] is None:            # a TMA store's destination
                    ptr = dev.alloc(p[3] * p[4] * R.SIZE[p[2]])
                    outs.append((p[1], p[2], ptr, p[3] * p[4]))
                else:
                    ptr = dev.upload(G.to_bytes(p[2], p[5]))
                ptrs.append(ptr)
                box, swz = c.tensor_box(p[2], p[4])
                rows = p[6] if len(p) > 6 else p[3]
                argv.append(CU.TensorMap(dev, p[2], ptr, [p[4], p[3]], R.SIZE[p[2]], [box, rows], swz))
            elif p[0] == 'i32':
                argv.append(ctypes.c_int32(p[2]))
            else:
                argv.append(ctypes.c_float(p[2]))
        try:
            CU.launch_args(dev, mod.function(c.name), 1, c.threads, argv)
        except CU.CudaError as e:
            print('semfuzz mma: FAIL (GPU) kernel %s (%s): %s\n%s' % (c.name, describe(c), e, c.text))
            return 1
        o = {}
        for nm, t, ptr, n in outs:
            o[nm] = G.from_bytes(t, dev.download(ptr, n * R.SIZE[t]))
        for ptr in ptrs:
            dev.free(ptr)
        _RUN.append((c, o))
    ran = time.time() - start
    with multiprocessing.get_context('fork').Pool(args.jobs or os.cpu_count() or 1) as pool:
        outcome = pool.map(_check, range(len(_RUN)), chunksize=1)
    nbad = 0
    for (c, _), msgs in zip(_RUN, outcome):
        if msgs:
            nbad += 1
            failed.append(c)
            if nbad <= args.show:
                print('semfuzz: MISMATCH (GPU, mma) kernel %s (%s):\n  %s\n%s' % (
                    c.name, describe(c), '\n  '.join(msgs[:8]), c.text))
    cover = {}
    for c in cases:
        s = c.spec
        for key in ('%s.%s' % (s['ta'], s['tb']), 'acc ' + s['acc_t'], 'A ' + s['asrc'], 'B ' + s['bsrc'],
                    '%d wg' % s['W'], s['init'], s['form']):
            cover[key] = cover.get(key, 0) + 1
    print('semfuzz mma gpu: seed %d, %d kernels (%s), %d mismatching, %.1f s on the GPU, %.1f s in all' % (
        args.seed, len(cases), ', '.join('%s %d' % kv for kv in sorted(cover.items())), nbad, ran,
        time.time() - start))
    for c in failed:
        print('  mismatch: %s (%s)' % (c.name, describe(c)))
    return 1 if nbad else 0
