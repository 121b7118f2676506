#!/bin/sh
# A stand-in for ptxas that prints the advisories ptxas 13.0 prints (texts
# from tests/lit/driver/Inputs/*.ptx through the real ptxas):
#   FAKE_PTXAS_SETMAXNREG=NAME  C7508 (names no kernel) when the whole module
#                               or the entry NAME (-e NAME) is compiled
#   FAKE_PTXAS_WGMMA=NAME       C7510 naming kernel NAME
#   FAKE_PTXAS_WGMMA_REGS=NAME  C7511 (too few registers) naming kernel NAME
entry=""
while [ $# -gt 0 ]; do
  case "$1" in
    -e) entry="$2"; shift ;;
    -arch|-o) shift ;;
  esac
  shift
done
if [ -n "$FAKE_PTXAS_SETMAXNREG" ] && { [ -z "$entry" ] || [ "$entry" = "$FAKE_PTXAS_SETMAXNREG" ]; }; then
  echo "ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register count at entry."
fi
if [ -n "$FAKE_PTXAS_WGMMA" ] && [ -z "$entry" ]; then
  echo "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized due to wgmma pipeline crossing function boundary at a function call in the function '$FAKE_PTXAS_WGMMA'"
fi
if [ -n "$FAKE_PTXAS_WGMMA_REGS" ] && [ -z "$entry" ]; then
  echo "ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due to insufficient register resources for the wgmma pipeline in the function '$FAKE_PTXAS_WGMMA_REGS'"
fi
echo "ptxas info    : 0 bytes gmem"
exit 0
