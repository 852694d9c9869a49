"""Complex tensors: the ops that move between real and complex, and the complex-support check.

Note: torch's convention for complex gradients. For a real loss L of z = x + iy, torch's
``z.grad`` is dL/dx + i dL/dy (twice the conjugate Wirtinger derivative dL/d(conj z)). For a
holomorphic f that makes the backward ``grad * conj(f'(z))``: derivatives.yaml's formulas carry
``.conj()`` (mul: ``grad * other.conj()``), written here with ``conj`` below, which leaves real
tensors untouched. A real input of an op whose gradient came out complex receives its real part
(registry.py, Note: real inputs of complex ops).

Note: conj is eager. torch's ``conj()`` is a lazy view with a conjugate bit; leafgrad computes
the conjugate at once (a new array) and remembers the bit only to report ``is_conj()`` and to
refuse what torch refuses on such tensors (view_as_real, numpy()); views and aliases of such a
tensor carry the bit as torch's do (tensor.py's _conj_bits). Writing into ``z.conj()``
therefore does not write into ``z`` as it would in torch.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from ..tensor import CONJ_BITS_USED, Tensor
from . import _batching_rules as batch, _layout
from ._forward import auto_linear, jvp_sum
from .registry import Op, register
from ._promote import check_broadcast
from ..autograd.grad_mode import is_grad_enabled

__all__ = ["conj", "install_complex_check"]


def conj(value):
    """``value.conj()`` for complex tensors and numbers; real ones are returned as they are."""
    if isinstance(value, Tensor):
        if value._data.dtype.kind == "c":
            return Conj.apply(value)
        return value
    if isinstance(value, (complex, np.complexfloating)):
        return value.conjugate()
    return value


def _complex_of(grad: Tensor) -> Tensor:
    """A real gradient as the complex one of a complex input (imaginary part 0)."""
    return Complex.apply(grad, grad.new_zeros(()).expand(grad.shape))


# -- real <-> complex views -----------------------------------------------------------------------


class _PartView(Op):
    __slots__ = ()
    is_view = True
    complex_ok = True
    # torch implements real/imag as view_as_real(self).select(-1, i): its node is a select
    node = "SelectBackward0"

    jvp = auto_linear


@register
class Real(_PartView):
    """The real parts as one step (``z.real`` itself, and at::real in backward formulas, are
    built as torch builds them: real_part, whose ViewAsRealBackward0 torch records too)."""

    vmap = batch.elementwise
    torch_names = ("real", "Tensor.real")

    @staticmethod
    def forward(ctx, a):
        return a.real

    def backward(self, grad):
        return _complex_of(grad)


@register
class Imag(_PartView):
    """The imaginary parts as one step, for backward formulas (``z.imag``: real_part)."""

    vmap = batch.elementwise
    torch_names = ("imag", "Tensor.imag")

    @staticmethod
    def forward(ctx, a):
        return a.imag

    def backward(self, grad):
        return Complex.apply(grad.new_zeros(()).expand(grad.shape), grad)


def real_part(tensor: Tensor, imaginary: bool = False) -> Tensor:
    """``z.real`` (``z.imag`` with ``imaginary``) as torch builds it: ``view_as_real(z)`` then
    ``select(-1, 0 or 1)``, so the graph is SelectBackward0 <- ViewAsRealBackward0. A tensor
    with the conjugate bit is first un-conjugated (torch's ``_conj()``, ConjBackward0: the
    memory holds the unconjugated values) and its imaginary parts negated (``_neg_view()``,
    NegViewBackward0)."""
    from . import select

    source = tensor
    conjugated = is_conj(tensor)
    if conjugated:
        source = Conj.apply(tensor)
    pairs = ViewAsReal.apply(source)
    if conjugated and imaginary:
        return mark_neg(select(NegView.apply(pairs), -1, 1))
    return select(pairs, -1, 1 if imaginary else 0)


@register
class NegView(Op):
    """torch's ``_neg_view()``: the negated values. torch makes a view with a negative bit;
    leafgrad computes it eagerly, as it does conj (Note: conj is eager)."""

    node = "NegViewBackward0"
    vmap = batch.elementwise
    torch_names = ("_neg_view",)

    @staticmethod
    def forward(ctx, a):
        return np.negative(a)

    def backward(self, grad):
        return grad.neg()  # torch's formula: NegBackward0 under create_graph

    jvp = auto_linear


@register
class ViewAsReal(Op):
    """``view_as_real(z)``: the same memory as a real tensor with a last dim of 2."""

    vmap = batch.elementwise
    node = "ViewAsRealBackward0"
    is_view = True
    complex_ok = True
    torch_names = ("view_as_real",)

    @staticmethod
    def forward(ctx, a):
        return a[..., None].view(a.real.dtype)

    def backward(self, grad):
        return ViewAsComplex.apply(grad.contiguous())

    jvp = auto_linear


@register
class ViewAsComplex(Op):
    """``view_as_complex(x)``: pairs along a last dim of 2 read as complex numbers."""

    vmap = batch.view_as_complex
    node = "ViewAsComplexBackward0"
    is_view = True
    complex_ok = True
    torch_names = ("view_as_complex",)

    @staticmethod
    def forward(ctx, a):
        return a.view(_dtype.from_numpy_dtype(a.dtype).to_complex().np)[..., 0]

    def backward(self, grad):
        # derivatives.yaml: view_as_real(grad.contiguous().resolve_conj()) (CloneBackward0 for
        # a non-contiguous grad under create_graph)
        return ViewAsReal.apply(grad.contiguous().resolve_conj())

    jvp = auto_linear


def check_view_as_complex(tensor: Tensor) -> None:
    data = tensor._data
    if data.dtype not in (np.float32, np.float64):
        if data.dtype == np.float16:
            raise RuntimeError("leafgrad has no complex32 (ComplexHalf) tensors: NumPy has no "
                               "such type")
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor "
            f"of scalar type: {tensor.dtype._legacy}"
        )
    if data.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if data.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = tensor.stride()  # torch's (NumPy's differ for empty tensors)
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(stride % 2 for stride in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")


# -- building complex tensors ---------------------------------------------------------------------


def _empty_like_inputs(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """An uninitialised complex array of the two inputs' broadcast shape, laid out like the
    first (as torch's TensorIterator lays out an elementwise result: a transposed input gives a
    transposed output)."""
    dtype = _dtype.from_numpy_dtype(first.dtype).to_complex().np
    check_broadcast(first.shape, second.shape)  # (torch's message, not NumPy's)
    shape = np.broadcast_shapes(first.shape, second.shape)
    # where the inputs disagree, TensorIterator's order of dims (a broadcast (10, 1, 5) and
    # (10, 5) give a row-major result; NumPy's empty_like of the broadcast view did not)
    strides = _layout.iterated_strides(shape, np.dtype(dtype).itemsize, (first, second))
    if strides is not None:
        return np.lib.stride_tricks.as_strided(np.empty(math.prod(shape), dtype), shape, strides)
    return np.empty_like(np.broadcast_arrays(first, second)[0], dtype=dtype)


@register
class Complex(Op):
    """``complex(real, imag)``: a new complex tensor (broadcasting its two real inputs)."""

    vmap = batch.elementwise
    node = "ComplexBackward0"
    inputs = ("real", "imag")
    broadcasts = True
    complex_ok = True
    torch_names = ("complex",)

    @staticmethod
    def forward(ctx, real, imag):
        out = _empty_like_inputs(real, imag)
        out.real = real  # set apart: real + 1j * imag turns an infinite imag into nan + infj
        out.imag = imag
        return out

    def backward(self, grad):
        grad_real = grad_imag = None
        if self.needs_grad(0):
            grad_real = real_part(grad)  # torch's at::real: ViewAsReal, then Select
        if self.needs_grad(1):
            grad_imag = real_part(grad, imaginary=True)
        return grad_real, grad_imag

    def jvp(self, tangents, primals, result):
        return jvp_sum(tangents, lambda t: t * (1 + 0j), lambda t: t * 1j)


@register
class Polar(Op):
    """``polar(abs, angle)`` = abs * (cos(angle) + i sin(angle))."""

    vmap = batch.elementwise
    node = "PolarBackward0"
    inputs = ("abs", "angle")
    saves = {"result": ("abs", "angle")}
    broadcasts = True
    complex_ok = True
    torch_names = ("polar",)

    @staticmethod
    def forward(ctx, radius, angle):
        out = _empty_like_inputs(radius, angle)
        out.real = radius * np.cos(angle)
        out.imag = radius * np.sin(angle)
        return out

    def backward(self, grad):
        # d result / d abs = sgn(result), d result / d angle = i * result; a real input gets
        # Re(conj(grad) * derivative) (torch's polar_backward)
        from .math_unary import Sgn

        result = self.saved("result")
        grad_abs = grad_angle = None
        if self.needs_grad(0):
            grad_abs = real_part(Conj.apply(grad) * Sgn.apply(result))
        if self.needs_grad(1):
            grad_angle = real_part(Conj.apply(grad) * (result * 1j))
        return grad_abs, grad_angle

    def jvp(self, tangents, primals, result):
        # d(r e^{i angle}) = sgn(result) dr + i result d(angle)
        from .math_unary import Sgn

        return jvp_sum(tangents, lambda t: Sgn.apply(result) * t, lambda t: (result * 1j) * t)


# -- conjugation and angle ------------------------------------------------------------------------


def _dense_like(out: np.ndarray, source: np.ndarray) -> np.ndarray:
    """``out`` (of ``source``'s shape) with ``source``'s exact strides when ``source`` is a
    dense permutation of its elements (as a view of it would be), else ``unary_like``'s."""
    if source.ndim < 2 or out.shape != source.shape or out.strides == source.strides:
        return out
    item = source.itemsize
    dims = sorted((stride, size) for size, stride in zip(source.shape, source.strides)
                  if size != 1)
    step = item
    for stride, size in dims:
        if stride != step:
            return _layout.unary_like(out, source)
        step *= size
    kept = np.lib.stride_tricks.as_strided(np.empty(source.size, out.dtype), source.shape,
                                           source.strides)
    kept[...] = out
    return kept


@register
class Conj(Op):
    """``z.conj()``, computed eagerly (see Note: conj is eager)."""

    vmap = batch.elementwise
    node = "ConjBackward0"
    complex_ok = True
    torch_names = ("conj", "Tensor.conj")

    @staticmethod
    def forward(ctx, a):
        # torch's conj is a view: a dense source's strides, size-1 dims' included (mH)
        return _dense_like(np.conj(a), a)

    def backward(self, grad):
        return Conj.apply(grad)

    jvp = auto_linear


@register
class ConjPhysical(Op):
    """``conj_physical(z)``: the conjugate as a new tensor (no conjugate bit)."""

    vmap = batch.elementwise
    node = "ConjPhysicalBackward0"
    complex_ok = True
    torch_names = ("conj_physical",)

    @staticmethod
    def forward(ctx, a):
        return np.conj(a)

    def backward(self, grad):
        return ConjPhysical.apply(grad)

    jvp = auto_linear


@register
class Angle(Op):
    """``angle(z)``: the argument in (-pi, pi]; for real tensors pi where x < 0, else 0."""

    vmap = batch.elementwise
    node = "AngleBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    saves = {"self": ("self",)}
    complex_ok = True
    torch_names = ("angle",)

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "c":
            return np.asarray(np.angle(a), order="C")  # row-major whatever the layout, as torch
        if a.dtype.kind != "f":
            a = a.astype(_dtype.get_default_dtype().np)
        out = np.where(a < 0, np.pi, 0.0).astype(a.dtype)
        return np.where(np.isnan(a), a, out)  # nan stays nan, as in torch

    def backward(self, grad):
        a = self.saved("self")
        if a._data.dtype.kind != "c":
            return grad.new_zeros(a.shape)
        # torch's angle_backward: grad * z / |z|^2 * i, and 0 at z == 0
        from .math_logic import Where

        squared = a.abs().pow(2)
        value = (grad * a / squared) * 1j
        return Where.apply(0j, value, condition=a == 0)

    def jvp(self, tangents, primals, result):
        (a,) = primals
        (tangent,) = tangents
        if a._data.dtype.kind != "c":
            return tangent * 0
        # d angle(z) = Im(conj(z) dz) / |z|^2
        return real_part(Conj.apply(a) * tangent, imaginary=True) / a.abs().pow(2)


# -- the check for ops without complex support ----------------------------------------------------


def complex_error(cls, dtype, params=None) -> NotImplementedError:
    """The error torch raises when the op ``cls`` meets a complex tensor of ``dtype``
    (a ``complex_message`` may name the op's parameters: ``{rounding_mode}``)."""
    message = cls.complex_message
    if message is not None and "{" in message:
        message = message.format(**(params or {}))
    if message is None:
        name = cls.torch_names[0] if cls.torch_names else cls.op_name.lower()
        name = name.rsplit(".", 1)[-1]
        if name.endswith("_") and not name.startswith("_"):
            name = name[:-1]  # (an in-place op runs its function's kernel: "elu_cpu")
        message = f'"{name}_cpu" not implemented for \'{dtype._legacy}\''
    error_type = RuntimeError if cls.complex_error_type == "RuntimeError" else NotImplementedError
    return error_type(message.replace("ComplexFloat", dtype._legacy))


_installed = []


class _ComplexHalf:
    _legacy = "ComplexHalf"  # (a float16 tensor with a complex scalar: torch's complex32)


def _common_dtype(args, params):
    """The dtype torch's kernel dispatches on for a call refused for complex operands: the
    operands' result type (float64 with complex64 is ComplexDouble, float16 with a complex
    scalar ComplexHalf)."""
    operands = [arg for arg in args if isinstance(arg, Tensor) or arg.__class__ is complex]
    operands += [value for value in params.values() if value.__class__ is complex]
    try:
        return _dtype.result_type(*operands)
    except TypeError:  # (leafgrad has no complex32)
        return _ComplexHalf


def _check_complex_autograd(cls, args) -> None:
    """torch's refusal to record an op without a complex derivative (``complex_autograd``)."""
    tensors = [arg for arg in args if isinstance(arg, Tensor)]
    if (any(t._data.dtype.kind == "c" for t in tensors) and is_grad_enabled()
            and any(t._may_require_grad() for t in tensors)):
        name = cls.torch_names[0].rsplit(".", 1)[-1]
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           "with complex dtype.")


def install_complex_check() -> None:
    """Make ``Op.apply`` refuse complex tensors for ops without complex support.

    Installed the first time the process makes a complex tensor (the complex dtypes call it
    when their NumPy type is first asked for), so that programs without complex numbers pay
    nothing for the check on every op.
    """
    if _installed:
        return
    plain_apply = Op.__dict__["apply"].__func__

    def apply(cls, *args, **params):
        if not cls.complex_ok:
            for arg in args:
                if isinstance(arg, Tensor) and arg._data.dtype.kind == "c" or \
                        arg.__class__ is complex:
                    raise complex_error(cls, _common_dtype(args, params), params)
            for value in params.values():
                if value.__class__ is complex:  # a complex Python scalar operand (other=1j)
                    raise complex_error(cls, _common_dtype(args, params), params)
        elif not cls.complex_autograd:
            _check_complex_autograd(cls, args)
        return plain_apply(cls, *args, **params)

    apply.__doc__ = plain_apply.__doc__
    Op.apply = classmethod(apply)
    _installed.append(plain_apply)
    from .inplace import COMPLEX_SEEN

    COMPLEX_SEEN[0] = True


_dtype.on_first_complex(install_complex_check)


def mark_conj(tensor: Tensor) -> Tensor:
    """Record torch's conjugate bit on the result of ``conj()`` (see Note: conj is eager)."""
    CONJ_BITS_USED[0] = True
    tensor.__dict__["_is_conj"] = True
    return tensor


def mark_neg(tensor: Tensor) -> Tensor:
    """Record torch's negative bit (``z.conj().imag``: a view of the memory read negated; see
    NegView). Like the conjugate bit, views and aliases of the tensor carry it too."""
    CONJ_BITS_USED[0] = True
    tensor.__dict__["_is_neg"] = True
    return tensor


def is_neg(tensor: Tensor) -> bool:
    try:
        return tensor.__dict__.get("_is_neg", False)
    except AttributeError:
        return False


def is_conj(tensor: Tensor) -> bool:
    try:
        return tensor.__dict__.get("_is_conj", False)
    except AttributeError:
        return False
