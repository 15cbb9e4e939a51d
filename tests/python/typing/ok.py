"""Correct uses of dlpack_demo with NumPy and PyTorch: mypy --strict finds no error in this
file against the extension's stubs (tests/python/typing/check.sh). Never run: only checked."""

import numpy
import torch
import torch.utils.dlpack

import dlpack_demo
from dlpack_demo import DType, Device, Tensor
from dlpack_demo.dlpack import DataType
from dlpack_typing import SupportsDLPack, SupportsDLPackDataType, SupportsDLPackDevice

# Any dtype: ours, a name, NumPy's, PyTorch's; any device: ours, a name, PyTorch's, a pair.
a: Tensor = dlpack_demo.empty((2, 3), DType.Float32)
b = dlpack_demo.empty([4], "float16", device="cpu")
c = dlpack_demo.empty((2,), numpy.float64, device=torch.device("cpu"))
d = dlpack_demo.arange(5, torch.int32)
e = dlpack_demo.empty((1,), numpy.dtype("int8"), Device("cpu"))
f = dlpack_demo.empty((1,), DataType("bfloat16"), (1, 0))

# Our classes speak the three protocols.
tensor: SupportsDLPack = a
dtype: SupportsDLPackDataType = a.dtype
device: SupportsDLPackDevice = a.device
code, bits, lanes = DType.Float16.__dlpack_data_type__()
device_type, device_id = a.__dlpack_device__()
shape: tuple[int, ...] = a.shape

# Tensors of every library go to NumPy and PyTorch, and typed arguments take theirs.
x = numpy.from_dlpack(a)
y = torch.utils.dlpack.from_dlpack(b)
print(dlpack_demo.write_unnamed(numpy.zeros(2), torch.zeros(2)))

# `#[tensor_args]` arguments are typed as what they take: any tensor, any dtype, any device.
total: float = dlpack_demo.sum(numpy.ones(3, dtype=numpy.float32))
average: float = dlpack_demo.mean(torch.ones(2, 2))
weighted = dlpack_demo.weighted_sum(torch.ones(3), numpy.ones(3, dtype=numpy.float32))
unweighted = dlpack_demo.weighted_sum(numpy.ones(3, dtype=numpy.float32), weights=None)
dlpack_demo.scale(numpy.ones(3), 2.0)
same: bool = a.same_shape(torch.zeros(2, 3))
nbytes: int = dlpack_demo.nbytes(a)
twice = dlpack_demo.doubled(numpy.ones(2, dtype=numpy.float32))
g = dlpack_demo.arange(3, numpy.dtype("uint8"))
h = dlpack_demo.empty((2,), torch.float16, torch.device("cpu"))
i = dlpack_demo.from_dlpack(torch.zeros(2), device="cpu", copy=True)
print(total, average, weighted, unweighted, same, nbytes, twice, g, h, i)
print(dlpack_demo.dlpack.data_type(numpy.float32).bits)
print(dlpack_demo.dlpack.device(torch.device("cpu")).device_type)
print(c, d, e, f, x, y, tensor, dtype, device, code, bits, lanes, device_type, device_id, shape)
