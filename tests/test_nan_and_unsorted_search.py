"""searchsorted/bucketize follow torch's binary search where NumPy's differs (NaN in the
boundaries or the values, unsorted boundaries), and unique keeps every NaN apart, as torch
does; empty boundaries and values in every form. Differential against torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

NAN = float("nan")


def _case(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(0, 9)), int(rng.integers(0, 7))
    b = np.sort(rng.integers(-3, 4, n).astype(np.float32))
    kind = seed % 4
    if kind == 1:
        b = rng.integers(-3, 4, n).astype(np.float32)  # unsorted: torch does not check
    elif kind == 2 and n:
        b[rng.integers(0, n)] = NAN
    elif kind == 3 and n:
        b[-1] = NAN
    v = rng.integers(-4, 5, m).astype(np.float32)
    if seed % 3 == 0 and m:
        v[rng.integers(0, m)] = NAN
    if seed % 5 == 0:
        b, v = np.stack([b, b[::-1].copy()]), np.stack([v, v])
    return b, v


@pytest.mark.parametrize("seed", range(120))
def test_searchsorted_follows_torchs_binary_search(seed):
    torch = require_torch()
    b, v = _case(seed)
    for kwargs in (dict(), dict(right=True), dict(side="right"), dict(out_int32=True)):
        expected = torch.searchsorted(torch.tensor(b), torch.tensor(v), **kwargs)
        got = leafgrad.searchsorted(leafgrad.tensor(b), leafgrad.tensor(v), **kwargs)
        assert str(got.dtype) == str(expected.dtype).replace("torch", "leafgrad")
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    if b.ndim == 1:
        for value in (NAN, 0.5, -10.0):
            expected = torch.searchsorted(torch.tensor(b), torch.tensor(value))
            got = leafgrad.searchsorted(leafgrad.tensor(b), leafgrad.tensor(value))
            np.testing.assert_array_equal(got.numpy(), expected.numpy())
        for right in (False, True):
            expected = torch.bucketize(torch.tensor(v), torch.tensor(b), right=right)
            got = leafgrad.bucketize(leafgrad.tensor(v), leafgrad.tensor(b), right=right)
            np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_searchsorted_with_a_sorter_and_nan():
    torch = require_torch()
    b = np.array([3.0, NAN, 1.0, 2.0], np.float32)
    v = np.array([0.0, 1.5, NAN, 5.0], np.float32)
    order = np.argsort(b, kind="stable")
    expected = torch.searchsorted(torch.tensor(b), torch.tensor(v), sorter=torch.tensor(order))
    got = leafgrad.searchsorted(leafgrad.tensor(b), leafgrad.tensor(v),
                                sorter=leafgrad.tensor(order))
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("values", [[1.0, NAN, 2.0, NAN, 1.0], [NAN], [], [3.0, 1.0, 2.0],
                                    [NAN, NAN, -np.inf, np.inf]])
@pytest.mark.parametrize("kwargs", [dict(), dict(return_inverse=True, return_counts=True),
                                    dict(sorted=False, return_inverse=True, return_counts=True)])
def test_unique_keeps_every_nan(values, kwargs):
    torch = require_torch()
    x = np.array(values, np.float32)
    expected = torch.unique(torch.tensor(x), **kwargs)
    got = leafgrad.unique(leafgrad.tensor(x), **kwargs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert str(a.dtype) == str(b.dtype).replace("torch", "leafgrad")
