"""Elementwise ops: arithmetic, unary math, comparisons, copies and fills.

Backward formulas follow torch's derivatives.yaml; each is written with Tensor ops so it can
itself be differentiated (create_graph=True).
"""

from __future__ import annotations

import math

import numpy as np

from . import _float_kernels, _layout, _libm, _numba_kernels, _promote
from ._forward import auto_element_wise, auto_linear, jvp_sum, zeros_tangent
from . import _batching_rules as batch
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .. import _dtype as _dtype_module
from .._memory_format import channels_last, channels_last_3d, contiguous_format
from .._alloc import alloc_error as _alloc_error
from ..autograd._fp_errors import loud as _loud, quiet as _quiet
from .._construct import checked_operand, unsigned_fill
from ..tensor import Tensor, _wrap
from . import _bfloat16, _uint
from .registry import OPS, Op, array_kernel, on_arrays, plain_apply as _plain, register
from . import _inference_writes as _writes
from .._dtype import from_numpy_dtype
from .._construct import _C_SCALAR_NAMES
from .registry import _np_to_dtype


def _zeros_like(grad: Tensor) -> Tensor:
    """torch's ``zeros_like(grad)`` in a derivative formula: exact zeros (whatever NaN or inf
    ``grad`` holds, and +0. whatever its signs), recorded by nothing even under
    ``create_graph``; a kernel, so that leafgrad.compile makes it again on every replay)."""
    return _wrap(array_kernel(np.zeros_like, grad._data))

# -- binary arithmetic ------------------------------------------------------------------------


def _check_alpha(a: np.ndarray, alpha) -> None:
    """torch's check of add/sub's alpha against the dtype they compute in."""
    check_alpha_kind(a.dtype.kind, alpha)


_NARROW_C_NAMES = {"int8": "int8_t", "int16": "int16_t", "uint8": "uint8_t", "int32": "int"}


def _integer_alpha(dtype: np.dtype, alpha):
    """alpha as an integer kernel's scalar_t (c10's checked conversion): a narrow type refuses
    a number outside its range, except that an unsigned type takes a negative number down to
    -max by wrapping (sub(a, b, alpha=-3) on uint8 multiplies by 253). A float (index_add's
    alpha: add/sub refuse one for integers first) must lie in the type's range, NaN and inf
    never do (c10's overflows<To>(double); the caller's cast then truncates it)."""
    if alpha.__class__ is float and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not float(info.min) <= alpha <= float(info.max):
            raise RuntimeError(f"value cannot be converted to type {_C_SCALAR_NAMES[dtype.name]} "
                               "without overflow")
        return alpha
    name = _NARROW_C_NAMES.get(dtype.name)
    if name is None or alpha.__class__ is not int:
        return alpha
    info = np.iinfo(dtype)
    if info.min <= alpha <= info.max:
        return alpha
    if dtype.kind == "u" and -info.max <= alpha < 0:
        return np.array(alpha).astype(dtype)[()]
    raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def check_alpha_kind(kind: str, alpha) -> None:
    """``_check_alpha`` for a result dtype of NumPy kind ``kind`` (the in-place path)."""
    if isinstance(alpha, bool) and kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, (float, complex)) and kind in "iub":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(alpha, complex) and kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           "number.")


def _is_bool(value) -> bool:
    if isinstance(value, Tensor):  # (Rsub's ``other`` when Tensor.__rsub__ is called directly)
        value = value._data
    cls = value.__class__
    # (a NumPy bool scalar is a number to torch's argument parser: 1. - np.True_ is 0.)
    return cls is bool or (cls is np.ndarray and value.dtype == np.bool_)


def check_bool_subtraction(a, b) -> None:
    """torch refuses ``-`` with any bool operand (tensor or Python bool), before promotion,
    alpha or the in-place cast checks: NumPy would compute it (``1. - True`` is 0.)."""
    a_bool, b_bool = _is_bool(a), _is_bool(b)
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


@register
class Add(Op):
    """``self + alpha * other``."""

    node = "AddBackward0"
    saved_defaults = {"alpha": 1}  # grad_fn._saved_alpha when not given (Node.__getattr__)
    lifts_numbers = True  # Note: numbers under torch.func.jvp (ops/_forward.py)
    uint_kernel = staticmethod(_uint.add_kernel)
    complex_ok = True
    vmap = batch.elementwise
    inputs = ("self", "other")
    broadcasts = True
    inplace_ufunc = np.add
    capture_ufunc = np.add  # Note: capture kernels (_compile/codegen.py)
    bfloat16_finish = staticmethod(_bfloat16.alpha_tail(np.add))
    torch_names = ("add", "Tensor.__add__", "Tensor.add_")

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        a, b = _promote.binary(a, b)
        if alpha != 1 or alpha.__class__ is not int:  # (True, 1.0: torch checks their kind)
            _check_alpha(a, alpha)
            if a.dtype.kind == "f":  # one fused multiply-add, as torch's kernel
                return _float_kernels.scaled_update(np.add, a, b, alpha)
            # a bool result scales by alpha as a bool (torch: True + 2 * True is True)
            b = (b if alpha else np.zeros_like(b)) if a.dtype.kind == "b" else (
                b * _integer_alpha(a.dtype, alpha))
        return a + b

    def backward(self, grad):
        # torch: maybe_multiply(grad, alpha.conj()), a Scalar product (MulBackward1)
        alpha = self._params.get("alpha", 1)
        return grad, (grad if alpha == 1 else _scale(grad, conj(alpha)))

    def jvp(self, tangents, primals, result):
        alpha = self._params.get("alpha", 1)
        return jvp_sum(tangents, lambda t: t, lambda t: t if alpha == 1 else t * alpha)


@register
class Sub(Op):
    """``self - alpha * other``."""

    node = "SubBackward0"
    saved_defaults = {"alpha": 1}  # grad_fn._saved_alpha when not given (Node.__getattr__)
    lifts_numbers = True  # Note: numbers under torch.func.jvp (ops/_forward.py)
    uint_kernel = staticmethod(_uint.add_kernel)
    complex_ok = True
    vmap = batch.elementwise
    inputs = ("self", "other")
    broadcasts = True
    inplace_ufunc = np.subtract
    capture_ufunc = np.subtract
    bfloat16_finish = staticmethod(_bfloat16.alpha_tail(np.subtract))
    torch_names = ("sub", "Tensor.__sub__", "Tensor.sub_")

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        check_bool_subtraction(a, b)
        a, b = _promote.binary(a, b)
        if alpha != 1 or alpha.__class__ is not int:  # (True, 1.0: torch checks their kind)
            _check_alpha(a, alpha)
            if a.dtype.kind == "f":  # one fused multiply-add, as torch's kernel
                return _float_kernels.scaled_update(np.subtract, a, b, alpha)
            if a.dtype.kind in "iu":  # torch's sub is add(self, other, -alpha): -alpha is checked
                return a + b * _integer_alpha(a.dtype, -alpha)
            b = b * alpha
        return a - b

    def backward(self, grad):
        # torch: maybe_multiply(-grad, alpha.conj()), a Scalar product (MulBackward1)
        alpha = self._params.get("alpha", 1)
        return grad, (-grad if alpha == 1 else _scale(-grad, conj(alpha)))

    def jvp(self, tangents, primals, result):
        alpha = self._params.get("alpha", 1)
        return jvp_sum(tangents, lambda t: t, lambda t: -t if alpha == 1 else t * -alpha)


@register
class Rsub(Op):
    """``other - alpha * self`` for a Python number ``other`` (``1 - x``)."""

    node = "RsubBackward1"
    uint_kernel = staticmethod(_uint.add_kernel)
    uint_params = ("other",)
    complex_ok = True
    inputs = ("self",)
    torch_names = ("rsub", "Tensor.__rsub__")

    @staticmethod
    def forward(ctx, a, other, alpha=1):
        check_bool_subtraction(other, a)
        a, other = _promote.binary(a, other)
        if alpha != 1 or alpha.__class__ is not int:  # (True, 1.0: torch checks their kind)
            _check_alpha(a, alpha)
        if alpha != 1 and a.dtype.kind in "iu":  # (Sub's -alpha)
            return other + a * _integer_alpha(a.dtype, -alpha)
        return other - (a * alpha if alpha != 1 else a)

    def backward(self, grad):
        alpha = self._params.get("alpha", 1)
        return -grad if alpha == 1 else _scale(-grad, conj(alpha))

    jvp = auto_element_wise


@register
class RsubTensor(Op):
    """``other - alpha * self`` for two tensors (``torch.rsub(a, b)``): torch's rsub.Tensor,
    its own node with the inputs in call order."""

    node = "RsubBackward0"
    uint_kernel = staticmethod(_uint.add_kernel)
    uint_reversed = True  # torch computes sub(other, self): its promotion error names other first
    complex_ok = True
    vmap = batch.elementwise
    inputs = ("self", "other")
    broadcasts = True
    torch_names = ("rsub",)

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        return Sub.forward(ctx, b, a, alpha)

    def backward(self, grad):
        # torch: self: maybe_multiply(-grad, alpha.conj()); other: grad
        alpha = self._params.get("alpha", 1)
        return (-grad if alpha == 1 else _scale(-grad, conj(alpha))), grad

    def jvp(self, tangents, primals, result):
        alpha = self._params.get("alpha", 1)
        return jvp_sum(tangents, lambda t: -t if alpha == 1 else t * -alpha, lambda t: t)


# Note: float16 by a scalar
# torch's mul and div kernels take a scalar second operand (a Python number, or any 0-d
# tensor: a "CPU scalar") of a float16 tensor at its original value in float32, compute in
# float32 and round once (iter.original_scalar_value<opmath_t>); the general path would round
# the scalar to float16 first. h * (1 / 3) differed on a third of float16 values, h / 70000.
# gave 0 (70000 is inf in float16) where torch gives 2.1e-05. add and sub do round the scalar
# (their kernels take no such path), and so does a scalar first operand.
def _half_by_scalar(ufunc, a: np.ndarray, b):
    """``ufunc(a, b)`` for a float16 array ``a`` and a real scalar ``b`` as torch computes it,
    or None when ``b`` is no such scalar (or makes the result another dtype)."""
    kind = b.__class__
    if kind is float or kind is int:
        value = b
    elif isinstance(b, (np.floating, np.integer, np.bool_)):  # torch's Scalar: a number
        value = float(b) if isinstance(b, np.bool_) else b.item()
    elif kind is np.ndarray and b.ndim == 0 and b.dtype.kind in "fiu" and (
            a.ndim or b.dtype.kind in "iu" or b.dtype.char == "e"):
        # (two 0-d operands promote as dimensioned ones: a float32 one wins over float16)
        value = b.item()
    else:
        return None
    with np.errstate(all="ignore"):
        return ufunc(a.astype(np.float32), np.float32(value)).astype(np.float16)


@register
class Mul(Op):
    """Elementwise product."""

    node = "MulBackward0"
    lifts_numbers = True  # Note: numbers under torch.func.jvp (ops/_forward.py)
    opmath_scalars = True  # Note: opmath for bfloat16 (ops/_bfloat16.py)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    inputs = ("self", "other")
    saves = {"self": ("other",), "other": ("self",)}
    broadcasts = True
    inplace_ufunc = np.multiply
    capture_ufunc = np.multiply
    torch_names = ("mul", "Tensor.__mul__", "Tensor.mul_")

    @staticmethod
    def forward(ctx, a, b):
        if a.__class__ is np.ndarray and a.dtype.char == "e":
            scaled = _half_by_scalar(np.multiply, a, b)
            if scaled is not None:
                return scaled
        a, b = _promote.binary(a, b)
        out = a * b
        if out.dtype.kind == "c":  # (NumPy's complex product rounds as fma: torch's does not)
            if out.dtype == np.complex64 or _dense_alike(out, a) and _dense_alike(out, b):
                return _float_kernels.complex_multiply(a, b)  # (its loop tails measured)
            _vector_complex_products(out, a, b)  # (complex128 broadcast or strided operands)
        return out

    def backward(self, grad):
        if on_arrays():  # Note: array-level backwards (activation.py)
            children = self._next_nodes
            return (_times(grad, conj(self.saved("other"))) if children[0] is not None else None,
                    _times(grad, conj(self.saved("self"))) if children[1] is not None else None)
        # Note: the order of an op's input gradients
        # (Mul.apply: an operand that is a Python number is torch's wrapped-number tensor,
        # grad * it a tensor product, MulBackward0; Note: C++ operators in backward formulas)
        grad_self = grad_other = None
        if self.needs_grad(1):
            grad_other = Mul.apply(grad, conj(self.saved("self")))
        if self.needs_grad(0):
            grad_self = Mul.apply(grad, conj(self.saved("other")))
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        a, b = primals
        return jvp_sum(tangents, lambda t: t * b, lambda t: t * a)


def _vector_complex_products(out: np.ndarray, a, b) -> None:
    """torch's complex product where its vectorised loop computes it (_layout.
    vectorized_elements): ``ac - bd`` and ``ad + bc`` with each product rounded (AVX2's
    Vectorized<complex> multiply: two products, a horizontal subtract), where NumPy's (and
    torch's scalar loop's) contracted form fuses one of them: conj(x) * x kept an imaginary
    part of rounding (1e-17) where torch's is 0 (generated-program seeds 30000370, 30000560)."""
    arrays = [v if v.__class__ is np.ndarray else np.asarray(v, out.dtype) for v in (a, b)]
    where = _layout.vectorized_elements(out.shape, arrays, out.dtype.itemsize)
    if out.dtype == np.complex64 and all(
            v.shape == out.shape and v.flags.c_contiguous for v in arrays):
        # complex64's scalar loop takes its elements in pairs (the contracted form, NumPy's)
        # and a last odd one alone, unfused (measured on contiguous operands; strided and
        # broadcast ones are not replayed)
        done = 0 if where is None else int(where.sum())
        if (out.size - done) % 2:
            where = np.zeros(out.shape, bool) if where is None else where
            where.reshape(-1)[-1] = True
    if where is None or not where.any():
        return
    x, y = (np.broadcast_to(v, out.shape)[where] for v in arrays)
    with np.errstate(all="ignore"):
        real = x.real * y.real - x.imag * y.imag
        imag = x.real * y.imag + x.imag * y.real
    out.real[where] = real
    out.imag[where] = imag


def _dense_alike(out: np.ndarray, operand) -> bool:
    """A complex product's operand read as one run of ``out``'s elements (or a number)."""
    return operand.__class__ is not np.ndarray or not operand.ndim or (
        operand.shape == out.shape and operand.flags.c_contiguous)


def _as_float(operand, dtype):
    """An integer operand of a true division in the float dtype: an array's values cast, a
    Python int through float64 (as the Python-int fast path above)."""
    if operand.__class__ is np.ndarray:
        return operand.astype(dtype)
    return np.asarray(operand, dtype=np.float64).astype(dtype)


def _times(grad: Tensor, other):
    """``grad * other`` in a backward. Note: array-level backwards (activation.py): when
    nothing records and ``other`` is an array of grad's dtype or a Python float (no promotion
    to do), this is the one NumPy call Mul.forward would make, without the Tensor-op dispatch
    (benchmarks/bench_chain.py: ~1.2 us of ~1.8 us per product)."""
    if on_arrays():
        g = grad._data
        o = other._data if isinstance(other, Tensor) else other
        if type(o) is float and g.dtype.char in "fd":
            # (float16 and bfloat16 multiply by the number in float, as Mul.forward: NumPy
            # would round the number to the half type first)
            return _plain_ufunc(np.multiply, g, o)
        if type(o) is np.ndarray and o.dtype is g.dtype and g.dtype.kind != "c":
            # as Mul.apply orders it (Note: output layout, _layout.py); a gradient expanded
            # from a number (all strides 0: a sum's backward) decides nothing
            if g.ndim > 1 and not g.flags.c_contiguous and any(g.strides):
                product = _plain_ufunc(np.multiply, g, o)._data
                return _wrap(_layout.iterated(product, (g, o)))
            return _plain_ufunc(np.multiply, g, o)
    return grad * other


def _plain_ufunc(ufunc, *arrays) -> Tensor:
    """``ufunc(*arrays)`` wrapped, with floating-point warnings off as in every forward."""
    token = _quiet()
    try:
        return _wrap(ufunc(*arrays))
    except MemoryError as error:
        raise _alloc_error(error) from None
    except ValueError:
        # operands that do not broadcast (a saved-tensor hook's unpack of another shape):
        # torch's message, as the op's own check gives it
        from ._promote import check_broadcast

        shapes = [np.shape(a) for a in arrays]
        check_broadcast(shapes[0], shapes[1])
        raise
    finally:
        _loud(token)


@register
class MulScalar(Op):
    """``tensor * number`` as torch's C++ formulas write it (MulBackward1, one edge)."""

    node = "MulBackward1"
    complex_ok = True
    capture_ufunc = np.multiply
    capture_params = ("other",)
    torch_names = ()

    @staticmethod
    def forward(ctx, a, other):
        if a.__class__ is np.ndarray and a.dtype.char == "e":  # (in float, as Mul's)
            scaled = _half_by_scalar(np.multiply, a, other)
            if scaled is not None:
                return scaled
        a, other = _promote.binary(a, other)
        return a * other

    def backward(self, grad):
        other = conj(self._params["other"])
        if on_arrays():  # Note: array-level backwards (activation.py)
            return _plain(MulScalar, grad, other=other)
        return MulScalar.apply(grad, other=other)

    jvp = auto_element_wise


@register
class SubScalar(Op):
    """``tensor - number`` as torch's C++ formulas write it (SubBackward1, one edge)."""

    node = "SubBackward1"
    complex_ok = True
    torch_names = ()

    @staticmethod
    def forward(ctx, a, other):
        a, other = _promote.binary(a, other)
        return a - other

    def backward(self, grad):
        return grad

    jvp = auto_element_wise


def _scale(tensor, number):
    return MulScalar.apply(tensor, other=number)


@register
class Div(Op):
    """True division (integer inputs give a float result)."""

    node = "DivBackward0"
    lifts_numbers = True  # Note: numbers under torch.func.jvp (ops/_forward.py)
    opmath_scalars = True  # Note: opmath for bfloat16 (ops/_bfloat16.py)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    capture_ufunc = np.true_divide
    inputs = ("self", "other")
    saves = {"self": ("other",), "other": ("self", "other")}
    broadcasts = True
    inplace_ufunc = np.true_divide
    torch_names = ("div", "true_divide", "Tensor.__truediv__", "Tensor.div_")

    @staticmethod
    def forward(ctx, a, b):
        if a.__class__ is np.ndarray and a.dtype.char == "e":
            scaled = _half_by_scalar(np.true_divide, a, b)
            if scaled is not None:
                return scaled
        if a.__class__ is np.ndarray and a.dtype.kind in "biu" and b.__class__ is int:
            # integer by a Python int: torch casts both to the float result type (the int
            # is not first wrapped into the tensor's dtype: uint8 / -1 is -1.0, not 1/255)
            dtype = _promote.float_result(np.empty(0, a.dtype)).dtype
            return a.astype(dtype) / np.asarray(b, dtype=np.float64).astype(dtype)
        promoted_a, promoted_b = _promote.binary(a, b)
        if promoted_a.dtype.kind not in "fc":
            # integers (and bools): each operand goes from its own dtype to the float result
            # type, not through the integer common type (torch.div(2**40, int32_tensor) divides
            # 2**40, not 2**40 wrapped to int32 (0); so does a 0-d int64 tensor's value)
            dtype = _promote.float_result(np.empty(0, promoted_a.dtype)).dtype
            return _as_float(a, dtype) / _as_float(b, dtype)
        if promoted_a.dtype.kind == "c":  # (NumPy's complex division rounds other last bits)
            return _float_kernels.complex_true_divide(promoted_a, promoted_b)
        return promoted_a / promoted_b

    def backward(self, grad):
        other = self.saved("other")
        grad_self = grad_other = None  # Note: the order of an op's input gradients
        if self.needs_grad(1):
            # torch: -grad * ((self / other) / other).conj(), self / other a true division
            # even where self is a wrapped number (Python's ``number / other`` is
            # Tensor.__rtruediv__, other.reciprocal() * number: other bits)
            grad_other = -grad * conj(Div.apply(self.saved("self"), other) / other)
        if self.needs_grad(0):
            grad_self = Div.apply(grad, conj(other))  # (a number: a wrapped tensor, as Mul's)
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        # torch: (self_t - other_t * result) / other_p
        numerator = jvp_sum(tangents, lambda t: t, lambda t: -(t * result))
        return numerator / primals[1]


@register
class Neg(Op):
    node = "NegBackward0"
    complex_ok = True
    capture_ufunc = np.negative
    torch_names = ("neg", "negative", "Tensor.__neg__")

    @staticmethod
    def forward(ctx, a):
        if a.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        out = np.negative(a)
        if a.dtype.kind == "c" and a.size:
            _complex_vector_neg_zeros(out, a)
        return out

    def backward(self, grad):
        return -grad

    jvp = auto_element_wise


def _complex_vector_neg_zeros(out: np.ndarray, a: np.ndarray) -> None:
    """torch's complex neg computes ``0 - z`` in its vectorised loop (Vectorized<complex>'s
    neg) and ``-z`` in the scalar one: where a part of z is +0., the vector lanes give +0.
    and the scalar tail -0. (_layout.vectorized_elements says which elements are which)."""
    lanes = _layout.vectorized_elements(out.shape, (a,), a.itemsize)
    if lanes is not None:
        out[lanes] += 0  # (-0.) + 0. is +0.; every other value is unchanged


@register
class Reciprocal(Op):
    node = "ReciprocalBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    saves = {"result": ("self",)}
    torch_names = ("reciprocal",)

    @staticmethod
    def forward(ctx, a):
        return _reciprocal(_promote.float_result(a))

    def backward(self, grad):
        result = self.saved("result")
        return -grad * conj(result * result)

    jvp = auto_element_wise


def _reciprocal(a: np.ndarray) -> np.ndarray:
    """torch's reciprocal kernel: ``1 / a``; for complex c10::complex's division of 1 by ``a``
    (_float_kernels.complex_divide: 0 gives inf+nanj, inf gives 0j with the signs of zero
    the scaled formula makes), where np.reciprocal gave nan+nanj, other signs and last bits."""
    if a.dtype.kind == "c":
        return _float_kernels.complex_divide(a.dtype.type(1), a)
    return np.reciprocal(a)


# -- powers -------------------------------------------------------------------------------------


# torch's pow(Tensor, Scalar) kernel computes these exponents of floating tensors with
# multiplications, a square root or a division instead of pow(), so the last bits follow those
# operations (x ** 3 is (x * x) * x; x ** -2 is 1 / (x * x)); the exponent 0.5 runs torch's
# sqrt kernel itself (MKL's vsSqrt where torch calls it: the same bits as leafgrad.sqrt).
def _ones_like(a: np.ndarray) -> np.ndarray:
    """``np.ones_like(a)`` (a's layout) in two C calls (NumPy's is a Python function: ~1 us
    more, on each row of a Hessian whose graph holds ``t ** 2``'s backward)."""
    out = np.empty_like(a)
    out.fill(1)
    return out


_FLOAT_POWERS = {
    # ATen's pow(Tensor, Scalar) fills ones for the exponent 0 and copies for 1 (no kernel)
    0: lambda a: _ones_like(a),
    1: lambda a: np.array(a, order="K"),
    2: lambda a: a * a,
    3: lambda a: a * a * a,
    0.5: _float_kernels.sqrt,
    -0.5: lambda a: np.reciprocal(np.sqrt(a)),
    -1: np.reciprocal,
    -2: lambda a: np.reciprocal(a * a),
}


def _half_special_power(a: np.ndarray, exponent):
    """float16 ``a ** exponent`` for the exponents computed in more than one step: torch's
    kernel works in float32 and rounds once (x ** 3 is float32's (x * x) * x rounded, x ** -0.5
    float32's 1 / sqrt(x): not its rsqrt kernel, which rounds the root to half first in places)."""
    return _FLOAT_POWERS[exponent](a.astype(np.float32)).astype(np.float16)


def _power(a, b):
    """``np.power`` of promoted operands (``a`` may be a Python number), with torch's
    signed-integer powers of negative exponents (NumPy refuses them): 1 for a base of 1, +-1
    for -1 (by the exponent's parity), 0 for any other base, 0 included."""
    dtype = np.result_type(a, b)
    if dtype.kind != "i":
        if dtype.kind == "b":  # (a tensor exponent; torch copies for the number exponents 0, 1)
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        if dtype == np.float64:  # the C library's pow (ops/_libm.py)
            return _libm.power(a, b)
        return np.power(a, b)
    negative = b < 0
    if not negative.any():
        return np.power(a, b)
    result = np.power(a, np.where(negative, 0, b).astype(b.dtype, copy=False))
    odd = (b & 1).astype(bool)
    inverse = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(dtype)
    return np.where(negative, inverse, result)


@register
class PowScalar(Op):
    """``self ** exponent`` for a Python number exponent."""

    node = "PowBackward0"
    inference_writes = staticmethod(_writes.pow_fill_or_copy)
    uint_params = ("exponent",)
    bfloat16_finish = staticmethod(_bfloat16.pow_steps)

    @staticmethod
    def uint_kernel(params, operands):
        """torch's pow fills or copies for the exponents 0 and 1 (no kernel), else refuses."""
        return None if params.get("exponent") in (0, 1) else "pow"

    complex_ok = True
    saves = {"self": ("self",)}
    torch_names = ("pow", "Tensor.__pow__")

    @staticmethod
    def forward(ctx, a, exponent):
        a, exp = _promote.binary(a, exponent)
        if a.dtype.kind in "iu" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if a.dtype.kind == "b":  # a bool exponent: torch fills (False) or copies (True)
            return np.array(a, order="K") if exponent else np.ones_like(a)
        if a.dtype.kind == "c" and exponent.__class__ in (int, float) and \
                exponent in (-1, -0.5, 0.5):
            # torch's pow kernel takes the reciprocal, rsqrt and sqrt kernels for these
            from .math_unary import _rsqrt

            with np.errstate(all="ignore"):
                return (_reciprocal if exponent == -1 else _rsqrt if exponent == -0.5
                        else np.sqrt)(a)
        if a.dtype.kind == "f":
            real = isinstance(exponent, (int, float)) and not isinstance(exponent, bool)
            special = _FLOAT_POWERS.get(exponent) if real else None
            if special is not None:
                if a.dtype == np.float16 and exponent in (3, -2, -0.5):
                    return _half_special_power(a, exponent)
                return special(a)
            if real and a.dtype == np.float32 and exponent not in (0, 1):
                return _float_kernels.pow_scalar(a, exponent)  # torch's bits
            if a.dtype == np.float64:  # the C library's pow (ops/_libm.py)
                return _libm.power(a, exp)
        return np.power(a, exp)

    def backward(self, grad):
        exponent = self._params["exponent"]
        if exponent == 0:  # torch: zeros_like(self) (grad * 0 would keep a NaN or inf of grad)
            return _zeros_like(grad)
        base = self.saved("self")
        if on_arrays() and base._data.dtype.kind == "f" and type(exponent) in (int, float):
            # Note: array-level backwards (activation.py): the calls below, unwrapped
            g = grad._data
            data = base._data
            if exponent == 1 and g.dtype is data.dtype and g.shape == data.shape \
                    and g.flags.c_contiguous and data.flags.c_contiguous:
                # grad * (1 * base ** 0): base ** 0 is 1 for every base (NaN and inf too), so
                # this is grad * 1.0, the same bits in one call (the node under every
                # ``x ** 2``'s gradient: a Hessian by rows runs it once per row)
                return _plain_ufunc(np.multiply, g, 1.0)
            power = _plain(PowScalar, base, exponent=exponent - 1)
            return _times(grad, _plain(MulScalar, power, other=exponent))
        return grad * conj(_scale(base.pow(exponent - 1), exponent))

    jvp = auto_element_wise


@register
class PowTensor(Op):
    """``self ** exponent`` for two tensors."""

    node = "PowBackward1"
    uint_kernel = "pow"
    complex_ok = True
    vmap = batch.elementwise
    inputs = ("self", "exponent")
    saves = {"self": ("self", "exponent"), "exponent": ("self", "exponent"),
             "result": ("exponent",)}
    broadcasts = True
    torch_names = ("pow",)

    @staticmethod
    def forward(ctx, a, b):
        a, b = _promote.binary(a, b)
        if a.dtype == np.float32 and b.dtype == np.float32:
            return _float_kernels.pow_tensor(a, b)  # torch's bits (ops/_float_kernels.py)
        return _power(a, b)

    def backward(self, grad):
        base = self.saved("self")
        grad_self = grad_exponent = None  # Note: the order of an op's input gradients
        if self.needs_grad(1):
            grad_exponent = _pow_grad_exponent(grad, base, self.saved("exponent"),
                                               self.saved("result"))
        if self.needs_grad(0):
            grad_self = _pow_grad_self(grad, base, self.saved("exponent"))
        return grad_self, grad_exponent

    def jvp(self, tangents, primals, result):
        base, exponent = primals
        return jvp_sum(tangents, lambda t: _pow_grad_self(t, base, exponent),
                       lambda t: _pow_grad_exponent(t, base, exponent, result))


def _pow_grad_self(grad, base, exponent):
    # d/dbase is 0 where the exponent is 0, even at base 0 (torch's pow_backward_self).
    return _where(exponent == 0, 0.0,
                  grad * conj(exponent * base.pow(SubScalar.apply(exponent, other=1))))


def _pow_grad_exponent(grad, base, exponent, result):
    # d/dexponent is 0 where base == 0 and exponent >= 0 (torch's pow_backward_exponent).
    real_exponent = exponent.real if exponent.is_complex() else exponent
    condition = (base == 0) & (real_exponent >= 0)
    if base.dtype != result.dtype:  # torch takes the log in the result dtype: self.to(...)
        base = base.to(result.dtype)
    return grad * _where(condition, 0.0, conj(result * base.log()))


@register
class PowScalarBase(Op):
    """``base ** exponent`` for a Python number base (``2 ** x``)."""

    node = "PowBackward2"
    uint_kernel = "pow"
    uint_params = ("base",)
    complex_ok = True
    inputs = ("exponent",)
    saves = {"result": ("exponent",), "exponent": ("exponent",)}
    torch_names = ("pow", "Tensor.__rpow__")

    @staticmethod
    def forward(ctx, exponent, base):
        exp, b = _promote.binary(exponent, base)
        if exp.dtype == np.float32 and not isinstance(base, complex):
            # torch computes pow(Scalar, Tensor) as pow of a wrapped 0-d tensor: the
            # tensor-tensor kernel's bits (ops/_float_kernels.py)
            return _layout.contiguous(_float_kernels.pow_tensor(np.asarray(b, np.float32), exp))
        return _layout.contiguous(_power(b, exp))

    def backward(self, grad):
        base = self._params["base"]
        result = self.saved("result")
        if base == 0:
            # 0 ** e: the gradient is 0 where e >= 0 (torch's pow_backward_exponent)
            log_base = float("-inf")  # log(0), without NumPy's divide-by-zero warning
            return grad * _where(self.saved("exponent") >= 0, 0.0, _scale(result, log_base))
        if isinstance(base, complex) or base < 0 and result._data.dtype.kind == "c":
            return grad * conj(_scale(result, complex(np.log(complex(base)))))
        if base < 0:  # a real Scalar's log, as torch takes it: NaN (never log|base|)
            return grad * _scale(result, math.nan)
        return grad * conj(_scale(result, float(np.log(base))))

    jvp = auto_element_wise


# -- unary math -------------------------------------------------------------------------------


class _Unary(Op):
    """Float-valued unary math: integer inputs compute in the default float dtype."""

    __slots__ = ()
    ufunc = None
    capture_ufunc = "ufunc"  # the class's own ufunc, where it is a NumPy ufunc

    @classmethod
    def forward(cls, ctx, a):
        return _layout.unary_like(cls.ufunc(_promote.float_result(a)), a)


@register
class Exp(_Unary):
    node = "ExpBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    saves = {"result": ("self",)}
    ufunc = staticmethod(_float_kernels.exp)  # float32: torch's bits (ops/_float_kernels.py)
    torch_names = ("exp",)

    @staticmethod
    def capture_kernel(a, out):  # Note: capture kernels in registry.py
        return _float_kernels.exp_into(a, out)

    capture_vml = "exp"  # MKL's function when it computes it (_compile/fuse.py)

    def backward(self, grad):
        return grad * conj(self.saved("result"))

    jvp = auto_element_wise


@register
class Log(_Unary):
    node = "LogBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    saves = {"self": ("self",)}
    ufunc = staticmethod(_float_kernels.log)  # float32: torch's bits (ops/_float_kernels.py)
    torch_names = ("log",)

    @staticmethod
    def capture_kernel(a, out):  # Note: capture kernels in registry.py
        return _float_kernels.log_into(a, out)

    capture_vml = "log"  # MKL's function when it computes it (_compile/fuse.py)

    def backward(self, grad):
        return grad / conj(self.saved("self"))

    jvp = auto_element_wise


@register
class Sqrt(_Unary):
    node = "SqrtBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    saves = {"result": ("self",)}
    ufunc = staticmethod(_float_kernels.sqrt)  # MKL's where installed (ops/_mkl.py)
    torch_names = ("sqrt",)

    @staticmethod
    def capture_kernel(a, out):  # Note: capture kernels in registry.py
        return _float_kernels.sqrt_into(a, out)

    capture_vml = "sqrt"  # MKL's function when it computes it (_compile/fuse.py)

    def backward(self, grad):
        return grad / conj(_scale(self.saved("result"), 2))

    jvp = auto_element_wise


@register
class Sin(_Unary):
    node = "SinBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    saves = {"self": ("self",)}
    ufunc = staticmethod(_float_kernels.sin)  # float32: torch's bits (ops/_float_kernels.py)
    torch_names = ("sin",)

    @staticmethod
    def capture_kernel(a, out):  # Note: capture kernels in registry.py
        return _float_kernels.sin_into(a, out)

    capture_vml = "sin"  # MKL's function when it computes it (_compile/fuse.py)

    def backward(self, grad):
        return grad * conj(self.saved("self").cos())

    jvp = auto_element_wise


@register
class Cos(_Unary):
    node = "CosBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    saves = {"self": ("self",)}
    ufunc = staticmethod(_float_kernels.cos)  # float32: torch's bits (ops/_float_kernels.py)
    torch_names = ("cos",)

    @staticmethod
    def capture_kernel(a, out):  # Note: capture kernels in registry.py
        return _float_kernels.cos_into(a, out)

    capture_vml = "cos"  # MKL's function when it computes it (_compile/fuse.py)

    def backward(self, grad):
        return grad * conj(-self.saved("self").sin())

    jvp = auto_element_wise


@register
class Tanh(_Unary):
    node = "TanhBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    saves = {"result": ("self",)}
    ufunc = staticmethod(_float_kernels.tanh)  # float32: torch's bits (ops/_float_kernels.py)
    torch_names = ("tanh",)

    @staticmethod
    def capture_kernel(a, out):  # Note: capture kernels in registry.py
        return _float_kernels.tanh_into(a, out)

    capture_vml = "tanh"  # MKL's function when it computes it (_compile/fuse.py)

    _factor = None  # Note: tanh's factor kept

    def backward(self, grad):
        result = conj(self.saved("result"))
        if on_arrays():  # Note: array-level backwards (activation.py); as TanhBackward.forward
            g, y = grad._data, result._data
            if g.dtype is y.dtype:
                factor = _kept_factor(self, y) if g.shape == y.shape else None
                token = _quiet()
                try:
                    out = _float_kernels.tanh_backward(g, y, factor=factor)  # torch's fused form
                except MemoryError as error:
                    raise _alloc_error(error) from None
                finally:
                    _loud(token)
                # as TanhBackward.apply orders it (Note: output layout)
                if g.ndim > 1 and not g.flags.c_contiguous and any(g.strides):
                    out = _layout.iterated(out, (g, y))
                return _wrap(out)
        return TanhBackward.apply(grad, result)

    jvp = auto_element_wise


def _sigmoid(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "c":
        return 1 / (1 + np.exp(-a))
    if a.dtype.kind == "f" and a.itemsize >= 4:
        return _float_kernels.sigmoid(a)  # float32: torch's bits (ops/_float_kernels.py)
    if a.dtype == np.float16:  # torch computes it in float32 and rounds once
        return _float_kernels.sigmoid(a.astype(np.float32)).astype(np.float16)
    # exp of a negative argument only, so large |a| neither overflows nor warns.
    out = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + out), out / (1 + out)).astype(a.dtype, copy=False)


@register
class Sigmoid(_Unary):
    node = "SigmoidBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    saves = {"result": ("self",)}
    ufunc = staticmethod(_sigmoid)
    torch_names = ("sigmoid",)

    def backward(self, grad):
        return SigmoidBackward.apply(grad, conj(self.saved("result")))

    jvp = auto_element_wise


def keep_self_on_ties(out: np.ndarray, a: np.ndarray, other=None, operands=()) -> np.ndarray:
    """torch's max/min/clamp kernels keep ``self`` where it ties with the other operand:
    ``maximum(-0., 0.)`` and ``clamp(-0., min=0.)`` are -0. (NumPy gives its second operand).
    Equal floats other than zeros are the same bits, so only zeros' signs are put back.

    With ``other`` (an array: maximum, minimum, clamp's tensor bounds) the elements torch's
    vectorised loop computes keep ``other`` instead: ``_mm256_max_ps(a, b)`` gives ``b`` on a
    tie (seed 34096: minimum of 9 float64 zeros and -0.). ``operands``: the op's array inputs,
    which decide those elements (``_layout.vectorized_elements``)."""
    if out.dtype.kind != "f" or a.dtype.kind != "f":
        return out
    out = np.asarray(out)  # (NumPy gives a 0-d operation a scalar)
    zeros = out == 0
    if not zeros.any():
        return out
    if a.shape != out.shape:
        a = np.broadcast_to(a, out.shape)
    lanes = None
    if other is not None and out.ndim:
        lanes = _layout.vectorized_elements(out.shape, operands or (a, other), out.itemsize)
    if lanes is None:
        np.copysign(out, a, out=out, where=zeros & (a == 0))
        return out
    other = np.broadcast_to(other, out.shape)
    ties = zeros & (a == 0) & (other == 0)
    np.copysign(out, np.where(lanes, other, a), out=out, where=ties)
    return out


def _where(condition, a, b):
    return OPS["Where"].apply(a, b, condition=condition)  # (ops/math_logic.py: loaded later)


@register
class TanhBackward(Op):
    """``grad * (1 - y**2)`` as its own node, as torch records it (TanhBackwardBackward0)."""

    node = "TanhBackwardBackward0"
    broadcasts = True  # under vmap its inputs broadcast (one batched, one not)
    complex_ok = True
    vmap = batch.elementwise
    inputs = ("grad_output", "output")
    saves = {"grad_output": ("output",), "output": ("grad_output", "output")}
    torch_names = ()

    _factor = None  # Note: tanh's factor kept

    @staticmethod
    def forward(ctx, grad, y, factor=None):
        grad, y = _promote.binary(grad, y)
        if y.dtype.kind == "c":
            return grad * (1 - y * y)
        # 1 - y * y fused, as torch's kernel (``factor``: that bracket, when the caller has it)
        return _float_kernels.tanh_backward(grad, y, factor=factor)

    @staticmethod
    def capture_kernel(grad, y, out):  # Note: capture kernels in registry.py
        return _float_kernels.tanh_backward(grad, y, out)

    capture_tape = "tanh_backward"  # its steps in ops/_numba_tape.py (_compile/fuse.py)

    def backward(self, gg):
        y = self.saved("output")
        grad_grad = grad_y = None
        if on_arrays():  # Note: array-level backwards (activation.py)
            if y._data.dtype.kind != "c":  # complex: the formula below, with its conj
                children = self._next_nodes
                if children[0] is not None:
                    g, data = gg._data, y._data
                    if g.dtype is data.dtype and g.shape == data.shape:
                        grad_grad = _plain(TanhBackward, gg, y, factor=_kept_factor(self, data))
                    else:
                        grad_grad = _plain(TanhBackward, gg, y)
                if children[1] is not None:  # gg * ((-2 * y) * grad_output), torch's order
                    grad_y = _times(gg, _times(_plain(MulScalar, y, other=-2),
                                               self.saved("grad_output")))
                return grad_grad, grad_y
        if self.needs_grad(0):
            grad_grad = TanhBackward.apply(gg, conj(y))
        if self.needs_grad(1):
            grad_y = gg * conj(_scale(y, -2) * self.saved("grad_output"))
        return grad_grad, grad_y

    def jvp(self, tangents, primals, result):
        grad, y = primals
        return jvp_sum(tangents, lambda t: TanhBackward.apply(t, y),
                       lambda t: t * (_scale(y, -2) * grad))


# Note: tanh's factor kept
# tanh's backward and its own backward (TanhBackward0, TanhBackwardBackward0) multiply by
# ``1 - y * y`` of the saved output, rounded once as torch's fused kernel rounds it: 17 NumPy
# passes in float64 (Dekker's exact product) for one product. A node that runs again on the
# same output (a Hessian by rows runs both once per row, retain_graph=True) keeps that factor
# from its second run on, with a copy of the output's bytes: it is reused while the output
# array is the same object holding the same bytes (a write through ``.numpy()`` that no version
# counter sees changes the bytes), so the product is the one computed from the output as it
# is, bit for bit. A node run once (every plain backward) keeps nothing. benchmarks/
# bench_chain.py's hessian case (n = 64, float64): tanh_backward 6.7 -> 0.6 us per call.


def _kept_factor(node, y: np.ndarray):
    """``_float_kernels.tanh_backward_factor(y)`` for a float32/float64 ``y`` saved on
    ``node``, kept from the node's second run on (Note: tanh's factor kept); None: compute it
    in the kernel (the first run, other dtypes)."""
    kept = node._factor
    if kept is None:
        node._factor = False  # ran once
        return None
    if y.dtype.char not in "fd" or type(y) is not np.ndarray:
        return None
    if kept is not False and kept[0] is y and kept[1] == y.tobytes():
        return kept[2]
    factor = _float_kernels.tanh_backward_factor(y)
    node._factor = (y, y.tobytes(), factor)
    return factor


@register
class SigmoidBackward(Op):
    """``grad * (1 - y) * y`` as its own node (SigmoidBackwardBackward0)."""

    node = "SigmoidBackwardBackward0"
    broadcasts = True  # under vmap its inputs broadcast (one batched, one not)
    complex_ok = True
    vmap = batch.elementwise
    inputs = ("grad_output", "output")
    saves = {"grad_output": ("output",), "output": ("grad_output", "output")}
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, y):
        grad, y = _promote.binary(grad, y)
        return grad * (1 - y) * y  # torch's kernel's order: (grad * (1 - y)) * y

    @staticmethod
    def capture_kernel(grad, y, out):
        t = np.subtract(1, y, out)
        np.multiply(grad, t, t)
        return np.multiply(t, y, t)

    # the same calls, inlined by the replay: (ufunc, operands...), "out" the result so far
    capture_steps = ((np.subtract, 1.0, 1), (np.multiply, 0, "out"), (np.multiply, "out", 1))

    def backward(self, gg):
        y = self.saved("output")
        grad_grad = grad_y = None
        if self.needs_grad(0):
            grad_grad = SigmoidBackward.apply(gg, conj(y))
        if self.needs_grad(1):
            # derivatives.yaml: grad.conj() * grad_output * (-2 * output.conj() + 1), the
            # Scalar product and sum recorded as MulBackward1 and AddBackward1 (1 - 2y is exact
            # either way)
            grad_y = gg * conj(self.saved("grad_output")) * (_scale(conj(y), -2) + 1)
        return grad_grad, grad_y

    def jvp(self, tangents, primals, result):
        grad, y = primals
        return jvp_sum(tangents, lambda t: SigmoidBackward.apply(t, y),
                       lambda t: t * (grad * (1 - _scale(y, 2))))


_SAME_SIZE_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def _threshold_grad(grad: np.ndarray, a: np.ndarray, threshold, out=None):
    """torch's ``self <= threshold ? 0 : grad`` (NaN in ``self`` passes the gradient).

    Float gradients: the bits of ``grad`` ANDed with a mask of all ones where it passes and
    all zeros (+0.) where it is blocked, so a passed gradient keeps its exact bits (-0., NaN,
    inf) and a blocked one is +0. even when the gradient is inf or NaN, as torch's select
    gives. Three array passes (a compare, a 1-byte subtract, one AND reading the mask as
    it widens it) instead of four with a float multiply by a bool mask and a ``+ 0.`` to
    turn -0. into 0. (benchmarks/bench_train.py, mlp512)."""
    itype = _SAME_SIZE_INT.get(grad.dtype.itemsize)
    if grad.dtype.kind != "f" or itype is None or grad.ndim == 0 or a.ndim == 0:
        zero = grad.dtype.type(0)
        return np.asarray(np.where(np.less_equal(a, threshold), zero, grad))
    mask = np.less_equal(a, threshold).view(np.int8)  # 1 where blocked
    np.subtract(mask, 1, out=mask)  # 0 where blocked, -1 (every bit set) where passed
    bits = grad.view(itype)
    if out is not None:
        result = out.view(itype)
        np.copyto(result, mask)
        np.bitwise_and(bits, result, out=result)
        return out
    if mask.shape != grad.shape and mask.shape != np.broadcast_shapes(mask.shape, grad.shape):
        return np.bitwise_and(bits, mask).view(grad.dtype)
    mask = mask.astype(itype)
    return np.bitwise_and(bits, mask, out=mask).view(grad.dtype)


@register
class ThresholdBackward(Op):
    """``grad`` unless ``self <= threshold``, else 0 (relu's backward, ThresholdBackwardBackward0).
    Its gradient in ``self`` is zero (torch's formula)."""

    node = "ThresholdBackwardBackward0"
    broadcasts = True  # under vmap its inputs broadcast (one batched, one not)
    vmap = batch.elementwise
    capture_params = ("threshold",)
    inputs = ("grad_output", "self")
    saves = {"self": ("grad_output",)}
    torch_names = ()
    # torch's TensorIterator takes ``self`` as its first operand, then the gradient, so self's
    # layout decides first (Note: output layout, _layout.py): a transposed gradient of a
    # row-major relu result gives a row-major gradient, which a later reshape views
    # (generated-program seed 167607); the forward orders the result itself
    iterated_in_forward = True

    @staticmethod
    def forward(ctx, grad, a, threshold):
        grad, a = _promote.binary(grad, a)
        out = _threshold_grad(grad, a, threshold)
        if type(out) is np.ndarray and out.ndim > 1:
            for operand in (a, grad):
                if type(operand) is np.ndarray and operand.ndim > 1 \
                        and not operand.flags.c_contiguous:
                    return _layout.iterated(out, (a, grad))
        return out

    @staticmethod
    def capture_kernel(grad, a, threshold, out):
        if _numba_kernels.active:  # one compiled pass, same bits (_numba_kernels)
            result = _numba_kernels.threshold_grad(grad, a, threshold, out)
            if result is not None:
                return result
        return _threshold_grad(grad, a, threshold, out)

    def backward(self, gg):
        grad_grad = None
        if self.needs_grad(0):
            grad_grad = ThresholdBackward.apply(gg, self.saved("self"),
                                                threshold=self._params["threshold"])
        # torch: self: zeros_like(grad), +0. (gg * 0 gave -0. where gg < 0: seed 20341)
        return grad_grad, (_zeros_like(gg) if self.needs_grad(1) else None)

    def jvp(self, tangents, primals, result):
        # torch: zeros_like(self_t) + threshold_backward(grad_output_t, self_p, threshold)
        threshold = self._params["threshold"]
        return jvp_sum(tangents,
                       lambda t: ThresholdBackward.apply(t, primals[1], threshold=threshold),
                       zeros_tangent)


@register
class Abs(Op):
    node = "AbsBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    complex_ok = True
    saves = {"self": ("self",)}
    torch_names = ("abs", "absolute")

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "b":  # torch has no bool kernel for abs
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        return _float_kernels.magnitude(a)

    def backward(self, grad):
        # abs'(0) is taken as 0 (sgn(0) = 0), matching torch. (ops/math_unary.py: loaded later)
        return grad * OPS["Sgn"].apply(self.saved("self"))

    jvp = auto_element_wise


@register
class Sign(Op):
    """sign(x); its gradient is zero everywhere (torch defines it so, rather than undefined)."""

    node = "SignBackward0"
    complex_message = 'Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.'
    torch_names = ("sign",)

    @staticmethod
    def forward(ctx, a):
        from .math_unary import sign_array

        return sign_array(a)  # sign(nan) is 0 in torch, nan in NumPy

    def backward(self, grad):
        from ._masks import zeros_tensor

        return zeros_tensor(grad._data.shape, grad._data.dtype)  # zero even for inf grads

    jvp = auto_element_wise


def _maximum_keeps_sign() -> frozenset:
    """The float dtypes for which ``np.maximum(0, x)`` gives torch's relu on this machine: x
    itself where x is -0. or NaN. IEEE leaves max(+0., -0.) to the implementation (x86's maxps
    returns its second operand, ARM's fmax +0.; NumPy's float16 loop differs), so this is
    probed once per dtype, on contiguous, strided and short arrays (NumPy's vector loops and
    their scalar tails)."""
    keeps = set()
    for dtype in (np.float16, np.float32, np.float64):
        values = np.tile(np.array([-0.0, np.nan, -1.0, 0.0, 2.0, -np.inf, np.inf], dtype), 41)
        for x in (values, values[::3], values[:5], values[:280].reshape(-1, 8)[:, 1:],
                  values[:1]):
            got = np.maximum(dtype(0), x)
            want = np.where(x < 0, dtype(0), x)
            if not (np.array_equal(np.signbit(got), np.signbit(want))
                    and np.array_equal(got, want, equal_nan=True)):
                break
        else:
            keeps.add(np.dtype(dtype))
    return frozenset(keeps)


_MAXIMUM_KEEPS_SIGN = _maximum_keeps_sign()


@register
class Relu(Op):
    node = "ReluBackward0"
    uint_kernel = "clamp_min_scalar_cpu"
    complex_message = 'clamp is not supported for complex types'
    saves = {"result": ("self",)}
    torch_names = ("relu",)

    @staticmethod
    def forward(ctx, a):
        if a.dtype == np.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        # torch keeps x unless x < 0, so relu(-0.) is -0. and NaN stays NaN. np.maximum is
        # ~4x faster than np.where here (benchmarks/bench_nn.py); with the zero first it
        # returns that zero only where it is strictly greater, on the machines where
        # _MAXIMUM_KEEPS_SIGN found so at import (one pass instead of three: 28 vs 42 us on
        # 512x256 float32). Elsewhere the sign of zero inputs is put back.
        if a.dtype in _MAXIMUM_KEEPS_SIGN:
            return np.maximum(a.dtype.type(0), a)
        out = np.maximum(a, a.dtype.type(0))
        if a.dtype.kind == "f":
            zeros = a == 0
            if zeros.any():
                if out.__class__ is not np.ndarray:  # (a 0-d input: NumPy gave a scalar)
                    out = np.array(out)
                np.copysign(out, a, out=out, where=zeros)
        return out

    @staticmethod
    def capture_kernel(a, out):
        if _numba_kernels.active:  # one compiled pass, same bits (_numba_kernels)
            result = _numba_kernels.relu(a, out)
            if result is not None:
                return result
        out = np.maximum(a, a.dtype.type(0), out=out)
        zeros = a == 0
        if zeros.any():
            np.copysign(out, a, out=out, where=zeros)
        return out

    def backward(self, grad):
        # relu'(0) is taken as 0, matching torch; gradcheck avoids x == 0.
        return ThresholdBackward.apply(grad, self.saved("result"), threshold=0)

    jvp = auto_element_wise


def _clamp_bounds(a, target, low, high):
    """clamp's number bounds in an integer or float16 result as torch converts them (overflow
    errors, unsigned wrap-around); a bool result has no kernel."""
    if target.kind == "b":
        kernel = ("clamp_max_scalar_cpu" if low is None else
                  "clamp_scalar_cpu" if high is not None else "clamp_min_scalar_cpu")
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    return tuple(None if bound is None else checked_operand(bound, target, floats=True)
                 for bound in (low, high))


@register
class Clamp(Op):
    """clamp with Python-number bounds."""
    cast_error_names_c_type = True  # clamp_(min=1.5) on ints names "signed char" (inplace.py)

    node = "ClampBackward1"
    uint_params = ("min", "max")

    @staticmethod
    def uint_kernel(params, operands):
        if params.get("min") is None:
            return "clamp_max_scalar_cpu"
        return "clamp_scalar_cpu" if params.get("max") is not None else "clamp_min_scalar_cpu"
    complex_message = 'clamp is not supported for complex types'
    saves = {"self": ("self",)}
    torch_names = ("clamp", "clip")

    @staticmethod
    def forward(ctx, a, min=None, max=None):  # noqa: A002 - torch's names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        bounds = [b for b in (min, max) if b is not None]
        target = _promote.result_np_dtype(a, *bounds)
        if target.kind in "biu" or target.char == "e":  # torch's checked bound conversion
            min, max = _clamp_bounds(a, target, min, max)
        # torch's min(max(x, min), max): each step keeps its own operand on a tie (zeros' signs)
        out = a.astype(target, copy=False)
        if target.kind == "f" and out.ndim:
            # one np.clip (NaN propagates as through maximum and minimum; a missing bound is an
            # infinite one) with one fix-up of zeros' signs where the value ties a zero bound:
            # ~0.4 ms for 2**20 float32 where maximum, minimum and two fix-ups took ~3 ms
            # (benchmarks/bench_large.py, clamp)
            low = target.type(-np.inf if min is None else min)
            high = target.type(np.inf if max is None else max)
            # (a NaN bound, or two zero bounds, whose signs decide a tie between them: the two
            # steps below)
            if low == low and high == high and (low != 0 or high != 0):
                clipped = np.clip(out, low, high)
                # (bounds that cross give the upper one everywhere, ties none)
                return clipped if low > high else keep_self_on_ties(clipped, out)
        if min is not None:
            out = keep_self_on_ties(np.asarray(np.maximum(out, target.type(min))), out)
        if max is not None:
            out = keep_self_on_ties(np.asarray(np.minimum(out, target.type(max))), out)
        return out

    def backward(self, grad):
        x = self.saved("self")
        low, high = self._params.get("min"), self._params.get("max")
        mask = None
        if low is not None:
            mask = x >= low
        if high is not None:
            mask = (x <= high) if mask is None else (mask & (x <= high))
        # where, not grad * mask: an infinite incoming gradient outside [min, max] gives 0
        # there, as torch's clamp_backward does (inf * False would be nan)
        return _where(mask, grad, 0.0)

    jvp = auto_element_wise


@register
class MaskedZero(Op):
    """``where(mask, 0, self)``: zero a gradient where a formula has a removable 0 * inf."""

    node = "MaskedFillBackward0"
    # masked_fill's backward recorded under create_graph saves masked_fill's mask (Note: saved
    # index tensors, registry.py)
    index_saves = {"mask": ()}
    uint_kernel = "masked_fill"
    complex_ok = True  # a linear mask: the same for complex values
    vmap = batch.elementwise
    inputs = ("self",)
    broadcasts = True
    torch_names = ("masked_fill",)

    @staticmethod
    def forward(ctx, a, mask):
        shape = a.shape if a.shape == mask.shape else np.broadcast_shapes(a.shape, mask.shape)
        out = np.array(np.broadcast_to(a, shape), copy=True, order="C")
        out[np.broadcast_to(mask, shape)] = 0
        return out

    def backward(self, grad):
        return grad._masked_zero(self._params["mask"])

    jvp = auto_linear


# -- comparisons (outputs never require grad) --------------------------------------------------


class _Compare(Op):
    __slots__ = ()
    differentiable = False
    inputs = ("self", "other")
    ufunc = None

    @classmethod
    def forward(cls, ctx, a, b):
        a, b = _promote.binary(a, b)
        return cls.ufunc(a, b)


@register
class Eq(_Compare):
    node = "EqBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    ufunc = np.equal
    torch_names = ("eq", "Tensor.__eq__")


@register
class Ne(_Compare):
    node = "NeBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    ufunc = np.not_equal
    torch_names = ("ne", "Tensor.__ne__")


@register
class Lt(_Compare):
    node = "LtBackward0"
    vmap = batch.elementwise
    ufunc = np.less
    torch_names = ("lt", "Tensor.__lt__")


@register
class Le(_Compare):
    node = "LeBackward0"
    vmap = batch.elementwise
    ufunc = np.less_equal
    torch_names = ("le", "Tensor.__le__")


@register
class Gt(_Compare):
    node = "GtBackward0"
    vmap = batch.elementwise
    ufunc = np.greater
    torch_names = ("gt", "Tensor.__gt__")


@register
class Ge(_Compare):
    node = "GeBackward0"
    vmap = batch.elementwise
    ufunc = np.greater_equal
    torch_names = ("ge", "Tensor.__ge__")


def _bitwise_check(a, b, name):
    if a.dtype.kind == "f":
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_legacy_name(a)}\'')


def _legacy_name(a):
    return from_numpy_dtype(a.dtype)._legacy


class _Bitwise(_Compare):
    __slots__ = ()

    @classmethod
    def forward(cls, ctx, a, b):
        a, b = _promote.binary(a, b)
        _bitwise_check(a, b, cls.kernel)
        return cls.ufunc(a, b)


@register
class BitwiseAnd(_Bitwise):
    node = "BitwiseAndBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    ufunc = np.bitwise_and
    kernel = "bitwise_and"
    bfloat16_kernel = _bfloat16.integer_kernel("bitwise_and_cpu")
    torch_names = ("bitwise_and", "Tensor.__and__")


@register
class BitwiseOr(_Bitwise):
    node = "BitwiseOrBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    ufunc = np.bitwise_or
    kernel = "bitwise_or"
    bfloat16_kernel = _bfloat16.integer_kernel("bitwise_or_cpu")
    torch_names = ("bitwise_or", "Tensor.__or__")


@register
class BitwiseXor(_Bitwise):
    node = "BitwiseXorBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.elementwise
    ufunc = np.bitwise_xor
    kernel = "bitwise_xor"
    bfloat16_kernel = _bfloat16.integer_kernel("bitwise_xor_cpu")
    torch_names = ("bitwise_xor", "Tensor.__xor__")


def _shift_operands(a, b, kernel):
    a, b = _promote.binary(a, b)
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{_legacy_name(a)}\'')
    a, b = np.asarray(a), np.asarray(b)
    # torch shifts by an amount outside [0, bits) as if by the whole width: nothing is left
    # of a left shift, a right shift leaves only the sign
    bits = a.dtype.itemsize * 8
    in_range = (b >= 0) & (b < bits)
    return a, b, in_range, bits


@register
class LeftShift(_Compare):
    node = "LshiftBackward1"
    uint_kernel = "lshift_cpu"
    bfloat16_kernel = _bfloat16.integer_kernel("lshift_cpu")
    complex_message = '"lshift_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.elementwise
    torch_names = ("bitwise_left_shift", "Tensor.__lshift__")

    @staticmethod
    def forward(ctx, a, b):
        a, b, in_range, _ = _shift_operands(a, b, "lshift")
        shifted = np.left_shift(a, np.where(in_range, b, 0).astype(a.dtype, copy=False))
        return np.where(in_range, shifted, np.zeros((), a.dtype))


@register
class RightShift(_Compare):
    node = "RshiftBackward1"
    uint_kernel = "rshift_cpu"
    bfloat16_kernel = _bfloat16.integer_kernel("rshift_cpu")
    complex_message = '"rshift_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.elementwise
    torch_names = ("bitwise_right_shift", "Tensor.__rshift__")

    @staticmethod
    def forward(ctx, a, b):
        a, b, in_range, bits = _shift_operands(a, b, "rshift")
        if a.dtype.kind == "u":
            shifted = np.right_shift(a, np.where(in_range, b, 0).astype(a.dtype, copy=False))
            return np.where(in_range, shifted, np.zeros((), a.dtype))
        return np.right_shift(a, np.where(in_range, b, bits - 1).astype(a.dtype, copy=False))


@register
class BitwiseNot(Op):
    node = "BitwiseNotBackward0"
    vmap = batch.elementwise
    differentiable = False
    torch_names = ("bitwise_not", "Tensor.__invert__")

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "f":
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return np.invert(a)


# -- copies, casts and fills ------------------------------------------------------------------


@register
class Clone(Op):
    node = "CloneBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    bfloat16_native = True  # a copy of the bits (a NaN's payload too), not a float32 round trip
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    torch_names = ("clone", "Tensor.contiguous")

    @staticmethod
    def forward(ctx, a, memory_format=None):
        if memory_format is contiguous_format:
            return np.array(a, copy=True, order="C")
        if memory_format is channels_last or memory_format is channels_last_3d:
            rank, name = (4, "channels_last") if memory_format is channels_last else (
                5, "channels_last_3d")
            if a.ndim != rank:
                raise RuntimeError(f"required rank {rank} tensor to use {name} format")
            return _layout.to_channels_last(a)
        return _layout.copy_like(a)  # torch's preserve_format

    def backward(self, grad):
        return grad

    jvp = auto_linear


@register
class ToCopy(Op):
    """A copy in another dtype (``.double()``, ``.to(torch.float16)``)."""

    node = "ToCopyBackward0"
    inference_writes = 1  # Note: kernels' writes on inference operands
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    torch_names = ("Tensor.to", "Tensor.double", "Tensor.float", "Tensor.half")

    @staticmethod
    def forward(ctx, a, dtype, memory_format=None):
        if memory_format is not None:  # to(memory_format=...): the copy laid out so
            return Clone.forward(None, ToCopy.forward(None, a, dtype), memory_format)
        if a.dtype.kind == "c" and dtype.kind not in "cb":  # to bool: z != 0, silently
            _warn_complex_to_real()
            a = a.real
        if dtype.kind == "V" and a.dtype != dtype:  # to bfloat16: torch's rounding and NaNs
            return _layout.like(_bfloat16.to_bfloat16(a), a)
        if dtype.char == "e" and a.dtype.char != "e":  # Note: casts to float16 (_dtype.py)
            return _layout.like(_dtype_module.half_cast(a), a)
        return _layout.like(a.astype(dtype, copy=True), a)  # clone's layout (Preserve)

    def backward(self, grad):
        # The base class casts the gradient back to the input's dtype.
        return grad

    jvp = auto_linear


def _warn_complex_to_real() -> None:
    """torch's copy kernel (behind copy_ and to()) warning; torch gives it once per process
    (TORCH_WARN_ONCE), leafgrad at each cast (Python's filters show it once per call site)."""
    import warnings

    warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                  stacklevel=4)


@register
class Copy(Op):
    """``self.copy_(src)``: the old value of self gets no gradient; src gets it all."""

    node = "CopyBackwards"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    qualified_name = "torch::autograd::CopyBackwards"  # what name() says; the class is CopyBackwards
    inputs = ("self", "src")
    broadcasts = True
    torch_names = ("Tensor.copy_",)

    @staticmethod
    def forward(ctx, a, src):
        if not isinstance(src, np.ndarray):
            src = np.asarray(src)
        if src.shape != a.shape:
            _promote.check_broadcast(a.shape, src.shape)
        src = np.broadcast_to(src, np.broadcast_shapes(a.shape, src.shape))
        if src.dtype.kind == "c" and a.dtype.kind not in "cb":  # (torch's warning, not NumPy's
            _warn_complex_to_real()  # ComplexWarning)
            src = src.real
        if a.dtype.char == "e" and src.dtype.char != "e":  # Note: casts to float16 (_dtype.py)
            return _dtype_module.half_cast(src)
        return src.astype(a.dtype)

    def backward(self, grad):
        src = grad
        meta = self._input_meta[1]
        if meta is not None and meta[1] != grad._data.dtype and \
                (meta[1].kind == "c") == (grad._data.dtype.kind == "c"):
            # torch's CopyBackwards casts to the source's dtype itself (grad.to(src's
            # options)); the engine then sums a broadcast source's gradient in that dtype

            src = grad.to(_np_to_dtype(meta[1]))
        return _zeros_like(grad), src  # the overwritten values: torch's zeros_like(grad)

    def jvp(self, tangents, primals, result):
        # torch's copy_: the source's tangent (broadcast), or zeros when the source has none
        source = tangents[1]
        return source if source is not None else zeros_tangent(result)

    # a target without a tangent gets a copy of the source's (see Note: copy_'s tangent,
    # ops/_forward.py)
    tangent_from_source = True


@register
class Zero(Op):
    node = "ZeroBackward0"
    overlap_writes = "silent"  # (Note: writes through expanded tensors, ops/inplace.py)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    torch_names = ("Tensor.zero_",)

    @staticmethod
    def forward(ctx, a):
        return np.zeros_like(a)

    def backward(self, grad):
        return _zeros_like(grad)  # torch: zeros_like(grad)

    jvp = auto_linear


@register
class Fill(Op):
    node = "FillBackward2"
    overlap_writes = "silent"  # (Note: writes through expanded tensors, ops/inplace.py)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    torch_names = ("Tensor.fill_",)

    @staticmethod
    def forward(ctx, a, value):
        if a.dtype.kind == "u":  # uint16/32/64 convert as torch does (_construct.unsigned_fill)
            value = unsigned_fill(value, a.dtype)
        return np.full_like(a, value)

    def backward(self, grad):
        return _zeros_like(grad)  # torch: zeros_like(grad)

    def jvp(self, tangents, primals, result):
        return zeros_tangent(result)  # torch: self_t.fill_(0)


@register
class FillTensor(Op):
    """``fill_`` with a 0-d tensor value: the value gets the summed gradient."""

    node = "FillBackward3"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.fill_tensor
    inputs = ("self", "value")
    torch_names = ("Tensor.fill_",)

    @staticmethod
    def forward(ctx, a, value):
        if value.ndim != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        return np.full_like(a, value)

    def backward(self, grad):
        return _zeros_like(grad), grad.sum()

    def jvp(self, tangents, primals, result):
        value = tangents[1]  # torch: self_t.fill_(value_t)
        return value.expand(result.shape) if value is not None else zeros_tangent(result)
