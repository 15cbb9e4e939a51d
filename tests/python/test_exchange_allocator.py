"""A C++ function built with `tvm_ffi.cpp.load_inline` allocates its result through the
environment's tensor allocator (`TVMFFIEnvTensorAlloc`, which calls the allocator
`TVMFFIEnvGetDLPackManagedTensorAllocator` returns): called with a `dlpack_demo.Tensor`, TVM FFI
sets our table's allocator for the call, so the result is allocated by `dlpack_demo` and comes
back as a `dlpack_demo.Tensor`, and our allocator's failures arrive through `SetError`.

The library is compiled once (a few seconds with g++) and cached by TVM FFI between runs, in
`$TVM_FFI_CACHE_DIR` (default `~/.cache/tvm-ffi`), keyed by the source.
"""

import shutil

import pytest

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")

np = pytest.importorskip("numpy")

SOURCE = r"""
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>

// y[i] = x[i] + 1 for i < n (x is 1-d float32), y allocated by the environment's allocator.
tvm::ffi::Tensor plus_one(tvm::ffi::TensorView x, int64_t n) {
  TVM_FFI_ICHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() != nullptr)
      << "no environment allocator";
  tvm::ffi::Tensor y = tvm::ffi::Tensor::FromEnvAlloc(
      TVMFFIEnvTensorAlloc, tvm::ffi::Shape({n}), x.dtype(), x.device());
  const float* in = static_cast<const float*>(x.data_ptr());
  float* out = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < n; ++i) out[i] = (i < x.numel() ? in[i] : 0.0f) + 1.0f;
  return y;
}
"""


@pytest.fixture(scope="module")
def plus_one():
    tvm_ffi = pytest.importorskip("tvm_ffi")
    import tvm_ffi.cpp

    if shutil.which("g++") is None and shutil.which("c++") is None:
        pytest.skip("no C++ compiler to build the load_inline module")
    if shutil.which("ninja") is None:
        # load_inline runs `ninja` from PATH, even for a module it has cached.
        pytest.skip("tvm_ffi.cpp.load_inline builds with ninja, which is not on PATH "
                    "(pip install ninja; scripts/python-tests.sh installs it but with --numpy-only)")
    module = tvm_ffi.cpp.load_inline(name="dlpack_demo_exchange_allocator",
                                     cpp_sources=SOURCE, functions=["plus_one"])
    return module.plus_one


def test_a_cpp_function_allocates_our_tensor_type(plus_one):
    x = dlpack_demo.from_dlpack(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    y = plus_one(x, 4)
    assert type(y) is dlpack_demo.Tensor
    assert y.tolist() == [2.0, 3.0, 4.0, 1.0]
    assert y.data_ptr != x.data_ptr
    assert str(y.dtype) == "float32"
    # A NumPy argument brings no table, so no allocator: the allocator is ours, set by TVM FFI
    # for the call from our type's table.
    with pytest.raises(RuntimeError, match="no environment allocator"):
        plus_one(np.zeros(2, dtype=np.float32), 2)


def test_an_allocator_failure_arrives_through_set_error(plus_one):
    x = dlpack_demo.from_dlpack(np.zeros(1, dtype=np.float32))
    # Our allocator refuses (a ValueError: the size overflows), reports it through SetError
    # with the kind "ValueError", and TVM FFI raises that.
    with pytest.raises(ValueError, match=r"shape \[2305843009213693952\] is too large"):
        plus_one(x, 2**61)


def test_nothing_leaks_over_many_allocations(plus_one):
    x = dlpack_demo.from_dlpack(np.zeros(4, dtype=np.float32))
    for _ in range(10_000):
        plus_one(x, 4)
    for _ in range(100):
        with pytest.raises(ValueError):
            plus_one(x, 2**61)
    # The fixture checks that every live count is back where it was.
