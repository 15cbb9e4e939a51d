"""
A DLPack tensor library in Rust: dtypes, devices and tensors that speak the DLPack
protocols with numpy, PaddlePaddle, TVM FFI and every other array library.
"""

from . import dlpack as dlpack
from _typeshed import Incomplete, SupportsGetItem
from dlpack_typing import DataTypeLike, DeviceLike, TensorLike
from types import CapsuleType
from typing import Any, Final, SupportsFloat, SupportsIndex, final

@final
class DType:
    """
    The element type of a tensor. `DType.float16`, … (also `dlpack_demo.float16`, …): every
    type NumPy (with ml_dtypes), PaddlePaddle, JAX and PyTorch export through DLPack.

    `__dlpack_data_type__()` returns the DLPack `(code, bits, lanes)`, so any consumer of the
    protocol (TVM FFI, for one) takes these objects for dtypes; `dtype` is the NumPy dtype, so
    NumPy and JAX take them too (`numpy.empty(2, dtype=dlpack_demo.bfloat16)`, with ml_dtypes
    for the types NumPy lacks). Every `dlpack_demo` function taking a dtype takes any dtype
    object: one that speaks the protocol (`paddle.float16`), or a NumPy, ml_dtypes, JAX,
    PyTorch or array-api-strict dtype.

    `float4_e2m1fn` elements are stored packed, two to a byte, as DLPack stores sub-byte types
    unless a tensor says otherwise and as JAX exports them; `float4_e2m1fnx2` is PyTorch's
    `float4_e2m1fn_x2`, one byte holding two lanes. No producer exports `int4`/`uint4` through
    DLPack (JAX refuses them; PyTorch exports its `int4` as `int8`), so there are none here.
    """
    BComplex32: Final[DType]
    """
    Two `bfloat16`s (DLPack's `kDLBcomplex`, code 18): NumPy with ml_dtypes 0.7 exports it,
    PyTorch 2.15 has it (`torch.bcomplex32`) but does not export it.
    """
    BFloat16: Final[DType]
    Bool: Final[DType]
    Complex128: Final[DType]
    Complex32: Final[DType]
    Complex64: Final[DType]
    Float16: Final[DType]
    Float32: Final[DType]
    Float4E2M1FN: Final[DType]
    Float4E2M1FNx2: Final[DType]
    Float64: Final[DType]
    Float8E3M4: Final[DType]
    Float8E4M3: Final[DType]
    Float8E4M3B11FNUZ: Final[DType]
    Float8E4M3FN: Final[DType]
    Float8E4M3FNUZ: Final[DType]
    Float8E5M2: Final[DType]
    Float8E5M2FNUZ: Final[DType]
    Float8E8M0FNU: Final[DType]
    Int16: Final[DType]
    Int32: Final[DType]
    Int64: Final[DType]
    Int8: Final[DType]
    UInt16: Final[DType]
    UInt32: Final[DType]
    UInt64: Final[DType]
    UInt8: Final[DType]
    def __copy__(self, /) -> DType:
        """
        The value itself: it is immutable.
        """
    def __deepcopy__(self, /, _memo: Any) -> DType:
        """
        The value itself: it is immutable.
        """
    def __dlpack_data_type__(self, /) -> tuple:
        """
        `(code, bits, lanes)`: the DLPack data type, as plain ints.
        """
    def __eq__(self, other: object, /) -> Any: ...
    def __hash__(self, /) -> int: ...
    def __int__(self, /) -> int: ...
    def __int__(self, /) -> int:
        """
        A `TypeError`: a value is no number (PyO3 would give a fieldless enum's
        discriminant).
        """
    def __ne__(self, other: object, /) -> Any: ...
    def __new__(cls, /, obj: Any) -> DType:
        """
        The value of any object or name of its kind, as DLPack's readers read it.
        """
    def __reduce__(self, /) -> tuple[type, tuple]:
        """
        Pickled as `cls(name)`, its DLPack name.
        """
    def __repr__(self, /) -> str: ...
    def __repr__(self, /) -> str: ...
    def __str__(self, /) -> str: ...
    @property
    def dtype(self, /) -> Any:
        """
        The NumPy dtype (NumPy's `dtype`-attribute protocol, which JAX reads too).
        """
    @property
    def itemsize(self, /) -> int:
        """
        Bytes per element (1 for `float4_e2m1fn`, whose tensors hold two elements a byte).
        """

@final
class Device:
    """
    `dlpack_demo.Device`: a [`Device`] as a Python object, with `__dlpack_device__` (and no
    `__dlpack__`, so TVM FFI takes it for a device). A wrapper struct, because PyO3 refuses
    unit variants in a `#[pyclass]` enum with data; it derives `DlpackDevice` through
    [`Device`] (the newtype rule).

    `Device("cuda:0")`, `Device(paddle.CPUPlace())`, `Device(tvm_ffi.device("cpu"))`,
    `Device(torch.device("cpu"))`, `Device((1, 0))`: the constructor takes a device name, a
    `(device_type, device_id)` tuple or any device object. It is a value: it pickles, and
    `copy`/`deepcopy` return it as it is.
    """
    def __copy__(self, /) -> Device:
        """
        The value itself: it is immutable.
        """
    def __deepcopy__(self, /, _memo: Any) -> Device:
        """
        The value itself: it is immutable.
        """
    def __dlpack_device__(self, /) -> tuple:
        """
        `(device_type, device_id)`: the DLPack device, as plain ints.
        """
    def __eq__(self, other: object, /) -> Any: ...
    def __hash__(self, /) -> int: ...
    def __int__(self, /) -> int:
        """
        A `TypeError`: a value is no number (PyO3 would give a fieldless enum's
        discriminant).
        """
    def __ne__(self, other: object, /) -> Any: ...
    def __new__(cls, /, obj: Any) -> Device:
        """
        The value of any object or name of its kind, as DLPack's readers read it.
        """
    def __reduce__(self, /) -> tuple[type, tuple]:
        """
        Pickled as `cls(name)`, its DLPack name.
        """
    def __repr__(self, /) -> str: ...
    def __str__(self, /) -> str: ...
    @property
    def index(self, /) -> int:
        """
        The device id (0 for host memory).
        """
    @property
    def type(self, /) -> str:
        """
        The device type's name: `"cpu"`, `"cuda"`, … (as `torch.device` has it).
        """

@final
class Tensor:
    """
    `dlpack_demo.Tensor`: a strided n-dimensional array.
    """
    __dlpack_c_exchange_api__: Final[CapsuleType]
    """
    DLPack's C exchange API: a capsule of the type's table (see `tensor/exchange.rs`).
    """
    def __dlpack__(self, /, *, stream: Any | None = None, max_version: Any | None = None, dl_device: Any | None = None, copy: bool | None = None) -> CapsuleType:
        """
        The DLPack capsule one consumer asks for (the array API standard's
        `__dlpack__`): arguments checked, then `TensorClass::dlpack`.
        """
    def __dlpack_device__(self, /) -> tuple[int, int]:
        """
        `(device_type, device_id)`: where the tensor is, as plain ints.
        """
    def __repr__(self, /) -> str: ...
    def clone(self, /) -> Tensor:
        """
        `clone()`: a compact copy in new memory on the same device. On a CUDA device the copy
        is queued on the library's stream and `clone()` returns at once.
        """
    @property
    def data_ptr(self, /) -> int:
        """
        The address of the first element (a device address for a tensor on a GPU), as DLPack
        consumers see it (`data + byte_offset`): equal addresses mean shared memory.
        """
    @property
    def device(self, /) -> Device: ...
    @property
    def dtype(self, /) -> DType: ...
    def fill(self, /, value: Any) -> None:
        """
        Sets every element to `value`: a bool, an int (`__index__`), a float (`__float__`) or a
        complex number (`__complex__`; NumPy's scalars included) the dtype can hold; see
        `scalar.rs` for the rules.
        """
    @property
    def ndim(self, /) -> int: ...
    @property
    def readonly(self, /) -> bool:
        """
        Whether writing is refused (the producer flagged the data `READ_ONLY`).
        """
    def same_shape(self, /, other: TensorLike) -> bool:
        """
        `t.same_shape(other)`: whether any tensor on the CPU has this tensor's shape; a typed
        argument of a method, named `Tensor.same_shape` in its errors (`#[tensor_args]` above
        the block).
        """
    @property
    def shape(self, /) -> tuple:
        """
        The extents.
        """
    @property
    def size(self, /) -> int: ...
    @property
    def strides(self, /) -> tuple:
        """
        The strides, in elements.
        """
    def tolist(self, /) -> Any:
        """
        The elements as nested lists of Python scalars.
        """

def _exchange_table_v2(chained: bool) -> CapsuleType:
    """
    `_exchange_table_v2(chained)`: a `dlpack_exchange_api` capsule of a table of major version
    2, alone or with `Tensor`'s table as its `prev_api`, for the tests of consumers.
    """

def arange(n: SupportsIndex, dtype: DataTypeLike) -> Tensor:
    """
    `arange(n, dtype)`: `[0, 1, …, n - 1]` as a tensor of any dtype object.
    """

def arg_meta(x: Any, form: str = "read") -> tuple[tuple[str, list[int], list[int], int, int, tuple[int, int]], bool]:
    """
    `arg_meta(x, form="read")`: the metadata a typed argument of any data type, rank and device
    sees, and whether it holds an import (`TensorArg::into_tensor`; not for a tensor lent
    through its type's exchange table, nor a NumPy array read through its buffer). `form` is
    `"read"` (`ReadOnly`), `"write"` (`ReadWrite`) or `"owned"` (`Owned`).
    """

def device_of(obj: Any) -> Device:
    """
    The device of any device object (`paddle.CPUPlace()`, `tvm_ffi.device("cuda", 1)`, a
    `Device`, a name) or of any tensor (through its `__dlpack_device__`).
    """

def doubled(x: TensorLike) -> Any:
    """
    `doubled(x)`: `2 * x` for a float32 tensor of any library and shape, through a typed
    argument, handed back in the caller's library (`TensorArg::framework`), compact.
    """

def dtype_of(obj: Any) -> DType:
    """
    The dtype of any dtype object (`paddle.float16`, `tvm_ffi.dtype("int8")`, a
    `DType`, a name) or of any tensor (read from its DLPack export, without a copy).
    """

def empty(shape: SupportsGetItem[int, SupportsIndex], dtype: DataTypeLike, device: DeviceLike | None = None) -> Tensor:
    """
    `empty(shape, dtype, device=None)`: a new tensor (zeroed) of any dtype object
    (`paddle.float16`, `DType.float16`, `"float16"`) on the CPU (the default) or, built with
    the `cuda` feature, on a CUDA device (`device="cuda:0"`, or any device object naming
    it); zeroed there on the library's stream.
    """

def from_dlpack(obj: Any, /, *, device: DeviceLike | None = None, copy: bool | None = None) -> Any:
    """
    `from_dlpack(obj, /, *, device=None, copy=None)`, dispatching as the RFC proposes: a tensor
    (`__dlpack__`, or a DLPack capsule) becomes a `Tensor` (zero-copy unless `copy=True`),
    a dtype a `DType`, a device a `Device`: everything `dtype_of` and `device_of` take
    (protocol objects, names, `(device_type, device_id)` tuples, TVM FFI's devices, and
    the dtypes and devices of NumPy, ml_dtypes, JAX, PyTorch and array-api-strict).
    """

def gpu_nbytes(x: TensorLike) -> int:
    """
    `gpu_nbytes(x)`: the bytes of a tensor of any data type on a CUDA device (`require::Cuda`),
    read from its metadata alone, on the stream rule of `__dlpack__`; a tensor elsewhere is
    refused before the body runs.
    """

def live() -> dict:
    """
    What is alive on the Rust side: `{"tensors": …, "buffers": …, "exports": …,
    "imports": …}`. The tests check that every count returns to where it was.
    """

def mean(x: TensorLike) -> float:
    """
    `mean(x)`: the mean of a tensor of any data type with a Rust element type (a dispatch over
    `DataType`); a float8 one is refused by the dispatch, naming `mean()` and `x`.
    """

def nbytes(x: TensorLike) -> int:
    """
    `nbytes(x)`: the bytes the elements of any tensor of any library, of any dtype and on any
    device, take (packed sub-byte elements counted as stored), read from the typed argument's
    metadata: the cheapest kernel there is, so that its time is the argument's own.
    """

def nbytes_of_view(x: Any) -> int:
    """
    `nbytes_of_view(x)`: `nbytes` written with `with_tensor_view` and no typed argument, for
    the benchmark that compares the two.
    """

def negated(x: Any) -> Any:
    """
    `negated(x)`: `-x` for a float32 tensor of any library, handed back in that library (a
    NumPy array for a NumPy array, a PyTorch tensor for a PyTorch tensor, …) by
    `dlpack_core::python::Framework`, compact, without a copy of the result.
    """

def negated_rust(x: Any) -> Any:
    """
    `negated_rust(x)`: `negated`'s result as this crate's own tensor class, for the benchmark
    that converts it by hand in Python (`numpy.from_dlpack(negated_rust(x))`).
    """

def owned_and_written(a: TensorLike, b: TensorLike) -> float:
    """
    `owned_and_written(a, b)`: `a` held owned, `b` written.
    """

def read_then_write(a: TensorLike, b: TensorLike) -> tuple[float, float]:
    """
    `read_then_write(a, b)`: reads `a[0]`, adds 10 to `b[0]`, and returns what it read first
    and what it reads of `a[0]` after.
    """

def row_sums(x: TensorLike) -> list[float]:
    """
    `row_sums(x)`: the sum of each row of a compact float32 matrix.
    """

def scale(x: TensorLike, by: SupportsFloat | SupportsIndex) -> None:
    """
    `scale(x, by)`: multiplies the elements of a float32 or float64 tensor by `by`, in place.
    """

def sum(x: TensorLike) -> float:
    """
    `sum(x)`: the sum of the elements of any float32 or float64 tensor of any library, in any
    strides, as a float. `x` is a typed argument, checked before the body runs (a tensor of
    another dtype is a `TypeError` that names `sum` and `x`), borrowed through the type's
    exchange table without an allocation when it has one, through `__dlpack__` otherwise; the
    kernel is dispatched on its dtype.
    """

def total_detached(x: TensorLike) -> float:
    """
    `total_detached(x)`: the sum of a float64 vector, computed with the GIL released: the
    argument holds the imported tensor, and is `Send`.
    """

def view_meta(x: Any) -> tuple[str, list[int], list[int], int, int, tuple[int, int]]:
    """
    `view_meta(x)`: the metadata `with_tensor_view` lends of any tensor.
    """

def weighted_sum(x: TensorLike, weights: TensorLike | None = None) -> float:
    """
    `weighted_sum(x, weights=None)`: the sum of a float32 vector, each element times its
    weight when `weights` is given (an `Option<TensorArg>`, `None` when left out or `None`).
    """

def write_both(a: TensorLike, b: TensorLike) -> float:
    """
    `write_both(a, b)`: writes 1 to `a[0]`, then 2 to `b[0]`, and returns `a[0]`: 1.0, unless
    the two alias, which the borrow table refuses before the body runs.
    """

def write_calling(x: TensorLike, callback: Any) -> Any:
    """
    `write_calling(x, callback)`: holds `x` writable while `callback()` runs, then adds 1 to
    each element; returns what `callback()` returned.
    """

def write_failing(x: TensorLike, how: str) -> None:
    """
    `write_failing(x, how)`: holds `x` writable, then raises (`how="error"`) or panics
    (`how="panic"`): the argument is released either way.
    """

def write_importing(x: TensorLike, y: Any) -> float:
    """
    `write_importing(x, y)`: holds `x` writable and imports `y` (`import_tensor`) meanwhile,
    returning the sum of what it imported.
    """

def write_unnamed(a: TensorLike, b: TensorLike) -> float:
    """
    `write_unnamed(a, b)`: `write_both` without `#[tensor_args]`, whose refusal names neither.
    """

def write_viewing(x: TensorLike, y: Any) -> float:
    """
    `write_viewing(x, y)`: holds `x` writable and sums `y` through `with_tensor_view` meanwhile.
    """

def __getattr__(name: str) -> Incomplete: ...
