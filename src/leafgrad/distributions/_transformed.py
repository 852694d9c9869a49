"""Weibull, Pareto, Kumaraswamy, InverseGamma and LogisticNormal: a base distribution pushed
through transforms, built exactly as torch builds them so that samples (drawn by the base),
log_prob (change of variables) and cdf/icdf follow torch's arithmetic step for step.

- Weibull(scale, k):   Exponential(1) -> x^(1/k) -> scale * x
- Pareto(scale, a):    Exponential(a) -> exp(x) -> scale * x
- Kumaraswamy(a, b):   Uniform(0, 1) -> x^(1/b) -> 1 - x -> x^(1/a)
- InverseGamma(a, b):  Gamma(a, b) -> x^-1
- LogisticNormal:      Normal(loc, scale) (batch () made (1,)) -> stick breaking
"""

from __future__ import annotations

import math

from .. import _creation
from . import constraints
from ._composite import TransformedDistribution
from ._gamma import Gamma
from ._univariate import Exponential, Normal, Uniform
from ._transforms_vector import StickBreakingTransform
from .transforms import AffineTransform, ExpTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull", "Pareto", "Kumaraswamy", "InverseGamma", "LogisticNormal"]


class Weibull(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(_creation.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base_dist, self._transforms(), validate_args=validate_args)

    def _transforms(self):
        return [PowerTransform(exponent=self.concentration_reciprocal),
                AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(batch_shape)
        TransformedDistribution.__init__(new, base_dist, new._transforms(),
                                         validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self):
        return (self.scale * ((self.concentration - 1) / self.concentration)
                ** self.concentration.reciprocal())

    @property
    def variance(self):
        return self.scale.pow(2) * ((1 + 2 * self.concentration_reciprocal).lgamma().exp()
                                    - (2 * (1 + self.concentration_reciprocal).lgamma()).exp())

    def entropy(self):
        return (euler_constant * (1 - self.concentration_reciprocal)
                + (self.scale * self.concentration_reciprocal).log() + 1)


class Pareto(TransformedDistribution):
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)  # infinite for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)  # infinite for alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


def _kumaraswamy_moment(a, b, n):
    """E[X^n] = b * B(1 + n / a, b)."""
    arg1 = 1 + n / a
    log_value = arg1.lgamma() + b.lgamma() - (arg1 + b).lgamma()
    return b * log_value.exp()


class Kumaraswamy(TransformedDistribution):
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        base_dist = Uniform(_creation.full_like(self.concentration0, 0),
                            _creation.full_like(self.concentration0, 1),
                            validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # ((a - 1) / (a * b - 1)) ^ (1 / a), torch's log-space form; undefined if a or b < 1
        log_mode = (self.concentration0.reciprocal() * (-self.concentration0).log1p()
                    - (-self.concentration0 * self.concentration1).log1p())
        log_mode[(self.concentration0 < 1) | (self.concentration1 < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self):
        return (_kumaraswamy_moment(self.concentration1, self.concentration0, 2)
                - self.mean.pow(2))

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        harmonic = (self.concentration0 + 1).digamma() + euler_constant
        return t0 + t1 * harmonic - self.concentration1.log() - self.concentration0.log()


class InverseGamma(TransformedDistribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        from .. import where

        result = self.rate / (self.concentration - 1)
        return where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        from .. import where

        result = self.rate.square() / ((self.concentration - 1).square()
                                       * (self.concentration - 2))
        return where(self.concentration > 2, result, math.inf)

    def entropy(self):
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())


class LogisticNormal(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
