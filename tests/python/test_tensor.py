"""Tensors across the boundary with NumPy: our producer, our consumer, both capsule ABIs,
version negotiation, copies, devices, streams, read-only data and consumption rules."""

import gc

import pytest

import capsules
from conftest import live_delta

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
from dlpack_demo import DType  # noqa: E402 (after the skip of a run without it)

np = pytest.importorskip("numpy")

# Every numpy dtype DLPack covers, and our name for it.
NUMPY_DTYPES = {
    np.bool_: "bool",
    np.int8: "int8",
    np.int16: "int16",
    np.int32: "int32",
    np.int64: "int64",
    np.uint8: "uint8",
    np.uint16: "uint16",
    np.uint32: "uint32",
    np.uint64: "uint64",
    np.float16: "float16",
    np.float32: "float32",
    np.float64: "float64",
    np.complex64: "complex64",
    np.complex128: "complex128",
}


def sample(np_dtype, shape=(2, 3)):
    count = int(np.prod(shape))
    if np_dtype is np.bool_:
        values = np.arange(count) % 3 == 1
    elif np.issubdtype(np_dtype, np.complexfloating):
        values = np.arange(count) + 1j * np.arange(count)[::-1]
    elif np.issubdtype(np_dtype, np.signedinteger):
        values = np.arange(count) - count // 2
    else:
        values = np.arange(count) * (1.5 if np.issubdtype(np_dtype, np.floating) else 1)
    return values.astype(np_dtype).reshape(shape)


# --- our producer, numpy's consumer ----------------------------------------------------------


def test_numpy_reads_our_tensor_without_a_copy():
    t = dlpack_demo.arange(6, dtype="float32")
    a = np.from_dlpack(t)
    assert a.dtype == np.float32 and a.shape == (6,)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    a[2] = 42.0  # numpy writes into our memory ...
    assert t.tolist()[2] == 42.0
    t.fill(7)  # ... and we write into the memory numpy sees.
    assert a.tolist() == [7.0] * 6


@pytest.mark.parametrize("np_dtype, name", NUMPY_DTYPES.items())
def test_numpy_reads_every_dtype_of_ours(np_dtype, name):
    t = dlpack_demo.arange(6, dtype=name)
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(np_dtype)
    assert a.tolist() == t.tolist() == np.arange(6).astype(np_dtype).tolist()


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 1, 4), (1, 2, 1, 2, 1)])
def test_shapes(shape):
    t = dlpack_demo.empty(shape, dtype=DType.int16)
    a = np.from_dlpack(t)
    assert a.shape == shape and t.shape == shape
    a[...] = 3
    assert np.array_equal(np.array(t.tolist(), dtype=np.int16), np.full(shape, 3, np.int16))


def test_numpy_keeps_our_memory_alive():
    before = dlpack_demo.live()
    t = dlpack_demo.arange(4, dtype="int32")
    a = np.from_dlpack(t)
    del t
    gc.collect()
    # Our tensor is gone; its buffer lives on in NumPy's array, through the export.
    assert live_delta(before) == {"exports": 1, "buffers": 1}
    assert a.tolist() == [0, 1, 2, 3]
    del a
    gc.collect()
    assert live_delta(before) == {}


# --- numpy's producer, our consumer ----------------------------------------------------------


@pytest.mark.parametrize("np_dtype, name", NUMPY_DTYPES.items())
def test_we_read_every_numpy_dtype_without_a_copy(np_dtype, name):
    a = sample(np_dtype)
    before = dlpack_demo.live()
    t = dlpack_demo.from_dlpack(a)
    assert str(t.dtype) == name
    assert t.shape == a.shape and t.strides == tuple(s // a.itemsize for s in a.strides)
    assert t.tolist() == a.tolist()
    assert dlpack_demo.dtype_of(a) == getattr(DType, name)
    a[0, 0] = a[1, 2]  # numpy writes; we see it
    assert t.tolist() == a.tolist()
    assert live_delta(before) == {"imports": 1, "tensors": 1}
    del t
    gc.collect()
    assert live_delta(before) == {}


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[:, ::-1],  # negative strides
        lambda a: a.T,  # transposed
        lambda a: a[::2, 1:],  # sliced, with a byte offset
        lambda a: np.broadcast_to(a[0], (4, 3)),  # zero strides, read-only
    ],
)
def test_strided_numpy_views(view):
    v = view(np.arange(12, dtype=np.float64).reshape(4, 3))
    t = dlpack_demo.from_dlpack(v)
    assert t.tolist() == v.tolist()
    assert t.readonly == (not v.flags.writeable)
    # Re-exported to numpy, with the same strides and the same memory.
    back = np.from_dlpack(t)
    assert back.tolist() == v.tolist() and back.strides == v.strides
    assert np.shares_memory(back, v)


def test_numpy_refuses_what_dlpack_cannot_say():
    big_endian = np.arange(3, dtype=">i4")
    with pytest.raises(BufferError):
        dlpack_demo.from_dlpack(big_endian)


# --- both capsule ABIs, and version negotiation -----------------------------------------------


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        ({}, "dltensor"),
        ({"max_version": None}, "dltensor"),
        ({"max_version": (0, 8)}, "dltensor"),
        ({"max_version": (1, 0)}, "dltensor_versioned"),
        ({"max_version": (1, 3)}, "dltensor_versioned"),
        ({"max_version": (2, 0)}, "dltensor_versioned"),
    ],
)
def test_max_version_negotiation(kwargs, expected):
    t = dlpack_demo.arange(3, dtype="int64")
    capsule = t.__dlpack__(**kwargs)
    assert capsules.name(capsule) == expected
    if expected == "dltensor_versioned":
        major, minor, flags = capsules.versioned_head(capsule)
        assert (major, minor, flags) == (1, 3, 0)
    # Both ABIs are consumed (and renamed) by our consumer.
    back = dlpack_demo.from_dlpack(capsule)
    assert capsules.name(capsule) == "used_" + expected
    assert back.tolist() == [0, 1, 2]


@pytest.mark.parametrize("kwargs", [{}, {"max_version": (1, 0)}])
def test_we_consume_both_numpy_abis(kwargs):
    a = np.arange(4, dtype=np.uint8)
    capsule = a.__dlpack__(**kwargs)
    t = dlpack_demo.from_dlpack(capsule)
    assert capsules.name(capsule).startswith("used_dltensor")
    a[0] = 9
    assert t.tolist() == [9, 1, 2, 3]


@pytest.mark.parametrize(
    "max_version, error, message",
    [
        ([1, 0], TypeError, r"max_version=\[1, 0\], a list; expected a tuple \(major, minor\)"),
        ((1,), ValueError, r"a tuple of 1 items; expected 2 items"),
        (("1", 0), TypeError, r"item 0 is a str"),
        ((-1, 0), ValueError, r"major version -1 is out of range"),
        ((1, 2**32), ValueError, r"minor version 4294967296 is out of range"),
    ],
)
def test_malformed_max_version(max_version, error, message):
    t = dlpack_demo.arange(2, dtype="int8")
    with pytest.raises(error, match=message):
        t.__dlpack__(max_version=max_version)


class LegacyProducer:
    """A producer from before DLPack 1.0: `__dlpack__` takes only `stream`."""

    def __init__(self, array):
        self.array = array
        self.calls = []

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_legacy_producer_fallback():
    a = np.arange(3, dtype=np.int32)
    producer = LegacyProducer(a)
    t = dlpack_demo.from_dlpack(producer)
    assert producer.calls == [None], "one failed versioned call, then the legacy call"
    a[1] = -5
    assert t.tolist() == [0, -5, 2]


def test_legacy_producer_with_copy_is_copied_here():
    a = np.arange(3, dtype=np.int32)
    t = dlpack_demo.from_dlpack(LegacyProducer(a), copy=True)
    a[1] = -5
    assert t.tolist() == [0, 1, 2], "copy=True must not share memory"


def test_producer_errors_other_than_type_errors_propagate():
    class Failing:
        def __dlpack__(self, **kwargs):
            raise BufferError("cannot export this one")

    with pytest.raises(BufferError, match="cannot export this one"):
        dlpack_demo.from_dlpack(Failing())


def test_producer_returning_something_else():
    class Wrong:
        def __dlpack__(self, **kwargs):
            return [1, 2, 3]

    with pytest.raises(TypeError, match=r"Wrong.__dlpack__\(\) returned a list, not a capsule"):
        dlpack_demo.from_dlpack(Wrong())


# --- copy=True / copy=False -----------------------------------------------------------------


def test_copy_true_on_export():
    t = dlpack_demo.arange(3, dtype="float64")
    capsule = t.__dlpack__(max_version=(1, 0), copy=True)
    assert capsules.versioned_head(capsule)[2] == capsules.IS_COPIED
    del capsule
    a = np.from_dlpack(t, copy=True)
    a[0] = 100.0
    assert t.tolist()[0] == 0.0
    b = np.from_dlpack(t, copy=False)
    b[0] = 100.0
    assert t.tolist()[0] == 100.0


def test_copy_on_import():
    a = np.arange(3, dtype=np.float32)
    copied = dlpack_demo.from_dlpack(a, copy=True)
    shared = dlpack_demo.from_dlpack(a, copy=False)
    a[0] = 9.0
    assert copied.tolist()[0] == 0.0
    assert shared.tolist()[0] == 9.0


def test_copy_true_of_a_strided_view():
    v = np.arange(6, dtype=np.int16).reshape(2, 3)[:, ::-1]
    t = dlpack_demo.from_dlpack(LegacyProducer(v), copy=True)
    assert t.tolist() == v.tolist()
    assert t.strides == (3, 1), "a copy is compact"


# --- devices and streams ----------------------------------------------------------------------


@pytest.mark.parametrize("dl_device", [(2, 0), (3, 0), (10, 1)])
@pytest.mark.parametrize("copy", [None, True, False])
def test_unsupported_dl_device(dl_device, copy):
    t = dlpack_demo.arange(2, dtype="int32")
    with pytest.raises(BufferError, match=r"cannot export a tensor on cpu to"):
        t.__dlpack__(max_version=(1, 0), dl_device=dl_device, copy=copy)


def test_cpu_dl_device_is_served():
    t = dlpack_demo.arange(2, dtype="int32")
    capsule = t.__dlpack__(max_version=(1, 0), dl_device=(1, 0))
    assert capsules.versioned_head(capsule)[2] == 0
    assert np.from_dlpack(t, device="cpu").tolist() == [0, 1]


@pytest.mark.parametrize(
    "dl_device, error, message",
    [
        ([1, 0], TypeError, r"dl_device=\[1, 0\], a list"),
        ((1, -1), ValueError, r"device id -1 is out of range"),
        ((1, 2**31), ValueError, r"device id 2147483648 is out of range"),
        ((99, 0), ValueError, r"unknown"),
    ],
)
def test_malformed_dl_device(dl_device, error, message):
    t = dlpack_demo.arange(2, dtype="int32")
    with pytest.raises(error, match=message):
        t.__dlpack__(max_version=(1, 0), dl_device=dl_device)


def test_consumer_device_request():
    a = np.arange(2)
    if not hasattr(dlpack_demo, "cuda"):
        # NumPy cannot export to CUDA: a BufferError, as the standard says, from NumPy 2.4;
        # NumPy 2.2 (the newest for Python 3.10) raises ValueError, which is passed on as it is.
        numpy_2_4 = tuple(int(part) for part in np.__version__.split(".")[:2]) >= (2, 4)
        with pytest.raises(BufferError if numpy_2_4 else ValueError):
            dlpack_demo.from_dlpack(a, device="cuda:0")
    elif dlpack_demo.cuda.unavailable():
        # With the CUDA backend the consumer copies to the GPU itself: here there is none.
        with pytest.raises(RuntimeError, match="CUDA"):
            dlpack_demo.from_dlpack(a, device="cuda:0")
    else:
        assert dlpack_demo.from_dlpack(a, device="cuda:0").tolist() == [0, 1]
    assert dlpack_demo.from_dlpack(a, device="cpu").tolist() == [0, 1]


@pytest.mark.parametrize("stream", [None, -1])
def test_cpu_streams_accepted(stream):
    t = dlpack_demo.arange(2, dtype="int32")
    assert capsules.name(t.__dlpack__(stream=stream)) == "dltensor"


@pytest.mark.parametrize(
    "stream, error, message",
    [
        (1, ValueError, r"stream=1 was given for a tensor on cpu, which has no streams"),
        (2, ValueError, r"stream=2 was given for a tensor on cpu"),
        (0, ValueError, r"stream=0 was given for a tensor on cpu"),
        (-2, ValueError, r"stream=-2 is not a stream"),
        ("1", TypeError, r"stream='1' is a str; expected None or an int"),
        (True, TypeError, r"stream=True is a bool"),
    ],
)
def test_cpu_streams_refused(stream, error, message):
    t = dlpack_demo.arange(2, dtype="int32")
    with pytest.raises(error, match=message):
        t.__dlpack__(stream=stream)


def test_copy_must_be_a_bool():
    t = dlpack_demo.arange(2, dtype="int32")
    with pytest.raises(TypeError):
        t.__dlpack__(copy="yes")


def test_dlpack_device():
    t = dlpack_demo.empty((2,), dtype="int8")
    assert t.__dlpack_device__() == (1, 0)
    assert dlpack_demo.device_of(t) == dlpack_demo.Device("cpu")


# --- read-only data ----------------------------------------------------------------------------


def test_read_only_both_ways():
    a = np.arange(3, dtype=np.int64)
    a.setflags(write=False)
    t = dlpack_demo.from_dlpack(a)
    assert t.readonly
    with pytest.raises(ValueError, match="read-only"):
        t.fill(1)
    capsule = t.__dlpack__(max_version=(1, 0))
    assert capsules.versioned_head(capsule)[2] == capsules.READ_ONLY
    del capsule
    back = np.from_dlpack(t)
    assert not back.flags.writeable and np.shares_memory(back, a)


def test_read_only_to_a_legacy_consumer_is_a_copy():
    a = np.arange(3, dtype=np.int64)
    a.setflags(write=False)
    t = dlpack_demo.from_dlpack(a)
    legacy = dlpack_demo.from_dlpack(t.__dlpack__())  # the legacy ABI cannot say read-only
    assert not legacy.readonly and legacy.tolist() == [0, 1, 2]
    legacy.fill(5)
    assert a.tolist() == [0, 1, 2]
    with pytest.raises(BufferError, match="copy=False forbids one"):
        t.__dlpack__(copy=False)


# --- capsules are consumed once, and freed once ---------------------------------------------


def test_double_consumption():
    t = dlpack_demo.arange(3, dtype="int32")
    capsule = t.__dlpack__(max_version=(1, 0))
    first = dlpack_demo.from_dlpack(capsule)
    with pytest.raises(ValueError, match=r"was already consumed: a DLPack capsule can be consumed only once"):
        dlpack_demo.from_dlpack(capsule)
    assert first.tolist() == [0, 1, 2]
    numpy_capsule = np.arange(2).__dlpack__()
    dlpack_demo.from_dlpack(numpy_capsule)
    with pytest.raises(ValueError, match="already consumed"):
        dlpack_demo.from_dlpack(numpy_capsule)


def test_unconsumed_capsules_are_freed_by_their_destructor():
    t = dlpack_demo.arange(3, dtype="int32")
    before = dlpack_demo.live()
    legacy, versioned = t.__dlpack__(), t.__dlpack__(max_version=(1, 0))
    assert live_delta(before) == {"exports": 2}
    del legacy, versioned
    assert live_delta(before) == {}


def test_consumed_capsules_are_freed_by_their_consumer():
    t = dlpack_demo.arange(3, dtype="int32")
    before = dlpack_demo.live()
    capsule = t.__dlpack__(max_version=(1, 0))
    imported = dlpack_demo.from_dlpack(capsule)
    del capsule  # renamed: the destructor leaves the tensor to `imported`
    assert live_delta(before)["exports"] == 1 and imported.tolist() == [0, 1, 2]
    del imported
    gc.collect()
    assert live_delta(before) == {}


def test_other_capsules_are_refused():
    import datetime

    with pytest.raises(TypeError, match="is not a DLPack capsule"):
        dlpack_demo.from_dlpack(datetime.datetime_CAPI)


# --- our producer and our consumer together -------------------------------------------------


def test_round_trip_through_ourselves():
    t = dlpack_demo.arange(5, dtype="bfloat16")
    back = dlpack_demo.from_dlpack(t)
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    back.fill(2.5)
    assert t.tolist() == [2.5] * 5


def test_from_dlpack_dispatches_over_the_three_kinds():
    paddle = pytest.importorskip("paddle")

    assert dlpack_demo.from_dlpack(paddle.bfloat16) == DType.bfloat16
    assert dlpack_demo.from_dlpack(paddle.CPUPlace()) == dlpack_demo.Device("cpu")
    assert isinstance(dlpack_demo.from_dlpack(np.zeros(2)), dlpack_demo.Tensor)
    with pytest.raises(TypeError, match=r"from_dlpack\(\) takes a tensor"):
        dlpack_demo.from_dlpack(3)
    with pytest.raises(TypeError, match="device= and copy= are for tensors"):
        dlpack_demo.from_dlpack(paddle.float32, copy=True)


def test_demo_functions():
    t = dlpack_demo.empty((2, 2), dtype="complex64")
    assert t.tolist() == [[0j, 0j], [0j, 0j]] and (t.ndim, t.size) == (2, 4)
    assert repr(t) == "Tensor(shape=(2, 2), dtype=complex64, device=cpu)"
    assert repr(dlpack_demo.empty((3,), dtype="int8")) == "Tensor(shape=(3,), dtype=int8, device=cpu)"
    assert repr(dlpack_demo.empty((), dtype="int8")) == "Tensor(shape=(), dtype=int8, device=cpu)"
    assert dlpack_demo.arange(3, dtype="bool").tolist() == [False, True, True]
    assert dlpack_demo.empty((1,), dtype="float8_e4m3fn").tolist() == [0.0]
    if not hasattr(dlpack_demo, "cuda"):  # built with the `cuda` feature: see test_cuda.py
        with pytest.raises(ValueError, match="allocates memory on the cpu only, not on cuda:0"):
            dlpack_demo.empty((1,), dtype="float32", device="cuda:0")
    with pytest.raises(ValueError, match="allocates memory on the cpu.* only, not on rocm:0"):
        dlpack_demo.empty((1,), dtype="float32", device="rocm:0")
    with pytest.raises(OverflowError):
        dlpack_demo.arange(300, dtype="int8")
