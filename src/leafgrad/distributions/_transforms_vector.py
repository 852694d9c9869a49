"""Vector and matrix transforms: softmax and stick-breaking onto the simplex, lower-Cholesky
and positive-definite parameterisations, and a distribution's CDF (split from transforms.py;
``transforms`` re-exports them)."""

from __future__ import annotations

import numpy as np

from . import constraints
from .transforms import Transform, _Pointwise, _clipped_sigmoid

__all__ = ["SoftmaxTransform", "StickBreakingTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "CumulativeDistributionTransform"]


class SoftmaxTransform(Transform):
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    inverse_shape = forward_shape


def _pad_last(x, before, after):
    from ..nn.functional import pad

    return pad(x, [before, after], value=1)


class StickBreakingTransform(_Pointwise):
    """Unconstrained vectors to the simplex one dimension larger (stick breaking)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    @property
    def sign(self):
        raise NotImplementedError

    def _call(self, x):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return _pad_last(z, 0, 1) * _pad_last(z_cumprod, 1, 0)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=float(np.finfo(y.dtype.np).tiny))
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import logsigmoid

        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        from .. import linalg

        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """x -> distribution.cdf(x)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
