"""The Python side of the benchmark report (scripts/bench-report.sh), with `timeit`.

- numpy.from_dlpack(our tensor) against numpy.from_dlpack(a numpy array) of the same shape
  and dtype: the whole round trip through `__dlpack__` (request parsing, export, capsule,
  numpy's import), target <= 1.3x.
- Extracting our DType from a PaddlePaddle dtype (`dlpack_demo.dtype_of(paddle.float16)`):
  against the bare `paddle.float16.__dlpack_data_type__()` call every consumer has to make,
  and against TVM FFI reading the same object through the protocol (`testing.echo`).
  Informative, no target; skipped with the reason when paddle or tvm_ffi is absent.
- A generated protocol method against a hand-written one, in the same process, target
  <= 1.05x: `dlpack_demo.float16.__dlpack_data_type__()` (written by `#[pymethods(data_type)]`)
  against `dlpack_demo.dlpack.DataType("float16").__dlpack_data_type__()` (dlpack-core's own
  class, whose method is hand-written: `self.0.into()`), and the same for
  `__dlpack_device__` on `dlpack_demo.Device("cuda:1")` and `dlpack_demo.dlpack.Device`.
- A generated protocol method against a pure-Python one returning a constant tuple, the
  cheapest a framework written in Python can make it, target <= 1.0x:
  `dlpack_demo.float16.__dlpack_data_type__()` against `__dlpack_data_type__` of a Python class
  that `return (2, 16, 1)`, and the same for `__dlpack_device__` on `dlpack_demo.Device("cuda:1")`
  against `return (2, 1)`, in one process.
- The RFC's `from_dlpack` of a name against the class's constructor of the same name, target
  <= 2.0x: `dlpack_demo.from_dlpack("cuda:1")` against `dlpack_demo.Device("cuda:1")`, and
  `dlpack_demo.from_dlpack("float16")` against `dlpack_demo.DType("float16")`.
- The import path and DLPack 1.3's C exchange API, each against TVM FFI doing the
  same thing in the same process, target <= 1.0x: `dlpack_demo.from_dlpack(x)` against
  `tvm_ffi.from_dlpack(x)` for x a NumPy array (`__dlpack__` on both sides), a PaddlePaddle
  tensor (Paddle's table on both sides) and a TVM FFI tensor; `testing.echo(our tensor)`
  (our table in and out, returning our type) against `echo(ndarray)`;
  `tvm_ffi.from_dlpack(our tensor)` (our table) against `tvm_ffi.from_dlpack(paddle tensor)`
  (Paddle's); and the borrowed view of a NumPy array from Rust (`dlpack_demo.nbytes`, a kernel
  that reads the view's metadata and nothing else) against our owning import of it. Skipped
  with the reason when paddle or tvm_ffi is absent. And `dlpack_demo.from_dlpack(x)` against
  `tvm_ffi.from_dlpack(x)` for x a PyTorch CPU tensor (PyTorch's table on both sides; ours
  also reads the tensor's negative bit and `requires_grad`, which TVM FFI does not), skipped
  with the reason when torch is absent.

- Typed tensor arguments (`dlpack_core::python::TensorArg`): `dlpack_demo.nbytes(x)` (a typed
  argument) against `dlpack_demo.nbytes_of_view(x)` (the same body on `with_tensor_view`) on
  the same object, for a NumPy array (`__dlpack__`), a PaddlePaddle tensor (its exchange table)
  and our tensor (ours), target <= 1.05x; and a typed `float32` vector argument against
  rust-numpy's `PyReadonlyArray1<f32>` extraction of a NumPy array, both in
  `dlpack_numpy_peer` (benches/python/numpy_peer, built for the report only), target <= 1.5x.
  Skipped with the reason when paddle or the peer extension is absent.
- A result handed back in the caller's library (`dlpack_core::python::Framework`):
  `dlpack_demo.negated(x)` against `numpy.from_dlpack(dlpack_demo.negated_rust(x))`, the same
  kernel returning our tensor converted by hand, for a NumPy array, a PyTorch tensor
  (`torch.from_dlpack`) and a JAX array (`jax.numpy.from_dlpack`), target <= 1.2x
  (`--only framework` times these lines alone, as `--only typed` the typed ones). Skipped
  with the reason when PyTorch or JAX is absent.

Each timing is the least over REPEAT runs of NUMBER calls, per call, in nanoseconds.
Writes a JSON list for benches/report.py: {name, ours_ns, peer, peer_ns, target} or
{name, skip}.

Usage: python bench_python.py --out results.json [--repeat 15] [--only framework|typed]
"""

import argparse
import json
import timeit


def per_call_ns(fn, number, repeat):
    """The least time per call over `repeat` runs of `number` calls: as the timeit docs
    advise, the minimum, since other processes only ever add time (the criterion side of the
    report takes the least median over its rounds for the same reason)."""
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return min(times) / number * 1e9


def paired_ns(ours, peer, number, repeat):
    """Both sides' least time per call, measured in alternating rounds (the peer first on
    every other round), as the criterion side of the report alternates its rounds: timing one
    side's repeats and then the other's lets drift in the machine's state (frequency, caches,
    other processes) land on one side only."""
    best = [float("inf"), float("inf")]
    for round_ in range(repeat):
        order = ((0, ours), (1, peer)) if round_ % 2 == 0 else ((1, peer), (0, ours))
        for side, fn in order:
            best[side] = min(best[side], timeit.timeit(fn, number=number) / number * 1e9)
    return best


def compared(lines, number, repeat, target):
    """One report line per `(name, ours, peer name, peer)` of `lines`, both sides timed by
    `paired_ns` with `number` calls a round."""
    results = []
    for name, ours_fn, peer, peer_fn in lines:
        ours_ns, peer_ns = paired_ns(ours_fn, peer_fn, number, repeat)
        results.append({"name": name, "ours_ns": ours_ns, "peer": peer, "peer_ns": peer_ns,
                        "target": target})
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeat", type=int, default=15)
    groups = {"framework": framework_lines, "typed": typed_lines}
    parser.add_argument("--only", choices=sorted(groups),
                        help="time one group of lines alone (framework_lines, typed_lines)")
    args = parser.parse_args()
    if args.only:
        results = groups[args.only](args.repeat)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
        for r in results:
            print(r)
        return

    import numpy
    import dlpack_demo

    results = []
    shape = (8, 8)
    ours = dlpack_demo.empty(shape, dlpack_demo.float32)
    theirs = numpy.zeros(shape, dtype=numpy.float32)
    # Both must work and agree before they are timed.
    assert numpy.from_dlpack(ours).shape == numpy.from_dlpack(theirs).shape == shape
    assert numpy.from_dlpack(ours).dtype == numpy.float32
    ours_ns, peer_ns = paired_ns(
        lambda: numpy.from_dlpack(ours), lambda: numpy.from_dlpack(theirs), 20_000, args.repeat
    )
    results.append({
        "name": "numpy.from_dlpack(our tensor) (8x8 float32)",
        "ours_ns": ours_ns,
        "peer": "numpy.from_dlpack(ndarray)",
        "peer_ns": peer_ns,
        "target": 1.3,
    })

    name = "our DType from paddle.float16"
    try:
        import paddle
    except Exception as e:  # paddle is optional here, and its import can fail in many ways
        results.append({"name": name, "skip": f"paddle does not import ({e.__class__.__name__}: {e})"})
    else:
        dtype = paddle.float16
        assert str(dlpack_demo.dtype_of(dtype)) == str(dlpack_demo.float16)
        ours_ns, bare_ns = paired_ns(
            lambda: dlpack_demo.dtype_of(dtype), lambda: dtype.__dlpack_data_type__(), 50_000, args.repeat
        )
        results.append({
            "name": name,
            "ours_ns": ours_ns,
            "peer": "the bare __dlpack_data_type__() call",
            "peer_ns": bare_ns,
            "target": None,
        })
        try:
            import tvm_ffi
            echo = tvm_ffi.get_global_func("testing.echo")
        except Exception as e:
            results.append({"name": f"{name} vs TVM FFI", "skip": f"tvm_ffi unavailable ({e})"})
        else:
            assert str(echo(dtype)) == "float16"
            results.append({
                "name": f"{name} vs TVM FFI",
                "ours_ns": ours_ns,
                "peer": "tvm_ffi testing.echo(paddle.float16)",
                "peer_ns": per_call_ns(lambda: echo(dtype), 50_000, args.repeat),
                "target": None,
            })

    results.extend(generated_lines(args.repeat))
    results.extend(pure_python_lines(args.repeat))
    results.extend(from_dlpack_name_lines(args.repeat))
    results.extend(exchange_lines(args.repeat))
    results.extend(typed_lines(args.repeat))
    results.extend(framework_lines(args.repeat))

    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    for r in results:
        print(r)


def exchange_lines(repeat):
    """The import path and the C exchange API against TVM FFI (see the module docstring)."""
    import numpy
    import dlpack_demo

    names = ["dlpack_demo.from_dlpack(ndarray)", "dlpack_demo.from_dlpack(paddle tensor)",
             "dlpack_demo.from_dlpack(TVM FFI tensor)", "testing.echo(our tensor)",
             "tvm_ffi.from_dlpack(our tensor)", "the borrowed view of an ndarray from Rust"]
    try:
        import paddle
        import tvm_ffi
        echo = tvm_ffi.get_global_func("testing.echo")
    except Exception as e:  # either may be missing or fail to import in many ways
        return [{"name": name, "skip": f"paddle or tvm_ffi unavailable ({e.__class__.__name__}: {e})"}
                for name in names]

    shape = (8, 8)
    array = numpy.zeros(shape, dtype=numpy.float32)
    pd = paddle.zeros(shape, dtype="float32")
    tv = tvm_ffi.from_dlpack(array)
    ours = dlpack_demo.from_dlpack(array)
    # Each side must work and give the same answer before it is timed.
    for x in (array, pd, tv):
        assert dlpack_demo.from_dlpack(x).shape == tuple(tvm_ffi.from_dlpack(x).shape) == shape
    assert type(echo(ours)) is dlpack_demo.Tensor, "echo must hand back our type"
    assert tuple(tvm_ffi.from_dlpack(ours).shape) == shape
    assert dlpack_demo.nbytes(array) == array.nbytes

    number = 20_000
    lines = [
        (names[0], lambda: dlpack_demo.from_dlpack(array), "tvm_ffi.from_dlpack(ndarray)",
         lambda: tvm_ffi.from_dlpack(array)),
        (names[1], lambda: dlpack_demo.from_dlpack(pd), "tvm_ffi.from_dlpack(paddle tensor)",
         lambda: tvm_ffi.from_dlpack(pd)),
        (names[2], lambda: dlpack_demo.from_dlpack(tv), "tvm_ffi.from_dlpack(TVM FFI tensor)",
         lambda: tvm_ffi.from_dlpack(tv)),
        (f"{names[3]}, returning our type", lambda: echo(ours), "testing.echo(ndarray)",
         lambda: echo(array)),
        (names[4], lambda: tvm_ffi.from_dlpack(ours), "tvm_ffi.from_dlpack(paddle tensor)",
         lambda: tvm_ffi.from_dlpack(pd)),
        (f"{names[5]} (dlpack_demo.nbytes)", lambda: dlpack_demo.nbytes(array),
         "dlpack_demo.from_dlpack(ndarray)", lambda: dlpack_demo.from_dlpack(array)),
    ]
    results = compared(lines, number, repeat, 1.0)
    torch_name = "dlpack_demo.from_dlpack(torch tensor)"
    try:
        import torch
    except Exception as e:  # torch is optional (scripts/python-tests.sh --with-torch installs it)
        return results + [{"name": torch_name, "skip": f"torch unavailable ({e.__class__.__name__}: {e})"}]
    tt = torch.zeros(shape, dtype=torch.float32)
    assert dlpack_demo.from_dlpack(tt).shape == tuple(tvm_ffi.from_dlpack(tt).shape) == shape
    return results + compared([(torch_name, lambda: dlpack_demo.from_dlpack(tt),
                                "tvm_ffi.from_dlpack(torch tensor)", lambda: tvm_ffi.from_dlpack(tt))],
                              number, repeat, 1.0)


def framework_lines(repeat):
    """A result handed back in the caller's library by `Framework` (`dlpack_demo.negated(x)`)
    against the same kernel returning this crate's tensor, converted by hand in Python
    (`numpy.from_dlpack(dlpack_demo.negated_rust(x))`), for a NumPy array, a PyTorch tensor
    and a JAX array of 8 float32s: both hand the result over without a copy, so the line is
    what finding the library and calling its `from_dlpack` from Rust costs beside calling it
    from Python. Target <= 1.2x; PyTorch and JAX are skipped with the reason when absent."""
    import numpy
    import dlpack_demo

    def by_hand(from_dlpack):
        return lambda x: from_dlpack(dlpack_demo.negated_rust(x))

    # (label, peer, make x, the library's from_dlpack, calls a round): JAX's from_dlpack takes
    # tens of microseconds, so its rounds are shorter.
    libraries = [("ndarray", "numpy.from_dlpack", lambda: numpy.ones(8, dtype=numpy.float32),
                  lambda: numpy.from_dlpack, 50_000)]
    results = []
    for label, module, number in (("torch tensor", "torch", 50_000),
                                  ("jax array", "jax.numpy", 1_000)):
        try:
            library = __import__(module, fromlist=["from_dlpack"])
        except Exception as e:  # either is optional here, and may fail to import in many ways
            name = f"result in the caller's library ({label}, dlpack_demo.negated)"
            results.append({"name": name,
                            "skip": f"{module} does not import ({e.__class__.__name__}: {e})"})
            continue
        libraries.append((label, f"{module}.from_dlpack",
                          lambda library=library: library.ones(8, dtype=library.float32),
                          lambda library=library: library.from_dlpack, number))
    lines = []
    for label, peer, make, from_dlpack, number in libraries:
        x, hand = make(), by_hand(from_dlpack())
        # Both sides must give the same library's array with the same values before they
        # are timed.
        ours, theirs = dlpack_demo.negated(x), hand(x)
        assert type(ours) is type(theirs) is type(x), (type(ours), type(theirs), type(x))
        assert numpy.asarray(ours).tolist() == numpy.asarray(theirs).tolist() == [-1.0] * 8
        lines += compared([(f"result in the caller's library ({label}, dlpack_demo.negated)",
                            lambda x=x: dlpack_demo.negated(x),
                            f"{peer}(negated_rust(x)) by hand",
                            lambda x=x, hand=hand: hand(x))], number, repeat, 1.2)
    return lines + results


def typed_lines(repeat):
    """Typed tensor arguments against `with_tensor_view` and against rust-numpy (see the
    module docstring)."""
    import numpy
    import dlpack_demo

    results = []
    array = numpy.zeros((8, 8), dtype=numpy.float32)
    objects = [("ndarray", array), ("our tensor", dlpack_demo.from_dlpack(array))]
    try:
        import paddle
        objects.insert(1, ("paddle tensor", paddle.zeros((8, 8), dtype="float32")))
    except Exception as e:  # paddle is optional here
        results.append({"name": "typed argument vs with_tensor_view (paddle tensor)",
                        "skip": f"paddle does not import ({e.__class__.__name__}: {e})"})
    for label, x in objects:
        assert dlpack_demo.nbytes(x) == dlpack_demo.nbytes_of_view(x) == 256
        results += compared([(f"typed argument vs with_tensor_view ({label}, dlpack_demo.nbytes)",
                              lambda: dlpack_demo.nbytes(x),
                              "with_tensor_view (nbytes_of_view)",
                              lambda: dlpack_demo.nbytes_of_view(x))],
                            50_000, repeat, 1.05)
    name = "typed f32 vector argument vs rust-numpy PyReadonlyArray1<f32> (ndarray)"
    try:
        import dlpack_numpy_peer as peer
    except ImportError as e:
        results.append({"name": name, "skip": f"dlpack_numpy_peer is not built ({e}; "
                        "benches/python/numpy_peer, which scripts/bench-report.sh builds)"})
        return results
    vector = numpy.zeros(64, dtype=numpy.float32)
    assert peer.typed_len(vector) == peer.numpy_len(vector) == peer.view_len(vector) == 64
    results += compared([(name, lambda: peer.typed_len(vector),
                          "rust-numpy PyReadonlyArray1<f32>", lambda: peer.numpy_len(vector))],
                        50_000, repeat, 1.5)
    # The borrow table's cost beside rust-numpy's, on the smallest arrays a kernel is called
    # with: both crates register the argument before the body and release it after.
    small = numpy.zeros(8, dtype=numpy.float32)
    assert peer.typed_len(small) == peer.numpy_len(small) == 8
    assert peer.typed_write(small) == peer.numpy_write(small) == 8 and small[0] == 1.0
    # Inputs users pass as often: a read-only array (a memory map, a view of bytes) and an
    # axis of extent 1 (`x[:, None]`).
    frozen = numpy.zeros(8, dtype=numpy.float32)
    frozen.flags.writeable = False
    column = numpy.zeros(8, dtype=numpy.float32)[:, None]
    assert peer.typed_len(frozen) == peer.numpy_len(frozen) == 8
    assert peer.typed_len2(column) == peer.numpy_len2(column) == 8
    results += compared([
        ("typed f32 vector argument vs rust-numpy PyReadonlyArray1<f32> (8 elements)",
         lambda: peer.typed_len(small), "rust-numpy PyReadonlyArray1<f32>",
         lambda: peer.numpy_len(small)),
        ("the same, a read-only array (8 elements)",
         lambda: peer.typed_len(frozen), "rust-numpy PyReadonlyArray1<f32>",
         lambda: peer.numpy_len(frozen)),
        ("typed f32 matrix argument vs rust-numpy PyReadonlyArray2<f32>, shape (8, 1)",
         lambda: peer.typed_len2(column), "rust-numpy PyReadonlyArray2<f32>",
         lambda: peer.numpy_len2(column)),
        ("writable typed f32 vector argument vs rust-numpy PyReadwriteArray1<f32> (8 elements)",
         lambda: peer.typed_write(small), "rust-numpy PyReadwriteArray1<f32>",
         lambda: peer.numpy_write(small)),
    ], 50_000, repeat, 1.5)
    results += compared([("typed f32 vector argument vs with_tensor_view and checks by hand (ndarray)",
                          lambda: peer.typed_len(vector),
                          "with_tensor_view", lambda: peer.view_len(vector))],
                        50_000, repeat, 1.05)
    return results


def generated_lines(repeat):
    """`#[pymethods]`'s protocol methods against hand-written ones of the same shape (a frozen
    class, a method returning a tuple of ints), called the same way."""
    import dlpack_demo

    generated_dtype = dlpack_demo.float16
    hand_dtype = dlpack_demo.dlpack.DataType("float16")
    generated_device = dlpack_demo.Device("cuda:1")
    hand_device = dlpack_demo.dlpack.Device("cuda:1")
    # Both must work and agree before they are timed.
    assert generated_dtype.__dlpack_data_type__() == hand_dtype.__dlpack_data_type__() == (2, 16, 1)
    assert generated_device.__dlpack_device__() == hand_device.__dlpack_device__() == (2, 1)
    lines = [
        ("generated __dlpack_data_type__() (dlpack_demo.float16)",
         lambda: generated_dtype.__dlpack_data_type__(),
         "hand-written (dlpack_demo.dlpack.DataType)", lambda: hand_dtype.__dlpack_data_type__()),
        ("generated __dlpack_device__() (dlpack_demo.Device)",
         lambda: generated_device.__dlpack_device__(),
         "hand-written (dlpack_demo.dlpack.Device)", lambda: hand_device.__dlpack_device__()),
    ]
    return compared(lines, 100_000, repeat, 1.05)


def pure_python_lines(repeat):
    """`#[pymethods]`'s protocol methods against a pure-Python method returning a constant
    tuple (the tuple is a constant of the code object: no allocation), called the same way."""
    import dlpack_demo

    class PyDType:
        def __dlpack_data_type__(self):
            return (2, 16, 1)

    class PyDevice:
        def __dlpack_device__(self):
            return (2, 1)

    generated_dtype, python_dtype = dlpack_demo.float16, PyDType()
    generated_device, python_device = dlpack_demo.Device("cuda:1"), PyDevice()
    assert generated_dtype.__dlpack_data_type__() == python_dtype.__dlpack_data_type__()
    assert generated_device.__dlpack_device__() == python_device.__dlpack_device__()
    lines = [
        ("generated __dlpack_data_type__() against pure Python (dlpack_demo.float16)",
         lambda: generated_dtype.__dlpack_data_type__(),
         "a Python method returning (2, 16, 1)", lambda: python_dtype.__dlpack_data_type__()),
        ("generated __dlpack_device__() against pure Python (dlpack_demo.Device)",
         lambda: generated_device.__dlpack_device__(),
         "a Python method returning (2, 1)", lambda: python_device.__dlpack_device__()),
    ]
    return compared(lines, 100_000, repeat, 1.0)


def from_dlpack_name_lines(repeat):
    """The RFC's `from_dlpack` of a name against the constructor of the class it dispatches
    to, given the same name: the dispatch's own cost (its arguments, the reading of the name
    as a data type first)."""
    import dlpack_demo

    assert dlpack_demo.from_dlpack("cuda:1") == dlpack_demo.Device("cuda:1")
    assert dlpack_demo.from_dlpack("float16") == dlpack_demo.DType("float16")
    lines = [
        ('dlpack_demo.from_dlpack("cuda:1")', lambda: dlpack_demo.from_dlpack("cuda:1"),
         'dlpack_demo.Device("cuda:1")', lambda: dlpack_demo.Device("cuda:1")),
        ('dlpack_demo.from_dlpack("float16")', lambda: dlpack_demo.from_dlpack("float16"),
         'dlpack_demo.DType("float16")', lambda: dlpack_demo.DType("float16")),
    ]
    return compared(lines, 50_000, repeat, 2.0)


if __name__ == "__main__":
    main()
