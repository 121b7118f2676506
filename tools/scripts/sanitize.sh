#!/usr/bin/env bash
# Builds tilec and tile-opt with AddressSanitizer + UndefinedBehaviorSanitizer
# and runs the whole lit suite with them (docs/fuzzing.md).
#
#   tools/scripts/sanitize.sh [BUILD_DIR]      (default: build-fuzz)
#
# Every sanitizer report is written to BUILD_DIR/sanitizer-reports/ (so a
# report fails the run even in a test whose `not tilec` expects a non-zero
# exit), printed at the end, and counted. Exit status 0 only when lit passes
# and there is no report.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/scripts/sanitizer_build.sh
dir=${1:-build-fuzz}
tilec_configure_sanitizer_build "$dir"
ninja -C "$dir" tilec tile-opt

reports=$PWD/$dir/sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
tilec_sanitizer_env "$reports"
echo "sanitize: ASAN_OPTIONS=$ASAN_OPTIONS"
echo "sanitize: UBSAN_OPTIONS=$UBSAN_OPTIONS"
status=0
/usr/lib/llvm-22/bin/lit -sv "$dir/tests/lit" || status=$?

shopt -s nullglob
files=("$reports"/*)
for f in "${files[@]}"; do
  echo "=== $f"
  cat "$f"
done
echo "sanitize: lit exit status $status, ${#files[@]} sanitizer report(s) in $reports"
[ "$status" -eq 0 ] && [ ${#files[@]} -eq 0 ]
