"""Instruction counts (callgrind, deterministic) for every comparison of the benchmark report.

Wall-clock medians on a shared 2-core machine move by 10-30% from run to run; instruction
counts do not. This runs each workload of benches/examples/workload.rs under
`valgrind --tool=callgrind` at two repetition counts and takes the difference, so setup cost
cancels, and prints the report's lines with instructions per operation instead of times:

    <name>: ours <Ir> vs <peer> <Ir> = <ratio>x (target <= <t>x) ok|MISS

An instruction count is not a time (a mispredicted branch or a cache miss costs more than an
instruction), so these lines explain the timed report; they do not replace it.

Usage: python3 benches/evidence/instructions.py   (after
`cargo build --release -p dlpack-benches --example workload`; needs valgrind)
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "benches"))
import report  # noqa: E402  (the comparisons and the line format)

WORKLOAD = os.path.join(ROOT, "target", "release", "examples", "workload")
LOW, HIGH = 20, 40


def instructions(name, rank, reps):
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", WORKLOAD, name,
         str(rank), str(reps)],
        capture_output=True, text=True, check=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def per_rep(name, rank):
    return (instructions(name, rank, HIGH) - instructions(name, rank, LOW)) / (HIGH - LOW)


def workload_of(group, bench_id):
    """The workload and rank for a criterion benchmark, and the workload to subtract from it:
    making the owner each export workload makes (criterion makes it outside the timed region),
    or None."""
    if group in ("export_shared", "export", "import"):
        side, rank = bench_id.split("/")
        base = {"export_shared": "shared", "export": "data"}.get(group)
        return f"{group}_{side}", int(rank), base
    direction = group.replace("_dlpack", "")
    return f"{direction}_{bench_id}", 1, None


def main():
    if not os.path.exists(WORKLOAD):
        print(f"no {WORKLOAD}: cargo build --release -p dlpack-benches --example workload")
        return 2
    owners = {base: per_rep(base, 1) for base in ("data", "shared")}
    results = []
    for name, group, ours_id, peer_id, peer_label, div, target in report.CRITERION:
        counts = []
        for bench_id in (ours_id, peer_id):
            workload, rank, base = workload_of(group, bench_id)
            counts.append((per_rep(workload, rank) - owners.get(base, 0)) / div)
        results.append(report.line(name, counts[0], peer_label, counts[1], target,
                                   unit=report.instructions))
    counted = [r for r in results if r is not None]
    print(f"targets: {sum(counted)}/{len(counted)} met (instruction counts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
