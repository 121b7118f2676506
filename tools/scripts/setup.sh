#!/usr/bin/env bash
# Installs what tilec needs on Debian 12 (run as root, or with sudo available).
# The CUDA 13 toolkit (ptxas, driver headers) is expected in /usr/local/cuda.
set -euo pipefail

packages=(cmake ninja-build g++ python3 llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
          catch2 zlib1g-dev libzstd-dev
          python3-dev python3-pybind11 pybind11-dev python3-numpy python3-pytest python3-setuptools
          python3-pip)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$CUDA_HOME/bin/ptxas" ] || [ ! -f "$CUDA_HOME/include/cuda.h" ]; then
  echo "setup: error: the CUDA toolkit (ptxas, cuda.h) is not in $CUDA_HOME" >&2
  echo "hint: install the CUDA 13 toolkit there, or set CUDA_HOME" >&2
  exit 1
fi
