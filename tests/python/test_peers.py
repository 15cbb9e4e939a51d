"""The seed's example and tensor exchange with PaddlePaddle and TVM FFI."""

import pytest

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
from dlpack_demo import DType  # noqa: E402 (after the skip of a run without it)

np = pytest.importorskip("numpy")


# PaddlePaddle's dtypes that have a DLPack data type, by name (a list of names, not of Paddle's
# objects, so that collecting this file needs no PaddlePaddle).
PADDLE_DLPACK_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                        "float32", "float64", "complex64", "complex128", "float8_e4m3fn",
                        "float8_e5m2", "uint16", "uint32", "uint64"]


def test_the_seed_example():
    paddle = pytest.importorskip("paddle")

    t = dlpack_demo.empty((1, 2), dtype=paddle.float16)
    assert repr(t) == "Tensor(shape=(1, 2), dtype=float16, device=cpu)"
    assert t.dtype == DType.float16 and t.shape == (1, 2)
    assert t.tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize("name", PADDLE_DLPACK_DTYPES)
def test_empty_with_every_paddle_dtype(name):
    paddle = pytest.importorskip("paddle")

    pd = getattr(paddle, name)
    t = dlpack_demo.empty((1, 2), dtype=pd)
    assert str(t.dtype) == name
    assert t.dtype.__dlpack_data_type__() == pd.__dlpack_data_type__()


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                  "float16", "bfloat16", "float32", "float64",
                                  "complex64", "complex128"])
def test_paddle_reads_our_tensors_without_a_copy(name):
    paddle = pytest.importorskip("paddle")

    t = dlpack_demo.arange(4, dtype=getattr(paddle, name))
    p = paddle.from_dlpack(t)
    assert p.dtype == getattr(paddle, name)

    def values():
        # Paddle's tolist() gives bfloat16 as its raw uint16 bits; compare as float32.
        return p.astype("float32").tolist() if name == "bfloat16" else p.tolist()

    assert values() == t.tolist()
    if name != "bool":
        t.fill(3)
        assert values() == [3, 3, 3, 3]


def test_we_read_paddle_tensors_without_a_copy():
    paddle = pytest.importorskip("paddle")

    p = paddle.to_tensor([[1.5, 2.5], [3.5, 4.5]], dtype=paddle.bfloat16)
    t = dlpack_demo.from_dlpack(p)
    assert t.dtype == DType.bfloat16 and t.tolist() == [[1.5, 2.5], [3.5, 4.5]]
    t.fill(8)
    assert p.astype("float32").tolist() == [[8.0, 8.0], [8.0, 8.0]]


def test_paddle_places_as_devices():
    paddle = pytest.importorskip("paddle")

    t = dlpack_demo.empty((1, 2), dtype=paddle.float32, device=paddle.CPUPlace())
    assert t.device == dlpack_demo.Device("cpu")
    place = paddle.to_tensor([1.0]).place
    assert dlpack_demo.empty((1,), dtype="int8", device=place).device == dlpack_demo.Device(place)


def test_tvm_ffi_from_dlpack_and_back():
    tvm_ffi = pytest.importorskip("tvm_ffi")

    t = dlpack_demo.arange(6, dtype="float32")
    tv = tvm_ffi.from_dlpack(t)
    assert tuple(tv.shape) == (6,) and tv.dtype == tvm_ffi.dtype("float32")
    back = dlpack_demo.from_dlpack(tv)
    assert back.tolist() == t.tolist()
    t.fill(4)  # one memory, three owners
    assert back.tolist() == [4.0] * 6
    assert np.from_dlpack(tv).tolist() == [4.0] * 6


@pytest.mark.parametrize("name", ["int8", "uint16", "float16", "bfloat16", "float64", "bool"])
def test_tvm_ffi_function_receives_our_tensor(name):
    tvm_ffi = pytest.importorskip("tvm_ffi")

    echo = tvm_ffi.get_global_func("testing.echo")
    t = dlpack_demo.arange(3, dtype=name)
    # TVM FFI takes the argument through our type's exchange table, and hands the tensor it
    # returns back through the same table: as a dlpack_demo.Tensor over the same memory.
    back = echo(t)
    assert type(back) is dlpack_demo.Tensor
    assert back.dtype == t.dtype and back.data_ptr == t.data_ptr
    assert back.tolist() == t.tolist()
    tv = tvm_ffi.from_dlpack(t)
    assert tv.dtype == tvm_ffi.dtype(name)
    assert dlpack_demo.from_dlpack(tv).tolist() == t.tolist()
