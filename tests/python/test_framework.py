"""Results in the caller's framework (`dlpack_core::python::Framework`): `dlpack_demo.negated(x)`
computes `-x` in Rust and hands it back through the `from_dlpack` of `x`'s own library — a NumPy
array for a NumPy array, a PyTorch tensor for a PyTorch tensor, and so on for every installed
peer — found once per class; without a copy of the result; and as `dlpack_core`'s own `Tensor`
where the class's library offers no `from_dlpack`.
"""

import pytest

np = pytest.importorskip("numpy")
dlpack_demo = pytest.importorskip("dlpack_demo")


def peers():
    """(name, make a float32 tensor from a list, the class the result must be, read back)."""
    made = [("numpy", lambda v: np.asarray(v, dtype=np.float32), np.ndarray, lambda t: t.tolist())]
    try:
        import torch

        made.append(("torch", lambda v: torch.tensor(v, dtype=torch.float32), torch.Tensor, lambda t: t.tolist()))
    except ImportError:
        pass
    try:
        import jax
        import jax.numpy as jnp

        made.append(("jax", lambda v: jnp.asarray(v, dtype=jnp.float32), jax.Array, lambda t: np.asarray(t).tolist()))
    except ImportError:
        pass
    try:
        import paddle

        made.append(("paddle", lambda v: paddle.to_tensor(v, dtype="float32"), paddle.Tensor, lambda t: t.tolist()))
    except ImportError:
        pass
    try:
        import tvm_ffi

        made.append(
            ("tvm_ffi", lambda v: tvm_ffi.from_dlpack(np.asarray(v, dtype=np.float32)), tvm_ffi.Tensor,
             lambda t: np.from_dlpack(t).tolist())
        )
    except ImportError:
        pass
    try:
        import array_api_strict as xp

        made.append(("array_api_strict", lambda v: xp.asarray(v, dtype=xp.float32), type(xp.asarray(0.0)),
                     lambda t: np.asarray(t).tolist()))
    except ImportError:
        pass
    made.append(
        ("dlpack_demo", lambda v: dlpack_demo.from_dlpack(np.asarray(v, dtype=np.float32)), dlpack_demo.Tensor,
         lambda t: t.tolist())
    )
    return made


PEERS = peers()


@pytest.mark.parametrize("name,make,cls,values", PEERS, ids=[p[0] for p in PEERS])
def test_the_result_comes_back_in_the_callers_library(name, make, cls, values):
    x = make([[1.0, -2.0, 3.0], [0.5, 0.0, -4.0]])
    result = dlpack_demo.negated(x)
    assert isinstance(result, cls), type(result)
    assert values(result) == [[-1.0, 2.0, -3.0], [-0.5, -0.0, 4.0]]
    # Found once per class, the same the second time.
    assert type(dlpack_demo.negated(x)) is type(result)


@pytest.mark.parametrize("name,make,cls,values", PEERS, ids=[p[0] for p in PEERS])
def test_a_typed_argument_hands_its_result_to_its_callers_library(name, make, cls, values):
    result = dlpack_demo.doubled(make([1.0, 2.5]))
    assert isinstance(result, cls) and values(result) == [2.0, 5.0]


def test_numpy_gets_the_result_without_a_copy():
    result = dlpack_demo.negated(np.ones(4, dtype=np.float32))
    # NumPy's `from_dlpack` keeps the producer's memory: the array does not own its data, and
    # may be written, as the kernel's own result.
    assert not result.flags.owndata and result.flags.writeable
    result[0] = 7.0
    assert result.tolist() == [7.0, -1.0, -1.0, -1.0]


def test_a_class_without_a_library_gets_the_crates_tensor():
    class Bare:
        """A producer whose module offers no `from_dlpack` (this test module)."""

        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    result = dlpack_demo.negated(Bare(np.ones(2, dtype=np.float32)))
    assert type(result).__name__ == "Tensor" and type(result) is not dlpack_demo.Tensor
    assert np.from_dlpack(result).tolist() == [-1.0, -1.0]
    # Handed over once: a second consumer is refused with the reason.
    with pytest.raises(BufferError, match="handed over"):
        np.from_dlpack(result)


def test_the_hand_written_conversion_agrees():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert np.from_dlpack(dlpack_demo.negated_rust(x)).tolist() == dlpack_demo.negated(x).tolist()
