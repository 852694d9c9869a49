"""torch.distributions: probability distributions with torch's sampling streams and formulas.

``import leafgrad as torch`` then ``torch.distributions.Normal(0., 1.).sample((3,))`` gives
torch's values for the same seed; ``log_prob``, ``entropy`` and ``rsample`` are differentiable
with torch's gradients.
"""

from __future__ import annotations

from . import constraints, utils
from ._discrete import Bernoulli, Categorical, OneHotCategorical, OneHotCategoricalStraightThrough
from ._univariate import Exponential, Laplace, Normal, Uniform
from .distribution import Distribution, ExponentialFamily

__all__ = [
    "Bernoulli", "Categorical", "Distribution", "Exponential", "ExponentialFamily", "Laplace",
    "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Uniform",
]
