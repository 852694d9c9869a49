"""Tensor methods of the math ops added with the namespace-coverage work: distances
(ops/distance.py) and special functions (ops/special_fns.py)."""

from __future__ import annotations

import numpy as _np

from . import lazy_ops as _ops
from .math import _require_tensor, _tensor_type
from .. import _argparse
from .._dtype import get_default_dtype


def _check_number(name: str, value, got: str = ""):
    """A Tensor-or-Number argument given a non-tensor: the number as torch's parser reads it
    (``_argparse.operand``), or its error listing ``got`` and the value."""
    if value.__class__ in _argparse.NUMBERS:
        return value
    if isinstance(value, complex) or isinstance(value, _np.generic) and \
            value.dtype.kind in "biufc":
        return _argparse.operand(name, value, ())
    raise TypeError(f"{name}() received an invalid combination of arguments - got "
                    f"({got}{_argparse.typename(value)}), but expected one of:")


def _special(name: str, op_name: str):
    """``Tensor.<name>()`` and ``Tensor.<name>_()`` for a unary op of ops/special_fns.py."""

    def method(self):
        return getattr(_ops.special_fns, op_name).apply(self)

    def method_(self):
        return _ops.inplace(getattr(_ops.special_fns, op_name), self)

    method.__name__ = method.__qualname__ = name
    method_.__name__ = method_.__qualname__ = name + "_"
    method.__doc__ = f"Elementwise ``{name}`` (see ops/special_fns.py, {op_name})."
    method_.__doc__ = f"In-place ``{name}``."
    return method, method_


def _binary(name: str, op_name: str):
    def method(self, other):
        _require_tensor(other, name, "other", 1)
        return getattr(_ops.special_fns, op_name).apply(self, other)

    def method_(self, other):
        _require_tensor(other, name + "_", "other", 1)
        return _ops.inplace(getattr(_ops.special_fns, op_name), self, other)

    method.__name__ = method.__qualname__ = name
    method_.__name__ = method_.__qualname__ = name + "_"
    return method, method_


def _check_polygamma(n, function: str = "polygamma") -> int:
    if n.__class__ is not int:
        n = _argparse.int_arg(function, "n", n, 1)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return n


def _check_mvlgamma(p, tensor, function: str = "mvlgamma") -> int:
    if p.__class__ is not int:
        p = _argparse.int_arg(function, "p", p, 1)
    if tensor._data.dtype.kind == "b":  # (torch's mvlgamma_check, before p's)
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return p


class MathExtraMethods:
    __slots__ = ()

    def dist(self, other, *args, **kwargs):
        """The p-norm of ``self - other`` (p: positional or keyword, as torch's error tells)."""
        from .._functions_math_extra import _dist_arguments

        _dist_arguments(args, kwargs, 2)
        return _ops.dist(self, other, args[0] if args else kwargs.get("p", 2),
                         _position=2 if args else None)

    lgamma, lgamma_ = _special("lgamma", "Lgamma")
    digamma, digamma_ = _special("digamma", "Digamma")
    i0, i0_ = _special("i0", "I0")
    sinc, sinc_ = _special("sinc", "Sinc")
    deg2rad, deg2rad_ = _special("deg2rad", "Deg2Rad")
    rad2deg, rad2deg_ = _special("rad2deg", "Rad2Deg")
    igamma, igamma_ = _binary("igamma", "Igamma")
    igammac, igammac_ = _binary("igammac", "Igammac")

    def copysign(self, other):
        if isinstance(other, _tensor_type()):
            return _ops.special_fns.Copysign.apply(self, other)
        other = _check_number("copysign", other)
        return _ops.special_fns.CopysignScalar.apply(self, other=other)

    def copysign_(self, other):
        if isinstance(other, _tensor_type()):
            return _ops.inplace(_ops.special_fns.Copysign, self, other)
        other = _check_number("copysign_", other)
        return _ops.inplace(_ops.special_fns.CopysignScalar, self, other=other)

    def polygamma(self, n):
        return _ops.special_fns.Polygamma.apply(self, n=_check_polygamma(n))

    def polygamma_(self, n):
        return _ops.inplace(_ops.special_fns.Polygamma, self,
                            n=_check_polygamma(n, "polygamma_"))

    def mvlgamma(self, p):
        return _ops.special_fns.Mvlgamma.apply(self, p=_check_mvlgamma(p, self))

    def mvlgamma_(self, p):
        p = _check_mvlgamma(p, self, "mvlgamma_")
        if self._data.dtype.kind in "iu":  # torch's message names self's dtype as the result's

            raise RuntimeError(f"mvlgamma: result type {self.dtype._legacy} can't be cast to "
                               f"the desired output type {get_default_dtype()._legacy}")
        return _ops.inplace(_ops.special_fns.Mvlgamma, self, p=p)

    def logit(self, eps=None):
        if eps is not None and eps.__class__ is not float and eps.__class__ is not int:
            eps = _argparse.number("logit", "eps", eps, 1, kind="float")
        return _ops.special_fns.Logit.apply(self, eps=None if eps is None else float(eps))

    def logit_(self, eps=None):
        if eps is not None and eps.__class__ is not float and eps.__class__ is not int:
            eps = _argparse.number("logit_", "eps", eps, 1, kind="float")
        return _ops.inplace(_ops.special_fns.Logit, self,
                            eps=None if eps is None else float(eps))

    # -- torch's composites (leafgrad/_functions_composites.py) -------------------------------
    @_argparse.declared("Tensor.diff")
    def diff(self, n=1, dim=-1, prepend=None, append=None):
        from .._functions_composites import diff

        if n.__class__ is not int:
            n = _argparse.int_arg("diff", "n", n, 1)

        return diff(self, n, dim, prepend, append)

    @_argparse.declared("Tensor.tensor_split")
    def tensor_split(self, indices_or_sections, dim=0):
        from .._functions_composites import tensor_split

        return tensor_split(self, indices_or_sections, dim)

    def hsplit(self, indices_or_sections):
        from .._functions_composites import hsplit

        return hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections):
        from .._functions_composites import vsplit

        return vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        from .._functions_composites import dsplit

        return dsplit(self, indices_or_sections)

    def inner(self, other):
        from .._functions_composites import inner

        return inner(self, other)

    def diagflat(self, offset=0):
        from .._functions_composites import diagflat

        return diagflat(self, offset)

    def histc(self, bins=100, min=0, max=0):  # noqa: A002 - torch's names
        from .._functions_composites import histc

        if min.__class__ is not float and min.__class__ is not int:
            min = _argparse.number("histc", "min", min, 2)  # noqa: A001
        if max.__class__ is not float and max.__class__ is not int:
            max = _argparse.number("histc", "max", max, 3)  # noqa: A001

        return histc(self, bins, min, max)

    def bincount(self, weights=None, minlength=0):
        from .._functions_composites import bincount

        return bincount(self, weights, minlength)
