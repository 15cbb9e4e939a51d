#!/usr/bin/env bash
# Proof that a unit variant's DLPack mapping folds to a constant (DESIGN.md, "Performance").
#
# Compiles the bench package's library and its `fold_downstream` example (release profile, as
# shipped) with `--emit asm`, takes the machine code of the `#[inline(never)] #[no_mangle]`
# functions in benches/src/fold.rs (same crate as the derived enums) and
# benches/examples/fold_downstream.rs (another crate, as a framework's users call them), and
# checks with check_fold.py that each body is only stores of immediates and `ret` (no call,
# no branch, no load) and that the bytes it stores hold the expected DLPack value. The hand-
# written match is checked too, as the baseline, and a control whose variant is only known at
# run time must be found NOT folded, which shows the check can fail. Writes what it saw to
# benches/evidence/fold.txt (so a change in the expansion or the compiler shows in
# `git diff`) and exits 1 if any function does not fold.
#
# Usage: benches/evidence/check-fold.sh   (needs cargo and python3; x86-64 only)
set -euo pipefail
cd "$(dirname "$0")/../.."
EVIDENCE=benches/evidence/fold.txt
if [ "$(uname -m)" != x86_64 ]; then
  echo "check-fold: skipped, the check reads x86-64 assembly and this is $(uname -m)"
  exit 0
fi

# Fresh output every time: remove old listings and make cargo recompile the two crates.
rm -f target/release/deps/dlpack_benches-*.s target/release/examples/fold_downstream-*.s
touch benches/src/fold.rs benches/examples/fold_downstream.rs
cargo rustc -q --release -p dlpack-benches --lib -- --emit asm
cargo rustc -q --release -p dlpack-benches --example fold_downstream -- --emit asm
lib=$(ls target/release/deps/dlpack_benches-*.s)
example=$(ls target/release/examples/fold_downstream-*.s)

# The values as they sit in memory: DataType = code u8, bits u8, lanes u16 (little-endian);
# Device = device_type i32, device_id i32.
float32=02200100   # kDLFloat, 32 bits, 1 lane
bfloat16=04100100  # kDLBfloat, 16 bits, 1 lane
cuda_host=0300000000000000 # kDLCUDAHost, id 0

{
  echo "# Regenerate with: benches/evidence/check-fold.sh"
  echo "# $(rustc --version), release profile, $(uname -m)."
  echo "# Each function returns a unit variant's DLPack value. Folded: the body is only stores"
  echo "# of immediates and ret, and the bytes stored hold the value."
} >"$EVIDENCE"
python3 benches/evidence/check_fold.py "$EVIDENCE" \
  "$lib:dlpack_bench_fold_hand_f32:$float32" \
  "$lib:dlpack_bench_fold_f32:$float32" \
  "$lib:dlpack_bench_fold_bf16:$bfloat16" \
  "$lib:dlpack_bench_fold_f32_from:$float32" \
  "$lib:dlpack_bench_fold_cuda_host:$cuda_host" \
  "$example:dlpack_bench_fold_downstream_f32:$float32" \
  "$example:dlpack_bench_fold_downstream_cuda_host:$cuda_host" \
  "!$lib:dlpack_bench_fold_control:$float32"
