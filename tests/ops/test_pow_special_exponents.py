"""pow with the exponents torch's pow(Tensor, Scalar) kernel does not compute with pow()
(0, 1, 2, 3, -1, -2, 0.5, -0.5): bitwise against torch for float16/float32/float64, sizes
across the vector widths and a strided layout, and the gradient. The exponent 0.5 runs torch's
sqrt kernel (MKL's vsSqrt): with NumPy's correctly rounded square root 24 of 100 float32 values
in [0, 20) were a last bit off (``(x ** 0.5)``, LPPool's root)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._mkl_support import one_thread_and_defaults, require_mkl
from .._torch import require_torch

torch = require_torch()


@pytest.fixture(autouse=True)
def _one_thread():
    yield from one_thread_and_defaults(torch)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_special_exponents_bitwise(dtype):
    require_mkl()
    rng = np.random.default_rng(3)
    for exponent in (0, 1, 2, 3, -1, -2, 0.5, -0.5):
        for size in (1, 5, 8, 16, 17, 100, 1000):
            values = np.abs(rng.standard_normal(size)) * 7
            for layout in (lambda t: t, lambda t: t[::2]):
                ours = layout(leafgrad.tensor(values, dtype=getattr(leafgrad, dtype))) ** exponent
                theirs = layout(torch.tensor(values, dtype=getattr(torch, dtype))) ** exponent
                assert ours.numpy().tobytes() == theirs.numpy().tobytes(), (exponent, size)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_square_root_power_gradient_and_lp_pool(dtype):
    require_mkl()
    values = np.abs(np.random.default_rng(4).standard_normal((2, 3, 8, 8))) * 5 + 0.1
    seen = []
    for lib in (torch, leafgrad):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = x.pow(0.5)
        y.backward(lib.ones_like(y))
        pooled = lib.nn.functional.lp_pool2d(x.detach(), 2, 2)
        seen.append((y.detach().numpy().tobytes(), x.grad.numpy().tobytes(),
                     pooled.numpy().tobytes(), y.grad_fn.name()))
    assert seen[0] == seen[1]
