#!/usr/bin/env bash
# Proof that a unit variant's DLPack mapping folds to a constant (DESIGN.md, "Performance").
#
# Compiles the bench package's library (release profile, as shipped) with `--emit asm`, takes
# the machine code of the `#[inline(never)] #[no_mangle]` functions of benches/src/fold.rs
# (and of benches/examples/fold_downstream.rs, which calls the derived methods from another
# crate, as a framework's users do), and checks that each body is only moves of immediates
# (or of the return-slot pointer) and a `ret`: no call, no branch, no load. It writes what it
# saw to benches/evidence/fold.txt, so a change of the expansion or the compiler shows up in
# `git diff`, and exits 1 if any function does not fold.
#
# Usage: benches/evidence/check-fold.sh   (from anywhere; needs only cargo)
set -euo pipefail
cd "$(dirname "$0")/../.."
EVIDENCE=benches/evidence/fold.txt
DEPS=target/release/deps
EXAMPLES=target/release/examples

rm -f "$DEPS"/dlpack_benches-*.s "$EXAMPLES"/fold_downstream-*.s
cargo rustc -q --release -p dlpack-benches --lib -- --emit asm
cargo rustc -q --release -p dlpack-benches --example fold_downstream -- --emit asm
LIB_ASM=$(ls "$DEPS"/dlpack_benches-*.s)
EXAMPLE_ASM=$(ls "$EXAMPLES"/fold_downstream-*.s)

# name, the file it is in, and the immediate the DLPack value must appear as:
#   DataType (code u8, bits u8, lanes u16) little-endian: code | bits << 8 | lanes << 16
#   Device (device_type i32, device_id i32): device_type, stored as its own 32-bit word
checks=(
  "dlpack_bench_fold_hand_f32 $LIB_ASM $((2 | 32 << 8 | 1 << 16))"
  "dlpack_bench_fold_f32 $LIB_ASM $((2 | 32 << 8 | 1 << 16))"
  "dlpack_bench_fold_bf16 $LIB_ASM $((4 | 16 << 8 | 1 << 16))"
  "dlpack_bench_fold_f32_from $LIB_ASM $((2 | 32 << 8 | 1 << 16))"
  "dlpack_bench_fold_cuda_host $LIB_ASM 3"
  "dlpack_bench_fold_downstream_f32 $EXAMPLE_ASM $((2 | 32 << 8 | 1 << 16))"
  "dlpack_bench_fold_downstream_cuda_host $EXAMPLE_ASM 3"
)

failed=0
{
  echo "# Regenerate with: benches/evidence/check-fold.sh"
  echo "# $(rustc --version), release profile, $(uname -m)"
  echo "# Each function returns a unit variant's DLPack value; folded = only immediate moves and ret."
} >"$EVIDENCE"
for check in "${checks[@]}"; do
  read -r name file want <<<"$check"
  body=$(awk -v f="$name:" '$1 == f {on=1; next} on && /\.cfi_endproc/ {exit} on' "$file" |
    grep -Ev '^\s*(\.|#)|^\.?L' || true)
  verdict=folded
  if [ -z "$body" ]; then
    verdict="MISSING (no function $name in $file)"
  else
    # Every instruction is a mov (immediate or register source, no memory source) or a ret.
    bad=$(echo "$body" | awk '
      { op = $1; src = $2; sub(/,$/, "", src) }
      op ~ /^ret/ { next }
      op ~ /^mov/ && (src ~ /^\$/ || src ~ /^%[a-z0-9]+$/) { next }
      { print }')
    if [ -n "$bad" ]; then
      verdict="NOT FOLDED (computes: $(echo "$bad" | tr -s ' \t' ' ' | paste -sd ';'))"
    elif ! echo "$body" | grep -Eq "\\\$$want\b"; then
      verdict="NOT FOLDED (immediate $want not stored)"
    fi
  fi
  [ "$verdict" = folded ] || failed=1
  {
    echo
    echo "$name: $verdict"
    echo "$body"
  } >>"$EVIDENCE"
  echo "$name: $verdict"
done
exit "$failed"
