#!/usr/bin/env bash
# Installs the Debian 12 packages pyverify needs to build and test, and only
# those that are missing. Idempotent; needs root (or sudo) when something is
# missing. Prints what it installs.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build git
  clang-14 libclang-rt-14-dev          # libFuzzer + sanitizers for fuzz targets
  llvm-14-dev llvm-14-tools            # LLVM Support; FileCheck-14 and lit
  libz3-dev
  libgoogle-perftools-dev              # tcmalloc_minimal: the tool's allocator
  python3.11 python3.11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  pybind11-dev
  python3-pytest python3-bytecode
  python3-pip python3-packaging  # `pip install .` offline (in-tree backend, no setuptools); wheel tags in its test
)

# Node runs the 3.14 / 3.15 oracles (Pyodide, scripts/pyodide/). A machine
# whose node came from elsewhere (NodeSource's 20 here) keeps it.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  PACKAGES+=(nodejs npm)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# CPython 3.14 and 3.15 as WebAssembly (npm), into a cache outside the tree.
bash "$(dirname "$0")/pyodide/install.sh"
