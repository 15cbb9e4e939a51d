"""Typed tensor arguments (`dlpack_core::python::TensorArg`) against every peer: what each
form checks before the function body runs, the TypeError that names the function, the
argument, what was expected and what was given, and that nothing is copied or leaked.

`dlpack_demo.sum(x)` takes a float32 or float64 tensor (`TensorArg<'_, Real>`, its kernel
dispatched on the dtype), `nbytes(x)` any tensor on any device, `row_sums(x)` a compact
float32 matrix, `scale(x, by)` a writable float tensor, `total_detached(x)` a float64 vector
held owned and read without the GIL.
"""

import re

import numpy as np
import pytest

import dlpack_demo


def message(function, argument, expected, given):
    """The whole message, as a regular expression matched from start to end (pytest matches
    the notes too, where PyO3 adds "while processing 'x'" from Python 3.11 on)."""
    text = f"{function}(): argument '{argument}' must be {expected}, got {given}"
    return "^" + re.escape(text) + f"(\nwhile processing '{argument}')?$"


# One constructor per peer: a float32 vector [1, 2, 3], a float64 one, an int32 one, and the
# name Python gives the class in messages.
def peers():
    made = [("numpy", lambda a: np.asarray(a), "numpy.ndarray")]
    try:
        import torch
        made.append(("torch", lambda a: torch.from_numpy(np.ascontiguousarray(a)), "torch.Tensor"))
    except ImportError:
        pass
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        made.append(("jax", lambda a: jnp.asarray(a), None))
    except ImportError:
        pass
    try:
        import paddle
        made.append(("paddle", lambda a: paddle.to_tensor(a), "paddle.Tensor"))
    except ImportError:
        pass
    try:
        import tvm_ffi
        made.append(("tvm_ffi", lambda a: tvm_ffi.from_dlpack(np.asarray(a)), None))
    except ImportError:
        pass
    made.append(("dlpack_demo", lambda a: dlpack_demo.from_dlpack(np.asarray(a)), "dlpack_demo.Tensor"))
    return made


PEERS = peers()


@pytest.mark.parametrize("name,make,class_name", PEERS, ids=[p[0] for p in PEERS])
def test_every_peer_is_taken_without_a_copy(name, make, class_name):
    floats = make(np.array([1.0, 2.0, 3.5], dtype=np.float32))
    assert dlpack_demo.sum(floats) == 6.5
    doubles = make(np.arange(6, dtype=np.float64).reshape(2, 3))
    assert dlpack_demo.sum(doubles) == 15.0
    assert dlpack_demo.nbytes(doubles) == 48
    assert dlpack_demo.row_sums(make(np.ones((2, 3), dtype=np.float32))) == [3.0, 3.0]


@pytest.mark.parametrize("name,make,class_name", PEERS, ids=[p[0] for p in PEERS])
def test_a_mismatch_names_the_function_the_argument_and_both_sides(name, make, class_name):
    given_class = class_name or re.escape(type(make(np.zeros(1, np.float32))).__module__)
    ints = make(np.arange(3, dtype=np.int32))
    cls = class_name or f"{type(ints).__module__}.{type(ints).__qualname__}"
    with pytest.raises(TypeError) as err:
        dlpack_demo.sum(ints)
    assert str(err.value) == (
        f"sum(): argument 'x' must be a float32 or float64 tensor on cpu, got a int32 {cls} "
        "with shape (3,)"
    )
    vector = make(np.zeros(3, dtype=np.float64))
    with pytest.raises(TypeError) as err:
        dlpack_demo.row_sums(vector)
    assert str(err.value) == (
        "row_sums(): argument 'x' must be a compact float32 tensor with 2 dimensions on cpu, "
        f"got a float64 {cls} with shape (3,)"
    )
    assert given_class


def test_the_issue_example_against_numpy():
    with pytest.raises(TypeError, match=message(
            "row_sums", "x", "a compact float32 tensor with 2 dimensions on cpu",
            "a float64 numpy.ndarray with shape (3,)")):
        dlpack_demo.row_sums(np.zeros(3))


def test_what_is_no_tensor_is_named_by_its_class():
    with pytest.raises(TypeError, match=message(
            "sum", "x", "a float32 or float64 tensor on cpu", "a list")):
        dlpack_demo.sum([1.0, 2.0])
    with pytest.raises(TypeError, match="got a int(\nwhile processing 'x')?$"):
        dlpack_demo.nbytes(3)


def test_compact_refuses_other_strides_and_says_so():
    a = np.ones((4, 4), dtype=np.float32)[:, ::2]
    with pytest.raises(TypeError, match="got a non-compact float32 numpy.ndarray with shape \\(4, 2\\)(\n|$)"):
        dlpack_demo.row_sums(a)
    # The strided form reads any strides.
    assert dlpack_demo.sum(a) == 8.0


def test_read_write_writes_in_place_and_refuses_read_only():
    a = np.arange(4, dtype=np.float64)
    dlpack_demo.scale(a, 2.0)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0]
    b = np.arange(4, dtype=np.float32)[::2]
    dlpack_demo.scale(b, -1.0)
    assert b.tolist() == [-0.0, -2.0]
    frozen = np.arange(3, dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match=message(
            "scale", "x", "a writable float32 or float64 tensor on cpu",
            "a read-only float32 numpy.ndarray with shape (3,)")):
        dlpack_demo.scale(frozen, 2.0)
    assert frozen.tolist() == [0.0, 1.0, 2.0]


def test_read_write_against_torch():
    torch = pytest.importorskip("torch")
    t = torch.arange(3, dtype=torch.float32)
    dlpack_demo.scale(t, 3.0)
    assert t.tolist() == [0.0, 3.0, 6.0]


def test_owned_reads_without_the_gil():
    assert dlpack_demo.total_detached(np.arange(5, dtype=np.float64)) == 10.0
    with pytest.raises(TypeError, match=message(
            "total_detached", "x", "a float64 tensor with 1 dimension on cpu",
            "a float64 numpy.ndarray with shape (2, 2)")):
        dlpack_demo.total_detached(np.zeros((2, 2)))


def test_nbytes_takes_any_dtype_and_device():
    assert dlpack_demo.nbytes(dlpack_demo.empty((5,), "float4_e2m1fn")) == 3
    assert dlpack_demo.nbytes(np.zeros((2, 2), dtype=np.int8)) == 4


def test_paddle_and_jax_messages():
    paddle = pytest.importorskip("paddle")
    with pytest.raises(TypeError, match=message(
            "sum", "x", "a float32 or float64 tensor on cpu",
            "a int64 paddle.Tensor with shape (2,)")):
        dlpack_demo.sum(paddle.to_tensor(np.array([1, 2], dtype=np.int64)))
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.zeros((2,), dtype=jnp.int32)
    cls = f"{type(x).__module__}.{type(x).__qualname__}"
    with pytest.raises(TypeError, match=message(
            "sum", "x", "a float32 or float64 tensor on cpu", f"a int32 {cls} with shape (2,)")):
        dlpack_demo.sum(x)


def test_torch_message():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=message(
            "row_sums", "x", "a compact float32 tensor with 2 dimensions on cpu",
            "a float64 torch.Tensor with shape (3,)")):
        dlpack_demo.row_sums(torch.zeros(3, dtype=torch.float64))


def test_nothing_leaks_when_extraction_fails():
    a = np.zeros(3)
    for _ in range(1000):
        with pytest.raises(TypeError):
            dlpack_demo.row_sums(a)
        with pytest.raises(TypeError):
            dlpack_demo.total_detached(np.zeros((1, 1)))
    # The fixture checks that every live count is back where it was; NumPy's own refcount
    # of the array is back too.
    import sys
    assert sys.getrefcount(a) <= 3
