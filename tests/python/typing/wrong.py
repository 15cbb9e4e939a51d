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
print(a, b, c, d, e, f, g)
