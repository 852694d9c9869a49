"""kl_divergence for every concrete pair torch 2.13 registers (values, infinities, gradients),
and the registry itself holding the same pairs as torch's."""

import warnings

import pytest

import leafgrad as lg
from tests.distributions._compare import assert_same, assert_same_ok, params, torch


def _make(name, m, shift):
    """A batch of three distributions of family ``name``; ``shift`` varies the parameters so
    that p and q differ. Returns (distribution, leaves)."""
    D = m.distributions

    def leaves(*rows):
        return params(m, *[[v + shift * 0.3 for v in row] for row in rows], dtype="float64")

    if name == "Bernoulli":
        (p,) = leaves([0.2, 0.5, 0.6])
        return D.Bernoulli(p), [p]
    if name == "Binomial":
        (p,) = leaves([0.2, 0.5, 0.6])
        return D.Binomial(m.tensor([5.0, 8.0, 8.0], dtype=m.float64) + shift * 0, p), [p]
    if name == "Beta":
        a, b = leaves([0.5, 2.0, 5.0], [1.5, 2.0, 0.3])
        return D.Beta(a, b), [a, b]
    if name == "Categorical":
        (p,) = leaves([0.2, 0.5, 0.3])
        return D.Categorical(p / p.sum()), [p]
    if name == "OneHotCategorical":
        (p,) = leaves([0.2, 0.5, 0.3])
        return D.OneHotCategorical(p / p.sum()), [p]
    if name == "Cauchy":
        a, b = leaves([0.0, 1.0, -2.0], [1.0, 0.5, 2.0])
        return D.Cauchy(a, b), [a, b]
    if name == "ContinuousBernoulli":
        (p,) = leaves([0.1, 0.4, 0.2])
        return D.ContinuousBernoulli(p), [p]
    if name == "Dirichlet":
        (a,) = leaves([0.5, 2.0, 5.0])
        return D.Dirichlet(a), [a]
    if name == "Exponential":
        (a,) = leaves([0.5, 2.0, 5.0])
        return D.Exponential(a), [a]
    if name == "Gamma":
        a, b = leaves([0.5, 2.0, 5.0], [1.5, 2.0, 0.3])
        return D.Gamma(a, b), [a, b]
    if name == "Geometric":
        (p,) = leaves([0.2, 0.5, 0.6])
        return D.Geometric(p), [p]
    if name == "Gumbel":
        a, b = leaves([0.0, 1.0, -2.0], [1.0, 0.5, 2.0])
        return D.Gumbel(a, b), [a, b]
    if name == "HalfNormal":
        (a,) = leaves([1.0, 0.5, 2.0])
        return D.HalfNormal(a), [a]
    if name == "Laplace":
        a, b = leaves([0.0, 1.0, -2.0], [1.0, 0.5, 2.0])
        return D.Laplace(a, b), [a, b]
    if name == "Normal":
        a, b = leaves([0.0, 1.0, -2.0], [1.0, 0.5, 2.0])
        return D.Normal(a, b), [a, b]
    if name == "MultivariateNormal":
        (a,) = leaves([0.0, 1.0, -2.0])
        cov = m.tensor([[2.0, 0.3, 0.0], [0.3, 1.0, 0.1], [0.0, 0.1, 0.5]], dtype=m.float64)
        return D.MultivariateNormal(a, cov * (1 + shift)), [a]
    if name == "LowRankMultivariateNormal":
        a, diag = leaves([0.0, 1.0, -2.0], [1.0, 0.5, 2.0])
        (w,) = params(m, [[0.5, 0.1 + shift], [0.2, -0.3], [0.1, 0.4 * shift]],
                      dtype="float64")
        return D.LowRankMultivariateNormal(a, w, diag), [a, w, diag]
    if name == "Pareto":
        a, b = leaves([0.5, 1.0, 2.0], [0.7, 2.5, 3.5])
        return D.Pareto(a, b), [a, b]
    if name == "Poisson":
        (a,) = leaves([0.5, 2.0, 5.0])
        return D.Poisson(a), [a]
    if name == "Uniform":
        a, b = leaves([0.1, -1.0, 0.2], [0.6, 2.0, 0.5])
        return D.Uniform(a, b), [a, b]
    raise KeyError(name)


_ABSTRACT = {"ExponentialFamily", "TransformedDistribution", "Independent"}
PAIRS = sorted({(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY
                if p.__name__ not in _ABSTRACT and q.__name__ not in _ABSTRACT})


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_kl_pair(pair):
    def run(m):
        p, p_leaves = _make(pair[0], m, 0)
        q, q_leaves = _make(pair[1], m, 1)
        return {"kl": m.distributions.kl_divergence(p, q)}, p_leaves + q_leaves

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ambiguous-dispatch warning, as in torch
        assert_same_ok(run, rtol=1e-9, atol=1e-9)


def test_registry_has_torchs_pairs():
    def names(registry):
        return {(p.__name__, q.__name__) for p, q in registry}

    assert names(lg.distributions.kl._KL_REGISTRY) == names(
        torch.distributions.kl._KL_REGISTRY)


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.kl_divergence(
        m.distributions.Binomial(3, m.tensor([0.5])),
        m.distributions.Binomial(5, m.tensor([0.5]))),
    lambda m: m.distributions.kl_divergence(
        m.distributions.Binomial(m.tensor([5.0, 3.0]), m.tensor([0.5, 0.5])),
        m.distributions.Binomial(3, m.tensor([0.2, 0.5]))),
    lambda m: m.distributions.kl_divergence(
        m.distributions.Pareto(m.tensor([1.0, 2.0]), 1.0),
        m.distributions.Pareto(m.tensor([1.5, 1.5]), 2.0)),
    lambda m: m.distributions.kl_divergence(
        m.distributions.Uniform(m.tensor([0.0, 0.2]), m.tensor([0.5, 1.0])),
        m.distributions.ContinuousBernoulli(m.tensor([0.3, 0.3]))),
    lambda m: m.distributions.kl_divergence(
        m.distributions.Weibull(1.0, 2.0), m.distributions.Weibull(1.0, 3.0)),
    lambda m: m.distributions.kl_divergence(
        m.distributions.Kumaraswamy(m.tensor([1.0]), 2.0),
        m.distributions.Kumaraswamy(m.tensor([1.0]), 2.0)),
    lambda m: m.distributions.kl_divergence(
        m.distributions.Poisson(m.tensor([1.0])), m.distributions.Weibull(1.0, 2.0)),
])
def test_kl_edge_cases(build):
    assert_same(lambda m: ({"kl": build(m)}, []))


def _lowrank(m, n):
    return m.distributions.LowRankMultivariateNormal(m.zeros(n), m.ones(n, 1), m.ones(n))


def _full(m, n):
    return m.distributions.MultivariateNormal(m.zeros(n), m.eye(n))


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.kl_divergence(_lowrank(m, 3), _lowrank(m, 2)),
    lambda m: m.distributions.kl_divergence(_lowrank(m, 3), _full(m, 2)),
    lambda m: m.distributions.kl_divergence(_full(m, 3), _lowrank(m, 2)),
])
def test_kl_lowrank_shape_errors(build):
    assert_same(lambda m: ({"kl": build(m)}, []))
