"""torch.func over convolutions: Jacobians in a conv's weight and input (jacrev batches the
conv's backward over the rows of the identity), per-example gradients (vmap of grad) and the
NTK tutorial's vmap(jacrev) over a CNN's parameters, against torch. jacrev in a conv weight
gave wrong values (the weight gradient's array shortcut read every example's gradient at
once) and the batched backward ran the slow per-example fallback with a warning."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

CONVS = {
    "conv2d": dict(x=(2, 4, 6, 5), w=(6, 4, 3, 2), f="conv2d", kw={}),
    "conv2d strided padded": dict(x=(1, 2, 7, 7), w=(3, 2, 3, 3), f="conv2d",
                                  kw=dict(stride=2, padding=1, dilation=1)),
    "conv2d dilated groups": dict(x=(2, 4, 7, 6), w=(6, 2, 2, 2), f="conv2d",
                                  kw=dict(dilation=2, groups=2)),
    "conv1d": dict(x=(3, 2, 9), w=(4, 2, 3), f="conv1d", kw=dict(padding=2)),
    "conv1d groups": dict(x=(2, 4, 8), w=(4, 1, 3), f="conv1d", kw=dict(groups=4)),
}


def _data(case, m):
    rng = np.random.default_rng(5)
    return (m.tensor(rng.standard_normal(case["x"])), m.tensor(rng.standard_normal(case["w"])))


def _same(got, want):
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("argnum", [0, 1])
@pytest.mark.parametrize("name", CONVS)
def test_jacobian_of_a_convolution(name, argnum):
    case = CONVS[name]
    results = []
    for m in (lg, torch):
        conv = getattr(m.nn.functional, case["f"])

        def f(x, w, conv=conv):
            return conv(x, w, **case["kw"]).tanh()

        with warnings.catch_warnings():
            warnings.filterwarnings("error", "There is a performance drop")  # no fallback
            results.append((m.func.jacrev(f, argnums=argnum)(*_data(case, m)),
                            m.func.jacfwd(f, argnums=argnum)(*_data(case, m))))
    for got, want in zip(*results):
        _same(got, want)


@pytest.mark.parametrize("name", CONVS)
def test_per_example_gradients_of_a_convolution(name):
    case = CONVS[name]
    results = []
    for m in (lg, torch):
        conv = getattr(m.nn.functional, case["f"])
        x, w = _data(case, m)

        def loss(w, x, conv=conv):
            return conv(x.unsqueeze(0), w, **case["kw"]).sin().sum()

        with warnings.catch_warnings():
            warnings.filterwarnings("error", "There is a performance drop")
            results.append(m.func.vmap(m.func.grad(loss), in_dims=(None, 0))(w, x))
    _same(*results)


def test_neural_tangent_kernel_of_a_cnn():
    results = []
    for m in (lg, torch):
        m.manual_seed(0)
        net = m.nn.Sequential(m.nn.Conv2d(3, 4, 3), m.nn.ReLU(), m.nn.Conv2d(4, 4, 3),
                              m.nn.Flatten(), m.nn.Linear(64, 3))
        params = {k: v.detach() for k, v in net.named_parameters()}
        x1, x2 = m.randn(3, 3, 8, 8), m.randn(2, 3, 8, 8)

        def single(params, x, net=net, m=m):
            return m.func.functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

        jac = m.func.vmap(m.func.jacrev(single), (None, 0))
        j1 = [j.flatten(2) for j in jac(params, x1).values()]
        j2 = [j.flatten(2) for j in jac(params, x2).values()]
        results.append(m.stack([m.einsum("Naf,Mbf->NMab", a, b)
                                for a, b in zip(j1, j2)]).sum(0))
    got, want = results
    assert tuple(got.shape) == tuple(want.shape) == (3, 2, 3, 3)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
