"""LowRankMultivariateNormal: covariance W W^T + diag(D), computed through the m x m
capacitance matrix I + W^T D^-1 W (Woodbury), as torch does."""

from __future__ import annotations

import math

from ..tensor import Size
from . import constraints
from ._mvn import _batch_mahalanobis, _batch_mv
from .distribution import Distribution
from .utils import _size, _standard_normal, lazy_property, torch_text

__all__ = ["LowRankMultivariateNormal"]


def _add_identity(K, m):
    """K + I. torch adds in place on a contiguous copy (K.view(-1, m*m)[:, ::m+1] += 1); the
    same values and gradients out of place, since leafgrad's view of that copy fails for
    some matmul results (their contiguous() keeps NumPy's strides)."""
    from .. import _creation

    return K + _creation.eye(m, dtype=K.dtype)


def _batch_capacitance_tril(W, D):
    from .. import linalg

    m = W.size(-1)
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return linalg.cholesky(_add_identity(Wt_Dinv.matmul(W), m))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    term1 = (x.pow(2) / D).sum(-1)
    term2 = _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)
    return term1 - term2


class LowRankMultivariateNormal(Distribution):
    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        from .. import broadcast_tensors

        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(torch_text(f"cov_diag must be a batch of vectors with shape "
                                        f"{event_shape}"))
        try:
            loc_, self.cov_factor, cov_diag_ = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except (RuntimeError, ValueError) as error:  # leafgrad's broadcast_tensors raises
            raise ValueError(torch_text(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                                        f"{cov_factor.shape}, cov_diag {cov_diag.shape}")) from error
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = _size(batch_shape)
        loc_shape = tuple(batch_shape + self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    def _shape(self, *parts):
        return tuple(self._batch_shape) + tuple(self._event_shape) * len(parts)

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(self._shape(1))

    @lazy_property
    def scale_tril(self):
        from .. import linalg

        n = self._event_shape[0]
        diag_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / diag_sqrt
        K = _add_identity(Dinvsqrt_W.matmul(Dinvsqrt_W.mT), n)
        return (diag_sqrt * linalg.cholesky(K)).expand(self._shape(1, 1))

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return (W.matmul(W.mT) + self._unbroadcasted_cov_diag.diag_embed()).expand(
            self._shape(1, 1))

    @lazy_property
    def precision_matrix(self):
        from .. import linalg

        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        return (self._unbroadcasted_cov_diag.reciprocal().diag_embed() - A.mT @ A).expand(
            self._shape(1, 1))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        W_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_W = _standard_normal(W_shape, dtype=self.loc.dtype)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                       self._unbroadcasted_cov_diag, diff,
                                       self._capacitance_tril)
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                        self._unbroadcasted_cov_diag, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                        self._unbroadcasted_cov_diag, self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
