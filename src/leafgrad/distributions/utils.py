"""torch.distributions.utils: broadcasting of parameters, probs <-> logits, lazy properties."""

from __future__ import annotations

import math
import numbers

import numpy as np

from .. import _creation, _dtype
from ..autograd.grad_mode import enable_grad
from ..tensor import Size, Tensor

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni

_NUMBER = (numbers.Number,)


def torch_text(text: str) -> str:
    """A message as torch prints it: the sizes and dtypes in it named torch's
    (``torch.Size([2])``, ``dtype=torch.float64``) where leafgrad's reprs name leafgrad."""
    return text.replace("leafgrad.Size(", "torch.Size(").replace("dtype=leafgrad.", "dtype=torch.")


def _is_number(value) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, Tensor)


def broadcast_all(*values):
    """Broadcast tensors and numbers together; numbers take the first tensor's dtype."""
    if not all(isinstance(v, Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    from .. import broadcast_tensors

    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)),
                     _dtype.get_default_dtype())
        values = [v if isinstance(v, Tensor) else _creation.tensor(v, dtype=dtype)
                  for v in values]
    # torch's broadcast_tensors hands back, untouched, every tensor already of the broadcast
    # shape (no ExpandBackward0 node, the same object); leafgrad's expands them all.
    shape = tuple(broadcast_tensors(*[v.detach() for v in values])[0].shape)
    return tuple(v if tuple(v.shape) == shape else v.expand(shape) for v in values)


def _finfo(dtype):
    return np.finfo(dtype.np)


def _standard_normal(shape, dtype, device=None) -> Tensor:
    """N(0, 1) draws as torch's ``empty(shape).normal_()`` makes them."""
    return _creation.empty(tuple(shape), dtype=dtype).normal_()


def _exponential(shape, dtype) -> Tensor:
    """``empty(shape).exponential_()``: torch's CPU kernel, -log1p(-u) of a 53-bit uniform.

    A private helper while ``Tensor.exponential_`` is not in main: one 64-bit draw per
    element, computed in double with the C library's log1p, then rounded to ``dtype``.
    """
    from .. import _rng

    gen = _rng._generator(None)
    count = int(math.prod(shape))
    u = _rng._uniform53(gen, count)
    values = -1.0 * _rng._libm_map(math.log1p, -u)
    return _creation.tensor(values.astype(dtype.np).reshape(tuple(shape)), dtype=dtype)


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    eps = float(_finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


class lazy_property:
    """Computed on first access (with grad enabled), then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = getattr(wrapped, "__doc__", None)
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)
        lazy_property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int) -> Tensor:
    rows = np.arange(n).reshape(-1, 1)
    return _creation.tensor(np.arange(n) < rows + (diag + 1))


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1]
                            + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > float(_finfo(vec.dtype).eps):
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


def _size(shape) -> Size:
    return shape if isinstance(shape, Size) else Size(tuple(shape))


def _cauchy(shape, dtype) -> Tensor:
    """``empty(shape).cauchy_()``: torch's CPU kernel, tan(pi * (u - 0.5)) of a 53-bit uniform
    with the C library's tan, rounded to ``dtype`` (a private helper, as ``_exponential``)."""
    from .. import _rng

    gen = _rng._generator(None)
    u = _rng._uniform53(gen, int(math.prod(shape)))
    values = _rng._libm_map(math.tan, math.pi * (u - 0.5))
    return _creation.tensor(values.astype(dtype.np).reshape(tuple(shape)), dtype=dtype)
