"""Gamma, Chi2, Dirichlet and Beta, with torch's gamma sampler replayed draw for draw.

torch's CPU ``_standard_gamma`` is Marsaglia and Tsang's method on the generator's 53-bit
uniforms and its cached Box-Muller normals (at::normal_distribution<double>), with alpha < 1
boosted by u^(1/alpha); ``_sample_dirichlet`` draws those gammas in double and normalises.
Both are replayed here, so a seed gives torch's samples bit for bit.

Not done: the reparameterized gradient of a sample with respect to the concentration
(torch's ``_standard_gamma_grad`` / ``_dirichlet_grad`` approximations). rsample keeps the
gradient through ``rate`` (Gamma, Chi2 has none); backpropagating into a concentration through
a sample raises NotImplementedError instead of returning a wrong or zero gradient.

``lgamma``/``digamma`` are the tensor methods when leafgrad has them; until then private
differentiable versions (C library lgamma; Cephes' digamma and trigamma as torch's kernels).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _creation
from ..autograd.function import Function
from ..tensor import Size, Tensor
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import _is_number, _size, broadcast_all

__all__ = ["Gamma", "Chi2", "Dirichlet", "Beta", "StudentT"]


# ---- special functions (private fallbacks) -------------------------------------------------

_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)


def _digamma_scalar(x: float) -> float:
    if x == 0:
        return math.copysign(math.inf, -x)
    if x < 0:
        if x == math.trunc(x):
            return math.nan
        q, r = divmod(x, 1.0)
        return _digamma_scalar(1 - x) - math.pi / math.tan(math.pi * r)
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + _PSI_10
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        poly = 0.0
        for coefficient in _DIGAMMA_A:
            poly = poly * z + coefficient
        y = z * poly
    return result + math.log(x) - (0.5 / x) - y


def _trigamma_scalar(x: float) -> float:
    sign, result = 1.0, 0.0
    if x < 0.5:
        sign = -1.0
        s = math.sin(math.pi * x)
        result -= (math.pi * math.pi) / (s * s)
        x = 1.0 - x
    for _ in range(6):
        result += 1.0 / (x * x)
        x += 1.0
    ixx = 1.0 / (x * x)
    result += (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x
    return sign * result


def _map(function, array: np.ndarray) -> np.ndarray:
    values = np.fromiter(map(function, array.astype(np.float64).reshape(-1).tolist()),
                         dtype=np.float64, count=array.size)
    return values.reshape(array.shape).astype(array.dtype)


class _Trigamma(Function):
    @staticmethod
    def forward(ctx, x):
        return _creation.tensor(_map(_trigamma_scalar, x.detach().numpy()), dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("leafgrad: the derivative of trigamma is not implemented")


class _Digamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _creation.tensor(_map(_digamma_scalar, x.detach().numpy()), dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _Trigamma.apply(x)


class _Lgamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _creation.tensor(_map(math.lgamma, x.detach().numpy()), dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _digamma(x)


def _lgamma(x: Tensor) -> Tensor:
    return x.lgamma() if hasattr(Tensor, "lgamma") else _Lgamma.apply(x)


def _digamma(x: Tensor) -> Tensor:
    return x.digamma() if hasattr(Tensor, "digamma") else _Digamma.apply(x)


# ---- torch's gamma sampler -----------------------------------------------------------------

_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # 1.0f / 3.0f
_C0331_F = float(np.float32(0.0331))


def _sample_gamma(alpha, gen, single: bool) -> float:
    """sample_gamma<scalar_t, double>: alpha arithmetic in scalar_t (float32 if ``single``)."""
    from .. import _rng

    f = np.float32 if single else np.float64
    alpha = f(alpha)
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0:
            return 0.0
        u = float(_rng._uniform53(gen, 1)[0])
        scale *= math.pow(1 - u, float(f(1.0) / alpha))
        alpha = f(alpha + f(1.0))
    d = float(f(alpha - f(_THIRD_F))) if single else float(alpha) - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = float(_rng._normal_scalar(gen, 1, 0.0, 1.0)[0])
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - float(_rng._uniform53(gen, 1)[0])
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _standard_gamma_array(alpha: np.ndarray) -> np.ndarray:
    from .. import _rng

    gen = _rng._generator(None)
    with gen._lock:
        single = alpha.dtype == np.float32
        out = np.array([_sample_gamma(a, gen, single) for a in alpha.reshape(-1).tolist()],
                       dtype=np.float64).astype(alpha.dtype)
    tiny = np.finfo(alpha.dtype).tiny
    return np.maximum(out, tiny).reshape(alpha.shape)


def _sample_dirichlet_array(alpha: np.ndarray) -> np.ndarray:
    from .. import _rng

    gen = _rng._generator(None)
    with gen._lock:
        gammas = np.array([_sample_gamma(a, gen, False) for a in
                           alpha.astype(np.float64).reshape(-1).tolist()], dtype=np.float64)
    gammas = np.maximum(gammas, np.finfo(np.float64).tiny).reshape(alpha.shape)
    return (gammas / gammas.sum(-1, keepdims=True)).astype(alpha.dtype)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, concentration):
        return _creation.tensor(_standard_gamma_array(concentration.detach().numpy()),
                                dtype=concentration.dtype)

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("leafgrad: the gradient of a gamma sample with respect to "
                                  "its concentration (torch's _standard_gamma_grad) is not "
                                  "implemented")


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx, concentration):
        return _creation.tensor(_sample_dirichlet_array(concentration.detach().numpy()),
                                dtype=concentration.dtype)

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("leafgrad: the gradient of a Dirichlet sample with respect "
                                  "to its concentration (torch's _dirichlet_grad) is not "
                                  "implemented")


def _standard_gamma(concentration: Tensor) -> Tensor:
    if concentration.requires_grad:
        return _StandardGamma.apply(concentration)
    return _StandardGamma.forward(None, concentration)


# ---- distributions -------------------------------------------------------------------------


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = (Size() if _is_number(concentration) and _is_number(rate)
                       else self.concentration.size())
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = _size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=float(np.finfo(value.dtype.np).tiny))
        return value

    def log_prob(self, value):
        from .. import xlogy

        value = _creation.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - _lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - self.rate.log() + _lgamma(self.concentration)
                + (1.0 - self.concentration) * _digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return _lgamma(x + 1) + (x + 1) * (-y.reciprocal()).log()


class Chi2(Gamma):
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2


class Dirichlet(ExponentialFamily):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = _size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape + self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        concentration = self.concentration.expand(shape)
        if concentration.requires_grad:
            return _Dirichlet.apply(concentration)
        return _Dirichlet.forward(None, concentration)

    def log_prob(self, value):
        from .. import xlogy

        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration - 1.0, value).sum(-1)
                + _lgamma(self.concentration.sum(-1)) - _lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        from ..nn.functional import one_hot

        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = one_hot(mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (_lgamma(self.concentration).sum(-1) - _lgamma(a0) - (k - a0) * _digamma(a0)
                - ((self.concentration - 1.0) * _digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return _lgamma(x).sum(-1) - _lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        from .. import stack

        if _is_number(concentration1) and _is_number(concentration0):
            both = _creation.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = _size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        from .. import stack

        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return _lgamma(x) + _lgamma(y) - _lgamma(x + y)


class StudentT(Distribution):
    """Student's t: loc + scale * X / sqrt(Z / df), X ~ N(0, 1) drawn first, Z ~ Chi2(df)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = _size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        m = self.loc.clone()
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        m = self.df.clone()
        big = self.df > 2
        m[big] = self.scale[big].pow(2) * self.df[big] / (self.df[big] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def rsample(self, sample_shape=Size()):
        from .utils import _standard_normal

        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype)
        Z = self._chi2.rsample(sample_shape)
        Y = X * (Z / self.df).rsqrt()
        return self.loc + self.scale * Y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + _lgamma(0.5 * self.df) - _lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * (y ** 2.0 / self.df).log1p() - Z

    def entropy(self):
        lbeta = _lgamma(0.5 * self.df) + math.lgamma(0.5) - _lgamma(0.5 * (self.df + 1))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (_digamma(0.5 * (self.df + 1))
                                         - _digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
