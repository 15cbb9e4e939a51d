#!/usr/bin/env bash
# The side-by-side benchmark report (issue 8): runs the criterion comparisons of
# benches/ (derived conversions vs a hand-written match and dlpark; tensor export and import vs
# dlpark 0.10) and the Python timeit script, and prints one line per comparison,
#
#   <name>: ours <median> vs <peer> <median> = <ratio>x (target <= <t>x) ok|MISS
#
# then `targets: <met>/<total> met`. Ratios, not absolute times, are what the README quotes.
#
# The benches are built first (not counted in the run time); the run itself takes about a
# minute and a half on a 2-core machine. Criterion's own output goes to
# target/bench-report/criterion.log. Settings: BENCH_WARM_UP and BENCH_MEASURE (seconds per
# benchmark and round, default 0.2 and 0.5), BENCH_ROUNDS_CONVERSIONS and BENCH_ROUNDS_TENSOR
# (default 3 each), BENCH_PYTHON (default .venv/bin/python; the Python lines are skipped, with
# the reason, when it or the dlpack_demo module is missing).
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

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "machine: $(nproc) cores, $(uname -m), rustc $(rustc --version | cut -d' ' -f2); load average $(load) before"

if ! cargo bench -p dlpack-benches --no-run >"$OUT/build.log" 2>&1; then
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
    if ! DLPACK_BENCH_REVERSE=$reverse cargo bench -p dlpack-benches --bench "$1" -- --warm-up-time "$WARM" \
      --measurement-time "$MEAS" --nresamples 2000 --noplot --save-baseline "round$r" \
      >>"$OUT/criterion.log" 2>&1; then
      tail -n 30 "$OUT/criterion.log"
      exit 2
    fi
  done
}
run_rounds conversions "$ROUNDS_CONVERSIONS"
run_rounds tensor "$ROUNDS_TENSOR"

python_result="skip:no Python interpreter at $PY (run scripts/python-tests.sh to create the venv)"
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
exec python3 benches/report.py "$CRITERION_HOME" "$python_result"
