"""PyTorch's dtypes, devices and tensors, both ways, for every dtype both sides have.

PyTorch is not installed by default (its PyPI wheel is the CUDA build, about 6 GB with its
dependencies): `scripts/python-tests.sh --with-torch` installs it. Without it, this file is
skipped with the reason.
"""

import math

import pytest

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
from dlpack_demo import DType, Device  # noqa: E402 (after the skip of a run without it)

# PyTorch warns that its complex32 is experimental each time it makes one.
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental:UserWarning")

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (scripts/python-tests.sh --with-torch installs it)"
)
np = pytest.importorskip("numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")

# Every PyTorch dtype that it exports through DLPack, and our name for it.
TORCH_DTYPES = {
    "bool": "bool",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float64": "float64",
    "complex32": "complex32",
    "complex64": "complex64",
    "complex128": "complex128",
    "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
    "float8_e4m3fnuz": "float8_e4m3fnuz",
    "float8_e5m2fnuz": "float8_e5m2fnuz",
    "float8_e8m0fnu": "float8_e8m0fnu",
    # Two float4_e2m1fn in a byte: DLPack's (17, 4, 2), as PyTorch exports it.
    "float4_e2m1fn_x2": "float4_e2m1fnx2",
}


def sample(name):
    """Four elements of a PyTorch dtype, made as PyTorch makes them."""
    dtype = getattr(torch, name)
    if name == "bool":
        return torch.tensor([True, False, True, True])
    if name == "complex32":
        return torch.tensor([0, 1 + 2j, -3j, 0.5], dtype=torch.complex64).to(dtype)
    if name == "float8_e8m0fnu":
        return torch.tensor([0.25, 1.0, 2.0, 64.0]).to(dtype)
    if name == "float4_e2m1fn_x2":
        # PyTorch has no arithmetic on it: two codes a byte, 1.0 and 6.0, then 0.5 and -2.0.
        return torch.tensor([0x72, 0xC1, 0x00, 0x0F], dtype=torch.uint8).view(dtype)
    return torch.arange(4).to(dtype)


def values(tensor):
    """The elements of a PyTorch tensor as Python scalars, as our tolist() gives them."""
    if tensor.dtype == torch.float4_e2m1fn_x2:
        raise AssertionError("read through its bytes")
    if tensor.dtype.is_complex:
        return tensor.to(torch.complex128).tolist()
    if tensor.dtype.is_floating_point:
        return tensor.to(torch.float64).tolist()
    return tensor.tolist()


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def test_the_rfc_example_with_pytorch():
    t = dlpack_demo.empty((1, 2), dtype=torch.float16)
    assert repr(t) == "Tensor(shape=(1, 2), dtype=float16, device=cpu)"
    assert torch.from_dlpack(t).dtype == torch.float16
    # PyTorch takes no dtype object but its own (it reads no dtype protocol), so the other
    # direction of the RFC's example is PyTorch's to add.
    with pytest.raises(TypeError):
        torch.empty((1, 2), dtype=dlpack_demo.float16)


@pytest.mark.parametrize("theirs, ours", TORCH_DTYPES.items())
def test_torch_dtypes_read_as_what_pytorch_exports(theirs, ours):
    dtype = getattr(torch, theirs)
    assert DType(dtype) == getattr(DType, ours)
    assert dlpack_demo.from_dlpack(dtype) == getattr(DType, ours)
    # The name mapping agrees with PyTorch's own export of a tensor of that dtype.
    assert dlpack_demo.dtype_of(sample(theirs)) == DType(dtype)
    assert dlpack_demo.empty((2,), dtype=dtype).dtype == getattr(DType, ours)


@pytest.mark.parametrize("theirs, ours", TORCH_DTYPES.items())
def test_torch_tensors_both_ways(theirs, ours):
    x = sample(theirs)
    t = dlpack_demo.from_dlpack(x)
    assert t.dtype == getattr(DType, ours) and t.shape == (4,)
    if theirs == "float4_e2m1fn_x2":
        assert t.tolist() == [[1.0, 6.0], [0.5, -2.0], [0.0, 0.0], [-6.0, 0.0]]
    else:
        assert all(same(a, b) for a, b in zip(t.tolist(), values(x)))
    # Shared, not copied: a write on our side shows on theirs.
    if theirs not in ("bool", "float4_e2m1fn_x2"):
        t.fill(2)
        assert all(same(a, b) for a, b in zip(values(x), [t.tolist()[0]] * 4))
    back = torch.from_dlpack(dlpack_demo.empty((3,), dtype=ours))
    assert back.dtype == getattr(torch, theirs) and back.shape == (3,)
    if theirs not in ("float4_e2m1fn_x2", "bool"):
        ours_t = dlpack_demo.arange(3, dtype=ours)
        assert all(same(a, b) for a, b in zip(values(torch.from_dlpack(ours_t)), ours_t.tolist()))


def test_torch_fill_matches_torch_conversion():
    for name in ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]:
        t = dlpack_demo.empty((1,), dtype=name)
        for value in [0.3, -1.7, 300.0, 1e-3, 448.0]:
            t.fill(value)
            expected = torch.tensor([value], dtype=torch.float32).to(getattr(torch, name))
            assert same(t.tolist()[0], expected.to(torch.float64).item()), (name, value)


@pytest.mark.parametrize(
    "name, message",
    [("qint8", "torch.qint8 has no DLPack data type"), ("bits8", "torch.bits8 has no DLPack data type"),
     ("quint4x2", "torch.quint4x2 has no DLPack data type")],
)
def test_torch_dtypes_without_a_dlpack_data_type(name, message):
    with pytest.raises(ValueError, match=message):
        dlpack_demo.dlpack.data_type(getattr(torch, name))


def test_torch_sub_byte_integers_are_dlpack_int4_by_name():
    # torch.int4 is DLPack's int4 as a dtype; PyTorch exports its tensors as int8, and DType has
    # no int4 (no producer exports one).
    int4 = dlpack_demo.dlpack.data_type(torch.int4)
    assert (int4.code, int4.bits, int4.lanes) == (0, 4, 1)
    assert dlpack_demo.dtype_of(torch.zeros(2, dtype=torch.int4)) == DType.int8
    with pytest.raises(ValueError, match="no DLPack data type for int4"):
        dlpack_demo.dtype_of(torch.int4)


@pytest.mark.parametrize(
    "device, ours",
    [(torch.device("cpu"), "cpu"), (torch.device("cuda"), "cuda:0"), (torch.device("cuda", 2), "cuda:2"),
     (torch.device("mps"), "metal:0"), (torch.device("xpu", 1), "oneapi:1")],
)
def test_torch_devices(device, ours):
    assert dlpack_demo.dlpack.device(device) == dlpack_demo.dlpack.Device(ours)
    if device.type in ("cpu", "cuda"):  # the devices dlpack_demo.Device has
        assert dlpack_demo.from_dlpack(device) == Device(ours)


def test_torch_devices_of_tensors_and_errors():
    x = torch.zeros(2)
    assert dlpack_demo.device_of(x) == Device(x.device) == Device("cpu")
    assert dlpack_demo.empty((1,), dtype=torch.int8, device=torch.device("cpu")).device == Device("cpu")
    with pytest.raises(ValueError, match=r"torch.device\(type='meta'\) has no DLPack device"):
        Device(torch.device("meta"))
    with pytest.raises(TypeError, match="expected a data type: .*got torch.device"):
        dlpack_demo.dtype_of(torch.device("cpu"))
    with pytest.raises(TypeError, match="expected a device: .*got torch.dtype"):
        Device(torch.float32)


def test_numpy_and_torch_agree_through_us():
    # A dtype object of one library makes a tensor the other one reads with its own dtype.
    t = dlpack_demo.empty((2, 2), dtype=np.float16)
    assert torch.from_dlpack(t).dtype == torch.float16
    t = dlpack_demo.empty((2, 2), dtype=torch.bfloat16)
    assert np.empty(2, dtype=t.dtype).dtype == np.dtype(ml_dtypes.bfloat16)
