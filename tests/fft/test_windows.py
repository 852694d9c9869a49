"""Window functions (hann, hamming, blackman, bartlett, kaiser) against torch 2.13: values in
every floating dtype, periodic and symmetric, lengths 0, 1 and more, their extra parameters,
requires_grad, the default dtype, and torch's errors for bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch
from .test_fft import same

torch = require_torch()

NAMES = ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window")
LENGTHS = (0, 1, 2, 3, 5, 6, 17, 64)
# float32/float16 windows: torch computes each step in float with its vectorised cos and
# i0; NumPy's float32 cos may differ in the last place
TOLERANCE = {"float64": (1e-14, 1e-15), "float32": (2e-6, 2e-7), "float16": (1e-3, 1e-3)}


def _check(name: str, args: tuple, kwargs: dict) -> None:
    ours, theirs = same(lambda lib: getattr(lib, name)(*args, **kwargs))
    if theirs is None:
        return
    assert ours.is_leaf and ours.is_contiguous()
    rtol, atol = TOLERANCE[str(theirs.dtype).split(".")[-1]]
    np.testing.assert_allclose(ours.detach().numpy().astype(np.float64),
                               theirs.detach().numpy().astype(np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", None])
@pytest.mark.parametrize("name", NAMES)
def test_values(name, dtype):
    for length in LENGTHS:
        for periodic in ((), (True,), (False,)):
            if dtype is not None:  # each library's own dtype object
                ours, theirs = same(lambda lib: getattr(lib, name)(
                    length, *periodic, dtype=getattr(lib, dtype)))
                if theirs is not None:
                    rtol, atol = TOLERANCE[dtype]
                    np.testing.assert_allclose(ours.numpy().astype(np.float64),
                                               theirs.numpy().astype(np.float64),
                                               rtol=rtol, atol=atol)
                continue
            _check(name, (length, *periodic), {})


@pytest.mark.parametrize("args", [(7, True, 0.3), (7, False, 0.3, 0.2), (8, True, 1, 0),
                                  (6, False, -0.5, 2.0)])
def test_hamming_parameters(args):
    _check("hamming_window", args, {})


@pytest.mark.parametrize("args", [(7, True, 3.0), (8, False, 0.5), (9, True, 0), (5, False, 30)])
def test_kaiser_beta(args):
    _check("kaiser_window", args, {})


def test_default_dtype_and_requires_grad():
    for name in NAMES:
        same(lambda lib: getattr(lib, name)(5, requires_grad=True))
        same(lambda lib: getattr(lib, name)(5, dtype=lib.float64, requires_grad=True))
        same(lambda lib: getattr(lib, name)(window_length=4, periodic=False))
        previous = leafgrad.get_default_dtype()
        try:
            leafgrad.set_default_dtype(leafgrad.float64)
            torch.set_default_dtype(torch.float64)
            same(lambda lib: getattr(lib, name)(6))
        finally:
            leafgrad.set_default_dtype(previous)
            torch.set_default_dtype(torch.float32)


BAD_CALLS = [
    lambda lib, f: f(-1), lambda lib, f: f(5, dtype=lib.int64),
    lambda lib, f: f(0, dtype=lib.int64),
    lambda lib, f: f(-1, dtype=lib.int32), lambda lib, f: f(5, dtype=lib.bool),
    lambda lib, f: f(5, dtype=lib.uint8), lambda lib, f: f(5, dtype=lib.complex64),
    lambda lib, f: f(5.0), lambda lib, f: f(5, 1), lambda lib, f: f(5, None),
    lambda lib, f: f(5, out=lib.empty(5)), lambda lib, f: f(), lambda lib, f: f("5"),
    lambda lib, f: f(5, True, 0.5, 0.5, 0.5), lambda lib, f: f(5, requires_grad=1),
    lambda lib, f: f(5, dtype="float32"), lambda lib, f: f(5, alpha=0.3),
    lambda lib, f: f(5, beta=3.0), lambda lib, f: f(5, True, "a"),
    lambda lib, f: f(lib.tensor(5)), lambda lib, f: f(5, dtype=lib.int64, requires_grad=True),
    lambda lib, f: f(5, lib.tensor(True)),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("index", range(len(BAD_CALLS)))
def test_errors(name, index):
    same(lambda lib: BAD_CALLS[index](lib, getattr(lib, name)))
