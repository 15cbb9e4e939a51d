"""The borrow table: no typed argument, nor a view `with_tensor_view` lends, may write memory
that another live view reads or writes — two arguments over one array, overlapping slices, an
argument held while a callback calls another function, a nested view, another extension built
on the same crate — and every argument is released on every path.

Each attack here was accepted before the table existed: `write_both(x, x)` returned 1.0 while
memory held 2.0 (two `&mut [f32]` over one buffer). The functions are `dlpack_demo`'s hostile
ones (examples/python/src/typed.rs) and `mini.fill`, an extension of its own.
"""

import re
import sys

import pytest
from conftest import MINI_NOT_BUILT, built_mini

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
np = pytest.importorskip("numpy")


def writable_peers():
    """One constructor per peer whose tensors are writable: a float32 vector of 8 elements
    over memory of its own, and a function that reads its elements back as a list."""
    made = [("numpy", lambda: np.arange(8, dtype=np.float32), lambda t: t.tolist())]
    try:
        import torch

        made.append(("torch", lambda: torch.arange(8, dtype=torch.float32), lambda t: t.tolist()))
    except ImportError:
        pass
    try:
        import paddle

        made.append(("paddle", lambda: paddle.arange(8, dtype="float32"), lambda t: t.tolist()))
    except ImportError:
        pass
    try:
        import tvm_ffi

        made.append(
            ("tvm_ffi", lambda: tvm_ffi.from_dlpack(np.arange(8, dtype=np.float32)), lambda t: np.from_dlpack(t).tolist())
        )
    except ImportError:
        pass
    made.append(
        (
            "dlpack_demo",
            lambda: dlpack_demo.from_dlpack(np.arange(8, dtype=np.float32)),
            lambda t: np.from_dlpack(t).tolist(),
        )
    )
    return made


PEERS = writable_peers()
IDS = [peer[0] for peer in PEERS]


def refused(text):
    """A `BufferError` whose message starts with `text`."""
    return pytest.raises(BufferError, match="^" + re.escape(text))


@pytest.mark.parametrize("name,make,values", PEERS, ids=IDS)
def test_two_writable_arguments_over_one_tensor_are_refused(name, make, values):
    x = make()
    with refused("write_both(): argument 'b' overlaps argument 'a', which is writable"):
        dlpack_demo.write_both(x, x)
    assert values(x) == list(range(8)), "refused before the body ran"
    y = make()
    assert dlpack_demo.write_both(x, y) == 1.0
    assert values(x)[0] == 1.0 and values(y)[0] == 2.0


@pytest.mark.parametrize("name,make,values", PEERS, ids=IDS)
def test_a_writable_argument_over_one_being_read_is_refused(name, make, values):
    x = make()
    with refused("read_then_write(): argument 'b' is writable and overlaps argument 'a', which is being read"):
        dlpack_demo.read_then_write(x, x)
    assert values(x) == list(range(8))


@pytest.mark.parametrize("name,make,values", PEERS, ids=IDS)
def test_an_owned_argument_is_a_reader_too(name, make, values):
    x = make()
    with refused("owned_and_written(): argument 'b' is writable and overlaps argument 'a'"):
        dlpack_demo.owned_and_written(x, x)
    assert values(x) == list(range(8))


def slicing_peers():
    made = [("numpy", lambda: np.arange(8, dtype=np.float32))]
    try:
        import torch

        made.append(("torch", lambda: torch.arange(8, dtype=torch.float32)))
    except ImportError:
        pass
    return made


SLICING = slicing_peers()


@pytest.mark.parametrize("name,make", SLICING, ids=[p[0] for p in SLICING])
def test_overlapping_views_are_refused_and_disjoint_ones_are_not(name, make):
    x = make()
    with refused("write_both(): argument 'b' overlaps argument 'a', which is writable"):
        dlpack_demo.write_both(x[:4], x[1:])
    with refused("write_both(): argument 'b' overlaps argument 'a', which is writable"):
        dlpack_demo.write_both(x[::2], x[2::3])
    # Interleaved halves, and the two ends: disjoint memory, written side by side.
    assert dlpack_demo.write_both(x[::2], x[1::2]) == 1.0
    assert dlpack_demo.write_both(x[:4], x[4:]) == 1.0
    assert x.tolist() == [1.0, 2.0, 2.0, 3.0, 2.0, 5.0, 6.0, 7.0]
    # Two readers share.
    assert dlpack_demo.read_then_write(x[:4], x[4:]) == (1.0, 1.0)


def test_a_numpy_view_of_another_array_and_the_array_itself_overlap():
    base = np.arange(8, dtype=np.float32)
    view = base.reshape(2, 4)[:, 1]
    with refused("write_both(): argument 'b' overlaps argument 'a', which is writable"):
        dlpack_demo.write_both(base, view)
    # A float64 view of the same bytes: elements of other widths, one buffer.
    wide = base.view(np.float64)
    with refused("read_then_write(): argument 'b' is writable and overlaps argument 'a'"):
        dlpack_demo.read_then_write(wide.view(np.float32), base)


@pytest.mark.parametrize("name,make,values", PEERS, ids=IDS)
def test_a_callback_cannot_write_what_the_body_holds(name, make, values):
    x = make()
    with refused("scale(): argument 'x' overlaps argument 'x' of write_calling(), which is writable"):
        dlpack_demo.write_calling(x, lambda: dlpack_demo.scale(x, 2.0))
    assert values(x) == list(range(8)), "the callback's refusal stopped the body"
    # What the callback may do: read or write other memory.
    y = make()
    dlpack_demo.write_calling(x, lambda: dlpack_demo.scale(y, 2.0))
    assert values(x) == [v + 1.0 for v in range(8)] and values(y) == [2.0 * v for v in range(8)]


@pytest.mark.parametrize("name,make,values", PEERS, ids=IDS)
def test_a_nested_view_cannot_read_what_the_body_writes(name, make, values):
    x = make()
    with refused("with_tensor_view(): the tensor overlaps argument 'x' of write_viewing(), which is writable"):
        dlpack_demo.write_viewing(x, x)
    y = make()
    assert dlpack_demo.write_viewing(x, y) == sum(range(8))
    assert values(x) == [0.0] * 8


def test_another_extension_shares_the_table():
    mini = built_mini()
    if mini is None:
        pytest.skip(MINI_NOT_BUILT)
    if not hasattr(mini, "fill"):
        pytest.skip("mini was built without fill")
    x = np.arange(8, dtype=np.float32)
    with refused("fill(): argument 'x' overlaps argument 'x' of write_calling(), which is writable"):
        dlpack_demo.write_calling(x, lambda: mini.fill(x, 3.0))
    assert hasattr(sys, "_dlpack_core_borrows")
    mini.fill(x, 3.0)
    assert x.tolist() == [3.0] * 8


@pytest.mark.parametrize("name,make,values", PEERS, ids=IDS)
def test_arguments_are_released_on_every_path(name, make, values):
    x = make()
    with pytest.raises(RuntimeError, match="asked to fail"):
        dlpack_demo.write_failing(x, "error")
    with pytest.raises(BaseException, match="asked to panic") as raised:
        dlpack_demo.write_failing(x, "panic")
    assert type(raised.value).__name__ == "PanicException"
    # A refusal releases what the call had taken before it.
    with pytest.raises(BufferError):
        dlpack_demo.write_both(x, x)
    with pytest.raises(TypeError):
        dlpack_demo.write_both(x, "not a tensor")
    # Nothing is held any more: the same tensor is written twice in a row.
    y = make()
    assert dlpack_demo.write_both(x, y) == 1.0
    assert dlpack_demo.write_both(y, x) == 1.0
    assert values(x)[0] == 2.0


def test_arguments_extracted_without_their_names_are_refused_too():
    x = np.arange(8, dtype=np.float32)
    with refused("a tensor argument overlaps another tensor argument, which is writable"):
        dlpack_demo.write_unnamed(x, x)


def test_empty_tensors_overlap_nothing():
    x = np.arange(8, dtype=np.float32)
    assert dlpack_demo.write_both(x[:0], x[:0]) == 0.0


@pytest.mark.parametrize("name,make,values", PEERS, ids=IDS)
def test_an_import_cannot_read_what_the_body_writes(name, make, values):
    x = make()
    with refused("import_tensor(): the tensor overlaps argument 'x' of write_importing(), which is writable"):
        dlpack_demo.write_importing(x, x)
    assert values(x) == list(range(8))
    assert dlpack_demo.write_importing(x, make()) == sum(range(8))
