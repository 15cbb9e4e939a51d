"""Shared fixtures: every test checks that nothing leaks on the Rust side.

`dlpack_demo.live()` counts what is alive in Rust: tensors, owned buffers, exported DLPack
tensors not yet released by their consumer (or by the capsule destructor), and imported
foreign tensors not yet released. After each test, once garbage is collected, every count
must be back where it was before the test.
"""

import gc

import pytest

import dlpack_demo


def settle():
    """Collects garbage until nothing more is freed (capsule destructors run on collection)."""
    for _ in range(3):
        if gc.collect() == 0:
            break


@pytest.fixture(scope="session", autouse=True)
def imports_frozen():
    """Puts what the test modules imported (PaddlePaddle, JAX, PyTorch: hundreds of thousands
    of objects) out of the collector's reach, once the modules are collected: each collection
    in `settle` then looks at the objects the tests made, in milliseconds instead of about a
    second a test."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(autouse=True)
def no_leaks():
    settle()
    before = dlpack_demo.live()
    yield
    settle()
    after = dlpack_demo.live()
    assert after == before, f"Rust-side objects leaked: before {before}, after {after}"
