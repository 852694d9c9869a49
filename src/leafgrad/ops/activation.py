"""Activations and (log-)softmax, with torch's node names.

Backwards multiply the incoming grad by masks (constants) and smooth Tensor expressions, so
every order of derivative is recorded; the kinks use torch's one-sided choices.
"""

from __future__ import annotations

import math

import numpy as np

from . import _float_kernels, _isa, _layout, _libm, _mkl, _onednn, _promote, _sleef_unary
from . import _sleef_double
from . import _softmax_reduced
from ..backends import cpu as _cpu
from ._select import SELECT_MIN as _SELECT_MIN, where as _where, where_into as _where_into
from ._special import erf
from ..tensor import _wrap
from ._forward import auto_element_wise, jvp_sum, logsumexp_jvp
from . import _batching_rules as batch
from . import _uint
from ._double_backward import ActivationBackward, records_double_backward
from .registry import Op, array_kernel, on_arrays, plain_backward, register
from ._bfloat16 import to_bfloat16
from .elementwise import _scale, _sigmoid, SigmoidBackward
from .._compile.state import state as capture
from .elementwise import _legacy_name
from .._dtype import from_numpy_dtype
from .special_fns import AddScalarFormula

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_BETA = math.sqrt(2.0 / math.pi)
_TANH_KAPPA = 0.044715


_select_dtypes = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def _float(a: np.ndarray) -> np.ndarray:
    return _promote.float_result(a)


def _floating(a: np.ndarray, kernel: str) -> np.ndarray:
    """``a`` (floating); an integer or bool array gets torch's error for its kernel, which has
    no integer form: ``"elu_cpu" not implemented for 'Long'``."""
    if a.dtype.kind in "iub":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_legacy_name(a)}\'')
    return _float(a)


def _mask(condition: np.ndarray, like: np.ndarray):
    """A constant 0/1 tensor in ``like``'s dtype."""
    from ..tensor import _wrap

    return _wrap(condition.astype(like.dtype))


# Note: masks as kernels
# A backward's constant (a 0/1 mask, a slope per element) is computed from the saved input's
# values with NumPy; ``kernel_tensor`` makes that computation one call of a module-level
# function through ``registry.array_kernel``, so that leafgrad.compile records it as a node of
# the captured graph (its inputs graph values) and a replay computes it again from the new
# values. Eagerly it is the same NumPy calls as before (one flag test more).


# Note: reduced-float activation backwards
# torch's CPU kernels of an activation's backward (silu_backward, softplus_backward,
# log_sigmoid_backward, mish_backward, hardswish_backward, elu_backward, tanh_backward) take
# float16 and bfloat16 operands in their isReducedFloatingType branch: each element converted
# to float, the float32 formula computed there, the result rounded once. leafgrad's float16
# and bfloat16 backwards were the Tensor formula in the reduced dtype, every step rounded
# (silu's gradient differed on half of float16 inputs). ``reduced_in_float`` is that branch:
# the op's float32 backward on the widened operands, rounded to the gradient's dtype.

_REDUCED_FLOATS = ("float16", "bfloat16")


def reduced_in_float(backward, grad, *saved):
    """``backward(grad, *saved)`` (the float32 formula, Tensors in and out) computed in float32
    and rounded once, when ``grad`` and every ``saved`` Tensor are one float16/bfloat16 dtype
    and nothing records (Note: reduced-float activation backwards); otherwise None."""
    dtype = grad.dtype
    if dtype.name not in _REDUCED_FLOATS or not on_arrays():
        return None
    for tensor in saved:
        if tensor.dtype is not dtype:
            return None
    return backward(grad.float(), *(tensor.float() for tensor in saved)).to(dtype)


def kernel_tensor(fn, *arrays, **params):
    """``fn(*arrays, **params)`` (arrays in, one array out) as a constant Tensor."""
    return _wrap(array_kernel(fn, *arrays, **params))


def _leaky_slopes(x: np.ndarray, slope: float) -> np.ndarray:
    return _where(x > 0, 1.0, slope).astype(x.dtype)


def _ones_mask(x: np.ndarray) -> np.ndarray:
    return np.ones_like(x, dtype=bool).astype(x.dtype)


def _nonpositive(x: np.ndarray) -> np.ndarray:
    return x <= 0


def _inside_open(x: np.ndarray, low: float, high: float) -> np.ndarray:
    """1 strictly inside (low, high), else 0 (NaN: 1), in x's dtype."""
    return (~((x <= low) | (x >= high))).astype(x.dtype)


def _above(x: np.ndarray, scale: float, threshold: float) -> np.ndarray:
    return (x * scale > threshold).astype(x.dtype)


class _SlopeBackward(Op):
    """torch's ``<activation>_backward(grad_output, self, ...)`` for activations whose slope
    depends on ``self`` only through a comparison (hardtanh, hardshrink, softshrink,
    leaky_relu): ``grad`` times the slope, a blocked gradient being +0. (torch selects, so a
    blocked -1. gives 0., where a product by a 0/1 mask gave -0.). Under create_graph it is
    torch's node (HardtanhBackwardBackward0...): in grad_output the same op on the incoming
    gradient, in self zero (the slope is flat), so a second derivative in x exists and is 0."""

    broadcasts = True
    vmap = batch.elementwise
    inputs = ("grad_output", "self")
    saves = {"self": ("grad_output",)}
    torch_names = ()

    @classmethod
    def forward(cls, ctx, grad, a, **params):
        grad, a = _promote.binary(grad, a)
        return np.asarray(cls.select(grad, a, **params))

    def backward(self, gg):
        cls = type(self)
        grad_grad = cls.apply(gg, self.saved("self"), **self._params) \
            if self.needs_grad(0) else None
        grad_self = None
        if self.needs_grad(1):  # torch: zeros_like(grad)
            from .. import zeros_like

            grad_self = zeros_like(gg)
        return grad_grad, grad_self

    def jvp(self, tangents, primals, result):
        cls, params = type(self), self._params
        return jvp_sum(tangents, lambda t: cls.apply(t, primals[1], **params), _zero_tangent)


def _zero_tangent(tangent):
    return tangent * 0


# Note: NaN in a vectorised blend
# torch's backward kernels of hardtanh, hardshrink/softshrink, elu and hardswish have a scalar
# op and a vectorised op that disagree on a NaN input: the scalar comparisons fall through to
# one branch, the vectors' masks to another (0 for hardtanh and the shrinks, NaN for elu, NaN
# for hardswish). Which one an element gets depends on its place in TensorIterator's runs
# (_layout.vectorized_elements); float16/bfloat16 and integer inputs take the scalar op here.


def _vectorised_nan(grad: np.ndarray, a: np.ndarray, avx512: bool = False):
    """Where a NaN input takes torch's vectorised op of ``kernel(grad, a)`` (None: nowhere).
    ``avx512``: the kernel has an AVX-512 build (_layout.vectorized_elements)."""
    if a.dtype not in (np.float32, np.float64) or grad.dtype != a.dtype:
        return None
    nan = np.isnan(a)
    if not nan.any():
        return None
    shape = np.broadcast_shapes(grad.shape, a.shape)
    vectorised = _layout.vectorized_elements(shape, (grad, a), a.itemsize, avx512)
    return None if vectorised is None else vectorised & nan


def _blocking_nan(out, grad: np.ndarray, a: np.ndarray):
    """``out`` with 0 where a NaN input takes the vectorised op (which blocks the gradient)."""
    where = _vectorised_nan(grad, a)
    if where is None or not where.any():
        return out
    out = np.array(out)
    out[where] = 0
    return out


@register
class HardtanhBackward(_SlopeBackward):
    node = "HardtanhBackwardBackward0"

    @staticmethod
    def select(grad, a, min_val, max_val):
        # torch's scalar op: (x <= min_val || x >= max_val) ? 0 : grad (NaN passes); its
        # vectorised op blocks a NaN (Note: NaN in a vectorised blend)
        return _blocking_nan(_where((a <= min_val) | (a >= max_val), grad.dtype.type(0), grad),
                             grad, a)


@register
class LeakyReluBackward(_SlopeBackward):
    node = "LeakyReluBackwardBackward0"

    @staticmethod
    def select(grad, a, negative_slope):
        return _leaky(grad, a, negative_slope)


def _leaky(values: np.ndarray, a: np.ndarray, slope: float) -> np.ndarray:
    """``where(a > 0, values, values * slope)`` (leaky_relu and its backward): for large float
    arrays the product's array takes the selection in place (~1 ms for 2**20 float32 where a
    select into a new array took ~3 ms: benchmarks/bench_large.py, leaky_relu)."""
    if values.dtype == np.float16:  # torch computes a reduced float type's product in float32
        scaled = (values.astype(np.float32) * np.float32(slope)).astype(np.float16)
    else:
        scaled = values * values.dtype.type(slope)
    if (values.dtype in _select_dtypes and scaled.size >= _SELECT_MIN
            and a.shape == scaled.shape == values.shape):
        # (not a > 0, where a NaN takes the product too)
        return _where_into(np.logical_not(a > 0), np.asarray(scaled), values)
    return _where(a > 0, values, scaled)


@register
class ShrinkBackward(_SlopeBackward):
    """hardshrink_backward and softshrink_backward: the same mask (named per activation)."""

    node = "HardshrinkBackwardBackward0"

    @staticmethod
    def select(grad, a, lambd):
        # torch's scalar op: (x >= -lambd && x <= lambd) ? 0 : grad (NaN passes); its
        # vectorised op blocks a NaN (Note: NaN in a vectorised blend)
        return _blocking_nan(_where((a >= -lambd) & (a <= lambd), grad.dtype.type(0), grad),
                             grad, a)


@register
class SoftshrinkBackward(ShrinkBackward):
    node = "SoftshrinkBackwardBackward0"


@register
class LeakyRelu(Op):
    node = "LeakyReluBackward0"
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.leaky_relu",)

    @staticmethod
    def forward(ctx, a, negative_slope):
        _floating(a, "leaky_relu_cpu")
        if 0 < negative_slope <= 1 and a.dtype in _select_dtypes[1:]:
            # a slope in (0, 1] keeps the larger of x and slope * x (zeros' signs, NaN and
            # infinities alike): one maximum, ~0.4 ms for 2**20 float32 where the select took
            # ~1 ms (benchmarks/bench_large.py, leaky_relu)
            return np.maximum(a, a * a.dtype.type(negative_slope))
        return _leaky(a, a, negative_slope)

    def backward(self, grad):
        return LeakyReluBackward.apply(grad, self.saved("self"),
                                       negative_slope=self._params["negative_slope"])

    jvp = auto_element_wise


@register
class Elu(Op):
    """elu / selu / celu: ``scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))``."""

    node = "EluBackward0"
    saves = {"self": ("self",)}
    # torch's kernels read alpha, scale and input_scale as float for bfloat16 (opmath), not
    # rounded to bfloat16 as add's alpha (Note: opmath for bfloat16, ops/_bfloat16.py)
    opmath_scalars = True
    torch_names = ("nn.functional.elu", "nn.functional.selu")

    @staticmethod
    def forward(ctx, a, alpha, scale, input_scale):
        a = _floating(a, "elu_cpu")
        if a.dtype == np.float16:  # torch computes it in float32 and rounds once
            return Elu.forward(ctx, a.astype(np.float32), alpha, scale,
                               input_scale).astype(np.float16)
        if a.dtype == np.float32:  # torch's kernel: SLEEF's expm1f in the vectors
            return _sleef_unary.elu(a, alpha, scale, input_scale)
        if a.dtype == np.float64:  # torch's kernel: SLEEF's expm1 in the vectors
            return _sleef_double.elu(a, alpha, scale, input_scale)
        with np.errstate(over="ignore"):
            negative = alpha * _libm.expm1(a * input_scale)  # -0. stays -0., as torch
        return (scale * _where(a > 0, a, negative)).astype(a.dtype)

    def backward(self, grad):
        return EluBackward.apply(grad, self.saved("self"), **self._params)

    jvp = auto_element_wise


@register
class EluBackward(_SlopeBackward):
    """torch's elu_backward(grad, alpha, scale, input_scale, is_result=False, self):
    ``x <= 0 ? grad * alpha * scale * input_scale * exp(x * input_scale) : grad * scale`` (a
    NaN input passes grad * scale). Its derivative in self is torch's elu_double_backward,
    ``elu_backward(gg * grad * input_scale, self) * (self < 0)``: 0 at x = 0 (signed)."""

    node = "EluBackwardBackward0"
    saves = {"self": ("grad_output", "self"), "grad_output": ("self",)}
    opmath_scalars = True  # (as Elu's)

    @staticmethod
    def select(grad, a, alpha, scale, input_scale, is_result=False):
        if is_result:  # a is the result (elu_, selu_, celu_)
            return _elu_result_backward(grad, a, alpha, scale, input_scale)
        if grad.dtype == np.float32:  # torch's kernel: SLEEF's expf in the vectors
            return _sleef_unary.elu_backward(grad, a, alpha, scale, input_scale)
        if grad.dtype == np.float64:  # torch's kernel: SLEEF's exp in the vectors
            return _sleef_double.elu_backward(grad, a, alpha, scale, input_scale)
        rounding = _reduced_rounding(a) if grad.dtype == a.dtype else None
        if rounding is not None:  # float16/bfloat16: ATen's float kernel, rounded once
            return rounding(_sleef_unary.elu_backward(grad.astype(np.float32),
                                                      a.astype(np.float32), alpha, scale,
                                                      input_scale))
        with np.errstate(over="ignore"):
            negative = grad * (_libm.exp(np.minimum(a, 0) * input_scale)  # (ops/_libm.py)
                               * grad.dtype.type(alpha * scale * input_scale))
        out = _where(a <= 0, negative, grad * grad.dtype.type(scale)).astype(grad.dtype)
        where = _vectorised_nan(grad, a, avx512=True)  # (Note: NaN in a vectorised blend)
        if where is not None and where.any():
            out[where] = np.nan
        return out

    def backward(self, gg):
        x, params = self.saved("self"), self._params
        grad_grad = EluBackward.apply(gg, x, **params) if self.needs_grad(0) else None
        grad_self = None
        if self.needs_grad(1):
            grad_self = _elu_double_backward(gg, self.saved("grad_output"), x, params)
        return grad_grad, grad_self

    def jvp(self, tangents, primals, result):
        grad, x = primals
        params = self._params
        return jvp_sum(
            tangents, lambda t: EluBackward.apply(t, x, **params),
            lambda t: _elu_double_backward(t, grad, x, params))


def _elu_double_backward(grad, grad_output, x, params):
    """torch's elu_double_backward: ``elu_backward(grad * grad_output * input_scale, x) * (x <
    0)``, or from the result ``grad * grad_output * input_scale * (result < 0)`` (a Scalar
    product, MulBackward1, for a reduced float type's too)."""
    scaled = _scale(grad * grad_output, params["input_scale"])
    if not params.get("is_result"):
        scaled = EluBackward.apply(scaled, x, **params)
    return scaled * kernel_tensor(_negative_mask, x._data)


def _elu_result_backward(grad, r, alpha, scale, input_scale):
    """torch's elu_backward kernel from the result: ``r <= 0 ? grad * input_scale * (r + alpha
    * scale) : grad * scale``, in that order (a reduced float type in float32, rounded once)."""
    dtype = grad.dtype
    work = dtype.type if dtype in (np.float32, np.float64) else np.float32
    g, r = grad.astype(work, copy=False), r.astype(work, copy=False)
    negative = g * work(input_scale) * (r + work(alpha) * work(scale))
    return _where(r <= 0, negative, g * work(scale)).astype(dtype, copy=False)


def _negative_mask(x: np.ndarray) -> np.ndarray:
    return (x < 0).astype(x.dtype)


@register
class Celu(Elu):
    """celu(x, alpha) = elu with input_scale 1/alpha; torch records its own node name."""

    node = "CeluBackward0"
    complex_message = '"elu_cpu" not implemented for \'ComplexFloat\''
    torch_names = ("nn.functional.celu",)

    def backward(self, grad):
        # torch's formula: elu_backward(grad, alpha, 1, 1.0 / alpha.toFloat(), false, self): the
        # input scale from alpha rounded to float32 first (the forward's is 1 / alpha)
        params = dict(self._params)
        params["input_scale"] = 1.0 / float(np.float32(params["alpha"]))
        return EluBackward.apply(grad, self.saved("self"), **params)


@register
class Gelu(Op):
    node = "GeluBackward0"
    complex_message = '"GeluKernelImpl" not implemented for \'ComplexFloat\''
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.gelu",)

    @staticmethod
    def forward(ctx, a, approximate):
        a = _floating(a, "GeluKernelImpl")
        if a.dtype == np.float32:
            return _gelu32(a, approximate)
        if a.dtype == np.float64:  # SLEEF's tanh or erf in the vectors
            return (_sleef_double.gelu_tanh(a) if approximate == "tanh"
                    else _sleef_double.gelu_erf(a))
        x = a.astype(np.float64)
        if approximate == "tanh":
            out = 0.5 * x * (1.0 + np.tanh(_TANH_BETA * (x + _TANH_KAPPA * x ** 3)))
        else:
            out = 0.5 * x * (1.0 + erf(x * _SQRT_HALF))
        return out.astype(a.dtype)

    def backward(self, grad):
        return GeluBackward.apply(grad, self.saved("self"), approximate=self._params["approximate"])

    jvp = auto_element_wise


@register
class GeluBackward(Op):
    """``grad * gelu'(x)``; linear in grad, so its own grad in grad is itself again."""

    node = "GeluBackwardBackward0"
    broadcasts = True  # under vmap its inputs broadcast (one batched, one not)
    vmap = batch.elementwise
    inputs = ("grad_output", "self")
    saves = {"grad_output": ("self",), "self": ("grad_output", "self")}
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, a, approximate):
        if a.dtype == np.float32 and grad.dtype == np.float32:
            return _gelu32_backward(grad, a, approximate)
        if a.dtype == np.float64 == grad.dtype:
            return (_sleef_double.gelu_tanh_backward(grad, a) if approximate == "tanh"
                    else _sleef_double.gelu_erf_backward(grad, a))
        x = a.astype(np.float64)
        if approximate == "tanh":
            inner = _TANH_BETA * (x + _TANH_KAPPA * x ** 3)
            t = np.tanh(inner)
            derivative = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _TANH_BETA * (
                1 + 3 * _TANH_KAPPA * x * x
            )
        else:
            cdf = 0.5 * (1.0 + erf(x * _SQRT_HALF))
            derivative = cdf + x * _INV_SQRT_2PI * np.exp(-0.5 * x * x)
        return (grad * derivative).astype(np.result_type(grad, a))

    def backward(self, grad):
        approximate = self._params["approximate"]
        x = self.saved("self")
        grad_grad = grad_x = None
        if self.needs_grad(0):
            grad_grad = GeluBackward.apply(grad, x, approximate=approximate)
        if self.needs_grad(1):
            grad_x = _gelu_double_backward(grad, self.saved("grad_output"), x, approximate)
        return grad_grad, grad_x

    def jvp(self, tangents, primals, result):
        # torch: gelu_backward(grad_output_t, self_p) + gelu_double_backward(self_t, grad_output_p,
        # self_p)
        grad, x = primals
        approximate = self._params["approximate"]
        return jvp_sum(tangents, lambda t: GeluBackward.apply(t, x, approximate=approximate),
                       lambda t: t * grad * _gelu_second_derivative(x, approximate))


def _tanh32(x: np.ndarray) -> np.ndarray:
    result = _mkl.kernel("tanh", x)
    return np.tanh(x) if result is None else result


def _erf32(x: np.ndarray) -> np.ndarray:
    result = _mkl.kernel("erf", x)
    return erf(x).astype(np.float32) if result is None else result


# oneDNN's gelu_erf: its AVX2 code or its AVX-512 one (another approximation), as oneDNN
# chooses by the processor, not by ATEN_CPU_CAPABILITY
_ONEDNN_GELU = (_onednn.gelu_erf_minimax if _isa.ONEDNN_AVX512
                else _onednn.gelu_erf if _isa.ONEDNN_AVX2 else None)


def _gelu32(a: np.ndarray, approximate: str) -> np.ndarray:
    """float32 gelu: the formula in float32 arithmetic, in place, as torch's vectorised kernel
    computes it (with its own erf polynomial, so the exact form is torch's on about half of
    the elements; the tanh form on 99%: float64 arithmetic rounded once gave 33% and 52%, at
    several times the cost)."""
    if a.ndim == 0:  # (NumPy's arithmetic gives a 0-d operand a scalar: no in-place steps)
        return _gelu32(a.reshape(1), approximate).reshape(())
    if approximate != "tanh" and a.size > 1 and a.flags.c_contiguous and _ONEDNN_GELU is not None and (
            a.size <= _float_kernels.REPLAY_LIMIT or _cpu.torch_bits):
        # torch hands a contiguous float32 tensor of two or more elements to oneDNN's
        # gelu_erf (ops/_onednn.py: every bit; this formula gave torch's on about half of
        # them: generated-program seeds 43903, 53095, 61839, and on AVX-512 146959, 158279)
        return _ONEDNN_GELU(a)
    if approximate != "tanh" and _ONEDNN_GELU is not None and (
            a.size <= _float_kernels.REPLAY_LIMIT or _cpu.torch_bits):
        # the rest is ATen's own kernel (_float_kernels.gelu: its vector erf, every bit; MKL's
        # erf below left ~70% of a transposed input's values a last bit off)
        return _float_kernels.gelu(a)
    f = np.float32
    if approximate == "tanh":
        # ATen's GeluKernel: beta * (x + kappa * x^3), the bracket fused by the compiler
        # (unfused, 0.9% of values were a last bit off against 0.1%: the tanh's own bits)
        cube = a * a
        cube *= a
        inner = _float_kernels.fma(f(_TANH_KAPPA), cube, a)
        inner *= f(_TANH_BETA)
        out = _tanh32(inner)
    else:
        out = _erf32(a * f(_SQRT_HALF))
    out += f(1)
    out *= a
    out *= f(0.5)
    return out


def _gelu32_backward(grad: np.ndarray, a: np.ndarray, approximate: str) -> np.ndarray:
    """float32 gelu_backward, as _gelu32."""
    if a.ndim == 0:  # (see _gelu32; the incoming gradient is 0-d too)
        return _gelu32_backward(np.reshape(grad, 1), a.reshape(1), approximate).reshape(())
    if approximate != "tanh" and a.size > 1 and a.flags.c_contiguous and _ONEDNN_GELU is not None and (
            a.size <= _float_kernels.REPLAY_LIMIT or _cpu.torch_bits):
        # torch's gelu_backward hands a contiguous float32 input of two or more elements to
        # oneDNN's gelu_erf backward too, one code on AVX2 and AVX-512 (ops/_onednn.py: every
        # bit; the formula below gave torch's on about 75% of them on AVX-512)
        derivative = _onednn.gelu_erf_backward(a)
        derivative *= grad
        return derivative
    if approximate != "tanh" and _ONEDNN_GELU is not None and (
            a.size <= _float_kernels.REPLAY_LIMIT or _cpu.torch_bits):
        # the rest goes to ATen's own kernel (its vector erf and SLEEF's expf, the C
        # library's in the scalar loop: _float_kernels.gelu_backward, every bit)
        return _float_kernels.gelu_backward(grad, a)
    f = np.float32
    if approximate == "tanh":
        # ATen's GeluBackwardKernel in its order, with the multiply-adds the compiler fuses:
        # 0.5 (1 + t) + ((0.5 x) fma(-t, t, 1)) (beta fma(3 kappa, x^2, 1)), t = tanh(beta
        # fma(kappa, x^3, x)) (the former order was a last bit off on ~33% of gradients)
        square = a * a
        inner = _float_kernels.fma(f(_TANH_KAPPA), a * square, a)
        inner *= f(_TANH_BETA)
        t = _tanh32(inner)
        sech2 = _float_kernels.fma(-t, t, f(1))
        slope = _float_kernels.fma(f(3) * f(_TANH_KAPPA), square, f(1))
        slope *= f(_TANH_BETA)
        left = a * f(0.5)
        left *= sech2
        left *= slope
        t += f(1)
        t *= f(0.5)
        t += left
        derivative = t
    else:
        derivative = _erf32(a * f(_SQRT_HALF))
        derivative += f(1)
        derivative *= f(0.5)
        density = a * a
        density *= f(-0.5)
        density = _float_kernels.fast_exp(density)
        density *= a
        density *= f(_INV_SQRT_2PI)
        derivative += density
    derivative *= grad
    return derivative


def _gelu_double_backward(gg, grad_output, x, approximate: str):
    """torch's gelu_double_backward(ggI, gO, input), its operations in its order (the number
    operands as C++'s: Note: C++ operators in backward formulas, ops/_cpp_operators.py)."""
    if approximate == "tanh":
        beta = _GELU_TANH_BETA
        inner = beta * (x + _TANH_KAPPA * x.pow(3))
        tanh_inner = inner.tanh()
        sech_inner = 1 / inner.cosh()
        f = 0.5 * x
        g = 1 - tanh_inner * tanh_inner
        h = beta * (1 + 3 * _TANH_KAPPA * x * x)
        f_prime_gh = 0.5 * g * h
        g_prime = (2 * sech_inner) * (-sech_inner * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = 6 * _TANH_KAPPA * x * beta
        h_prime_fg = f * g * h_prime
        return gg * grad_output * (2 * f_prime_gh + g_prime_fh + h_prime_fg)
    x_sq = x * x
    pdf = _GELU_PDF_BETA * (-0.5 * x_sq).exp()
    return gg * grad_output * (2 * pdf - x_sq * pdf)


# gelu_double_backward's constants as torch computes them from <cmath>'s: kBeta =
# M_SQRT2 * M_2_SQRTPI * 0.5 (tanh), M_2_SQRTPI * M_SQRT1_2 * 0.5 (erf)
_M_SQRT2, _M_2_SQRTPI, _M_SQRT1_2 = 1.41421356237309504880, 1.12837916709551257390, \
    0.70710678118654752440
_GELU_TANH_BETA = _M_SQRT2 * _M_2_SQRTPI * 0.5
_GELU_PDF_BETA = _M_2_SQRTPI * _M_SQRT1_2 * 0.5


def _gelu_second_derivative(x, approximate: str):
    """gelu''(x) as Tensor ops (torch's gelu_double_backward without its grad factors)."""
    if approximate == "tanh":
        inner = (x + x * x * x * _TANH_KAPPA) * _TANH_BETA
        t = inner.tanh()
        d_inner = (x * x * (3 * _TANH_KAPPA) + 1) * _TANH_BETA
        sech2 = 1 - t * t
        return sech2 * d_inner + x * 0.5 * (
            -2 * t * sech2 * d_inner * d_inner + sech2 * (x * (6 * _TANH_KAPPA * _TANH_BETA))
        )
    pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
    return pdf * (2 - x * x)


@register
class Silu(Op):
    node = "SiluBackward0"
    complex_ok = True  # forward only (complex_autograd)
    complex_autograd = False  # torch has no complex derivative for it
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.silu",)

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "c":  # x / (1 + exp(-x)), as torch's complex kernel
            with np.errstate(all="ignore"):
                return np.asarray(a / (1 + np.exp(-a)))
        a = _floating(a, "silu_cpu")
        if a.dtype == np.float16:  # torch computes it in float32 and rounds once
            return Silu.forward(ctx, a.astype(np.float32)).astype(np.float16)
        if a.dtype == np.float32:
            return _float_kernels.silu(a)  # torch's bits
        if a.dtype == np.float64:  # torch's kernel: SLEEF's exp in the vectors
            return _sleef_double.silu(a)

        return a * _sigmoid(a)

    def backward(self, grad):
        x = self.saved("self")
        if plain_backward() and x._data.dtype == np.float32 == grad._data.dtype:
            # torch's float32 kernel, bit for bit (Note: array-level backwards)
            return _wrap(array_kernel(_float_kernels.silu_backward, grad._data, x._data))
        reduced = reduced_in_float(_silu_backward32, grad, x)
        if reduced is not None:  # Note: reduced-float activation backwards
            return reduced
        if plain_backward() and x._data.dtype == np.float64 == grad._data.dtype:
            return _wrap(array_kernel(_sleef_double.silu_backward, grad._data, x._data))
        s = x.sigmoid()
        if records_double_backward():  # torch's silu_backward, a composite: its nodes' order

            return grad * s * AddScalarFormula.apply(x * (1 - s), other=1)
        return grad * (s * (1 + x * (1 - s)))

    jvp = auto_element_wise


def _silu_backward32(grad, x):
    return _wrap(array_kernel(_float_kernels.silu_backward, grad._data, x._data))


def _softplus(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    if a.dtype == np.float32:  # torch's kernel: SLEEF's expf and log1pf in the vectors
        return _sleef_unary.softplus(a, beta, threshold)
    if a.dtype == np.float64:  # torch's kernel: SLEEF's exp and log1p in the vectors
        return _sleef_double.softplus(a, beta, threshold)
    scaled = a * beta
    with np.errstate(over="ignore"):
        soft = np.logaddexp(0, scaled) / beta
    return _where(scaled > threshold, a, soft).astype(a.dtype)


@register
class Softplus(Op):
    node = "SoftplusBackward0"
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.softplus",)

    @staticmethod
    def forward(ctx, a, beta, threshold):
        a = _floating(a, "softplus_cpu")
        if a.dtype == np.float16:  # torch computes it in float32 and rounds once
            return _softplus(a.astype(np.float32), beta, threshold).astype(np.float16)
        return _softplus(a, beta, threshold)

    def backward(self, grad):
        x = self.saved("self")
        beta, threshold = self._params["beta"], self._params["threshold"]
        if plain_backward() and x._data.dtype == np.float32 == grad._data.dtype:
            # torch's float32 kernel, bit for bit (Note: array-level backwards)
            return _wrap(array_kernel(_sleef_unary.softplus_backward, grad._data, x._data,
                                      beta=beta, threshold=threshold))
        if plain_backward() and x._data.dtype == np.float64 == grad._data.dtype:
            return _wrap(array_kernel(_sleef_double.softplus_backward, grad._data, x._data,
                                      beta=beta, threshold=threshold))
        reduced = reduced_in_float(lambda g, t: _wrap(array_kernel(
            _sleef_unary.softplus_backward, g._data, t._data, beta=beta, threshold=threshold)),
            grad, x)
        if reduced is not None:  # Note: reduced-float activation backwards
            return reduced
        if records_double_backward():
            return SoftplusBackward.record(grad, x, beta=beta, threshold=threshold)

        if capture.active and x._data.dtype.char in "fd":
            # a create_graph backward under leafgrad.compile: eager code computes this value
            # with torch's kernel (SoftplusBackward.forward), the composite below rounds
            # otherwise; the call runs eagerly rather than replay other bits
            capture.tracer.broke("softplus's backward under create_graph (torch's kernel's "
                                 "value with a recorded graph)")
            return SoftplusBackward.record(grad, x, beta=beta, threshold=threshold)
        return SoftplusBackward.formula(grad, x, beta, threshold)[0]

    jvp = auto_element_wise


@register
class SoftplusBackward(ActivationBackward, Op):
    node = "SoftplusBackwardBackward0"
    torch_names = ()

    @staticmethod
    def formula(grad, x, beta, threshold):
        linear = kernel_tensor(_above, x._data, scale=beta, threshold=threshold)
        return (grad * (linear + (1 - linear) * (x * beta).sigmoid()),)

    @classmethod
    def forward(cls, ctx, grad, x, beta, threshold):
        # torch's softplus_backward kernel, as the plain backward computes it
        kernel = {np.dtype(np.float32): _sleef_unary.softplus_backward,
                  np.dtype(np.float64): _sleef_double.softplus_backward}.get(x.dtype)
        if kernel is not None and grad.__class__ is np.ndarray and x.__class__ is np.ndarray \
                and grad.dtype == x.dtype:
            return (kernel(grad, x, beta=beta, threshold=threshold),)
        return super().forward(ctx, grad, x, beta=beta, threshold=threshold)

    def backward(self, grads):
        # derivatives.yaml: grad_output: softplus_backward(grad, self, beta, threshold);
        # self: softplus_double_backward(grad * grad_output, self, beta, threshold), which is
        # sigmoid_backward(g, (self * beta).sigmoid()) * (self * beta < threshold) * beta

        grad = grads[0]
        x = self.saved("self")
        beta, threshold = self._params["beta"], self._params["threshold"]
        grad_grad = grad_x = None
        if self.needs_grad(0):
            grad_grad = SoftplusBackward.record(grad, x, beta=beta, threshold=threshold)
        if self.needs_grad(1):
            scaled = _scale(x, beta)
            below = (scaled < threshold).type_as(grad)
            slope = SigmoidBackward.apply(grad * self.saved("grad_output"), scaled.sigmoid())
            grad_x = _scale(slope * below, beta)
        return grad_grad, grad_x


def _grad_enabled() -> bool:
    from ..autograd.grad_mode import state

    return state.grad_enabled


@register
class Mish(Op):
    node = "MishBackward0"
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.mish",)

    @staticmethod
    def forward(ctx, a):
        a = _floating(a, "mish_cpu")
        if a.dtype == np.float16:  # torch computes it in float32 and rounds once
            return Mish.forward(ctx, a.astype(np.float32)).astype(np.float16)
        return a * np.tanh(_softplus(a, 1.0, 20.0))

    def backward(self, grad):
        x = self.saved("self")
        # (torch's reduced-float kernel: tanh(log1p(exp(x))), as the composite below)
        reduced = reduced_in_float(lambda g, t: Mish.backward_formula(g, t, True), grad, x)
        if reduced is not None:  # Note: reduced-float activation backwards
            return reduced
        return Mish.backward_formula(grad, x, _grad_enabled())

    @staticmethod
    def backward_formula(grad, x, log1p: bool):
        s = x.sigmoid()
        if log1p:
            # torch's infinitely_differentiable_mish_backward (grad mode on, as derivatives.yaml
            # chooses it: create_graph, and leafgrad.compile's capture of one), in its order
            t = x.exp().log1p().tanh()
            return grad * (t + x * s * (1.0 - t * t))
        t = (x.exp() + 1).log().tanh()  # tanh(softplus(x))
        return grad * (t + x * s * (1 - t * t))

    jvp = auto_element_wise


@register
class Hardtanh(Op):
    node = "HardtanhBackward0"
    uint_kernel = "clamp_scalar_cpu"
    complex_message = 'clamp is not supported for complex types'
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.hardtanh", "nn.functional.relu6")

    @staticmethod
    def forward(ctx, a, min_val, max_val):
        if a.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        return np.clip(a, a.dtype.type(min_val), a.dtype.type(max_val))

    def backward(self, grad):
        # torch passes the gradient only strictly inside (min_val, max_val)
        return HardtanhBackward.apply(grad, self.saved("self"), min_val=self._params["min_val"],
                                      max_val=self._params["max_val"])

    jvp = auto_element_wise


def _softmax_grad(g: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    # torch's kernels round (grad - sum(grad * y)) * y, not grad * y - y * sum: a cancelling
    # entry came out as other noise (generated-program seeds 23898, 23958: 1e-17s)
    out = np.asarray(g * y)  # (the product's array keeps the operands' layout for the result)
    total = _sum_keepdim(out, dim)
    np.subtract(g, total, out=out)
    out *= y
    return out


def _log_softmax_grad(g: np.ndarray, exps: np.ndarray, total: np.ndarray, dim: int):
    out = np.asarray(exps * (_sum_keepdim(g, dim) / total))  # 0-d: a NumPy scalar
    np.subtract(g, out, out=out)
    return out


def _sum_keepdim(a: np.ndarray, dim: int) -> np.ndarray:
    """``a.sum(dim, keepdims=True)``; along the last axis of a contiguous float array it is a
    matrix-vector product with ones, which BLAS does ~7x faster than NumPy's pairwise sum
    (benchmarks/bench_nn.py, ce512)."""
    if a.ndim == 0:  # a 0-d tensor's dim 0 is itself
        return a.copy()
    # Zero sums carry torch's signs: its last-dim kernels reduce from the first element (all
    # -0. sum to -0.), its other kernels from +0. (they never give -0.): softmax backwards of a
    # zero gradient are +0. or -0. by that (generated-program seed 31078)
    if dim == a.ndim - 1 and a.dtype.kind == "f" and a.flags.c_contiguous and a.size:
        last = a.shape[-1]
        ones = np.ones(last, dtype=a.dtype)
        total = (a.reshape(-1, last) @ ones).reshape(a.shape[:-1] + (1,))
        zero = total == 0
        if zero.any():  # (BLAS starts from +0.)
            negative = ((a == 0) & np.signbit(a)).all(axis=-1, keepdims=True)
            total[zero & negative] = -0.0
        return total
    total = a.sum(axis=dim, keepdims=True)
    if dim % a.ndim != a.ndim - 1 and total.dtype.kind in "fc":
        np.add(total, 0, out=total)  # (-0. + 0. is +0.; every other value is unchanged)
    return total


def _max_keepdim(a: np.ndarray, dim: int) -> np.ndarray:
    """``a.max(axis=dim, keepdims=True)``. Along a short last axis of many rows (a classifier's
    logits) NumPy's reduction runs its inner loop once per row; taking the maximum column by
    column, in the same order of comparisons, is one vectorised call per column instead
    (512x10 float32: 34 -> 7 us)."""
    if dim == a.ndim - 1 and a.ndim > 1 and 1 < a.shape[-1] <= 32 and a.size >= 128 * a.shape[-1]:
        columns = a.reshape(-1, a.shape[-1])
        out = columns[:, 0].copy()
        for j in range(1, columns.shape[1]):
            np.maximum(out, columns[:, j], out=out)
        return out.reshape(a.shape[:-1] + (1,))
    return a.max(axis=dim, keepdims=True)


def _softmax_array(a: np.ndarray, dim: int) -> np.ndarray:
    if not a.size:
        return a.copy()
    if a.ndim == 0:  # softmax over a single element: 1 (nan for inf/nan, as torch)
        e = np.exp(np.asarray(a - a))
        return np.asarray(e / e)
    e = a - _max_keepdim(a, dim)
    np.exp(e, out=e)  # in place: one temporary for the whole softmax
    e /= _sum_keepdim(e, dim)
    return e


# Note: array-level backwards
# When grad mode is off during backward (no create_graph), a Tensor-op backward records
# nothing anyway, so softmax-like backwards run on arrays with in-place temporaries instead
# (benchmarks/bench_nn.py, ce512). Under create_graph the Tensor-op formula runs, so every
# order of derivative is still recorded; inside a forward-AD level too, so that gradients get
# tangents (registry.plain_backward).


def _check_softmax_dtype(a: np.ndarray, dim: int, name: str) -> None:
    """torch has no integer softmax kernels (``dtype=`` casts first)."""
    if a.dtype.kind in "biu":
        kernel = f"{name}_lastdim_kernel_impl" if dim == a.ndim - 1 or a.ndim <= 1 else \
            f"{name}_kernel_impl"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{from_numpy_dtype(a.dtype)._legacy}'")


# Note: float16 and bfloat16 softmax
# torch's kernels compute them in float32 with roundings of their own (ops/_softmax_reduced.py):
# float16 here, bfloat16 in the ops' bfloat16_finish (their forwards see float32 values).

def _to_float16(values) -> np.ndarray:
    return np.asarray(values).astype(np.float16)


def _to_bfloat16(values) -> np.ndarray:
    return to_bfloat16(np.asarray(values))


def _reduced_rounding(array: np.ndarray):
    """The rounding to ``array``'s dtype when it is float16 or bfloat16, else None."""
    if array.dtype == np.float16:
        return _to_float16
    if array.dtype.kind == "V":
        return _to_bfloat16
    return None


def _bfloat16_softmax(log: bool):
    def finish(out, operands, params):
        a = operands[0]
        if a.__class__ is not np.ndarray or not a.ndim or not a.size \
                or out.__class__ is not np.ndarray:
            return out
        return _softmax_reduced.forward(a, params["dim"], log, _to_bfloat16)

    return finish


def _bfloat16_softmax_backward(kernel_name: str, log: bool):
    def finish(out, operands, params):
        grad, output = operands
        if output.__class__ is not np.ndarray or out.__class__ is not np.ndarray:
            return out
        kernel = globals()[kernel_name].forward
        if output.ndim == 0:
            return _softmax_reduced.backward(kernel, np.reshape(grad, 1), output.reshape(1), 0,
                                             _to_bfloat16, log).reshape(())
        return _softmax_reduced.backward(kernel, grad, output, params["dim"], _to_bfloat16, log)

    return finish


def _reduced_softmax_backward(kernel, grad: np.ndarray, output: np.ndarray, dim: int,
                              log: bool = False):
    """A softmax backward of float16/bfloat16 arrays (Note: float16 and bfloat16 softmax), or
    None for other dtypes."""
    rounding = _reduced_rounding(output)
    if rounding is None:
        return None
    if output.ndim == 0:  # one element: as a 1-element vector
        return _softmax_reduced.backward(kernel, np.reshape(grad, 1), output.reshape(1), 0,
                                         rounding, log).reshape(())
    return _softmax_reduced.backward(kernel, grad, output, dim, rounding, log)


def _exact_softmax_backward_dim(grad: np.ndarray, y: np.ndarray, dim: int,
                                log: bool = False) -> bool:
    """Whether a softmax (``log``: log_softmax) backward over ``dim``, not the last, takes
    torch's kernel's steps (float32 and float64; softmax's over dims of at most
    _float_kernels.SOFTMAX_BACKWARD_DIM_LIMIT)."""
    return (y.ndim > 1 and dim % y.ndim != y.ndim - 1 and y.size > 0
            and grad.dtype == y.dtype
            and (_float_kernels.exact_softmax(y) or _float_kernels.exact_softmax64(y))
            and (log or y.shape[dim] <= _float_kernels.SOFTMAX_BACKWARD_DIM_LIMIT))


@register
class Softmax(Op):
    node = "SoftmaxBackward0"
    uint_ok = True  # the forward raises torch's kernel error (_check_softmax_dtype)
    complex_message = '"softmax_lastdim_kernel_impl" not implemented for \'ComplexFloat\''
    vmap = batch.dims("dim")
    saves = {"result": ("self",)}
    torch_names = ("softmax", "nn.functional.softmax")
    bfloat16_finish = staticmethod(_bfloat16_softmax(False))

    @staticmethod
    def forward(ctx, a, dim):
        _check_softmax_dtype(a, dim, "softmax")
        if a.dtype == np.float16 and a.ndim and a.size:  # Note: float16 and bfloat16 softmax
            return _softmax_reduced.forward(a.astype(np.float32), dim, False, _to_float16)
        a = _layout.contiguous(_float(a))
        with np.errstate(all="ignore"):
            if (dim == a.ndim - 1 or dim == -1) and _float_kernels.exact_softmax(a):
                return _float_kernels.softmax_lastdim(a)  # torch's kernel, bit for bit
            if a.size and _float_kernels.exact_softmax(a):  # another dim: torch's kernel too
                return _float_kernels.softmax_dim(a, dim)
            if (dim == a.ndim - 1 or dim == -1) and _float_kernels.exact_softmax64(a):
                return _float_kernels.softmax_lastdim64(a)  # float64: torch's kernel too
            if _float_kernels.exact_softmax64(a):  # float64 over another dim: torch's kernel
                return _float_kernels.softmax_dim64(a, dim)
            return _softmax_array(a, dim)

    def backward(self, grad):
        result = self.saved("result")
        dim = self._params["dim"]
        if plain_backward():  # Note: array-level backwards
            y = result._data
            reduced = _reduced_softmax_backward(SoftmaxBackwardData.forward, grad._data, y, dim)
            if reduced is not None:
                return _wrap(reduced)
            if (dim == y.ndim - 1 or dim == -1) and _float_kernels.exact_softmax(y) \
                    and grad._data.dtype == y.dtype:  # torch's kernel, bit for bit
                return _wrap(array_kernel(_float_kernels.softmax_backward_lastdim,
                                          grad._data, y))
            if (dim == y.ndim - 1 or dim == -1) and _float_kernels.exact_softmax64(y) \
                    and grad._data.dtype == y.dtype:  # float64: torch's kernel too
                return _wrap(array_kernel(_float_kernels.softmax_backward_lastdim64,
                                          grad._data, y))
            if _exact_softmax_backward_dim(grad._data, y, dim):
                return _wrap(array_kernel(_float_kernels.softmax_backward_dim, grad._data, y,
                                          dim=dim))
            return _wrap(array_kernel(_softmax_grad, grad._data, y, dim=dim))
        return SoftmaxBackwardData.apply(grad, result, dim=dim)

    def jvp(self, tangents, primals, result):
        # torch: result * (self_t - logsumexp_jvp(self_p, self_t, {dim}, true))
        dim = self._params["dim"]
        return result * (tangents[0] - logsumexp_jvp(primals[0], tangents[0], (dim,), True))


@register
class SafeSoftmax(Softmax):
    """torch's ``_safe_softmax`` (scaled_dot_product_attention's math path): a softmax whose
    slices that are all -inf (a fully masked query) give zeros, not NaN; the backward is
    softmax's (``_softmax_backward_data``), which the zeros make zero there."""

    node = "SafeSoftmaxBackward0"
    torch_names = ("_safe_softmax",)
    bfloat16_finish = None

    @staticmethod
    def forward(ctx, a, dim):
        out = Softmax.forward(ctx, a, dim)
        if type(out) is not np.ndarray or not a.size:  # (a meta array: no values)
            return out
        dead = np.all(a == -np.inf, axis=dim, keepdims=True)
        if dead.any():
            out = np.where(dead, np.zeros((), out.dtype), out)
        return out

    def jvp(self, tangents, primals, result):
        # torch: result * (self_t - safe_logsumexp_jvp(self_p, self_t, {dim}, true)), whose
        # logsumexp tangent is 0 on an all -inf slice (NaN in logsumexp_jvp)
        dim = self._params["dim"]
        x = primals[0]
        dead = (x == float("-inf")).all(dim, keepdim=True)
        # (the dead slices' inputs as 0 first, so that no NaN reaches a reverse pass either)
        lse = logsumexp_jvp(x.masked_fill(dead, 0.0), tangents[0], (dim,), True)
        return result * (tangents[0] - lse.masked_fill(dead, 0.0))


@register
class LogSoftmax(Op):
    node = "LogSoftmaxBackward0"
    uint_ok = True  # the forward raises torch's kernel error (_check_softmax_dtype)
    complex_message = '"log_softmax_lastdim_kernel_impl" not implemented for \'ComplexFloat\''
    vmap = batch.dims("dim")
    saves = {"result": ("self",), "softmax": ("self",)}
    torch_names = ("log_softmax", "nn.functional.log_softmax")
    bfloat16_finish = staticmethod(_bfloat16_softmax(True))

    @staticmethod
    def forward(ctx, a, dim):
        _check_softmax_dtype(a, dim, "log_softmax")
        if a.dtype == np.float16 and a.size:  # Note: float16 and bfloat16 softmax
            values = a.reshape(1) if a.ndim == 0 else a
            out = _softmax_reduced.forward(values.astype(np.float32), dim if a.ndim else 0,
                                           True, _to_float16)
            if ctx is not None:  # (the backward takes the result alone)
                ctx.keep("softmax", (None, None))
            return out.reshape(a.shape)
        a = _layout.contiguous(_float(a))
        if a.size == 0:
            if ctx is not None:  # (the backward's factors, empty too: seed 28766 raised)
                ctx.keep("softmax", (a.copy(), np.ones_like(a, shape=_reduced(a.shape, dim))))
            return a.copy()
        if a.ndim == 0:  # one element: computed as a 1-element vector, kept 0-d
            out = LogSoftmax.forward(ctx, a.reshape(1), 0)
            if ctx is not None:
                exps, total = ctx._saved["softmax"]
                ctx.keep("softmax", (exps.reshape(()), total.reshape(())))
            return out.reshape(())
        if (dim == a.ndim - 1 or dim == -1) and _float_kernels.exact_softmax(a):
            with np.errstate(all="ignore"):  # torch's kernel, bit for bit (SLEEF's expf)
                result, exps, total = _float_kernels.log_softmax_lastdim(a)
            if ctx is not None:
                ctx.keep("softmax", (exps, total))
            return result
        if _float_kernels.exact_softmax(a):  # another dim: torch's kernel too
            with np.errstate(all="ignore"):
                result, exps, total = _float_kernels.log_softmax_dim(a, dim)
            if ctx is not None:
                ctx.keep("softmax", (exps, total))
            return result
        if (dim == a.ndim - 1 or dim == -1) and _float_kernels.exact_softmax64(a):
            with np.errstate(all="ignore"):  # float64: torch's kernel too (SLEEF's expd, logd)
                result, exps, total = _float_kernels.log_softmax_lastdim64(a)
            if ctx is not None:
                ctx.keep("softmax", (exps, total))
            return result
        if _float_kernels.exact_softmax64(a):  # float64 over another dim: torch's kernel too
            with np.errstate(all="ignore"):
                result, exps, total = _float_kernels.log_softmax_dim64(a, dim)
            if ctx is not None:
                ctx.keep("softmax", (exps, total))
            return result
        shifted = a - _max_keepdim(a, dim)
        exps = np.exp(shifted)
        total = _sum_keepdim(exps, dim)
        if ctx is not None:
            # softmax = exps / total = exp(result); kept as its two factors so the backward
            # neither recomputes the exp nor pays a division pass here
            ctx.keep("softmax", (exps, total))
        shifted -= np.log(total)
        return shifted

    def backward(self, grad):
        dim = self._params["dim"]
        if plain_backward():  # Note: array-level backwards
            y = self.saved("result")._data
            reduced = _reduced_softmax_backward(LogSoftmaxBackwardData.forward, grad._data, y,
                                                dim, True)
            if reduced is not None:
                return _wrap(reduced)
            if (dim == y.ndim - 1 or dim == -1) and _float_kernels.exact_softmax(y) \
                    and grad._data.dtype == y.dtype:  # torch's kernel, bit for bit
                return _wrap(array_kernel(_float_kernels.log_softmax_backward_lastdim,
                                          grad._data, y))
            if (dim == y.ndim - 1 or dim == -1) and _float_kernels.exact_softmax64(y) \
                    and grad._data.dtype == y.dtype:  # float64: torch's kernel too
                return _wrap(array_kernel(_float_kernels.log_softmax_backward_lastdim64,
                                          grad._data, y))
            if _exact_softmax_backward_dim(grad._data, y, dim, log=True):
                return _wrap(array_kernel(_float_kernels.log_softmax_backward_dim, grad._data,
                                          y, dim=dim))
            exps, total = self.saved("softmax")
            return _wrap(array_kernel(_log_softmax_grad, grad._data, exps, total, dim=dim))
        return LogSoftmaxBackwardData.apply(grad, self.saved("result"), dim=dim)

    def jvp(self, tangents, primals, result):
        # torch: self_t - logsumexp_jvp(self_p, self_t, {dim}, true)
        dim = self._params["dim"]
        return tangents[0] - logsumexp_jvp(primals[0], tangents[0], (dim,), True)


def _reduced(shape: tuple, dim: int) -> tuple:
    """``shape`` with ``dim`` kept as size 1 (a keepdim reduction's shape)."""
    return tuple(1 if i == dim % len(shape) else n for i, n in enumerate(shape))


# softmax's and log_softmax's backwards recorded under create_graph are torch's ops
# (_softmax_backward_data, _log_softmax_backward_data), so a second derivative passes
# SoftmaxBackwardDataBackward0 / LogSoftmaxBackwardDataBackward0 as in torch (it passed
# composite Sub/Mul nodes: generated-program seed 22), with derivatives.yaml's formulas.


@register
class SoftmaxBackwardData(Op):
    """``(grad_output - sum(grad_output * output, dim)) * output``."""

    node = "SoftmaxBackwardDataBackward0"
    bfloat16_finish = staticmethod(_bfloat16_softmax_backward("SoftmaxBackwardData", False))
    vmap = batch.dims("dim")
    inputs = ("grad_output", "output")
    saves = {"grad_output": ("output",), "output": ("grad_output", "output")}
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, output, dim):
        if output.dtype == np.float16:  # Note: float16 and bfloat16 softmax
            return _reduced_softmax_backward(SoftmaxBackwardData.forward, grad, output, dim)
        if (dim == output.ndim - 1 or dim == -1) and _float_kernels.exact_softmax(output) \
                and grad.dtype == output.dtype:
            return _float_kernels.softmax_backward_lastdim(grad, output)
        if (dim == output.ndim - 1 or dim == -1) and _float_kernels.exact_softmax64(output) \
                and grad.dtype == output.dtype:
            return _float_kernels.softmax_backward_lastdim64(grad, output)
        if _exact_softmax_backward_dim(grad, output, dim):
            return _float_kernels.softmax_backward_dim(grad, output, dim)
        return _softmax_grad(grad, output, dim)

    def backward(self, grad):
        dim = self._params["dim"]
        output = self.saved("output")
        grad_grad_output = grad_output_of = None
        if self.needs_grad(0):
            grad_grad_output = SoftmaxBackwardData.apply(grad, output, dim=dim)
        if self.needs_grad(1):
            # torch's softmax_double_backward(grad, grad_output, dim, output)
            go = self.saved("grad_output")
            grad_output_of = (go * grad - (output * go).sum(dim, keepdim=True) * grad
                              - go * (output * grad).sum(dim, keepdim=True))
        return grad_grad_output, grad_output_of

    def jvp(self, tangents, primals, result):
        # d[(g - sum(g y)) y] = backward_data(dg, y) + (g - sum(g y)) dy - y sum(g dy)
        go, output = primals
        dim = self._params["dim"]
        return jvp_sum(
            tangents,
            lambda t: SoftmaxBackwardData.apply(t, output, dim=dim),
            lambda t: (go - (go * output).sum(dim, keepdim=True)) * t
            - output * (go * t).sum(dim, keepdim=True))


@register
class LogSoftmaxBackwardData(Op):
    """``grad_output - exp(output) * sum(grad_output, dim)``."""

    node = "LogSoftmaxBackwardDataBackward0"
    bfloat16_finish = staticmethod(_bfloat16_softmax_backward("LogSoftmaxBackwardData", True))
    vmap = batch.dims("dim")
    inputs = ("grad_output", "output")
    saves = {"grad_output": ("output",), "output": ("grad_output", "output")}
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, output, dim):
        if output.dtype == np.float16:  # Note: float16 and bfloat16 softmax
            return _reduced_softmax_backward(LogSoftmaxBackwardData.forward, grad, output, dim,
                                             True)
        if (dim == output.ndim - 1 or dim == -1) and _float_kernels.exact_softmax(output) \
                and grad.dtype == output.dtype:
            return _float_kernels.log_softmax_backward_lastdim(grad, output)
        if (dim == output.ndim - 1 or dim == -1) and _float_kernels.exact_softmax64(output) \
                and grad.dtype == output.dtype:
            return _float_kernels.log_softmax_backward_lastdim64(grad, output)
        if _exact_softmax_backward_dim(grad, output, dim, log=True):
            return _float_kernels.log_softmax_backward_dim(grad, output, dim)
        with np.errstate(all="ignore"):
            exps = np.exp(output)
        return _log_softmax_grad(grad, exps, np.ones((), dtype=output.dtype), dim)

    def backward(self, grad):
        dim = self._params["dim"]
        output = self.saved("output")
        grad_grad_output = grad_output_of = None
        if self.needs_grad(0):
            grad_grad_output = grad - (grad * output.exp()).sum(dim, keepdim=True)
        if self.needs_grad(1):
            go = self.saved("grad_output")
            grad_output_of = -go.sum(dim, keepdim=True) * output.exp() * grad
        return grad_grad_output, grad_output_of

    def jvp(self, tangents, primals, result):
        # d[g - exp(y) sum(g)] = backward_data(dg, y) - exp(y) dy sum(g)
        go, output = primals
        dim = self._params["dim"]
        return jvp_sum(
            tangents,
            lambda t: LogSoftmaxBackwardData.apply(t, output, dim=dim),
            lambda t: -output.exp() * t * go.sum(dim, keepdim=True))
