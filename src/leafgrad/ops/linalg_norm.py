"""Norms (``linalg.matrix_norm``, ``linalg.norm``) and ``matrix_power``.

``vector_norm`` is the reductions topic's op (``LinalgVectorNormBackward0``). Matrix norms are
composites built as ATen builds them, so their last node is torch's: ``'fro'`` is a vector norm
over both dims, ``'nuc'`` sums the singular values (``SumBackward1``), ``2``/``-2`` take their
``amax``/``amin``, and ``1``/``inf`` reduce a vector 1-norm with ``amax``/``amin``.
"""

from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor, _wrap
from .linalg_decomp import _check_matrix, _check_square, inv
from .linalg_factor import svdvals
from .shape import _wrap_dim
from .linalg import matmul


def vector_norm(a: Tensor, ord=2, dim=None, keepdim=False, *, dtype=None) -> Tensor:  # noqa: A002
    # The op (LinalgVectorNorm) belongs to the reductions topic; looked up at call time because
    # ops/__init__.py imports this module first.
    from .reductions_stats import vector_norm as reduce_norm

    return reduce_norm(a, ord, dim, keepdim, dtype)


def _amax(tensor: Tensor, dim: int, keepdim: bool, largest: bool) -> Tensor:
    from .reductions import amax, amin  # the reductions topic's ops (AmaxBackward0, ...)

    if largest and tensor.shape[dim] == 0:
        # a norm's maximum over nothing is 0 (torch's matrix_norm: zeros, with no history);
        # the minimum keeps amin's error
        shape = list(tensor.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        return _wrap(np.zeros(shape, dtype=tensor._data.dtype))
    return amax(tensor, dim, keepdim) if largest else amin(tensor, dim, keepdim)


def matrix_norm(a: Tensor, ord="fro", dim=(-2, -1), keepdim=False, *,  # noqa: A002
                dtype=None) -> Tensor:
    # torch checks ord first (it decides the dtype check), then A, dim and dtype
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif isinstance(ord, complex):
        raise RuntimeError("linalg.matrix_norm: Expected a non-complex scalar as the order of "
                           "norm.")
    elif abs(ord) not in (1, 2, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_format_order(ord)} not supported.")
    _check_matrix(a._data, "linalg.matrix_norm")
    if dtype is not None and a._data.dtype.kind in "fcV":  # (other inputs: vector_norm says so)
        from .reductions_stats import check_norm_dtype

        check_norm_dtype("linalg.matrix_norm", a._data, dtype)
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if len(dims) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}"
        )
    first, second = _wrap_dim(dims[0], a.ndim), _wrap_dim(dims[1], a.ndim)
    if first == second:
        raise RuntimeError(
            f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})"
        )
    if ord == "fro":
        return vector_norm(a, 2, (first, second), keepdim, dtype=dtype)
    if ord == "nuc" or abs(ord) == 2:
        # Singular values of the matrices moved to the last two dims, reduced over the last.
        order = [d for d in range(a.ndim) if d not in (first, second)] + [first, second]
        source = a if dtype is None else a.to(dtype)
        values = svdvals(source.permute(order))
        if ord == "nuc":
            result = values.sum(-1, keepdim=keepdim)
        else:
            result = _amax(values, -1, keepdim, ord > 0)
        if keepdim:
            back = [0] * a.ndim
            for position, d in enumerate(order):
                back[d] = position
            result = result.unsqueeze(-1).permute(back)
        return result
    # 1 / inf: a vector 1-norm down one dim, then the max (or min) across the other
    if abs(ord) == math.inf:
        first, second = second, first
    if not keepdim and first < second:
        second -= 1
    column_norms = vector_norm(a, 1, (first,), keepdim, dtype=dtype)
    return _amax(column_norms, second, keepdim, ord > 0)


def _format_order(ord) -> str:  # noqa: A002
    return str(int(ord)) if float(ord).is_integer() else str(ord)


def norm(a: Tensor, ord=None, dim=None, keepdim=False, *, dtype=None) -> Tensor:  # noqa: A002
    """torch.linalg.norm: a matrix norm for ``ord`` with 2 dims, else a vector norm."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}"
            )
    else:
        dims = None
    if isinstance(ord, str):
        if dims is None and a.ndim not in (1, 2):
            raise RuntimeError(
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                f"Got {a.ndim}D."
            )
        return matrix_norm(a, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    if ord is not None:
        if dims is None and a.ndim not in (1, 2):
            raise RuntimeError(
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                f"Got {a.ndim}D."
            )
        if (dims is not None and len(dims) == 2) or (dims is None and a.ndim == 2):
            return matrix_norm(a, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(a, 2 if ord is None else ord, dims, keepdim, dtype=dtype)


def matrix_power(a: Tensor, n: int) -> Tensor:
    """A^n by repeated squaring (A^-n = inv(A)^n), with torch's chain of matmuls."""
    _check_square(a._data, "linalg.matrix_power")
    if n == 0:
        from .._creation import eye

        return a.clone().copy_(eye(a.shape[-1], dtype=a.dtype).expand(a.shape))
    if n < 0:
        a = inv(a)
        n = -n
        if n == 1:
            return a
    elif n == 1:
        return a.clone()
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    square = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        square = a if square is None else matmul(square, square)
        if bit:
            result = square if result is None else matmul(result, square)
    return result
