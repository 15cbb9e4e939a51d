"""DLPack 1.3's C exchange API (`__dlpack_c_exchange_api__`): `dlpack_demo.Tensor` publishes
the table, and `dlpack_demo.from_dlpack` (dlpack_core's consumer) uses the tables of PaddlePaddle,
TVM FFI and our own before `__dlpack__`.

Which path a call took is proved, not assumed: a class whose `__dlpack__` raises can only be
imported through its table, and a class that publishes our table without being our tensor gets
the table's own error.
"""

import pytest

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")

np = pytest.importorskip("numpy")


def ours(values, dtype="float32"):
    """A `dlpack_demo.Tensor` holding `values` (through NumPy, imported without a copy)."""
    return dlpack_demo.from_dlpack(np.asarray(values, dtype=dtype))


class Refusing:
    """A tensor class that publishes a given table and refuses `__dlpack__`."""

    def __init__(self, inner):
        self.inner = inner

    def __dlpack__(self, **kwargs):
        raise RuntimeError("__dlpack__ was called")

    def __dlpack_device__(self):
        return (1, 0)


def test_the_table_is_published_on_the_type():
    capsule = dlpack_demo.Tensor.__dlpack_c_exchange_api__
    assert type(capsule).__name__ == "PyCapsule"
    assert "dlpack_exchange_api" in repr(capsule)
    # The same table for every access (one static table for the type).
    assert capsule is dlpack_demo.Tensor.__dlpack_c_exchange_api__ or repr(capsule).split(" at ")[0] == repr(dlpack_demo.Tensor.__dlpack_c_exchange_api__).split(" at ")[0]


def publishing(table, name="Publishing"):
    """A class like `Refusing` whose own `__dict__` holds `table` beside its `__dlpack__`: the
    consumer takes a table only from the class whose `__dlpack__` the object has."""
    return type(name, (), {"__init__": Refusing.__init__, "__dlpack__": Refusing.__dlpack__,
                           "__dlpack_device__": Refusing.__dlpack_device__,
                           "__dlpack_c_exchange_api__": table})


def test_paddle_tensors_are_imported_through_paddles_table(monkeypatch):
    paddle = pytest.importorskip("paddle")
    source = paddle.to_tensor([1.5, 2.5, 3.5], dtype="float32")

    def refusing(self, *args, **kwargs):
        raise RuntimeError("__dlpack__ was called")

    monkeypatch.setattr(paddle.Tensor, "__dlpack__", refusing)
    with pytest.raises(RuntimeError, match="__dlpack__ was called"):
        source.__dlpack__()
    t = dlpack_demo.from_dlpack(source)
    assert isinstance(t, dlpack_demo.Tensor)
    assert t.tolist() == [1.5, 2.5, 3.5]
    assert t.data_ptr == source.data_ptr()
    # The borrowed path goes through the same table.
    assert dlpack_demo.sum(source) == 7.5


def test_a_subclass_that_overrides_dlpack_is_asked_through_it():
    paddle = pytest.importorskip("paddle")

    class Counting(paddle.Tensor):
        calls = 0

        def __dlpack__(self, *args, **kwargs):
            type(self).calls += 1
            return super().__dlpack__(*args, **kwargs)

    # Its base's table would skip what its own __dlpack__ does.
    source = Counting(paddle.to_tensor([1.5, 2.5], dtype="float32"))
    assert dlpack_demo.from_dlpack(source).tolist() == [1.5, 2.5]
    assert Counting.calls == 1


def test_ours_consume_ours_through_our_table():
    t = ours([1.0, 2.0, 3.0])
    back = dlpack_demo.from_dlpack(t)
    assert back.data_ptr == t.data_ptr and back.tolist() == [1.0, 2.0, 3.0]
    # An object of another class that publishes our table reaches our table's function,
    # which refuses it with a TypeError naming both classes: the table came first. The
    # consumer then asks __dlpack__, the protocol's authority, whose error it raises with the
    # table's as its context (as Python chains an exception raised while handling another).
    Impostor = publishing(dlpack_demo.Tensor.__dlpack_c_exchange_api__, "Impostor")
    for attempt in (dlpack_demo.from_dlpack, dlpack_demo.sum):
        with pytest.raises(RuntimeError, match="__dlpack__ was called") as raised:
            attempt(Impostor(t))
        assert isinstance(raised.value.__context__, TypeError)
        assert "belongs to Tensor, and was given a Impostor" in str(raised.value.__context__)


def test_tvm_ffi_consumes_ours_through_our_table():
    tvm_ffi = pytest.importorskip("tvm_ffi")
    t = ours([[1, 2], [3, 4]], dtype="int32")
    x = tvm_ffi.from_dlpack(t)
    assert tuple(x.shape) == (2, 2) and str(x.dtype) == "int32"
    assert np.from_dlpack(x).tolist() == [[1, 2], [3, 4]]
    Impostor = publishing(dlpack_demo.Tensor.__dlpack_c_exchange_api__, "Impostor")
    # TVM FFI falls back to __dlpack__ only on a BufferError; our TypeError arrives as it is.
    with pytest.raises(TypeError, match="belongs to Tensor"):
        tvm_ffi.from_dlpack(Impostor(t))


def test_a_tvm_ffi_function_hands_back_our_tensor_type():
    tvm_ffi = pytest.importorskip("tvm_ffi")
    echo = tvm_ffi.get_global_func("testing.echo")
    t = ours([1.0, 2.0, 3.0])
    back = echo(t)
    assert type(back) is dlpack_demo.Tensor
    assert back.data_ptr == t.data_ptr and back.tolist() == [1.0, 2.0, 3.0]
    # A NumPy array has no table: TVM FFI's own tensor comes back.
    assert type(echo(np.zeros(3))).__module__.startswith("tvm_ffi")


def test_tvm_ffi_tensors_are_imported():
    tvm_ffi = pytest.importorskip("tvm_ffi")
    x = tvm_ffi.from_dlpack(np.arange(6, dtype=np.float64).reshape(2, 3))
    t = dlpack_demo.from_dlpack(x)
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert dlpack_demo.sum(x) == 15.0


def test_a_table_of_major_version_2_is_refused_cleanly():
    t = ours([4.0, 5.0])

    class Newer:
        __dlpack_c_exchange_api__ = dlpack_demo._exchange_table_v2(False)

        def __init__(self, inner):
            self.inner, self.calls = inner, 0

        def __dlpack__(self, **kwargs):
            self.calls += 1
            return self.inner.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return (1, 0)

    newer = Newer(t)
    assert dlpack_demo.from_dlpack(newer).tolist() == [4.0, 5.0]
    assert newer.calls == 1, "no table of major version 1: __dlpack__ is asked"
    assert dlpack_demo.sum(newer) == 9.0 and newer.calls == 2


def test_a_newer_table_is_walked_back_to_major_version_1():
    t = ours([4.0, 5.0])
    Chained = publishing(dlpack_demo._exchange_table_v2(True), "Chained")
    # prev_api leads to our table, whose function refuses the object: the chain was walked.
    with pytest.raises(RuntimeError, match="__dlpack__ was called") as raised:
        dlpack_demo.from_dlpack(Chained(t))
    assert "belongs to Tensor, and was given a Chained" in str(raised.value.__context__)


def test_a_read_only_tensor_is_lent_through_the_owning_path():
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    t = dlpack_demo.from_dlpack(a)
    assert t.readonly
    # A DLTensor cannot say "read-only": the borrowed export refuses with a BufferError, and
    # the consumer falls back to the owning export, which can.
    assert dlpack_demo.sum(t) == 6.0
    assert dlpack_demo.from_dlpack(t).readonly


def test_the_borrowed_view_reads_any_tensor():
    assert dlpack_demo.sum(np.arange(5, dtype=np.float32)) == 10.0
    assert dlpack_demo.sum(np.arange(6, dtype=np.float64)[::2]) == 6.0
    assert dlpack_demo.sum(ours([0.5, 0.25])) == 0.75
    with pytest.raises(TypeError, match=r"^sum\(\): argument 'x' must be a float32 or float64 "
                       r"tensor on cpu, got an int64 numpy.ndarray with shape \(3,\)"):
        dlpack_demo.sum(np.arange(3))
    with pytest.raises(TypeError, match="must be a float32 or float64 tensor on cpu, got a list"):
        dlpack_demo.sum([1.0, 2.0])


N = 10_000


def test_nothing_leaks_over_many_exchanges():
    tvm_ffi = pytest.importorskip("tvm_ffi")
    paddle = pytest.importorskip("paddle")

    echo = tvm_ffi.get_global_func("testing.echo")
    t = ours(np.arange(8))
    p = paddle.to_tensor(np.arange(8, dtype=np.float32))
    x = tvm_ffi.from_dlpack(np.arange(8, dtype=np.float32))
    for _ in range(N):
        dlpack_demo.from_dlpack(t)        # our table: from_py_object
        dlpack_demo.from_dlpack(p)        # Paddle's table
        dlpack_demo.from_dlpack(x)        # __dlpack__
        dlpack_demo.sum(t)                # our table: dltensor_from_py_object
        dlpack_demo.sum(p)                # Paddle's borrowed export
        tvm_ffi.from_dlpack(t)            # TVM FFI through our table
        echo(t)                           # from_py_object, then to_py_object
    # The fixture checks that every live count is back where it was.


def test_nbytes_reads_the_borrowed_view_of_any_tensor():
    paddle = pytest.importorskip("paddle")

    assert dlpack_demo.nbytes(np.zeros((8, 8), np.float32)) == 256
    assert dlpack_demo.nbytes(ours(np.zeros(3))) == 12
    assert dlpack_demo.nbytes(paddle.zeros((2, 3), dtype="float64")) == 48
    assert dlpack_demo.nbytes(dlpack_demo.empty((5,), "float4_e2m1fn")) == 3


def test_cuda_tensors_cross_the_table():
    """With the `cuda` feature and a GPU: TVM FFI takes our CUDA tensor through the table (and
    asks our current_work_stream, the library's stream), hands it back as ours, and our
    consumer, seeing that the producer names a work stream, imports it through `__dlpack__`,
    which synchronises."""
    from test_cuda import skip_or_fail, unavailable

    reason = unavailable()
    if reason:
        skip_or_fail(reason)
    tvm_ffi = pytest.importorskip("tvm_ffi")
    echo = tvm_ffi.get_global_func("testing.echo")
    t = dlpack_demo.empty((4,), "float32", device="cuda:0")
    t.fill(2.0)
    back = echo(t)
    assert type(back) is dlpack_demo.Tensor
    assert back.data_ptr == t.data_ptr and back.tolist() == [2.0] * 4
    assert dlpack_demo.nbytes(t) == 16
    assert dlpack_demo.from_dlpack(t).tolist() == [2.0] * 4
