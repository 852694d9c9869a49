"""``nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as parametrizations
(see parametrize.py), with torch's parameter names, RNG use and update rules.

``spectral_norm`` keeps buffers ``_u`` and ``_v`` in the parametrization module: both are
drawn with ``normal_(0, 1)`` (u first) from the default generator, normalised, then improved by
15 power iterations at registration; every forward in training mode runs
``n_power_iterations`` more, in place, without recording. ``orthogonal`` maps a matrix onto the orthogonal ones (matrix exponential, Cayley map or
Householder product of a free matrix, times a base set on assignment).
"""

from __future__ import annotations

import enum

from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """``module.<name> = g * v / ||v||`` with ``original0`` = g and ``original1`` = v."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                    unexpected_keys, error_msgs):
        # checkpoints of the old hook-based weight_norm name the tensors <name>_g, <name>_v
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._load_state_dict_pre_hooks[object()] = compat_hook
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._reshape_weight_to_matrix(weight)
            h, w = matrix.shape
            u = matrix.new_empty(h).normal_(0, 1)
            v = matrix.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(matrix, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(matrix.mv(self._v), dim=0, eps=self.eps))
                # (torch: weight_mat.H, the conjugate transpose, for complex weights)
                adjoint = matrix.t().conj() if matrix.is_complex() else matrix.t()
                self._v.copy_(F.normalize(adjoint.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        matrix = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.vdot(matrix.mv(v)) if u.is_complex() else u.dot(matrix.mv(v))  # torch: vdot
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """``module.<name>`` divided by its largest singular value, estimated by power
    iteration."""
    weight = getattr(module, name, None)
    from ...tensor import Tensor

    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d,
                                       ConvTranspose3d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# -- orthogonal -------------------------------------------------------------------------------------
class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


def _orthonormal_q(a):
    """The Q of ``a = Q R`` (a tall) with R's diagonal made non-negative (signs moved into Q)."""
    from ... import geqrf, linalg

    packed, tau = geqrf(a)
    q = linalg.householder_product(packed, tau)
    return q * packed.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _is_orthonormal(q) -> bool:
    from ... import allclose, eye, finfo

    n, k = q.shape[-2], q.shape[-1]
    tolerance = 10.0 * n * finfo(q.dtype).eps
    return allclose(q.mH @ q, eye(k, dtype=q.dtype), atol=tolerance)


class _Orthogonal(Module):
    """The parametrization of ``orthogonal``: a square (or tall, transposed when wide) matrix
    mapped onto the orthogonal (unitary) ones by the matrix exponential or the Cayley map of a
    skew matrix made from its lower triangle, or by a product of Householder reflections; with
    ``use_trivialization`` the result is multiplied by the buffer ``base``, set on assignment."""

    def __init__(self, weight, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        from ... import cat, eye, linalg, matrix_exp

        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:  # the tall matrix as the first k columns of a square one
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:  # (I + A/2)(I - A/2)^-1
                identity = eye(n, dtype=A.dtype)
                Q = linalg.solve(identity.add(A, alpha=-0.5), identity.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            # X's diagonal holds the signs (+-1) of Q's columns, never differentiated
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @no_grad()
    def right_inverse(self, Q):
        from ... import cat, geqrf, randn, zeros_like

        if Q.shape != self.shape:
            raise ValueError("Expected a matrix or batch of matrices of shape "
                             f"{parametrize._sz(self.shape)}. Got a tensor of shape "
                             f"{parametrize._sz(Q.shape)}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False.")
            # the Householder form of Q's QR decomposition, R's diagonal positive
            A, tau = geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1  # LAPACK's skipped reflections
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthonormal(Q) else _orthonormal_q(Q)
        else:  # completed to a square orthogonal matrix by random columns
            extra = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
            Q = _orthonormal_q(cat([Q, extra], dim=-1))
        self.base = Q
        # -I: the forward of zeros is the identity for every map (householder reads the signs)
        neg_identity = zeros_like(Q_init)
        neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_identity


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain ``module.<name>`` (a matrix or batch of them) to orthogonal (unitary) values.

    >>> layer = orthogonal(leafgrad.nn.Linear(3, 3))
    >>> bool((layer.weight.T @ layer.weight - leafgrad.eye(3)).abs().max() < 1e-5)
    True
    """
    from ...tensor import Tensor

    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_map = getattr(_OrthMaps, orthogonal_map, None)
    if orth_map is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrization = _Orthogonal(weight, orth_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, parametrization, unsafe=True)
    return module
