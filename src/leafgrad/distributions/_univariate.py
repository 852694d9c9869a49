"""Normal, Uniform, Exponential, Laplace: location/scale families with reparameterized samples.

Every sample draws from leafgrad's torch-identical generator in torch's order, so a seed gives
torch's samples: Normal.sample is ``normal(loc, scale)`` under no_grad, rsample is
``loc + eps * scale`` with ``eps`` from ``empty(shape).normal_()``; Uniform uses ``rand``;
Exponential torch's ``exponential_`` kernel; Laplace ``uniform_(eps - 1, 1)``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _creation
from ..autograd.grad_mode import no_grad
from ..tensor import Size
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import _exponential, _is_number, _size, _standard_normal, broadcast_all

__all__ = ["Normal", "Uniform", "Exponential", "Laplace"]


def _batch(*params) -> Size:
    return Size() if all(_is_number(p) for p in params) else None


class _LocScale:
    """Shared constructor and expand for two broadcast parameters named by ``_params``."""

    _params: tuple = ()

    def _set_params(self, values, validate_args):
        tensors = broadcast_all(*values)
        for name, tensor in zip(self._params, tensors):
            setattr(self, name, tensor)
        batch_shape = _batch(*values)
        if batch_shape is None:
            batch_shape = tensors[0].size()
        Distribution.__init__(self, batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self)._family, _instance)
        batch_shape = _size(batch_shape)
        for name in self._params:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new


class Normal(_LocScale, ExponentialFamily):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0
    _params = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self._set_params((loc, scale), validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=Size()):
        from .. import normal

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = math.log(self.scale) if _is_number(self.scale) else self.scale.log()
        return (-((value - self.loc) ** 2) / (2 * var) - log_scale
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value):
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()


class Uniform(_LocScale, Distribution):
    has_rsample = True
    _params = ("low", "high")

    def __init__(self, low, high, validate_args=None):
        self._set_params((low, high), validate_args)

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        rand = _creation.rand(tuple(shape), dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return lb.mul(ub).log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()


class Exponential(_LocScale, ExponentialFamily):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0
    _params = ("rate",)

    def __init__(self, rate, validate_args=None):
        self._set_params((rate,), validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _creation.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return _exponential(shape, self.rate.dtype) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()


class Laplace(_LocScale, Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _params = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self._set_params((loc, scale), validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = float(np.finfo(self.loc.dtype.np).eps)
        u = _creation.empty(tuple(shape), dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (
            -(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()


for _cls in (Normal, Uniform, Exponential, Laplace):
    _cls._family = _cls
