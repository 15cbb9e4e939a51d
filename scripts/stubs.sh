#!/usr/bin/env bash
# The `.pyi` stubs of the `dlpack_demo` extension (examples/python/stubs/dlpack_demo), as
# PyO3's introspection writes them from the built module (dlpack-core's `inspect` feature,
# `maturin generate-stubs`): committed, so that a change to what Python sees is a diff to read.
#
#   scripts/stubs.sh            regenerate examples/python/stubs from a fresh build
#   scripts/stubs.sh --check    fail, with the diff, when the committed stubs differ from it
#
# Run in a venv with maturin 1.16 or newer (scripts/python-tests.sh makes one; PYTHON names
# the interpreter to build for, default the venv's `python`). The stubs are the same for every
# CPython the extension claims; `scripts/python-tests.sh` puts the build's own in the wheel.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
check=0
[[ ${1:-} == --check ]] && check=1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/python}"
python="${PYTHON:-python}"
base_python="$("$python" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
maturin generate-stubs --quiet --manifest-path examples/python/Cargo.toml --interpreter "$base_python" --out "$out"
committed=examples/python/stubs
if [[ $check == 1 ]]; then
  if ! diff -ru "$committed" "$out"; then
    echo "examples/python/stubs differs from what the build generates (above): run scripts/stubs.sh and commit" >&2
    exit 1
  fi
  echo "examples/python/stubs matches the build's stubs"
else
  rm -rf "$committed"
  cp -r "$out" "$committed"
  echo "wrote $committed"
fi
