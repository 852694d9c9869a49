"""Gamma, Chi2, Dirichlet and Beta, with torch's gamma sampler replayed draw for draw.

torch's CPU ``_standard_gamma`` is Marsaglia and Tsang's method on the generator's 53-bit
uniforms and its cached Box-Muller normals (at::normal_distribution<double>), with alpha < 1
boosted by u^(1/alpha); ``_sample_dirichlet`` draws those gammas in double and normalises.
Both are replayed here, so a seed gives torch's samples bit for bit.

The reparameterized gradient of a sample with respect to its concentration is torch's:
``_standard_gamma_grad`` (a Taylor series for small x, Rice's saddle point expansion for large
alpha, a bivariate rational approximation otherwise) and ``_dirichlet_grad`` (Beta-marginal
expansions and a rational correction), evaluated in double as torch's CPU kernels do. As in
torch, the gamma factor itself has no derivative (a second derivative raises) and the
Dirichlet backward is once-differentiable.

``lgamma``/``digamma`` are the tensor methods when leafgrad has them; until then private
differentiable versions (C library lgamma; Cephes' digamma and trigamma as torch's kernels).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _creation
from ..autograd.function import Function, once_differentiable
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

    if alpha.dtype == np.float16:  # torch's CPU sampler is float and double only
        raise NotImplementedError("\"gamma_cpu\" not implemented for 'Half'")
    gen = _rng._generator(None)
    with gen._lock:
        single = alpha.dtype == np.float32
        out = np.array([_sample_gamma(a, gen, single) for a in alpha.reshape(-1).tolist()],
                       dtype=np.float64).astype(alpha.dtype)
    tiny = np.finfo(alpha.dtype).tiny
    return np.maximum(out, tiny).reshape(alpha.shape)


def _sample_dirichlet_array(alpha: np.ndarray) -> np.ndarray:
    from .. import _rng

    if alpha.dtype == np.float16:
        raise NotImplementedError("\"dirichlet\" not implemented for 'Half'")
    gen = _rng._generator(None)
    with gen._lock:
        gammas = np.array([_sample_gamma(a, gen, False) for a in
                           alpha.astype(np.float64).reshape(-1).tolist()], dtype=np.float64)
    gammas = np.maximum(gammas, np.finfo(np.float64).tiny).reshape(alpha.shape)
    return (gammas / gammas.sum(-1, keepdims=True)).astype(alpha.dtype)


# ---- reparameterized gradients (torch's approximations, see the module docstring) -----------

_GAMMA_GRAD_COEF_UV = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07),
)


# torch's kernel writes these thresholds as float literals (0.8f, ...), widened to double
_F0_8, _F0_9, _F1_1 = (float(np.float32(v)) for v in (0.8, 0.9, 1.1))


def _standard_gamma_grad_one(alpha: float, x: float) -> float:
    """-(d/dalpha cdf(x; alpha)) / pdf(x; alpha) for x drawn from Gamma(alpha, 1)."""
    if x < _F0_8:  # Taylor series of the incomplete gamma function
        numer, denom = 1.0, alpha
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        with np.errstate(all="ignore"):
            pow_x_alpha = _pow(x, alpha)
            gamma_pdf = _pow(x, alpha - 1) * math.exp(-x)
            gamma_cdf = pow_x_alpha * series1
            gamma_cdf_alpha = ((_log(x) - _digamma_scalar(alpha)) * gamma_cdf
                               - pow_x_alpha * series2)
            result = -float(np.float64(gamma_cdf_alpha) / np.float64(gamma_pdf))
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:  # Rice's saddle point expansion
        if _F0_9 * alpha <= x <= _F1_1 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
                       + alpha * (107 + 3600 * x))
            denom = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numer_1 * numer_2 / denom
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = _pow(x - alpha - alpha * math.log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = (math.log(x / alpha) * term23
                 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    u = math.log(x / alpha)  # a rational approximation in log(x / alpha), log(alpha)
    v = math.log(alpha)
    coef = [c0 + u * (c1 + u * c2) for c0, c1, c2 in zip(*_GAMMA_GRAD_COEF_UV)]
    p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
    q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
    return math.exp(p / q)


def _pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except (OverflowError, ValueError):
        return float(np.power(np.float64(x), np.float64(y)))


def _log(x: float) -> float:
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _beta_grad_alpha_small(x, alpha, beta):
    """Reparameterized gradient of Beta(alpha, beta) in alpha near x = 0 (Taylor series)."""
    factor = _digamma_scalar(alpha) - _digamma_scalar(alpha + beta) - _log(x)
    numer = 1.0
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer *= (i - beta) * x / i
        denom = alpha + i
        series += numer / denom * (factor + 1 / denom)
    with np.errstate(all="ignore"):
        result = float(np.float64(x) * np.power(np.float64(1 - x), -beta) * series)
    return 0.0 if math.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta):
    """Reparameterized gradient of Beta(alpha, beta) in beta near x = 0 (Taylor series)."""
    factor = _digamma_scalar(alpha + beta) - _digamma_scalar(beta)
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, factor / alpha
    for i in range(1, 9):
        numer *= -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series += numer / (alpha + i) * (dbetas + factor * betas)
    with np.errstate(all="ignore"):
        result = float(-np.power(np.float64(1 - x), 1 - beta) * series)
    return 0.0 if math.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    """Reparameterized gradient of Beta(alpha, beta) in alpha for large alpha and beta
    (Rice's saddle point expansion)."""
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:  # avoid the singularity at x = mean
        poly = (47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                        8 * (1 - x) * (135 * beta - 11))))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * _pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = (beta * math.log(beta / (total * (1 - x)))
                  + alpha * math.log(alpha / (total * x)))
    term4 = _pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_DIRICHLET_GRAD_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def _dirichlet_grad_one(x: float, alpha: float, total: float) -> float:
    """-(d/dalpha cdf(x; alpha, total - alpha)) / pdf(x; ...) / (1 - x): the Beta marginal's
    reparameterized gradient, from which the Dirichlet one is assembled."""
    beta = total - alpha
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(1 - x, beta, alpha)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x, alpha, beta)
    u = _log(x)
    a = math.log(alpha) - u
    b = math.log(total) - a
    pow_u = (1.0, u, u * u)
    pow_a = (1.0, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _DIRICHLET_GRAD_C[0][i][j], _DIRICHLET_GRAD_C[1][i][j]
            p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * (_digamma_scalar(total) - _digamma_scalar(alpha)) / beta
    return p / q * approx


def _elementwise(function, *arrays: np.ndarray) -> np.ndarray:
    dtype = arrays[0].dtype
    arrays = np.broadcast_arrays(*[a.astype(np.float64) for a in arrays])
    values = [function(*args) for args in zip(*[a.reshape(-1).tolist() for a in arrays])]
    return np.array(values, dtype=np.float64).reshape(arrays[0].shape).astype(dtype)


class _StandardGammaGrad(Function):
    """torch's ``_standard_gamma_grad(alpha, sample)``; like torch's, not differentiable."""

    @staticmethod
    def forward(ctx, concentration, sample):
        values = _elementwise(_standard_gamma_grad_one, concentration.detach().numpy(),
                              sample.detach().numpy())
        return _creation.tensor(values, dtype=concentration.dtype)

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not "
                                  "implemented.")


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, concentration):
        sample = _creation.tensor(_standard_gamma_array(concentration.detach().numpy()),
                                  dtype=concentration.dtype)
        if ctx is not None:  # None: called directly, nothing to differentiate
            ctx.save_for_backward(concentration, sample)
        return sample

    @staticmethod
    def backward(ctx, g):
        concentration, sample = ctx.saved_tensors
        return g * _StandardGammaGrad.apply(concentration, sample)


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx, concentration):
        sample = _creation.tensor(_sample_dirichlet_array(concentration.detach().numpy()),
                                  dtype=concentration.dtype)
        if ctx is not None:
            ctx.save_for_backward(sample, concentration)
        return sample

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        sample, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = _creation.tensor(
            _elementwise(_dirichlet_grad_one, sample.detach().numpy(),
                         concentration.detach().numpy(), total.detach().numpy()),
            dtype=concentration.dtype)
        return grad * (g - (sample * g).sum(-1, True))


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

    def cdf(self, value):
        from ..special import gammainc

        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

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
