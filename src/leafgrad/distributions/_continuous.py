"""FisherSnedecor, GeneralizedPareto, ContinuousBernoulli and VonMises.

Sampling consumes the generator as torch does: FisherSnedecor draws two Gammas (df1 first),
GeneralizedPareto and ContinuousBernoulli push ``rand`` through their icdf, VonMises runs
torch's rejection loop (Best and Fisher) in float64 on ``rand((3,) + shape)`` blocks until
every element is accepted.
"""

from __future__ import annotations

import math

from .. import _creation, _dtype
from ..autograd.grad_mode import no_grad
from ..tensor import Size
from . import constraints
from ._gamma import Gamma
from .distribution import Distribution, ExponentialFamily
from .utils import (_is_number, _size, broadcast_all, clamp_probs, lazy_property,
                    logits_to_probs, probs_to_logits)

__all__ = ["FisherSnedecor", "GeneralizedPareto", "ContinuousBernoulli", "VonMises"]


def _where(condition, a, b):
    from .. import where

    return where(condition, a, b)


def _tiny(dtype) -> float:
    from .utils import _finfo

    return float(_finfo(dtype).tiny)


class FisherSnedecor(Distribution):
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        batch_shape = (Size() if _is_number(df1) and _is_number(df2) else self.df1.size())
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = _size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        df2 = self.df2.clone()
        df2[df2 <= 2] = math.nan
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        mode[self.df1 <= 2] = math.nan
        return mode

    @property
    def variance(self):
        df2 = self.df2.clone()
        df2[df2 <= 4] = math.nan
        return (2 * df2.pow(2) * (self.df1 + df2 - 2)
                / (self.df1 * (df2 - 2).pow(2) * (df2 - 4)))

    def rsample(self, sample_shape=Size(())):
        shape = tuple(self._extended_shape(sample_shape))
        # X1 / X2 with Xi ~ Gamma(dfi / 2, dfi), i.e. chi2(dfi) / dfi; kept positive
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = _tiny(x2.dtype)
        x2.clamp_(min=tiny)
        y = x1 / x2
        y.clamp_(min=tiny)
        return y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * value.log()
        t3 = (ct1 + ct2) * (ct3 * value).log1p()
        return t1 + t2 - t3


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers = _is_number(loc) and _is_number(scale) and _is_number(concentration)
        batch_shape = Size() if numbers else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = _size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        u = _creation.rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe_concentration(self, reference):
        """concentration with (near-)zero entries replaced by 1: the xi == 0 limit (the
        exponential distribution) is taken by a separate branch, as in torch."""
        from .. import isclose

        eq_zero = isclose(self.concentration, reference)
        return eq_zero, _where(eq_zero, _creation.ones_like(self.concentration),
                               self.concentration)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration(_creation.tensor(0.0))
        y = 1 / safe_conc + _creation.ones_like(z)
        where_nonzero = _where(y == 0, y, y * (safe_conc * z).log1p())
        return -self.scale.log() - _where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration(_creation.tensor(0.0))
        where_nonzero = -(safe_conc * z).log1p() / safe_conc
        return _where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        eq_zero, safe_conc = self._safe_concentration(
            _creation.zeros_like(self.concentration))
        logu = (-value).log1p()
        where_nonzero = self.loc + self.scale / safe_conc * (-safe_conc * logu).expm1()
        where_zero = self.loc - self.scale * logu
        return _where(eq_zero, where_zero, where_nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = _where(valid, self.concentration, 0.5)
        return _where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = _where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return _where(valid, result, math.nan)

    def entropy(self):
        from .. import broadcast_to

        return broadcast_to(self.scale.log() + self.concentration + 1,
                            tuple(self._batch_shape))

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = _where(self.concentration < 0, lower - self.scale / self.concentration,
                       math.inf)
        return constraints.interval(lower, upper)


class ContinuousBernoulli(ExponentialFamily):
    """Loaiza-Ganem and Cunningham's continuous Bernoulli on [0, 1]. Near probs = 1/2 the
    closed forms are 0/0, so probs in ``lims`` use torch's Taylor expansions instead."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = _is_number(probs)
            (self.probs,) = broadcast_all(probs)
            # torch checks probs here (before clamping) whenever validate_args is given,
            # even as False
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = _is_number(logits)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = _size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return _where(self._outside_unstable_region(), self.probs,
                      self._lims[0] * _creation.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        cut_probs = self._cut_probs()
        below_half = _where(cut_probs <= 0.5, cut_probs, _creation.zeros_like(cut_probs))
        above_half = _where(cut_probs >= 0.5, cut_probs, _creation.ones_like(cut_probs))
        log_norm = ((((-cut_probs).log1p() - cut_probs.log()).abs()).log()
                    - _where(cut_probs <= 0.5, (-2.0 * below_half).log1p(),
                             (2.0 * above_half - 1.0).log()))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = (cut_probs / (2.0 * cut_probs - 1.0)
               + 1.0 / ((-cut_probs).log1p() - cut_probs.log()))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return _where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        variances = (cut_probs * (cut_probs - 1.0) / (1.0 - 2.0 * cut_probs).pow(2)
                     + 1.0 / ((-cut_probs).log1p() - cut_probs.log()).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=Size()):
        u = _creation.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        u = _creation.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        from ..nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = ((cut_probs.pow(value) * (1.0 - cut_probs).pow(1.0 - value) + cut_probs - 1.0)
                / (2.0 * cut_probs - 1.0))
        unbounded = _where(self._outside_unstable_region(), cdfs, value)
        return _where(value <= 0.0, _creation.zeros_like(value),
                      _where(value >= 1.0, _creation.ones_like(value), unbounded))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        inverted = (((-cut_probs + value * (2.0 * cut_probs - 1.0)).log1p()
                     - (-cut_probs).log1p())
                    / (cut_probs.log() - (-cut_probs).log1p()))
        return _where(self._outside_unstable_region(), inverted, value)

    def entropy(self):
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return (self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm()
                - log_probs0)

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = _where(outside, x, (self._lims[0] - 0.5) * _creation.ones_like(x))
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return _where(outside, log_norm, taylor)


# Abramowitz and Stegun 9.8.1-9.8.4 polynomials for I0 and I1, as torch's VonMises uses them
# (log I_order(x): the small form below x = 3.75, the exponentially scaled one above).
_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_COEF_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
                  -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2]
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2,
                  0.32411e-3]
_I1_COEF_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
                  0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2]


def _eval_poly(y, coefficients):
    result = coefficients[-1]
    for coefficient in reversed(coefficients[:-1]):
        result = coefficient + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    from .. import where

    small_coef, large_coef = ((_I0_COEF_SMALL, _I0_COEF_LARGE) if order == 0
                              else (_I1_COEF_SMALL, _I1_COEF_LARGE))
    y = x / 3.75
    y = y * y
    small = _eval_poly(y, small_coef)
    if order == 1:
        small = x.abs() * small
    small = small.log()
    y = 3.75 / x
    large = x - 0.5 * x.log() + _eval_poly(y, large_coef).log()
    return where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    from .. import where

    done = _creation.zeros(tuple(x.shape), dtype=_dtype.bool)
    while not done.all():
        u1, u2, u3 = _creation.rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind()
        z = (math.pi * u1).cos()
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * (value - self.loc).cos()
        return (log_prob - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @lazy_property
    def _loc(self):
        return self.loc.to(_dtype.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(_dtype.double)

    @lazy_property
    def _proposal_r(self):
        from .. import where

        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho ** 2) / (2 * rho)
        proposal_r_taylor = 1 / kappa + kappa  # small kappa: rho cancels catastrophically
        return where(kappa < 1e-5, proposal_r_taylor, proposal_r)

    def sample(self, sample_shape=Size()):
        with no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            x = _creation.empty(shape, dtype=self._loc.dtype)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r,
                                     x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
