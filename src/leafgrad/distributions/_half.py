"""HalfNormal, HalfCauchy and Gumbel: transformed distributions as torch builds them."""

from __future__ import annotations

import math

import numpy as np

from .. import _creation
from . import constraints
from ._composite import TransformedDistribution
from ._extra import Cauchy
from ._univariate import Normal, Uniform
from .transforms import AbsTransform, AffineTransform, ExpTransform
from .utils import _is_number, broadcast_all, euler_constant

__all__ = ["HalfNormal", "HalfCauchy", "Gumbel"]


class _Half(TransformedDistribution):
    """|X| for a base symmetric about 0: twice the density on [0, inf)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self)._family, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return _creation.zeros_like(self.scale)

    def log_prob(self, value):
        from .. import where

        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Half):
    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(),
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_Half):
    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(),
                         validate_args=validate_args)

    @property
    def mean(self):
        return _creation.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        value = _creation.as_tensor(value, dtype=self.base_dist.scale.dtype)
        return super().log_prob(value)


HalfNormal._family = HalfNormal
HalfCauchy._family = HalfCauchy


class Gumbel(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = np.finfo(self.loc.dtype.np)
        tiny, top = float(info.tiny), 1 - float(info.eps)
        if _is_number(loc) and _is_number(scale):
            base = Uniform(tiny, top, validate_args=validate_args)
        else:
            base = Uniform(_creation.full_like(self.loc, tiny), _creation.full_like(self.loc, top),
                           validate_args=validate_args)
        transforms = [ExpTransform().inv,
                      AffineTransform(loc=0, scale=-_creation.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
