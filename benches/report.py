"""Summarises a bench-report run: one line per comparison, then `targets: met/total met`.

Reads criterion's estimates (the least median of each benchmark over the rounds the script
ran, saved as baselines round1, round2, ...) from $CRITERION_HOME and the
Python timings from a JSON file written by benches/python/bench_python.py, and prints

    <name>: ours <median> vs <peer> <median> = <ratio>x (target <= <t>x) ok|MISS

Comparisons without a target (against dlpark's dtype/device conversions, rank 64 export,
the owned-Vec export and its floors, the paddle dtype extraction) are printed with
`(no target) info` and not counted.
Exit status: 0 when every target is met, 1 when one is missed, 2 when a result is missing.

Usage: python3 benches/report.py CRITERION_HOME [PYTHON_JSON | "skip:<reason>"] [MET TOTAL]
(MET and TOTAL: targets checked elsewhere, such as allocation counts, added to the last line)
"""

import json
import os
import sys

STREAM_LEN = 4096  # values per iteration in the conversion benches (stream::STREAM_LEN)

# (line name, criterion group, ours id, peer id, peer label, divisor, target or None)
CRITERION = []
for group, what in [
    ("dtype_to_dlpack", "dtype to DLPack"),
    ("dtype_from_dlpack", "dtype from DLPack"),
    ("device_to_dlpack", "device to DLPack"),
    ("device_from_dlpack", "device from DLPack"),
]:
    CRITERION.append((f"{what} (derived vs hand-written match)", group, "derived", "hand",
                      "hand", STREAM_LEN, 1.05))
# A kernel run on the element type of each value of the derived enum, by its `dispatch` and by
# the hand-written match a framework writes for each op (benches/src/dispatch.rs).
CRITERION.append(("dtype dispatch of a kernel (derived vs hand-written match)", "dispatch",
                  "derived", "hand", "hand", STREAM_LEN, 1.05))
for group, what in [
    ("dtype_to_dlpack", "dtype to DLPack"),
    ("dtype_from_dlpack", "dtype from DLPack"),
    ("device_to_dlpack", "device to DLPack"),
    ("device_from_dlpack", "device from DLPack"),
]:
    CRITERION.append((f"{what} (derived vs dlpark types)", group, "derived", "dlpark",
                      "dlpark", STREAM_LEN, None))
# The export target is judged on shared storage (an Arc<[f32]> clone), whose drop frees only
# what the export allocated; an owned Vec, whose drop frees the vector as well, is printed for
# information (benches/src/tensor.rs says why).
for rank in (1, 2, 4, 8, 64):
    CRITERION.append((f"export+drop rank {rank} (shared Arc<[f32]> storage)", "export_shared",
                      f"ours/{rank}", f"dlpark/{rank}", "dlpark", 1, 0.8 if rank <= 8 else None))
# The owned-Vec export and where its time goes: its floor (one allocation, nothing checked;
# tensor::export_floor), bare, returned through Result<_, dlpack_core::Error> and through
# Result<_, Box<Error>>, against dlpark.
for rank in (1, 8):
    CRITERION.append((f"export+drop rank {rank} (owned Vec<f32>, freed with the tensor)",
                      "export", f"ours/{rank}", f"dlpark/{rank}", "dlpark", 1, None))
    CRITERION.append((f"export+drop floor rank {rank} (one allocation, no checks, bare pointer)",
                      "export", f"floor/{rank}", f"dlpark/{rank}", "dlpark", 1, None))
    CRITERION.append((f"export+drop floor rank {rank} returned as Result<_, Error>", "export",
                      f"floor_result/{rank}", f"dlpark/{rank}", "dlpark", 1, None))
    CRITERION.append((f"export+drop floor rank {rank} returned as Result<_, Box<Error>>",
                      "export", f"floor_boxed/{rank}", f"dlpark/{rank}", "dlpark", 1, None))
for rank in (1, 2, 4, 8, 64):
    CRITERION.append((f"import+validate+slice rank {rank}", "import", f"ours/{rank}",
                      f"dlpark/{rank}", "dlpark", 1, 1.0))
# The README's candle import path (from_dlpack::<candle_core::Tensor>) against the one copy a
# hand-written import makes (Tensor::from_slice over the view's slice), 1M f32.
CRITERION.append(("candle import 1M f32 (from_dlpack vs hand-written from_slice)",
                  "candle_import", "ours", "hand", "hand", 1, 1.2))
# candle's safe export (to_dlpack_tensor: a compact copy under candle's read lock) against
# candle's own copy out, Tensor::to_vec1, 1M f32: one copy each.
CRITERION.append(("candle export 1M f32 (to_dlpack_tensor vs candle's to_vec1)",
                  "candle_export", "ours", "hand", "to_vec1", 1, 1.1))
# The burn bridge's TensorData paths stay constant in the tensor's size: 10M f32 against 1k,
# and (for information) against TensorData::clone, the copy they avoid.
for path, what in [("export", "export+drop"), ("import", "aligned import+drop")]:
    CRITERION.append((f"burn TensorData {what}, 10M vs 1k f32 (constant in size)", "burn_data",
                      f"{path}/10000000", f"{path}/1000", "1k", 1, 1.5))
    for size, label in [(1000, "1k"), (10_000_000, "10M")]:
        CRITERION.append((f"burn TensorData {what} vs TensorData::clone, {label} f32", "burn_data",
                          f"{path}/{size}", f"clone/{size}", "clone", 1, None))


def fmt_time(ns):
    if ns < 1_000:
        return f"{ns:.2f} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.2f} us"
    return f"{ns / 1_000_000:.2f} ms"


def median_ns(home, group, bench_id):
    """The least median over the rounds (criterion baselines `round1`, `round2`, ...)."""
    folder = os.path.join(home, group, *bench_id.split("/"))
    rounds = sorted(d for d in os.listdir(folder) if d.startswith("round"))
    if not rounds:
        raise OSError(f"no rounds in {folder}")
    medians = []
    for r in rounds:
        with open(os.path.join(folder, r, "estimates.json")) as f:
            medians.append(json.load(f)["median"]["point_estimate"])
    return min(medians)


def instructions(n):
    return f"{n:.1f} Ir"


def line(name, ours, peer_label, peer, target, unit=fmt_time):
    ratio = ours / peer
    shown = f"{ratio:.2f}x" if ratio >= 0.01 else f"{ratio:.1e}x"
    if target is None:
        verdict, counted = "(no target) info", None
    else:
        counted = ratio <= target
        verdict = f"(target <= {target:g}x) {'ok' if counted else 'MISS'}"
    print(f"{name}: ours {unit(ours)} vs {peer_label} {unit(peer)} = {shown} {verdict}")
    return counted


def main():
    home = sys.argv[1]
    python = sys.argv[2] if len(sys.argv) > 2 else "skip:no Python results given"
    results, missing = [], []
    for name, group, ours_id, peer_id, peer_label, div, target in CRITERION:
        try:
            ours = median_ns(home, group, ours_id) / div
            peer = median_ns(home, group, peer_id) / div
        except (OSError, KeyError, ValueError) as e:
            missing.append(f"{name}: no result ({e})")
            continue
        results.append(line(name, ours, peer_label, peer, target))
    if python.startswith("skip:"):
        print(f"python comparisons skipped: {python[5:]}")
    else:
        with open(python) as f:
            for r in json.load(f):
                if "skip" in r:
                    print(f"{r['name']}: skipped: {r['skip']}")
                    continue
                results.append(line(r["name"], r["ours_ns"], r["peer"], r["peer_ns"],
                                    r.get("target")))
    for m in missing:
        print(m)
    counted = [r for r in results if r is not None]
    extra_met, extra_total = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (0, 0)
    met, total = sum(counted) + extra_met, len(counted) + extra_total
    print(f"targets: {met}/{total} met")
    if missing:
        return 2
    return 0 if met == total else 1


if __name__ == "__main__":
    sys.exit(main())
