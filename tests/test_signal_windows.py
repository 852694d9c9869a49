"""``torch.signal.windows``: every window, lengths 0-12 and 33, symmetric and periodic,
float32/float64/default dtype, their parameters, requires_grad, and the argument errors,
compared with torch: dtype, shape and flags exactly, values to 4 units of roundoff (relative,
or absolute where a cosine sum cancels to near zero): the windows are torch's operations in
torch's order; what can differ is the last bit of an elementwise sin/cos/exp/i0, where NumPy's
vector loops and torch's SLEEF ones round differently on this processor."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

PARAMS = {
    "bartlett": [{}], "blackman": [{}], "cosine": [{}], "hamming": [{}], "hann": [{}],
    "nuttall": [{}],
    "exponential": [{}, {"tau": 0.3}, {"tau": 2.5}],
    "gaussian": [{}, {"std": 0.4}, {"std": 3.0}],
    "kaiser": [{}, {"beta": 0.0}, {"beta": 4.5}],
    "general_hamming": [{}, {"alpha": 0.6}],
    "general_cosine": [{"a": [0.5, 0.5]}, {"a": [0.3, 0.4, 0.2, 0.1]}, {"a": (1.0,)}],
}


def _outcome(lib, name, M, kwargs):
    kwargs = {key: (getattr(lib, value) if key == "dtype" and value is not None else value)
              for key, value in kwargs.items()}
    try:
        window = getattr(lib.signal.windows, name)(M, **kwargs)
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0].replace("leafgrad", "torch")
    return (str(window.dtype).split(".")[-1], tuple(window.shape), window.requires_grad,
            window.detach().numpy())


def _same(ours, theirs) -> bool:
    if isinstance(ours[-1], np.ndarray) and isinstance(theirs[-1], np.ndarray):
        if ours[:-1] != theirs[:-1]:
            return False
        eps = np.finfo(theirs[-1].dtype).eps
        np.testing.assert_allclose(ours[-1], theirs[-1], rtol=4 * eps, atol=4 * eps)
        return True
    return ours == theirs


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_windows_bitwise(name):
    for params in PARAMS[name]:
        for M in [*range(13), 33]:
            for sym in (True, False):
                for dtype in (None, "float32", "float64"):
                    kwargs = dict(params, sym=sym, dtype=dtype)
                    assert _same(_outcome(leafgrad, name, M, kwargs),
                                 _outcome(torch, name, M, kwargs)), (name, params, M, sym, dtype)
    kwargs = dict(PARAMS[name][0], requires_grad=True)
    assert _same(_outcome(leafgrad, name, 7, kwargs), _outcome(torch, name, 7, kwargs))


@pytest.mark.parametrize("name,kwargs,M", [
    ("hann", {}, -1), ("hann", {"dtype": "int64"}, 4), ("hann", {"dtype": "float16"}, 4),
    ("kaiser", {"beta": -1.0}, 4), ("gaussian", {"std": 0.0}, 4),
    ("exponential", {"tau": -2.0}, 4), ("exponential", {"center": 1.0}, 4),
    ("exponential", {"center": 1.0, "sym": False}, 5), ("general_cosine", {"a": []}, 4),
    ("general_cosine", {"a": 3}, 4), ("general_cosine", {"a": []}, 1),
    ("bartlett", {"dtype": "complex64"}, 3), ("cosine", {"dtype": "bfloat16"}, 0),
])
def test_window_errors(name, kwargs, M):
    assert _same(_outcome(leafgrad, name, M, kwargs), _outcome(torch, name, M, kwargs))


def test_default_dtype_follows_torch():
    for lib in (torch, leafgrad):
        lib.set_default_dtype(lib.float64)
    try:
        assert _same(_outcome(leafgrad, "hann", 6, {}), _outcome(torch, "hann", 6, {}))
    finally:
        for lib in (torch, leafgrad):
            lib.set_default_dtype(lib.float32)
