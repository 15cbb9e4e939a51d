"""Instruction counts (callgrind) of `dlpack_demo.from_dlpack(x)` against `tvm_ffi.from_dlpack(x)`,
the import lines of python/bench_python.py, for x a PyTorch CPU tensor (`torch`, float32 of 8
elements, or `torch88`, 8x8), an 8x8 float32 ndarray (`ndarray`) or a TVM FFI tensor of one
(`tvm`).

Wall-clock times on a shared 2-core machine move by 10-30% from run to run; these counts repeat.
The script runs itself under `valgrind --tool=callgrind` with the collector off except inside
`sorted()` (`--toggle-collect=builtin_sorted`), whose key function is the timed loop, and a dump
after each `sorted()`. In one process it runs N calls of ours, N of TVM FFI's, then 2N of each;
the difference of the two counts of a side, over N, is that side's instructions per call, loop
included, with what the first calls of a process cost (caches filled, classes looked up) left
out. The garbage collector is off, `PYTHONHASHSEED=0`, and OpenBLAS and OpenMP run on one
thread, whose spinning threads otherwise land in the count.

    <source>: ours <Ir> vs tvm_ffi <Ir> = <ratio>x

With `--annotate`, the functions under our call, inclusive, per call (callgrind_annotate).

Usage: python benches/evidence/python_instructions.py [--annotate] torch|torch88|ndarray|tvm [N]
(with the interpreter of the venv that holds dlpack_demo, tvm_ffi and numpy, torch for the
PyTorch sources; needs valgrind; a PyTorch source takes minutes, importing PyTorch under valgrind)
"""

import glob
import os
import re
import subprocess
import sys
import tempfile


def inner(source, n):
    import gc

    import numpy
    import tvm_ffi

    import dlpack_demo

    if source.startswith("torch"):
        import torch

        x = torch.zeros(8) if source == "torch" else torch.zeros(8, 8)
    elif source == "ndarray":
        x = numpy.zeros((8, 8), dtype=numpy.float32)
    else:
        x = tvm_ffi.from_dlpack(numpy.zeros((8, 8), dtype=numpy.float32))
    ours, theirs = dlpack_demo.from_dlpack, tvm_ffi.from_dlpack

    def loop(fn, count):
        def run(_):
            for _ in range(count):
                fn(x)
            return 0

        return run

    for fn in (ours, theirs, ours, theirs):
        fn(x)
    gc.disable()
    # The last four dumps: ours N, theirs N, ours 2N, theirs 2N.
    for fn, count in ((ours, n), (theirs, n), (ours, 2 * n), (theirs, 2 * n)):
        sorted([0], key=loop(fn, count))


def outer(source, n, annotate):
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1")
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             "--toggle-collect=builtin_sorted", "--dump-after=builtin_sorted",
             f"--callgrind-out-file={out}/cg.out", sys.executable, os.path.abspath(__file__),
             "--inner", source, str(n)],
            env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        parts = {}
        for path in glob.glob(f"{out}/cg.out*"):
            text = open(path).read()
            if "Trigger: --dump-after=builtin_sorted" not in text:
                continue  # the dump at the end of the program
            part = int(re.search(r"^part: (\d+)", text, re.M).group(1))
            total = int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))
            parts[part] = (total, path)
        last = sorted(parts)[-4:]
        (o1, _), (t1, _), (o2, ours_path), (t2, _) = (parts[p] for p in last)
        ours, theirs = (o2 - o1) / n, (t2 - t1) / n
        print(f"{source}: ours {ours:.0f} vs tvm_ffi {theirs:.0f} = {ours / theirs:.3f}x")
        if annotate:
            listing = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                                      ours_path], capture_output=True, text=True,
                                     check=True).stdout
            for line in listing.splitlines():
                match = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(?: \[.*)?$", line)
                if match and ("dlpack" in line or "torch" in line or "pyo3" in line):
                    count = int(match.group(1).replace(",", "")) / (2 * n)
                    print(f"  {count:7.0f}  {match.group(2)}")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--inner":
        inner(args[1], int(args[2]))
        return
    annotate = "--annotate" in args
    args = [a for a in args if a != "--annotate"]
    if not args:
        sys.exit(__doc__)
    outer(args[0], int(args[1]) if len(args) > 1 else 2000, annotate)


if __name__ == "__main__":
    main()
