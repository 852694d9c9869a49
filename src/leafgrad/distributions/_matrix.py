"""Wishart and LKJCholesky: distributions over matrices.

Wishart samples by Bartlett's decomposition as torch does (chi-square diagonal from
``Chi2.rsample``, then ``randn`` below the diagonal), including torch 2.13's resampling step:
torch tests the sample with ``support.check`` and treats a *valid* (positive definite) result
as singular, so it warns "Singular sample detected." and draws the flagged samples once more.
That second draw is part of torch's stream, so it is replayed here (seeded samples match).

LKJCholesky samples by torch's onion method: Beta marginals, then a ``randn`` direction on
each row's hypersphere.
"""

from __future__ import annotations

import math
import warnings

from .. import _creation
from ..autograd.function import Function
from ..tensor import Size
from . import constraints
from ._gamma import Beta, Chi2
from ._mvn import _precision_to_scale_tril
from .distribution import Distribution, ExponentialFamily
from .utils import _finfo, _is_number, _size, broadcast_all, lazy_property, torch_text

__all__ = ["Wishart", "LKJCholesky"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p: int):
    """Multivariate digamma: sum over i < p of digamma(x - i / 2)."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = _creation.arange(p, dtype=x.dtype).div(2).expand(tuple(x.shape) + (-1,))
    return (x.unsqueeze(-1) - halves).digamma().sum(-1)


class _CholeskySolve(Function):
    """``cholesky_solve(B, L)`` with torch's gradient for the factor: torch differentiates
    ``(L L^H)^-1 B`` with L as a full matrix, so the factor's gradient is
    ``-(C + C^H) L`` with ``C = cholesky_solve(gX, L) X^H``, not confined to the lower
    triangle (leafgrad's composite cholesky_solve gives only its lower triangle)."""

    @staticmethod
    def forward(ctx, b, factor):
        from .. import cholesky_solve

        result = cholesky_solve(b.detach(), factor.detach())
        ctx.save_for_backward(factor, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        from .. import cholesky_solve

        factor, result = ctx.saved_tensors
        grad_b = cholesky_solve(grad, factor)
        common = grad_b @ result.mH
        grad_factor = -(common + common.mH) @ factor
        return grad_b, grad_factor


def _cholesky_solve(b, factor):
    from .. import broadcast_shapes

    if b.requires_grad or factor.requires_grad:
        batch = tuple(broadcast_shapes(tuple(b.shape[:-2]), tuple(factor.shape[:-2])))
        return _CholeskySolve.apply(b.expand(batch + tuple(b.shape[-2:])),
                                    factor.expand(batch + tuple(factor.shape[-2:])))
    from .. import cholesky_solve

    return cholesky_solve(b, factor)


def _clamp_above_eps(x):
    return x.clamp(min=float(_finfo(x.dtype).eps))


class Wishart(ExponentialFamily):
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        from .. import broadcast_shapes, linalg

        given = [p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if _is_number(df):
            batch_shape = Size(tuple(param.shape[:-2]))
            self.df = _creation.tensor(df, dtype=param.dtype)
        else:
            batch_shape = Size(tuple(broadcast_shapes(tuple(param.shape[:-2]),
                                                      tuple(df.shape))))
            self.df = df.expand(tuple(batch_shape))
        event_shape = Size(tuple(param.shape[-2:]))
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(torch_text(f"Value of df={df} expected to be greater than ndim - 1 "
                                        f"= {event_shape[-1] - 1}."))
        full = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = param.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(full)
        else:
            self.precision_matrix = param.expand(full)
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2(self.df, batch_shape)

    def _chi2(self, df, batch_shape):
        # the i-th diagonal entry of Bartlett's factor is sqrt(chi2(df - i))
        offsets = _creation.arange(self._event_shape[-1],
                                   dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df=df.unsqueeze(-1) - offsets.expand(tuple(batch_shape) + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = _size(batch_shape)
        cov_shape = tuple(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(tuple(batch_shape))
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        new._event_shape = self.event_shape
        new._dist_chi2 = new._chi2(new.df, batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(
            tuple(self._batch_shape + self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.transpose(-2, -1)).expand(tuple(self._batch_shape
                                                            + self._event_shape))

    @lazy_property
    def precision_matrix(self):
        from .. import eye

        identity = eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return _cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(
            tuple(self._batch_shape + self._event_shape))

    def _df_matrix(self, df):
        return df.view(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        from .. import einsum

        covariance = self.covariance_matrix
        diagonal = covariance.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix(self.df) * (covariance.pow(2)
                                           + einsum("...i,...j->...ij", diagonal, diagonal))

    def _bartlett_sampling(self, sample_shape=Size()):
        from .. import randn, tril_indices

        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(
            dim1=-2, dim2=-1)
        i, j = tril_indices(p, p, offset=-1)
        noise[..., i, j] = randn(tuple(_size(sample_shape) + self._batch_shape)
                                 + (int(p * (p - 1) / 2),), dtype=noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=Size(), max_try_correction=None):
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = _size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # torch 2.13 names the support check "is_singular" although it is True for a valid
        # sample; its retry loop therefore redraws valid samples. Replayed as is (see the
        # module docstring).
        is_singular = self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if is_singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(tuple(is_singular[is_singular].shape))
                # indexed with a copy: is_singular is rewritten below, and leafgrad's index_put
                # reads its index again in the backward (torch refuses that backward instead)
                sample[is_singular.clone()] = sample_new
                is_singular_new = ~self.support.check(sample_new)
                if self._batch_shape:
                    is_singular_new = is_singular_new.amax(self._batch_dims)
                is_singular[is_singular.clone()] = is_singular_new
                if not is_singular.any():
                    break
        return sample

    def log_prob(self, value):
        from .. import linalg, mvlgamma

        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (-nu * (p * _LOG_2 / 2 + log_det_scale) - mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
                - _cholesky_solve(value, self._unbroadcasted_scale_tril)
                .diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2)

    def entropy(self):
        from .. import mvlgamma

        nu = self.df
        p = self._event_shape[-1]
        log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_det_scale) + mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        from .. import linalg, mvlgamma

        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + mvlgamma(y + (p + 1) / 2, p=p))


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        from .. import cat

        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # Beta(i / 2, concentration + (dim - 2 - i) / 2) marginals of the onion method
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = _creation.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = _size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(tuple(batch_shape))
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        from .. import randn

        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :].fill_(0.0)  # the first row is e1: its norm was 0
        w = y.sqrt() * u_hypersphere
        eps = float(_finfo(w.dtype).tiny)
        diag_elems = (1 - (w ** 2).sum(dim=-1)).clamp(min=eps).sqrt()
        w += diag_elems.diag_embed()
        return w

    def log_prob(self, value):
        from .. import mvlgamma

        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = _creation.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = alpha.lgamma() * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
