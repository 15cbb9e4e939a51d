#!/usr/bin/env bash
# gpu-check.sh: prove the CUDA backend on a machine with an NVIDIA GPU, in one command, and
# say what was proven. Needs the NVIDIA driver, a Rust toolchain (1.88 or newer, and the crates
# in cargo's cache if the machine is offline), python3 with an embeddable libpython, and in
# that python maturin, pytest and PyTorch or CuPy seeing the GPU. No CUDA toolkit (cudarc
# loads libcuda at run time).
#
#   scripts/gpu-check.sh                # everything below (from anywhere in the repository)
#   PYTHON=/path/to/venv/bin/python scripts/gpu-check.sh
#   scripts/gpu-check.sh --build-only   # on a machine with cargo and no GPU: build the Rust
#                                       # test programs into target/gpu-check/ and stop
#   scripts/gpu-check.sh --prebuilt     # on a GPU machine without cargo: run those programs.
#                                       # The doc tests and the Python exchange cannot run
#                                       # there, so the result is FAILED (incomplete), never OK
#
# What a full run does, each step with a time limit (together under ten minutes):
#   1. the machine: GPUs (nvidia-smi), libcuda, cargo, python3, libpython, maturin, pytest,
#      PyTorch/CuPy; anything missing fails the run here, before anything is built;
#   2. build the tests of dlpack-core with features cuda and pyo3 (once, debug);
#   3. run the unit and integration tests (tests/cuda*.rs, tests/python_cuda.rs) and the doc
#      examples of the CUDA backend (src/cuda/, src/python/cuda.rs, the CUDA example of
#      src/python/mod.rs: the others need no GPU and run in CI) with DLPACK_REQUIRE_GPU=1, so
#      that a test that finds no GPU fails instead of skipping; a test that needs two GPUs
#      prints "not run" on a one-GPU machine, and is listed;
#   4. build the extension (examples/python) with `maturin build --release --features cuda`
#      (the one release build) and run tests/python/test_cuda.py against PyTorch and CuPy
#      (whichever import), with DLPACK_REQUIRE_GPU=1.
#
# Exit status: 0 when every step ran and passed, 1 otherwise. The summary lists each step.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

mode=full
case ${1:-} in
    "") ;;
    --build-only) mode=build-only ;;
    --prebuilt) mode=prebuilt ;;
    *) echo "usage: $0 [--build-only | --prebuilt]" >&2; exit 2 ;;
esac

# Seconds per step; they add up to 570, and no step may run past DEADLINE from the start.
LIMIT_FETCH=${LIMIT_FETCH:-30}
LIMIT_BUILD=${LIMIT_BUILD:-180}
LIMIT_TESTS=${LIMIT_TESTS:-90}
LIMIT_DOCS=${LIMIT_DOCS:-90}
LIMIT_MATURIN=${LIMIT_MATURIN:-120}
LIMIT_PYTEST=${LIMIT_PYTEST:-60}
DEADLINE=${DEADLINE:-590}
PREBUILT=target/gpu-check
FEATURES=cuda,pyo3
PYTHON=${PYTHON:-python3}

started=$SECONDS
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
summary=()
failed=0

record() { # STATUS NAME DETAIL
    summary+=("$(printf '%-5s %-13s %s' "$1" "$2" "$3")")
    [[ $1 == FAIL ]] && failed=1
    return 0
}

section() { printf '\n=== %s (%d s) ===\n' "$1" $((SECONDS - started)); }

finish() {
    section "summary (logs in $log_dir)"
    printf '%s\n' "${summary[@]}"
    if [[ $failed == 0 ]]; then
        echo "gpu-check: OK: every step ran on the GPU and passed"
    else
        echo "gpu-check: FAILED"
    fi
    exit "$failed"
}

# `timeout` for a step: its limit, or what is left before the deadline if that is less.
limited() { # LIMIT COMMAND...
    local limit=$1 left=$((DEADLINE - (SECONDS - started)))
    shift
    ((left < limit)) && limit=$left
    if ((limit <= 0)); then
        echo "no time left before the ${DEADLINE} s deadline" >&2
        return 124
    fi
    timeout "$limit" "$@"
}

timed_out() { [[ $1 == 124 || $1 == 137 ]]; }

# --- 1. the machine -------------------------------------------------------------------------
section "environment"
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader \
        | tee "$log_dir/gpus.txt"
    gpus=$(grep -c . "$log_dir/gpus.txt")
    gpu=$(head -n1 "$log_dir/gpus.txt" | cut -d, -f2- | sed 's/^ *//')
else
    # No nvidia-smi (some containers): ask the driver itself.
    gpus=$("$PYTHON" -c 'import ctypes
cuda = ctypes.CDLL("libcuda.so.1"); n = ctypes.c_int(0)
print(n.value if cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(n)) == 0 else 0)' 2>/dev/null || echo 0)
    gpu="nvidia-smi not found; the driver reports $gpus device(s)"
fi
libcuda=$( (ldconfig -p 2>/dev/null || true) | grep -m1 -o 'libcuda\.so[.0-9]*' || true)
echo "libcuda: ${libcuda:-not in the ldconfig cache (LD_LIBRARY_PATH may still provide it)}"
if [[ $mode != build-only && $gpus == 0 ]]; then
    record FAIL environment "no GPU: $gpu (this script proves the GPU paths; elsewhere run cargo test, where they skip)"
fi

missing=()
if [[ $mode != prebuilt ]]; then
    if command -v cargo >/dev/null 2>&1; then
        cargo --version
        rustc --version
    else
        missing+=("cargo (install a Rust toolchain, or --build-only elsewhere and --prebuilt here)")
    fi
fi
if ! "$PYTHON" --version >/dev/null 2>&1; then
    missing+=("$PYTHON (set PYTHON to an interpreter)")
else
    "$PYTHON" --version
    # The pyo3 GPU tests (tests/python_cuda.rs) link and embed this interpreter.
    libpython=$("$PYTHON" -c 'import os, sysconfig as c; d, l = c.get_config_var("LIBDIR") or "", c.get_config_var("LDLIBRARY") or ""; print(d if l and os.path.exists(os.path.join(d, l)) else "")' 2>/dev/null || true)
    if [[ -n $libpython ]]; then
        echo "libpython: $libpython"
        export LD_LIBRARY_PATH="$libpython${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export PYO3_PYTHON="$PYTHON"
    else
        missing+=("an embeddable libpython for $PYTHON (tests/python_cuda.rs links it)")
    fi
    if [[ $mode == full ]]; then
        "$PYTHON" -m maturin --version 2>/dev/null || missing+=("maturin in $PYTHON (pip install maturin)")
        "$PYTHON" -m pytest --version 2>/dev/null || missing+=("pytest in $PYTHON (pip install pytest)")
        peers=()
        "$PYTHON" -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1 && peers+=(torch)
        "$PYTHON" -c 'import cupy; assert cupy.cuda.runtime.getDeviceCount() > 0' >/dev/null 2>&1 && peers+=(cupy)
        if [[ ${#peers[@]} == 0 ]]; then
            missing+=("PyTorch or CuPy seeing the GPU in $PYTHON (the exchange is tested against them)")
        else
            echo "peers: ${peers[*]}"
        fi
    fi
fi
for what in "${missing[@]}"; do
    record FAIL environment "missing: $what"
done
if [[ $failed == 1 ]]; then
    finish
fi
record INFO environment "$gpus GPU(s): $gpu; libcuda: ${libcuda:-not in ldconfig cache}${peers:+; peers: ${peers[*]}}"

# --- 2. build -------------------------------------------------------------------------------
if [[ $mode != prebuilt ]]; then
    section "build: cargo test -p dlpack-core --features $FEATURES --no-run"
    if ! limited "$LIMIT_FETCH" cargo fetch --quiet >"$log_dir/fetch.log" 2>&1; then
        echo "cargo fetch failed (no network?): building offline, from the local cargo cache"
        export CARGO_NET_OFFLINE=true
    fi
    limited "$LIMIT_BUILD" cargo test -p dlpack-core --features "$FEATURES" --no-run \
        --message-format=json-render-diagnostics >"$log_dir/build.json" 2>"$log_dir/build.log"
    rc=$?
    if [[ $rc != 0 ]]; then
        tail -n 40 "$log_dir/build.log"
        timed_out "$rc" && why="timed out" || why="failed"
        record FAIL build "$why: see $log_dir/build.log"
        finish
    fi
    record PASS build "dlpack-core tests with features $FEATURES"
fi

if [[ $mode == build-only ]]; then
    rm -rf "$PREBUILT" && mkdir -p "$PREBUILT"
    # The test programs cargo just built: the library's unit tests and tests/*.rs.
    grep -o '"executable":"[^"]*"' "$log_dir/build.json" | cut -d'"' -f4 \
        | while read -r exe; do cp "$exe" "$PREBUILT/" && strip -g "$PREBUILT/$(basename "$exe")" 2>/dev/null; done
    record PASS prebuilt "$(find "$PREBUILT" -type f | wc -l) test programs in $PREBUILT ($(du -sh "$PREBUILT" | cut -f1)); run --prebuilt on the GPU machine (needs libpython there too)"
    finish
fi

# --- 3. the Rust tests ----------------------------------------------------------------------
section "rust tests, DLPACK_REQUIRE_GPU=1"
export DLPACK_REQUIRE_GPU=1
: >"$log_dir/tests.log"
if [[ $mode == prebuilt ]]; then
    programs=("$PREBUILT"/*)
    if [[ ! -e ${programs[0]} ]]; then
        record FAIL "rust tests" "no programs in $PREBUILT: run --build-only on a machine with cargo"
        finish
    fi
    rc=0
    for exe in "${programs[@]}"; do
        echo "--- $exe" | tee -a "$log_dir/tests.log"
        limited "$LIMIT_TESTS" "$exe" --test-threads=4 2>&1 | tee -a "$log_dir/tests.log"
        ((PIPESTATUS[0] != 0)) && rc=${PIPESTATUS[0]}
    done
else
    limited "$LIMIT_TESTS" cargo test -p dlpack-core --features "$FEATURES" --lib --tests \
        --no-fail-fast -- --test-threads=4 2>&1 | tee "$log_dir/tests.log"
    rc=${PIPESTATUS[0]}
fi
count() { grep -Eo "$1" "$log_dir/tests.log" | awk '{s += $1} END {print s + 0}'; }
passed=$(count '[0-9]+ passed')
failures=$(count '[0-9]+ failed')
gpu_tests=$(grep -Ec '^test gpu_[a-z0-9_]* \.\.\. ok$' "$log_dir/tests.log")
python_gpu=$(grep -Ec '^test gpu_python_[a-z0-9_]* \.\.\. ok$' "$log_dir/tests.log")
# The harness prints "test NAME ... " before a test runs, so these may follow it on a line.
skipped=$(grep -Eo 'skipping [A-Za-z0-9_]+: ' "$log_dir/tests.log" | wc -l)
not_run=$(grep -Eo 'not run [A-Za-z0-9_]+: ' "$log_dir/tests.log" | sed 's/not run //; s/: //' | sort -u | tr '\n' ' ')
status=PASS
detail="$passed passed ($gpu_tests gpu_* tests, $python_gpu through the Python protocol), $failures failed"
if [[ $rc != 0 ]]; then
    status=FAIL
    timed_out "$rc" && detail="$detail; timed out"
fi
# DLPACK_REQUIRE_GPU=1 turns skips into failures: a skip here means a test ignored it.
if [[ $skipped -gt 0 ]]; then status=FAIL; detail="$detail; $skipped skipped despite DLPACK_REQUIRE_GPU=1"; fi
if [[ $gpu_tests == 0 || $python_gpu == 0 ]]; then status=FAIL; detail="$detail; no GPU test ran (or none through Python)"; fi
record "$status" "rust tests" "$detail"
[[ -n $not_run ]] && record INFO "not run" "need two GPUs: $not_run"

if [[ $mode == prebuilt ]]; then
    record FAIL "doc tests" "not run: they need cargo (a --prebuilt run is incomplete)"
    record FAIL python "not run: building the extension needs cargo (a --prebuilt run is incomplete)"
    finish
fi

section "doc tests of the CUDA backend (their GPU paths run here)"
limited "$LIMIT_DOCS" cargo test -p dlpack-core --features "$FEATURES" --doc -- cuda \
    src/python/mod.rs 2>&1 | tee "$log_dir/doc.log"
rc=${PIPESTATUS[0]}
docs=$(grep -Eo '[0-9]+ passed' "$log_dir/doc.log" | awk '{s += $1} END {print s + 0}')
if [[ $rc == 0 && $docs -gt 0 ]]; then
    record PASS "doc tests" "$docs passed (src/cuda/, src/python/cuda.rs, src/python/mod.rs)"
else
    timed_out "$rc" && why="timed out" || why="failed"
    record FAIL "doc tests" "$why ($docs passed): see $log_dir/doc.log"
fi

# --- 4. the Python exchange with PyTorch or CuPy --------------------------------------------
section "python: maturin build --release --features cuda, pytest tests/python/test_cuda.py"
python_check() {
    local ext=examples/python wheels="$log_dir/wheels" site="$log_dir/site" rc
    (cd "$ext" && limited "$LIMIT_MATURIN" "$PYTHON" -m maturin build --release --features cuda \
        --interpreter "$PYTHON" -o "$wheels") >"$log_dir/maturin.log" 2>&1
    rc=$?
    if [[ $rc != 0 ]]; then
        tail -n 30 "$log_dir/maturin.log"
        timed_out "$rc" && why="timed out" || why="failed"
        record FAIL python "maturin build $why: see $log_dir/maturin.log"
        return
    fi
    "$PYTHON" -m pip install -q --no-deps --no-index --target "$site" "$wheels"/*.whl \
        >"$log_dir/pip.log" 2>&1 || { record FAIL python "installing the wheel failed: see $log_dir/pip.log"; return; }
    # test_cuda.py alone: it needs neither numpy nor the CPU peers of the other test files.
    PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" limited "$LIMIT_PYTEST" \
        "$PYTHON" -m pytest -q -rs -p no:cacheprovider tests/python/test_cuda.py 2>&1 | tee "$log_dir/pytest.log"
    rc=${PIPESTATUS[0]}
    local last passed skipped
    last=$(grep -E '(passed|failed|error)' "$log_dir/pytest.log" | tail -n1)
    passed=$(grep -Eo '[0-9]+ passed' <<<"$last" | grep -Eo '[0-9]+' || echo 0)
    # Skips that no GPU can lift: a peer not installed (the other one ran), two GPUs missing.
    skipped=$(grep -E '^SKIPPED' "$log_dir/pytest.log" | grep -Evc 'not run: needs two CUDA devices|is not usable here' || true)
    if [[ $rc == 0 && $passed -gt 0 && $skipped == 0 ]]; then
        record PASS python "test_cuda.py with ${peers[*]}: $last"
    elif [[ $rc == 5 ]]; then
        record FAIL python "tests/python/test_cuda.py collected no test"
    elif [[ $rc == 0 ]]; then
        record FAIL python "$skipped test(s) skipped for a reason the GPU should have lifted: $last"
    else
        timed_out "$rc" && last="timed out; $last"
        record FAIL python "pytest exit $rc: $last"
    fi
    grep -E '^SKIPPED.*not run: needs two CUDA devices' "$log_dir/pytest.log" >/dev/null \
        && record INFO "not run" "python tests that need two GPUs (see $log_dir/pytest.log)"
    local absent
    absent=$(grep -Eo '(torch|cupy) is not usable here' "$log_dir/pytest.log" | sort -u | sed 's/ is not usable here//' | tr '\n' ' ')
    [[ -n $absent ]] && record INFO "not run" "python tests with ${absent% } (not installed or not seeing the GPU)"
    return 0
}
python_check
finish
