#!/usr/bin/env bash
# The frontend (lexer, parser, AST, Sema) is plain C++17: it builds and is
# fuzzed without MLIR or LLVM. This check fails when a frontend file, or a
# header it may include from the compiler's target folder, includes an MLIR,
# LLVM or dialect header, or a compiler header that pulls one in.
#
#   check_frontend_includes.sh SOURCE_DIR
set -uo pipefail
SRC=${1:?usage: $0 SOURCE_DIR}
# The headers the frontend may include outside its own folders: the compiler
# target facts (tilec/Target), the uniformity rules (tilec/Uniformity.h) and the runtime's public headers (tile/*.h, not
# tile/Dialect).
files=$(find "$SRC/compiler/frontend" "$SRC/compiler/include/tilec/frontend" \
             "$SRC/compiler/include/tilec/Target" "$SRC/compiler/include/tilec/Uniformity.h" -type f \( -name '*.h' -o -name '*.cpp' \) | sort)
if [ -z "$files" ]; then
  echo "check_frontend_includes: no frontend sources under $SRC" >&2
  exit 2
fi
bad=0
for f in $files; do
  while IFS= read -r line; do
    header=$(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1/p' <<<"$line")
    [ -z "$header" ] && continue
    case "$header" in
      mlir/* | llvm/* | llvm-c/* | tile/Dialect/* | *.inc | *.h.inc)
        why="an MLIR, LLVM or dialect header" ;;
      tilec/frontend/* | tilec/Target/* | tilec/SourceLoc.h | tilec/Uniformity.h) continue ;;
      tilec/*) why="a compiler header outside tilec/frontend and tilec/Target" ;;
      tile/*) continue ;; # the runtime's public headers: plain C++
      *) continue ;;      # the standard library, the frontend's own headers
    esac
    echo "${f#$SRC/}: includes <$header>: $why (the frontend must stay MLIR-free)"
    bad=1
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$f")
done
# Nor may its library see the dialect headers or link MLIR/LLVM.
cmake="$SRC/compiler/frontend/CMakeLists.txt"
if grep -nE 'dialects/include|MLIR|LLVM[A-Z]' "$cmake" | grep -vE '^[0-9]+:[[:space:]]*#'; then
  echo "${cmake#$SRC/}: the frontend library names a dialect include folder or an MLIR/LLVM library"
  bad=1
fi
if [ $bad -ne 0 ]; then
  echo "hint: move the shared fact into a plain C++ header under compiler/include/tilec/Target" \
       "(or the runtime's tile/*.h when a host needs it too)"
  exit 1
fi
echo "check_frontend_includes: $(wc -w <<<"$files") files, no MLIR, LLVM or dialect include"
