"""Typed tensor arguments (`dlpack_core::python::TensorArg`) against every peer: what each
form checks before the function body runs, the TypeError that names the function, the
argument, what was expected and what was given, and that nothing is copied or leaked.

`dlpack_demo.sum(x)` takes a float32 or float64 tensor (`TensorArg<'_, Real>`, its kernel
dispatched on the dtype), `nbytes(x)` any tensor on any device, `row_sums(x)` a compact
float32 matrix, `scale(x, by)` a writable float tensor, `total_detached(x)` a float64 vector
held owned and read without the GIL.
"""

import re
import sys

import pytest

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
np = pytest.importorskip("numpy")


def message(function, argument, expected, given):
    """The whole message, as a regular expression matched from start to end (pytest matches
    the notes too, where PyO3 adds "while processing 'x'" from Python 3.11 on)."""
    text = f"{function}(): argument '{argument}' must be {expected}, got {given}"
    return "^" + re.escape(text) + f"(\nwhile processing '{argument}')?$"


# One constructor per peer: a float32 vector [1, 2, 3], a float64 one, an int32 one, and the
# name Python gives the class in messages.
def peers():
    made = [("numpy", lambda a: np.asarray(a), "numpy.ndarray")]
    try:
        import torch
        made.append(("torch", lambda a: torch.from_numpy(np.ascontiguousarray(a)), "torch.Tensor"))
    except ImportError:
        pass
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        made.append(("jax", lambda a: jnp.asarray(a), None))
    except ImportError:
        pass
    try:
        import paddle
        made.append(("paddle", lambda a: paddle.to_tensor(a), "paddle.Tensor"))
    except ImportError:
        pass
    try:
        import tvm_ffi
        made.append(("tvm_ffi", lambda a: tvm_ffi.from_dlpack(np.asarray(a)), None))
    except ImportError:
        pass
    made.append(("dlpack_demo", lambda a: dlpack_demo.from_dlpack(np.asarray(a)), "dlpack_demo.Tensor"))
    return made


PEERS = peers()


@pytest.mark.parametrize("name,make,class_name", PEERS, ids=[p[0] for p in PEERS])
def test_every_peer_is_taken_without_a_copy(name, make, class_name):
    floats = make(np.array([1.0, 2.0, 3.5], dtype=np.float32))
    assert dlpack_demo.sum(floats) == 6.5
    doubles = make(np.arange(6, dtype=np.float64).reshape(2, 3))
    assert dlpack_demo.sum(doubles) == 15.0
    assert dlpack_demo.nbytes(doubles) == 48
    assert dlpack_demo.row_sums(make(np.ones((2, 3), dtype=np.float32))) == [3.0, 3.0]


@pytest.mark.parametrize("name,make,class_name", PEERS, ids=[p[0] for p in PEERS])
def test_a_mismatch_names_the_function_the_argument_and_both_sides(name, make, class_name):
    given_class = class_name or re.escape(type(make(np.zeros(1, np.float32))).__module__)
    ints = make(np.arange(3, dtype=np.int32))
    cls = class_name or f"{type(ints).__module__}.{type(ints).__qualname__}"
    with pytest.raises(TypeError) as err:
        dlpack_demo.sum(ints)
    assert str(err.value) == (
        f"sum(): argument 'x' must be a float32 or float64 tensor on cpu, got an int32 {cls} "
        "with shape (3,)"
    )
    vector = make(np.zeros(3, dtype=np.float64))
    with pytest.raises(TypeError) as err:
        dlpack_demo.row_sums(vector)
    assert str(err.value) == (
        "row_sums(): argument 'x' must be a compact float32 tensor with 2 dimensions on cpu, "
        f"got a float64 {cls} with shape (3,)"
    )
    assert given_class


def test_the_issue_example_against_numpy():
    with pytest.raises(TypeError, match=message(
            "row_sums", "x", "a compact float32 tensor with 2 dimensions on cpu",
            "a float64 numpy.ndarray with shape (3,)")):
        dlpack_demo.row_sums(np.zeros(3))


def test_what_is_no_tensor_is_named_by_its_class():
    with pytest.raises(TypeError, match=message(
            "sum", "x", "a float32 or float64 tensor on cpu", "a list")):
        dlpack_demo.sum([1.0, 2.0])
    with pytest.raises(TypeError, match="got an int(\nwhile processing 'x')?$"):
        dlpack_demo.nbytes(3)


def test_compact_refuses_other_strides_and_says_so():
    a = np.ones((4, 4), dtype=np.float32)[:, ::2]
    with pytest.raises(TypeError, match="got a non-compact float32 numpy.ndarray with shape \\(4, 2\\)(\n|$)"):
        dlpack_demo.row_sums(a)
    # The strided form reads any strides.
    assert dlpack_demo.sum(a) == 8.0


def test_read_write_writes_in_place_and_refuses_read_only():
    a = np.arange(4, dtype=np.float64)
    dlpack_demo.scale(a, 2.0)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0]
    b = np.arange(4, dtype=np.float32)[::2]
    dlpack_demo.scale(b, -1.0)
    assert b.tolist() == [-0.0, -2.0]
    frozen = np.arange(3, dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match=message(
            "scale", "x", "a writable float32 or float64 tensor on cpu",
            "a read-only float32 numpy.ndarray with shape (3,)")):
        dlpack_demo.scale(frozen, 2.0)
    assert frozen.tolist() == [0.0, 1.0, 2.0]


def test_read_write_against_torch():
    torch = pytest.importorskip("torch")
    t = torch.arange(3, dtype=torch.float32)
    dlpack_demo.scale(t, 3.0)
    assert t.tolist() == [0.0, 3.0, 6.0]


def test_owned_reads_without_the_gil():
    assert dlpack_demo.total_detached(np.arange(5, dtype=np.float64)) == 10.0
    with pytest.raises(TypeError, match=message(
            "total_detached", "x", "a float64 tensor with 1 dimension on cpu",
            "a float64 numpy.ndarray with shape (2, 2)")):
        dlpack_demo.total_detached(np.zeros((2, 2)))


def test_nbytes_takes_any_dtype_and_device():
    assert dlpack_demo.nbytes(dlpack_demo.empty((5,), "float4_e2m1fn")) == 3
    assert dlpack_demo.nbytes(np.zeros((2, 2), dtype=np.int8)) == 4


def test_paddle_and_jax_messages():
    paddle = pytest.importorskip("paddle")
    with pytest.raises(TypeError, match=message(
            "sum", "x", "a float32 or float64 tensor on cpu",
            "an int64 paddle.Tensor with shape (2,)")):
        dlpack_demo.sum(paddle.to_tensor(np.array([1, 2], dtype=np.int64)))
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.zeros((2,), dtype=jnp.int32)
    cls = f"{type(x).__module__}.{type(x).__qualname__}"
    with pytest.raises(TypeError, match=message(
            "sum", "x", "a float32 or float64 tensor on cpu", f"an int32 {cls} with shape (2,)")):
        dlpack_demo.sum(x)


def test_torch_message():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=message(
            "row_sums", "x", "a compact float32 tensor with 2 dimensions on cpu",
            "a float64 torch.Tensor with shape (3,)")):
        dlpack_demo.row_sums(torch.zeros(3, dtype=torch.float64))


def test_nothing_leaks_when_extraction_fails():
    a = np.zeros(3)
    for _ in range(1000):
        with pytest.raises(TypeError):
            dlpack_demo.row_sums(a)
        with pytest.raises(TypeError):
            dlpack_demo.total_detached(np.zeros((1, 1)))
    # The fixture checks that every live count is back where it was; NumPy's own refcount
    # of the array is back too.
    import sys
    assert sys.getrefcount(a) <= 3


# NumPy arrays through the buffer protocol. A `numpy.ndarray` itself is read through its buffer
# (dlpack-core's python/import/buffer.rs) by every form but `Owned`, and by `with_tensor_view`;
# what the buffer cannot describe exactly goes through `__dlpack__`. `arg_meta(x, form)` gives
# what an argument of that form sees (dtype, shape, strides, flags, address of the first
# element, byte range) and whether it holds an import; a capsule from `__dlpack__` is imported
# as it is, so `arg_meta(capsule)` is what the `__dlpack__` path sees of the same array.

# The dtypes DLPack names that NumPy has, by NumPy's names and by the C types' characters
# (`l` is int64 on 64-bit Unix and int32 on Windows; `q` is a distinct dtype of its own).
NUMPY_DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                "float16", "float32", "float64", "complex64", "complex128",
                "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "p", "P"]


def dlpack_seen(a):
    """What the `__dlpack__` path sees of `a` (and that it imported it)."""
    meta, imported = dlpack_demo.arg_meta(a.__dlpack__(max_version=(1, 3)))
    assert imported
    return meta


def layouts(dtype):
    """One array of `dtype` per layout a buffer can describe."""
    base = np.arange(24).astype(dtype).reshape(2, 3, 4)
    itemsize = base.itemsize
    yield "compact", base
    yield "0-d", np.array(5).astype(dtype)
    yield "empty", np.zeros((0, 3), dtype)
    yield "transposed", base.T
    yield "negative strides", base[::-1, :, ::-2]
    yield "a column", base[:, 1:2, 1:]
    yield "a new axis", base[:, None]
    yield "one element", np.ones(1, dtype)
    yield "broadcast", np.lib.stride_tricks.as_strided(base[0, 0], (4, 4), (0, itemsize))
    # Not aligned: NumPy writes the format with `=` (standard sizes).
    yield "unaligned", np.frombuffer(bytearray(8 * itemsize + 1), dtype, offset=1)


def addressing(meta):
    """What metadata says of the memory it addresses: the data type, shape, flags, the address
    of the first element, the byte range, and the strides of the axes of two or more elements
    (of an array that has elements). NumPy's buffer works out the strides of a contiguous
    array where `__dlpack__` gives the array's own: they may differ on an axis of extent 1,
    and in an array with no elements, where they address nothing."""
    dtype, shape, strides, flags, first, byte_range = meta
    empty = 0 in shape
    kept = [None if empty or extent <= 1 else stride for extent, stride in zip(shape, strides)]
    return dtype, shape, kept, flags, None if empty else first, byte_range


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_arrays_are_read_through_their_buffer_as_dlpack_describes_them(dtype):
    for layout, a in layouts(dtype):
        expected = dlpack_seen(a)
        for form in ("read", "write"):
            meta, imported = dlpack_demo.arg_meta(a, form)
            assert not imported, (layout, form)
            assert addressing(meta) == addressing(expected), (layout, form)
            if all(extent > 1 for extent in a.shape):
                assert meta == expected, (layout, form)
        assert addressing(dlpack_demo.view_meta(a)) == addressing(expected), layout
        # `Owned` hands its tensor over and may release it on any thread: `__dlpack__`.
        assert dlpack_demo.arg_meta(a, "owned") == (expected, True), layout


def test_axes_of_extent_0_or_1_differ_only_where_they_address_nothing():
    # `x[:, None]` has stride 0 on the new axis; NumPy's buffer works it out (and some NumPy
    # releases' `__dlpack__` does too): the address of every element is the same either way.
    column = np.zeros(3, np.float32)[:, None]
    meta, imported = dlpack_demo.arg_meta(column)
    assert not imported and meta[2] == [1, 1]
    assert addressing(meta) == addressing(dlpack_seen(column))
    # The kernels see the same elements either way.
    assert dlpack_demo.row_sums(np.arange(3, dtype=np.float32)[:, None]) == [0.0, 1.0, 2.0]
    assert dlpack_demo.row_sums(np.zeros((0, 3), np.float32)) == []


def test_the_first_array_of_a_process_is_read_through_its_buffer():
    """The classifier meets `numpy.ndarray` on the first call, which takes the buffer already
    (in a process of its own: this one has met the class)."""
    import subprocess

    def first_call(code):
        prelude = "import numpy, dlpack_demo; a = numpy.arange(3.0)\n"
        return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True,
                              text=True, check=True).stdout.strip()

    assert first_call("print(dlpack_demo.arg_meta(a)[1])") == "False"
    assert first_call("v = dlpack_demo.view_meta(a)\n"
                      "print(v == dlpack_demo.arg_meta(a.__dlpack__(max_version=(1, 3)))[0])"
                      ) == "True"


def test_the_dtype_cache_keeps_every_answer():
    """The data type a dtype's buffer format maps to is remembered per dtype object, and the
    next array of it is asked for without the format: the first array of a new dtype object
    (one with metadata is new each time) and the next ones, aligned or not, give the same
    metadata as `__dlpack__`, and what goes through `__dlpack__` still does."""
    for dtype in ("f4", "i8", "?", "c16", ">f4", "M8[s]"):
        dt = np.dtype(dtype, metadata={"fresh": object()})
        for a in (np.arange(6).astype(dt).reshape(2, 3), np.arange(4).astype(dt),
                  np.frombuffer(bytearray(4 * dt.itemsize + 1), dt, offset=1)):
            for _ in range(2):
                if dt.kind in "biufc" and dt.isnative:
                    assert dlpack_demo.arg_meta(a) == (dlpack_seen(a), False), dtype
                else:
                    same_as_dlpack(a)
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for _ in range(3):
        same_as_dlpack(np.zeros(3, dtype=ml_dtypes.bfloat16))


def test_writable_arrays_are_written_through_their_buffer():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::-2]
    assert dlpack_demo.arg_meta(a, "write")[1] is False
    dlpack_demo.scale(a, 10.0)
    assert a.tolist() == [[20.0, 0.0], [50.0, 30.0]]


def same_as_dlpack(a, form="read"):
    """`a` goes through `__dlpack__`: the argument imports it, or refuses it with the very error
    NumPy's `__dlpack__` raises."""
    try:
        capsule = a.__dlpack__(max_version=(1, 3))
    except Exception as e:
        with pytest.raises(type(e)) as ours:
            dlpack_demo.arg_meta(a, form)
        assert str(ours.value) == str(e)
        with pytest.raises(type(e)) as ours:
            dlpack_demo.view_meta(a)
        assert str(ours.value) == str(e)
        return
    assert dlpack_demo.arg_meta(a, form) == (dlpack_demo.arg_meta(capsule)[0], True)


def test_what_a_buffer_cannot_describe_exactly_goes_through_dlpack():
    raw = np.zeros(4, dtype="i1,f4")
    arrays = {
        "byte-swapped": np.arange(3, dtype=">f4"),
        "strides not a multiple of the item size": raw["f1"],
        "long double": np.zeros(3, dtype=np.longdouble),
        "structured": raw,
        "datetime": np.zeros(3, dtype="M8[s]"),
        "strings": np.zeros(3, dtype="U2"),
        "objects": np.array([1, "a"], dtype=object),
        "void": np.zeros(3, dtype="V2"),
    }
    for name, a in arrays.items():
        same_as_dlpack(a)
        same_as_dlpack(a, "write")


def test_ml_dtypes_arrays_go_through_dlpack():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for dtype in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.int4):
        a = np.zeros((2, 3), dtype=dtype)
        same_as_dlpack(a)


def test_read_only_arrays_are_read_through_their_buffer_and_keep_its_flags():
    frozen = np.arange(3, dtype=np.float32)
    frozen.flags.writeable = False
    meta, imported = dlpack_demo.arg_meta(frozen)
    assert not imported and meta == dlpack_seen(frozen) and meta[3] == 1  # READ_ONLY
    assert dlpack_demo.view_meta(frozen) == meta
    # A view of bytes, and a read-only memory map: common inputs, read in place.
    for a in (np.frombuffer(bytes(16), np.float32), np.frombuffer(bytes(16), np.float32)[::2]):
        meta, imported = dlpack_demo.arg_meta(a)
        assert not imported and meta == dlpack_seen(a) and meta[3] == 1
    # A writable argument asks `__dlpack__`, and is refused as read-only.
    with pytest.raises(TypeError, match="must be a writable float32 or float64 tensor.*got a read-only"):
        dlpack_demo.scale(frozen, 2.0)


def test_arrays_numpy_warns_about_writing_are_read_only_to_readers_and_writable_to_writers():
    # Writeable arrays NumPy warns about writing (`numpy.broadcast_arrays`): a read-only
    # buffer, a writable DLPack tensor. A reader sees them read-only, as NumPy's buffer says
    # (NumPy's next releases make them so); a writer asks `__dlpack__`, which takes them.
    # Neither makes NumPy warn.
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        broadcast = np.broadcast_arrays(np.zeros(3), np.zeros((2, 3)))[0]
        meta, imported = dlpack_demo.arg_meta(broadcast)
        assert not imported and meta[3] == 1
        assert dlpack_demo.view_meta(broadcast) == meta
        meta, imported = dlpack_demo.arg_meta(broadcast, "write")
        assert imported and meta[3] == 0


def test_subclasses_go_through_their_own_dlpack():
    class Sub(np.ndarray):
        calls = 0

        def __dlpack__(self, **kwargs):
            type(self).calls += 1
            return np.asarray(self).__dlpack__(**kwargs)

    a = np.arange(4, dtype=np.float64).view(Sub)
    assert dlpack_demo.sum(a) == 6.0
    assert dlpack_demo.arg_meta(a)[1] is True
    assert dlpack_demo.view_meta(a)[1] == [4]
    assert Sub.calls == 3
    memmap_like = np.arange(3.0).view(np.matrix)
    assert dlpack_demo.arg_meta(memmap_like)[1] is True


def test_the_buffer_is_released_on_every_path():
    import gc
    import resource
    a = np.zeros((2, 3))
    ints = np.zeros(3, dtype=np.int32)
    before = sys.getrefcount(a), sys.getrefcount(ints)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(20_000):
        assert dlpack_demo.nbytes(a) == 48
        assert dlpack_demo.view_meta(a)[1] == [2, 3]
        # Read through the buffer, then refused: the dtype, the rank, the layout.
        with pytest.raises(TypeError):
            dlpack_demo.sum(ints)
        with pytest.raises(TypeError):
            dlpack_demo.row_sums(a)
        with pytest.raises(TypeError):
            dlpack_demo.total_detached(a)
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(ints)) == before
    # Four calls an iteration read the buffer: a buffer's Rust side (about 600 bytes) left
    # behind by each would add some 48 MB.
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
    assert grown_kb < 6_000, f"{grown_kb} kB more"
