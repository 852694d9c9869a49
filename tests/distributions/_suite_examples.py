"""Parameters for every distribution in the spirit of torch 2.13's
test/distributions/test_distributions.py (its _get_examples and _get_bad_examples): the
same shapes, values and torch-RNG draws, built with ``lib`` (torch or leafgrad) so that both
libraries get identical parameters after ``manual_seed``."""

from __future__ import annotations

import math

TRILS = [[[2.0, 0.0], [-0.5, 0.25]], [[2.0, 0.0], [0.3, 0.25]], [[5.0, 0.0], [-0.5, 1.5]]]


def examples(lib):
    """(name, params builder) pairs; a builder draws from lib's RNG when called."""
    D = lib.distributions
    T = lib.tensor
    E = []

    def rg(t):
        return t.requires_grad_()

    def add(name, *builders):
        E.extend((name, builder) for builder in builders)

    add("Bernoulli", lambda: dict(probs=rg(T([0.7, 0.2, 0.4]))), lambda: dict(probs=rg(T([0.3]))),
        lambda: dict(probs=0.3), lambda: dict(logits=rg(T([0.0]))))
    add("Geometric", lambda: dict(probs=rg(T([0.7, 0.2, 0.4]))), lambda: dict(probs=0.3))
    add("Beta",
        lambda: dict(concentration1=rg(lib.randn(2, 3).exp()),
                     concentration0=rg(lib.randn(2, 3).exp())),
        lambda: dict(concentration1=rg(lib.randn(4).exp()), concentration0=rg(lib.randn(4).exp())))
    add("Categorical", lambda: dict(probs=rg(T([[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]]))),
        lambda: dict(probs=rg(T([[1.0, 0.0], [0.0, 1.0]]))),
        lambda: dict(logits=rg(T([[0.0, 0.0], [0.0, 0.0]]))))
    for tc in (lambda: 10, lambda: T([10]), lambda: T([10, 8]),
               lambda: T([[10.0, 8.0], [5.0, 3.0]]), lambda: T(0.0)):
        add("Binomial", lambda tc=tc: dict(probs=rg(T([[1.0, 0.0], [0.0, 1.0]])), total_count=tc()))
        add("NegativeBinomial",
            lambda tc=tc: dict(probs=rg(T([[0.9, 0.0], [0.0, 0.9]])), total_count=tc()))
    add("Binomial", lambda: dict(probs=rg(T([[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]])), total_count=10))
    add("Multinomial",
        lambda: dict(probs=rg(T([[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]])), total_count=10),
        lambda: dict(probs=rg(T([[1.0, 0.0], [0.0, 1.0]])), total_count=10))
    add("Cauchy", lambda: dict(loc=0.0, scale=1.0), lambda: dict(loc=T([0.0]), scale=1.0),
        lambda: dict(loc=T([[0.0], [0.0]]), scale=T([[1.0], [1.0]])))
    add("Chi2", lambda: dict(df=rg(lib.randn(2, 3).exp())), lambda: dict(df=rg(lib.randn(1).exp())))
    add("StudentT",
        lambda: dict(df=rg(lib.randn(2, 3).exp())),
        lambda: dict(df=rg(lib.randn(1).exp())))
    add("Dirichlet",
        lambda: dict(concentration=rg(lib.randn(2, 3).exp())),
        lambda: dict(concentration=rg(lib.randn(4).exp())))
    add("Exponential",
        lambda: dict(rate=rg(lib.randn(5, 5).abs())),
        lambda: dict(rate=rg(lib.randn(1).abs())))
    add("FisherSnedecor",
        lambda: dict(df1=rg(lib.randn(5, 5).abs()), df2=rg(lib.randn(5, 5).abs())),
        lambda: dict(df1=T([1.0]), df2=1.0))
    add("Gamma",
        lambda: dict(concentration=rg(lib.randn(2, 3).exp()), rate=rg(lib.randn(2, 3).exp())))
    add("Gumbel", lambda: dict(loc=rg(lib.randn(5, 5)), scale=rg(lib.randn(5, 5).abs())))
    add("HalfCauchy", lambda: dict(scale=1.0), lambda: dict(scale=T([[1.0], [1.0]])))
    add("HalfNormal",
        lambda: dict(scale=rg(lib.randn(5, 5).abs())),
        lambda: dict(scale=rg(T([1e-5, 1e-5]))))
    for n in (0, 1, 2):
        add("Independent",
            lambda n=n: dict(base_distribution=D.Normal(rg(lib.randn(2, 3)),
                                                        rg(lib.randn(2, 3).abs())),
                             reinterpreted_batch_ndims=n))
    add("Kumaraswamy",
        lambda: dict(concentration1=rg(lib.empty(2, 3).uniform_(1, 2)),
                     concentration0=rg(lib.empty(2, 3).uniform_(1, 2))))
    add("LKJCholesky",
        lambda: dict(dim=2, concentration=0.5),
        lambda: dict(dim=3, concentration=T([0.5, 1.0, 2.0])))
    add("Laplace", lambda: dict(loc=rg(lib.randn(5, 5)), scale=rg(lib.randn(5, 5).abs())),
        lambda: dict(loc=rg(T([1.0, 0.0])), scale=rg(T([1e-5, 1e-5]))))
    add("LogNormal", lambda: dict(loc=rg(lib.randn(5, 5)), scale=rg(lib.randn(5, 5).abs())),
        lambda: dict(loc=rg(T([1.0, 0.0])), scale=rg(T([1e-5, 1e-5]))))
    add("LogisticNormal", lambda: dict(loc=rg(lib.randn(5, 5)), scale=rg(lib.randn(5, 5).abs())),
        lambda: dict(loc=rg(T([1.0, 0.0])), scale=rg(T([1e-5, 1e-5]))))
    add("LowRankMultivariateNormal",
        lambda: dict(loc=rg(lib.randn(5, 2)),
                     cov_factor=rg(lib.randn(5, 2, 1)),
                     cov_diag=rg(T([2.0, 0.25]))),
        lambda: dict(loc=rg(lib.randn(4, 3)),
                     cov_factor=rg(lib.randn(3, 2)),
                     cov_diag=rg(T([5.0, 1.5, 3.0]))))
    add("MultivariateNormal",
        lambda: dict(loc=rg(lib.randn(5, 2)), covariance_matrix=rg(T([[2.0, 0.3], [0.3, 0.25]]))),
        lambda: dict(loc=rg(lib.randn(2, 3)),
                     precision_matrix=rg(T([[2.0, 0.1, 0.0], [0.1, 0.25, 0.0], [0.0, 0.0, 0.3]]))),
        lambda: dict(loc=rg(lib.randn(5, 3, 2)),
                     scale_tril=rg(T(TRILS))))
    add("Normal", lambda: dict(loc=rg(lib.randn(5, 5)), scale=rg(lib.randn(5, 5).abs())),
        lambda: dict(loc=rg(T([1.0, 0.0])), scale=rg(T([1e-5, 1e-5]))))
    for n in ("OneHotCategorical", "OneHotCategoricalStraightThrough"):
        add(n,
            lambda: dict(probs=rg(T([[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]]))),
            lambda: dict(logits=rg(T([[0.0, 0.0], [0.0, 0.0]]))))
    add("Pareto",
        lambda: dict(scale=1.0, alpha=1.0),
        lambda: dict(scale=rg(lib.randn(5, 5).abs() + 0.1), alpha=rg(lib.randn(5, 5).abs() + 0.1)))
    add("Poisson",
        lambda: dict(rate=rg(lib.randn(5, 5).abs())),
        lambda: dict(rate=0.2),
        lambda: dict(rate=rg(T([0.0]))),
        lambda: dict(rate=0.0))
    add("RelaxedBernoulli", lambda: dict(temperature=rg(T([0.5])), probs=rg(T([0.7, 0.2, 0.4]))),
        lambda: dict(temperature=T([7.2]), logits=T([-2.0, 2.0, 1.0, 5.0])))
    add("RelaxedOneHotCategorical",
        lambda: dict(temperature=rg(T([0.5])), probs=rg(T([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]]))),
        lambda: dict(temperature=T([7.2]), logits=T([[-2.0, 2.0], [1.0, 5.0]])))
    add("TransformedDistribution",
        lambda: dict(base_distribution=D.Normal(rg(lib.randn(2, 3)), rg(lib.randn(2, 3).abs())),
                     transforms=D.ExpTransform()),
        lambda: dict(base_distribution=D.Normal(rg(lib.randn(2, 3, 5)),
                                                rg(lib.randn(2, 3, 5).abs())),
                     transforms=[D.AffineTransform(lib.randn(3, 5), lib.randn(3, 5)),
                                 D.ExpTransform()]),
        lambda: dict(base_distribution=D.Uniform(T(1e8).log(), T(1e10).log()),
                     transforms=D.ExpTransform()))
    add("Uniform",
        lambda: dict(low=rg(lib.zeros(5, 5)), high=rg(lib.ones(5, 5))),
        lambda: dict(low=rg(T([1.0, 1.0])), high=rg(T([2.0, 3.0]))))
    add("Weibull",
        lambda: dict(scale=rg(lib.randn(5, 5).abs()), concentration=rg(lib.randn(1).abs())))
    add("Wishart",
        lambda: dict(covariance_matrix=rg(T([[2.0, 0.3], [0.3, 0.25]])), df=rg(T([3.0]))),
        lambda: dict(scale_tril=rg(T(TRILS)),
                     df=rg(T([5.0, 3.5, 3]))),
        lambda: dict(covariance_matrix=T([[5.0, -0.5], [-0.5, 1.5]]), df=3.0))
    add("MixtureSameFamily",
        lambda: dict(mixture_distribution=D.Categorical(rg(lib.rand(5))),
                     component_distribution=D.Normal(rg(lib.randn(5)), rg(lib.rand(5)))),
        lambda: dict(mixture_distribution=D.Categorical(rg(lib.rand(5))),
                     component_distribution=D.MultivariateNormal(
                         loc=rg(lib.randn(5, 2)),
                         covariance_matrix=rg(T([[2.0, 0.3], [0.3, 0.25]])))))
    add("VonMises",
        lambda: dict(loc=rg(T(1.0)), concentration=rg(T(10.0))),
        lambda: dict(loc=rg(T([0.0, math.pi / 2])), concentration=rg(T([1.0, 10.0]))))
    add("ContinuousBernoulli",
        lambda: dict(probs=rg(T([0.7, 0.2, 0.4]))),
        lambda: dict(probs=0.3),
        lambda: dict(logits=rg(T([0.0]))))
    add("InverseGamma",
        lambda: dict(concentration=rg(lib.randn(2, 3).exp()), rate=rg(lib.randn(2, 3).exp())))
    add("GeneralizedPareto",
        lambda: dict(loc=lib.randn(5, 5, requires_grad=True).mul(10),
                     scale=rg(lib.randn(5, 5).abs()),
                     concentration=rg(lib.randn(5, 5).div(10))))
    return E


def bad_examples(lib):
    """(name, params builder) pairs that torch refuses with validate_args=True."""
    T, Normal = lib.tensor, lib.distributions.Normal

    def rg(t):
        return t.requires_grad_()

    return [
        ("Bernoulli", lambda: dict(probs=rg(T([1.1, 0.2, 0.4])))),
        ("Bernoulli", lambda: dict(probs=rg(T([-0.5])))),
        ("Bernoulli", lambda: dict(probs=1.00001)),
        ("Beta", lambda: dict(concentration1=rg(T([0.0])), concentration0=rg(T([0.0])))),
        ("Beta", lambda: dict(concentration1=rg(T([-1.0])), concentration0=rg(T([-2.0])))),
        ("Geometric", lambda: dict(probs=rg(T([1.1, 0.2, 0.4])))),
        ("Geometric", lambda: dict(probs=1.00000001)),
        ("Geometric", lambda: dict(probs=rg(T([-0.3])))),
        ("Categorical", lambda: dict(probs=rg(T([[-0.1, 0.2, 0.3], [0.5, 0.3, 0.2]])))),
        ("Categorical", lambda: dict(probs=rg(T([[-1.0, 10.0], [0.0, -1.0]])))),
        ("Binomial", lambda: dict(probs=rg(T([[-0.0000001, 0.2, 0.3], [0.5, 0.3, 0.2]])),
                                  total_count=10)),
        ("Binomial", lambda: dict(probs=rg(T([[1.0, 0.0], [0.0, 2.0]])), total_count=10)),
        ("NegativeBinomial", lambda: dict(probs=rg(T([[-0.0000001, 0.2, 0.3], [0.5, 0.3, 0.2]])),
                                          total_count=10)),
        ("NegativeBinomial", lambda: dict(probs=rg(T([[1.0, 0.0], [0.0, 2.0]])), total_count=10)),
        ("Cauchy", lambda: dict(loc=0.0, scale=-1.0)),
        ("Cauchy", lambda: dict(loc=T([0.0]), scale=0.0)),
        ("Cauchy", lambda: dict(loc=T([[0.0], [-2.0]]), scale=T([[-0.000001], [1.0]]))),
        ("Chi2", lambda: dict(df=rg(T([0.0])))), ("Chi2", lambda: dict(df=rg(T([-2.0])))),
        ("StudentT", lambda: dict(df=rg(T([0.0])))), ("StudentT", lambda: dict(df=rg(T([-2.0])))),
        ("Dirichlet", lambda: dict(concentration=rg(T([0.0])))),
        ("Dirichlet", lambda: dict(concentration=rg(T([-2.0])))),
        ("Exponential", lambda: dict(rate=rg(T([0.0, 0.0])))),
        ("Exponential", lambda: dict(rate=-2.0)),
        ("FisherSnedecor", lambda: dict(df1=rg(T([0.0, 0.0])), df2=rg(T([-1.0, -100.0])))),
        ("FisherSnedecor", lambda: dict(df1=rg(T([1.0, 1.0])), df2=rg(T([0.0, 0.0])))),
        ("Gamma", lambda: dict(concentration=rg(T([0.0, 0.0])), rate=rg(T([-1.0, -100.0])))),
        ("Gamma", lambda: dict(concentration=rg(T([1.0, 1.0])), rate=rg(T([0.0, 0.0])))),
        ("Gumbel", lambda: dict(loc=rg(T([1.0, 1.0])), scale=rg(T([0.0, 1.0])))),
        ("Gumbel", lambda: dict(loc=rg(T([1.0, 1.0])), scale=rg(T([1.0, -1.0])))),
        ("HalfCauchy", lambda: dict(scale=-1.0)),
        ("HalfCauchy", lambda: dict(scale=0.0)),
        ("HalfCauchy", lambda: dict(scale=T([[-0.000001], [1.0]]))),
        ("HalfNormal", lambda: dict(scale=rg(T([0.0, 1.0])))),
        ("HalfNormal", lambda: dict(scale=rg(T([1.0, -1.0])))),
        ("LKJCholesky", lambda: dict(dim=2, concentration=0.0)),
        ("LKJCholesky", lambda: dict(dim=1, concentration=1.0)),
        ("Laplace", lambda: dict(loc=rg(T([1.0, 1.0])), scale=rg(T([0.0, 1.0])))),
        ("Laplace", lambda: dict(loc=rg(T([1.0, 1.0])), scale=rg(T([1.0, -1.0])))),
        ("LogNormal", lambda: dict(loc=rg(T([1.0, 1.0])), scale=rg(T([0.0, 1.0])))),
        ("LogNormal", lambda: dict(loc=rg(T([1.0, 1.0])), scale=rg(T([1.0, -1.0])))),
        ("MultivariateNormal", lambda: dict(loc=rg(T([1.0, 1.0])),
                                         covariance_matrix=rg(T([[1.0, 0.0], [0.0, -2.0]])))),
        ("Normal", lambda: dict(loc=rg(T([1.0, 1.0])), scale=rg(T([0.0, 1.0])))),
        ("Normal", lambda: dict(loc=rg(T([1.0, 1.0])), scale=rg(T([1.0, -1.0])))),
        ("Normal", lambda: dict(loc=rg(T([1.0, 0.0])), scale=rg(T([1e-5, -1e-5])))),
        ("OneHotCategorical", lambda: dict(probs=rg(T([[0.1, 0.2, 0.3], [0.1, -10.0, 0.2]])))),
        ("OneHotCategorical", lambda: dict(probs=rg(T([[0.0, 0.0], [0.0, 0.0]])))),
        ("Pareto", lambda: dict(scale=0.0, alpha=0.0)),
        ("Pareto", lambda: dict(scale=rg(T([0.0, 0.0])), alpha=rg(T([-1e-5, 0.0])))),
        ("Pareto", lambda: dict(scale=T([1.0]), alpha=-1.0)),
        ("Poisson", lambda: dict(rate=rg(T([-0.1])))), ("Poisson", lambda: dict(rate=-1.0)),
        ("RelaxedBernoulli", lambda: dict(temperature=T([1.5]), probs=T([1.7, 0.2, 0.4]))),
        ("RelaxedBernoulli", lambda: dict(temperature=T([2.0]), probs=T([-1.0]))),
        ("RelaxedOneHotCategorical", lambda: dict(temperature=T([0.5]),
                                               probs=T([[-0.1, 0.2, 0.7], [0.5, 0.3, 0.2]]))),
        ("RelaxedOneHotCategorical", lambda: dict(temperature=T([0.5]),
                                               probs=T([[-1.0, 0.0], [-1.0, 1.1]]))),
        ("TransformedDistribution", lambda: dict(base_distribution=Normal(0.0, 1.0),
                                              transforms=lambda x: x)),
        ("TransformedDistribution", lambda: dict(base_distribution=Normal(0.0, 1.0),
                                              transforms=[lambda x: x])),
        ("Uniform", lambda: dict(low=rg(T([2.0])), high=rg(T([2.0])))),
        ("Uniform", lambda: dict(low=rg(T([0.0])), high=rg(T([0.0])))),
        ("Uniform", lambda: dict(low=rg(T([1.0])), high=rg(T([0.0])))),
        ("Weibull", lambda: dict(scale=rg(T([0.0])), concentration=rg(T([0.0])))),
        ("Weibull", lambda: dict(scale=rg(T([1.0])), concentration=rg(T([-1.0])))),
        ("Wishart", lambda: dict(covariance_matrix=T([[1.0, 0.0], [0.0, -2.0]]), df=T([1.5]))),
        ("Wishart", lambda: dict(covariance_matrix=T([[1.0, 1.0], [1.0, -2.0]]), df=T([3.0]))),
        ("Wishart", lambda: dict(covariance_matrix=T([[1.0, 1.0], [1.0, -2.0]]), df=3.0)),
        ("ContinuousBernoulli", lambda: dict(probs=rg(T([1.1, 0.2, 0.4])))),
        ("ContinuousBernoulli", lambda: dict(probs=rg(T([-0.5])))),
        ("ContinuousBernoulli", lambda: dict(probs=1.00001)),
        ("InverseGamma", lambda: dict(concentration=rg(T([0.0, 0.0])), rate=rg(T([-1.0, -100.0])))),
        ("InverseGamma", lambda: dict(concentration=rg(T([1.0, 1.0])), rate=rg(T([0.0, 0.0])))),
        ("GeneralizedPareto", lambda: dict(loc=rg(T([0.0, 0.0])),
                                        scale=rg(T([0.0, 0.0])),
                                        concentration=rg(T([0.0, 0.0])))),
        ("GeneralizedPareto", lambda: dict(loc=rg(T([1.0, -1.0])),
                                        scale=rg(T([0.0, -1.0])),
                                        concentration=rg(T([0.1, -0.1])))),
        ("VonMises", lambda: dict(loc=T(1.0), concentration=T(-1.0))),
        ("Kumaraswamy", lambda: dict(concentration1=T([0.0]), concentration0=T([1.0]))),
    ]
