"""Dtypes, devices and tensors with the libraries that do not carry the dtype/device protocol:
NumPy (with ml_dtypes), JAX and array-api-strict. PyTorch is in test_torch.py.

Both ways, for every dtype both sides have: their dtype and device objects are read by class
(nothing of theirs is imported by dlpack_demo), ours are read by NumPy and JAX through NumPy's
`dtype` attribute; tensors cross through DLPack in both directions. The name mapping is checked
against what the libraries export: a dtype object must read as the dtype of a tensor of it.
"""

import math
import sys

import pytest
from conftest import peer_version

dlpack_demo = pytest.importorskip("dlpack_demo", reason="dlpack_demo is not built (scripts/python-tests.sh builds it)")
from dlpack_demo import DType, Device  # noqa: E402 (after the skip of a run without it)

np = pytest.importorskip("numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")


def jax_numpy():
    """`jax.numpy`, with 64-bit types on (JAX hands out int64/float64 arrays as 32-bit copies
    otherwise); the calling test skips, with the reason, where JAX does not import."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax.numpy

NUMPY_NATIVE = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float16", "float32", "float64", "complex64", "complex128"]
FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
          "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu"]
# The dtypes of ours that ml_dtypes adds to NumPy.
ML_DTYPES = ["bfloat16", *FLOAT8, "float4_e2m1fn", "complex32", "bcomplex32"]
# Every dtype of ours JAX has (JAX has no complex32).
JAX = [*NUMPY_NATIVE, "bfloat16", *FLOAT8, "float4_e2m1fn"]


def scalar_type(name):
    """NumPy's scalar type for one of our dtype names (ml_dtypes' for the types NumPy lacks)."""
    return getattr(ml_dtypes, name) if name in ML_DTYPES else getattr(np, name)


def python_values(array):
    """The elements of a NumPy array (ml_dtypes' included) as Python scalars, as tolist() gives."""
    if array.dtype.kind in "biu":
        return array.tolist()
    if "complex" in array.dtype.name:  # complex32, bcomplex32 too
        return array.astype(np.complex128).tolist()
    return array.astype(np.float64).tolist()


def same(a, b):
    """Equal as values, NaN equal to NaN and -0.0 told from 0.0."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


# --- NumPy and ml_dtypes ------------------------------------------------------------------------


def test_the_rfc_example_both_ways_with_numpy():
    t = dlpack_demo.empty((1, 2), dtype=np.float16)
    assert repr(t) == "Tensor(shape=(1, 2), dtype=float16, device=cpu)"
    a = np.empty((1, 2), dtype=dlpack_demo.float16)
    assert a.dtype == np.float16 and a.shape == (1, 2)


@pytest.mark.parametrize("name", [*NUMPY_NATIVE, *ML_DTYPES])
def test_numpy_dtypes_both_ways(name):
    ours = getattr(DType, name)
    # Theirs to ours: the scalar type, its dtype, an array's dtype.
    for theirs in (scalar_type(name), np.dtype(scalar_type(name)), np.zeros(1, scalar_type(name)).dtype):
        assert DType(theirs) == ours
        assert dlpack_demo.dtype_of(theirs) == ours
        assert dlpack_demo.empty((2,), dtype=theirs).dtype == ours
        assert dlpack_demo.dlpack.data_type(theirs) == dlpack_demo.dlpack.DataType(name)
    # Ours to theirs, through the `dtype` attribute.
    assert ours.dtype == np.dtype(scalar_type(name))
    assert np.empty((1, 2), dtype=ours).dtype == np.dtype(scalar_type(name))
    assert np.dtype(dlpack_demo.dlpack.DataType(name)) == np.dtype(scalar_type(name))


def test_numpy_scalar_types_are_read_by_what_they_are_not_their_names():
    # NumPy's aliases are the same types; the platform's long double is not binary128.
    assert dlpack_demo.dtype_of(np.double) == DType.float64
    assert dlpack_demo.dtype_of(np.intc) == DType.int32
    assert dlpack_demo.dtype_of(np.dtype("<f4")) == DType.float32
    if np.dtype(np.longdouble).itemsize > 8:
        with pytest.raises(ValueError, match=r"dtype\('float128'\) has no DLPack data type .*not IEEE"):
            dlpack_demo.dtype_of(np.longdouble)


@pytest.mark.parametrize(
    "theirs, error, message",
    [
        (np.dtype(">f4"), ValueError, r"dtype\('>f4'\) is in the other byte order"),
        (np.dtype("U3"), ValueError, r"dtype\('<U3'\) has no DLPack data type"),
        (np.dtype("O"), ValueError, r"dtype\('O'\) has no DLPack data type"),
        (np.dtype("V8"), ValueError, r"dtype\('V8'\) has no DLPack data type"),
        (np.datetime64, ValueError, r"dtype\('<M8'\) has no DLPack data type"),
        # An abstract type: NumPy 2.4's own refusal, or ours where NumPy (2.2) only warns.
        (np.floating, TypeError, r"np.floating"),
        (float, TypeError, r"expected a data type: .*; got the class float"),
        (ml_dtypes.int4, ValueError, r"no DLPack data type for int4; it supports"),  # not a DType
    ],
)
@pytest.mark.filterwarnings("ignore:Converting `np.inexact` or `np.floating` to a dtype:DeprecationWarning")
def test_numpy_dtypes_without_a_dlpack_data_type(theirs, error, message):
    with pytest.raises(error, match=message):
        dlpack_demo.dtype_of(theirs)


def test_ml_dtypes_int4_is_a_dlpack_data_type_even_though_dtype_has_none():
    # DLPack has int4; no producer exports it (JAX refuses, PyTorch sends int8), so DType has no
    # int4, but the generic DataType reads and gives it.
    int4 = dlpack_demo.dlpack.data_type(ml_dtypes.int4)
    assert (int4.code, int4.bits, int4.lanes) == (0, 4, 1)
    assert int4.dtype == np.dtype(ml_dtypes.int4)


# NumPy 2.4 raises the error of a `dtype` attribute as it is; NumPy 2.2 (the newest for Python
# 3.10) replaces it with its own "Cannot interpret ... as a data type".
NUMPY_KEEPS_DTYPE_ERRORS = tuple(int(part) for part in np.__version__.split(".")[:2]) >= (2, 4)


def numpy_refuses(obj, message):
    """`np.dtype(obj)` is a TypeError, with our message where NumPy passes it on; the attribute
    NumPy reads says it either way."""
    with pytest.raises(TypeError, match=message if NUMPY_KEEPS_DTYPE_ERRORS else "as a data type"):
        np.empty(2, dtype=obj)
    with pytest.raises(TypeError, match=message):
        obj.dtype


def test_our_dtypes_that_numpy_cannot_have():
    numpy_refuses(dlpack_demo.float4_e2m1fnx2, "float4_e2m1fnx2 has no NumPy dtype: neither NumPy nor ml_dtypes")
    numpy_refuses(dlpack_demo.dlpack.DataType("float32x4"), "float32x4 has no NumPy dtype")


def test_without_ml_dtypes_the_error_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # `import ml_dtypes` now fails
    numpy_refuses(dlpack_demo.bfloat16, r"bfloat16 has no NumPy dtype without ml_dtypes: .*pip install ml-dtypes")
    with pytest.raises(TypeError, match=r"pip install ml-dtypes"):
        dlpack_demo.dlpack.DataType("float8_e5m2").dtype
    # NumPy's own types need nothing more.
    assert np.empty(2, dtype=dlpack_demo.float16).dtype == np.float16


# --- the floats narrower than float32 against ml_dtypes, the reference ---------------------------

# ml_dtypes 0.7 rounds a float64 once, straight to the small type, as IEEE 754 does and as
# `Tensor.fill` does; 0.6 (and PyTorch) round to float32 first, so a value just past a tie in
# float64 that is the tie itself in float32 rounds twice there. With ml_dtypes before 0.7, only
# the values that float32 holds exactly are compared (one rounding and two agree on them).
ROUNDS_ONCE = peer_version("ml-dtypes") >= (0, 7)


def float32_exact(value):
    with np.errstate(over="ignore"):  # a value past float32's range is not exact in it
        return math.isnan(value) or math.isinf(value) or float(np.float32(value)) == value


def expected_fill(name, values):
    """What ml_dtypes (NumPy for float16) makes of each float64 of `values` as `name`."""
    with np.errstate(all="ignore"):  # NumPy warns of what it turns into inf or NaN
        return np.array(values, dtype=np.float64).astype(scalar_type(name)).astype(np.float64).tolist()


# Ties, values past the largest, subnormals, values below f32's range, infinities and NaN; the
# last ones are just past a tie in float64 and on it in float32.
EDGES = [0.0, -0.0, 1.0, -1.0, 0.75, 3.0, 5.0, -2.5, 1e-9, -1e-9, 1e30, -1e30, math.inf, -math.inf,
         math.nan, 0.1, 17.0, 250.0, 300.0, 440.0, 448.0, 460.0, 464.0, 470.0, 500.0, 57344.0,
         61440.0, 65536.0, 2.0**-7, 2.0**-10, 2.0**-17, 3 * 2.0**-18, 2.0**-150, 15.5, 16.0, 15.75,
         2.0**127, 1.4 * 2.0**127, 1.5 * 2.0**127, 2.0**-127, 1.5 * 2.0**-128, 6.0, 7.0, 5.5, 0.25,
         1.0625 + 2.0**-40, 1.25 + 2.0**-40, 1.5 + 2.0**-40, 1e40, 5e-324]

# Every float type narrower than float32 that `fill` writes (the complex ones are pairs of
# float16 and bfloat16, checked below through their parts).
NARROW = ["float16", "bfloat16", *FLOAT8, "float4_e2m1fn"]


@pytest.mark.parametrize("name", NARROW)
def test_fill_converts_as_ml_dtypes_does(name):
    t = dlpack_demo.empty((3,), dtype=name)
    values = [v for v in EDGES if ROUNDS_ONCE or float32_exact(v)]
    for value, expected in zip(values, expected_fill(name, values)):
        if math.isnan(value) and name == "float4_e2m1fn":
            with pytest.raises(ValueError, match="float4_e2m1fn has no NaN to store"):
                t.fill(value)
            continue
        t.fill(value)
        got = t.tolist()
        assert all(same(x, expected) for x in got), f"{name}: {value} -> {got}, ml_dtypes {expected}"


def finite_values_and_ties(name):
    """Every finite value of `name`, in increasing order of magnitude and both signs, and
    between each two neighbours the tie and the float64s just below and above it."""
    bits = 16 if name in ("float16", "bfloat16") else 8
    codes = np.arange(16 if name == "float4_e2m1fn" else 2**bits, dtype=np.uint16 if bits == 16 else np.uint8)
    with np.errstate(invalid="ignore"):  # NaN codes
        values = codes.view(scalar_type(name)).astype(np.float64)
    finite = np.unique(np.abs(values[np.isfinite(values)]))  # sorted, 0.0 first
    ties = (finite[:-1] + finite[1:]) / 2  # exact: neighbours share all but their last bit
    near = [np.nextafter(ties, -np.inf), np.nextafter(ties, np.inf)]
    checked = np.concatenate([finite, ties, *(near if ROUNDS_ONCE else [])])
    return np.concatenate([checked, -checked]).tolist()


@pytest.mark.parametrize("name", NARROW)
def test_fill_rounds_every_value_and_tie_as_ml_dtypes_does(name):
    # One rounding from float64, ties to even: every finite value round-trips, every tie goes
    # where ml_dtypes 0.7 puts it, and so do the float64s on either side of it.
    t = dlpack_demo.empty((1,), dtype=name)
    values = finite_values_and_ties(name)
    mismatches = []
    for value, expected in zip(values, expected_fill(name, values)):
        t.fill(value)
        got = t.tolist()[0]
        if not same(got, expected):
            mismatches.append((value, got, expected))
    assert not mismatches, f"{name}: {len(mismatches)} of {len(values)}, first {mismatches[:5]}"


@pytest.mark.parametrize("name, part", [("complex32", "float16"), ("bcomplex32", "bfloat16")])
def test_complex_parts_round_as_their_float_type(name, part):
    t = dlpack_demo.empty((1,), dtype=name)
    values = finite_values_and_ties(part)[::7]  # a sample: the parts are the float type's
    for re, im, re_expected, im_expected in zip(values, values[1:], expected_fill(part, values),
                                                expected_fill(part, values[1:])):
        t.fill(complex(re, im))
        got = t.tolist()[0]
        assert same(got.real, re_expected) and same(got.imag, im_expected), (name, re, im, got)


@pytest.mark.parametrize("name", [*FLOAT8, "float4_e2m1fn"])
def test_every_code_reads_as_ml_dtypes_reads_it(name):
    # Every bit pattern, made by ml_dtypes, handed over by JAX (which packs float4_e2m1fn two
    # to a byte, as DLPack does), read by us.
    jnp = jax_numpy()
    count = 16 if name == "float4_e2m1fn" else 256
    codes = np.arange(count, dtype=np.uint8).view(scalar_type(name))
    t = dlpack_demo.from_dlpack(jnp.asarray(codes))
    assert t.dtype == getattr(DType, name)
    got, expected = t.tolist(), codes.astype(np.float64).tolist()
    assert all(same(a, b) for a, b in zip(got, expected)), (got, expected)


@pytest.mark.parametrize("name", [*FLOAT8, "float4_e2m1fn", "bfloat16", "complex32"])
def test_arange_matches_numpy_arange_cast(name):
    t = dlpack_demo.arange(9, dtype=name)
    expected = python_values(np.arange(9).astype(scalar_type(name)))
    assert all(same(a, b) for a, b in zip(t.tolist(), expected)), (t.tolist(), expected)


# --- NumPy's own DLPack with ml_dtypes' types ----------------------------------------------------

# ml_dtypes 0.7 registers its types with NumPy 2.5's `np.dtypes.register_dlpack_dtype` when it is
# imported, and NumPy then exports and imports them through DLPack (bfloat16, the float8 family,
# complex32, bcomplex32; not float4_e2m1fn); with ml_dtypes 0.6, NumPy refuses them both ways.
NUMPY_DLPACK_ML_DTYPES = peer_version("ml-dtypes") >= (0, 7) and hasattr(np.dtypes, "register_dlpack_dtype")


@pytest.mark.parametrize("name", ["bfloat16", *FLOAT8, "complex32", "bcomplex32"])
def test_numpy_exchanges_ml_dtypes_arrays_through_dlpack_with_ml_dtypes_0_7(name):
    with np.errstate(invalid="ignore"):  # float8_e8m0fnu has no zero: NaN
        a = np.arange(4).astype(scalar_type(name))
    ours = dlpack_demo.arange(4, dtype=name)
    if not NUMPY_DLPACK_ML_DTYPES:
        with pytest.raises(BufferError):
            dlpack_demo.from_dlpack(a)
        # NumPy 2.5 refuses a DLPack data type it does not know with a BufferError; NumPy 2.2
        # raised a RuntimeError.
        refusal = BufferError if peer_version("numpy") >= (2, 5) else (BufferError, RuntimeError)
        with pytest.raises(refusal, match="Unsupported dtype in DLTensor"):
            np.from_dlpack(ours)
        return
    t = dlpack_demo.from_dlpack(a)
    assert t.dtype == getattr(DType, name)
    assert all(same(x, y) for x, y in zip(t.tolist(), python_values(a)))
    a[1] = a[2]  # shared, not copied
    assert same(t.tolist()[1], python_values(a)[2])
    back = np.from_dlpack(ours)
    assert back.dtype == np.dtype(scalar_type(name))
    assert all(same(x, y) for x, y in zip(python_values(back), ours.tolist()))


def test_bcomplex32_both_ways():
    # DLPack's kDLBcomplex (code 18): two bfloat16s, as ml_dtypes and PyTorch 2.15 have it.
    assert (DType.bcomplex32.__dlpack_data_type__(), DType.bcomplex32.itemsize) == ((18, 32, 1), 4)
    assert DType(ml_dtypes.bcomplex32) == DType(np.dtype(ml_dtypes.bcomplex32)) == DType.bcomplex32
    assert DType.bcomplex32.dtype == np.dtype(ml_dtypes.bcomplex32)
    t = dlpack_demo.empty((2,), dtype=ml_dtypes.bcomplex32)
    t.fill(1.5 - 0.25j)
    assert t.tolist() == [1.5 - 0.25j] * 2


# --- JAX ------------------------------------------------------------------------------------------


def jax_sample(name):
    jnp = jax_numpy()
    if name == "bool":
        return jnp.array([True, False, True, True])
    if name.startswith("complex"):
        return (jnp.arange(4) + 1j * jnp.arange(4)[::-1]).astype(name)
    if name == "float8_e8m0fnu":
        return jnp.array([0.25, 1.0, 2.0, 64.0]).astype(name)
    return jnp.arange(4).astype(getattr(jnp, name))


@pytest.mark.parametrize("name", JAX)
def test_jax_dtypes_both_ways(name):
    jnp = jax_numpy()
    ours = getattr(DType, name)
    theirs = getattr(jnp, name)  # a class of JAX's own, whose `dtype` is NumPy's
    assert DType(theirs) == ours and DType(jnp.dtype(theirs)) == ours
    # ... and the same as the dtype JAX exports a tensor of it with.
    assert dlpack_demo.dtype_of(jax_sample(name)) == ours
    assert jnp.zeros(2, dtype=ours).dtype == jnp.dtype(theirs)
    assert jnp.zeros(2, dtype=dlpack_demo.dlpack.DataType(name)).dtype == jnp.dtype(theirs)


@pytest.mark.parametrize("name", JAX)
def test_jax_tensors_both_ways(name):
    jnp = jax_numpy()
    x = jax_sample(name)
    t = dlpack_demo.from_dlpack(x)
    assert t.dtype == getattr(DType, name) and t.shape == (4,)
    assert t.tolist() == python_values(np.asarray(x))
    ours = dlpack_demo.arange(4, dtype=name)
    if name == "float4_e2m1fn" and peer_version("jax") < (0, 12, 1):
        # JAX on the CPU imports float4_e2m1fn from no producer, itself included, before
        # 0.12.1: 0.10 says "only support default layout", 0.11 and 0.12.0 "Unsupported
        # layout". From 0.12.1 it imports it, values and all (checked below as for any dtype).
        refusal = "only support default layout" if peer_version("jax") < (0, 11) else "Unsupported layout"
        with pytest.raises(Exception, match=refusal):
            jnp.from_dlpack(x)
        with pytest.raises(Exception, match=refusal):
            jnp.from_dlpack(ours)
        return
    y = jnp.from_dlpack(ours)
    assert y.dtype == jnp.dtype(getattr(jnp, name))
    assert all(same(a, b) for a, b in zip(python_values(np.asarray(y)), ours.tolist()))


def test_jax_asks_for_what_its_release_asks_for():
    # JAX 0.10 calls __dlpack__(stream=None), a legacy capsule; 0.12 asks for a versioned one.
    jnp = jax_numpy()
    ours = dlpack_demo.arange(3, dtype="float32")
    asked = []

    class Recording:
        def __dlpack__(self, **kwargs):
            asked.append(kwargs)
            return ours.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return ours.__dlpack_device__()

    assert jnp.from_dlpack(Recording()).tolist() == [0.0, 1.0, 2.0]
    if peer_version("jax") >= (0, 12):
        assert tuple(asked[0]["max_version"]) >= (1, 0)
    elif peer_version("jax") < (0, 11):
        assert "max_version" not in asked[0]


def test_the_rfc_example_with_jax():
    jnp = jax_numpy()
    assert dlpack_demo.empty((1, 2), dtype=jnp.bfloat16).dtype == DType.bfloat16
    assert jnp.zeros((1, 2), dtype=dlpack_demo.bfloat16).dtype == jnp.bfloat16


def test_jax_devices():
    jnp = jax_numpy()
    jax = pytest.importorskip("jax")
    cpu = jax.devices("cpu")[0]
    assert Device(cpu) == Device("cpu") and dlpack_demo.device_of(cpu) == Device("cpu")
    assert dlpack_demo.from_dlpack(cpu) == Device("cpu")
    assert dlpack_demo.empty((1,), dtype="int8", device=cpu).device == Device("cpu")
    # The device an array is on, and what its DLPack export says, agree.
    x = jnp.zeros(2)
    assert dlpack_demo.device_of(x) == Device(next(iter(x.devices())))


# --- array-api-strict ---------------------------------------------------------------------------

ARRAY_API = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", ARRAY_API)
def test_array_api_strict_dtypes_and_tensors_both_ways(name):
    xp = pytest.importorskip("array_api_strict")

    theirs = getattr(xp, name)
    ours = getattr(DType, name)
    assert DType(theirs) == ours and dlpack_demo.dtype_of(theirs) == ours
    a = xp.asarray([0, 1, 2, 3], dtype=theirs)
    assert dlpack_demo.dtype_of(a) == ours  # the same, through its DLPack export
    t = dlpack_demo.from_dlpack(a)
    assert t.dtype == ours and t.tolist() == np.asarray(a).tolist()
    back = xp.from_dlpack(dlpack_demo.arange(4, dtype=ours))
    assert back.dtype == theirs and np.asarray(back).tolist() == dlpack_demo.arange(4, dtype=ours).tolist()


def test_array_api_strict_devices():
    xp = pytest.importorskip("array_api_strict")

    # Every array-api-strict device is host memory: its arrays say (kDLCPU, 0).
    for name in ["CPU_DEVICE", "device1", "device2"]:
        device = xp.Device(name)
        assert Device(device) == Device("cpu")
        assert dlpack_demo.device_of(xp.asarray([1.0], device=device)) == Device(device)
    assert dlpack_demo.empty((1,), dtype=xp.float32, device=xp.Device("CPU_DEVICE")).device == Device("cpu")


# --- nothing is imported to read these --------------------------------------------------------


def test_reading_imports_nothing():
    import subprocess

    code = (
        "import sys, dlpack_demo\n"
        "dlpack_demo.dtype_of('float16'); dlpack_demo.device_of((1, 0))\n"
        "dlpack_demo.from_dlpack('int8')\n"
        "try:\n    dlpack_demo.dtype_of(1.5)\nexcept TypeError:\n    pass\n"
        "loaded = [m for m in ('numpy', 'torch', 'jax', 'ml_dtypes', 'array_api_strict') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
