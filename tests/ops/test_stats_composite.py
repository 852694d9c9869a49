"""quantile/nanquantile, cov/corrcoef and gradient against torch (ops/stats_composite.py):
values, grad_fn names and gradients to second order for every interpolation, weights and spacing
form, torch's errors in torch's order, out=, complex input, vmap and forward mode."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._differential import INF, NAN, _np, check, torch


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


@pytest.mark.parametrize("which", ["both", "q", "input"])
def test_quantile_gradient_reaches_q(which):
    def call(lib, x, q):
        x = x if which != "q" else x.detach()
        q = q if which != "input" else q.detach()
        return lib.quantile(x, q, dim=1)

    check(call, Q_INPUT, np.array([0.2, 0.65]), rtol=1e-15, atol=1e-15)


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
    lambda lib, x, f, a: lib.cov(x, fweights=f, aweights=a),
    lambda lib, x, f, a: lib.cov(x.detach(), fweights=f, aweights=a),
    lambda lib, x, f, a: lib.cov(x, aweights=a.detach(), correction=2),
    lambda lib, x, f, a: lib.corrcoef(x),
    lambda lib, x, f, a: x.t().corrcoef(),
    lambda lib, x, f, a: lib.corrcoef(x[0]),
    lambda lib, x, f, a: lib.corrcoef(lib.stack([x[0] * 0 + 1, x[1]])),
    lambda lib, x, f, a: lib.corrcoef(x.round().long()),
    lambda lib, x, f, a: lib.corrcoef(x.view(3, 2, 2)),
    lambda lib, x, f, a: x.cov(1),
    lambda lib, x, f, a: x.corrcoef(1),
    lambda lib, x, f, a: lib.cov(x, correction=1.5),
    lambda lib, x, f, a: lib.cov(x, correction=lib.tensor(0)),
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
    lambda lib, x, c0, c1: lib.gradient(x[:2], spacing=[1, 2], dim=(0, 1)),
    lambda lib, x, c0, c1: lib.gradient(x[:, :2], dim=-1),
])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gradient(call, dtype):
    tolerance = 1e-6 if dtype == "float32" else 1e-14
    check(call, GRADIENT_INPUT, *COORDINATES, dtype=dtype, rtol=tolerance, atol=tolerance,
          grad_rtol=1e-5 if dtype == "float32" else 1e-10)


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
