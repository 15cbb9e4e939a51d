#!/usr/bin/env bash
# gpu-check.sh: build and run every CUDA test of the workspace in one go, on a machine with
# an NVIDIA GPU, and print a summary. Needs a Rust toolchain (1.88 or newer) and the NVIDIA
# driver; no CUDA toolkit (cudarc loads libcuda at run time).
#
#   scripts/gpu-check.sh                # build and run everything (from anywhere in the repo)
#   scripts/gpu-check.sh --build-only   # on a machine with cargo: build the Rust test programs
#                                       # into target/gpu-check/ and stop
#   scripts/gpu-check.sh --prebuilt     # on a GPU machine without cargo: run the programs of
#                                       # target/gpu-check/ (taken there with the repository)
#
# The Rust tests run with DLPACK_REQUIRE_GPU=1, so a test that finds no GPU fails instead of
# skipping: a green run means the GPU code ran. (A test that needs two GPUs prints "not run"
# on a one-GPU machine; that is counted, not failed.) In a full run they are built with the
# `pyo3` feature too when the machine's python3 can be embedded (its libpython exists), so the
# stream rule of the Python protocol (tests/python_cuda.rs) runs on the GPU as well; --build-only
# builds `cuda` alone, so the programs run on GPU machines without that libpython. When
# maturin, pytest and PyTorch or CuPy (seeing the GPU) are all there, the extension
# (examples/python) is built with `--features cuda` and tests/python/test_cuda.py exchanges
# CUDA tensors with them, stream rule included; otherwise that step is reported as skipped,
# with the reason.
#
# Exit status: 0 when nothing failed, 1 otherwise. Each step has its own time limit (LIMIT_*
# below, in seconds); together they stay under ten minutes.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

mode=full
case ${1:-} in
    "") ;;
    --build-only) mode=build-only ;;
    --prebuilt) mode=prebuilt ;;
    *) echo "usage: $0 [--build-only | --prebuilt]" >&2; exit 2 ;;
esac

LIMIT_FETCH=${LIMIT_FETCH:-60}
LIMIT_BUILD=${LIMIT_BUILD:-300}
LIMIT_TESTS=${LIMIT_TESTS:-120}
LIMIT_PYTHON=${LIMIT_PYTHON:-110}
PREBUILT=target/gpu-check

started=$SECONDS
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
summary=()
failed=0

record() { # STATUS NAME DETAIL
    summary+=("$(printf '%-5s %-12s %s' "$1" "$2" "$3")")
    [[ $1 == FAIL ]] && failed=1
    return 0
}

section() { printf '\n=== %s ===\n' "$1"; }

finish() {
    section "summary ($((SECONDS - started)) s; logs in $log_dir)"
    printf '%s\n' "${summary[@]}"
    if [[ $failed == 0 ]]; then echo "gpu-check: OK"; else echo "gpu-check: FAILED"; fi
    exit "$failed"
}

# --- 1. the machine -------------------------------------------------------------------------
section "environment"
gpu="unknown (nvidia-smi not found)"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader \
        | tee "$log_dir/gpus.txt"
    gpu=$(head -n1 "$log_dir/gpus.txt" | cut -d, -f2- | sed 's/^ *//')
    [[ -z $gpu ]] && gpu="nvidia-smi lists no GPU"
fi
libcuda=$( (ldconfig -p 2>/dev/null || true) | grep -m1 -o 'libcuda\.so[.0-9]*' || true)
echo "libcuda: ${libcuda:-not in the ldconfig cache (LD_LIBRARY_PATH may still provide it)}"
if [[ $mode != prebuilt ]] && ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: install a Rust toolchain (rustup), or build here with --build-only"
    echo "elsewhere and run --prebuilt"
    record FAIL environment "cargo not found"
    finish
fi
[[ $mode != prebuilt ]] && { cargo --version; rustc --version; }
record INFO environment "GPU: $gpu; libcuda: ${libcuda:-not in ldconfig cache}"

# --- 2. build -------------------------------------------------------------------------------
built=0
if [[ $mode != prebuilt ]]; then
    # Online if the registry answers, else from the local cargo cache.
    if ! timeout "$LIMIT_FETCH" cargo fetch --quiet >"$log_dir/fetch.log" 2>&1; then
        echo "cargo fetch failed (no network?): building offline, from the local cargo cache"
        export CARGO_NET_OFFLINE=true
    fi
    features=cuda
    # The Python feature's GPU tests need an interpreter to link and run against.
    libpython=$(python3 -c 'import os, sysconfig as c; d, l = c.get_config_var("LIBDIR") or "", c.get_config_var("LDLIBRARY") or ""; p = os.path.join(d, l); print(d if l and os.path.exists(p) else "")' 2>/dev/null || true)
    if [[ $mode == full && -n $libpython ]]; then
        features=cuda,pyo3
        export LD_LIBRARY_PATH="$libpython${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
    section "build: cargo test -p dlpack-core --features $features --no-run"
    if timeout "$LIMIT_BUILD" cargo test -p dlpack-core --features "$features" --no-run \
        --message-format=json-render-diagnostics >"$log_dir/build.json" 2>"$log_dir/build.log"; then
        note_features=""
        [[ $features == cuda && $mode == full ]] && note_features=" (no embeddable python3: the pyo3 GPU tests are not built)"
        record PASS build "dlpack-core with --features $features, tests included$note_features"
        built=1
    else
        tail -n 40 "$log_dir/build.log"
        record FAIL build "see $log_dir/build.log"
    fi
fi

if [[ $mode == build-only ]]; then
    if [[ $built == 1 ]]; then
        rm -rf "$PREBUILT" && mkdir -p "$PREBUILT"
        # The test programs cargo just built: the library's unit tests and tests/*.rs.
        grep -o '"executable":"[^"]*"' "$log_dir/build.json" | cut -d'"' -f4 \
            | while read -r exe; do cp "$exe" "$PREBUILT/" && strip -g "$PREBUILT/$(basename "$exe")" 2>/dev/null; done
        record PASS prebuilt "$(find "$PREBUILT" -type f | wc -l) test programs in $PREBUILT ($(du -sh "$PREBUILT" | cut -f1))"
    fi
    finish
fi

# --- 3. the Rust tests ----------------------------------------------------------------------
section "rust tests (DLPACK_REQUIRE_GPU=1)"
status=PASS
if [[ $mode == prebuilt ]]; then
    if ! ls "$PREBUILT"/* >/dev/null 2>&1; then
        record FAIL "rust tests" "no programs in $PREBUILT: run --build-only on a machine with cargo"
        finish
    fi
    : >"$log_dir/tests.log"
    for exe in "$PREBUILT"/*; do
        echo "--- $exe" | tee -a "$log_dir/tests.log"
        DLPACK_REQUIRE_GPU=1 timeout "$LIMIT_TESTS" "$exe" --test-threads=1 2>&1 \
            | tee -a "$log_dir/tests.log" || status=FAIL
    done
    note=" (doc tests need cargo: not run)"
elif [[ $built == 1 ]]; then
    # Unit, integration and doc tests; the doc examples run their GPU paths too.
    DLPACK_REQUIRE_GPU=1 timeout "$LIMIT_TESTS" cargo test -p dlpack-core --features "$features" \
        --no-fail-fast -- --test-threads=1 2>&1 | tee "$log_dir/tests.log" || status=FAIL
    note=""
else
    record SKIP "rust tests" "the build failed"
    finish
fi
count() { grep -Eo "$1" "$log_dir/tests.log" | awk '{s += $1} END {print s + 0}'; }
passed=$(count '[0-9]+ passed')
failures=$(count '[0-9]+ failed')
gpu_tests=$(grep -Ec '^test gpu_.* \.\.\. ok$' "$log_dir/tests.log")
# The harness prints "test NAME ... " before a test runs, so these may follow it on a line.
skipped=$(grep -Eo 'skipping [A-Za-z0-9_]+: ' "$log_dir/tests.log" | wc -l)
not_run=$(grep -Eo 'not run [A-Za-z0-9_]+: ' "$log_dir/tests.log" | wc -l)
# DLPACK_REQUIRE_GPU=1 turns skips into failures: a skip here means a test ignored it.
[[ $skipped -gt 0 || $gpu_tests == 0 ]] && status=FAIL
record "$status" "rust tests" \
    "$passed passed ($gpu_tests gpu_* tests), $failures failed, $skipped skipped, $not_run not run (need more GPUs)$note"

# --- 4. Python exchange with PyTorch or CuPy -----------------------------------------------
section "python exchange"
python_check() {
    local py peers=() ext=examples/python
    py=$(command -v python3 || true)
    [[ -z $py ]] && { record SKIP python "python3 not found"; return; }
    "$py" -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1 && peers+=(torch)
    "$py" -c 'import cupy; assert cupy.cuda.runtime.getDeviceCount() > 0' >/dev/null 2>&1 && peers+=(cupy)
    [[ ${#peers[@]} == 0 ]] && { record SKIP python "neither torch (with CUDA) nor cupy imports"; return; }
    [[ -f $ext/pyproject.toml ]] || { record SKIP python "no extension at $ext"; return; }
    grep -Eq '^cuda[[:space:]]*=' "$ext/Cargo.toml" \
        || { record SKIP python "the extension at $ext has no cuda feature yet (peers: ${peers[*]})"; return; }
    [[ $mode == prebuilt ]] && { record SKIP python "building the extension needs cargo"; return; }
    "$py" -m maturin --version >/dev/null 2>&1 || { record SKIP python "maturin is not installed (peers: ${peers[*]})"; return; }
    "$py" -m pytest --version >/dev/null 2>&1 || { record SKIP python "pytest is not installed"; return; }
    local wheels="$log_dir/wheels" site="$log_dir/site" rc=0
    if ! (cd "$ext" && timeout "$LIMIT_PYTHON" "$py" -m maturin build --release --features cuda \
        -o "$wheels") >"$log_dir/maturin.log" 2>&1; then
        record FAIL python "maturin build failed: see $log_dir/maturin.log"
        return
    fi
    "$py" -m pip install -q --no-deps --no-index --target "$site" "$wheels"/*.whl \
        >"$log_dir/pip.log" 2>&1 || { record FAIL python "installing the wheel failed: see $log_dir/pip.log"; return; }
    # test_cuda.py alone: it needs neither numpy nor the CPU peers of the other test files.
    PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" DLPACK_REQUIRE_GPU=1 timeout "$LIMIT_PYTHON" \
        "$py" -m pytest -q -rs tests/python/test_cuda.py 2>&1 | tee "$log_dir/pytest.log" || rc=$?
    case $rc in
        0) record PASS python "pytest tests/python/test_cuda.py with ${peers[*]}: $(tail -n1 "$log_dir/pytest.log")" ;;
        5) record FAIL python "tests/python/test_cuda.py collected no test" ;;
        *) record FAIL python "pytest exit $rc: see $log_dir/pytest.log" ;;
    esac
}
python_check
finish
