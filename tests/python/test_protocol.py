"""The dtype/device protocol: `__dlpack_data_type__` and `__dlpack_device__` in both directions.

Our objects are read by TVM FFI (a consumer of the protocol), PaddlePaddle's dtypes and places
(producers of the protocol) are read by us, and malformed protocol objects are refused with
errors that say what is wrong, never truncated or guessed at.
"""

import enum
import sys

import pytest

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
from dlpack_demo import DType, Device  # noqa: E402 (after the skip of a run without it)

np = pytest.importorskip("numpy")

# DLPack's (code, bits, lanes) for each DType, from dlpack.h: kDLInt 0, kDLUInt 1, kDLFloat 2,
# kDLBfloat 4, kDLComplex 5, kDLBool 6, kDLFloat8_e4m3fn 10, kDLFloat8_e5m2 12.
EXPECTED = {
    "bool": (6, 8, 1),
    "int8": (0, 8, 1),
    "int16": (0, 16, 1),
    "int32": (0, 32, 1),
    "int64": (0, 64, 1),
    "uint8": (1, 8, 1),
    "uint16": (1, 16, 1),
    "uint32": (1, 32, 1),
    "uint64": (1, 64, 1),
    "float16": (2, 16, 1),
    "bfloat16": (4, 16, 1),
    "float32": (2, 32, 1),
    "float64": (2, 64, 1),
    "complex64": (5, 64, 1),
    "complex128": (5, 128, 1),
    "float8_e4m3fn": (10, 8, 1),
    "float8_e5m2": (12, 8, 1),
}


def dtypes():
    return [getattr(DType, name) for name in EXPECTED]


# --- our objects speak the protocol -------------------------------------------------------


@pytest.mark.parametrize("name", EXPECTED)
def test_dtype_returns_plain_int_tuple(name):
    dtype = getattr(DType, name)
    triple = dtype.__dlpack_data_type__()
    assert type(triple) is tuple
    assert all(type(x) is int for x in triple)
    assert triple == EXPECTED[name]
    assert str(dtype) == name
    assert repr(dtype) == f"dlpack_demo.{name}"
    assert getattr(dlpack_demo, name) == dtype


def test_dtype_eq_and_hash():
    assert DType.float16 == DType.float16
    assert DType.float16 != DType.bfloat16
    assert DType.float16 != "float16"  # equality is between dtypes, not with names
    assert len({*dtypes(), *dtypes()}) == len(EXPECTED)
    assert hash(DType.int8) == hash(dlpack_demo.dtype_of("int8"))


@pytest.mark.parametrize(
    "name, pair",
    [("cpu", (1, 0)), ("cuda:0", (2, 0)), ("cuda:3", (2, 3)), ("cuda_host", (3, 0)),
     ("cuda_managed", (13, 0)), ("rocm:1", (10, 1))],
)
def test_device_returns_plain_int_tuple(name, pair):
    device = Device(name)
    assert device.__dlpack_device__() == pair
    assert all(type(x) is int for x in device.__dlpack_device__())
    assert str(device) == name
    assert repr(device) == f"dlpack_demo.Device('{name}')"
    assert device == Device(name) and hash(device) == hash(Device(name))
    assert not hasattr(Device, "__dlpack__"), "a device class must not look like a tensor"


def test_device_attributes():
    assert (Device("rocm:2").type, Device("rocm:2").index) == ("rocm", 2)
    assert Device("cpu") != Device("cuda:0")


# --- PaddlePaddle produces the protocol; we read it ---------------------------------------


def paddle_dtypes():
    paddle = pytest.importorskip("paddle")

    found = {}
    for name in dir(paddle):
        obj = getattr(paddle, name)
        if isinstance(obj, paddle.dtype):
            found[name] = obj
    return found


def test_every_paddle_dtype_reads_as_ours():
    paddle = pytest.importorskip("paddle")

    seen = set()
    for name, pd in paddle_dtypes().items():
        try:
            triple = pd.__dlpack_data_type__()
        except Exception as err:  # paddle.raw has no DLPack type: paddle itself raises
            with pytest.raises(type(err)) as caught:
                dlpack_demo.dtype_of(pd)
            assert "raised by paddle.dtype.__dlpack_data_type__()" in caught.value.__notes__[0]
            continue
        if triple == (0, 0, 0):  # paddle.pstring: not a DLPack data type
            with pytest.raises(ValueError, match=r"returned \(0, 0, 0\).*bits must be from 1 to 255, not 0"):
                dlpack_demo.dtype_of(pd)
            continue
        ours = dlpack_demo.dtype_of(pd)
        assert ours.__dlpack_data_type__() == triple, name
        seen.add(str(ours))
    # Every one of Paddle's 17 DLPack dtypes, through its canonical name or an alias.
    assert seen == set(EXPECTED)
    assert dlpack_demo.dtype_of(paddle.float16) == DType.float16


def test_paddle_aliases():
    paddle = pytest.importorskip("paddle")

    assert dlpack_demo.dtype_of(paddle.half) == DType.float16
    assert dlpack_demo.dtype_of(paddle.cfloat) == DType.complex64
    assert dlpack_demo.dtype_of(paddle.long) == DType.int64


# Every kind of Paddle place, and how to make one. Only those this CPU-only PaddlePaddle build
# can make are tested here (the others are reported as skipped, with paddle's reason).
PADDLE_PLACES = {
    "CPUPlace": lambda paddle: paddle.CPUPlace(),
    "Place": lambda paddle: paddle.base.libpaddle.Place(),  # undefined: paddle says CPU
    "tensor.place": lambda paddle: paddle.to_tensor([1.0]).place,
    "CUDAPlace": lambda paddle: paddle.CUDAPlace(0),
    "CUDAPinnedPlace": lambda paddle: paddle.CUDAPinnedPlace(),
    "XPUPlace": lambda paddle: paddle.XPUPlace(0),
    "XPUPinnedPlace": lambda paddle: paddle.XPUPinnedPlace(),
    "IPUPlace": lambda paddle: paddle.IPUPlace(),
    "CustomPlace": lambda paddle: paddle.CustomPlace("npu", 0),
}


@pytest.mark.parametrize("name", PADDLE_PLACES)
def test_paddle_places(name):
    paddle = pytest.importorskip("paddle")

    try:
        place = PADDLE_PLACES[name](paddle)
    except Exception as err:
        pytest.skip(f"this PaddlePaddle build cannot make a {name}: {str(err).splitlines()[0]}")
    ours = dlpack_demo.device_of(place)
    assert ours.__dlpack_device__() == tuple(place.__dlpack_device__())
    assert dlpack_demo.Device(place) == ours
    assert dlpack_demo.empty((1, 2), dtype=paddle.float16, device=place).device == ours


def test_paddle_tensor_place_and_device_quirk():
    paddle = pytest.importorskip("paddle")

    t = paddle.to_tensor([1.0, 2.0])
    assert dlpack_demo.device_of(t.place) == Device("cpu")
    # Paddle 3.3.1 tensors answer __dlpack_device__() with (kDLCPU, None): the id is not an
    # int, and we say so rather than guess 0.
    with pytest.raises(TypeError, match=r"item 1 is a NoneType \(None\); expected an int"):
        dlpack_demo.device_of(t)


# --- TVM FFI consumes the protocol ---------------------------------------------------------


@pytest.mark.parametrize("name", EXPECTED)
def test_tvm_ffi_reads_our_dtypes(name):
    tvm_ffi = pytest.importorskip("tvm_ffi")

    echo = tvm_ffi.get_global_func("testing.echo")
    ours = getattr(DType, name)
    if name.startswith("complex"):
        # TVM FFI 0.1.15 has no complex dtypes: it receives kDLComplex (5) and cannot name it.
        with pytest.raises(ValueError, match=r"unknown type_code=5"):
            echo(ours)
        return
    theirs = echo(ours)
    assert isinstance(theirs, tvm_ffi.dtype)
    assert theirs == tvm_ffi.dtype(name)
    assert (theirs.type_code, theirs.bits, theirs.lanes) == EXPECTED[name]
    # ... and back: a tvm_ffi.dtype is a str holding the canonical name.
    assert dlpack_demo.dtype_of(theirs) == ours
    assert tvm_ffi.convert(ours) == tvm_ffi.dtype(name)


@pytest.mark.parametrize(
    "name, tvm_type, index",
    [("cpu", "cpu", 0), ("cuda:0", "cuda", 0), ("cuda:3", "cuda", 3),
     ("cuda_host", "cuda_host", 0), ("cuda_managed", "cuda_managed", 0), ("rocm:1", "rocm", 1)],
)
def test_tvm_ffi_reads_our_devices(name, tvm_type, index):
    tvm_ffi = pytest.importorskip("tvm_ffi")

    echo = tvm_ffi.get_global_func("testing.echo")
    ours = Device(name)
    theirs = echo(ours)
    assert isinstance(theirs, tvm_ffi.Device)
    assert (theirs.type, theirs.index) == (tvm_type, index)
    assert theirs.dlpack_device_type() == ours.__dlpack_device__()[0]
    # ... and back (TVM FFI devices have dlpack_device_type() and index, not the protocol).
    assert dlpack_demo.device_of(theirs) == ours


def test_tvm_ffi_reads_generic_objects():
    tvm_ffi = pytest.importorskip("tvm_ffi")

    echo = tvm_ffi.get_global_func("testing.echo")
    DataType = dlpack_demo.dlpack.DataType
    assert echo(DataType("int8x4")) == tvm_ffi.dtype("int8x4")
    assert echo(DataType("float4_e2m1fn")) == tvm_ffi.dtype("float4_e2m1fn")
    assert echo(dlpack_demo.dlpack.Device("opencl:1")).index == 1


def test_tvm_ffi_dtype_with_lanes_is_not_a_dtype_of_ours():
    tvm_ffi = pytest.importorskip("tvm_ffi")

    with pytest.raises(ValueError, match=r"no DLPack data type for float32x4; it supports: "):
        dlpack_demo.dtype_of(tvm_ffi.dtype("float32x4"))
    assert dlpack_demo.dlpack.data_type(tvm_ffi.dtype("float32x4")).lanes == 4


# --- any class that carries the method -----------------------------------------------------


class UserDType:
    def __init__(self, triple):
        self.triple = triple

    def __dlpack_data_type__(self):
        return self.triple


class UserDevice:
    def __init__(self, pair):
        self.pair = pair

    def __dlpack_device__(self):
        return self.pair


def test_user_classes():
    assert dlpack_demo.dtype_of(UserDType((4, 16, 1))) == DType.bfloat16
    assert dlpack_demo.device_of(UserDevice((2, 7))) == Device("cuda:7")
    assert dlpack_demo.dlpack.kind(UserDType((2, 16, 1))) == "dtype"
    assert dlpack_demo.dlpack.kind(UserDevice((1, 0))) == "device"


def test_the_kind_of_each_class_is_remembered_correctly_past_the_cache():
    # The kind of a class is remembered for a bounded number of classes; classes past that are
    # looked at each time. Either way each object reads as its class says, every time.
    def method(self, *args, **kwargs):
        return None

    bodies = {
        "tensor": {"__dlpack__": method, "__dlpack_device__": method},
        "dtype": {"__dlpack_data_type__": method},
        "device": {"__dlpack_device__": method},
        None: {"dlpack": method},
    }
    for i in range(200):
        kind = list(bodies)[i % 4]
        obj = type(f"Kind{i}", (), dict(bodies[kind]))()
        assert dlpack_demo.dlpack.kind(obj) == kind
        assert dlpack_demo.dlpack.kind(obj) == kind


def test_ints_that_are_not_plain_ints():
    class Kind(enum.IntEnum):
        CUDA = 2

    # The array API types device_type as an IntEnum; numpy integers have __index__.
    assert dlpack_demo.device_of(UserDevice((Kind.CUDA, np.int64(1)))) == Device("cuda:1")
    assert dlpack_demo.dtype_of(UserDType((np.uint8(2), 32, 1))) == DType.float32


def test_method_on_the_instance_only_is_not_the_protocol():
    obj = UserDType((2, 16, 1))
    plain = type("Plain", (), {})()
    plain.__dlpack_data_type__ = obj.__dlpack_data_type__
    with pytest.raises(TypeError, match="expected a data type"):
        dlpack_demo.dtype_of(plain)


# --- malformed protocol objects --------------------------------------------------------------


@pytest.mark.parametrize(
    "triple, error, message",
    [
        ([2, 16, 1], TypeError, r"returned \[2, 16, 1\], a list; expected a tuple \(code, bits, lanes\) of 3 ints"),
        ((2, 16), ValueError, r"a tuple of 2 items; expected 3 items"),
        ((2, 16, 1, 0), ValueError, r"a tuple of 4 items; expected 3 items"),
        ((2.0, 16, 1), TypeError, r"item 0 is a float \(2.0\); expected an int"),
        ((2, 16.0, 1), TypeError, r"item 1 is a float \(16.0\); expected an int"),
        ((2, "16", 1), TypeError, r"item 1 is a str \('16'\); expected an int"),
        ((True, 8, 1), TypeError, r"item 0 is a bool \(True\); expected an int"),
        ((2, -16, 1), ValueError, r"bits -16 is out of range: expected 0 to 255"),
        ((2, 300, 1), ValueError, r"bits 300 is out of range: expected 0 to 255"),
        ((256, 8, 1), ValueError, r"code 256 is out of range: expected 0 to 255"),
        ((2, 32, 70000), ValueError, r"lanes 70000 is out of range: expected 0 to 65535"),
        ((2, 32, 2**100), ValueError, r"lanes 1267650600228229401496703205376 is out of range"),
        ((2, 0, 1), ValueError, r"bits must be from 1 to 255, not 0"),
        ((2, 32, 0), ValueError, r"lanes must be from 1 to 65535, not 0"),
        ((12, 16, 1), ValueError, r"float8_e5m2 takes 8 bits, not 16"),
        ((99, 8, 1), ValueError, r"unknown.*99"),
        (None, TypeError, r"returned None, a NoneType; expected a tuple"),
    ],
)
def test_malformed_dtypes(triple, error, message):
    with pytest.raises(error, match=message) as caught:
        dlpack_demo.dtype_of(UserDType(triple))
    assert "UserDType.__dlpack_data_type__() returned" in str(caught.value)


@pytest.mark.parametrize(
    "pair, error, message",
    [
        ([2, 0], TypeError, r"a list; expected a tuple \(device_type, device_id\) of 2 ints"),
        ((2,), ValueError, r"a tuple of 1 items; expected 2 items"),
        ((2, 0.0), TypeError, r"item 1 is a float"),
        ((2, -1), ValueError, r"device id -1 is out of range: expected 0 to 2147483647"),
        ((2, 2**31), ValueError, r"device id 2147483648 is out of range: expected 0 to 2147483647"),
        ((2, 2**64), ValueError, r"device id 18446744073709551616 is out of range"),
        ((-2, 0), ValueError, r"device type -2 is out of range"),
        ((2**32 + 2, 0), ValueError, r"device type 4294967298 is out of range"),
        ((99, 0), ValueError, r"unknown"),
    ],
)
def test_malformed_devices(pair, error, message):
    with pytest.raises(error, match=message) as caught:
        dlpack_demo.device_of(UserDevice(pair))
    assert "UserDevice.__dlpack_device__() returned" in str(caught.value)


def test_methods_that_raise_keep_their_exception():
    class Broken:
        def __dlpack_data_type__(self):
            raise RuntimeError("no dtype today")

    class BrokenDevice:
        def __dlpack_device__(self):
            raise KeyError("lost")

    with pytest.raises(RuntimeError, match="no dtype today") as dtype_error:
        dlpack_demo.dtype_of(Broken())
    with pytest.raises(KeyError, match="lost") as device_error:
        Device(BrokenDevice())
    if sys.version_info < (3, 11):
        # Exception notes (`add_note`, PEP 678) are Python 3.11's: before, each exception is
        # passed on as it was raised.
        assert not hasattr(dtype_error.value, "__notes__")
        assert not hasattr(device_error.value, "__notes__")
        return
    (note,) = dtype_error.value.__notes__
    assert note.startswith("raised by ") and note.endswith(
        "Broken.__dlpack_data_type__() (the DLPack protocol)"
    )
    assert "BrokenDevice.__dlpack_device__()" in device_error.value.__notes__[0]


def test_not_a_protocol_object():
    with pytest.raises(TypeError, match=r"expected a data type: .*got int"):
        dlpack_demo.dtype_of(3)
    with pytest.raises(TypeError, match=r"expected a device: .*got float"):
        dlpack_demo.device_of(1.5)
    with pytest.raises(TypeError, match=r"expected a data type"):
        dlpack_demo.dtype_of(UserDevice((1, 0)))


def test_names():
    assert dlpack_demo.dtype_of("bf16") == DType.bfloat16
    assert Device("cuda") == Device("cuda:0")
    with pytest.raises(ValueError, match=r"did you mean `float16`\?"):
        dlpack_demo.dtype_of("flaot16")
    with pytest.raises(ValueError, match=r"`cuda:-1` is not a device"):
        Device("cuda:-1")


# --- precedence: a class with __dlpack__ is a tensor ----------------------------------------


def test_tensor_precedence():
    class TensorLike:
        def __dlpack__(self, **kwargs):
            raise AssertionError("must not be called")

        def __dlpack_device__(self):
            return (1, 0)

    class Both:
        def __dlpack_data_type__(self):
            return (2, 32, 1)

        def __dlpack_device__(self):
            return (1, 0)

    assert dlpack_demo.dlpack.kind(TensorLike()) == "tensor"
    with pytest.raises(TypeError, match=r"got a tensor .*whose class has __dlpack__"):
        Device(TensorLike())
    with pytest.raises(TypeError, match=r"got a tensor"):
        dlpack_demo.dlpack.device(TensorLike())
    # A tensor's device is where it lives: device_of reads __dlpack_device__ for tensors.
    assert dlpack_demo.device_of(TensorLike()) == Device("cpu")
    # __dlpack_data_type__ comes before __dlpack_device__, as in TVM FFI.
    assert dlpack_demo.dlpack.kind(Both()) == "dtype"
    assert dlpack_demo.dlpack.kind(object()) is None


# --- the generic DataType / Device classes of dlpack_core -----------------------------------


def test_generic_classes():
    paddle = pytest.importorskip("paddle")

    DataType = dlpack_demo.dlpack.DataType
    GDevice = dlpack_demo.dlpack.Device
    f16 = DataType(paddle.float16)
    assert (f16.code, f16.bits, f16.lanes) == (2, 16, 1)
    assert repr(f16) == "DataType('float16')" and str(f16) == "float16"
    assert f16 == DataType("float16") and hash(f16) == hash(DataType("float16"))
    assert f16 != DataType("bfloat16")
    assert f16 != DType.float16  # different classes; compare their protocol values instead
    assert f16.__dlpack_data_type__() == DType.float16.__dlpack_data_type__()
    assert dlpack_demo.dlpack.data_type(DType.float16) == f16
    cpu = GDevice(paddle.CPUPlace())
    assert repr(cpu) == "Device('cpu')" and (cpu.device_type, cpu.device_id) == (1, 0)
    assert dlpack_demo.dlpack.device(Device("cuda:2")) == GDevice("cuda:2")
    # Host-side memory has no meaningful id: cpu:1 is cpu, and hashes like it.
    assert GDevice(UserDevice((1, 1))) == cpu and hash(GDevice(UserDevice((1, 1)))) == hash(cpu)
