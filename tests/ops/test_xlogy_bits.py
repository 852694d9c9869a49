"""xlogy is torch's bits: ATen's xlogy kernel is a scalar loop calling std::log, the C
library's log, where leafgrad took NumPy's (whose AVX-512 loops differ from glibc on ~20% of
float32 values), so kl_div's losses and gradients were a last bit off (up to ``_libm``'s
element-by-element limit of 1,024 elements; past it float64's log rounded once)."""

from __future__ import annotations

import numpy as np

import leafgrad
from leafgrad.ops import _libm

from .._torch import require_torch

torch = require_torch()


def _operands(rng, dtype, n):
    x = rng.standard_normal(n) * 3
    y = rng.uniform(0.0, 4.0, n)
    x[::7] = 0
    y[::11] = 0
    y[::13] = -1.5
    y[5::17] = np.nan
    y[3::19] = np.inf
    return x.astype(dtype), y.astype(dtype)


def _same(a, b):
    a, b = a.detach().numpy(), b.detach().numpy()
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def test_xlogy_and_kl_div_are_torchs_bits():
    rng = np.random.default_rng(0)
    differing = []
    for dtype in (np.float16, np.float32, np.float64):
        for n in (1, 7, 64, 300, _libm.EXACT_MAX):
            x, y = _operands(rng, dtype, n)
            forms = {
                "xlogy": lambda lib, a, b: lib.xlogy(a, b),
                "special.xlogy": lambda lib, a, b: lib.special.xlogy(a, b),
                "scalar self": lambda lib, a, b: lib.xlogy(2.5, b),
                "scalar other": lambda lib, a, b: lib.xlogy(a, 0.37),
                "broadcast": lambda lib, a, b: lib.xlogy(a.reshape(-1, 1)[:4], b[:5]),
                "transposed": lambda lib, a, b: lib.xlogy(a[: n // 2 * 2].reshape(2, -1).t(),
                                                          b[: n // 2 * 2].reshape(2, -1).t()),
            }
            for name, form in forms.items():
                got = form(leafgrad, leafgrad.tensor(x), leafgrad.tensor(y))
                want = form(torch, torch.tensor(x), torch.tensor(y))
                if not _same(want, got):
                    differing.append((name, dtype.__name__, n))
            # kl_div: its losses are xlogy(t, t) - t * input; gradients through xlogy's
            # formulas
            if dtype == np.float16:
                continue
            target = np.abs(y[np.isfinite(y)]).astype(dtype)
            inputs = x[: target.size]
            results = []
            for lib in (torch, leafgrad):
                a = lib.tensor(inputs, requires_grad=True)
                b = lib.tensor(target, requires_grad=True)
                loss = lib.nn.functional.kl_div(a, b, reduction="batchmean")
                loss.backward()
                results.append((loss, a.grad, b.grad))
            if not all(_same(u, v) for u, v in zip(*results)):
                differing.append(("kl_div", dtype.__name__, n))
    assert not differing, differing
