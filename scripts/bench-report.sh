#!/usr/bin/env bash
# The side-by-side benchmark report: runs the criterion comparisons of
# benches/ (derived conversions vs a hand-written match and dlpark; tensor export and import vs
# dlpark 0.10) and the Python timeit script (which also times `#[pymethods]`'s generated
# `__dlpack_data_type__`/`__dlpack_device__` against hand-written Rust ones, target <= 1.05x,
# and against a pure-Python method returning a constant tuple, target <= 1.0x; and the RFC's
# `from_dlpack` of a name against the class's constructor, target <= 2.0x), and
# prints one line per comparison,
#
#   <name>: ours <median> vs <peer> <median> = <ratio>x (target <= <t>x) ok|MISS
#
# then `targets: <met>/<total> met`. Ratios, not absolute times, are what the README quotes.
# Before timing anything it runs the checks that need no clock, each counted as a target: the
# counting-allocator tests (benches/tests/allocations.rs) and the constant-folding check
# (benches/evidence/check-fold.sh). For instruction counts of the same comparisons, which do
# not move with the machine's load, run python3 benches/evidence/instructions.py.
#
# The benches are built first (not counted in the run time); the run itself takes about a
# minute and a half on a 2-core machine. Criterion's own output goes to
# target/bench-report/criterion.log. Settings: BENCH_WARM_UP and BENCH_MEASURE (seconds per
# benchmark and round, default 0.2 and 0.5), BENCH_ROUNDS_CONVERSIONS and BENCH_ROUNDS_TENSOR
# (default 3 each), BENCH_PYTHON (default .venv/bin/python; the Python lines are skipped, with
# the reason, when it or the dlpack_demo module is missing), BENCH_WHOLE_PROGRAM=1 (see below).
#
# By default the benches build with Cargo's `bench` profile as it comes (16 codegen units, no
# LTO), as a framework's release build usually is. BENCH_WHOLE_PROGRAM=1 builds them as one
# unit instead (fat LTO, one codegen unit, as the demo extension is built), so that where the
# linker places each function no longer depends on how rustc split the crates. The comparisons
# and targets are the same; the README quotes both builds, and why they differ. Switching
# between the two rebuilds the benches.
#
# Exit status: 0 when every target is met, 1 when one is missed, 2 when something failed.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="$PWD/target/bench-report"
rm -rf "$OUT"
mkdir -p "$OUT"
export CRITERION_HOME="$OUT/criterion"
WARM="${BENCH_WARM_UP:-0.2}"
MEAS="${BENCH_MEASURE:-0.5}"
ROUNDS_CONVERSIONS="${BENCH_ROUNDS_CONVERSIONS:-3}"
ROUNDS_TENSOR="${BENCH_ROUNDS_TENSOR:-3}"
PY="${BENCH_PYTHON:-$PWD/.venv/bin/python}"
build="default bench profile"
if [ "${BENCH_WHOLE_PROGRAM:-}" = 1 ]; then
  export CARGO_PROFILE_BENCH_LTO=fat CARGO_PROFILE_BENCH_CODEGEN_UNITS=1
  build="whole program (fat LTO, one codegen unit)"
fi

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "machine: $(nproc) cores, $(uname -m), rustc $(rustc --version | cut -d' ' -f2); load average $(load) before"
echo "build: $build"

# Checks that need no timing, each counted as a target: allocations (a counting global
# allocator, benches/tests/allocations.rs) and the constant folding of unit variants
# (benches/evidence/check-fold.sh, which reads the release assembly).
checks=()
extra_met=0
extra_total=0
check() { # name, ok?
  extra_total=$((extra_total + 1))
  if [ "$2" = 0 ]; then
    extra_met=$((extra_met + 1))
    checks+=("$1 ok")
  else
    checks+=("$1 MISS")
  fi
}
cargo test -p dlpack-benches --test allocations -- --test-threads=1 >"$OUT/allocations.log" 2>&1 || true
passed() { grep -q "^test $1 \.\.\. ok" "$OUT/allocations.log"; echo $?; }
check "allocations per derived dtype conversion: 0 (target 0)" \
  "$(passed derived_data_type_conversions_do_not_allocate)"
check "allocations per derived device conversion: 0 (target 0)" \
  "$(passed derived_device_conversions_do_not_allocate)"
check "allocations per dtype dispatch (a kernel on a value's element type): 0 (target 0)" \
  "$(passed dispatch_does_not_allocate)"
check "allocations per tensor export, ranks 1-64: 1 (target <= 1)" \
  "$(passed exporting_a_tensor_allocates_once)"
check "allocations per import+validate+slice: 0 (target 0)" \
  "$(passed importing_validating_and_slicing_do_not_allocate)"
fold=1
benches/evidence/check-fold.sh >"$OUT/fold.log" 2>&1 && fold=0
check "unit-variant mappings fold to constants ($(grep -c ': folded' "$OUT/fold.log") functions; benches/evidence/fold.txt)" "$fold"

# Built after the fold check, which recompiles the library with `--emit asm`.
if ! cargo bench -p dlpack-benches --features candle,burn --no-run >"$OUT/build.log" 2>&1; then
  cat "$OUT/build.log"
  exit 2
fi

start=$SECONDS
# Each bench runs in several rounds; the report takes, per benchmark, the least median over
# the rounds. Load from other processes only ever adds time, so the least median is the
# closest to the code's own cost, and both sides of a comparison get the same chances.
run_rounds() { # bench rounds
  local r reverse
  for r in $(seq 1 "$2"); do
    # Every other round runs the peer's side of each pair first.
    reverse=$([ $((r % 2)) = 0 ] && echo 1 || echo "")
    if ! DLPACK_BENCH_REVERSE=$reverse cargo bench -p dlpack-benches --features candle,burn --bench "$1" -- --warm-up-time "$WARM" \
      --measurement-time "$MEAS" --nresamples 2000 --noplot --save-baseline "round$r" \
      >>"$OUT/criterion.log" 2>&1; then
      tail -n 30 "$OUT/criterion.log"
      exit 2
    fi
  done
}
run_rounds conversions "$ROUNDS_CONVERSIONS"
run_rounds tensor "$ROUNDS_TENSOR"
run_rounds candle "$ROUNDS_TENSOR"
run_rounds burn "$ROUNDS_TENSOR"

python_result="skip:no Python interpreter at $PY (run scripts/python-tests.sh to create the venv)"
# rust-numpy's side of the typed-argument line: an extension built for the report only
# (benches/python/numpy_peer), into the venv; its line is skipped, with the reason, without it.
if [ -x "$PY" ] && [ -x "$(dirname "$PY")/maturin" ]; then
  (cd benches/python/numpy_peer && VIRTUAL_ENV="$(dirname "$(dirname "$PY")")" \
    PATH="$(dirname "$PY"):$PATH" CARGO_TARGET_DIR="$PWD/../../../target/numpy_peer" \
    maturin develop --release >"$OUT/numpy-peer.log" 2>&1) || true
fi
if [ -x "$PY" ]; then
  if "$PY" -c 'import numpy, dlpack_demo' 2>"$OUT/python-import.log"; then
    "$PY" benches/python/bench_python.py --out "$OUT/python.json" >"$OUT/python.log" 2>&1 \
      && python_result="$OUT/python.json" \
      || python_result="skip:benches/python/bench_python.py failed (see $OUT/python.log)"
  else
    python_result="skip:$PY cannot import numpy and dlpack_demo ($(tail -n 1 "$OUT/python-import.log"))"
  fi
fi

echo "ran in $((SECONDS - start))s; load average $(load) after"
printf '%s\n' "${checks[@]}"
exec python3 benches/report.py "$CRITERION_HOME" "$python_result" "$extra_met" "$extra_total"
