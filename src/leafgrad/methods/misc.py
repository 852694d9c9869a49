"""Tensor methods of the ops added for torch-namespace coverage (matrix, scatter and
elementwise extras): ops/elementwise_misc.py, ops/matrix_extra.py, ops/scatter_extra.py."""

from __future__ import annotations

from .. import _argparse
from .math import _require_tensor


def _ops():
    from .. import ops

    return ops


def _elementwise():
    from ..ops import elementwise_misc

    return elementwise_misc


def _shape():
    from ..ops import shape_misc

    return shape_misc


def _int(function: str, argument: str, position: int, value) -> int:
    """torch's argument-parser check of an int argument (a 0-d integer tensor counts)."""
    if not _argparse._is_int(value):
        raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be int, "
                        f"not {_argparse.typename(value)}")
    return int(value)


def _scatter():
    from ..ops import scatter_extra

    return scatter_extra


def _bool(function: str, argument: str, value) -> bool:
    return _argparse.bool_arg(function, argument, value)


def _check_reduce(function: str, reduce, position: int) -> None:
    if not isinstance(reduce, str):
        raise TypeError(f"{function}(): argument 'reduce' (position {position}) must be str, not "
                        f"{_argparse.typename(reduce)}")


def _matrix():
    from ..ops import matrix_extra

    return matrix_extra


def _binary(name: str, op_name: str, argument: str = "other"):
    """``Tensor.<name>(other)`` and ``Tensor.<name>_(other)`` for two tensors."""

    def method(self, other):
        _require_tensor(other, name, argument, 1)
        return getattr(_elementwise(), op_name).apply(self, other)

    def method_(self, other):
        _require_tensor(other, name + "_", argument, 1)
        return _ops().inplace(getattr(_elementwise(), op_name), self, other)

    method.__name__ = method.__qualname__ = name
    method_.__name__ = method_.__qualname__ = name + "_"
    method.__doc__ = f"Elementwise ``{name}`` (ops/elementwise_misc.py)."
    method_.__doc__ = f"In-place ``{name}``."
    return method, method_


class MiscMethods:
    __slots__ = ()

    nextafter, nextafter_ = _binary("nextafter", "Nextafter")
    ldexp, _ = _binary("ldexp", "Ldexp")
    gcd, gcd_ = _binary("gcd", "Gcd")
    lcm, lcm_ = _binary("lcm", "Lcm")

    def heaviside(self, values):
        _require_tensor(values, "heaviside", "values", 1)
        return _elementwise().heaviside(self, values)

    def heaviside_(self, values):
        _require_tensor(values, "heaviside_", "values", 1)
        return _elementwise().heaviside(self, values, inplace_form=True)

    def ldexp_(self, other):
        _require_tensor(other, "ldexp_", "other", 1)
        if not (self.dtype.is_floating_point or self.dtype.is_complex):  # self.mul_(2 ** other)
            raise RuntimeError(
                f"ldexp can't be cast to the desired output type {self.dtype._legacy}")
        return _ops().inplace(_elementwise().Ldexp, self, other)

    del _

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        if beta.__class__ is not int and beta.__class__ is not float:
            beta = _argparse.number("addr", "beta", beta)
        if alpha.__class__ is not int and alpha.__class__ is not float:
            alpha = _argparse.number("addr", "alpha", alpha)
        _require_tensor(vec1, "addr", "vec1", 1)
        _require_tensor(vec2, "addr", "vec2", 2)
        return _matrix().Addr.apply(self, vec1, vec2, beta=beta, alpha=alpha)

    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        if beta.__class__ is not int and beta.__class__ is not float or \
                alpha.__class__ is not int and alpha.__class__ is not float:
            beta, alpha = _argparse.beta_alpha("addr_", (vec1, vec2), beta, alpha)
        _require_tensor(vec1, "addr_", "vec1", 1)
        _require_tensor(vec2, "addr_", "vec2", 2)
        if vec1.ndim == 1 and vec2.ndim == 1 and self.ndim != 2:
            # (torch's addr_out checks that the output it writes is a matrix first)
            raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
        if vec1.ndim == 1 and vec2.ndim == 1 and tuple(self.shape) != (len(vec1), len(vec2)):
            raise RuntimeError(f"size mismatch, input: {list(self.shape)}, v1: "
                               f"{list(vec1.shape)}, v2: {list(vec2.shape)}")
        return _ops().inplace(_matrix().Addr, self, vec1, vec2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        if beta.__class__ is not int and beta.__class__ is not float or \
                alpha.__class__ is not int and alpha.__class__ is not float:
            beta, alpha = _argparse.beta_alpha("addbmm", (batch1, batch2), beta, alpha)
        _require_tensor(batch1, "addbmm", "batch1", 1)
        _require_tensor(batch2, "addbmm", "batch2", 2)
        return _matrix().Addbmm.apply(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        if beta.__class__ is not int and beta.__class__ is not float or \
                alpha.__class__ is not int and alpha.__class__ is not float:
            beta, alpha = _argparse.beta_alpha("addbmm_", (batch1, batch2), beta, alpha)
        _require_tensor(batch1, "addbmm_", "batch1", 1)
        _require_tensor(batch2, "addbmm_", "batch2", 2)
        return _ops().inplace(_matrix().Addbmm, self, batch1, batch2, beta=beta, alpha=alpha)

    # -- scatters (ops/scatter_extra.py) -----------------------------------------------------------
    def select_scatter(self, src, dim, index):
        _require_tensor(src, "select_scatter", "src", 1)
        return _scatter().select_scatter(self, src, _int("select_scatter", "dim", 2, dim),
                                         _int("select_scatter", "index", 3, index))

    def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
        _require_tensor(src, "slice_scatter", "src", 1)
        start = None if start is None else _int("slice_scatter", "start", 3, start)
        end = None if end is None else _int("slice_scatter", "end", 4, end)
        return _scatter().slice_scatter(self, src, _int("slice_scatter", "dim", 2, dim), start,
                                        end, _int("slice_scatter", "step", 5, step))

    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        _require_tensor(src, "diagonal_scatter", "src", 1)
        return _scatter().diagonal_scatter(
            self, src, _int("diagonal_scatter", "offset", 2, offset),
            _int("diagonal_scatter", "dim1", 3, dim1), _int("diagonal_scatter", "dim2", 4, dim2))

    def masked_scatter(self, mask, source):
        _require_tensor(mask, "masked_scatter", "mask", 1)
        _require_tensor(source, "masked_scatter", "source", 2)
        return _scatter().masked_scatter(self, mask, source)

    def masked_scatter_(self, mask, source):
        _require_tensor(mask, "masked_scatter_", "mask", 1)
        _require_tensor(source, "masked_scatter_", "source", 2)
        return _scatter().masked_scatter(self, mask, source, inplace=True)

    def index_reduce(self, dim, index, source, reduce, *, include_self=True):
        _require_tensor(source, "index_reduce", "source", 3)
        _check_reduce("index_reduce", reduce, 4)
        include_self = _bool("index_reduce", "include_self", include_self)
        return _scatter().index_reduce(self, _int("index_reduce", "dim", 1, dim), index, source,
                                       reduce, include_self)

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        _require_tensor(source, "index_reduce_", "source", 3)
        _check_reduce("index_reduce_", reduce, 4)
        include_self = _bool("index_reduce_", "include_self", include_self)
        return _scatter().index_reduce(self, _int("index_reduce_", "dim", 1, dim), index, source,
                                       reduce, include_self, inplace=True)

    # -- shape (ops/shape_misc.py) ----------------------------------------------------------------
    def unfold(self, dimension, size, step):
        """Windows of ``size`` elements, ``step`` apart, along ``dimension`` (a view).

        >>> import leafgrad as torch
        >>> torch.arange(5.).unfold(0, 2, 2)
        tensor([[0., 1.],
                [2., 3.]])
        """
        return _shape().unfold(self, _int("unfold", "dimension", 1, dimension),
                               _int("unfold", "size", 2, size), _int("unfold", "step", 3, step))

    def narrow_copy(self, dim, start, length):
        return _shape().narrow_copy(self, _int("narrow_copy", "dim", 1, dim),
                                    _int("narrow_copy", "start", 2, start),
                                    _int("narrow_copy", "length", 3, length))

    def unsafe_chunk(self, chunks, dim=0):
        return _shape().unsafe_chunk(self, _int("unsafe_chunk", "chunks", 1, chunks),
                                     _int("unsafe_chunk", "dim", 2, dim))

    def unsafe_split(self, split_size, dim=0):
        return _shape().unsafe_split(self, _int("unsafe_split", "split_size", 1, split_size),
                                     _int("unsafe_split", "dim", 2, dim))

    def unsafe_split_with_sizes(self, split_sizes, dim=0):
        if isinstance(split_sizes, int) or not _argparse._is_int_list(split_sizes):
            raise TypeError("unsafe_split_with_sizes(): argument 'split_sizes' (position 1) must "
                            f"be tuple of ints, not {_argparse.typename(split_sizes)}")
        return _shape().unsafe_split_with_sizes(
            self, [int(s) for s in split_sizes], _int("unsafe_split_with_sizes", "dim", 2, dim))

    def frexp(self):
        from .._functions_misc import frexp_result

        return frexp_result(_elementwise().Frexp.apply(self))
