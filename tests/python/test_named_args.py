"""The frictions a kernel author met from the docs alone, each as Python sees it:
`#[tensor_args]` on `Option<TensorArg>` arguments and on the methods of a `#[pymethods]`
block, a dispatch's error naming the function and the argument, "an int32", and `copy=` and
`dtype=` refusals that name the function and the argument and say what was expected.
"""

import re

import pytest

np = pytest.importorskip("numpy")
dlpack_demo = pytest.importorskip("dlpack_demo")


def whole(text, argument):
    """`text` matched from start to end, with PyO3's "while processing" note allowed."""
    return "^" + re.escape(text) + f"(\nwhile processing '{argument}')?$"


def test_an_optional_tensor_argument_is_named_and_none_when_left_out():
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    assert dlpack_demo.weighted_sum(x) == 6.0
    assert dlpack_demo.weighted_sum(x, None) == 6.0
    assert dlpack_demo.weighted_sum(x, weights=np.array([1, 0, 2], dtype=np.float32)) == 7.0
    with pytest.raises(TypeError, match=whole(
            "weighted_sum(): argument 'weights' must be a float32 tensor with 1 dimension on "
            "cpu, got an int64 numpy.ndarray with shape (3,)", "weights")):
        dlpack_demo.weighted_sum(x, np.array([1, 2, 3], dtype=np.int64))


def test_a_method_of_a_pymethods_block_takes_a_named_tensor_argument():
    t = dlpack_demo.arange(6, "float32")
    assert t.same_shape(np.zeros(6))
    assert not t.same_shape(np.zeros((2, 3)))
    with pytest.raises(TypeError, match=whole(
            "Tensor.same_shape(): argument 'other' must be a tensor on cpu, got a list",
            "other")):
        t.same_shape([1, 2])


def test_a_mean_over_every_data_type():
    assert dlpack_demo.mean(np.array([1, 2, 6], dtype=np.int64)) == 3.0
    assert dlpack_demo.mean(np.array([0, 255], dtype=np.uint8)) == 127.5
    assert dlpack_demo.mean(np.array([True, False, True, True])) == 0.75
    assert dlpack_demo.mean(np.array([1.0, 2.0], dtype=np.float32)) == 1.5


def test_a_dispatch_error_names_the_function_and_the_argument():
    # The demo is built without `half`: float16 has no Rust element type there, and the
    # dispatch inside `mean` refuses it, naming the function and the argument.
    with pytest.raises(TypeError, match=(
            r"^mean\(\): argument 'x': float16 has no Rust element type; a dispatch over "
            r"DataType runs kernels on bool, int8, ")):
        dlpack_demo.mean(np.array([1.0, 2.0], dtype=np.float16))


def test_a_float8_dispatch_error_names_them_too():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.zeros(2, dtype=ml_dtypes.float8_e4m3fn)
    try:
        dlpack_demo.mean(x)
    except BufferError:
        pytest.skip("this NumPy exports no float8 array through DLPack or its buffer")
    except TypeError as err:
        assert str(err).startswith("mean(): argument 'x': float8_e4m3fn has no Rust element type")
    else:
        pytest.fail("a float8 tensor reached a kernel")


def test_copy_that_is_not_a_bool_says_what_was_expected():
    x = np.arange(3.0)
    with pytest.raises(TypeError, match=whole(
            "from_dlpack(): argument 'copy' must be True, False or None, got 'yes'", "copy")):
        dlpack_demo.from_dlpack(x, copy="yes")
    assert dlpack_demo.from_dlpack(x, copy=None) is not None
    assert dlpack_demo.from_dlpack(x, copy=True) is not None


def test_a_bad_dtype_names_the_function_and_the_argument():
    with pytest.raises(ValueError, match=r"^arange\(\): argument 'dtype': `flaot32` is not a data type"):
        dlpack_demo.arange(3, "flaot32")
    with pytest.raises(TypeError, match=r"^empty\(\): argument 'dtype': "):
        dlpack_demo.empty((2,), 1.5)
