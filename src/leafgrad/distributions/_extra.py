"""Cauchy, Geometric, the relaxed (Concrete / Gumbel-softmax) distributions and
MixtureSameFamily, sampling as torch does (cauchy_, uniform_(tiny, 1), rand)."""

from __future__ import annotations

import math

import numpy as np

from .. import _creation
from ..autograd.grad_mode import no_grad
from ..tensor import Size
from . import constraints
from ._composite import TransformedDistribution
from ._discrete import Categorical
from ._univariate import _LocScale
from .distribution import Distribution
from .transforms import ExpTransform, SigmoidTransform
from .utils import (torch_text, _cauchy, _is_number, _size, broadcast_all, clamp_probs, lazy_property,
                    logits_to_probs, probs_to_logits)

__all__ = ["Cauchy", "Geometric", "LogitRelaxedBernoulli", "RelaxedBernoulli",
           "ExpRelaxedCategorical", "RelaxedOneHotCategorical", "MixtureSameFamily"]


class Cauchy(_LocScale, Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _params = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self._set_params((loc, scale), validate_args)

    @property
    def mean(self):
        return _creation.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return _creation.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return self.loc + _cauchy(shape, self.loc.dtype) * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


Cauchy._family = Cauchy


def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Geometric(Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (tensor,) = broadcast_all(given)
        if probs is not None:
            self.probs = tensor
        else:
            self.logits = tensor
        super().__init__(Size() if _is_number(given) else given.size(),
                         validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not valid.all():
                raise ValueError(torch_text(
                    f"Expected parameter probs ({type(self.probs).__name__} of shape "
                    f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but "
                    f"found invalid values:\n{self.probs.data[~valid]}"))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = _size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _creation.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        tiny = float(np.finfo(self.probs.dtype.np).tiny)
        with no_grad():
            u = _creation.empty(tuple(shape), dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        from ..nn.functional import binary_cross_entropy_with_logits

        return binary_cross_entropy_with_logits(self.logits, self.probs,
                                                reduction="none") / self.probs


class LogitRelaxedBernoulli(Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (tensor,) = broadcast_all(given)
        if probs is not None:
            self.probs = tensor
        else:
            self.logits = tensor
        self._param = tensor
        super().__init__(Size() if _is_number(given) else tensor.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = _size(batch_shape)
        new.temperature = self.temperature
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(_creation.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log()
                - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class ExpRelaxedCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = _size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        uniforms = clamp_probs(_creation.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # torch: full_like(temperature, K).lgamma(), a constant: lgamma(K) = log((K-1)!)
        log_scale = (_creation.full_like(self.temperature, math.lgamma(float(K)))
                     - self.temperature.log().mul(-(K - 1)))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits,
                                               validate_args=validate_args),
                         ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class MixtureSameFamily(Distribution):
    """A mixture whose components share one family: ``Categorical`` picks the component."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(torch_text(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                    f"`component_distribution.batch_shape`({cdbs})"))
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = _size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape=batch_shape,
                              event_shape=new._component_distribution.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(dim=-1 - self._event_ndims)

    @property
    def variance(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        mean_cond_var = (probs * self.component_distribution.variance).sum(
            dim=-1 - self._event_ndims)
        var_cond_mean = (probs * (self.component_distribution.mean
                                  - self._pad(self.mean)).pow(2.0)).sum(
            dim=-1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = self.mixture_distribution.logits.log_softmax(dim=-1)
        return (log_prob_x + log_mix_prob).logsumexp(dim=-1)

    def sample(self, sample_shape=Size()):
        from .. import gather

        with no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = tuple(self.event_shape)
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            mix_sample_r = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            mix_sample_r = mix_sample_r.repeat((1,) * len(mix_shape) + (1,) + es)
            return gather(comp_samples, gather_dim, mix_sample_r).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)

    def __repr__(self):
        return ("MixtureSameFamily(" + f"\n  {self.mixture_distribution},\n  "
                f"{self.component_distribution}" + ")")
