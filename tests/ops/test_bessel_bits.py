"""torch's Cephes Bessel functions (i0, special.i0e, special.i1, special.i1e) and
kaiser_window, bit for bit: float16/bfloat16/float32/float64, sizes 1-70 and 1000 (vector
bodies and scalar tails), flipped and transposed layouts, the series' boundary at 8, zeros of
both signs, infinities and NaN, and first derivatives. Fails on the power-series versions
(13% of float32/float64 values an ulp off) and on bfloat16/float16 i0e's scalar loop."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

FUNCTIONS = ["i0", "special.i0e", "special.i1", "special.i1e"]
DTYPES = ["float16", "bfloat16", "float32", "float64"]
SPECIAL = [0.0, -0.0, 8.0, -8.0, 7.999, 8.001, 1e-30, 30.0, 85.0, 90.0, 700.0, 710.0,
           float("inf"), float("-inf"), float("nan")]


def _call(lib, name, tensor):
    return eval("lib." + name, {"lib": lib})(tensor)  # noqa: S307 - the names above


def _bits(tensor):
    """The float32 bits (float64 values widened exactly: compared as float64 below), any NaN
    as one value (NaN payloads and signs are not compared)."""
    values = tensor.detach().double().numpy()
    return [("nan" if np.isnan(v) else float(v).hex()) for v in values.ravel()]


def _inputs():
    rng = np.random.default_rng(11)
    for n in [*range(1, 71), 1000]:
        yield "plain", rng.uniform(-12, 12, n)
    yield "wide", rng.uniform(-80, 80, 257)
    yield "special", np.array(SPECIAL)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_values_bitwise(name, dtype):
    for kind, values in _inputs():
        layouts = [lambda t: t, lambda t: t.flip(0)]
        if values.size % 2 == 0:
            layouts.append(lambda t: t.reshape(2, -1).t())
        for layout in layouts:
            ours = _call(leafgrad, name, layout(leafgrad.tensor(values, dtype=getattr(
                leafgrad, dtype))))
            theirs = _call(torch, name, layout(torch.tensor(values, dtype=getattr(torch, dtype))))
            assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
            assert _bits(ours) == _bits(theirs), (kind, values.size)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_gradients_bitwise(name, dtype):
    values = np.random.default_rng(5).uniform(-12, 12, 40)
    grads = []
    for lib in (torch, leafgrad):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        _call(lib, name, x).backward(lib.ones(40, dtype=getattr(lib, dtype)))
        grads.append(_bits(x.grad) if dtype == "float32" else x.grad.numpy().tolist())
    assert grads[0] == grads[1]


def test_kaiser_window_bitwise():
    for length in range(40):
        for periodic in (True, False):
            for beta in (0.0, 0.3, 1.0, 5.0, 12.0, 30.0):
                for dtype in DTYPES:
                    ours = leafgrad.kaiser_window(length, periodic, beta,
                                                  dtype=getattr(leafgrad, dtype))
                    theirs = torch.kaiser_window(length, periodic, beta,
                                                 dtype=getattr(torch, dtype))
                    assert _bits(ours) == _bits(theirs), (length, periodic, beta, dtype)
