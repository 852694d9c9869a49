"""torch's ``sym_*`` functions on plain Python numbers (eager mode: there are no symbolic
sizes in leafgrad, so each is the Python operation torch falls back to), and a few small
top-level functions: ``norm_except_dim``, ``is_distributed``, ``init_num_threads``,
``as_strided_``."""

from __future__ import annotations

import builtins
import math

import numpy as np

__all__ = ["sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_ite",
           "sym_sum", "norm_except_dim", "is_distributed", "init_num_threads", "as_strided_"]

_NUMBERS = (np.integer, np.floating, int, float)
_FLOATS = (np.floating, float)


def sym_int(a):
    """int(a): truncation toward zero."""
    return builtins.int(a)


def sym_float(a):
    return builtins.float(a)


def sym_not(a):
    return not a


def sym_sqrt(a):
    return math.sqrt(a)


def _check_number(value) -> None:
    if not isinstance(value, _NUMBERS):
        raise AssertionError(f"expected {_NUMBERS}, got {type(value)}")


def sym_max(a, b):
    """max(a, b), a float if either is."""
    _check_number(a)
    _check_number(b)
    if isinstance(a, _FLOATS) or isinstance(b, _FLOATS):
        return builtins.float(builtins.max(a, b))
    return builtins.max(a, b)


def sym_min(a, b):
    """min(a, b), a float if either is."""
    _check_number(a)
    _check_number(b)
    if isinstance(a, _FLOATS) or isinstance(b, _FLOATS):
        return builtins.float(builtins.min(a, b))
    return builtins.min(a, b)


def sym_ite(b, t, f):
    """``t if b else f`` (b a bool; t and f of one type)."""
    if not (isinstance(b, builtins.bool) and type(t) is type(f)):
        raise AssertionError
    return t if b else f


def sym_sum(*args):
    """The sum of the numbers given (as arguments or as one iterable)."""
    if len(args) == 1 and not isinstance(args[0], _NUMBERS):
        args = args[0]
    return builtins.sum(args)


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, keeping them as size-1 dims
    (ATen's: weight norm's g); ``dim=-1``: the norm of everything."""
    from .tensor import Tensor

    if not isinstance(v, Tensor):
        raise TypeError(f"norm_except_dim(): argument 'v' (position 1) must be Tensor, not "
                        f"{type(v).__name__}")
    from .ops.native_forms import NormAll, NormDims

    if not (v.dtype.is_floating_point or v.dtype.is_complex):
        name = str(v.dtype._legacy) if hasattr(v.dtype, "_legacy") else str(v.dtype)
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {name} instead.")
    p = float(pow)
    if dim == -1:
        return NormAll.apply(v, ord=p, dim=tuple(range(v.dim())), keepdim=False)
    if dim == 0:
        size = (v.shape[0],) + (1,) * (v.dim() - 1)
        rows = v.contiguous().view(v.shape[0], -1)
        return NormDims.apply(rows, ord=p, dim=(1,), keepdim=False).view(size)
    if dim == v.dim() - 1:
        size = (1,) * (v.dim() - 1) + (v.shape[-1],)
        columns = v.contiguous().view(-1, v.shape[-1])
        return NormDims.apply(columns, ord=p, dim=(0,), keepdim=False).view(size)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def is_distributed(input) -> bool:
    """Whether ``input`` is a distributed tensor: never, in leafgrad (as on torch's CPU)."""
    from .tensor import Tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"is_distributed(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return False


def init_num_threads() -> None:
    """Set up this thread's intra-op threads: leafgrad's ops run on the caller's thread (NumPy's
    and the BLAS library's own threads are set up by them), so there is nothing to do."""


def as_strided_(input, size, stride, storage_offset=None):
    """``input.as_strided_(size, stride, storage_offset)``."""
    return input.as_strided_(size, stride, storage_offset)
