#!/usr/bin/env bash
# Quick start 2: install, build, and run every test (lit, unit, ptxas, fuzz
# replay; GPU tests report SKIP without a device).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/setup.sh
bash tools/scripts/build.sh
ctest --test-dir build --output-on-failure
