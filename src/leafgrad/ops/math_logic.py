"""``where`` and the ops whose outputs are bool masks: logical ops, isnan/isinf/isfinite,
signbit and isclose.

Note: where's gradient is NaN-safe the way torch's is
``where(cond, a, b)`` sends ``where(cond, grad, 0)`` to ``a`` and ``where(cond, 0, grad)`` to
``b``: the unselected branch receives an exact zero, never ``grad * 0`` (which would turn an
infinite incoming gradient into nan). A nan can still come from the branch's own backward
(``where(x > 0, x.sqrt(), 0.)`` at x < 0: sqrt's backward computes 0 / (2 * nan)); torch gives
the same nan, so leafgrad does too.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._construct import checked_operand
from . import _layout, _promote
from .elementwise import _legacy_name
from ._forward import jvp_sum
from ._float_kernels import magnitude
from . import _batching_rules as batch
from . import _uint
from .registry import Op, register
from . import _inference_writes as _writes
from .._dtype import get_default_dtype


def check_broadcast_all(*operands) -> None:
    """torch's broadcast error for several operands: shapes are combined left to right (as
    TensorIterator does), so the message names the running shape as tensor a."""
    shape = None
    for operand in operands:
        if not isinstance(operand, np.ndarray):
            continue
        if shape is None:
            shape = operand.shape
            continue
        if operand.shape != shape:
            _promote.check_broadcast(shape, operand.shape)
            shape = np.broadcast_shapes(shape, operand.shape)


def bool_condition(condition):
    """A where condition as a bool tensor (uint8 is accepted with torch's deprecation warning)."""
    array = condition._data
    if array.dtype == np.uint8:
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=4,
        )
        return condition != 0
    if array.dtype != np.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{_legacy_name(array)}"
        )
    return condition


@register
class Where(Op):
    """``where(condition, self, other)``; the condition (a bool Tensor, kept as a parameter
    and shown as ``_saved_condition``) is not a graph input.

    See Note: where's gradient is NaN-safe the way torch's is.
    """

    node = "WhereBackward0"
    index_saves = {"condition": ()}  # Note: saved index tensors (registry.py)
    uint_kernel = staticmethod(_uint.promote_first)  # works; promotes before broadcasting
    complex_ok = True
    vmap = batch.elementwise
    vmap_promotes_logically = False  # Note: type promotion under vmap
    inputs = ("self", "other")
    broadcasts = True
    torch_names = ("where", "Tensor.where")
    # torch's TensorIterator takes the condition as its first operand, so the condition's
    # layout decides first (Note: output layout, _layout.py); the registry's rule, which
    # sees only the inputs, would let ``self`` decide: the forward orders the result itself
    iterated_in_forward = True

    @staticmethod
    def forward(ctx, a, b, condition):
        mask = condition._data
        check_broadcast_all(mask, a, b)
        if a.__class__ is int or b.__class__ is int:  # an int branch: torch's checked
            target = _promote.result_np_dtype(a, b)  # conversion into an integer result
            a, b = checked_operand(a, target), checked_operand(b, target)
        a, b = _promote.binary(a, b)
        out = np.asarray(np.where(mask, a, b))
        if out.ndim > 1:
            if not out.size:  # (empty arrays are all row-major by NumPy's flags)
                return _layout.iterated(out, (mask, a, b))
            for operand in (mask, a, b):
                if type(operand) is np.ndarray and operand.ndim > 1 and (
                        not operand.flags.c_contiguous
                        or 1 in operand.shape and _layout.size_one_strides(operand)):
                    return _layout.iterated(out, (mask, a, b))
        return out

    def backward(self, grad):
        condition = self._params["condition"]
        grad_self = grad_other = None  # Note: the order of an op's input gradients
        if self.needs_grad(1):
            grad_other = Where.apply(0.0, grad, condition=condition)
        if self.needs_grad(0):
            grad_self = Where.apply(grad, 0.0, condition=condition)
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        condition = self._params["condition"]  # torch: where(condition, self_t, other_t)
        return jvp_sum(tangents, lambda t: Where.apply(t, 0.0, condition=condition),
                       lambda t: Where.apply(0.0, t, condition=condition))


# -- logical ops (bool outputs, never require grad) ------------------------------------------------


class _LogicalBinary(Op):
    __slots__ = ()
    differentiable = False
    inputs = ("self", "other")
    ufunc = None

    @classmethod
    def forward(cls, ctx, a, b):
        check_broadcast_all(a, b)
        return np.asarray(cls.ufunc(a, b))


@register
class LogicalAnd(_LogicalBinary):
    node = "LogicalAndBackward0"
    complex_ok = True  # a complex number is true where either part is nonzero
    vmap = batch.elementwise
    ufunc = np.logical_and
    torch_names = ("logical_and",)


@register
class LogicalOr(_LogicalBinary):
    node = "LogicalOrBackward0"
    complex_ok = True  # a complex number is true where either part is nonzero
    vmap = batch.elementwise
    ufunc = np.logical_or
    torch_names = ("logical_or",)


@register
class LogicalXor(_LogicalBinary):
    node = "LogicalXorBackward0"
    complex_ok = True  # a complex number is true where either part is nonzero
    vmap = batch.elementwise
    ufunc = np.logical_xor
    torch_names = ("logical_xor",)


class _Predicate(Op):
    """A unary test: bool output of the input's shape."""

    __slots__ = ()
    differentiable = False
    ufunc = None

    @classmethod
    def forward(cls, ctx, a):
        return np.asarray(cls.ufunc(a))


@register
class LogicalNot(_Predicate):
    node = "LogicalNotBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    complex_ok = True  # a complex number is true where either part is nonzero
    vmap = batch.elementwise
    ufunc = np.logical_not
    torch_names = ("logical_not",)


@register
class IsNan(_Predicate):
    node = "IsnanBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    ufunc = np.isnan
    torch_names = ("isnan",)


@register
class IsInf(_Predicate):
    node = "IsinfBackward0"
    inference_writes = staticmethod(_writes.not_floating)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    ufunc = np.isinf
    torch_names = ("isinf",)
    iterated_in_forward = True  # (its empty results: the forward orders them, below)

    @classmethod
    def forward(cls, ctx, a):
        out = np.asarray(np.isinf(a))
        if out.ndim > 1 and not out.size and a.dtype.kind == "f":
            # torch's isinf of a float tensor is abs(x) == inf: a number among the operands,
            # so an empty result takes TensorIterator's strides (torch.empty(0, 1, 3) gives
            # (3, 0, 1)); abs's own result is row-major (empty tensors are contiguous)
            absolute = np.lib.stride_tricks.as_strided(  # (NumPy's empty arrays: 0 strides)
                np.empty(0, a.dtype), a.shape, _layout.dense_bytes(a.shape, a.itemsize))
            return _layout.iterated(out, (absolute, np.inf))
        return out


@register
class IsPosInf(_Predicate):
    node = "IsposinfBackward0"
    inference_writes = staticmethod(_writes.not_floating)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    ufunc = np.isposinf
    torch_names = ("isposinf",)


@register
class IsNegInf(_Predicate):
    node = "IsneginfBackward0"
    inference_writes = staticmethod(_writes.not_floating)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    ufunc = np.isneginf
    torch_names = ("isneginf",)


@register
class IsFinite(_Predicate):
    node = "IsfiniteBackward0"
    inference_writes = staticmethod(_writes.not_floating)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    ufunc = np.isfinite
    torch_names = ("isfinite",)


@register
class Signbit(_Predicate):
    """True for negative numbers including -0. (and for nan with the sign bit set)."""

    node = "SignbitBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_message = 'signbit is not implemented for complex tensors.'
    vmap = batch.elementwise
    ufunc = np.signbit
    torch_names = ("signbit",)


@register
class IsClose(Op):
    """``|self - other| <= atol + rtol * |other|`` elementwise (torch's asymmetric test)."""

    node = "IscloseBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    inputs = ("self", "other")
    differentiable = False
    complex_ok = True
    torch_names = ("isclose", "allclose")

    @staticmethod
    def forward(ctx, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        return isclose_array(a, b, rtol, atol, equal_nan)


def isclose_array(a: np.ndarray, b: np.ndarray, rtol, atol, equal_nan) -> np.ndarray:
    if a.dtype != b.dtype:
        raise RuntimeError(f"{_legacy_name(a)} did not match {_legacy_name(b)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    check_broadcast_all(a, b)
    close = np.asarray(a == b)
    if equal_nan and a.dtype.kind in "fc":  # a complex number is nan with either part nan
        close = close | (np.isnan(a) & np.isnan(b))
    if rtol == 0 and atol == 0:
        return close
    if a.dtype.kind not in "fc":
        # torch measures integer (and bool) distances in the default float dtype

        a = a.astype(get_default_dtype().np)
        b = b.astype(a.dtype)
    with np.errstate(all="ignore"):
        allowed = atol + magnitude(rtol * b)
        actual = magnitude(a - b)
        return np.asarray(close | (np.isfinite(actual) & (actual <= allowed)))
