"""Poisson, Binomial, Multinomial and NegativeBinomial: counts of events.

Sampling goes through the same generator calls as torch's, so a seed gives torch's counts:
Poisson draws ``poisson(rate)``, Binomial ``binomial(total_count, probs)`` (both replay
torch's CPU kernels, see ``_rng_dists``), Multinomial counts ``total_count`` Categorical
draws, NegativeBinomial draws a Gamma(total_count, exp(-logits)) rate and then a Poisson.
"""

from __future__ import annotations

import math

from .. import _creation
from ..autograd.grad_mode import no_grad
from ..tensor import Size
from . import constraints
from ._discrete import Categorical, _one_of
from ._gamma import Gamma
from .distribution import Distribution, ExponentialFamily
from .utils import (_is_number, _size, broadcast_all, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["Poisson", "Binomial", "Multinomial", "NegativeBinomial"]


class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if _is_number(rate) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = _size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size()):
        from .. import poisson

        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()


class _CountAndProbs(Distribution):
    """Binomial and NegativeBinomial: a ``total_count`` broadcast with ``probs`` or ``logits``
    and cast to their dtype; the other parameter is computed lazily."""

    def _set_params(self, total_count, probs, logits):
        _one_of(probs, logits)
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        total_count, param = broadcast_all(total_count, given)
        self.total_count = total_count.type_as(param)
        setattr(self, name, param)
        self._param = param

    def _expand_into(self, cls, batch_shape, _instance):
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2 (torch's choice for the Binomial normaliser).
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_CountAndProbs):
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self._set_params(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_into(Binomial, batch_shape, _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        from .. import binomial

        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = (self.total_count + 1).lgamma()
        log_factorial_k = (value + 1).lgamma()
        log_factorial_nmk = (self.total_count - value + 1).lgamma()
        # n * log(1 + exp(logits)), written to stay finite for large |logits|
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * (-self.logits.abs()).exp().log1p()
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what: str) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = self._homogeneous_count("enumerate_support")
        values = _creation.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class Multinomial(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = _size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        from .. import ones_like

        sample_shape = _size(sample_shape)
        # total_count category draws per distribution, moved from the front to the back
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        order = list(range(samples.dim()))
        order.append(order.pop(0))
        samples = samples.permute(*order)
        counts = samples.new_zeros(tuple(self._extended_shape(sample_shape)))
        counts.scatter_add_(-1, samples, ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        n = _creation.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - (n + 1).lgamma()
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        # 0 * log(0) counts as 0: a category never drawn with probability 0
        logits[(value == 0) & (logits == -math.inf)] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers


class NegativeBinomial(_CountAndProbs):
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._set_params(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_into(NegativeBinomial, batch_shape, _instance)

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(),
                     validate_args=False)

    def sample(self, sample_shape=Size()):
        from .. import poisson

        with no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        from ..nn.functional import logsigmoid

        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * logsigmoid(-self.logits)
                                 + value * logsigmoid(self.logits))
        log_normalization = (-(self.total_count + value).lgamma() + (1.0 + value).lgamma()
                             + self.total_count.lgamma())
        # total_count + value == 0 (a NegativeBinomial(0, p) at 0): probability 1
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
