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
import gc
import importlib
import os
import threading

import pytest

import capsules

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
from dlpack_demo import Device  # noqa: E402 (after the skip of a run without it)

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
        skip_or_fail("dlpack_demo was built without the `cuda` feature")
    reason = dlpack_demo.cuda.unavailable()
    if reason is None:
        # With a GPU: the devices are listed, and allocation works.
        assert dlpack_demo.cuda.devices()
        assert dlpack_demo.empty((1,), dtype="float32", device="cuda:0").tolist() == [0.0]
        return
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


def test_a_cpu_producer_is_sent_no_stream(gpu):
    # from_dlpack(cpu_tensor, device="cuda:0"): the stream follows the source, which has none
    # (our own CPU producer refuses stream=1, as NumPy and PyTorch do); the copy is made here.
    a = dlpack_demo.arange(6, dtype="int32")
    t = dlpack_demo.from_dlpack(a, device=gpu)
    assert t.device == Device(gpu) and t.tolist() == list(range(6))
    with pytest.raises(BufferError):
        dlpack_demo.from_dlpack(a, device=gpu, copy=False)


def test_a_copy_for_a_consumer_does_not_block_the_host(gpu):
    t = dlpack_demo.empty((N,), dtype="float32", device=gpu)
    out = []
    export = threading.Thread(
        target=lambda: out.append(t.__dlpack__(stream=-1, copy=True, max_version=(1, 3)))
    )
    with dlpack_demo.cuda.Gate(gpu):  # holds dlpack_demo's stream
        t.fill(2.0)  # queued behind the gate
        export.start()
        export.join(30)
        blocked = export.is_alive()
    export.join()
    assert not blocked, "__dlpack__(copy=True, stream=-1) waited for the producer's stream"
    assert capsules.versioned_head(out[0])[2] & capsules.IS_COPIED
    c = dlpack_demo.from_dlpack(out[0])
    assert c.data_ptr != t.data_ptr and c.tolist() == [2.0] * N


class Recording:
    """A producer wrapping another one, recording the `stream` of each `__dlpack__` call."""

    def __init__(self, x):
        self.x, self.streams = x, []

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        self.streams.append(kwargs.get("stream"))
        return self.x.__dlpack__(**kwargs)


def test_stream_2_with_torch(gpu):
    adapter, reason = load("torch")
    if adapter is None:
        pytest.skip(reason)
    torch = adapter.torch
    x = torch.arange(N, dtype=torch.float32, device="cuda:0")
    try:
        x.__dlpack__(stream=2)
        torch_takes_2 = True
    except BufferError:  # PyTorch: "per-thread default stream is not supported"
        torch_takes_2 = False
    # dlpack_demo on its per-thread default stream names the legacy one, 1, which PyTorch
    # takes (and after which the per-thread stream is ordered by itself).
    recorded = Recording(x)
    r = dlpack_demo.cuda.from_dlpack(recorded, 2)
    assert recorded.streams == [1], f"torch takes stream=2: {torch_takes_2}"
    # (Read on dlpack_demo's own stream, which the import did not name: wait for torch first.)
    torch.cuda.synchronize()
    assert r.data_ptr == x.data_ptr() and r.tolist() == list(range(N))
    # On a stream of its own, that stream's handle.
    s = torch.cuda.Stream(device=0)
    recorded = Recording(x)
    dlpack_demo.cuda.from_dlpack(recorded, s.cuda_stream)
    assert recorded.streams == [s.cuda_stream]
    # Our producer takes 2 from a consumer on its per-thread default stream.
    t = dlpack_demo.empty((4,), dtype="float32", device=gpu)
    t.fill(1.0)
    assert dlpack_demo.from_dlpack(t.__dlpack__(stream=2, max_version=(1, 3))).tolist() == [1.0] * 4


def test_torch_keeps_its_current_device(gpu):
    adapter, reason = load("torch")
    if adapter is None:
        pytest.skip(reason)
    torch = adapter.torch
    if torch.cuda.device_count() < 2:
        pytest.skip(f"not run: needs two CUDA devices, found {torch.cuda.device_count()}")
    torch.cuda.set_device(0)
    # Ours on cuda:1, taken by PyTorch while cuda:0 is its current device…
    t = dlpack_demo.empty((N,), dtype="float32", device="cuda:1")
    t.fill(3.0)
    y = torch.from_dlpack(t)
    assert torch.cuda.current_device() == 0, "__dlpack__ left cuda:1 current"
    assert y.device == torch.device("cuda:1") and y.cpu().tolist() == [3.0] * N
    # …PyTorch's on cuda:1, taken by us: PyTorch exports only tensors of its current device,
    # so cuda:1 is current during __dlpack__, and cuda:0 again after.
    x = torch.full((N,), 5.0, device="cuda:1")
    r = dlpack_demo.from_dlpack(x)
    assert torch.cuda.current_device() == 0, "from_dlpack left cuda:1 current"
    assert r.device == Device("cuda:1") and r.tolist() == [5.0] * N
    # The deleters, of both.
    del y, r, t
    gc.collect()
    assert torch.cuda.current_device() == 0, "a deleter left cuda:1 current"
    z = torch.empty(4, device="cuda")
    assert z.device == torch.device("cuda:0")


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


def test_a_cuda_argument_refuses_a_host_tensor_with_where_it_is():
    """`require::Cuda` needs no GPU to refuse: the device is checked before the body runs."""
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError) as refused:
        dlpack_demo.gpu_nbytes(np.zeros(3))
    assert str(refused.value).startswith(
        "gpu_nbytes(): argument 'x' must be a tensor on cuda, got a float64 numpy.ndarray with shape (3,) on cpu"
    )


def test_a_cuda_argument_takes_the_peers_gpu_tensor(peer, gpu):
    # On the stream rule of `__dlpack__`: the tensor is asked for on the legacy default stream.
    x = peer.empty(N)
    peer.synchronize()
    assert dlpack_demo.gpu_nbytes(x) == 4 * N
