"""Bernoulli, Categorical, OneHotCategorical: parameterized by ``probs`` or ``logits``.

Samples draw as torch does: Bernoulli through ``bernoulli(probs)``, Categorical through
``multinomial(probs_2d, n, True).T``, OneHotCategorical one-hot encodes Categorical's draws.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _creation, _dtype
from ..autograd.grad_mode import no_grad
from ..tensor import Size
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import (_is_number, _size, broadcast_all, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical"]


def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class _ProbsOrLogits:
    """``probs`` and ``logits`` computed lazily from whichever one was given."""

    def _expand_param(self, new, shape):
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(shape))
                new._param = getattr(new, name)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (tensor,) = broadcast_all(given)
        if probs is not None:
            self.probs = tensor
        else:
            self.logits = tensor
        self._param = tensor
        batch_shape = Size() if _is_number(given) else tensor.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = _size(batch_shape)
        self._expand_param(new, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=Size()):
        from .. import bernoulli

        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        from ..nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        from ..nn.functional import binary_cross_entropy_with_logits

        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = _creation.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        # torch.logit(p) = log(p / (1 - p)); leafgrad has no logit op yet
        return ((self.probs / (1 - self.probs)).log(),)

    def _log_normalizer(self, x):
        return x.exp().log1p()


class Categorical(_ProbsOrLogits, Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = _size(batch_shape)
        self._expand_param(new, batch_shape + (self._num_events,))
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def mean(self):
        return _creation.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return _creation.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=Size()):
        from .. import multinomial

        sample_shape = _size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        with no_grad():
            samples_2d = multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        from .. import broadcast_tensors

        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = float(np.finfo(self.logits.dtype.np).min)
        p_log_p = self.logits.clamp(min=min_real) * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        values = _creation.arange(self._num_events, dtype=_dtype.int64)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class OneHotCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = _size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        from ..nn.functional import one_hot

        probs = self._categorical.probs
        return one_hot(probs.argmax(dim=-1), num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        from ..nn.functional import one_hot

        probs = self._categorical.probs
        indices = self._categorical.sample(_size(sample_shape))
        return one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = _creation.eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """One-hot samples whose gradient is the probabilities' (straight-through estimator)."""

    has_rsample = True

    def rsample(self, sample_shape=Size()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
