"""CatTransform and StackTransform (a transform per slice of one dimension) and
CorrCholeskyTransform (unconstrained vectors to Cholesky factors of correlation matrices);
``transforms`` re-exports them, as torch's module holds them all."""

from __future__ import annotations

import math

from . import constraints
from .transforms import Transform
from .utils import _finfo, _sum_rightmost, lazy_property, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["CatTransform", "StackTransform", "CorrCholeskyTransform"]


def _check_dim(tensor, dim, name):
    if not -tensor.dim() <= dim < tensor.dim():
        raise AssertionError(f"dim {dim} out of range for {name} with {tensor.dim()} "
                             "dimensions")


def _check_size(tensor, dim, expected, what, name):
    if tensor.size(dim) != expected:
        raise AssertionError(f"{name}.size({dim}) = {tensor.size(dim)} must equal {what} "
                             f"{expected}")


def _all_transforms(tseq):
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")


class CatTransform(Transform):
    """Applies ``tseq[i]`` to the i-th block (of ``lengths[i]`` entries) along ``dim``."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        _all_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list([1] * len(self.transforms) if lengths is None else lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _blocks(self, tensor, name):
        _check_dim(tensor, self.dim, name)
        _check_size(tensor, self.dim, self.length, "length", name)
        start = 0
        for transform, length in zip(self.transforms, self.lengths):
            yield transform, tensor.narrow(self.dim, start, length)
            start = start + length

    def _call(self, x):
        from .. import cat

        _check_dim(x, self.dim, "tensor")
        return cat([t(block) for t, block in self._blocks(x, "x")], dim=self.dim)

    def _inverse(self, y):
        from .. import cat

        _check_dim(y, self.dim, "tensor")
        return cat([t.inv(block) for t, block in self._blocks(y, "y")], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        from .. import cat

        x_blocks = list(self._blocks(x, "x"))
        y_blocks = list(self._blocks(y, "y"))
        logdetjacs = []
        for (transform, x_block), (_, y_block) in zip(x_blocks, y_blocks):
            logdetjac = transform.log_abs_det_jacobian(x_block, y_block)
            if transform.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - transform.event_dim)
            logdetjacs.append(logdetjac)
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        # the concatenated dimension survives in the Jacobian only if it is a batch one
        if dim < 0:
            return cat(logdetjacs, dim=dim)
        return sum(logdetjacs)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies ``tseq[i]`` to ``x.select(dim, i)``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        _all_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _checked_slices(self, tensor, label, name):
        _check_dim(tensor, self.dim, label)
        _check_size(tensor, self.dim, len(self.transforms), "len(transforms)", name)
        return self._slice(tensor)

    def _call(self, x):
        from .. import stack

        slices = self._checked_slices(x, "tensor", "x")
        return stack([t(s) for s, t in zip(slices, self.transforms)], dim=self.dim)

    def _inverse(self, y):
        from .. import stack

        slices = self._checked_slices(y, "tensor", "y")
        return stack([t.inv(s) for s, t in zip(slices, self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        from .. import stack

        x_slices = self._checked_slices(x, "x", "x")
        y_slices = self._checked_slices(y, "y", "y")
        return stack([t.log_abs_det_jacobian(xs, ys)
                      for xs, ys, t in zip(x_slices, y_slices, self.transforms)], dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


def _pad_front(x, value):
    from ..nn.functional import pad

    return pad(x, [1, 0], value=value)


class CorrCholeskyTransform(Transform):
    """A vector of D(D-1)/2 reals to the lower Cholesky factor of a D x D correlation matrix:
    tanh maps each entry to a partial correlation in (-1, 1), stick breaking fills each row so
    that it has unit norm (Lewandowski, Kurowicka and Joe; torch's construction)."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        from .. import eye

        x = x.tanh()
        eps = float(_finfo(x.dtype).eps)
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        z = r ** 2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        r = r + eye(r.shape[-1], dtype=r.dtype)
        return r * _pad_front(z1m_cumprod_sqrt[..., :-1], 1)

    def _inverse(self, y):
        y_cumsum = 1 - (y * y).cumsum(dim=-1)
        y_cumsum_shifted = _pad_front(y_cumsum[..., :-1], 1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        from ..nn.functional import softplus

        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        # log(1 - tanh(x)^2), stable for large |x|
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        count = shape[-1]
        size = round((0.25 + 2 * count) ** 0.5 + 0.5)
        if size * (size - 1) // 2 != count:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (size, size)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        size = shape[-1]
        return shape[:-2] + (size * (size - 1) // 2,)
