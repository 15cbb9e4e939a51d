"""The three DLPack roles as `typing.Protocol`s, for type checkers and `isinstance`.

The stubs of an extension built with dlpack-core's `inspect` feature name these: a typed
tensor argument (`TensorArg`) is a `TensorLike`, a `DataTypeLike` argument any dtype, a
`DeviceLike` argument any device. The file is the same for every such extension (copy it into
your wheel beside your module, as examples/python/pyproject.toml does); it needs nothing but
the standard library at run time, and names NumPy and PyTorch types for type checkers only.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Protocol, Union, runtime_checkable

if sys.version_info >= (3, 10):
    from typing import TypeAlias
else:  # pragma: no cover - the extension needs 3.10
    from typing_extensions import TypeAlias

if TYPE_CHECKING:
    import numpy
    import torch

__all__ = [
    "SupportsDLPack",
    "SupportsDLPackDataType",
    "SupportsDLPackDevice",
    "TensorLike",
    "DataTypeLike",
    "DeviceLike",
]


@runtime_checkable
class SupportsDLPackDevice(Protocol):
    """A device: `__dlpack_device__()` returns DLPack's `(device_type, device_id)`."""

    def __dlpack_device__(self) -> tuple[int, int]: ...


@runtime_checkable
class SupportsDLPack(Protocol):
    """A tensor: `__dlpack__()` returns a DLPack capsule of it, `__dlpack_device__()` its device.

    Only the call without arguments is required of `__dlpack__` here, so that every producer's
    own signature (NumPy's, PyTorch's, JAX's, yours) satisfies it.
    """

    def __dlpack__(self) -> Any: ...

    def __dlpack_device__(self) -> tuple[int, int]: ...


@runtime_checkable
class SupportsDLPackDataType(Protocol):
    """A dtype: `__dlpack_data_type__()` returns DLPack's `(code, bits, lanes)`."""

    def __dlpack_data_type__(self) -> tuple[int, int, int]: ...


@runtime_checkable
class _HasNumPyDType(Protocol):
    """A type whose `dtype` is a NumPy dtype: JAX's scalar types (`jax.numpy.float32`)."""

    @property
    def dtype(self) -> numpy.dtype[Any]: ...


TensorLike: TypeAlias = SupportsDLPack
"""What a typed tensor argument (`TensorArg`) takes: any object that speaks DLPack."""

DataTypeLike: TypeAlias = Union[
    SupportsDLPackDataType,
    str,
    "numpy.dtype[Any]",
    "type[numpy.generic]",
    "torch.dtype",
    _HasNumPyDType,
]
"""What a `DataTypeLike` argument takes: a dtype that speaks the protocol, a name
(`"float16"`), or a dtype of NumPy, ml_dtypes (NumPy scalar types), JAX or PyTorch."""

DeviceLike: TypeAlias = Union[
    SupportsDLPackDevice,
    str,
    tuple[int, int],
    "torch.device",
]
"""What a `DeviceLike` argument takes: a device that speaks the protocol, a name (`"cuda:0"`),
a `(device_type, device_id)` pair, or a PyTorch device."""
