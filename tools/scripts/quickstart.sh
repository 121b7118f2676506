#!/usr/bin/env bash
# Quick start 1: install, build, compile the histogram sample to PTX, and run it
# when a CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/setup.sh
bash tools/scripts/build.sh tilec histogram
./build/bin/tilec samples/histogram/histogram.tile -o histogram.ptx
echo "quickstart: wrote histogram.ptx ($(grep -c '^\.visible \.entry' histogram.ptx) kernel)"
./build/bin/histogram --ptx histogram.ptx
