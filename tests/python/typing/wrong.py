"""Wrong uses of dlpack_demo: each line marked `# E: <code>` is an error mypy must report there,
and no other line may have one (tests/python/typing/check.sh). Never run: only checked."""

import numpy
import torch

import dlpack_demo
from dlpack_demo import DType

a = dlpack_demo.empty((2, 3))  # E: call-arg
b = dlpack_demo.dlpack.data_type(3.5)  # E: arg-type
c = dlpack_demo.dlpack.device(1.0)  # E: arg-type
d = dlpack_demo.write_unnamed(DType.Float32, numpy.zeros(2))  # E: arg-type
e = dlpack_demo.write_unnamed(numpy.zeros(2), torch.float32)  # E: arg-type
f = dlpack_demo.dlpack.data_type(torch.device("cpu"))  # E: arg-type
g: DType = dlpack_demo.empty((1,), "int8").device  # E: assignment
# `#[tensor_args]` arguments: a dtype, a number or a name where a tensor belongs, a device where a
# dtype belongs, a float for a device, a missing tensor.
h = dlpack_demo.sum(DType.Float32)  # E: arg-type
i = dlpack_demo.mean(torch.float32)  # E: arg-type
j = dlpack_demo.weighted_sum(numpy.ones(2), weights=1.0)  # E: arg-type
k = dlpack_demo.arange(3, torch.device("cpu"))  # E: arg-type
m = dlpack_demo.empty((1,), "int8", device=1.5)  # E: arg-type
n = dlpack_demo.sum()  # E: call-arg
o = dlpack_demo.empty((2,), "float32").same_shape("float32")  # E: arg-type
print(a, b, c, d, e, f, g, h, i, j, k, m, n, o)
