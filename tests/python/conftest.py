"""Shared fixtures: every test checks that nothing leaks on the Rust side.

`dlpack_demo.live()` counts what is alive in Rust: tensors, owned buffers, exported DLPack
tensors not yet released by their consumer (or by the capsule destructor), and imported
foreign tensors not yet released. After each test, once garbage is collected, every count
must be back where it was before the test.
"""

import gc
import importlib.metadata
import importlib.util
import sys

import pytest

import dlpack_demo

# The libraries the suite exchanges with, by module and distribution. A test whose peer is
# missing skips with the reason (`pytest.importorskip`); the header says which were found.
PEERS = [("numpy", "numpy"), ("ml_dtypes", "ml-dtypes"), ("paddle", "paddlepaddle"),
         ("tvm_ffi", "apache-tvm-ffi"), ("jax", "jax"), ("array_api_strict", "array-api-strict"),
         ("torch", "torch"), ("cupy", None), ("hypothesis", "hypothesis")]


def distribution_version(dist):
    """The installed version of `dist` (spelt with `-` or, as Python 3.9 needs, `_`)."""
    for name in (dist, dist.replace("-", "_")) if dist else ():
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return "installed"  # CuPy's distribution is named after its CUDA version (cupy-cuda12x)


def pytest_report_header(config):
    """One line: the interpreter, and each peer's version or `missing`, found without
    importing any of them (that is the tests' business, and takes seconds for some)."""
    found = []
    for module, dist in PEERS:
        if importlib.util.find_spec(module) is None:
            found.append(f"{module} missing")
            continue
        found.append(f"{module} {distribution_version(dist)}")
    python = ".".join(map(str, sys.version_info[:3]))
    return f"dlpack_demo peers (Python {python}): " + ", ".join(found)


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
    # What survived is frozen too (a peer imported by an earlier test, its caches), so the
    # collections after the test look only at what the test made. Garbage is gone by now: a
    # frozen object is one that was alive, and a leak of this test is still counted below.
    gc.freeze()
    before = dlpack_demo.live()
    yield
    settle()
    after = dlpack_demo.live()
    assert after == before, f"Rust-side objects leaked: before {before}, after {after}"
