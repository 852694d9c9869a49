"""clamp/clip with tensor bounds, clamp_min/clamp_max, maximum/minimum and fmax/fmin, and the
function that picks clamp's overload (number bounds: ClampBackward1 in elementwise.py; tensor
bounds: ClampBackward0 here).

Backward formulas follow torch's derivatives.yaml; they route gradients with the differentiable
``where`` (WhereBackward0) as torch's do, so the gradient at a bound or a tie is torch's.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._construct import checked_operand
from . import _promote
from ._forward import auto_element_wise, filled
from .loss import DivScalar
from .math_logic import Where, check_broadcast_all
from . import _batching_rules as batch
from . import _uint
from .inplace import _BY_NP, _C10_NAMES, inplace
from .registry import Op, register
from .elementwise import Clamp, keep_self_on_ties
from ..tensor import Tensor, _clamp_bounds


def _where(condition, a, b):
    """``where`` for backward formulas: differentiable (WhereBackward0), as torch's is."""
    return Where.apply(a, b, condition=condition)


# -- clamp with tensor bounds ---------------------------------------------------------------------


@register
class ClampTensor(Op):
    """``clamp(min=Tensor, max=Tensor)`` (either may be None): ``min(max(x, min), max)``."""

    node = "ClampBackward0"
    uint_kernel = staticmethod(_uint.clamp_tensor_kernel)
    complex_message = 'clamp is not supported for complex types'
    vmap = batch.elementwise
    vmap_promotes_logically = False  # Note: type promotion under vmap
    inputs = ("self", "min", "max")
    saves = {"self": ("self", "min", "max"), "min": ("self", "min", "max"),
             "max": ("self", "min", "max")}
    broadcasts = True
    torch_names = ("clamp", "clip")

    @staticmethod
    def forward(ctx, a, low, high):
        present = [x for x in (a, low, high) if x is not None]
        check_broadcast_all(*present)
        target = _promote.result_np_dtype(*present)
        if target == np.bool_:
            raise NotImplementedError('"clamp_cpu" not implemented for \'Bool\'')
        out = a.astype(target, copy=False)
        if low is None and high is None:
            return np.array(out, copy=True)  # (torch copies too)
        # torch's min(max(x, low), high): each step keeps its own operand on a tie (zeros' signs)
        operands = [x.astype(target, copy=False) for x in present]
        if low is not None:
            low = low.astype(target, copy=False)
            out = keep_self_on_ties(np.asarray(np.maximum(out, low)), out, low, operands)
        if high is not None:
            high = high.astype(target, copy=False)
            out = keep_self_on_ties(np.asarray(np.minimum(out, high)), out, high, operands)
        return np.asarray(out)

    def backward(self, grad):
        x = self.saved("self")
        has_low, has_high = self._has_input(1), self._has_input(2)
        low = self.saved("min") if has_low else None
        high = self.saved("max") if has_high else None
        grad_self = grad_low = grad_high = None
        # torch: the bounds themselves get the gradient only where they are the result; at
        # x == min (or max) the gradient goes to x (subgradient 1 for x).
        if self.needs_grad(0):
            if has_low and has_high:
                grad_self = _where((x >= low) & (x <= high), grad, 0.0)
            elif has_low:
                grad_self = _where(x >= low, grad, 0.0)
            else:
                grad_self = _where(x <= high, grad, 0.0)
        if has_low and has_high:
            if self.needs_grad(1):
                grad_low = _where((x < low) & (low < high), grad, 0.0)
            if self.needs_grad(2):
                grad_high = _where((x > high) | (high < low), grad, 0.0)
        elif has_low and self.needs_grad(1):
            grad_low = _where(x < low, grad, 0.0)
        elif has_high and self.needs_grad(2):
            grad_high = _where(x > high, grad, 0.0)
        return grad_self, grad_low, grad_high

    def jvp(self, tangents, primals, result):
        # torch's clamp_jvp: the tangent of whichever of self/min/max the result is
        x, low, high = primals
        x_t, low_t, high_t = filled(tangents, primals)
        if low is not None and high is not None:
            inner = _where(x < low, low_t, _where(x > high, high_t, x_t))
            return _where(low > high, high_t, inner)
        if low is not None:
            return _where(x > low, x_t, low_t)
        return _where(x < high, x_t, high_t)

    def _has_input(self, index: int) -> bool:
        """Whether the optional bound ``index`` was given (None bounds have no metadata)."""
        return self._input_meta[index] is not None


def _clamp_one_side(a, bound, ufunc):
    target = _promote.result_np_dtype(a, bound)
    if isinstance(bound, np.ndarray):
        check_broadcast_all(a, bound)
        bound = bound.astype(target, copy=False)
    else:
        if target.kind in "biu" or target.char == "e":  # torch's checked bound conversion
            if target.kind == "b":
                kernel = "clamp_min_scalar_cpu" if ufunc is np.maximum else "clamp_max_scalar_cpu"
                raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
            bound = checked_operand(bound, target, floats=True)
        bound = target.type(bound)
    a = a.astype(target, copy=False)
    if isinstance(bound, np.ndarray):
        return keep_self_on_ties(np.asarray(ufunc(a, bound)), a, bound)
    return keep_self_on_ties(np.asarray(ufunc(a, bound)), a)


@register
class ClampMin(Op):
    cast_error_names_c_type = True  # clamp_min_(1.5) on ints names "signed char"
    node = "ClampMinBackward0"
    uint_kernel = "clamp_min_scalar_cpu"
    uint_params = ("min",)
    complex_message = 'clamp is not supported for complex types'
    saves = {"self": ("self",)}
    torch_names = ("clamp_min",)

    @staticmethod
    def forward(ctx, a, min):  # noqa: A002 - torch's name
        return _clamp_one_side(a, min, np.maximum)

    def backward(self, grad):
        return _where(self.saved("self") >= self._params["min"], grad, 0.0)

    jvp = auto_element_wise


@register
class ClampMinTensor(Op):
    node = "ClampMinBackward1"
    complex_message = '"maximum_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.elementwise
    vmap_promotes_logically = False  # Note: type promotion under vmap
    inputs = ("self", "min")
    saves = {"self": ("self", "min"), "min": ("self", "min")}
    broadcasts = True
    torch_names = ("clamp_min",)

    @staticmethod
    def forward(ctx, a, low):
        return _clamp_one_side(a, low, np.maximum)

    def backward(self, grad):
        x, low = self.saved("self"), self.saved("min")
        grad_self = grad_low = None
        if self.needs_grad(0):
            grad_self = _where(x >= low, grad, 0.0)
        if self.needs_grad(1):
            grad_low = _where(x < low, grad, 0.0)
        return grad_self, grad_low

    def jvp(self, tangents, primals, result):
        x, low = primals
        x_t, low_t = filled(tangents, primals)
        return _where(x >= low, x_t, low_t)


@register
class ClampMax(Op):
    cast_error_names_c_type = True  # clamp_max_(1.5) on ints names "signed char"
    node = "ClampMaxBackward0"
    uint_kernel = "clamp_max_scalar_cpu"
    uint_params = ("max",)
    complex_message = 'clamp is not supported for complex types'
    saves = {"self": ("self",)}
    torch_names = ("clamp_max",)

    @staticmethod
    def forward(ctx, a, max):  # noqa: A002 - torch's name
        return _clamp_one_side(a, max, np.minimum)

    def backward(self, grad):
        return _where(self.saved("self") <= self._params["max"], grad, 0.0)

    jvp = auto_element_wise


@register
class ClampMaxTensor(Op):
    node = "ClampMaxBackward1"
    complex_message = '"minimum_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.elementwise
    vmap_promotes_logically = False  # Note: type promotion under vmap
    inputs = ("self", "max")
    saves = {"self": ("self", "max"), "max": ("self", "max")}
    broadcasts = True
    torch_names = ("clamp_max",)

    @staticmethod
    def forward(ctx, a, high):
        return _clamp_one_side(a, high, np.minimum)

    def backward(self, grad):
        x, high = self.saved("self"), self.saved("max")
        grad_self = grad_high = None
        if self.needs_grad(0):
            grad_self = _where(x <= high, grad, 0.0)
        if self.needs_grad(1):
            grad_high = _where(x > high, grad, 0.0)
        return grad_self, grad_high

    def jvp(self, tangents, primals, result):
        x, high = primals
        x_t, high_t = filled(tangents, primals)
        return _where(x <= high, x_t, high_t)


# -- maximum / minimum --------------------------------------------------------------------------


class _Extremum(Op):
    __slots__ = ()
    inputs = ("self", "other")
    saves = {"self": ("self", "other"), "other": ("self", "other")}
    broadcasts = True
    ufunc = None

    vector_takes_other = False  # see keep_self_on_ties

    @classmethod
    def forward(cls, ctx, a, b):
        a, b = _promote.binary(a, b)
        out = np.asarray(cls.ufunc(a, b))
        return keep_self_on_ties(out, a, b if cls.vector_takes_other else None)


@register
class Maximum(_Extremum):
    """Elementwise max; nan wins. At a tie each input gets half the gradient (torch's rule)."""

    node = "MaximumBackward0"
    complex_message = 'maximum not implemented for complex tensors.'
    complex_error_type = "RuntimeError"
    vmap = batch.elementwise
    ufunc = np.maximum
    vector_takes_other = True
    torch_names = ("maximum",)

    def backward(self, grad):
        return _split_ties(self, grad, lambda a, b: a < b, lambda a, b: a > b)

    def jvp(self, tangents, primals, result):
        # torch: other_t + where(self_p == other_p, 0.5, self_p > other_p) * (self_t - other_t)
        return _extremum_jvp(tangents, primals, result, lambda a, b: a > b)


@register
class Minimum(_Extremum):
    node = "MinimumBackward0"
    complex_message = 'minimum not implemented for complex tensors.'
    complex_error_type = "RuntimeError"
    vmap = batch.elementwise
    ufunc = np.minimum
    vector_takes_other = True
    torch_names = ("minimum",)

    def backward(self, grad):
        return _split_ties(self, grad, lambda a, b: a > b, lambda a, b: a < b)

    def jvp(self, tangents, primals, result):
        return _extremum_jvp(tangents, primals, result, lambda a, b: a < b)


def _split_ties(node, grad, self_loses, other_loses):
    """torch: ``where(self == other, grad / 2, grad).masked_fill_(<input lost>, 0)``."""
    a, b = node.saved("self"), node.saved("other")
    # grad / 2 is C++'s div(Tensor, Scalar): DivBackward1 under create_graph (generated-program
    # seeds 25850, 26074 recorded DivBackward0)
    # each gradient its own where, as torch's two formulas (Note: the order of an op's input
    # gradients)
    grad_self = grad_other = None
    if node.needs_grad(1):
        shared = _where(a == b, DivScalar.apply(grad, other=2), grad)
        grad_other = shared._masked_zero(other_loses(a, b))
    if node.needs_grad(0):
        shared = _where(a == b, DivScalar.apply(grad, other=2), grad)
        grad_self = shared._masked_zero(self_loses(a, b))
    return grad_self, grad_other


@register
class Fmax(_Extremum):
    """Elementwise max ignoring nan; a tie gives the whole gradient to ``self``."""

    node = "FmaxBackward0"
    uint_kernel = "maximum_cpu"
    complex_message = 'fmax not implemented for complex tensors.'
    complex_error_type = "RuntimeError"
    vmap = batch.elementwise
    ufunc = np.fmax
    torch_names = ("fmax",)

    def backward(self, grad):
        a, b = self.saved("self"), self.saved("other")
        keeps_self = (a >= b) | b.isnan()
        return _fmax_fmin_grads(self, grad, keeps_self)

    def jvp(self, tangents, primals, result):
        # torch: other_t + (self_p > other_p).logical_or_(other_p.isnan()) * (self_t - other_t)
        a, b = primals
        return _fmax_fmin_jvp(tangents, primals, (a > b) | b.isnan())


@register
class Fmin(_Extremum):
    node = "FminBackward0"
    uint_kernel = "minimum_cpu"
    complex_message = 'fmin not implemented for complex tensors.'
    complex_error_type = "RuntimeError"
    vmap = batch.elementwise
    ufunc = np.fmin
    torch_names = ("fmin",)

    def backward(self, grad):
        a, b = self.saved("self"), self.saved("other")
        keeps_self = (a <= b) | b.isnan()
        return _fmax_fmin_grads(self, grad, keeps_self)

    def jvp(self, tangents, primals, result):
        a, b = primals
        return _fmax_fmin_jvp(tangents, primals, (a <= b) | b.isnan())


def _extremum_jvp(tangents, primals, result, wins):
    a, b = primals
    a_t, b_t = filled(tangents, primals)
    share = _where(a == b, 0.5, wins(a, b).to(result.dtype))
    return b_t + share * (a_t - b_t)


def _fmax_fmin_jvp(tangents, primals, keeps_self):
    a_t, b_t = filled(tangents, primals)
    return b_t + keeps_self * (a_t - b_t)


def _fmax_fmin_grads(node, grad, keeps_self):
    grad_self = grad_other = None  # Note: the order of an op's input gradients
    if node.needs_grad(1):
        grad_other = grad._masked_zero(keeps_self)
    if node.needs_grad(0):
        grad_self = grad._masked_zero(~keeps_self)
    return grad_self, grad_other


# -- dispatch between clamp's overloads (Tensor.clamp and Tensor.clamp_ call these) -------------


def invalid_arguments(name: str, args: tuple) -> TypeError:
    """torch's argument-parser error (first line) for positional ``args``, e.g. for
    ``clamp(Tensor, float)``. (torch spells keyword arguments differently; Tensor.clamp passes
    its bounds on positionally, so the keyword spelling is not reproduced.)"""
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected "
        "one of:"
    )


def _clamp_dispatch(tensor, low, high, name: str):
    """``(op, args, params)`` for clamp: number bounds -> ClampBackward1, tensor bounds ->
    ClampBackward0; a number and a tensor together is torch's argument error."""
    if low is None and high is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensors = isinstance(low, Tensor) or isinstance(high, Tensor)
    if tensors and any(bound is not None and not isinstance(bound, Tensor)
                       for bound in (low, high)):
        # a tensor with a number: the Number overload, whose parser reads a 0-d tensor not
        # requiring grad as its value
        if not all(bound is None or not isinstance(bound, Tensor)
                   or bound.ndim == 0 and not bound.requires_grad for bound in (low, high)):
            raise invalid_arguments(name, (low, high))
        low, high = _clamp_bounds(tensor, *(bound.item() if isinstance(bound, Tensor)
                                            else bound for bound in (low, high)))
        return Clamp, (), {"min": low, "max": high}
    if tensors:
        if not tensor.dtype.is_complex and any(
                bound is not None and bound.dtype.is_complex for bound in (low, high)):
            # a complex bound makes the result complex: an in-place clamp cannot write it
            # back, the others have no complex kernel (clamp with both bounds, or one:
            # maximum/minimum)
            common = _dtype_of(tensor, low, high)
            if name.endswith("_"):
                raise RuntimeError(f"result type {common._legacy} can't be cast to the "
                                   f"desired output type {tensor.dtype._legacy}")
            kernel = "clamp" if low is not None and high is not None else \
                "maximum" if low is not None else "minimum"
            raise NotImplementedError(
                f"\"{kernel}_cpu\" not implemented for '{common._legacy}'")
        return ClampTensor, (low, high), {}
    return Clamp, (), {"min": low, "max": high}


def _dtype_of(*tensors):
    return _dtype.result_type(*[t for t in tensors if t is not None])


def clamp(tensor, min=None, max=None):  # noqa: A002 - torch's names
    """``Tensor.clamp``: number bounds (ClampBackward1) or tensor bounds (ClampBackward0)."""
    op, args, params = _clamp_dispatch(tensor, min, max, "clamp")
    return op.apply(tensor, *args, **params)


def clamp_(tensor, min=None, max=None):  # noqa: A002
    data = tensor._data
    if data.dtype.kind in "biu" and data.__class__ is np.ndarray and (
            min.__class__ is complex or max.__class__ is complex):
        # an integer self with a complex bound: the result type ComplexFloat is refused as a
        # cast (in C++'s type names) before clamp looks at complex support (generated-program
        # seed 20001260)
        raise RuntimeError("result type ComplexFloat can't be cast to the desired output type "
                           f"{_C10_NAMES[_BY_NP[data.dtype].name]}")
    op, args, params = _clamp_dispatch(tensor, min, max, "clamp_")
    return inplace(op, tensor, *args, **params)
