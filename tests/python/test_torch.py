"""PyTorch's dtypes, devices and tensors, both ways, for every dtype both sides have.

PyTorch is not installed by default (its PyPI wheel is the CUDA build, about 6 GB with its
dependencies): `scripts/python-tests.sh --with-torch` installs it. Without it, this file is
skipped with the reason.
"""

import math

import pytest

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
from dlpack_demo import DType, Device  # noqa: E402 (after the skip of a run without it)

# PyTorch warns that its complex32, bcomplex32 and sparse CSR tensors are experimental each
# time it makes one.
pytestmark = [
    pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental:UserWarning"),
    pytest.mark.filterwarnings("ignore:BComplex32 support is experimental:UserWarning"),
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state:UserWarning"),
]

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


# --- PyTorch's exchange table: never a wrong value, never a raw RuntimeError ------------------
#
# torch.Tensor publishes a C exchange table (`__dlpack_c_exchange_api__`) whose export skips the
# checks of `Tensor.__dlpack__`: through it, a conjugate view would arrive with the values of the
# tensor it views, and a tensor that requires gradient would be taken. Our consumer uses the
# table only for what it describes as `__dlpack__` would, and asks `__dlpack__` (which refuses
# with PyTorch's own BufferError) for the rest; whatever the table raises sends it there too.

HAS_TABLE = hasattr(torch.Tensor, "__dlpack_c_exchange_api__")


def both_imports(x):
    """Our two import paths: the owning one (`from_dlpack`) and the borrowed view (`sum`)."""
    return [lambda: dlpack_demo.from_dlpack(x), lambda: dlpack_demo.sum(x)]


@pytest.fixture
def dlpack_calls(monkeypatch):
    """Counts the calls of `torch.Tensor.__dlpack__`, to tell the table's path from the
    protocol's."""
    calls = []
    original = torch.Tensor.__dlpack__

    def counting(self, *args, **kwargs):
        calls.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.Tensor, "__dlpack__", counting)
    return calls


def test_a_plain_tensor_goes_through_the_table(dlpack_calls):
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)[:, 1:]
    t = dlpack_demo.from_dlpack(x)
    assert t.tolist() == x.tolist() and dlpack_demo.sum(x) == float(x.sum())
    assert dlpack_calls == ([] if HAS_TABLE else [x, x])


@pytest.mark.parametrize("make, message", [
    (lambda: torch.tensor([1 + 2j, 3 - 4j]).conj(), "Can't export tensors with the conjugate bit set"),
    (lambda: torch.ones(2, requires_grad=True), "Can't export tensors that require gradient"),
    (lambda: torch.nn.Parameter(torch.ones(2)), "Can't export tensors that require gradient"),
    (lambda: torch.ones(3).to_sparse(), "Can't export tensors with layout other than torch.strided"),
    (lambda: torch.ones(2, 2).to_sparse_csr(), "Can't export tensors with layout other than torch.strided"),
])
def test_what_the_table_cannot_describe_is_refused_as_pytorch_refuses_it(make, message):
    x = make()
    with pytest.raises(BufferError, match=message):
        x.__dlpack__(max_version=(1, 0))  # PyTorch's own refusal, which ours must be
    for attempt in both_imports(x):
        with pytest.raises(BufferError, match=message):
            attempt()


def test_a_negated_view_is_refused_on_every_path():
    # t.conj().imag has the negative bit set: PyTorch's own __dlpack__ exports it with the
    # stored values, the negation of what the tensor holds.
    x = torch.tensor([1 + 2j, 3 - 4j]).conj().imag
    assert x.is_neg() and x.tolist() == [-2.0, 4.0]
    for attempt in both_imports(x):
        with pytest.raises(BufferError, match="negative bit set.*resolve_neg"):
            attempt()
    assert dlpack_demo.from_dlpack(x.resolve_neg()).tolist() == [-2.0, 4.0]


@pytest.mark.parametrize("make, message", [
    (lambda: torch.empty(2, device="meta"), "meta"),
    (lambda: torch.zeros(2, dtype=torch.bcomplex32), "BComplex32 type is not supported by dlpack"),
])
def test_a_table_failure_is_pytorchs_buffer_error_not_a_runtime_error(make, message):
    x = make()
    for attempt in both_imports(x):
        with pytest.raises(BufferError, match=message):
            attempt()


def test_the_checks_read_the_class_as_it_is_now(monkeypatch):
    # The checks call PyTorch's own functions behind is_neg and requires_grad, found once on
    # torch.Tensor: a change to the class is seen at the next import, and a torch function mode
    # still answers for the tensor, as it does for x.is_neg().
    x = torch.arange(3.0)
    assert dlpack_demo.from_dlpack(x).tolist() == [0.0, 1.0, 2.0]
    with monkeypatch.context() as patched:
        patched.setattr(torch.Tensor, "is_neg", lambda self: True)
        for attempt in both_imports(x):
            with pytest.raises(BufferError, match="negative bit set"):
                attempt()
    assert dlpack_demo.from_dlpack(x).tolist() == [0.0, 1.0, 2.0]
    with monkeypatch.context() as patched:
        patched.setattr(torch.Tensor, "requires_grad", property(lambda self: True))
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            dlpack_demo.from_dlpack(x)
    assert dlpack_demo.from_dlpack(x).tolist() == [0.0, 1.0, 2.0]

    class Negating(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", None) == "is_neg":
                return True
            return func(*args, **(kwargs or {}))

    with Negating():
        assert x.is_neg()
        with pytest.raises(BufferError, match="negative bit set"):
            dlpack_demo.from_dlpack(x)
    assert dlpack_demo.from_dlpack(x).tolist() == [0.0, 1.0, 2.0]


def test_conjugate_views_resolved_and_detached_tensors_import_right():
    x = torch.tensor([1 + 2j, 3 - 4j])
    assert dlpack_demo.from_dlpack(x.conj().resolve_conj()).tolist() == [1 - 2j, 3 + 4j]
    g = torch.arange(3.0, requires_grad=True)
    assert dlpack_demo.from_dlpack(g.detach()).tolist() == [0.0, 1.0, 2.0]
    p = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    assert dlpack_demo.from_dlpack(p).tolist() == [1.0, 1.0]


def test_a_subclass_is_asked_through_its_own_dlpack(dlpack_calls):
    # A subclass may change what __dlpack__ exports (its __torch_function__ runs there); the
    # table its base publishes would skip that, so a subclass is asked through __dlpack__.
    class Scaled(torch.Tensor):
        pass

    x = torch.arange(3.0).as_subclass(Scaled)
    assert dlpack_demo.from_dlpack(x).tolist() == [0.0, 1.0, 2.0]
    # (Its __torch_function__ calls torch.Tensor.__dlpack__ again, with itself disabled.)
    assert dlpack_calls and all(call is x for call in dlpack_calls)


def test_torch_bcomplex32_is_read_and_refused_as_pytorch_2_15_has_it():
    # torch.bcomplex32 is DLPack's bcomplex32; PyTorch 2.15 neither exports nor imports its
    # tensors through DLPack.
    assert DType(torch.bcomplex32) == DType.bcomplex32 == dlpack_demo.from_dlpack(torch.bcomplex32)
    assert dlpack_demo.empty((2,), dtype=torch.bcomplex32).dtype == DType.bcomplex32
    with pytest.raises(BufferError, match="Unsupported code 18"):
        torch.from_dlpack(dlpack_demo.empty((2,), dtype="bcomplex32"))


# --- a check that cannot be asked: __dlpack__ decides -----------------------------------------
#
# PyTorch 2.15's torch.utils.dlpack.ReadOnlyTensorWrapper is a subclass whose __torch_function__
# raises a RuntimeError for every method but __dlpack__ and __dlpack_device__, is_neg and
# requires_grad included; its __dlpack__ exports read-only. NumPy, TVM FFI and PyTorch import it.
# A check of ours that raises is no refusal: the tensor goes to __dlpack__, which decides.


def read_only_wrapper():
    """PyTorch's `ReadOnlyTensorWrapper` class, or a skip where this PyTorch has none."""
    from torch.utils import dlpack as torch_dlpack

    wrapper = getattr(torch_dlpack, "ReadOnlyTensorWrapper", None)
    if wrapper is None:
        pytest.skip(f"PyTorch {torch.__version__} has no torch.utils.dlpack.ReadOnlyTensorWrapper "
                    "(PyTorch 2.15 added it)")
    return wrapper


READ_ONLY = 1  # DLPack's flag bit, as arg_meta and view_meta report the flags


def test_pytorchs_read_only_wrapper_imports_read_only_on_every_path():
    x = torch.arange(4, dtype=torch.float32)
    w = read_only_wrapper()(x)
    with pytest.raises(RuntimeError, match="'is_neg' is not allowed"):
        w.is_neg()  # what our check met
    assert np.from_dlpack(w).tolist() == [0.0, 1.0, 2.0, 3.0]  # as NumPy takes it

    shared = dlpack_demo.from_dlpack(w)
    assert shared.tolist() == [0.0, 1.0, 2.0, 3.0] and shared.readonly
    copied = dlpack_demo.from_dlpack(w, copy=True)
    assert copied.tolist() == [0.0, 1.0, 2.0, 3.0]
    # Typed arguments, read in place, held owned, and with_tensor_view.
    assert dlpack_demo.sum(w) == 6.0 and dlpack_demo.nbytes(w) == 16
    address = x.data_ptr()
    for form in ["read", "owned"]:
        (dtype, shape, strides, flags, first, _), _ = dlpack_demo.arg_meta(w, form)
        assert (dtype, shape, strides, first) == ("float32", [4], [1], address)
        assert flags & READ_ONLY, form
    dtype, shape, _, flags, first, _ = dlpack_demo.view_meta(w)
    assert (dtype, shape, first) == ("float32", [4], address) and flags & READ_ONLY

    # A writable argument refuses it as read-only, and nothing was written.
    with pytest.raises(TypeError, match="must be a writable float32 or float64 tensor on cpu, got a "
                       "read-only float32 torch.utils.dlpack.ReadOnlyTensorWrapper with shape \\(4,\\)"):
        dlpack_demo.scale(w, 2.0)
    with pytest.raises(TypeError, match="expected a writable tensor, got a read-only"):
        dlpack_demo.arg_meta(w, "write")
    x[0] = 7.0
    assert shared.tolist()[0] == 7.0 and copied.tolist()[0] == 0.0  # shared, and copied


def test_a_check_interrupted_is_not_taken_for_one_that_cannot_be_asked():
    # KeyboardInterrupt and SystemExit are not a check's failure: they reach the caller.
    class Interrupting(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", None) == "is_neg":
                raise KeyboardInterrupt
            return super().__torch_function__(func, types, args, kwargs)

    x = torch.arange(3.0).as_subclass(Interrupting)
    for attempt in [*both_imports(x), lambda: dlpack_demo.view_meta(x)]:
        with pytest.raises(KeyboardInterrupt):
            attempt()
