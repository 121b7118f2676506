# cmake -DIN=gemm.tile -DOUT=gemm_bf16.tile -P GemmDtype.cmake
# The bf16 GEMM is the f16 source with its element type replaced: the
# language has no type parameters (kernel<...> takes integers and i1 only),
# and one source keeps the two GEMMs the same program. Every `f16` that is
# not already part of `bf16` becomes `bf16` (types, casts, comments alike).
file(READ ${IN} text)
string(REGEX REPLACE "([^b])f16" "\\1bf16" text "${text}")
file(WRITE ${OUT}.tmp "// GENERATED from ${IN} by GemmDtype.cmake (f16 -> bf16); edit the source.\n${text}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
