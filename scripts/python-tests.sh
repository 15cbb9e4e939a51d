#!/usr/bin/env bash
# Builds the `dlpack_demo` extension (examples/python) and the minimal `mini` extension
# (tests/python/mini, made with `#[pymethods]` alone), and runs the pytest suite (tests/python,
# which holds tests/python/mini/test_mini.py) against numpy, PaddlePaddle, TVM FFI, JAX,
# ml_dtypes and array-api-strict from PyPI.
#
#   scripts/python-tests.sh [--with-torch] [pytest arguments...]
#   scripts/python-tests.sh [--with-torch] --install-only
#                                            (create the venv and install the peers, then stop:
#                                             CI uses it for the DLPack 1.3 header in tvm-ffi)
#
# --with-torch also installs PyTorch, whose PyPI wheel is the CUDA build (about 6 GB with its
# nvidia dependencies; it imports and works on a machine without a GPU), so that
# tests/python/test_torch.py runs; without it, that file is skipped with the reason. Once
# installed, PyTorch stays in the venv for later runs.
#
# Environment:
#   PYTHON                the interpreter to build the venv with (default: python3, 3.9 or newer)
#   DLPACK_VENV           the venv to create or reuse (default: .venv at the repository root)
#   DLPACK_DEMO_FEATURES  cargo features of the extension (default: none; `cuda` builds the CUDA
#                         tensors, which builds and passes on machines without a GPU too: the
#                         tests of tests/python/test_cuda.py that need one skip with the reason)
#
# The first run downloads the peers (PaddlePaddle's CPU wheel is ~195 MB, jaxlib's ~80 MB);
# later runs reuse the venv and only rebuild the extension. Exits non-zero if any step fails.
set -euo pipefail

with_torch=0
install_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --with-torch) with_torch=1 ;;
    --install-only) install_only=1 ;;
    *) break ;;
  esac
  shift
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="${DLPACK_VENV:-$root/.venv}"
python="${PYTHON:-python3}"

# The peers, pinned to the versions the suite was written against.
peers=(
  "numpy>=2.1,<3"
  "paddlepaddle==3.3.1"
  "apache-tvm-ffi==0.1.15.post2"
  "jax==0.10.2"
  "jaxlib==0.10.2"
  "ml-dtypes==0.6.0"
  "array-api-strict==2.6.1"
  "maturin>=1.9.4,<2"
  "ninja>=1.11"  # tvm_ffi.cpp.load_inline builds tests/python/test_exchange_allocator.py's C++ with it
  "pytest>=8"
  "hypothesis>=6"
)
if [[ $with_torch == 1 ]]; then
  peers+=("torch==2.15.0")
fi

step() { printf '\n==> %s\n' "$*"; }

# A venv is reused only when its interpreter runs and has pip: a folder left by an interrupted
# run, or one whose base interpreter is gone, is made again.
if "$venv/bin/python" -c 'import pip' >/dev/null 2>&1; then
  step "reusing the venv $venv ($("$venv/bin/python" --version 2>&1))"
else
  step "creating the venv $venv with $("$python" --version 2>&1)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi
export VIRTUAL_ENV="$venv"
export PATH="$venv/bin:$PATH"

step "installing the peers: ${peers[*]}"
python -m pip install --quiet --disable-pip-version-check "${peers[@]}"
# What the later steps load, checked by importing or running it: pip's list is not proof.
WITH_TORCH=$with_torch python - <<'PY'
import importlib.metadata as md, importlib, os, shutil, sys
modules = [("numpy", "numpy"), ("paddle", "paddlepaddle"), ("tvm_ffi", "apache-tvm-ffi"),
           ("jax", "jax"), ("jaxlib", "jaxlib"), ("ml_dtypes", "ml-dtypes"),
           ("array_api_strict", "array-api-strict"), ("pytest", "pytest"),
           ("hypothesis", "hypothesis")]
if os.environ["WITH_TORCH"] == "1":
    modules.append(("torch", "torch"))
for module, dist in modules:
    importlib.import_module(module)
    print(f"  {dist:16} {md.version(dist)} (imports)")
if shutil.which("maturin") is None:
    sys.exit("maturin is not on the venv's PATH")
print(f"  {'maturin':16} {md.version('maturin')} ({shutil.which('maturin')})")
PY
if [[ $install_only == 1 ]]; then
  exit 0
fi

manifest="examples/python/Cargo.toml"
features="${DLPACK_DEMO_FEATURES:-}"
step "checking the extension: cargo fmt --check, cargo clippy -D warnings (without and with cuda)"
cargo fmt --manifest-path "$manifest" --check
cargo clippy --quiet --manifest-path "$manifest" --all-targets -- -D warnings
cargo clippy --quiet --manifest-path "$manifest" --all-targets --features cuda -- -D warnings

step "building the extension: maturin develop --release${features:+ --features $features}"
maturin develop --release --manifest-path "$manifest" ${features:+--features "$features"}

mini="tests/python/mini/Cargo.toml"
step "checking and building the minimal extension: tests/python/mini"
cargo fmt --manifest-path "$mini" --check
cargo clippy --quiet --manifest-path "$mini" --all-targets -- -D warnings
maturin develop --release --manifest-path "$mini"

step "running pytest tests/python $*"
python -m pytest tests/python "$@"
