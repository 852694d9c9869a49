"""histogram and histogramdd against torch (ops/histogram.py): counts and edges for every bins
form, range, weights and density, torch's NotImplemented node, out= and errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from ._differential import check, torch


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
    lambda lib, x: x.histogram(),
    lambda lib, x: lib.histogram(x),
    lambda lib, x: x.histogram(bins=3),
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
