"""Folded math against the device: tilec (through LLVM's folding of
libdevice) turns a math builtin of a constant (`sin(0.7)`) into an
immediate, which must be the bits the GPU computes for the same call.

  semfuzz_fold.py emit --tilec build/bin/tilec --out DIR [--seed S]
      writes DIR/folded.tile (each call on constants: one store per value),
      DIR/runtime.tile (the same calls on loaded inputs), compiles both and
      reads the immediates of the folded PTX into DIR/cases.json;
  semfuzz_fold.py gpu --dir DIR
      runs DIR/runtime.ptx on the inputs (CUDA driver API through ctypes)
      and compares each result's bits with the folded immediate.

Standard library only; docs/fuzzing.md."""
import argparse
import json
import os
import random
import re
import struct
import subprocess
import sys

FUNCS = {'f32': ['sin', 'cos', 'log', 'log2', 'sqrt', 'rsqrt', 'erf', 'exp', 'exp2', 'tanh'],
         'f16': ['sin', 'cos', 'log', 'log2', 'sqrt', 'rsqrt', 'exp', 'tanh'],
         'bf16': ['sin', 'cos', 'log', 'sqrt', 'rsqrt'],
         'f64': ['sqrt']}
PER = 160

def f32bits(x): return struct.unpack('<I', struct.pack('<f', x))[0]
def f32val(b): return struct.unpack('<f', struct.pack('<I', b))[0]
def f16val(b): return struct.unpack('<e', struct.pack('<H', b))[0]
def bf16val(b): return f32val(b << 16)

def values(t, rnd):
    vs = []
    if t == 'f32':
        edges = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 0.7, 3.14159274, 1.57079637, 6.28318548,
                 1e-45, 1.17549435e-38, 1e-38, 3e-39, 1e-30, 1e30, 3.40282347e38, 88.0, 88.72,
                 -87.3, -103.0, 105.0, 1e4, 1e6, 12345.678, 0.999999, 1.0000001, 1e-5, 10.0,
                 100.0, -10.0, 4.0, 0.25, 9.0, 3.0, 0.1, -0.1, 1e10, 1e20, 0.3, 2.5]
        vs += [f32bits(x) for x in edges]
        while len(vs) < PER:
            e = rnd.randint(-140, 127) if rnd.random() < 0.3 else rnd.randint(-20, 20)
            m = rnd.getrandbits(23)
            sign = rnd.getrandbits(1) if rnd.random() < 0.3 else 0
            if e < -126:
                b = (sign << 31) | (rnd.getrandbits(23) >> min(22, -126 - e))
            else:
                b = (sign << 31) | ((e + 127) << 23) | m
            vs.append(b)
        return vs
    if t == 'f16':
        vs = [0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x03ff, 0x0400, 0x7bff, 0x4248, 0x3e48, 0x4900, 0x5640]
        while len(vs) < PER:
            vs.append(rnd.getrandbits(15) % 0x7c00 | (rnd.getrandbits(1) << 15 if rnd.random() < 0.3 else 0))
        return vs
    if t == 'bf16':
        vs = [0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x0080, 0x7f7f, 0x4049, 0x3fc9]
        while len(vs) < PER:
            e = rnd.randint(0x60, 0x9f) if rnd.random() < 0.8 else rnd.randint(0, 0xfe)
            vs.append(((rnd.getrandbits(1) << 15) if rnd.random() < 0.3 else 0) | (e << 7) | rnd.getrandbits(7))
        return vs
    vs = [0, 1 << 63, 0x3ff0000000000000, 0x0000000000000001, 0x000fffffffffffff, 0x7fefffffffffffff,
          0x4000000000000000, 0x3fe6666666666666]
    while len(vs) < PER:
        vs.append(((rnd.randint(0x3c0, 0x440) if rnd.random() < 0.8 else rnd.randint(0, 0x7fe)) << 52) | rnd.getrandbits(52))
    return vs

def lit(t, b):
    if t == 'f32':
        x = f32val(b); s = '%.9g' % x
    elif t == 'f16':
        x = f16val(b); s = '%.9g' % x
    elif t == 'bf16':
        x = bf16val(b); s = '%.9g' % x
    else:
        x = struct.unpack('<d', struct.pack('<Q', b))[0]; s = '%.17g' % x
    if 'e' not in s and '.' not in s and 'n' not in s:
        s += '.0'
    if s.startswith('-'):
        s = '(0.0 - %s)' % s[1:] if x != 0 else '(-0.0)'
    return '(%s as %s)' % (s, t)



def emit(tilec, out, seed):
    rnd = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    folded, runtime, cases = [], [], []
    for t, fs in FUNCS.items():
        vals = values(t, rnd)
        for f in fs:
            name = '%s_%s' % (f, t)
            body = '\n'.join('  o[%d] = %s(%s)' % (j, f, lit(t, b)) for j, b in enumerate(vals))
            folded.append('kernel k_%s(o: ptr<%s, global>) threads(32) {\n%s\n}\n' % (name, t, body))
            runtime.append('kernel r_%s(o: ptr<%s, global>, x: ptr<%s, global>, n: i32) {\n'
                           '  for i in grid_range(n) { o[i] = %s(x[i]) }\n}\n' % (name, t, t, f))
            cases.append({'name': name, 'type': t, 'func': f, 'inputs': vals})
    open(os.path.join(out, 'folded.tile'), 'w').write('\n'.join(folded))
    open(os.path.join(out, 'runtime.tile'), 'w').write('\n'.join(runtime))
    for src in ('folded', 'runtime'):
        r = subprocess.run([tilec, os.path.join(out, src + '.tile'), '--fmad=false', '-o', os.path.join(out, src + '.ptx')], capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stderr[:3000])
            return 1
    ptx = open(os.path.join(out, 'folded.ptx')).read()
    size = {'f32': 4, 'f16': 2, 'bf16': 2, 'f64': 8}
    total = nfold = 0
    for c in cases:
        m = re.search(r'\.entry k_%s\((.*?)\n}\n' % re.escape(c['name']), ptx, re.S)
        body = m.group(1)
        imm = {}
        for sm in re.finditer(r'st\.global(?:\.v(\d))?\.b(\d+)\s+\[%rd\d+(?:\+(\d+))?\],\s*([^;]+);', body):
            off = int(sm.group(3) or 0); w = int(sm.group(2))
            for k, v in enumerate(sm.group(4).strip().strip('{}').split(',')):
                v = v.strip()
                if v.startswith('%'):
                    continue
                v = int(v, 16) if v.lower().startswith('0x') else int(v)
                v &= (1 << w) - 1
                if w // 8 == size[c['type']]:
                    imm[off // size[c['type']] + k] = v
                else:   # elements packed into a wider word
                    per = w // 8 // size[c['type']]
                    for q in range(per):
                        imm[(off + k * w // 8) // size[c['type']] + q] = (v >> (q * 8 * size[c['type']])) & ((1 << (8 * size[c['type']])) - 1)
        c['folded'] = {str(k): v for k, v in imm.items()}
        total += len(c['inputs']); nfold += len(imm)
        print('%-12s folded %3d of %d' % (c['name'], len(imm), len(c['inputs'])))
    json.dump(cases, open(os.path.join(out, 'cases.json'), 'w'))
    print('folded %d of %d calls' % (nfold, total))
    return 0


def gpu(d):
    from semfuzz_cuda import Device
    cases = json.load(open(os.path.join(d, 'cases.json')))
    dev = Device.open()
    if dev is None:
        print('no device')
        return 77
    mod = dev.load(open(os.path.join(d, 'runtime.ptx')).read())
    size = {'f32': 4, 'f16': 2, 'bf16': 2, 'f64': 8}
    fmt = {4: 'I', 2: 'H', 8: 'Q'}
    log = open(os.path.join(d, 'fold_vs_device.log'), 'w')
    rows, bad_total = [], 0
    for c in cases:
        w = size[c['type']]; n = len(c['inputs'])
        x = dev.upload(struct.pack('<%d%s' % (n, fmt[w]), *c['inputs']))
        o = dev.alloc(n * w)
        dev.launch(mod.function('r_' + c['name']), 1, 256, [o, x], n)
        got = struct.unpack('<%d%s' % (n, fmt[w]), dev.download(o, n * w))
        dev.free(x); dev.free(o)
        bad = 0
        for j, v in c['folded'].items():
            j = int(j)
            if got[j] != v:
                bad += 1
                log.write('%s input 0x%x: folded 0x%x device 0x%x\n' % (c['name'], c['inputs'][j], v, got[j]))
        bad_total += bad
        rows.append((c['name'], len(c['folded']), bad))
        log.write('%s: %d folded, %d differ\n' % (c['name'], len(c['folded']), bad))
    log.close()
    print('%-12s %7s %7s' % ('call', 'folded', 'differ'))
    for r in rows:
        print('%-12s %7d %7d' % r)
    print('TOTAL differing: %d' % bad_total)
    return 1 if bad_total else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    e = sub.add_parser('emit')
    e.add_argument('--tilec', required=True)
    e.add_argument('--out', required=True)
    e.add_argument('--seed', type=int, default=13)
    g = sub.add_parser('gpu')
    g.add_argument('--dir', required=True)
    a = p.parse_args()
    sys.exit(emit(a.tilec, a.out, a.seed) if a.cmd == 'emit' else gpu(a.dir))


if __name__ == '__main__':
    main()
