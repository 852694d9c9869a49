"""MultivariateNormal: parameterized by covariance_matrix, precision_matrix or scale_tril.

Everything is computed from the lower Cholesky factor L of the covariance, as in torch:
rsample is ``loc + L @ eps`` with eps from ``empty(shape).normal_()``; log_prob solves
``L z = x - loc`` by triangular solve (the Mahalanobis term) and adds log det L.
"""

from __future__ import annotations

import math

from .. import _creation
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import _size, _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    return bmat.matmul(bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """Squared Mahalanobis distance |L^-1 x|^2, batched over L's and x's batch dims.

    x's batch dims that align with L's are folded so that one triangular solve serves all
    x sharing an L (torch's layout of the computation, so the rounding is the same).
    """
    from .. import linalg

    n = bx.size(-1)
    bx_batch_shape = tuple(bx.shape[:-1])
    bL_batch_dims = bL.dim() - 2
    outer = len(bx_batch_shape) - bL_batch_dims
    old_dims = outer + bL_batch_dims
    new_dims = outer + 2 * bL_batch_dims
    new_shape = tuple(bx.shape[:outer])
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer:-1]):
        new_shape += (sx // sL, sL)
    bx = bx.reshape(new_shape + (n,))
    permute = (list(range(outer)) + list(range(outer, new_dims, 2))
               + list(range(outer + 1, new_dims, 2)) + [new_dims])
    bx = bx.permute(permute)
    flat_L = bL.reshape(-1, n, n)
    flat_x = bx.reshape(-1, flat_L.size(0), n)
    M_swap = linalg.solve_triangular(flat_L, flat_x.permute(1, 2, 0), upper=False)
    M = M_swap.pow(2).sum(-2).t()
    permuted = M.reshape(tuple(bx.shape[:-1]))
    inverse = list(range(outer))
    for i in range(bL_batch_dims):
        inverse += [outer + i, old_dims + i]
    if inverse:  # leafgrad's permute refuses the empty permutation of a 0-d tensor
        permuted = permuted.permute(inverse)
    return permuted.reshape(bx_batch_shape)


def _precision_to_scale_tril(P):
    from .. import linalg

    Lf = linalg.cholesky(P.flip((-2, -1)))
    L_inv = Lf.flip((-2, -1)).transpose(-2, -1)
    identity = _creation.eye(P.shape[-1], dtype=P.dtype)
    return linalg.solve_triangular(L_inv, identity, upper=False)


class MultivariateNormal(Distribution):
    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        from .. import broadcast_shapes, linalg

        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(name, m) for name, m in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix),
                                           ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional "
                             "leading batch dimensions" if name == "scale_tril" else
                             f"{name} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = Size(tuple(broadcast_shapes(tuple(matrix.shape[:-2]),
                                                  tuple(loc.shape[:-1]))))
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = _size(batch_shape)
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return L.matmul(L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # torch.cholesky_inverse(L) = (L L^T)^-1; inv(L @ L.mT) has the same value and the
        # same gradient, -R (G + G^T) R L, which reaches L's upper triangle as torch's does
        from .. import linalg

        L = self._unbroadcasted_scale_tril
        return linalg.inv(L.matmul(L.mT)).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape + self._event_shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
