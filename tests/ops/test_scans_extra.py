"""Scans against torch (ops/scans_extra.py, Tensor.cumsum_/cumprod_): cummax/cummin ties and NaNs
(indices, values and gradients to second order), logcumsumexp with infinities, NaNs and large
magnitudes, result types and reprs, every call form, dtypes, out= and errors. Smooth inputs are
covered by the op table (samples_stats.py)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._differential import INF, NAN, check, torch


# -- cummax / cummin ------------------------------------------------------------------------------

TIES = [[1.0, 3.0, 3.0, 2.0, 3.0], [0.0, -0.0, 0.0, -1.0, -1.0]]
WITH_NAN = [[1.0, NAN, 0.0, NAN, 5.0], [NAN, 2.0, NAN, 1.0, 1.0]]


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("values", [TIES, WITH_NAN, [[INF, -INF, INF, -INF, 0.0]] * 2])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumextremum_ties_nans_and_gradients(name, values, dim):
    check(lambda lib, x: getattr(lib, name)(x, dim), values)
    check(lambda lib, x: getattr(x, name)(dim=dim), values, dtype="float32")


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float16"])
def test_cumextremum_dtypes(name, dtype):
    values = [[1, 0, 1, 3], [2, 2, 0, 1]]
    check(lambda lib, x: getattr(lib, name)(x, 1), values, dtype=dtype, grad=False)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.cummax(x, 2),
    lambda lib, x: lib.cummax(x, 1.0),
    lambda lib, x: lib.cummax(x),
    lambda lib, x: lib.cummin(x, dim="a"),
    lambda lib, x: lib.cummax(x[0, 0], 0),
    lambda lib, x: lib.cummin(x[0, 0], -1),
    lambda lib, x: lib.cummax(x[:0], 0),
    lambda lib, x: lib.cummin(x[:, :0], 1),
    lambda lib, x: lib.cummax(x.to(lib.complex64), 0),
    lambda lib, x: lib.cummin(x.to(lib.complex64), 0),
    lambda lib, x: lib.cummax(x.t(), 1),
    lambda lib, x: x.cummax(),
    lambda lib, x: x.cummin(0, 1),
    lambda lib, x: x.cummax(None),
    lambda lib, x: x.cummin(dim=None),
    lambda lib, x: lib.cummax(x, lib.tensor(1)),
    lambda lib, x: lib.cummin(x, dim=-1, out=None),
    lambda lib, x: lib.cummax(input=x, dim=0),
])
def test_cumextremum_call_forms_and_errors(call):
    check(call, np.arange(6.0).reshape(2, 3) % 4)


def test_cumextremum_result_type():
    ours = leafgrad.cummax(leafgrad.tensor([1, 3, 2]), 0)
    theirs = torch.cummax(torch.tensor([1, 3, 2]), 0)
    assert repr(ours) == repr(theirs).replace("torch.", "leafgrad.")
    values, indices = ours
    assert values is ours.values and indices is ours.indices


@pytest.mark.parametrize("outs", [("float32", "int64"), ("float32", "float32"),
                                  ("float64", "int64"), ("int64", "int64")])
def test_cumextremum_out(outs):
    def call(lib, x):
        out = tuple(lib.empty(0, dtype=getattr(lib, d)) for d in outs)
        result = lib.cummax(x, 1, out=out)
        assert result[0] is out[0] and result[1] is out[1]
        return result

    check(call, [[1.0, 3.0, 2.0], [0.0, 1.0, 1.0]], dtype="float32", grad=False)
    check(call, [[1.0, 3.0, 2.0], [0.0, 1.0, 1.0]], dtype="float32", grad=True)


# -- logcumsumexp ---------------------------------------------------------------------------------


@pytest.mark.parametrize("values", [
    [[-INF, 1.0, -INF, 2.0], [-INF, -INF, -INF, -INF]],
    [[INF, 1.0, -INF, 2.0], [1.0, INF, 3.0, -INF]],
    [[NAN, 1.0, 2.0, 3.0], [1.0, 2.0, NAN, 3.0]],
    [[1000.0, 1000.0, -1000.0, 999.0], [-1000.0, -999.0, -1001.0, -1000.0]],
])
@pytest.mark.parametrize("dim", [0, 1])
def test_logcumsumexp_extremes(values, dim):
    check(lambda lib, x: lib.logcumsumexp(x, dim), values, grad_rtol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_logcumsumexp_float32_values_bitwise(dtype):
    rng = np.random.default_rng(3)
    values = rng.normal(size=(4, 50)) * 10
    check(lambda lib, x: lib.logcumsumexp(x, 1), values, dtype=dtype, grad=False)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.logcumsumexp(x.long(), 0),
    lambda lib, x: lib.logcumsumexp(x > 0, 0),
    lambda lib, x: lib.logcumsumexp(x, 5),
    lambda lib, x: lib.logcumsumexp(x, dim=-2),
    lambda lib, x: x.logcumsumexp(1),
    lambda lib, x: lib.logcumsumexp(x[0, 0], 0),
    lambda lib, x: lib.logcumsumexp(x[:0], 1),
    lambda lib, x: lib.logcumsumexp(x, 0, out=lib.empty(0, dtype=lib.float64)),
    lambda lib, x: lib.logcumsumexp(x.detach(), 0, out=lib.empty(0, dtype=lib.float64)),
    lambda lib, x: lib.logcumsumexp(x.detach(), 0, out=lib.empty(0)),
    lambda lib, x: x.logcumsumexp(),
    lambda lib, x: x.logcumsumexp(dim=None),
    lambda lib, x: lib.logcumsumexp(x, 1.5),
    lambda lib, x: lib.logcumsumexp(x, lib.tensor(-1)),
])
def test_logcumsumexp_call_forms_and_errors(call):
    check(call, [[0.5, -1.0, 2.0], [1.0, 0.0, -3.0]])


def test_logcumsumexp_forward_ad_on_an_empty_dim_raises_as_torch():
    def call(lib, x):
        with lib.autograd.forward_ad.dual_level():
            dual = lib.autograd.forward_ad.make_dual(x, lib.ones_like(x))
            return lib.autograd.forward_ad.unpack_dual(lib.logcumsumexp(dual, 0)).tangent

    check(call, np.zeros((0, 2)), grad=False)
    check(call, np.array([[1.0, -INF], [2.0, 0.5]]), grad=False, rtol=1e-12, atol=1e-12)


# -- in-place scans (Tensor.cumsum_, Tensor.cumprod_) ---------------------------------------------

SCAN_INPUT = [[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.7, 0.9], [0.0, -0.4, 1.1, -2.2]]


def _views_scanned(lib, x):
    y = x * 1
    y[:, 1].cumsum_(0)  # a view: its base's history becomes CopySlices
    return y


@pytest.mark.parametrize("call", [
    lambda lib, x: (x * 1).cumsum_(1),
    lambda lib, x: (x * 1).cumprod_(0),
    lambda lib, x: (x * 1).cumprod_(dim=-1),
    lambda lib, x: (x * 1).t().cumsum_(dim=1),
    lambda lib, x: _views_scanned(lib, x),
    lambda lib, x: (x * 1).cumsum_(0, dtype=x.dtype),
    lambda lib, x: x.cumsum_(0),
    lambda lib, x: x.detach().clone().cumsum_(0, dtype=lib.float16),
    lambda lib, x: x.detach().long().cumsum_(1),
    lambda lib, x: x.detach().long().cumprod_(0, dtype=lib.float32),
    lambda lib, x: (x.detach() > 0).cumsum_(0),
    lambda lib, x: (x.detach() > 0).cumprod_(0),
    lambda lib, x: x.detach().long().cumsum_(0, dtype=lib.int32),
    lambda lib, x: (x[0, 0] * 1).cumsum_(0),
    lambda lib, x: (x * 1).cumsum_(3),
    lambda lib, x: (x * 1).cumsum_(),
    lambda lib, x: (x * 1).cumprod_(0, x.dtype),
    lambda lib, x: (x[:0] * 1).cumprod_(1),
])
def test_inplace_scans(call):
    check(call, SCAN_INPUT, rtol=1e-15, atol=1e-15)
