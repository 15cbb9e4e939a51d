"""Dtypes and devices as values (pickle, copy, `__module__`), what from_dlpack dispatches on,
the dtypes every peer exports, and two bugs once found here: complex fills and producers that
refuse `copy=True`."""

import copy
import ctypes
import decimal
import fractions
import pickle
import warnings

import pytest

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
from dlpack_demo import DType, Device  # noqa: E402 (after the skip of a run without it)

np = pytest.importorskip("numpy")

DataType = dlpack_demo.dlpack.DataType
GenericDevice = dlpack_demo.dlpack.Device

ALL_DTYPES = [DType(name) for name in [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
    "bfloat16", "float32", "float64", "complex32", "bcomplex32", "complex64", "complex128", "float8_e4m3fn",
    "float8_e5m2", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz", "float8_e3m4",
    "float8_e4m3", "float8_e8m0fnu", "float4_e2m1fn", "float4_e2m1fnx2"]]


def values():
    """One of each kind of value object."""
    return [
        *ALL_DTYPES,
        Device("cpu"), Device("cuda:3"), Device("cuda_host"), Device("rocm:1"),
        DataType("float16"), DataType("int8x4"), DataType("float4_e2m1fn"), DataType("bcomplex32"),
        GenericDevice("cpu"), GenericDevice("opencl:2"), GenericDevice("cuda_managed"),
    ]


# --- values: pickle, copy, __module__ ------------------------------------------------------------


def test_every_dtype_is_listed():
    members = {name for name, value in vars(DType).items() if isinstance(value, DType)}
    assert {str(d) for d in ALL_DTYPES} == members
    assert all(getattr(dlpack_demo, name) == getattr(DType, name) for name in members)


@pytest.mark.parametrize("value", values(), ids=repr)
def test_values_pickle(value):
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(value, protocol=protocol))
        assert type(back) is type(value)
        assert back == value and hash(back) == hash(value)
        method = "__dlpack_data_type__" if hasattr(value, "__dlpack_data_type__") else "__dlpack_device__"
        assert getattr(back, method)() == getattr(value, method)()


@pytest.mark.parametrize("value", values(), ids=repr)
def test_values_copy_as_themselves(value):
    assert copy.copy(value) is value
    assert copy.deepcopy(value) is value


def test_a_config_holding_values_deep_copies():
    config = {"dtype": dlpack_demo.bfloat16, "device": Device("cpu"), "generic": [DataType("int8"), GenericDevice("cuda:1")]}
    copied = copy.deepcopy(config)
    assert copied == config and copied is not config and copied["generic"] is not config["generic"]
    assert pickle.loads(pickle.dumps(config)) == config


def test_classes_report_their_module():
    assert DType.__module__ == "dlpack_demo" and Device.__module__ == "dlpack_demo"
    assert dlpack_demo.Tensor.__module__ == "dlpack_demo"
    assert DataType.__module__ == "dlpack_demo.dlpack" and GenericDevice.__module__ == "dlpack_demo.dlpack"
    assert repr(DataType) == "<class 'dlpack_demo.dlpack.DataType'>"
    # pickle finds the generic classes through sys.modules.
    import importlib

    assert importlib.import_module("dlpack_demo.dlpack").DataType is DataType


def test_constructors_read_any_dtype_or_device():
    assert DType("bf16") == DType.bfloat16
    assert DType(np.float32) == DType.float32
    assert DType(DataType("float16")) == DType.float16
    assert Device((2, 1)) == Device("cuda:1")
    assert GenericDevice((13, 0)) == GenericDevice("cuda_managed")
    with pytest.raises(ValueError, match=r"device \(2, -1\): device id -1 is out of range"):
        Device((2, -1))
    with pytest.raises(ValueError, match=r"device \(2, 0, 0\), a tuple of 3 items"):
        Device((2, 0, 0))


# --- from_dlpack takes what dtype_of and device_of take ---------------------------------------


def test_from_dlpack_takes_names_tuples_and_tvm_ffi_objects():
    tvm_ffi = pytest.importorskip("tvm_ffi")

    assert dlpack_demo.from_dlpack("bfloat16") == DType.bfloat16
    assert dlpack_demo.from_dlpack("cuda:1") == Device("cuda:1")
    assert dlpack_demo.from_dlpack((2, 0)) == Device("cuda:0")
    assert dlpack_demo.from_dlpack(tvm_ffi.dtype("int8")) == DType.int8
    assert dlpack_demo.from_dlpack(tvm_ffi.device("cuda", 1)) == Device("cuda:1")
    assert dlpack_demo.from_dlpack(np.float16) == DType.float16
    assert dlpack_demo.from_dlpack(np.dtype("complex64")) == DType.complex64
    with pytest.raises(ValueError, match=r"`flaot16` is not a data type: .*did you mean `float16`\?.*nor is it a device"):
        dlpack_demo.from_dlpack("flaot16")
    with pytest.raises(TypeError, match="device= and copy= are for tensors"):
        dlpack_demo.from_dlpack("float16", copy=True)
    with pytest.raises(TypeError, match=r"from_dlpack\(\) takes a tensor"):
        dlpack_demo.from_dlpack([2, 0])


@pytest.mark.parametrize(
    "obj, kind",
    [("float16", "dtype"), ("cuda:0", "device"), ((1, 0), "device"), (np.int8, "dtype"),
     (np.dtype("int8"), "dtype"), (DType.int8, "dtype"), (Device("cpu"), "device"),
     (np.zeros(1), "tensor"), (1.5, None), (float, None), ([1, 0], None)],
)
def test_value_kind_agrees_with_the_readers(obj, kind):
    assert dlpack_demo.dlpack.value_kind(obj) == kind
    for reader, this in [(dlpack_demo.dtype_of, "dtype"), (dlpack_demo.device_of, "device")]:
        if kind == this or (kind == "tensor"):
            reader(obj)
        else:
            # A name of the other kind is a ValueError (it is a str, the right type).
            with pytest.raises(ValueError if isinstance(obj, str) else TypeError):
                reader(obj)


# --- the dtypes every peer exports ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_dtype_makes_reads_and_round_trips(dtype):
    t = dlpack_demo.empty((2, 3), dtype=dtype)
    zero = {DType.float4_e2m1fnx2: [0.0, 0.0], DType.float8_e8m0fnu: 2.0**-127}.get(dtype, 0)
    assert t.tolist() == [[zero] * 3] * 2  # (float8_e8m0fnu has no zero: byte 0 is 2**-127)
    back = dlpack_demo.from_dlpack(t)
    assert back.dtype == dtype and back.tolist() == t.tolist() and back.data_ptr == t.data_ptr
    copied = dlpack_demo.from_dlpack(t, copy=True)
    assert copied.tolist() == t.tolist() and copied.data_ptr != t.data_ptr


def test_new_dtypes_fill_and_read():
    t = dlpack_demo.empty((3,), dtype="complex32")
    t.fill(1.5 - 2j)
    assert t.tolist() == [1.5 - 2j] * 3
    t = dlpack_demo.empty((2,), dtype="float4_e2m1fnx2")
    t.fill(-3)
    assert t.tolist() == [[-3.0, -3.0]] * 2
    with pytest.raises(ValueError, match="a float4_e2m1fnx2 element is a pair"):
        dlpack_demo.arange(2, dtype="float4_e2m1fnx2")
    t = dlpack_demo.empty((2,), dtype="float8_e4m3fn")
    t.fill(np.float32(0.3))
    assert t.tolist() == [0.3125, 0.3125]


def test_float4_e2m1fn_is_packed_two_to_a_byte():
    t = dlpack_demo.arange(5, dtype="float4_e2m1fn")
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    # 0.0, 1.0, 2.0, 3.0, 4.0 are the codes 0, 2, 4, 5, 6, the first of each pair low.
    assert ctypes.string_at(t.data_ptr, 3) == bytes([0x20, 0x54, 0x06])
    t.fill(-6)  # the last byte's other half is no element's, and is left as it was
    assert ctypes.string_at(t.data_ptr, 3) == bytes([0xFF, 0xFF, 0x0F])
    assert t.clone().tolist() == [-6.0] * 5
    # A view of it through our own import, shared.
    view = dlpack_demo.from_dlpack(t)
    view.fill(0.5)
    assert t.tolist() == [0.5] * 5


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _Versioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _Tensor)]


def test_padded_float4_is_refused_with_the_reason():
    # A producer that pads float4_e2m1fn one to a byte (IS_SUBBYTE_TYPE_PADDED), made by hand.
    data = (ctypes.c_uint8 * 4)(2, 4, 5, 6)
    shape = (ctypes.c_int64 * 1)(4)
    strides = (ctypes.c_int64 * 1)(1)
    tensor = _Versioned(1, 3, None, None, 4, _Tensor(ctypes.addressof(data), _Device(1, 0), 1,
                                                      _DataType(17, 4, 1), shape, strides, 0))
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule = new(ctypes.addressof(tensor), b"dltensor_versioned", None)
    with pytest.raises(BufferError, match="stores float4_e2m1fn packed, two to a byte, and this tensor is padded"):
        dlpack_demo.from_dlpack(capsule)


# --- bug: fill() with NumPy complex scalars and other numbers --------------------------------


class Complexish:
    def __complex__(self):
        return 3 - 4j


class Floatish:
    def __float__(self):
        return 2.5


class Indexish:
    def __index__(self):
        return 7


@pytest.mark.parametrize(
    "dtype, value, expected",
    [
        ("complex64", np.complex64(1 + 2j), 1 + 2j),
        ("complex128", np.complex64(1 + 2j), 1 + 2j),
        ("complex128", np.clongdouble(1 + 2j), 1 + 2j),
        ("complex32", np.complex128(0.5 - 1j), 0.5 - 1j),
        ("complex64", Complexish(), 3 - 4j),
        ("complex64", Floatish(), 2.5 + 0j),
        ("complex64", Indexish(), 7 + 0j),
        ("complex64", np.float32(1.5), 1.5 + 0j),
        ("float32", Floatish(), 2.5),
        ("float32", Indexish(), 7.0),
        ("float64", fractions.Fraction(1, 4), 0.25),
        ("float64", decimal.Decimal("0.5"), 0.5),
        ("float64", np.complex64(3), 3.0),  # no imaginary part: its real part
        ("float16", np.float64(0.5), 0.5),
        ("int16", np.int8(-3), -3),
        ("int16", Indexish(), 7),
        ("uint8", True, 1),
    ],
)
def test_fill_takes_numbers_as_python_does(dtype, value, expected):
    t = dlpack_demo.empty((2,), dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: nothing is dropped
        t.fill(value)
    assert t.tolist() == [expected] * 2


@pytest.mark.parametrize(
    "dtype, value, error, message",
    [
        ("float32", np.complex64(1 + 2j), TypeError, r"a float32 element is real; np.complex64\(1\+2j\) has an imaginary part"),
        ("float64", 1j, TypeError, r"has an imaginary part"),
        ("float8_e4m3fn", np.complex128(1j), TypeError, r"has an imaginary part"),
        ("complex64", "1+2j", TypeError, r"a complex64 element is a number, not '1\+2j'"),
        ("float32", "1.5", TypeError, r"a float32 element is a number, not '1.5'"),
        ("int32", 1.5, TypeError, r"float"),
        ("int8", 300, OverflowError, r"out of range"),
        ("float4_e2m1fn", float("nan"), ValueError, r"float4_e2m1fn has no NaN to store"),
    ],
)
def test_fill_refuses_what_would_be_lost(dtype, value, error, message):
    t = dlpack_demo.empty((2,), dtype=dtype)
    with pytest.raises(error, match=message):
        t.fill(value)


# --- bug: a producer that refuses copy=True ----------------------------------------------------


def test_copy_true_with_tvm_ffi_which_cannot_copy():
    tvm_ffi = pytest.importorskip("tvm_ffi")

    a = np.arange(4, dtype=np.float32)
    tv = tvm_ffi.from_dlpack(a)
    with pytest.raises(BufferError):  # TVM FFI refuses copy=True ...
        tv.__dlpack__(max_version=(1, 3), copy=True)
    t = dlpack_demo.from_dlpack(tv, copy=True)  # ... so we share, then copy ourselves
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    a[0] = 9
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0], "copy=True must not share memory"
    assert dlpack_demo.from_dlpack(tv).tolist()[0] == 9.0


def test_copy_true_fallback_only_for_buffer_errors():
    class Refuses:
        def __init__(self):
            self.asked = []

        def __dlpack__(self, **kwargs):
            self.asked.append(dict(kwargs))
            raise RuntimeError("broken")

    producer = Refuses()
    with pytest.raises(RuntimeError, match="broken"):
        dlpack_demo.from_dlpack(producer, copy=True)
    assert len(producer.asked) == 1


def test_the_check_for_rust_paths_in_messages_catches_one():
    # conftest.py fails a test in whose code an exception with a Rust path in its message was
    # raised; here one is, and taken back out of the record so that this test passes.
    from conftest import MONITORING, rust_paths

    if MONITORING is None:
        pytest.skip("sys.monitoring is CPython 3.12 and later")
    with pytest.raises(ValueError):
        raise ValueError("mini::dtype::DType has no DLPack data type for float64")
    with pytest.raises(BufferError):
        raise BufferError("at::Tensor is PyTorch's, and let through")
    assert rust_paths == ["ValueError: mini::dtype::DType has no DLPack data type for float64"]
    rust_paths.clear()
