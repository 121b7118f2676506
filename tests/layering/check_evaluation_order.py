#!/usr/bin/env python3
"""The compiler builds IR in an order that does not depend on the host C++
compiler: no call passes two or more arguments that each build IR.

C++ leaves the evaluation order of a call's arguments unspecified, and GCC and
Clang differ (GCC mostly right to left, Clang left to right). In
`scf::ForOp::create(b, l, c32(l, 0), count, c32(l, 1))` the two constants are
created in opposite orders by the two compilers, so the IR, the lit tests that
check it, and in general the PTX would depend on which compiler built tilec.
Build such arguments into named values first, in the order wanted.

An argument "builds IR" when it calls something with a location or a builder
among its first two arguments (`intConst(l, ...)`, `X::create(b, loc, ...)`),
a `gen*` MLIRGen function, a lambda of the same file whose body builds IR
(`auto c = [&](int v) { return intConst(l, i32, v); }` makes `c(0)` count), or
a function returning a Value whose body builds IR (a method that uses the
builder member, `Value ringCursor(const RingStmt &r, bool producer)`).
A lambda written as an argument is not evaluated at the call and is not
counted.

  check_evaluation_order.py ROOT       check compiler/ and dialects/lib
  check_evaluation_order.py --self-test
"""
import glob
import re
import sys

BUILDS = re.compile(r'\b(?:\w+::)*\w+\s*(?:<[^<>;()]*>)?\(\s*(?:[\w.*&]+\s*,\s*)?'
                    r'(?:(?:l|loc)\s*[,)]|(?:b|builder|rewriter)\s*,)|\bgen[A-Z]\w*\s*\(')
CALL = re.compile(r'\b((?:\w+::)*\w+)\s*(?:<[^<>;(){}]*>)?\s*\(')
FUNCTION = re.compile(r'\b(?:Value|TypedValue<[^<>;]*>|Operation\s*\*)\s+(?:\w+::)*(\w+)\s*'
                      r'\([^()]*\)\s*(?:const\s*)?\{')
LAMBDA = re.compile(r'\b(\w+)\s*=\s*\[[^\[\]]*\]\s*(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?[^{;]*\{')
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'catch', 'assert'}


def strip(src):
    """Removes comments and string literals, keeping line numbers."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith('//', i):
            j = src.find('\n', i)
            i = n if j < 0 else j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * src.count('\n', i, j))
            i = j
        elif src[i] in '"\'':
            q, j = src[i], i + 1
            while j < n and src[j] != q:
                j += 2 if src[j] == '\\' else 1
            out.append(q + q)
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return ''.join(out)


def arguments(text, start):
    """The top-level arguments of the call whose '(' ends at start."""
    depth, cur, args, i = 1, [], [], start
    while i < len(text) and depth:
        c = text[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if depth == 1 and c == ',':
            args.append(''.join(cur))
            cur = []
        elif depth:
            cur.append(c)
        i += 1
    args.append(''.join(cur))
    return args


def building_definitions(text, pattern):
    """Names of the definitions matched by pattern (ending at the body's '{')
    whose body builds IR."""
    names = set()
    for m in pattern.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
        if BUILDS.search(text[m.end():i]) or '::create(' in text[m.end():i]:
            names.add(m.group(1))
    return names


def problems(text, name, functions=frozenset()):
    """functions: names of functions (of any file) that build IR."""
    text = strip(text)
    builders = building_definitions(text, LAMBDA) | set(functions)
    calls = (re.compile(r'(?<![\w.>])(?:' + '|'.join(sorted(builders)) + r')\s*\(')
             if builders else None)

    def builds(arg):
        return BUILDS.search(arg) or (calls and calls.search(arg))

    found = []
    for m in CALL.finditer(text):
        if m.group(1) in KEYWORDS:
            continue
        building = [a.strip() for a in arguments(text, m.end())
                    if not a.strip().startswith('[') and builds(a)]
        if len(building) >= 2:
            line = text.count('\n', 0, m.start()) + 1
            found.append(f'{name}:{line}: {m.group(1)}(...) has {len(building)} arguments that '
                         f'build IR ({", ".join(" ".join(a.split())[:40] for a in building)}): '
                         f'their order is unspecified in C++; build them into named values first')
    return found


def self_test():
    bad = ['auto f = scf::ForOp::create(b, l, c32(l, 0), count, c32(l, 1));',
           'Value v = arith::AndIOp::create(builder, l, arith::CmpIOp::create(builder, l, p, x, y),\n'
           '    arith::CmpIOp::create(builder, l, p, x, z));',
           'Value m = mul(castInt(l, genExpr(*e), i32), intConst(l, i32, 4));',
           'auto c = [&](int64_t v) { return intConst(l, i32, v); };\n'
           'Value s = arith::SelectOp::create(b, l, p, c(0), c(1));',
           'Value Gen::cursor(int r) { return CursorOp::create(builder, loc(r)); }\n'
           'DrainOp::create(builder, l, cursor(r), loadWeak(l, p));']
    good = ['Value lo = c32(l, 0), one = c32(l, 1);\nauto f = scf::ForOp::create(b, l, lo, n, one);',
            'emitWhile(l, [&] { return genExpr(*c); }, [&] { genBlock(s, 0); });',
            'Value v = LLVM::AddOp::create(b, loc, x, i32Const(b, loc, 1)); // c32(l, 0), c32(l, 1)',
            'error(loc, "c32(l, 0), c32(l, 1)");',
            'auto c = [&](int64_t v) { return intConst(l, i32, v); };\n'
            'Value zero = c(0), one = c(1);\nValue s = arith::SelectOp::create(b, l, p, zero, one);',
            'auto at = [&](int i) { return intConst(l, i32, i); };\nfoo(v.at(0), w.at(1));',
            'Value Gen::cursor(int r) { return CursorOp::create(builder, loc(r)); }\n'
            'Value c = cursor(r);\nDrainOp::create(builder, l, c, loadWeak(l, p));']
    ok = True
    for s in bad:
        if not problems(s, 'bad', building_definitions(strip(s), FUNCTION)):
            print('self-test: not flagged:', s)
            ok = False
    for s in good:
        if problems(s, 'good', building_definitions(strip(s), FUNCTION)):
            print('self-test: flagged:', s)
            ok = False
    print('self-test', 'passed' if ok else 'FAILED')
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    files = sorted(glob.glob(f'{root}/compiler/**/*.cpp', recursive=True) +
                   glob.glob(f'{root}/compiler/**/*.h', recursive=True) +
                   glob.glob(f'{root}/dialects/lib/*.cpp'))
    texts = {f: open(f).read() for f in files}
    functions = set().union(*(building_definitions(strip(t), FUNCTION) for t in texts.values()))
    found = []
    for f in files:
        found += problems(texts[f], f[len(root) + 1:], functions)
    for p in found:
        print(p)
    print(f'evaluation order: {len(files)} files, {len(found)} problem(s)')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
