"""`mini`: an extension whose DType, Device, Place and Tensor classes are written by
dlpack-core's `#[pymethods]` attribute alone (tests/python/mini/src/lib.rs). Every behaviour the attribute
promises, from Python, against NumPy, PaddlePaddle, TVM FFI and JAX.

Built by scripts/python-tests.sh (`maturin develop` in tests/python/mini). A peer that is not
installed skips the tests that need it, with the reason (the NumPy-only runs of .ci/pythons).
"""

import copy
import ctypes
import pickle

import pytest
from conftest import MINI_NOT_BUILT, built_mini

mini = built_mini()
if mini is None:
    pytest.skip(MINI_NOT_BUILT, allow_module_level=True)
np = pytest.importorskip("numpy")
from mini import DType, Device, Place, Site, Tensor  # noqa: E402 (after the skip of a run without it)


# ---- data types -------------------------------------------------------------------------


def test_protocol_method_returns_plain_ints():
    triple = mini.bfloat16.__dlpack_data_type__()
    assert triple == (4, 16, 1)
    assert type(triple) is tuple and all(type(i) is int for i in triple)


def test_a_value_without_a_dlpack_data_type_is_a_value_error():
    with pytest.raises(ValueError, match=r"^mini\.DType\.Quantized has no DLPack data type$"):
        DType.quantized().__dlpack_data_type__()


def test_constructor_reads_names_numpy_and_its_own_values():
    assert DType("float16") == mini.float16
    assert DType("bf16") == mini.bfloat16
    assert DType(np.float16) == mini.float16
    assert DType(np.dtype("int64")) == mini.int64
    assert DType(mini.float32) == mini.float32


def test_constructor_reads_the_peers_dtypes():
    paddle = pytest.importorskip("paddle")
    tvm_ffi = pytest.importorskip("tvm_ffi")
    jnp = pytest.importorskip("jax.numpy")
    assert DType(paddle.bfloat16) == mini.bfloat16
    assert DType(tvm_ffi.dtype("int8")) == mini.int8
    assert DType(jnp.complex64) == mini.complex64


def test_constructor_errors_name_the_python_class():
    with pytest.raises(ValueError, match=r"^mini\.DType has no DLPack data type for float64; it supports: bool, "):
        DType("float64")
    with pytest.raises(ValueError, match=r"did you mean `float16`\?"):
        DType("flaot16")
    with pytest.raises(TypeError, match=r"expected a data type"):
        DType(1.5)


def test_repr_is_the_name_in_the_module_and_str_the_dlpack_name():
    assert repr(mini.float16) == "mini.float16"
    assert repr(DType.float8_e4m3fn) == "mini.float8_e4m3fn"
    assert str(mini.float16) == "float16"
    # A value without a DLPack data type is named: which one it is.
    assert repr(DType.quantized()) == "<mini.DType.Quantized without a DLPack data type>"
    # repr() evaluates back to the value.
    assert eval(repr(mini.bfloat16), {"mini": mini}) == mini.bfloat16


def test_unit_values_are_named_in_the_module_and_on_the_class():
    names = ["bool", "int8", "int64", "uint8", "float16", "bfloat16", "float32", "complex64", "float8_e4m3fn"]
    for name in names:
        assert getattr(mini, name) == getattr(DType, name) == DType(name)
        assert str(getattr(mini, name)) == name
    # The Rust names PyO3 gives the variants are replaced by the DLPack names; an export-only
    # alias gets no name of its own (float32 stands for what float32 imports as), and a value
    # without a DLPack data type keeps its Rust name, having no other.
    assert not hasattr(DType, "Float16") and not hasattr(DType, "Float32Fast")
    assert DType.Quantized == DType.quantized()
    # A value without a DLPack data type gets no name.
    assert not hasattr(mini, "quantized") or callable(getattr(DType, "quantized"))
    assert "float64" not in dir(mini)


def test_values_compare_and_hash_by_their_dlpack_value():
    paddle = pytest.importorskip("paddle")
    assert mini.float16 == DType("float16") == DType(np.float16)
    assert mini.float16 != mini.bfloat16
    assert not (mini.float16 != DType("float16"))
    assert hash(mini.float16) == hash(DType(paddle.float16))
    assert len({mini.float16, DType("float16"), mini.float32, DType(np.float32)}) == 2
    # Another class is another value: NotImplemented, so Python answers False.
    assert mini.float16 != "float16"
    assert mini.float16 != np.float16
    # A value without a DLPack data type equals only itself (PyO3 hands out one object per
    # unit variant, so that is every Quantized).
    quantized = DType.quantized()
    assert quantized == DType.quantized() and quantized != mini.float32
    assert hash(quantized) == hash(DType.quantized())


def test_pickle_copy_and_deepcopy():
    for value in [mini.float16, mini.bool, DType.float8_e4m3fn]:
        back = pickle.loads(pickle.dumps(value))
        assert back == value and type(back) is DType and repr(back) == repr(value)
        assert copy.copy(value) is value
        assert copy.deepcopy(value) is value
    assert pickle.loads(pickle.dumps([mini.float16, {mini.int8: 1}])) == [mini.float16, {mini.int8: 1}]
    with pytest.raises(ValueError, match=r"cannot pickle this mini\.DType: it has no DLPack data type"):
        pickle.dumps(DType.quantized())


def test_numpy_and_jax_take_the_dtype_attribute():
    jnp = pytest.importorskip("jax.numpy")
    assert mini.float16.dtype == np.dtype("float16")
    assert np.empty(2, dtype=mini.float16).dtype == np.float16
    assert np.empty(2, dtype=mini.bfloat16).dtype.name == "bfloat16"  # through ml_dtypes
    assert jnp.zeros(2, dtype=mini.float32).dtype == jnp.float32
    assert jnp.zeros(2, dtype=mini.bfloat16).dtype == jnp.bfloat16


def test_tvm_ffi_reads_the_protocol():
    tvm_ffi = pytest.importorskip("tvm_ffi")
    echo = tvm_ffi.get_global_func("testing.echo")
    assert str(echo(mini.bfloat16)) == "bfloat16"
    assert str(echo(mini.float8_e4m3fn)) == "float8_e4m3fn"


def test_the_authors_own_methods_sit_beside_the_generated_ones():
    assert mini.float16.itemsize == 2
    assert mini.complex64.itemsize == 8


# ---- devices: a wrapper struct over an enum with data, and a fieldless enum ---------------


def test_device_protocol_and_attributes():
    cuda1 = Device("cuda:1")
    assert cuda1.__dlpack_device__() == (2, 1)
    assert all(type(i) is int for i in cuda1.__dlpack_device__())
    assert (cuda1.type, cuda1.index) == ("cuda", 1)
    assert (Device("cpu").type, Device("cpu").index) == ("cpu", 0)
    assert repr(cuda1) == "mini.Device('cuda:1')" and str(cuda1) == "cuda:1"
    assert eval(repr(cuda1), {"mini": mini}) == cuda1


def test_device_constructor_reads_names_tuples_and_device_objects():
    assert Device((2, 1)) == Device("cuda:1")
    assert Device(Place.cpu) == Device("cpu")


def test_device_constructor_reads_the_peers_devices():
    paddle = pytest.importorskip("paddle")
    tvm_ffi = pytest.importorskip("tvm_ffi")
    jax = pytest.importorskip("jax")
    assert Device(paddle.CPUPlace()) == Device("cpu")
    assert Device(tvm_ffi.device("cuda", 3)) == Device("cuda:3")
    assert Device(jax.devices("cpu")[0]) == Device("cpu")


def test_a_negative_device_id_is_refused_not_wrapped():
    with pytest.raises(ValueError, match=r"device id -1 is out of range"):
        Device((2, -1))
    with pytest.raises(ValueError, match=r"^mini\.Device has no DLPack device for rocm:0; it supports: cpu, cuda:<id>, cuda_host$"):
        Device("rocm:0")


def test_devices_compare_hash_pickle_and_copy():
    assert Device("cuda:1") == Device((2, 1)) and Device("cuda:1") != Device("cuda:2")
    assert hash(Device("cuda:1")) == hash(Device((2, 1)))
    for value in [Device("cpu"), Device("cuda:7"), Device("cuda_host"), Place.cuda_managed]:
        back = pickle.loads(pickle.dumps(value))
        assert back == value and type(back) is type(value)
        assert copy.copy(value) is value and copy.deepcopy(value) is value


def test_tvm_ffi_reads_the_device_protocol():
    tvm_ffi = pytest.importorskip("tvm_ffi")
    echo = tvm_ffi.get_global_func("testing.echo")
    assert str(echo(Device("cuda:3"))) == "cuda:3"
    # TVM FFI spells it with an id, which is its own spelling (and one it cannot parse back).
    assert str(echo(Place.cuda_managed)) == "cuda_managed:0"


def test_fieldless_device_enum_with_the_authors_repr():
    # The author's __repr__ wins over the generated one; the rest is generated.
    assert repr(Place.cpu) == "<host memory>"
    assert str(Place.cuda_managed) == "cuda_managed"
    assert Place.cuda_managed.__dlpack_device__() == (13, 0)
    assert Place("cuda_managed") == Place.cuda_managed == mini.cuda_managed
    assert (Place.cpu.type, Place.cpu.index) == ("cpu", 0)
    with pytest.raises(ValueError, match=r"^mini\.Place has no DLPack device for cuda:0"):
        Place("cuda:0")


# ---- tensors: __dlpack__ through DlpackRequest::export, and the RFC's from_dlpack ---------


def capsule_flags(capsule):
    """The `flags` of the `DLManagedTensorVersioned` a `dltensor_versioned` capsule holds."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    address = get(capsule, b"dltensor_versioned")
    # version (2 x uint32), manager_ctx, deleter, then flags (uint64).
    return ctypes.c_uint64.from_address(address + 8 + 2 * ctypes.sizeof(ctypes.c_void_p)).value


def capsule_name(capsule):
    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype, get.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get(capsule).decode()


READ_ONLY, IS_COPIED = 1, 2


def test_dlpack_capsule_by_max_version_and_is_copied_on_copies():
    t = Tensor([1.0, 2.0])
    shared = t.__dlpack__(max_version=(1, 3))
    assert capsule_name(shared) == "dltensor_versioned"
    assert capsule_flags(shared) == READ_ONLY
    copied = t.__dlpack__(max_version=(1, 0), copy=True)
    assert capsule_flags(copied) == IS_COPIED
    # A legacy consumer gets the legacy capsule (a copy: the legacy struct cannot say read-only).
    assert capsule_name(t.__dlpack__()) == "dltensor"


def test_cpu_tensor_shares_an_arc_and_copies_a_vec():
    # The ready-made TensorClass: Tensor holds an Arc<[f32]>, shared read-only with every
    # consumer that can be told so; Bytes a Vec<u8> it owns alone, exported as a copy.
    t = Tensor([1.0, 2.0])
    assert np.from_dlpack(t).ctypes.data == np.from_dlpack(t).ctypes.data  # the same memory
    assert capsule_flags(t.__dlpack__(max_version=(1, 3), copy=False)) == READ_ONLY
    b = mini.Bytes([1, 2, 3])
    assert capsule_flags(b.__dlpack__(max_version=(1, 3))) == IS_COPIED
    assert capsule_flags(b.__dlpack__(max_version=(1, 3), copy=True)) == IS_COPIED
    assert np.from_dlpack(b).tolist() == [1, 2, 3] and np.from_dlpack(b).flags.writeable
    with pytest.raises(BufferError, match=r"^mini\.Bytes exports copies of its elements, which it owns alone, and copy=False was asked$"):
        b.__dlpack__(max_version=(1, 3), copy=False)
    assert capsule_name(b.__dlpack__()) == "dltensor"


def test_tensor_protocol_methods_are_generated_with_the_standards_signature():
    t = Tensor([1.0])
    assert t.__dlpack_device__() == (1, 0)
    assert all(type(i) is int for i in t.__dlpack_device__())
    # Keyword-only, as the array API standard has it.
    with pytest.raises(TypeError):
        t.__dlpack__(None)
    with pytest.raises(TypeError):
        t.__dlpack__(flavour=1)
    # The arguments are checked before the author's code runs.
    with pytest.raises(ValueError, match=r"stream"):
        t.__dlpack__(stream=5)
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 3), copy=False, dl_device=(2, 0))


def test_peers_take_the_tensor():
    paddle = pytest.importorskip("paddle")
    tvm_ffi = pytest.importorskip("tvm_ffi")
    jnp = pytest.importorskip("jax.numpy")
    t = Tensor([1.0, 2.0, 3.0])
    assert np.from_dlpack(t).tolist() == [1.0, 2.0, 3.0]
    assert not np.from_dlpack(t).flags.writeable
    assert jnp.from_dlpack(t).tolist() == [1.0, 2.0, 3.0]
    assert paddle.from_dlpack(t).numpy().tolist() == [1.0, 2.0, 3.0]
    assert np.from_dlpack(tvm_ffi.from_dlpack(t)).tolist() == [1.0, 2.0, 3.0]


def test_from_dlpack_dispatches_over_tensors_dtypes_and_devices():
    paddle = pytest.importorskip("paddle")
    tvm_ffi = pytest.importorskip("tvm_ffi")
    jnp = pytest.importorskip("jax.numpy")
    assert mini.from_dlpack(np.arange(3, dtype=np.float32)).tolist() == [0.0, 1.0, 2.0]
    assert mini.from_dlpack(jnp.ones(2, dtype=jnp.float32)).tolist() == [1.0, 1.0]
    assert mini.from_dlpack(paddle.ones([2], dtype="float32")).tolist() == [1.0, 1.0]
    assert mini.from_dlpack(np.zeros(2, dtype=np.float32), copy=True).tolist() == [0.0, 0.0]
    from_dtype = mini.from_dlpack(paddle.bfloat16)
    assert type(from_dtype) is DType and from_dtype == mini.bfloat16
    assert mini.from_dlpack(np.float16) == mini.float16
    assert mini.from_dlpack("int8") == mini.int8
    from_device = mini.from_dlpack(paddle.CPUPlace())
    assert type(from_device) is Device and from_device == Device("cpu")
    assert mini.from_dlpack(tvm_ffi.device("cuda", 2)) == Device("cuda:2")


def test_a_tensor_of_another_dtype_is_refused_in_pythons_terms():
    # The library's message, not a Rust type's: `f32` is nowhere in it.
    with pytest.raises(BufferError, match=r"^expected a float32 tensor, got float64$"):
        mini.from_dlpack(np.zeros(2))


def test_from_dlpack_refuses_device_and_copy_for_dtypes_and_devices():
    paddle = pytest.importorskip("paddle")
    with pytest.raises(TypeError, match=r"device= and copy= are for tensors; .* is a data type"):
        mini.from_dlpack(paddle.float32, copy=True)
    with pytest.raises(TypeError, match=r"device= and copy= are for tensors; .* is a device"):
        mini.from_dlpack(paddle.CPUPlace(), device="cpu")


def test_from_dlpack_says_what_it_takes():
    with pytest.raises(TypeError, match=r"from_dlpack\(\) takes a tensor .* got an object of class float$"):
        mini.from_dlpack(1.5)
    # A NumPy scalar has a dtype and no __dlpack__: the message says so, not "got float32".
    with pytest.raises(TypeError, match=r"got a NumPy scalar \(numpy\.float32\), which has no __dlpack__: numpy\.asarray"):
        mini.from_dlpack(np.float32(3.0))
    with pytest.raises(ValueError, match=r"mini\.DType has no DLPack data type for float64"):
        mini.from_dlpack(np.float64)


# ---- a device class that is a PyO3 complex enum -------------------------------------------


def test_a_complex_enum_device_class_makes_its_variants():
    # PyO3 makes each variant a subclass; every route gives an object of the variant's class.
    cuda1 = Site("cuda:1")
    assert type(cuda1) is Site.Cuda and isinstance(cuda1, Site) and cuda1._0 == 1
    assert type(Site("cpu")) is Site.Cpu and type(Site((3, 0))) is Site.Pinned
    assert type(mini.site_from_dlpack("cuda:1")) is Site.Cuda
    assert cuda1 == Site.Cuda(1) == mini.site_from_dlpack((2, 1)) and cuda1 != Site.Cuda(2)
    assert hash(cuda1) == hash(Site.Cuda(1))
    match cuda1:
        case Site.Cuda(index):
            assert index == 1
        case _:
            raise AssertionError("not matched as a variant")


def test_a_complex_enum_value_reprs_and_pickles_as_the_class():
    cuda1 = Site.Cuda(1)
    assert repr(cuda1) == "mini.Site('cuda:1')"
    assert eval(repr(cuda1), {"mini": mini}) == cuda1
    for value in (cuda1, Site.Cpu(), Site("cuda_host")):
        back = pickle.loads(pickle.dumps(value))
        assert back == value and type(back) is type(value)
    assert copy.deepcopy(cuda1) is cuda1
    assert cuda1.__dlpack_device__() == (2, 1) and (cuda1.type, cuda1.index) == ("cuda", 1)
    with pytest.raises(ValueError, match=r"mini\.Site has no DLPack device for rocm:0"):
        Site("rocm:0")


# ---- messages and numbers -----------------------------------------------------------------


def test_values_are_not_numbers():
    # PyO3 gives a fieldless enum class int(), its discriminant; a DLPack value is no number.
    for value in (mini.bool, mini.float32, DType.quantized(), Place("cpu"), Device("cpu"), Site.Cpu()):
        with pytest.raises(TypeError, match=r"is a (data type|device), not a number: its DLPack value is __dlpack_(data_type|device)__\(\)"):
            int(value)


def test_names_of_other_frameworks_get_the_dlpack_name_with_the_id():
    # PaddlePaddle's `gpu:0` is CUDA's device 0 on NVIDIA hardware, PyTorch's `mps` Metal.
    with pytest.raises(ValueError, match=r"`gpu:0` is not a device: unknown device name; did you mean `cuda:0`\?"):
        Device("gpu:0")
    with pytest.raises(ValueError, match=r"did you mean `metal:1`\?.*; nor is it a data type$"):
        mini.from_dlpack("mps:1")
    with pytest.raises(ValueError, match=r"`flaot16` is not a data type: .*did you mean `float16`\?.*; nor is it a device$"):
        mini.from_dlpack("flaot16")


def test_an_unknown_device_type_is_named_once():
    with pytest.raises(ValueError, match=r"^device \(99, 0\): unknown device type 99 \(known types are [^)]*\)$"):
        Device((99, 0))


def test_the_alias_policy():
    # DLPack's names and the Rust spellings of the same types are accepted; other frameworks'
    # words for them are refused with the DLPack name (docs/decisions.md, "Names").
    for accepted, name in [("bf16", "bfloat16"), ("f32", "float32"), ("i64", "int64"), ("u8", "uint8"),
                           ("c64", "complex64"), ("fp8_e4m3fn", "float8_e4m3fn")]:
        assert str(mini.from_dlpack(accepted)) == name
    for refused, name in [("half", "float16"), ("fp16", "float16"), ("double", "float64"), ("long", "int64")]:
        with pytest.raises(ValueError, match=rf"`{refused}` is not a data type: unknown data type name; did you mean `{name}`\?"):
            DType(refused)
