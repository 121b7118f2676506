#!/usr/bin/env bash
# The SASS each cache-hint / vector / packed-half form becomes (the table of
# docs/reference/memory.md "Cache-controlled loads and stores, vectors, packed halves").
#
# Input: the PTX of samples/cache_forms/cache_forms.tile, one kernel per form
# (build/ptx/cache_forms.ptx here; .gpu/ptx/cache_forms.ptx on the GPU machine,
# where tools/scripts/make_gpu_bundle.sh puts every sample's PTX). Assembles it
# with ptxas -arch=sm_90a, disassembles with cuobjdump -sass and prints, per
# kernel, the form (from the source comment), the PTX access and the SASS
# memory / packed-arithmetic instructions, as a markdown table.
# Needs ptxas and cuobjdump (CUDA toolkit); no GPU and no tilec.
#
#   bash tools/scripts/cache_sass.sh [PTX] [SOURCE.tile] > cache_sass.md
# Environment: CUDA_HOME (default /usr/local/cuda).
set -euo pipefail

cuda=${CUDA_HOME:-/usr/local/cuda}
ptx=${1:-}
if [ -z "$ptx" ]; then
  for c in .gpu/ptx/cache_forms.ptx build/ptx/cache_forms.ptx; do
    [ -f "$c" ] && ptx=$c && break
  done
fi
src=${2:-samples/cache_forms/cache_forms.tile}
if [ -z "$ptx" ] || [ ! -f "$ptx" ]; then
  echo "cache_sass: no cache_forms.ptx (build it with 'ninja -C build ptx_cache_forms')" >&2
  exit 2
fi
for tool in ptxas cuobjdump; do
  if [ ! -x "$cuda/bin/$tool" ]; then
    echo "cache_sass: $cuda/bin/$tool not found (set CUDA_HOME)" >&2
    exit 2
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cuda/bin/ptxas" -arch=sm_90a "$ptx" -o "$work/forms.cubin"
"$cuda/bin/cuobjdump" -sass "$work/forms.cubin" > "$work/forms.sass"

# kernel -> source form, from the `// FORM name: text` comments.
declare -A form
if [ -f "$src" ]; then
  while IFS= read -r line; do
    name=${line#// FORM }
    name=${name%%:*}
    form[$name]=${line#*: }
  done < <(grep '^// FORM ' "$src")
fi

# kernel -> its PTX ld/st/createpolicy/packed instructions (parameter loads left out).
ptx_of() {
  awk -v k="$1" '
    $0 ~ "^.visible .entry " k "\\(" { on = 1; next }
    on && /^}/ { exit }
    on && !/param/ && /(ld|st)\.(global|shared|relaxed|acquire|release)|createpolicy|f16x2|bf16x2/ {
      sub(/^[ \t]+/, ""); gsub(/[ \t]+/, " "); printf "%s%s", sep, $0; sep = "<br>" }' "$ptx"
}

# kernel -> its SASS memory and packed-half instructions.
sass_of() {
  awk -v k="$1" '
    /Function : / { on = ($NF == k) ; next }
    on && /\/\*[0-9a-f]+\*\// && /(LDG|STG|LDS|STS|LD\.|ST\.|HADD2|HMUL2|HFMA2|HMNMX2|F2FP|CCTL)/ {
      line = $0
      sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line); sub(/[ \t]*;.*$/, "", line)
      gsub(/[ \t]+/, " ", line); printf "%s%s", sep, line; sep = "<br>" }' "$work/forms.sass"
}

echo "| kernel | form | PTX | SASS (sm_90a) |"
echo "|---|---|---|---|"
for k in $(grep -o '^.visible .entry [A-Za-z0-9_]*' "$ptx" | awk '{print $3}'); do
  echo "| $k | \`${form[$k]:-}\` | \`$(ptx_of "$k" | sed 's/<br>/`<br>`/g')\` | \`$(sass_of "$k" | sed 's/<br>/`<br>`/g')\` |"
done
