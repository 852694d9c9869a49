"""Wishart and LKJCholesky against torch: samples (torch's Bartlett sampler with its redraw,
the onion method), log_prob, entropy, moments, gradients, expand, warnings, errors."""

import warnings

import pytest

import leafgrad as lg
import numpy as np

from tests.distributions._compare import assert_same, assert_same_ok, outcome, params, torch

SCALE = [[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-0.3, 0.2, 0.7]]


def _tril(m, dtype):
    return m.tensor(SCALE, dtype=getattr(m, dtype))


@pytest.mark.parametrize("form", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_wishart(form, dtype):
    def run(m):
        tril = _tril(m, dtype)
        value = {"covariance_matrix": tril @ tril.T, "precision_matrix": tril @ tril.T,
                 "scale_tril": tril}[form]
        (matrix,) = params(m, value.tolist(), dtype=dtype)
        (df,) = params(m, [3.5, 6.0], dtype=dtype)
        d = m.distributions.Wishart(df, **{form: matrix})
        v = d.sample()
        return {"rsample": d.rsample((2,)).detach(), "sample": d.sample(), "after": m.rand(2),
                "lp": d.log_prob(v), "entropy": d.entropy(), "mean": d.mean, "mode": d.mode,
                "var": d.variance, "repr": repr(d), "batch": d.batch_shape,
                "event": d.event_shape, "precision": d.precision_matrix,
                "covariance": d.covariance_matrix, "scale_tril": d.scale_tril,
                "bregman": m.distributions.ExponentialFamily.entropy(d),
                "expand": d.expand((3, 2)).sample(), "expand_batch": d.expand((3, 2)).batch_shape,
                "expand_lp": d.expand((3, 2)).log_prob(v)}, [df, matrix]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-9}
        assert_same_ok(run, near=("rsample", "sample", "expand"), exact=("after",), **tol)


def test_wishart_number_df_and_rsample_gradient():
    # no batch: torch's redraw writes through a 0-d mask and the gradient reaches df and L
    def run(m):
        (tril,) = params(m, SCALE, dtype="float64")
        (df,) = params(m, 4.0, dtype="float64")
        d = m.distributions.Wishart(df, scale_tril=tril)
        return {"r": d.rsample(),
                "n": m.distributions.Wishart(4.0, scale_tril=tril.detach()).sample(),
                "batch": d.batch_shape}, [tril, df]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_ok(run, rtol=1e-9, atol=1e-9)


def test_wishart_warnings():
    def run(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            d = m.distributions.Wishart(m.tensor([2.5]), scale_tril=m.eye(3))
            d.sample()
        return {"warnings": [str(w.message) for w in caught]}, []

    assert_same_ok(run)


@pytest.mark.parametrize("sample_shape", [(), (2,)])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_wishart_rsample_gradient_is_the_redraws(sample_shape, batch):
    # torch 2.13's redraw overwrites the first Bartlett draw with a second one, then modifies
    # the mask it indexed with, so torch refuses the backward unless the mask is 0-d.
    # leafgrad indexes with a copy of the mask and differentiates what was returned: the
    # second draw.
    # Checked against torch's gradient of that second draw taken directly.
    def direct(m):
        (tril,) = params(m, SCALE, dtype="float64")
        df = m.full(batch, 4.0, dtype=m.float64) if batch else 4.0
        d = m.distributions.Wishart(df, scale_tril=tril)
        d._bartlett_sampling(sample_shape)
        count = int(m.tensor(sample_shape).prod()) if sample_shape else 1
        redraw = d._bartlett_sampling((count,))
        return {"r": redraw.reshape(tuple(sample_shape) + tuple(redraw.shape[1:]))}, [tril]

    def through_rsample(m):
        (tril,) = params(m, SCALE, dtype="float64")
        df = m.full(batch, 4.0, dtype=m.float64) if batch else 4.0
        return {"r": m.distributions.Wishart(df, scale_tril=tril).rsample(sample_shape)}, \
            [tril]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = outcome(direct, torch)
        got = outcome(through_rsample, lg)
    np.testing.assert_allclose(got["r"]["value"], want["r"]["value"], rtol=1e-12)
    np.testing.assert_allclose(got["r"]["grads"][0], want["r"]["grads"][0], rtol=1e-10)


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.Wishart(3.0),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.eye(2), scale_tril=m.eye(2)),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.ones(2)),
    lambda m: m.distributions.Wishart(1.0, covariance_matrix=m.eye(3)),
    lambda m: m.distributions.Wishart(m.tensor([1.0, 4.0]), covariance_matrix=m.eye(3)),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=-m.eye(2)),
    lambda m: m.distributions.Wishart(3.0, scale_tril=m.ones(2, 2)),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.eye(2)).log_prob(-m.eye(2)),
    lambda m: m.distributions.Wishart(3.0, covariance_matrix=m.eye(2)).log_prob(m.eye(3)),
    lambda m: m.distributions.LKJCholesky(1),
    lambda m: m.distributions.LKJCholesky(3, -1.0),
    lambda m: m.distributions.LKJCholesky(2, 1.0).log_prob(m.eye(3)),
    lambda m: m.distributions.LKJCholesky(2, 1.0).log_prob(m.ones(2, 2)),
    lambda m: m.distributions.LKJCholesky(2, 1.0).rsample(),
])
def test_errors(build):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(lambda m: ({"d": repr(build(m))}, []))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lkj_cholesky(dtype):
    def run(m):
        (conc,) = params(m, [0.5, 1.0, 3.0], dtype=dtype)
        d = m.distributions.LKJCholesky(4, conc)
        s = d.sample((2,))
        return {"sample": s, "lp": d.log_prob(s), "repr": repr(d), "batch": d.batch_shape,
                "event": d.event_shape, "support": repr(d.support),
                "in_support": d.support.check(s), "expand": d.expand((2, 3)).sample(),
                "after": m.rand(2), "scalar": m.distributions.LKJCholesky(3).sample(),
                "scalar_batch": m.distributions.LKJCholesky(2, 2.0).batch_shape,
                "lp_fixed": d.log_prob(m.distributions.CorrCholeskyTransform()(
                    m.linspace(-1, 1, 6, dtype=conc.dtype)))}, [conc]

    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-9}
    assert_same_ok(run, near=("sample", "expand", "scalar"), exact=("after",), **tol)


def test_gradcheck():
    conc = lg.tensor([0.5, 1.0, 3.0], dtype=lg.float64, requires_grad=True)
    value = lg.distributions.CorrCholeskyTransform()(lg.linspace(-1, 1, 6, dtype=lg.float64))
    assert lg.autograd.gradcheck(
        lambda c: lg.distributions.LKJCholesky(4, c).log_prob(value), (conc,))
    df = lg.tensor([3.5, 6.0], dtype=lg.float64, requires_grad=True)
    tril = lg.tensor(SCALE, dtype=lg.float64, requires_grad=True)
    sample = lg.tensor([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.8]], dtype=lg.float64)

    def lp(d, t):
        return lg.distributions.Wishart(d, scale_tril=t.tril()).log_prob(sample)

    def entropy(d, t):
        return lg.distributions.Wishart(d, scale_tril=t.tril()).entropy()

    # (torch's gradient for the factor's upper triangle, which the value does not read, is
    # compared with torch in test_wishart; finite differences see only the lower triangle)
    def precision(t):
        return lg.distributions.Wishart(4.0, scale_tril=t.tril()).precision_matrix

    assert lg.autograd.gradcheck(lp, (df, tril))
    assert lg.autograd.gradcheck(entropy, (df, tril))
    assert lg.autograd.gradcheck(precision, (tril,))
    assert lg.autograd.gradgradcheck(precision, (tril,))
    assert lg.autograd.gradgradcheck(lp, (df, tril))


@pytest.mark.parametrize("needs", [(True, False), (False, True)])
def test_wishart_gradient_subsets(needs):
    def run(m):
        tril = m.tensor(SCALE, dtype=m.float64, requires_grad=needs[0])
        df = m.tensor([3.5, 6.0], dtype=m.float64, requires_grad=needs[1])
        d = m.distributions.Wishart(df, scale_tril=tril)
        v = m.tensor([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.8]], dtype=m.float64)
        leaves = [x for x in (tril, df) if x.requires_grad]
        return {"lp": d.log_prob(v), "entropy": d.entropy(),
                "precision": d.precision_matrix}, leaves

    assert_same_ok(run, rtol=1e-9, atol=1e-9)
