"""Shared fixtures: every test checks that nothing leaks on the Rust side.

`dlpack_demo.live()` counts what is alive in Rust: tensors, owned buffers, exported DLPack
tensors not yet released by their consumer (or by the capsule destructor), and imported
foreign tensors not yet released. After each test that passed, once garbage is collected,
every count must be back where it was before the test. A test that failed is not checked:
its traceback, which pytest keeps for the report, holds what the test made, and one failure
must read as one failure, not as a leak in every test after it (so no test compares a count
with an absolute number either: `live_delta` gives the change since a snapshot).

Every test file collects without the extensions it drives (`dlpack_demo`, `mini`) and without
any peer: each is imported with `pytest.importorskip`, so a missing one skips with the reason.
"""

import gc
import importlib.metadata
import importlib.util
import pathlib
import sys

import pytest

try:
    import dlpack_demo
except ImportError:  # not built: the files that drive it skip, with the reason
    dlpack_demo = None

MINI_NOT_BUILT = "mini is not built (scripts/python-tests.sh builds it)"


def built_mini():
    """The `mini` extension, or None where it is not built (the caller skips with
    `MINI_NOT_BUILT`). Without it, `import mini` finds tests/python/mini, the folder of its
    sources and tests, as a namespace package (pytest puts tests/python on `sys.path` for this
    file), which has no `__file__`: that is not the extension."""
    try:
        import mini
    except ImportError:
        return None
    return mini if getattr(mini, "__file__", None) is not None else None

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


def peer_version(dist):
    """The release of an installed peer as a tuple of ints (`(0, 12, 0)` for jax 0.12.0.1's
    first three parts), for tests whose expectation depends on it: each such branch says
    which releases behave which way."""
    parts = []
    for part in distribution_version(dist).split(".")[:3]:
        digits = "".join(c for c in part if c.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


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


# --- no Rust path in any message that reaches Python ----------------------------------------------
#
# Every exception that reaches a test's own code (raised by a call it makes into dlpack_demo, mini
# or a peer, caught by pytest.raises or not) is looked at as it is raised, through
# sys.monitoring's RAISE event (CPython 3.12 and later; the oldest CPython's run goes without):
# a message that holds `::`, the separator of a Rust path (`dlpack_demo::dtype::DType`), fails
# the test. Messages name Python things. A peer's own message may hold `::` (PyTorch's C++
# errors name `c10::Error`): those come from a peer's module and are let through by
# `FOREIGN_PATHS`.

TESTS = str(pathlib.Path(__file__).parent)
FOREIGN_PATHS = ("c10::", "at::", "std::", "torch::", "xla::", "jax::", "tvm::", "ffi::", "paddle::", "phi::")
rust_paths = []  # (test, exception) of the messages that hold one, since the test began


def look_for_rust_paths(code, offset, exception):
    if not code.co_filename.startswith(TESTS):
        return
    message = str(exception)
    if "::" in message and not any(path in message for path in FOREIGN_PATHS):
        rust_paths.append(f"{type(exception).__name__}: {message}")


MONITORING = getattr(sys, "monitoring", None)
if MONITORING is not None:
    MONITORING.use_tool_id(MONITORING.DEBUGGER_ID, "dlpack-rust-paths")
    MONITORING.register_callback(MONITORING.DEBUGGER_ID, MONITORING.events.RAISE, look_for_rust_paths)
    MONITORING.set_events(MONITORING.DEBUGGER_ID, MONITORING.events.RAISE)


@pytest.fixture(autouse=True)
def no_rust_paths_in_messages():
    rust_paths.clear()
    yield
    assert not rust_paths, f"a message that reached Python names a Rust path: {rust_paths}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test item, so that `no_leaks` knows whether the test
    itself passed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def live_delta(before):
    """What changed in `dlpack_demo.live()` since the snapshot `before`: the counts that moved,
    by name (an empty dict when none did)."""
    after = dlpack_demo.live()
    return {name: after[name] - before[name] for name in after if after[name] != before[name]}


@pytest.fixture(autouse=True)
def no_leaks(request):
    if dlpack_demo is None:
        yield
        return
    settle()
    # What survived is frozen too (a peer imported by an earlier test, its caches), so the
    # collections after the test look only at what the test made. Garbage is gone by now: a
    # frozen object is one that was alive, and a leak of this test is still counted below.
    gc.freeze()
    before = dlpack_demo.live()
    yield
    call = getattr(request.node, "report_call", None)
    if call is None or not call.passed:
        return  # failed or skipped: its traceback may hold what it made
    settle()
    leaked = live_delta(before)
    assert not leaked, f"Rust-side objects leaked: {leaked} (before the test: {before})"
