"""torch.distributions: probability distributions with torch's sampling streams and formulas.

``import leafgrad as torch`` then ``torch.distributions.Normal(0., 1.).sample((3,))`` gives
torch's values for the same seed; ``log_prob``, ``entropy`` and ``rsample`` are differentiable
with torch's gradients.
"""

from __future__ import annotations

from . import constraint_registry, constraints, transforms, utils
from ._composite import Independent, LogNormal, TransformedDistribution
from ._continuous import ContinuousBernoulli, FisherSnedecor, GeneralizedPareto, VonMises
from ._counts import Binomial, Multinomial, NegativeBinomial, Poisson
from ._extra import (Cauchy, Geometric, MixtureSameFamily, RelaxedBernoulli,
                     RelaxedOneHotCategorical)
from ._discrete import Bernoulli, Categorical, OneHotCategorical, OneHotCategoricalStraightThrough
from ._gamma import Beta, Chi2, Dirichlet, Gamma, StudentT
from ._half import Gumbel, HalfCauchy, HalfNormal
from ._lowrank import LowRankMultivariateNormal
from ._matrix import LKJCholesky, Wishart
from ._mvn import MultivariateNormal
from ._transformed import InverseGamma, Kumaraswamy, LogisticNormal, Pareto, Weibull
from ._univariate import Exponential, Laplace, Normal, Uniform
from .constraint_registry import biject_to, transform_to
from .distribution import Distribution, ExponentialFamily
from .kl import kl_divergence, register_kl
from .transforms import *  # noqa: F403 - torch re-exports every transform here


# torch's module layout: torch.distributions.normal.Normal and the like. Each of these small
# modules re-exports its classes and is their __module__, as torch's files are.
from . import (  # noqa: E402,F401 - torch's module layout, see above
    bernoulli, beta, binomial, categorical, cauchy, chi2, continuous_bernoulli, dirichlet,
    exp_family, exponential, fishersnedecor, gamma, generalized_pareto, geometric, gumbel,
    half_cauchy, half_normal, independent, inverse_gamma, kumaraswamy, laplace, lkj_cholesky,
    log_normal, logistic_normal, lowrank_multivariate_normal, mixture_same_family, multinomial,
    multivariate_normal, negative_binomial, normal, one_hot_categorical, pareto, poisson,
    relaxed_bernoulli, relaxed_categorical, studentT, transformed_distribution, uniform,
    von_mises, weibull, wishart,
)

__all__ = sorted([
    "Binomial", "ContinuousBernoulli", "FisherSnedecor", "GeneralizedPareto", "InverseGamma",
    "Kumaraswamy", "LogisticNormal", "Multinomial", "NegativeBinomial", "Pareto", "Poisson",
    "LKJCholesky", "VonMises", "Weibull", "Wishart", "biject_to", "transform_to",
    "Bernoulli", "Beta", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
    "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "HalfCauchy",
    "HalfNormal", "Independent", "Laplace", "LogNormal", "LowRankMultivariateNormal",
    "MixtureSameFamily", "MultivariateNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "StudentT", "TransformedDistribution", "Uniform", "kl_divergence", "register_kl",
] + transforms.__all__)
