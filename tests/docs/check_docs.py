#!/usr/bin/env python3
"""Keeps the documentation true: docs_examples and docs_links (ctest).

  check_docs.py examples TILEC ROOT   every ```tile block of docs/ and README.md
                                      compiles with `tilec --emit=ptx`
  check_docs.py links ROOT            every relative link (and its #anchor) of
                                      docs/ and README.md resolves, and every
                                      builtin of the frontend's table has its
                                      row in docs/reference/builtins.md
  check_docs.py concepts ROOT         no issue numbers and no paths outside
                                      the repository in code, tests or docs

Fenced blocks, by their info string (docs/README.md "Conventions"):
  tile                  a complete file: must compile, with no diagnostics
  tile warning          a complete file: must compile; warnings expected
  tile error            a complete file: must be rejected (exit 1, an error)
  tile excerpt=PATH     a verbatim excerpt of PATH (a sample): must appear there
  ptx="TEXT"            (any number) the block's PTX contains TEXT (runs of
                        spaces and tabs compare as one space): the guide's
                        claims about what a construct becomes
  rejects="ARGS"        the block compiled with ARGS instead of its own
                        arguments is rejected (exit 1, an error): an
                        instance the text says fails
  message="TEXT"        (any number; error and warning blocks, or with
                        rejects=) the diagnostics contain TEXT
  Other words of the info string are passed to tilec
  (```tile -D BM=64 -D BN=64, ```tile warning --cluster=2); the info string
  is split as a shell splits it, so a quoted TEXT may hold spaces.
  anything else         (ebnf, text, sh, mlir, ...) is not checked
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\S*)(.*)$")


def doc_files(root):
    out = [os.path.join(root, "README.md")]
    for d, _, files in os.walk(os.path.join(root, "docs")):
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".md")]
    return sorted(out)


def blocks(path):
    """(line, lang, info, text) of every fenced block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m.group(1):
            start, lang, info = i + 1, m.group(1), m.group(2).strip()
            i += 1
            body = []
            while i < len(lines) and lines[i] != "```":
                body.append(lines[i])
                i += 1
            yield start, lang, info, "\n".join(body) + "\n"
        i += 1


def compile_block(tilec, text, args):
    """(process, diagnostics, PTX) of one block compiled with `args`."""
    with tempfile.TemporaryDirectory() as tmp:
        name = os.path.join(tmp, "block.tile")
        with open(name, "w", encoding="utf-8") as f:
            f.write(text)
        ptx = os.path.join(tmp, "block.ptx")
        p = subprocess.run([tilec, name, "--emit=ptx", "-o", ptx] + args,
                           capture_output=True, text=True, timeout=120)
        code = open(ptx, encoding="utf-8").read() if os.path.exists(ptx) else ""
        return p, (p.stdout + p.stderr).replace(name, "<block>"), code


def examples(tilec, root):
    failures, count = [], 0
    for path in doc_files(root):
        rel = os.path.relpath(path, root)
        for line, lang, info, text in blocks(path):
            if lang != "tile":
                continue
            count += 1
            where = f"{rel}:{line}"
            m = re.match(r"excerpt=(\S+)", info)
            if m:
                src = os.path.join(root, m.group(1))
                if not os.path.exists(src):
                    failures.append(f"{where}: excerpt of a missing file {m.group(1)}")
                elif text.strip() not in open(src, encoding="utf-8").read():
                    failures.append(f"{where}: not a verbatim excerpt of {m.group(1)} any more")
                continue
            words = shlex.split(info)
            mode = words[0] if words and words[0] in ("warning", "error") else ""
            words = words[1:] if mode else words
            ptx = [w[4:] for w in words if w.startswith("ptx=")]
            messages = [w[8:] for w in words if w.startswith("message=")]
            rejects = [w[8:] for w in words if w.startswith("rejects=")]
            args = [w for w in words if not w.startswith(("ptx=", "message=", "rejects="))]
            if ptx and mode == "error":
                failures.append(f"{where}: an error block has no PTX to check (ptx=)")
            if messages and not mode and not rejects:
                failures.append(f"{where}: message= needs a `tile error` or `tile warning` "
                                "block, or rejects=")
            p, out, code = compile_block(tilec, text, args)
            if mode == "error":
                if p.returncode != 1 or "error:" not in out:
                    failures.append(f"{where}: expected an error, got exit {p.returncode}\n{out}")
            elif p.returncode != 0:
                failures.append(f"{where}: does not compile\n{out}")
            elif mode != "warning" and out.strip():
                failures.append(f"{where}: compiles with diagnostics (mark it `tile warning`)\n{out}")
            elif mode == "warning" and "warning:" not in out:
                failures.append(f"{where}: a `tile warning` block compiles without a warning")
            for want in ptx:
                if p.returncode == 0 and want not in re.sub(r"[ \t]+", " ", code):
                    failures.append(f"{where}: the PTX has no `{want}`")
            for other in rejects:
                p, out, _ = compile_block(tilec, text, shlex.split(other))
                if p.returncode != 1 or "error:" not in out:
                    failures.append(f"{where}: with {other}: expected an error, got exit "
                                    f"{p.returncode}\n{out}")
            for want in messages:
                if want not in out:
                    failures.append(f"{where}: the diagnostics do not say `{want}`\n{out}")
    return failures, count


def slug(heading):
    """GitHub's anchor for a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    out, in_code = set(), False
    for l in open(path, encoding="utf-8"):
        if l.startswith("```"):
            in_code = not in_code
        elif not in_code and l.startswith("#"):
            base, n = slug(l.lstrip("#")), 1
            a = base
            while a in out:
                a, n = f"{base}-{n}", n + 1
            out.add(a)
    return out


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def links(root):
    failures, count = [], 0
    for path in doc_files(root):
        rel = os.path.relpath(path, root)
        in_code = False
        for n, l in enumerate(open(path, encoding="utf-8"), 1):
            if l.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(re.sub(r"`[^`]*`", "", l)):
                if re.match(r"[a-z]+:", target):
                    continue  # http(s), mailto
                count += 1
                file, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
                if not os.path.exists(dest):
                    failures.append(f"{rel}:{n}: link to a missing file: {target}")
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    failures.append(f"{rel}:{n}: link to a missing section: {target}")
    # The builtin table lists every name of kBuiltins (compiler/frontend/AST.cpp).
    ast = open(os.path.join(root, "compiler/frontend/AST.cpp"), encoding="utf-8").read()
    table = ast[ast.index("kBuiltins[] = {"):]
    table = table[:table.index("};")]
    ref = open(os.path.join(root, "docs/reference/builtins.md"), encoding="utf-8").read()
    for name in re.findall(r'\{Builtin::\w+, "(\w+)"\}', table):
        count += 1
        if not re.search(r"[`,] ?" + name + r"[`(<,]", ref):
            failures.append(f"docs/reference/builtins.md: no row for the builtin '{name}'")
    return failures, count


# Issue numbers and files outside the repository: the documentation and the
# comments name concepts, not the history that introduced them.
HISTORY = re.compile(r"[Ii]ssues? ?#\d|[Ii]ssue \d|\(#\d+\)|\s#\d+(\.\d+)?[:,) ]|"
                     r"/work/|\.\./shared/|(NEXT-|ASYNC-)DESIGN\.md|\bDESIGN\.md|"
                     r"MLIR22-NOTES|SPEC\.md|language\.md")
# Numbered things that are not issues: PTX operands and registers, runtime
# messages ("symmetric buffer #0"), MLIR's "operand #1" and "result #0", AST dumps ("#3").
ALLOWED = re.compile(r"operand #\d|result #\d|buffer #\d|barrier #\d|[Pp]roduce #\d|[Cc]onsume #\d|"
                     r"#\d+ (@\d|static|dynamic|index=|over-array)|-> #\d|mbarrier #\d")


def concepts(root):
    failures, count = [], 0
    me = os.path.abspath(__file__)
    for top in ["compiler", "runtime", "dialects", "docs", "samples", "tests", "tools",
                "README.md", "CMakeLists.txt"]:
        start = os.path.join(root, top)
        paths = [start] if os.path.isfile(start) else [
            os.path.join(d, f) for d, _, fs in os.walk(start) for f in fs]
        for p in sorted(paths):
            if os.path.abspath(p) == me or p.endswith((".png", ".bc", ".ptx")):
                continue
            count += 1
            try:
                text = open(p, encoding="utf-8").read().split("\n")
            except UnicodeDecodeError:
                continue
            for n, l in enumerate(text, 1):
                if HISTORY.search(l) and not ALLOWED.search(l):
                    failures.append(f"{os.path.relpath(p, root)}:{n}: {l.strip()[:120]}")
    return failures, count


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "examples" and len(sys.argv) == 4:
        failures, count = examples(sys.argv[2], sys.argv[3])
        what = "tile code blocks"
    elif mode == "links" and len(sys.argv) == 3:
        failures, count = links(sys.argv[2])
        what = "links"
    elif mode == "concepts" and len(sys.argv) == 3:
        failures, count = concepts(sys.argv[2])
        what = "files"
    else:
        print(__doc__)
        return 2
    for f in failures:
        print(f)
    print(f"{mode}: {count} {what} checked, {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
