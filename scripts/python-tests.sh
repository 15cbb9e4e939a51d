#!/usr/bin/env bash
# Builds the `dlpack_demo` extension (examples/python) and the minimal `mini` extension
# (tests/python/mini, made with `#[pymethods]` alone), and runs the pytest suite (tests/python,
# which holds tests/python/mini/test_mini.py) against numpy, PaddlePaddle, TVM FFI, JAX,
# ml_dtypes and array-api-strict from PyPI. The demo's wheel carries its `.pyi` stubs
# (`--generate-stubs`) and `dlpack_typing`, which tests/python/typing/check.py type-checks.
#
#   scripts/python-tests.sh [--with-torch | --numpy-only | --newest] [--dev | --quick] [pytest arguments...]
#   scripts/python-tests.sh [--with-torch | --numpy-only | --newest] --install-only
#                                            (create the venv and install the peers, then stop:
#                                             CI uses it for the DLPack 1.3 header in tvm-ffi)
#
# --with-torch also installs PyTorch, whose PyPI wheel is the CUDA build (about 6 GB with its
# nvidia dependencies; it imports and works on a machine without a GPU), so that
# tests/python/test_torch.py runs; without it, that file is skipped with the reason. Once
# installed, PyTorch stays in the venv for later runs.
#
# --newest installs the newest release of every peer, PyTorch included, in place of the pinned
# versions (`pip install --upgrade`, so a venv made earlier moves up too), into its own venv
# (default .venv-newest): what a user who upgrades today runs against. CI runs the suite both
# ways, pinned (what it was written against) and newest (what users have); a test whose
# expectation depends on a peer's release branches on `peer_version` (tests/python/conftest.py).
# It skips the extension's fmt and clippy checks, which the pinned run makes of the same code.
#
# --numpy-only installs NumPy and ml_dtypes (and the test tools) but no other peer, and skips
# the extension's fmt and clippy checks (a full run does them): CI runs it with the oldest and
# newest CPython the project supports. Every test of a missing peer skips with the reason.
# --dev builds the extensions unoptimised (cargo's `dev` profile): the tests
# pass the same, and the build takes a fraction of the time of the release one (fat LTO).
# --quick builds them optimised without fat LTO (profile `quick`), what CI's main run builds:
# optimised code, so hypothesis' large examples stay cheap, in about a third of the time. The
# default is the release profile the wheel ships with, which scripts/bench-report.sh measures.
#
# Environment:
#   PYTHON                the interpreter to build the venv with (default: python3, 3.10 or newer;
#                         e.g. PYTHON="$(pyenv root)/versions/3.10.13/bin/python")
#   DLPACK_VENV           the venv to create or reuse (default: .venv at the repository root,
#                         .venv-newest with --newest)
#   DLPACK_DEMO_FEATURES  cargo features of the extension (default: none; `cuda` builds the CUDA
#                         tensors, which builds and passes on machines without a GPU too: the
#                         tests of tests/python/test_cuda.py that need one skip with the reason)
#   CARGO_TARGET_DIR      where the extensions are built (default: target/python, one folder for
#                         both, so the second reuses the first's dependencies); give each
#                         interpreter its own, or each build for one undoes the other's. The
#                         extensions are built as wheels against the venv's base interpreter
#                         and installed into the venv, so two venvs of one interpreter (the
#                         pinned and the newest peers) share one build, with nothing rebuilt
#
# The first run downloads the peers (PaddlePaddle's CPU wheel is ~195 MB, jaxlib's ~80 MB);
# later runs reuse the venv and only rebuild the extension. Exits non-zero if any step fails.
set -euo pipefail

with_torch=0
install_only=0
numpy_only=0
newest=0
profile=release
while [[ $# -gt 0 ]]; do
  case "$1" in
    --with-torch) with_torch=1 ;;
    --numpy-only) numpy_only=1 ;;
    --newest) newest=1 ;;
    --install-only) install_only=1 ;;
    --dev) profile=dev ;;
    --quick) profile=quick ;;
    *) break ;;
  esac
  shift
done
if ((with_torch + numpy_only + newest > 1)); then
  echo "--with-torch, --numpy-only and --newest exclude each other" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ $newest == 1 ]]; then
  venv="${DLPACK_VENV:-$root/.venv-newest}"
else
  venv="${DLPACK_VENV:-$root/.venv}"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/python}"
python="${PYTHON:-python3}"

# The peers, pinned to the versions the suite was written against. NumPy 2.1 (the first with
# DLPack 1.0) needs Python 3.10, the extension's floor.
peers=(
  "numpy>=2.1,<3"
  "ml-dtypes==0.6.0"
  "maturin>=1.16,<2"  # 1.16: `--generate-stubs` from PyO3's introspection
  "pytest>=8"
  "hypothesis>=6"
  "mypy>=1.18"  # tests/python/typing/check.py: the stubs, type-checked
)
modules=(numpy:numpy ml_dtypes:ml-dtypes pytest:pytest hypothesis:hypothesis mypy:mypy)
if [[ $numpy_only == 0 ]]; then
  peers+=(
    "paddlepaddle==3.3.1"
    "apache-tvm-ffi==0.1.15.post2"
    "jax==0.10.2"
    "jaxlib==0.10.2"
    "array-api-strict==2.6.1"
    "ninja>=1.11"  # tvm_ffi.cpp.load_inline builds tests/python/test_exchange_allocator.py's C++ with it
  )
  modules+=(paddle:paddlepaddle tvm_ffi:apache-tvm-ffi jax:jax jaxlib:jaxlib array_api_strict:array-api-strict)
fi
if [[ $with_torch == 1 || $newest == 1 ]]; then
  peers+=("torch==2.15.0")
  modules+=(torch:torch)
fi
pip_upgrade=()
if [[ $newest == 1 ]]; then
  # The same peers, each at its newest release (PyPI's newest for this interpreter).
  peers=("${peers[@]%%[=<>]*}")
  pip_upgrade=(--upgrade)
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
python -m pip install --quiet --disable-pip-version-check "${pip_upgrade[@]}" "${peers[@]}"
# What the later steps load, checked by importing or running it: pip's list is not proof.
python - "${modules[@]}" <<'PY'
import importlib.metadata as md, importlib, shutil, sys
for module, dist in (arg.split(":") for arg in sys.argv[1:]):
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
mini="tests/python/mini/Cargo.toml"
features="${DLPACK_DEMO_FEATURES:-}"
if [[ $numpy_only == 0 && $newest == 0 ]]; then
  step "checking the extension: cargo fmt --check, cargo clippy -D warnings (without and with cuda)"
  cargo fmt --manifest-path "$manifest" --check
  cargo clippy --quiet --manifest-path "$manifest" --all-targets -- -D warnings
  cargo clippy --quiet --manifest-path "$manifest" --all-targets --features cuda -- -D warnings
fi
if [[ $newest == 0 ]]; then
  step "checking the minimal extension: tests/python/mini"
  cargo fmt --manifest-path "$mini" --check
  cargo clippy --quiet --manifest-path "$mini" --all-targets -- -D warnings
fi

# Built against the venv's base interpreter (the one it was made from), not the venv's own
# `python`: PyO3's build script reruns, and everything above it rebuilds, whenever the
# interpreter's path changes, so the venvs of one interpreter share one build this way.
base_python="$(python -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')"
wheels="$CARGO_TARGET_DIR/wheels-$(basename "$venv")"
rm -rf "$wheels"
for extension in "$manifest" "$mini"; do
  extra=()
  if [[ $extension == "$manifest" ]]; then
    # The wheel carries the stubs PyO3's introspection writes of this very build
    # (examples/python/stubs holds them committed; scripts/stubs.sh --check compares).
    extra=(--generate-stubs)
    if [[ -n $features ]]; then
      extra+=(--features "$features")
    fi
  fi
  step "building $(dirname "$extension"): maturin build --profile $profile ${extra[*]} (for $base_python)"
  maturin build --quiet --profile "$profile" --manifest-path "$extension" --interpreter "$base_python" \
    --out "$wheels" "${extra[@]}"
done
step "installing the extensions into the venv"
python -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall "$wheels"/*.whl

step "running pytest tests/python $*"
python -m pytest tests/python "$@"
