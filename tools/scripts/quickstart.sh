#!/usr/bin/env bash
# Quick start 1: install, build, compile the histogram sample to PTX, and run it
# when a CUDA device is present; build the Python package and import it.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/setup.sh
bash tools/scripts/build.sh tilec histogram
if grep -q 'TILEC_PYTHON_BUILT:INTERNAL=ON' build/CMakeCache.txt; then
  bash tools/scripts/build.sh tilec_python
  py=$(sed -n 's/^TILEC_PYTHON_EXECUTABLE:INTERNAL=//p' build/CMakeCache.txt)
  PYTHONPATH=build/python "$py" -c "import tilec; print('quickstart: import tilec ok (build/python)')"
fi
./build/bin/tilec samples/histogram/histogram.tile -o histogram.ptx
echo "quickstart: wrote histogram.ptx ($(grep -c '^\.visible \.entry' histogram.ptx) kernel)"
./build/bin/histogram --ptx histogram.ptx
