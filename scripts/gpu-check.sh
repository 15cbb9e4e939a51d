#!/usr/bin/env bash
# gpu-check.sh: build and run every CUDA test of the workspace in one go, on a machine with
# an NVIDIA GPU, and print a summary. Needs a Rust toolchain (1.88 or newer) and the NVIDIA
# driver; no CUDA toolkit (cudarc loads libcuda at run time).
#
#   scripts/gpu-check.sh            # from the repository root (or anywhere: it cd's there)
#
# The Rust tests run with DLPACK_REQUIRE_GPU=1, so a test that finds no GPU fails instead of
# skipping: a green run means the GPU code ran. When the Python extension (examples/python),
# maturin and PyTorch or CuPy are all there, the CUDA tests of tests/python run too;
# otherwise that step is reported as skipped, with the reason.
#
# Exit status: 0 when nothing failed, 1 otherwise. Whole run: well under ten minutes (each
# step has its own time limit; see LIMIT_* below).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

LIMIT_BUILD=${LIMIT_BUILD:-360}   # seconds: compiling dlpack-core and its tests
LIMIT_TESTS=${LIMIT_TESTS:-120}   # seconds: running them
LIMIT_PYTHON=${LIMIT_PYTHON:-240} # seconds: building the extension and running pytest

started=$SECONDS
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
summary=()
failed=0

record() { # STATUS NAME DETAIL
    summary+=("$(printf '%-5s %-16s %s' "$1" "$2" "$3")")
    [[ $1 == FAIL ]] && failed=1
    return 0
}

section() { printf '\n=== %s ===\n' "$1"; }

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
if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: install a Rust toolchain (rustup) first"
    record FAIL environment "cargo not found"
    section "summary"
    printf '%s\n' "${summary[@]}"
    exit 1
fi
cargo --version
rustc --version
record INFO environment "GPU: $gpu; libcuda: ${libcuda:-not in ldconfig cache}"

# --- 2. dependencies: online if the registry answers, else from the local cache ------------
if ! timeout 120 cargo fetch --quiet >"$log_dir/fetch.log" 2>&1; then
    echo "cargo fetch failed (no network?): building offline, from the local cargo cache"
    export CARGO_NET_OFFLINE=true
fi

# --- 3. build -------------------------------------------------------------------------------
section "build: cargo test -p dlpack-core --features cuda --no-run"
if timeout "$LIMIT_BUILD" cargo test -p dlpack-core --features cuda --no-run \
    2>&1 | tee "$log_dir/build.log"; then
    record PASS build "dlpack-core with --features cuda, tests included"
    built=1
else
    record FAIL build "see $log_dir/build.log"
    built=0
fi

# --- 4. the Rust tests: unit, integration and doc tests ------------------------------------
if [[ $built == 1 ]]; then
    section "rust tests (DLPACK_REQUIRE_GPU=1)"
    if DLPACK_REQUIRE_GPU=1 timeout "$LIMIT_TESTS" cargo test \
        -p dlpack-core --features cuda --no-fail-fast -- --test-threads=1 2>&1 | tee "$log_dir/tests.log"; then
        status=PASS
    else
        status=FAIL
    fi
    passed=$(grep -Eo '[0-9]+ passed' "$log_dir/tests.log" | awk '{s += $1} END {print s + 0}')
    failures=$(grep -Eo '[0-9]+ failed' "$log_dir/tests.log" | awk '{s += $1} END {print s + 0}')
    gpu_tests=$(grep -Ec '^test gpu_.* \.\.\. ok$' "$log_dir/tests.log")
    # The harness prints "test NAME ... " before a test runs, so these may follow it on a line.
    skipped=$(grep -Eo 'skipping [A-Za-z0-9_]+: ' "$log_dir/tests.log" | wc -l)
    not_run=$(grep -Eo 'not run [A-Za-z0-9_]+: ' "$log_dir/tests.log" | wc -l)
    if [[ $skipped -gt 0 ]]; then
        status=FAIL # DLPACK_REQUIRE_GPU=1 makes skips failures; one here means a test ignored it
    fi
    record "$status" "rust tests" \
        "$passed passed ($gpu_tests gpu_* tests), $failures failed, $skipped skipped, $not_run not run (need more GPUs)"
else
    record SKIP "rust tests" "the build failed"
fi

# --- 5. Python exchange with PyTorch or CuPy -----------------------------------------------
section "python exchange"
python_check() {
    local py peers=() ext=examples/python
    py=$(command -v python3 || true)
    [[ -z $py ]] && { record SKIP python "python3 not found"; return; }
    "$py" -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1 && peers+=(torch)
    "$py" -c 'import cupy; cupy.cuda.runtime.getDeviceCount()' >/dev/null 2>&1 && peers+=(cupy)
    [[ ${#peers[@]} == 0 ]] && { record SKIP python "neither torch (with CUDA) nor cupy imports"; return; }
    [[ -f $ext/pyproject.toml ]] || { record SKIP python "no extension at $ext (feature pyo3)"; return; }
    ls tests/python/*.py >/dev/null 2>&1 || { record SKIP python "no tests under tests/python"; return; }
    "$py" -m maturin --version >/dev/null 2>&1 || { record SKIP python "maturin is not installed (peers: ${peers[*]})"; return; }
    "$py" -m pytest --version >/dev/null 2>&1 || { record SKIP python "pytest is not installed"; return; }
    local features=()
    grep -Eq '^cuda[[:space:]]*=' "$ext/Cargo.toml" 2>/dev/null && features=(--features cuda)
    local wheels="$log_dir/wheels" site="$log_dir/site"
    if ! (cd "$ext" && timeout "$LIMIT_PYTHON" "$py" -m maturin build --release \
        "${features[@]}" -o "$wheels") >"$log_dir/maturin.log" 2>&1; then
        record FAIL python "maturin build failed: see $log_dir/maturin.log"
        return
    fi
    "$py" -m pip install -q --no-deps --no-index --target "$site" "$wheels"/*.whl \
        >"$log_dir/pip.log" 2>&1 || { record FAIL python "installing the wheel failed: see $log_dir/pip.log"; return; }
    local rc=0
    PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" DLPACK_REQUIRE_GPU=1 timeout "$LIMIT_PYTHON" \
        "$py" -m pytest -q -k "cuda or gpu" tests/python 2>&1 | tee "$log_dir/pytest.log" || rc=$?
    case $rc in
        0) record PASS python "pytest -k 'cuda or gpu' with ${peers[*]}: $(tail -n1 "$log_dir/pytest.log")" ;;
        5) record SKIP python "tests/python has no test matching 'cuda or gpu'" ;;
        *) record FAIL python "pytest exit $rc: see $log_dir/pytest.log" ;;
    esac
}
python_check

# --- summary --------------------------------------------------------------------------------
section "summary ($((SECONDS - started)) s; logs in $log_dir)"
printf '%s\n' "${summary[@]}"
if [[ $failed == 0 ]]; then
    echo "gpu-check: OK"
else
    echo "gpu-check: FAILED"
fi
exit "$failed"
