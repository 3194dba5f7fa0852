#!/usr/bin/env bash
# Installs the Pyodide packages of scripts/pyodide/VERSIONS (CPython 3.14 and
# 3.15 compiled to WebAssembly) into a cache outside the tree:
#   ${PYVERIFY_PYODIDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pyverify/pyodide}/<python-version>/
# Each tarball comes from the npm registry (npm pack) and is checked against
# the integrity VERSIONS pins before it is unpacked. Idempotent: a version
# whose package.json already names the pinned package is left alone. Without
# node or npm it says so and installs nothing (the 3.14/3.15 tests are then
# skipped, saying so; exit 0).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${PYVERIFY_PYODIDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pyverify/pyodide}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install-pyodide: no node/npm on this machine: the 3.14/3.15 oracles are not installed"
  exit 0
fi
mkdir -p "$cache"
grep -v '^#' "$here/VERSIONS" | while read -r pyver pkg magic integrity; do
  [ -n "$pyver" ] || continue
  dest="$cache/$pyver"
  want="${pkg#pyodide@}"
  if [ -f "$dest/pyodide.mjs" ] && grep -q "\"version\": \"$want\"" "$dest/package.json" 2>/dev/null; then
    echo "install-pyodide: $pyver ($pkg) present in $dest"
    continue
  fi
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  echo "install-pyodide: $pyver: fetching $pkg from the npm registry"
  (cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
  tgz="$(ls "$tmp"/*.tgz)"
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  if [ "$got" != "$integrity" ]; then
    echo "install-pyodide: $pkg: integrity $got is not the pinned $integrity" >&2
    exit 1
  fi
  mkdir -p "$tmp/x"
  tar xzf "$tgz" -C "$tmp/x"
  rm -rf "$dest"
  mv "$tmp/x/package" "$dest"
  rm -rf "$tmp"
  trap - EXIT
  echo "install-pyodide: $pyver ($pkg) installed in $dest"
done
