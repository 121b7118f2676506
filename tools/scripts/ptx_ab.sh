#!/usr/bin/env bash
# Old vs new PTX in one run, on the GPU machine: each sample configuration runs
# with the old and the new PTX, alternately, ROUNDS times (so clock and thermal
# drift hit both alike); prints one markdown row per configuration with the
# median of the per-round medians and new/old.
#
#   bash tools/scripts/ptx_ab.sh BUILD_BIN OLD_DIR NEW_DIR [ROUNDS]
#
# OLD_DIR and NEW_DIR hold histogram_c<C>.ptx and pingpong.ptx (with the
# .info.json beside each). Every run checks its result exactly; a failed run
# fails the script.
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_BIN OLD_DIR NEW_DIR [ROUNDS]" >&2
  exit 2
fi
BIN=$1 OLD=$2 NEW=$3 ROUNDS=${4:-5}
FAILED=0

# time_of LOG: the median ms the sample printed ("time: median X ms ...").
time_of() { sed -nE 's/^time: median ([0-9.]+) ms.*/\1/p' "$1" | head -1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# row NAME BINARY PTXNAME ARGS...: ROUNDS alternating runs with OLD/PTXNAME and NEW/PTXNAME.
row() {
  local name=$1 bin=$2 ptx=$3
  shift 3
  local old=() new=() log
  log=$(mktemp)
  for _ in $(seq "$ROUNDS"); do
    for side in old new; do
      local dir=$OLD
      [ $side = new ] && dir=$NEW
      if ! "$BIN/$bin" "$@" --ptx "$dir/$ptx" > "$log" 2>&1; then
        echo "ptx_ab: $name with $dir/$ptx failed:" >&2
        tail -3 "$log" >&2
        FAILED=1
        rm -f "$log"
        return
      fi
      if [ $side = old ]; then old+=("$(time_of "$log")"); else new+=("$(time_of "$log")"); fi
    done
  done
  rm -f "$log"
  local mo mn
  mo=$(printf '%s\n' "${old[@]}" | median)
  mn=$(printf '%s\n' "${new[@]}" | median)
  awk -v n="$name" -v o="$mo" -v m="$mn" 'BEGIN { printf "| %s | %.4f | %.4f | %.3f |\n", n, o, m, m / o }'
}

echo "| configuration | old ms | new ms | new/old |"
echo "|---|---|---|---|"
for c in 1 2 4 8; do
  for dist in uniform skewed; do
    row "histogram 1e8, $dist, cluster $c, 512 thr" histogram "histogram_c$c.ptx" \
      --cluster "$c" --threads 512 --dist "$dist" --runs 20
  done
done
row "histogram 1e8, uniform, cluster 1, 1024 thr" histogram histogram_c1.ptx --cluster 1 --threads 1024 --runs 20
row "ping-pong 128x32, cluster 8, 1e4 iterations" pingpong pingpong.ptx --iters 10000 --runs 20
exit $FAILED
