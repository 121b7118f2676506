#!/usr/bin/env bash
# The long whole-pipeline fuzz run (docs/fuzzing.md): libFuzzer with
# AddressSanitizer + UndefinedBehaviorSanitizer over source -> MLIRGen ->
# passes -> LLVM -> PTX, ptxas -arch=sm_90a on every PTX tilec accepts.
#
#   tools/scripts/fuzz.sh [SECONDS] [JOBS]      (defaults: 1800 seconds, 2 jobs)
#
# Builds tilec_pipeline_fuzz in build-fuzz/ (FUZZ_BUILD_DIR) on first use,
# seeds it with tests/fuzz/corpus, samples/ and tests/lit/, and keeps going
# after a finding (libFuzzer -fork with -ignore_crashes). Afterwards every
# artifact is replayed in the sanitized replay driver, which classifies and
# deduplicates them. Output in FUZZ_OUT (default build-fuzz/fuzz-run/):
#   crashes/    libFuzzer's artifacts (crash-*, timeout-*, oom-*)
#   findings/   the smallest input and the log of each distinct finding
#   corpus/     the grown corpus (reused by the next run)
# The last line is the count summary; exit status 0 only with no finding.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/scripts/sanitizer_build.sh
seconds=${1:-1800}
jobs=${2:-2}
dir=${FUZZ_BUILD_DIR:-build-fuzz}
tilec_configure_sanitizer_build "$dir"
ninja -C "$dir" tilec_pipeline_fuzz tilec_pipeline_replay

out=${FUZZ_OUT:-$PWD/$dir/fuzz-run}
rm -rf "$out/seeds" "$out/crashes" "$out/findings" "$out/stats" "$out/fuzz.log"
mkdir -p "$out/seeds" "$out/corpus" "$out/crashes"
while IFS= read -r f; do
  cp "$f" "$out/seeds/$(echo "$f" | tr / _)"
done < <(find tests/fuzz/corpus samples tests/lit -name '*.tile' | sort)

# Leaks are left to sanitize.sh: libFuzzer's per-input leak check would
# report the LLVM/MLIR libraries' process-lifetime caches.
tilec_sanitizer_env ""
export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
export TILEC_FUZZ_STATS=$out/stats TILEC_FUZZ_SEEDS=$out/seeds
echo "fuzz: $seconds s, $jobs jobs, output in $out"
status=0
"$dir/bin/tilec_pipeline_fuzz" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -timeout=60 -rss_limit_mb=6144 -max_len=16384 -max_total_time="$seconds" \
  -dict=tests/fuzz/tile.dict -artifact_prefix="$out/crashes/" -print_final_stats=1 \
  "$out/corpus" "$out/seeds" > "$out/fuzz.log" 2>&1 || status=$?
tail -5 "$out/fuzz.log"

runs=$(grep -oE '^#[0-9]+' "$out/fuzz.log" | tail -1 | tr -d '#' || true)
read -r stat_runs accepted < <(awk '{r += $1; a += $2} END {print r + 0, a + 0}' "$out/stats" 2>/dev/null || echo "0 0")
# libFuzzer's last status line can lag behind what the workers counted.
[ "${runs:-0}" -lt "$stat_runs" ] && runs=$stat_runs
shopt -s nullglob
artifacts=("$out"/crashes/*)
# slow-unit-* are inputs libFuzzer saw take over 10 s (its -report_slow_units):
# replayed and classified like the rest, but a finding only if the replay
# finds one (a timeout there is 120 s); crash-, timeout- and oom- artifacts
# fail the run by themselves.
slow=("$out"/crashes/slow-unit-*)
echo "fuzz: libFuzzer exit status $status; ${runs:-0} inputs run (${stat_runs} counted by exiting" \
  "workers, ${accepted} of them accepted and ptxas-checked); ${#artifacts[@]} artifacts" \
  "(${#slow[@]} of them slow units)"
found=0
if [ ${#artifacts[@]} -gt 0 ]; then
  # Classify: crash, sanitizer report, ptxas rejection, timeout, diagnostic.
  "$dir/bin/tilec_pipeline_replay" --fork --only-files --iterations=0 --timeout=120 \
    --save="$out/findings" "${artifacts[@]}" > "$out/findings.txt" 2>&1 || found=1
  grep -A20 '^fuzz summary' "$out/findings.txt" | grep -v '^---' | head -40
  echo "fuzz: every distinct finding with its input: $out/findings.txt"
else
  echo "fuzz summary: 0 crashes, 0 sanitizer reports, 0 ptxas rejections, 0 timeouts, 0 diagnostic-rule breaks, 0 miscompiles"
fi
[ "$found" -eq 0 ] && [ ${#artifacts[@]} -eq ${#slow[@]} ]
