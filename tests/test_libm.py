"""ops/_libm.py: the C library's bits whichever loops NumPy dispatches to (on AVX-512 machines
NumPy's power/arctan2/expm1/... are its own SVML code, a last bit off glibc's on a few percent
of inputs), and torch's scalar loops, which call the C library, matched through it."""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _libm
from tests._torch import require_torch

torch = require_torch()

_MATH = {"exp": math.exp, "log": math.log, "expm1": math.expm1, "log1p": math.log1p,
         "power": math.pow, "arctan2": math.atan2, "arcsinh": math.asinh, "arccosh": math.acosh}


def _c_float_function(name, nin):
    function = getattr(ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6"), name)
    function.restype = ctypes.c_float
    function.argtypes = [ctypes.c_float] * nin
    return function


def _inputs(name, dtype, n, seed):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal((2, n)) * 3
    if name in ("log", "log1p", "power"):
        values[0] = np.abs(values[0]) + 1e-3
    if name == "arccosh":
        values[0] = np.abs(values[0]) + 0.99  # (a few below 1: NaN)
    if name in ("exp", "expm1"):
        values[0] *= 8  # reaches overflow (inf) and deep underflow
    if n >= 4:
        values[:, :4] = [[0.0, -0.0, np.inf, np.nan], [1.0, -1.0, 2.0, 0.5]]
    return [v.astype(dtype) for v in values]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(_MATH))
def test_each_element_is_the_c_library_value(name, dtype):
    nin = 2 if name in ("power", "arctan2") else 1
    if dtype == np.float64:
        element = _MATH[name]
    else:
        element = _c_float_function({"power": "powf", "arctan2": "atan2f", "arcsinh": "asinhf",
                                     "arccosh": "acoshf"}.get(name, name + "f"), nin)
    for n, seed in ((1, 0), (7, 1), (300, 2), (_libm.EXACT_MAX, 3)):
        args = _inputs(name, dtype, n, seed)[:nin]
        got = np.asarray(_libm.call(name, *args))
        assert got.dtype == dtype and got.shape == args[0].shape
        want = []
        for values in zip(*(a.tolist() for a in args)):
            try:
                want.append(element(*values))
            except (ValueError, OverflowError):  # math's refusals: NumPy's inf/nan stands
                with np.errstate(all="ignore"):
                    want.append(float(_libm._FUNCTIONS[name][0](*map(dtype, values))))
        np.testing.assert_array_equal(got, np.array(want, dtype=dtype))


def test_broadcast_operands_and_zero_dimensional():
    base = np.linspace(0.5, 3.0, 12).reshape(3, 4)
    got = _libm.power(base, np.float64(1 / 3))
    want = np.array([[math.pow(v, 1 / 3) for v in row] for row in base.tolist()])
    np.testing.assert_array_equal(got, want)
    assert float(_libm.arctan2(np.float64(1.0), np.float64(1.0))) == math.atan2(1.0, 1.0)
    assert np.asarray(_libm.exp(np.zeros((0, 3)))).shape == (0, 3)


def _scalar_path_cases():
    # sizes below one pair of vectors of the AVX2 build (where atan2 runs on AVX-512 machines
    # too): torch's scalar loop, std::atan2 / std::pow on every element
    for dtype in ("float32", "float64"):
        for n in (1, 2, 5, 7):
            yield dtype, n


@pytest.mark.parametrize("dtype,n", list(_scalar_path_cases()))
def test_atan2_and_float64_pow_on_torchs_scalar_path(dtype, n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        a, b = rng.standard_normal((2, n)) * 3
        for op in ("atan2", "pow"):
            if op == "pow":
                if dtype != "float64":
                    continue
                a = np.abs(a)
            got = getattr(lg, op)(lg.tensor(a, dtype=getattr(lg, dtype)),
                                  lg.tensor(b, dtype=getattr(lg, dtype))).numpy()
            want = getattr(torch, op)(torch.tensor(a, dtype=getattr(torch, dtype)),
                                      torch.tensor(b, dtype=getattr(torch, dtype))).numpy()
            np.testing.assert_array_equal(got, want)


def test_float32_exp2_is_float64s_rounded_once():
    """NumPy's float32 exp2 loop is its own SIMD code (22% of values off torch's on AVX-512
    NumPy); torch's scalar loop (fewer elements than a pair of vectors) is the C library's
    exp2f, correctly rounded: float64's exp2 rounded once, bit for bit."""
    rng = np.random.default_rng(11)
    for n in (1, 3, 7, 15, 31):
        for scale in (1.0, 4.0, 40.0):
            x = (rng.standard_normal(n) * scale).astype(np.float32)
            np.testing.assert_array_equal(lg.exp2(lg.tensor(x)).numpy(),
                                          torch.exp2(torch.tensor(x)).numpy())


def test_logf_is_the_c_librarys_on_every_float32_class():
    """_libm.logf (glibc's table-driven logf replayed; the library itself where the replay is
    not it): positive normals over the whole range (float64's log rounded once differs on
    ~0.3%), 1, subnormals, zero, infinity, NaN and negatives."""
    logf = _c_float_function("logf", 1)
    rng = np.random.default_rng(11)
    values = np.concatenate([
        np.exp(rng.uniform(-87, 88, 20000)), rng.uniform(1, 600, 20000), rng.uniform(0.5, 2, 5000),
        [1.0, 1e-40, 1e-45, 0.0, -0.0, np.inf, np.nan, -1.0, -np.inf]]).astype(np.float32)
    want = np.array([logf(v) for v in values.tolist()], dtype=np.float32)
    got = _libm.logf(values)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
