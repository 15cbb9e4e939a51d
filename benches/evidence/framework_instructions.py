"""Instruction counts (callgrind) for the `framework_lines` of benches/python/bench_python.py:
`dlpack_demo.negated(x)`, whose result `python::Framework` hands to the `from_dlpack` of x's
library, against `from_dlpack(dlpack_demo.negated_rust(x))` written by hand in Python, for a
NumPy array, a PyTorch tensor and a JAX array of 8 float32s.

Only the calls are counted: they run inside `itertools.starmap`, and callgrind collects inside
`starmap_next` alone (`--toggle-collect`), so neither the imports (whose cost moves with the
hash seed, by thousands of instructions a call over 2000 calls for PyTorch) nor the warm-up
count. The cyclic collector is off (a collection walks PyTorch's or JAX's whole heap, and how
many fall inside the calls differs between runs), and the seed and thread pools are fixed.
Work another thread does for a call (JAX's, PyTorch's pools) is outside `starmap_next` and
not counted, on either side.

    <line>: ours <Ir> vs by hand <Ir> = <ratio>x (target <= 1.2x) ok|MISS

Usage: python benches/evidence/framework_instructions.py [numpy] [torch] [jax]
(in a venv with a release build of dlpack_demo and the libraries; needs valgrind)
"""

import os
import re
import subprocess
import sys
import tempfile

CALLS = {"numpy": 2000, "torch": 2000, "jax": 300}
TARGET = 1.2


def child(side, library, n):
    """The counted calls, run under callgrind by `count`."""
    import collections
    import gc
    import itertools

    import numpy
    import dlpack_demo

    if library == "numpy":
        x, from_dlpack = numpy.ones(8, dtype=numpy.float32), numpy.from_dlpack
    elif library == "torch":
        import torch
        x, from_dlpack = torch.ones(8, dtype=torch.float32), torch.from_dlpack
    else:
        import jax.numpy as jnp
        x, from_dlpack = jnp.ones(8, dtype=jnp.float32), jnp.from_dlpack
    negated, negated_rust = dlpack_demo.negated, dlpack_demo.negated_rust
    if side == "ours":
        def fn():
            return negated(x)
    else:
        def fn():
            return from_dlpack(negated_rust(x))
    assert type(fn()) is type(x)
    for _ in range(200):  # the class's lookup, CPython's specialisation
        fn()
    gc.collect()
    gc.disable()
    collections.deque(itertools.starmap(fn, itertools.repeat((), n)), maxlen=0)


def count(side, library, n):
    """Instructions a call of one side, inside the loop."""
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=starmap_next",
             f"--callgrind-out-file={tmp}/out", sys.executable, os.path.abspath(__file__),
             "--child", side, library, str(n)],
            env=env, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or not found:
        sys.exit(f"callgrind failed on {side} {library}:\n{run.stderr[-2000:]}")
    return int(found.group(1)) / n


def main():
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    for library in sys.argv[1:] or list(CALLS):
        n = CALLS[library]
        ours, hand = count("ours", library, n), count("hand", library, n)
        ratio = ours / hand
        verdict = "ok" if ratio <= TARGET else "MISS"
        print(f"result in the caller's library ({library}): ours {ours:.0f} vs by hand "
              f"{hand:.0f} = {ratio:.2f}x (target <= {TARGET}x) {verdict}")


if __name__ == "__main__":
    main()
