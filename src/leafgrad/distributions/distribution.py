"""torch.distributions.Distribution and ExponentialFamily: shapes, validation, sampling API."""

from __future__ import annotations

import warnings

from .. import autograd
from ..autograd.grad_mode import no_grad
from ..tensor import Size, Tensor
from . import constraints
from .utils import _size, lazy_property, torch_text

__all__ = ["Distribution"]  # ExponentialFamily: exp_family, as in torch


class Distribution:
    """The base of every distribution: ``batch_shape`` x ``event_shape``, checked arguments."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with "
                              "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue  # not computed yet: nothing to check
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(torch_text(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}"))
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError

    def sample_n(self, n: int):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=Size()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.dim() - len(self._event_shape)
        if value.size()[start:] != self._event_shape:
            raise ValueError(torch_text("The right-most size of value must match event_shape: "
                                        f"{value.size()} vs {self._event_shape}."))
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(torch_text("Value is not broadcastable with "
                                            f"batch_shape+event_shape: {actual} vs {expected}."))
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if not bool(support.check(value).all()):
            raise ValueError(torch_text(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"))

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names)
        return type(self).__name__ + "(" + args + ")"


class ExponentialFamily(Distribution):
    """Distributions with a log-normalizer; entropy by the Bregman divergence identity."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        normalizer = self._log_normalizer(*params)
        grads = autograd.grad(normalizer.sum(), params, create_graph=True)
        result += normalizer
        for p, g in zip(params, grads):
            result -= (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
