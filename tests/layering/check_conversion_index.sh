#!/usr/bin/env bash
# compiler/conversion holds one file per PTX family. TileToLLVM.h's index
# comment lists every family in the order ConvertTileToLLVMPass.cpp populates
# them; each family's populate function is declared there and called by the
# pass, and each has its lit test in tests/lit/conversion/. This check fails
# when a family is added, renamed or dropped in one place but not the others.
#
#   check_conversion_index.sh SOURCE_DIR
set -uo pipefail
SRC=${1:?usage: $0 SOURCE_DIR}
conv=$SRC/compiler/conversion
header=$SRC/compiler/include/tilec/Conversion/TileToLLVM.h
pass=$conv/ConvertTileToLLVMPass.cpp
lit=$SRC/tests/lit/conversion
bad=0
fail() { echo "check_conversion_index: $*"; bad=1; }

families=$(cd "$conv" && ls *ToNVVM.cpp *ToLLVM.cpp 2>/dev/null | grep -v '^ConvertTileToLLVMPass.cpp$' | sed 's/\.cpp$//' | sort)
[ -n "$families" ] || { echo "check_conversion_index: no families under $conv" >&2; exit 2; }
# The index: comment lines `//   NameToX.cpp   what`.
indexed=$(sed -nE 's@^//[[:space:]]+([A-Za-z]+To(NVVM|LLVM))\.cpp[[:space:]].*@\1@p' "$header")
populated=$(sed -nE 's@.*tile::populateTile([A-Za-z]+To(NVVM|LLVM))Patterns\(.*@\1@p' "$pass")

for f in $families; do
  grep -qx "$f" <<<"$indexed" || fail "$f.cpp is not in the index of TileToLLVM.h"
  grep -qE "void populateTile${f}Patterns\(" "$header" || fail "populateTile${f}Patterns is not declared in TileToLLVM.h"
  grep -qx "$f" <<<"$populated" || fail "ConvertTileToLLVMPass.cpp does not call populateTile${f}Patterns"
  stem=$(sed -E 's/To(NVVM|LLVM)$//' <<<"$f" | sed -E 's/([a-z])([A-Z])/\1-\2/g' | tr 'A-Z' 'a-z')
  [ -f "$lit/$stem.mlir" ] || [ -f "$lit/${stem}s.mlir" ] || fail "$f has no lit test tests/lit/conversion/$stem.mlir"
done
for f in $indexed; do
  grep -qx "$f" <<<"$families" || fail "the index of TileToLLVM.h lists $f.cpp, which does not exist"
done
[ "$indexed" = "$populated" ] || fail "the index's order differs from the pass's populate order:
index: $(echo $indexed)
pass:  $(echo $populated)"
[ $bad -eq 0 ] && echo "check_conversion_index: $(wc -w <<<"$families") families, index, declarations, pass and lit tests agree"
exit $bad
