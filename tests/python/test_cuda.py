"""CUDA tensors: dlpack_demo as a producer and a consumer on the GPU, and exchange with PyTorch
and CuPy both ways — data, device, zero-copy, and the stream rule of `__dlpack__`.

The stream rule is checked without timing anything: a `dlpack_demo.cuda.Gate` holds a stream
(a host function blocks it until released), so work queued behind it cannot have run, and work
on another stream that was correctly made to wait for it cannot have run either. A consumer
that was not made to wait would read the data before it is written.

Each test skips, with the reason, unless dlpack_demo was built with the `cuda` feature
(`maturin develop --features cuda`), the machine has a CUDA device, and (for the exchange
tests) the peer imports and sees the GPU. With DLPACK_REQUIRE_GPU=1 (as scripts/gpu-check.sh
runs it) a missing feature, a missing GPU, or neither peer importing is a failure instead.
"""

import functools
import importlib
import os

import pytest

import capsules
import dlpack_demo
from dlpack_demo import Device

REQUIRE_GPU = os.environ.get("DLPACK_REQUIRE_GPU") == "1"
N = 4096


def unavailable():
    """Why dlpack_demo cannot make CUDA tensors here, or None when it can."""
    if not hasattr(dlpack_demo, "cuda"):
        return "dlpack_demo was built without the `cuda` feature (maturin develop --features cuda)"
    return dlpack_demo.cuda.unavailable()


def skip_or_fail(reason):
    if REQUIRE_GPU:
        pytest.fail(f"DLPACK_REQUIRE_GPU=1, but {reason}")
    pytest.skip(reason)


@pytest.fixture
def gpu():
    reason = unavailable()
    if reason:
        skip_or_fail(reason)
    return "cuda:0"


class Torch:
    """PyTorch, through the few calls these tests make."""

    def __init__(self):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.torch = torch

    def new_stream(self):
        return self.torch.cuda.Stream(device=0)

    def use(self, stream):
        return self.torch.cuda.stream(stream)

    def handle(self, stream):
        return stream.cuda_stream

    def current_done(self):
        return self.torch.cuda.current_stream().query()

    def from_dlpack(self, x):
        return self.torch.from_dlpack(x)

    def from_host(self, values):
        return self.torch.tensor(values, dtype=self.torch.float32, device="cuda:0")

    def empty(self, n):
        return self.torch.empty(n, dtype=self.torch.float32, device="cuda:0")

    def write(self, dst, src):
        dst.copy_(src)

    def synchronize(self):
        self.torch.cuda.synchronize()

    def tolist(self, x):
        return x.cpu().tolist()

    def device(self, x):
        return (x.device.type, x.device.index)

    def data_ptr(self, x):
        return x.data_ptr()


class Cupy:
    """CuPy, through the same calls. Only copies run on the device (no kernel needs compiling)."""

    def __init__(self):
        import cupy
        import numpy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("cupy sees no CUDA device")
        self.cupy, self.numpy = cupy, numpy

    def new_stream(self):
        return self.cupy.cuda.Stream(non_blocking=True)

    def use(self, stream):
        return stream

    def handle(self, stream):
        return stream.ptr

    def current_done(self):
        return self.cupy.cuda.get_current_stream().done

    def from_dlpack(self, x):
        return self.cupy.from_dlpack(x)

    def from_host(self, values):
        return self.cupy.asarray(self.numpy.asarray(values, dtype=self.numpy.float32))

    def empty(self, n):
        return self.cupy.empty(n, dtype=self.cupy.float32)

    def write(self, dst, src):
        dst.data.copy_from_device_async(src.data, src.nbytes)

    def synchronize(self):
        self.cupy.cuda.Device(0).synchronize()

    def tolist(self, x):
        return self.cupy.asnumpy(x).tolist()

    def device(self, x):
        return ("cuda", x.device.id)

    def data_ptr(self, x):
        return x.data.ptr


@functools.lru_cache(maxsize=None)
def load(name):
    """(the peer, None) or (None, why it is not there)."""
    try:
        importlib.import_module(name)
        return {"torch": Torch, "cupy": Cupy}[name](), None
    except Exception as err:  # an ImportError, or a peer without a GPU
        return None, f"{name} is not usable here: {type(err).__name__}: {err}"


@pytest.fixture(params=["torch", "cupy"])
def peer(request, gpu):
    adapter, reason = load(request.param)
    if adapter is None:
        others = [load(name)[0] for name in ("torch", "cupy")]
        if REQUIRE_GPU and not any(others):
            pytest.fail(f"DLPACK_REQUIRE_GPU=1, but neither torch nor cupy is usable: {reason}")
        pytest.skip(reason)
    return adapter


def test_without_a_gpu_allocation_fails_with_the_reason():
    if not hasattr(dlpack_demo, "cuda"):
        pytest.skip("dlpack_demo was built without the `cuda` feature")
    reason = dlpack_demo.cuda.unavailable()
    if reason is None:
        pytest.skip("this machine has a CUDA device")
    assert dlpack_demo.cuda.devices() == []
    with pytest.raises(RuntimeError, match="no CUDA driver found|does not exist|CUDA"):
        dlpack_demo.empty((1,), dtype="float32", device="cuda:0")


@pytest.mark.parametrize(
    "dtype, value",
    [("int8", -3), ("float16", 1.5), ("float32", 7.25), ("float64", -2.5), ("complex128", 1 - 2j),
     ("bool", True), ("float64", 0.0)],
)
def test_empty_fill_and_read_back(gpu, dtype, value):
    t = dlpack_demo.empty((2, 3), dtype=dtype, device=gpu)
    assert t.device == Device(gpu) and t.__dlpack_device__() == (2, 0)
    assert repr(t) == f"Tensor(shape=(2, 3), dtype={dtype}, device=cuda:0)"
    zero = False if dtype == "bool" else 0
    assert t.tolist() == [[zero] * 3] * 2
    t.fill(value)  # queued on the library's stream; tolist() copies after it
    assert t.tolist() == [[value] * 3] * 2
    c = t.clone()
    assert c.device == t.device and c.data_ptr != t.data_ptr
    assert c.tolist() == [[value] * 3] * 2


def test_empty_tensors(gpu):
    t = dlpack_demo.empty((0, 3), dtype="float64", device=gpu)
    t.fill(1.0)
    assert t.tolist() == [] and t.clone().tolist() == []
    assert dlpack_demo.from_dlpack(t, device="cpu").tolist() == []


def test_stream_argument(gpu):
    t = dlpack_demo.empty((N,), dtype="float32", device=gpu)
    t.fill(2.0)
    with pytest.raises(ValueError, match="stream=0"):
        t.__dlpack__(stream=0, max_version=(1, 0))
    with pytest.raises(ValueError):
        t.__dlpack__(stream=-2)
    own = dlpack_demo.cuda.stream(gpu)
    for stream in [None, 1, 2, -1, own]:
        capsule = t.__dlpack__(stream=stream, max_version=(1, 3))
        assert capsules.name(capsule) == "dltensor_versioned"
        r = dlpack_demo.from_dlpack(capsule)
        assert r.data_ptr == t.data_ptr and r.device == Device(gpu)
        assert r.tolist() == [2.0] * N
    # A legacy consumer (no max_version) on the legacy default stream.
    capsule = t.__dlpack__()
    assert capsules.name(capsule) == "dltensor"
    assert dlpack_demo.from_dlpack(capsule).data_ptr == t.data_ptr


def test_copies_between_host_and_device(gpu):
    t = dlpack_demo.empty((N,), dtype="float32", device=gpu)
    t.fill(3.0)
    # The consumer asks for the CPU: the producer copies, on its stream, after the fill.
    h = dlpack_demo.from_dlpack(t, device="cpu")
    assert h.device == Device("cpu") and h.tolist() == [3.0] * N
    with pytest.raises(BufferError):
        dlpack_demo.from_dlpack(t, device="cpu", copy=False)
    # copy=True on the device; copy=None shares.
    c = dlpack_demo.from_dlpack(t, copy=True)
    assert c.device == Device(gpu) and c.data_ptr != t.data_ptr and c.tolist() == [3.0] * N
    s = dlpack_demo.from_dlpack(t)
    assert s.data_ptr == t.data_ptr
    # A producer-side copy is flagged as one.
    capsule = t.__dlpack__(dl_device=(1, 0), max_version=(1, 0))
    assert capsules.versioned_head(capsule)[2] & capsules.IS_COPIED
    # Another GPU, or ROCm: refused.
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(10, 0), max_version=(1, 0))


@pytest.mark.parametrize("consumer_stream", ["default", "side"])
def test_peer_reads_what_we_wrote(peer, gpu, consumer_stream):
    t = dlpack_demo.empty((N,), dtype="float32", device=gpu)
    stream = peer.new_stream() if consumer_stream == "side" else None
    with peer.use(stream) if stream is not None else _nothing():
        z = peer.empty(N)  # allocated before any stream is held
        with dlpack_demo.cuda.Gate(gpu):  # holds dlpack_demo's stream
            t.fill(7.0)  # queued behind the gate
            y = peer.from_dlpack(t)  # the peer names its current stream; we make it wait
            peer.write(z, y)  # queued on the peer's stream: must wait for the fill
            pending = not peer.current_done()
        values = peer.tolist(z)
    assert pending, "the peer's stream did not wait for dlpack_demo's stream"
    assert values == [7.0] * N
    assert peer.device(y) == ("cuda", 0) and peer.data_ptr(y) == t.data_ptr


def test_we_read_what_the_peer_wrote(peer, gpu):
    src = peer.from_host([5.0] * N)
    peer.synchronize()
    stream = peer.new_stream()
    with peer.use(stream):
        x = peer.empty(N)
        with dlpack_demo.cuda.Gate(gpu, stream=peer.handle(stream)):  # holds the peer's stream
            peer.write(x, src)  # queued behind the gate
            r = dlpack_demo.from_dlpack(x)  # we name our stream; the peer makes it wait
            c = r.clone()  # queued on our stream: must wait for the peer's write
            pending = not dlpack_demo.cuda.stream_done(gpu)
    assert pending, "dlpack_demo's stream did not wait for the peer's stream"
    assert c.tolist() == [5.0] * N
    assert r.device == Device(gpu) and r.data_ptr == peer.data_ptr(x)


def test_round_trip(peer, gpu):
    t = dlpack_demo.empty((4, 8), dtype="float32", device=gpu)
    t.fill(1.5)
    back = dlpack_demo.from_dlpack(peer.from_dlpack(t))
    assert back.data_ptr == t.data_ptr and back.device == t.device
    assert back.shape == (4, 8) and back.tolist() == t.tolist()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
