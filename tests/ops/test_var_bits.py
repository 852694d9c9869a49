"""var/std/var_mean/std_mean of float16/float32 tensors are torch's bits: torch accumulates them
in double (WelfordOps over a dim, std_var_all_cpu over everything) and rounds once (half:
to float, then to half)."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

CASES = [((32, 27), 0), ((32, 27), 1), ((546, 27), 0), ((100, 64), 0), ((7, 3, 5), 1),
         ((7, 3, 5), (0, 2)), ((7, 3, 5), None), ((1000,), None), ((40000,), None),
         ((64, 33), (0, 1)), ((3, 1), 0), ((1, 5), 0), ((0, 4), 0), ((5,), 0), ((), None)]


def _same(a, b):
    return (a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape,dim", CASES, ids=str)
@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_moments_bits(name, shape, dim, dtype):
    rng = np.random.default_rng(len(shape) + sum(shape))
    values = np.asarray(rng.standard_normal(shape) * 3 + 1, dtype=dtype)
    for kwargs in ({}, {"keepdim": True}, {"correction": 0}, {"unbiased": False}):
        if dim is not None:
            kwargs = {"dim": dim, **kwargs}
        elif "keepdim" in kwargs:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # degrees of freedom <= 0: tested elsewhere
            want = getattr(torch, name)(torch.from_numpy(values), **kwargs)
            got = getattr(lg, name)(lg.tensor(values), **kwargs)
            method = getattr(lg.tensor(values), name)(**kwargs) if name in ("var", "std") \
                else got
        want = want if isinstance(want, tuple) else (want,)
        for outputs in (got, method):
            outputs = outputs if isinstance(outputs, tuple) else (outputs,)
            for a, b in zip(outputs, want):
                assert _same(a.numpy(), b.numpy()), kwargs


def test_batchnorm_by_hand_matches():
    # makemore's hand-written BatchNorm1d: (x - x.mean(0)) / sqrt(x.var(0) + eps)
    rng = np.random.default_rng(0)
    values = (rng.standard_normal((32, 64)) * 2).astype(np.float32)
    outs = []
    for m in (torch, lg):
        x = m.tensor(values, requires_grad=True)
        y = (x - x.mean(0, keepdim=True)) / m.sqrt(x.var(0, keepdim=True) + 1e-5)
        (y * m.tensor(values)).sum().backward()
        outs.append((y.detach().numpy(), x.grad.numpy()))
    assert _same(outs[0][0], outs[1][0])
    assert np.allclose(outs[0][1], outs[1][1], rtol=1e-5, atol=1e-6)
