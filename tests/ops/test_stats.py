"""Scans and statistics against torch (ops/scans_extra.py, ops/stats_extra.py): ties, NaNs and
infinities (indices, values and gradients to second order), result types and reprs, every call
form, dtypes and errors. Smooth inputs are covered by the op table (samples_stats.py)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()
NAN, INF = float("nan"), float("inf")


def _tensors(lib, arrays, dtype, requires_grad):
    out = []
    for array in arrays:
        if isinstance(array, np.ndarray):
            # float arrays take the test's dtype; integer arrays (weights, counts) stay int64
            kind = {"f": dtype, "c": "complex128"}.get(array.dtype.kind, "int64")
            t = lib.tensor(array, dtype=getattr(lib, kind))
            if requires_grad and (t.is_floating_point() or t.is_complex()):
                t.requires_grad_()
            out.append(t)
        else:
            out.append(array)
    return out


def _run(lib, fn, arrays, dtype, requires_grad):
    inputs = _tensors(lib, arrays, dtype, requires_grad)
    try:
        return inputs, fn(lib, *inputs)
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return inputs, (type(error).__name__, str(error).splitlines()[0])


def _is_error(outcome) -> bool:
    return type(outcome) is tuple and len(outcome) == 2 and isinstance(outcome[0], str)


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [t for item in result for t in _flat(item)]
    return [result]


def _np(tensor):
    return tensor.detach().numpy(force=True)


def _same_tensor(ours, theirs, rtol, atol):
    if not isinstance(theirs, torch.Tensor):
        assert ours == theirs
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    if rtol == 0:
        np.testing.assert_array_equal(_np(ours), _np(theirs))
    else:
        np.testing.assert_allclose(_np(ours), _np(theirs), rtol=rtol, atol=atol)
    assert ours.requires_grad == theirs.requires_grad
    ours_node = type(ours.grad_fn).__name__ if ours.grad_fn is not None else None
    theirs_node = type(theirs.grad_fn).__name__ if theirs.grad_fn is not None else None
    assert ours_node == theirs_node


def check(fn, *arrays, dtype="float64", grad=True, rtol=0.0, atol=0.0, grad_rtol=1e-10,
          second_order=True, seed=0):
    """``fn(lib, *tensors)`` gives torch's values, result types, grad_fn names and errors; with
    ``grad``, its first and second-order gradients for a random upstream gradient too."""
    arrays = [np.asarray(a, dtype=float) if isinstance(a, list) else a for a in arrays]
    ours_in, ours = _run(leafgrad, fn, arrays, dtype, grad)
    theirs_in, theirs = _run(torch, fn, arrays, dtype, grad)
    if _is_error(theirs):
        assert ours == theirs
        return
    assert not _is_error(ours), ours
    assert type(ours).__name__ == type(theirs).__name__
    if type(theirs).__module__ == "torch.return_types":
        assert repr(ours).split("(")[0] == repr(theirs).split("(")[0].replace("torch.",
                                                                              "leafgrad.")
    ours_flat, theirs_flat = _flat(ours), _flat(theirs)
    assert len(ours_flat) == len(theirs_flat)
    for o, t in zip(ours_flat, theirs_flat):
        _same_tensor(o, t, rtol, atol)
    if not grad:
        return
    _grads_match(ours_in, theirs_in, ours_flat, theirs_flat, grad_rtol, second_order, seed)


def _real(tensor):
    return tensor.real if tensor.is_complex() else tensor


def _grads_match(ours_in, theirs_in, ours_out, theirs_out, rtol, second_order, seed):
    rng = np.random.default_rng(seed)
    pairs = [(o, t) for o, t in zip(ours_out, theirs_out)
             if isinstance(t, torch.Tensor) and t.requires_grad]
    wrt = [(o, t) for o, t in zip(ours_in, theirs_in)
           if isinstance(t, torch.Tensor) and t.requires_grad]
    if not pairs or not wrt:
        return
    ups = [rng.normal(size=tuple(t.shape)) for _, t in pairs]
    ours_total = sum((o * leafgrad.tensor(u, dtype=o.dtype)).sum() for (o, _), u in zip(pairs, ups))
    theirs_total = sum((t * torch.tensor(u, dtype=t.dtype)).sum() for (_, t), u in zip(pairs, ups))
    ours_g = leafgrad.autograd.grad(ours_total, [o for o, _ in wrt], create_graph=True,
                                    allow_unused=True)
    theirs_g = torch.autograd.grad(theirs_total, [t for _, t in wrt], create_graph=True,
                                   allow_unused=True)
    for o, t in zip(ours_g, theirs_g):
        if t is None:
            assert o is None or not np.any(_np(o))
            continue
        np.testing.assert_allclose(_np(o), _np(t), rtol=rtol, atol=rtol)
    if not second_order:
        return
    weights = [rng.normal(size=tuple(t.shape)) if t is not None else None for t in theirs_g]
    ours_second = [_real((o * leafgrad.tensor(w, dtype=o.dtype)).sum())
                   for o, w in zip(ours_g, weights) if o is not None and o.requires_grad]
    theirs_second = [_real((t * torch.tensor(w, dtype=t.dtype)).sum())
                     for t, w in zip(theirs_g, weights) if t is not None and t.requires_grad]
    assert len(ours_second) == len(theirs_second)
    if not theirs_second:
        return
    ours_gg = leafgrad.autograd.grad(sum(ours_second), [o for o, _ in wrt], allow_unused=True)
    theirs_gg = torch.autograd.grad(sum(theirs_second), [t for _, t in wrt], allow_unused=True)
    for o, t in zip(ours_gg, theirs_gg):
        if t is None:
            assert o is None or not np.any(_np(o))
            continue
        np.testing.assert_allclose(_np(o), _np(t), rtol=rtol, atol=rtol)


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


# -- aminmax --------------------------------------------------------------------------------------

AMINMAX_TIES = [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.aminmax(x),
    lambda lib, x: lib.aminmax(x, dim=1),
    lambda lib, x: lib.aminmax(x, dim=-2, keepdim=True),
    lambda lib, x: lib.aminmax(x, dim=None, keepdim=True),
    lambda lib, x: x.aminmax(dim=0),
    lambda lib, x: lib.aminmax(x, dim=1).max,
    lambda lib, x: lib.aminmax(x).min,
    lambda lib, x: lib.aminmax(x[0, 0], dim=0, keepdim=True),
    lambda lib, x: lib.aminmax(x, 1),
    lambda lib, x: lib.aminmax(x, dim=(0, 1)),
    lambda lib, x: lib.aminmax(x, dim=2),
    lambda lib, x: lib.aminmax(x[:0]),
    lambda lib, x: lib.aminmax(x[:0], dim=0),
    lambda lib, x: lib.aminmax(x[:0], dim=1),
    lambda lib, x: lib.aminmax(x.to(lib.complex64)),
])
def test_aminmax_ties_call_forms_and_errors(call):
    check(call, AMINMAX_TIES)
    check(call, [[1.0, NAN, 3.0], [2.0, 2.0, 0.0]])


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float16", "float32"])
def test_aminmax_dtypes(dtype):
    check(lambda lib, x: lib.aminmax(x, dim=0), [[1, 0, 1], [0, 1, 1]], dtype=dtype, grad=False)


@pytest.mark.parametrize("outs", [("float32", "float32"), ("int64", "float32"),
                                  ("float32", "float64")])
@pytest.mark.parametrize("grad", [False, True])
def test_aminmax_out(outs, grad):
    def call(lib, x):
        out = tuple(lib.empty(0, dtype=getattr(lib, d)) for d in outs)
        result = lib.aminmax(x, dim=1, out=out)
        assert result[0] is out[0] and result[1] is out[1]
        return result

    check(call, AMINMAX_TIES, dtype="float32", grad=grad)


# -- quantile / nanquantile -----------------------------------------------------------------------

Q_INPUT = [[0.3, -1.2, 2.0, 0.1, 0.1], [1.5, 0.2, -0.7, 0.9, 0.2], [0.0, -0.4, 1.1, -2.2, 3.0]]
Q_TIES_NAN = [[1.0, 2.0, 2.0, 3.0, NAN], [4.0, 4.0, 4.0, 1.0, 0.0], [NAN, NAN, NAN, NAN, NAN]]
INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("values", [Q_INPUT, Q_TIES_NAN])
@pytest.mark.parametrize("call", [
    lambda f, x, i: f(x, 0.3, interpolation=i),
    lambda f, x, i: f(x, 0.5, 1, interpolation=i),
    lambda f, x, i: f(x, 0.25, dim=0, keepdim=True, interpolation=i),
    lambda f, x, i: f(x.t(), 1.0, -1, True, interpolation=i),
    lambda f, x, i: f(x, 0, dim=-2, interpolation=i),
])
def test_quantile_scalar_q(name, interpolation, values, call):
    check(lambda lib, x: call(getattr(lib, name), x, interpolation), values, rtol=1e-15,
          atol=1e-15)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (1, False), (0, True)])
def test_quantile_tensor_q_with_grad(name, interpolation, dim, keepdim):
    # q = 1/6 and 0.5 land halfway between ranks: nearest rounds half to even, as torch
    q = np.array([0.0, 1 / 6, 0.5, 0.9, 1.0])
    check(lambda lib, x, q: getattr(lib, name)(x, q, dim, keepdim, interpolation=interpolation),
          Q_INPUT, q, rtol=1e-15, atol=1e-15)
    check(lambda lib, x, q: getattr(x, name)(q, dim=dim, keepdim=keepdim,
                                             interpolation=interpolation),
          Q_TIES_NAN, q, dtype="float32", grad=False)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.quantile(x, 1.5),
    lambda lib, x: lib.quantile(x, -0.1),
    lambda lib, x: lib.quantile(x, float("nan")),
    lambda lib, x: lib.nanquantile(x, 2),
    lambda lib, x: lib.quantile(x, lib.tensor([0.1, 1.5], dtype=lib.float64)),
    lambda lib, x: lib.quantile(x, lib.tensor([[0.1]], dtype=lib.float64)),
    lambda lib, x: lib.quantile(x, lib.tensor([0.1])),
    lambda lib, x: lib.quantile(x, 0.5, interpolation="foo"),
    lambda lib, x: lib.quantile(x, 0.5, dim=3),
    lambda lib, x: lib.quantile(x[:0], 0.5),
    lambda lib, x: lib.quantile(x[:0], 1.5),
    lambda lib, x: lib.quantile(x[:0], 0.5, interpolation="x"),
    lambda lib, x: lib.quantile(x.long(), 0.5),
    lambda lib, x: lib.quantile(x.long(), lib.tensor([[0.5]])),
    lambda lib, x: lib.quantile(x.long(), lib.tensor([0.5], dtype=lib.float64)),
    lambda lib, x: lib.quantile(x.half(), 0.5),
    lambda lib, x: lib.quantile(x, [0.5]),
    lambda lib, x: lib.quantile(x, 0.5, 1, True, "lower"),
    lambda lib, x: lib.quantile(x, 0.5, dim=(0, 1)),
    lambda lib, x: x.quantile(0.5, dim=1.0),
    lambda lib, x: x.quantile(),
    lambda lib, x: lib.quantile(x[0, 0], 0.5),
    lambda lib, x: lib.quantile(x[0, 0], 0.5, dim=0, keepdim=True),
    lambda lib, x: lib.quantile(x, lib.tensor([], dtype=lib.float64), dim=1),
    lambda lib, x: lib.quantile(x, True),
    lambda lib, x: lib.quantile(input=x, q=0.2, keepdim=True),
    lambda lib, x: lib.quantile(x, lib.tensor(0.75, dtype=lib.float64), 0),
])
def test_quantile_call_forms_and_errors(call):
    check(call, Q_INPUT)


def test_quantile_gradient_reaches_q():
    check(lambda lib, x, q: lib.quantile(x, q.requires_grad_(), dim=1), Q_INPUT,
          np.array([0.2, 0.65]), rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("out_dtype", ["float64", "float32"])
@pytest.mark.parametrize("grad", [False, True])
def test_quantile_out(out_dtype, grad):
    def call(lib, x):
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        result = lib.nanquantile(x, 0.3, dim=1, out=out)
        assert result is out
        return result

    check(call, Q_INPUT, grad=grad)


# -- cov / corrcoef -------------------------------------------------------------------------------

COV_INPUT = [[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.7, 0.9], [0.0, -0.4, 1.1, -2.2]]
FWEIGHTS = np.array([1, 2, 0, 3])
AWEIGHTS = np.array([0.5, 1.0, 2.0, 0.1])


@pytest.mark.parametrize("call", [
    lambda lib, x, f, a: lib.cov(x),
    lambda lib, x, f, a: lib.cov(x, correction=0),
    lambda lib, x, f, a: lib.cov(x, correction=2, fweights=f),
    lambda lib, x, f, a: lib.cov(x, aweights=a),
    lambda lib, x, f, a: lib.cov(x.t(), fweights=f[:3], aweights=a[:3], correction=3),
    lambda lib, x, f, a: x.cov(fweights=f, aweights=a, correction=0),
    lambda lib, x, f, a: lib.cov(x[0]),
    lambda lib, x, f, a: lib.cov(x[0, 0]),
    lambda lib, x, f, a: lib.cov(x[:, :1]),
    lambda lib, x, f, a: lib.cov(x[:, :0]),
    lambda lib, x, f, a: lib.cov(x[:0]),
    lambda lib, x, f, a: lib.cov(x.round().long()),
    lambda lib, x, f, a: lib.cov(x > 0),
    lambda lib, x, f, a: lib.cov(x.view(3, 2, 2)),
    lambda lib, x, f, a: lib.cov(x, fweights=a),
    lambda lib, x, f, a: lib.cov(x, aweights=f),
    lambda lib, x, f, a: lib.cov(x, fweights=f[:2]),
    lambda lib, x, f, a: lib.cov(x, fweights=-f),
    lambda lib, x, f, a: lib.cov(x, aweights=-a),
    lambda lib, x, f, a: lib.cov(x, aweights=a * 0),
    lambda lib, x, f, a: lib.cov(x, aweights=a[None]),
    lambda lib, x, f, a: lib.cov(x, 1),
    lambda lib, x, f, a: lib.cov(x, fweights=f, aweights=a.requires_grad_()),
    lambda lib, x, f, a: lib.corrcoef(x),
    lambda lib, x, f, a: x.t().corrcoef(),
    lambda lib, x, f, a: lib.corrcoef(x[0]),
    lambda lib, x, f, a: lib.corrcoef(lib.stack([x[0] * 0 + 1, x[1]])),
    lambda lib, x, f, a: lib.corrcoef(x.round().long()),
    lambda lib, x, f, a: lib.corrcoef(x.view(3, 2, 2)),
])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cov_corrcoef(call, dtype):
    tolerance = 1e-6 if dtype == "float32" else 1e-13
    check(call, COV_INPUT, FWEIGHTS, AWEIGHTS, dtype=dtype, rtol=tolerance, atol=tolerance,
          grad_rtol=1e-4 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.cov(x[:, :1]),
    lambda lib, x: lib.cov(x, correction=4),
    lambda lib, x: lib.cov(x, correction=0),
    lambda lib, x: lib.corrcoef(x[:, :1]),
])
def test_cov_degrees_of_freedom_warning(call):
    import warnings

    def messages(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(lib, lib.tensor(COV_INPUT))
        return [str(w.message).split(" (Triggered")[0] for w in caught]

    assert messages(leafgrad) == messages(torch)


# -- the composites under vmap and forward mode (through the ops they are made of) ---------------


@pytest.mark.parametrize("fn", [
    lambda lib, t: lib.quantile(t, 0.3, dim=1),
    lambda lib, t: lib.nanquantile(t, lib.tensor([0.2, 0.9], dtype=lib.float64), dim=0),
    lambda lib, t: lib.quantile(t, 0.5, interpolation="midpoint"),
    lambda lib, t: lib.cov(t),
    lambda lib, t: lib.corrcoef(t),
    lambda lib, t: lib.cummax(t, 1).values,
    lambda lib, t: lib.logcumsumexp(t, 0),
    lambda lib, t: lib.aminmax(t, dim=0).max,
])
def test_vmap_and_jvp(fn):
    import warnings

    rng = np.random.default_rng(5)
    batch = rng.normal(size=(2, 3, 4))
    tangent = rng.normal(size=(3, 4))
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(batch, dtype=lib.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's "performance drop" for its fallback
            mapped = lib.vmap(lambda t: fn(lib, t))(x)
        _, jvp = lib.func.jvp(lambda t: fn(lib, t), (x[0],), (lib.tensor(tangent),))
        results.append((_np(mapped), _np(jvp)))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


# -- renorm ---------------------------------------------------------------------------------------

RENORM_INPUT = [[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.7, 0.9], [0.0, -0.4, 1.1, -2.2]]


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.renorm(x, 2, 0, 1.5),
    lambda lib, x: lib.renorm(x, 1, 1, 2),
    lambda lib, x: x.renorm(float("inf"), -1, 1.0),
    lambda lib, x: lib.renorm(x, 2.5, 0, 1.0),
    lambda lib, x: lib.renorm(x, 0.5, 0, 1.0),
    lambda lib, x: lib.renorm(x, p=2, dim=0, maxnorm=0.0),
    lambda lib, x: lib.renorm(x, 2, 0, lib.tensor(1.0)),
    lambda lib, x: lib.renorm(x, 2, 0, 100.0),
    lambda lib, x: (x * 1).renorm_(2, 0, 1.0),
    lambda lib, x: x.renorm_(2, 0, 1.0),
    lambda lib, x: x.detach().renorm_(2, 1, 1.0),
    lambda lib, x: lib.renorm(x, 0, 0, 1.0),
    lambda lib, x: lib.renorm(x, -1, 0, 1.0),
    lambda lib, x: lib.renorm(x, 2, 0, -1.0),
    lambda lib, x: lib.renorm(x, 2, 2, 1.0),
    lambda lib, x: lib.renorm(x[0], 2, 0, 1.0),
    lambda lib, x: lib.renorm(x[0, 0], 2, 0, 1.0),
    lambda lib, x: lib.renorm(x.long(), 2, 0, 1),
    lambda lib, x: lib.renorm(x.detach() > 0, 2, 0, 1),
    lambda lib, x: lib.renorm(x.detach().half(), 2, 0, 1),
    lambda lib, x: lib.renorm(x, 2, 0),
    lambda lib, x: lib.renorm(x, 2, 0.0, 1.0),
    lambda lib, x: x.renorm(2, dim="a", maxnorm=1.0),
    lambda lib, x: lib.renorm(x[:0], 2, 0, 1.0),
    lambda lib, x: lib.renorm(x[:0], 2, 1, 1.0),
    lambda lib, x: lib.renorm(x.t(), 2, 0, 1.0),
])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_renorm(call, dtype):
    # float32: within an ulp of torch's (p = 2.5 sums |x|^p in another order than torch)
    tolerance = 3e-7 if dtype == "float32" else 1e-15
    check(call, RENORM_INPUT, dtype=dtype, rtol=tolerance, atol=tolerance,
          grad_rtol=1e-5 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("grad", [False, True])
def test_renorm_out(out_dtype, grad):
    def call(lib, x):
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        result = lib.renorm(x, 2, 0, 1.0, out=out)
        assert result is out
        return result

    check(call, RENORM_INPUT, dtype="float32", grad=grad)


# -- histogram ------------------------------------------------------------------------------------

HIST_INPUT = [[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.7, 0.9], [0.0, -0.4, 1.1, -2.2]]


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.histogram(x, 4),
    lambda lib, x: lib.histogram(x, bins=3, range=(-1.0, 1.0)),
    lambda lib, x: lib.histogram(x, lib.tensor([-1.0, 0.0, 0.5, 2.0], dtype=x.dtype)),
    lambda lib, x: lib.histogram(x, 4, weight=x.abs()),
    lambda lib, x: lib.histogram(x, 4, density=True),
    lambda lib, x: lib.histogram(x, lib.tensor([-1.0, 0.0, 0.5, 2.0], dtype=x.dtype),
                                 density=True, weight=x.abs()),
    lambda lib, x: x.histogram(5),
    lambda lib, x: x.t().histogram(7, range=[0, 1]),
    lambda lib, x: lib.histogram(x.long(), 3),
    lambda lib, x: lib.histogram(x.half(), 3),
    lambda lib, x: lib.histogram(x, 0),
    lambda lib, x: lib.histogram(x, -1),
    lambda lib, x: lib.histogram(x, 3, range=(1.0, -1.0)),
    lambda lib, x: lib.histogram(x, 3, range=(1.0, float("inf"))),
    lambda lib, x: lib.histogram(x, 3, range=(1.0, 1.0)),
    lambda lib, x: lib.histogram(x, 3, range=(0, 1, 2)),
    lambda lib, x: lib.histogram(x[:0], 3),
    lambda lib, x: lib.histogram(x[0, 0], 3),
    lambda lib, x: lib.histogram(x * 0 + 1, 3),
    lambda lib, x: lib.histogram(lib.tensor([1.0, float("nan")], dtype=x.dtype), 3),
    lambda lib, x: lib.histogram(x, lib.tensor([[1.0]], dtype=x.dtype)),
    lambda lib, x: lib.histogram(x, lib.tensor([1.0, 0.0], dtype=x.dtype)),
    lambda lib, x: lib.histogram(x, lib.tensor([1.0], dtype=x.dtype)),
    lambda lib, x: lib.histogram(x, lib.tensor([1.0, 2.0], dtype=lib.float16)),
    lambda lib, x: lib.histogram(x, 3, weight=x[0]),
    lambda lib, x: lib.histogram(x, 3, weight=x.half()),
    lambda lib, x: lib.histogram(x, 3.0),
    lambda lib, x: lib.histogram(lib.linspace(-3, 3, 1000, dtype=x.dtype) * 1.37, 11),
    lambda lib, x: lib.histogram(lib.linspace(-3, 3, 1000, dtype=x.dtype), 7, density=True),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram(call, dtype):
    check(call, HIST_INPUT, dtype=dtype, grad=False)


@pytest.mark.parametrize("outs", [("float32", "float32"), ("float64", "float32"),
                                  ("float32", "int64")])
@pytest.mark.parametrize("bins", [3, "tensor"])
def test_histogram_out(outs, bins):
    def call(lib, x):
        out = tuple(lib.empty(0, dtype=getattr(lib, d)) for d in outs)
        edges = bins if bins == 3 else lib.tensor([0.0, 0.5, 1.0])
        result = lib.histogram(x, edges, out=out)
        assert result[0] is out[0] and result[1] is out[1]
        return result

    check(call, HIST_INPUT, dtype="float32", grad=False)


@pytest.mark.parametrize("call", [
    lambda lib, x, w: lib.histogram(x, 3),
    lambda lib, x, w: lib.histogram(x.detach(), 3, weight=w),
    lambda lib, x, w: lib.histogram(x.detach(), w.detach()[0, :2].requires_grad_()),
])
def test_histogram_with_grad_has_torchs_not_implemented_node(call):
    def run(lib):
        x = lib.tensor(HIST_INPUT, requires_grad=True)
        w = lib.ones(3, 4, requires_grad=True)
        hist, edges = call(lib, x, w)
        names = [type(t.grad_fn).__name__ for t in (hist, edges)]
        try:
            hist.sum().backward()
        except RuntimeError as error:
            names.append(str(error))
        with lib.autograd.forward_ad.dual_level():
            dual = lib.autograd.forward_ad.make_dual(x.detach(), lib.ones(3, 4))
            try:
                lib.histogram(dual, 3)
            except NotImplementedError as error:
                names.append(str(error))
        with lib.no_grad():
            names.append(call(lib, x, w)[0].requires_grad)
        return names

    assert run(leafgrad) == run(torch)


# -- gradient -------------------------------------------------------------------------------------

GRADIENT_INPUT = [[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.7, 0.9], [0.0, -0.4, 1.1, -2.2]]
COORDINATES = (np.array([0.0, 0.5, 2.0]), np.array([-1.0, 0.0, 0.2, 3.0]))


@pytest.mark.parametrize("call", [
    lambda lib, x, c0, c1: lib.gradient(x),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=2.0),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=[2.0, 0.5]),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=(c0, c1)),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=[c1], dim=1),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=[c1], dim=[-1]),
    lambda lib, x, c0, c1: lib.gradient(x, dim=1),
    lambda lib, x, c0, c1: lib.gradient(x, dim=-1, edge_order=2),
    lambda lib, x, c0, c1: lib.gradient(x, dim=[0, 1], edge_order=2, spacing=[1, 3]),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=(c0, c1), edge_order=2),
    lambda lib, x, c0, c1: lib.gradient(x.t(), spacing=(c1, c0), edge_order=2),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=3, dim=0),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=lib.tensor(2.0)),
    lambda lib, x, c0, c1: lib.gradient(x[0]),
    lambda lib, x, c0, c1: lib.gradient(x.detach().long()),
    lambda lib, x, c0, c1: lib.gradient(x.detach().int(), spacing=2),
    lambda lib, x, c0, c1: lib.gradient(x.detach().long(), spacing=(c0.long(), c1.long())),
    lambda lib, x, c0, c1: lib.gradient(x, edge_order=3),
    lambda lib, x, c0, c1: lib.gradient(x, edge_order=0),
    lambda lib, x, c0, c1: lib.gradient(x[:2], edge_order=2),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=[1.0]),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=[1.0], dim=[0, 1]),
    lambda lib, x, c0, c1: lib.gradient(x, dim=[0, 0]),
    lambda lib, x, c0, c1: lib.gradient(x, dim=2),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=(c0[None], c1)),
    lambda lib, x, c0, c1: lib.gradient(x.detach().to(lib.uint8)),
    lambda lib, x, c0, c1: lib.gradient(x.detach() > 0),
    lambda lib, x, c0, c1: lib.gradient(x[0, 0]),
    lambda lib, x, c0, c1: lib.gradient(x, 1),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=(c0, 2.0)),
    lambda lib, x, c0, c1: lib.gradient(x, spacing=c0, dim=0),
])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gradient(call, dtype):
    tolerance = 1e-6 if dtype == "float32" else 1e-14
    check(call, GRADIENT_INPUT, *COORDINATES, dtype=dtype, rtol=tolerance, atol=tolerance,
          grad_rtol=1e-5 if dtype == "float32" else 1e-10)


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


# -- complex input (cov, corrcoef, gradient compute it; the others refuse it as torch does) -------

COMPLEX_INPUT = np.array(COV_INPUT) + 1j * np.array(COV_INPUT)[:, ::-1]


@pytest.mark.parametrize("call", [
    lambda lib, z: lib.view_as_real(lib.cov(z)),
    lambda lib, z: lib.view_as_real(lib.cov(z, aweights=lib.tensor([1.0, 2.0, 1.0, 0.5],
                                                                   dtype=lib.float64))),
    lambda lib, z: lib.view_as_real(lib.corrcoef(z)),
    lambda lib, z: [lib.view_as_real(g) for g in lib.gradient(z, spacing=[2.0, 0.5])],
    lambda lib, z: lib.view_as_real(lib.logcumsumexp(z, 1)),
    lambda lib, z: lib.view_as_real(lib.logcumsumexp(z.t() * 3, 1)),
    lambda lib, z: lib.logcumsumexp(z.detach().to(lib.complex64), 0),
    lambda lib, z: lib.cummax(z, 0),
    lambda lib, z: lib.aminmax(z),
    lambda lib, z: lib.quantile(z, 0.5),
    lambda lib, z: lib.histogram(z, 3),
])
def test_complex_input(call):
    check(call, COMPLEX_INPUT, rtol=1e-12, atol=1e-15, grad_rtol=1e-10)


@pytest.mark.parametrize("values", [
    [complex(-INF, 0), complex(-INF, 1), complex(1, 2), complex(INF, 0), complex(INF, 1)],
    [complex(1, 0), complex(NAN, 1), complex(1, 2)],
    [complex(1, 0), complex(1, NAN), complex(-1, 2)],
    [complex(700, 1), complex(700, -1), complex(-700, 3)],
])
def test_complex_logcumsumexp_extremes(values):
    check(lambda lib, z: lib.logcumsumexp(z, 0), np.array(values), grad=False, rtol=1e-15,
          atol=1e-15)


# -- histogramdd ----------------------------------------------------------------------------------

POINTS = [[0.3, -1.2], [2.0, 0.1], [1.5, 0.2], [-0.7, 0.9], [0.0, -0.4], [1.1, -2.2], [0.2, 0.2]]


def _edges(lib, x, *rows):
    return [lib.tensor(row, dtype=x.dtype) for row in rows]


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.histogramdd(x, 3),
    lambda lib, x: lib.histogramdd(x, [2, 3]),
    lambda lib, x: lib.histogramdd(x, bins=(2, 3), range=[-1.0, 1.0, -2.0, 2.0]),
    lambda lib, x: lib.histogramdd(x, _edges(lib, x, [-1.0, 0.0, 2.0], [-3.0, 0.0, 1.0])),
    lambda lib, x: lib.histogramdd(x, 2, weight=x[:, 0].abs(), density=True),
    lambda lib, x: lib.histogramdd(x.view(7, 1, 2).expand(7, 2, 2), [4, 1]),
    lambda lib, x: lib.histogramdd(lib.cat([x, x[:, :1]], 1), [2, 2, 3], density=True),
    lambda lib, x: lib.histogramdd(x[:, 0], 2),
    lambda lib, x: lib.histogramdd(x, [2]),
    lambda lib, x: lib.histogramdd(x, [2, 0]),
    lambda lib, x: lib.histogramdd(x, [2, -1]),
    lambda lib, x: lib.histogramdd(x, [2, 1.5]),
    lambda lib, x: lib.histogramdd(x, 2, range=[0.0, 1.0]),
    lambda lib, x: lib.histogramdd(x, 2, weight=x[:, 0:1]),
    lambda lib, x: lib.histogramdd(x, 2, weight=x[:, 0].double() if x.dtype == lib.float32
                                   else x[:, 0].float()),
    lambda lib, x: lib.histogramdd(x.long(), 2),
    lambda lib, x: lib.histogramdd(x, _edges(lib, x, [-1.0, 0.0, 2.0])),
    lambda lib, x: lib.histogramdd(x, _edges(lib, x, [-1.0, 2.0], [[0.0, 1.0]])),
    lambda lib, x: lib.histogramdd(x, lib.tensor([2, 3])),
    lambda lib, x: lib.histogramdd(x[:0], 2),
    lambda lib, x: lib.histogramdd(lib.tensor([[1.0, float("nan")]], dtype=x.dtype),
                                   _edges(lib, x, [0.0, 2.0], [0.0, 2.0])),
    lambda lib, x: lib.histogramdd(x * 0 + 1, [2, 1]),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd(call, dtype):
    check(call, POINTS, dtype=dtype, grad=False)


def test_histogramdd_returns_the_given_edges_and_torchs_node():
    def run(lib):
        x = lib.tensor(POINTS, requires_grad=True)
        edges = _edges(lib, x, [-1.0, 0.0, 2.0], [-3.0, 0.0, 1.0])
        given = lib.histogramdd(x, edges)
        made = lib.histogramdd(x, 2)
        return (given.bin_edges[0] is edges[0], type(given.bin_edges).__name__,
                type(given.hist.grad_fn).__name__, type(made.bin_edges[1].grad_fn).__name__,
                repr(made).split("(")[0])

    assert run(leafgrad) == tuple(
        v.replace("torch.", "leafgrad.") if isinstance(v, str) else v for v in run(torch))


def test_histogramdd_random_inputs_equal_torchs():
    rng = np.random.default_rng(7)
    for trial in range(60):
        dims = int(rng.integers(1, 4))
        points = np.round(rng.normal(size=(int(rng.integers(1, 300)), dims)) * 4) / 4
        bins = [int(b) for b in rng.integers(1, 9, size=dims)]
        dtype = ("float32", "float64")[trial % 2]
        weight = rng.uniform(size=points.shape[0]) if trial % 3 == 0 else None

        def call(lib, x, w=None):
            return lib.histogramdd(x, bins, weight=w, density=trial % 4 == 1)

        if weight is None:
            check(call, points, dtype=dtype, grad=False, rtol=1e-6, atol=1e-7)
        else:
            check(call, points, weight, dtype=dtype, grad=False, rtol=1e-6, atol=1e-7)
