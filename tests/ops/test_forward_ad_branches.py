"""Forward-mode branches the op table's samples do not reach: zeros in cumprod/prod, singular
matrices for det/slogdet, float32 and mixed dtypes, in-place ops through views, and the
fused LSTM layer in both directions. Each JVP is compared with torch's and, where the
derivative exists, with leafgrad's reverse-mode Jacobian."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _jvp(lib, function, arrays, tangents, dtype="float64"):
    forward_ad = lib.autograd.forward_ad
    dtype = getattr(lib, dtype)
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(lib.tensor(a, dtype=dtype), lib.tensor(t, dtype=dtype))
                 for a, t in zip(arrays, tangents)]
        primal, tangent = forward_ad.unpack_dual(function(lib, *duals))
        return primal.detach().numpy().copy(), tangent.detach().numpy(force=True).copy()


def _reverse_jvp(function, arrays, tangents):
    inputs = [leafgrad.tensor(a, dtype=leafgrad.float64, requires_grad=True) for a in arrays]
    out = function(leafgrad, *inputs)
    flat = out.reshape(-1)
    rows = []
    for row in range(flat.shape[0]):
        grads = leafgrad.autograd.grad(flat[row], inputs, retain_graph=True, allow_unused=True)
        rows.append(sum(float((g.numpy() * t).sum()) for g, t in zip(grads, tangents)
                        if g is not None))
    return np.array(rows).reshape(tuple(out.shape))


def _check(function, arrays, reverse=True, rtol=1e-10, atol=1e-12):
    rng = np.random.default_rng(len(arrays))
    tangents = [rng.normal(size=np.shape(a)) for a in arrays]
    ours = _jvp(leafgrad, function, arrays, tangents)
    theirs = _jvp(torch, function, arrays, tangents)
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    if reverse:
        np.testing.assert_allclose(ours[1], _reverse_jvp(function, arrays, tangents),
                                   rtol=rtol, atol=atol)


@pytest.mark.parametrize("zeros", [[1], [0, 3], [2, 2], [0, 1, 4]])
def test_cumprod_with_zeros(zeros):
    a = np.random.default_rng(3).normal(size=(2, 5))
    for column in zeros:
        a[0, column] = 0.0
    _check(lambda lib, x: x.cumprod(1), [a])
    _check(lambda lib, x: x.t().cumprod(0), [a])


@pytest.mark.parametrize("zeros", [[1], [0, 3]])
def test_prod_with_zeros(zeros):
    a = np.random.default_rng(4).normal(size=(2, 3))
    for index in zeros:
        a.reshape(-1)[index] = 0.0
    _check(lambda lib, x: x.prod(), [a])
    _check(lambda lib, x: x.prod(1), [a])


def test_det_of_a_singular_matrix():
    """Exactly singular: 0, as torch's forward mode (a perturbed LU solve) and leafgrad's
    unrecorded backward; nearly singular: the adjugate's tr(adj(A) dA), no LU solve."""
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    _check(lambda lib, x: lib.linalg.det(x), [singular])
    batch = np.stack([singular, np.array([[1.0, 2.0], [2.0, 4.0 + 1e-15]]), np.eye(2)])
    _check(lambda lib, x: lib.linalg.det(x), [batch], reverse=False, rtol=1e-6, atol=1e-9)


def test_slogdet_of_a_singular_matrix_gives_nan_like_torch():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    function = lambda lib, x: lib.linalg.slogdet(x).logabsdet  # noqa: E731
    ours = _jvp(leafgrad, function, [a], [np.ones((2, 2))])
    theirs = _jvp(torch, function, [a], [np.ones((2, 2))])
    assert np.isneginf(ours[0]) and np.isneginf(theirs[0])
    assert np.isnan(ours[1]) and np.isnan(theirs[1])


def test_float32():
    rng = np.random.default_rng(5)
    arrays = [rng.normal(size=(3, 4)), rng.normal(size=(4, 2))]
    tangents = [rng.normal(size=(3, 4)), rng.normal(size=(4, 2))]
    function = lambda lib, a, b: (a @ b).tanh().softmax(0)  # noqa: E731
    ours = _jvp(leafgrad, function, arrays, tangents, "float32")
    theirs = _jvp(torch, function, arrays, tangents, "float32")
    for got, want in zip(ours, theirs):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_in_place_ops_through_views():
    def function(lib, a, b):
        y = a * 1
        y[1:].mul_(b[1:])
        y.t()[0].add_(b.sum())
        y[:, 2].sin_()
        return y * y

    rng = np.random.default_rng(6)
    _check(function, [rng.normal(size=(3, 3)), rng.normal(size=(3, 3))])


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_layers(bidirectional):
    def function(lib, x, h, c):
        lib.manual_seed(0)
        lstm = lib.nn.LSTM(3, 4, num_layers=2, bidirectional=bidirectional).double()
        output, (h_n, c_n) = lstm(x, (h, c))
        return lib.cat([output.reshape(-1), h_n.reshape(-1), c_n.reshape(-1)])

    rng = np.random.default_rng(7)
    directions = 2 if bidirectional else 1
    arrays = [rng.normal(size=(5, 2, 3)), rng.normal(size=(2 * directions, 2, 4)),
              rng.normal(size=(2 * directions, 2, 4))]
    _check(function, arrays, rtol=1e-9, atol=1e-10)
