"""Bernoulli, Categorical, OneHotCategorical, MultivariateNormal, Independent vs torch."""

import pytest

from tests.distributions._compare import assert_same, params


@pytest.mark.parametrize("form", ["probs", "logits"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bernoulli(form, dtype):
    def run(m):
        values = [0.2, 0.5, 0.9] if form == "probs" else [-1.0, 0.0, 2.0]
        (p,) = params(m, values, dtype=dtype)
        d = m.distributions.Bernoulli(**{form: p})
        value = m.tensor([1.0, 0.0, 1.0], dtype=p.dtype)
        return {"sample": d.sample((4,)), "log_prob": d.log_prob(value), "entropy": d.entropy(),
                "mean": d.mean, "variance": d.variance, "mode": d.mode, "probs": d.probs,
                "logits": d.logits, "support": d.enumerate_support(),
                "support1": d.enumerate_support(False), "repr": repr(d),
                "expand": d.expand((2, 3)).sample(), "param_shape": d.param_shape,
                "perplexity": d.perplexity()}, [p]

    assert_same(run, exact=("sample", "expand"))


@pytest.mark.parametrize("form", ["probs", "logits"])
def test_categorical(form):
    def run(m):
        values = ([[0.2, 0.3, 0.5], [0.6, 0.0, 0.4]] if form == "probs"
                  else [[-1.0, 0.0, 2.0], [0.5, 0.5, -3.0]])
        (p,) = params(m, values)
        d = m.distributions.Categorical(**{form: p})
        value = m.tensor([2, 0])
        return {"sample": d.sample((5,)), "sample0": d.sample(), "log_prob": d.log_prob(value),
                "lp_b": d.log_prob(m.tensor([[1], [2]])), "entropy": d.entropy(),
                "mean": d.mean, "variance": d.variance, "mode": d.mode, "probs": d.probs,
                "logits": d.logits, "enum": d.enumerate_support(), "repr": repr(d),
                "support": repr(d.support), "expand": d.expand((4, 2)).sample(),
                "batch": d.batch_shape}, [p]

    assert_same(run, exact=("sample", "sample0", "expand"))


def test_onehot_categorical():
    def run(m):
        (p,) = params(m, [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
        d = m.distributions.OneHotCategorical(probs=p)
        st = m.distributions.OneHotCategoricalStraightThrough(logits=p)
        value = m.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
        return {"sample": d.sample((3,)), "log_prob": d.log_prob(value),
                "entropy": d.entropy(), "mean": d.mean, "variance": d.variance,
                "mode": d.mode, "enum": d.enumerate_support(), "rs": st.rsample((2,)),
                "event": d.event_shape, "batch": d.batch_shape}, [p]

    assert_same(run, exact=("sample",))


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.Bernoulli(m.tensor([1.5])),
    lambda m: m.distributions.Bernoulli(),
    lambda m: m.distributions.Bernoulli(probs=m.tensor(0.5), logits=m.tensor(0.0)),
    lambda m: m.distributions.Categorical(m.tensor(0.5)),
    lambda m: m.distributions.Categorical(logits=m.tensor(0.5)),
    lambda m: m.distributions.Categorical(m.tensor([0.5, -0.1])),
    lambda m: m.distributions.Categorical(m.tensor([0.5, 0.5])).log_prob(m.tensor([3])),
    lambda m: m.distributions.Bernoulli(0.3).log_prob(m.tensor(0.5)),
    lambda m: m.distributions.OneHotCategorical(m.tensor([0.5, 0.5])).log_prob(
        m.tensor([1.0, 1.0])),
])
def test_discrete_errors(build):
    assert_same(lambda m: ({"d": repr(build(m))}, []))


@pytest.mark.parametrize("form", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multivariate_normal(form, dtype):
    def run(m):
        a = m.tensor([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.7]],
                     dtype=getattr(m, dtype))
        matrix = m.linalg.cholesky(a) if form == "scale_tril" else a
        matrix = matrix.clone().requires_grad_()
        (loc,) = params(m, [[0.0, 1.0, -1.0], [0.5, 0.5, 0.5]], dtype=dtype)
        d = m.distributions.MultivariateNormal(loc, **{form: matrix})
        x = m.tensor([[0.3, 0.2, 0.1], [1.0, -1.0, 2.0]], dtype=loc.dtype)
        return {"rsample": d.rsample((2,)), "sample": d.sample(), "log_prob": d.log_prob(x),
                "lp_broadcast": d.log_prob(x[:1].unsqueeze(0)), "entropy": d.entropy(),
                "mean": d.mean, "variance": d.variance, "scale_tril": d.scale_tril,
                "cov": d.covariance_matrix, "prec": d.precision_matrix,
                "batch": d.batch_shape, "event": d.event_shape, "repr": repr(d),
                "expand": d.expand((3, 2)).rsample()}, [loc, matrix]

    assert_same(run, rtol=1e-5, atol=1e-5)


def test_multivariate_normal_batched_scale():
    def run(m):
        L = m.tensor([[[1.0, 0.0], [0.5, 2.0]], [[0.3, 0.0], [-0.2, 1.0]]], requires_grad=True)
        d = m.distributions.MultivariateNormal(m.zeros(2), scale_tril=L)
        x = m.randn(4, 2, 2)
        return {"lp": d.log_prob(x), "ent": d.entropy(), "r": d.rsample((3,))}, [L]

    assert_same(run, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.MultivariateNormal(m.tensor(0.0), m.eye(2)),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2)),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2), scale_tril=m.eye(2)),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.ones(2)),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.ones(2)),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.tensor(
        [[1.0, 1.0], [0.0, 1.0]])),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2)).log_prob(m.zeros(3)),
])
def test_multivariate_normal_errors(build):
    assert_same(lambda m: ({"d": repr(build(m))}, []))


def test_independent():
    def run(m):
        loc, scale = params(m, [[0.0, 1.0], [2.0, 3.0], [1.0, 1.0]],
                            [[1.0, 2.0], [0.5, 0.5], [1.0, 3.0]])
        base = m.distributions.Normal(loc, scale)
        d = m.distributions.Independent(base, 1)
        d2 = m.distributions.Independent(base, 2)
        x = m.ones(3, 2)
        return {"lp": d.log_prob(x), "lp2": d2.log_prob(x), "ent": d.entropy(),
                "r": d.rsample((2,)), "batch": d.batch_shape, "event": d.event_shape,
                "repr": repr(d), "support": repr(d.support), "mean": d.mean,
                "expand": d.expand((4, 3)).batch_shape,
                "e_sample": d.expand((4, 3)).sample()}, [loc, scale]

    assert_same(run, exact=("r", "e_sample"))


def test_independent_errors():
    assert_same(lambda m: ({"d": repr(m.distributions.Independent(
        m.distributions.Normal(m.zeros(2), 1.0), 2))}, []))


@pytest.mark.parametrize("batched", [False, True])
def test_low_rank_multivariate_normal(batched):
    def run(m):
        loc, W, D = params(m, [0.0, 1.0, -1.0], [[0.5, 0.1], [0.2, -0.3], [1.0, 0.4]],
                           [1.0, 0.5, 2.0])
        if batched:
            d = m.distributions.LowRankMultivariateNormal(loc.expand(2, 3), W, D)
        else:
            d = m.distributions.LowRankMultivariateNormal(loc, W, D)
        x = m.tensor([[0.3, 0.2, 0.1], [1.0, -1.0, 2.0]])
        return {"rsample": d.rsample((2,)), "lp": d.log_prob(x), "ent": d.entropy(),
                "var": d.variance, "cov": d.covariance_matrix, "prec": d.precision_matrix,
                "tril": d.scale_tril, "batch": d.batch_shape, "event": d.event_shape,
                "expand": d.expand((4,) + tuple(d.batch_shape)).rsample()}, [loc, W, D]

    assert_same(run, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.LowRankMultivariateNormal(m.tensor(0.0), m.ones(1, 1), m.ones(1)),
    lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(2), m.ones(2)),
    lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(3, 1), m.ones(2)),
    lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(3)),
    lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), -m.ones(2)),
    lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(3, 2), m.ones(2, 2, 1),
                                                        m.ones(2)),
])
def test_low_rank_errors(build):
    assert_same(lambda m: ({"d": repr(build(m))}, []))
