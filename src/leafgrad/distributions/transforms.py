"""torch.distributions.transforms: invertible maps with their log|det J|.

A transform is called on x (``t(x)``), inverted through ``t.inv``, and reports
``log_abs_det_jacobian(x, y)``; ``cache_size=1`` remembers the last (x, y) pair so that the
inverse of a sample is the exact tensor that produced it, as in torch.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

from .. import _creation
from ..tensor import Size
from . import constraints
from .utils import _is_number, _sum_rightmost, broadcast_all, lazy_property, torch_text

__all__ = [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
    "CorrCholeskyTransform", "StackTransform", "CumulativeDistributionTransform",
    "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftplusTransform", "TanhTransform", "SoftmaxTransform", "StickBreakingTransform",
    "Transform", "identity_transform",
]


class Transform:
    """An invertible (or at least computable) map with a log-Jacobian; see module docstring."""

    bijective = False

    def __init__(self, cache_size: int = 0):
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 1:
            self._cached_x_y = None, None
        elif cache_size != 0:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + "()"

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape


class _InverseTransform(Transform):
    """``t.inv``: the same transform run backwards (sharing t's cache)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Apply ``parts`` left to right; the Jacobian terms are summed over event dimensions."""

    def __init__(self, parts, cache_size: int = 0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        if self._inv is None:
            inverse = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inverse
            inverse._inv = self
        return self._inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _creation.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(a, b),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return (type(self).__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts)
                + "\n)")


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` batch dims made event dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshape the rightmost ``in_shape`` dimensions to ``out_shape``."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = Size(tuple(in_shape))
        self.out_shape = Size(tuple(out_shape))
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))

    def _inverse(self, y):
        batch = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    def _reshape(self, shape, source, target):
        if len(shape) < len(source):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(source)
        if tuple(shape[cut:]) != tuple(source):
            raise ValueError(torch_text(f"Shape mismatch: expected {shape[cut:]} but got {source}"))
        return shape[:cut] + target

    def forward_shape(self, shape):
        return self._reshape(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._reshape(shape, self.out_shape, self.in_shape)


class _Pointwise(Transform):
    """A parameter-free bijection; all instances of one class compare equal."""

    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = object.__hash__


class ExpTransform(_Pointwise):
    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and self.exponent.eq(other.exponent).all().item()

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        from .. import broadcast_shapes

        return broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    inverse_shape = forward_shape


def _clipped_sigmoid(x):
    info = np.finfo(x.dtype.np)
    return x.sigmoid().clamp(min=float(info.tiny), max=1.0 - float(info.eps))


def _softplus(x):
    from ..nn.functional import softplus

    return softplus(x)


class SigmoidTransform(_Pointwise):
    domain = constraints.real
    codomain = constraints.unit_interval

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = np.finfo(y.dtype.np)
        y = y.clamp(min=float(info.tiny), max=1.0 - float(info.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x) - _softplus(x)


class SoftplusTransform(_Pointwise):
    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


class TanhTransform(_Pointwise):
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class AbsTransform(_Pointwise):
    domain = constraints.real
    codomain = constraints.positive
    bijective = False

    @property
    def sign(self):
        raise NotImplementedError

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x, over ``event_dim`` rightmost dimensions."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    codomain = domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if _is_number(mine) and _is_number(theirs):
                if mine != theirs:
                    return False
            elif not (mine == theirs).all().item():
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        if _is_number(self.scale):
            scale = float(self.scale)
            return 1 if scale > 0 else -1 if scale < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        if _is_number(self.scale):
            result = _creation.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = result.view(tuple(result.size()[:-self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:-self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        from .. import broadcast_shapes

        return broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                getattr(self.scale, "shape", ()))

    inverse_shape = forward_shape


# the vector and matrix transforms live in their own file (import last: they subclass the above)
from ._transforms_vector import (  # noqa: E402
    CumulativeDistributionTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
    SoftmaxTransform, StickBreakingTransform,
)
from ._transforms_join import CatTransform, CorrCholeskyTransform, StackTransform  # noqa: E402

# torch defines all of them in this module: name it as their home (reprs, pickles)
for _split_out in (CumulativeDistributionTransform, LowerCholeskyTransform,
                   PositiveDefiniteTransform, SoftmaxTransform, StickBreakingTransform,
                   CatTransform, CorrCholeskyTransform, StackTransform):
    _split_out.__module__ = __name__
del _split_out
