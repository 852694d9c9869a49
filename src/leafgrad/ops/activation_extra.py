"""More activations with torch's node names: hardshrink, softshrink, hardsigmoid, hardswish,
logsigmoid, threshold, glu, prelu. Backwards use constant masks and Tensor expressions of the
saved input, so they can be differentiated again (see ops/activation.py)."""

from __future__ import annotations

import numpy as np

from ._forward import auto_element_wise, filled
from ._select import where as _where
from .activation import _float, _floating, _vectorised_nan, kernel_tensor, reduced_in_float
from . import _float_kernels, _isa, _layout, _sleef_double, _sleef_unary
from .math_logic import Where
from ..tensor import _wrap
from . import _batching_rules as batch
from . import _uint
from ._double_backward import (ActivationBackward, RecordedFormula, not_implemented_gradient,
                               records_double_backward, records_or_breaks_capture)
from .registry import Op, array_kernel, plain_backward, register
from .elementwise import ThresholdBackward
from ..autograd.grad_mode import no_grad
from .elementwise import _integer_alpha, _sigmoid

_ONE_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))


def _outside_mask(x: np.ndarray, lambd) -> np.ndarray:
    return (~((x >= -lambd) & (x <= lambd))).astype(x.dtype)


def _outside(x: np.ndarray, lambd):
    """1 unless -lambd <= x <= lambd (torch's shrink backward: NaN passes the gradient); a
    capturable kernel (Note: masks as kernels in activation.py), as the masks below."""
    return kernel_tensor(_outside_mask, x, lambd=lambd)


def _hardsigmoid_mask(x: np.ndarray) -> np.ndarray:
    return ((x > -3) & (x < 3)).astype(x.dtype)


def _hardswish_middle(x: np.ndarray) -> np.ndarray:
    return (x > -3) & (x < 3)


def _at_most_minus_three(x: np.ndarray) -> np.ndarray:
    return x <= -3


def _zeros(values: np.ndarray) -> np.ndarray:
    return np.zeros_like(values)


def _zeros_like(tensor):
    """Zeros of the tensor's shape and dtype, as a kernel (leafgrad.compile recomputes it)."""
    return kernel_tensor(_zeros, tensor._data)


def _hardswish_above(x: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """1 where hardswish's gradient is the incoming one. A NaN input: torch's scalar op falls
    through to that branch (1), its vectorised op computes grad * (x / 3 + 1/2) there and keeps
    it (NaN): which one depends on the element's place (Note: NaN in a vectorised blend, in
    ops/activation.py)."""
    above = (~(x <= -3) & ~((x > -3) & (x < 3))).astype(x.dtype)
    vectorised = _vectorised_nan(grad, x, avx512=True)
    if vectorised is not None and vectorised.any():
        above = np.array(np.broadcast_to(above, vectorised.shape))
        above[vectorised] = np.nan
    return above


def _nonnegative(x: np.ndarray) -> np.ndarray:
    return x >= 0


def _positive_mask(x: np.ndarray) -> np.ndarray:
    return (x > 0).astype(x.dtype)


@register
class Hardshrink(Op):
    """``x`` where ``|x| > lambd``, else 0."""

    node = "HardshrinkBackward0"
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.hardshrink",)

    @staticmethod
    def forward(ctx, a, lambd):
        _floating(a, "hardshrink_cpu")
        # torch: (x >= -lambd && x <= lambd) ? 0 : x, so NaN passes through
        return _where((a >= -lambd) & (a <= lambd), a.dtype.type(0), a)

    def backward(self, grad):
        from .activation import ShrinkBackward

        return ShrinkBackward.apply(grad, self.saved("self"), lambd=self._params["lambd"])

    jvp = auto_element_wise


@register
class Softshrink(Op):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""

    node = "SoftshrinkBackward0"
    bfloat16_native = True  # its vectors hold 32 bfloat16 elements (see forward)
    complex_message = '"softshrink_check" not implemented for \'ComplexFloat\''
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.softshrink",)

    @staticmethod
    def forward(ctx, a, lambd):
        _floating(a, "softshrink_check")
        # torch's kernel (one vector per step, in memory order): its vector code writes +0
        # between -lambd and lambd; its scalar code, on the elements after the last whole
        # vector (and every element of a strided operand), x > lambd ? x - lambd : (x < -lambd
        # ? x + lambd : x * 0), so -0 for negative x there. NaN passes through both.
        # (float16 and bfloat16 arrive as themselves, for their vector width, and are computed
        # in float32 with lambd in float32, as torch's kernel for reduced types)
        part = _float_kernels._scalar_part(a, _isa.VECTOR_BYTES // a.dtype.itemsize)
        dtype = a.dtype
        if dtype.itemsize == 2:
            a = a.astype(np.float32)
        shrink = a.dtype.type(lambd)
        zero = a.dtype.type(0)
        inside = np.where(np.isnan(a), a, zero)
        if part is Ellipsis:
            inside = a * zero
        elif part is not None:
            inside[part] = a[part] * zero
        out = np.where(a > lambd, a - shrink, np.where(a < -lambd, a + shrink, inside))
        return np.asarray(out).astype(dtype, copy=False)

    def backward(self, grad):
        from .activation import SoftshrinkBackward

        return SoftshrinkBackward.apply(grad, self.saved("self"), lambd=self._params["lambd"])

    jvp = auto_element_wise


@register
class Hardsigmoid(Op):
    """``clip(x / 6 + 1/2, 0, 1)``."""

    node = "HardsigmoidBackward0"
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.hardsigmoid",)

    @staticmethod
    def forward(ctx, a):
        a = _floating(a, "hardsigmoid_cpu")
        # ATen's kernel: min(max(x + 3, 0), 6) / 6, in float for float16/bfloat16 (rounded
        # once); x / 6 + 0.5, before, was a last bit off on ~40% of values
        work = a.astype(np.float32) if a.dtype.itemsize == 2 else a
        kind = work.dtype.type
        out = np.minimum(np.maximum(work + kind(3), kind(0)), kind(6)) / kind(6)
        return np.asarray(out).astype(a.dtype)

    def backward(self, grad):
        x = self.saved("self")._data
        # torch's slope is 1/6 strictly inside (-3, 3), written as the float literal 1.0f / 6.0f
        # in its kernel: float32's 1/6 even for float64 tensors
        if records_double_backward():  # torch has no derivative for hardsigmoid_backward

            with no_grad():
                value = grad * kernel_tensor(_hardsigmoid_mask, x) * _ONE_SIXTH_F32
            return not_implemented_gradient("hardsigmoid_backward", value, grad,
                                            self.saved("self"))
        # torch: (x > -3 && x < 3) ? grad * 1/6 : 0, a +0 outside (grad * 0 gave -0 for a
        # negative grad)
        inside = kernel_tensor(_hardswish_middle, x)
        return Where.apply(grad * _ONE_SIXTH_F32, _zeros_like(grad), condition=inside)

    jvp = auto_element_wise


@register
class Hardswish(Op):
    """``x * clip(x + 3, 0, 6) / 6``."""

    node = "HardswishBackward0"
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.hardswish",)

    @staticmethod
    def forward(ctx, a):
        a = _floating(a, "hardswish_cpu")
        if a.dtype == np.float16:  # torch computes it in float32 and rounds once
            return Hardswish.forward(ctx, a.astype(np.float32)).astype(np.float16)
        return (a * np.clip(a + a.dtype.type(3), 0, 6) / a.dtype.type(6)).astype(a.dtype)

    def backward(self, grad):
        x = self.saved("self")
        data = x._data
        # torch 2.13's hardswish_backward: 0 up to -3, x/3 + 1/2 strictly between -3 and 3,
        # else 1 (NaN too): at exactly -3 and 3 the gradient is 0 and 1
        if records_or_breaks_capture("hardswish"):
            return HardswishBackward.record(grad, x)
        reduced = reduced_in_float(lambda g, t: HardswishBackward.formula(g, t)[0], grad, x)
        if reduced is not None:  # Note: reduced-float activation backwards (activation.py)
            return reduced
        return HardswishBackward.formula(grad, x)[0]

    jvp = auto_element_wise


@register
class HardswishBackward(ActivationBackward, Op):
    node = "HardswishBackwardBackward0"
    torch_names = ()

    @staticmethod
    def formula(grad, x):
        data = x._data
        above = kernel_tensor(_hardswish_above, data, grad._data)
        middle = kernel_tensor(_hardswish_middle, data)
        value = grad * Where.apply(x / 3 + 0.5, above, condition=middle)
        # torch returns a +0 up to -3 (grad * 0 gave -0 for a negative grad)
        below = kernel_tensor(_at_most_minus_three, data)
        return (Where.apply(_zeros_like(value), value, condition=below),)

    def backward(self, grads):
        # derivatives.yaml: grad_output hardswish_backward(grad, self); self where(-3 < self <
        # 3, grad * grad_output / 3.0, 0)
        gg, grad_output, x = grads[0], self.saved("grad_output"), self.saved("self")
        if gg is None:
            return None, None
        grad_grad = HardswishBackward.record(gg, x) if self.needs_grad(0) else None
        grad_x = None
        if self.needs_grad(1):
            curved = gg * grad_output / 3.0
            grad_x = Where.apply(curved, _zeros_like(curved),
                                 condition=kernel_tensor(_hardswish_middle, x._data))
        return grad_grad, grad_x


@register
class LogSigmoid(Op):
    """``log(sigmoid(x))`` computed without overflow."""

    node = "LogSigmoidBackward0"
    complex_message = '"log_sigmoid_cpu" not implemented for \'ComplexFloat\''
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.logsigmoid",)

    @staticmethod
    def forward(ctx, a):
        a = _floating(a, "log_sigmoid_cpu")
        if a.dtype == np.float16:  # torch computes it in float32 and rounds once
            return LogSigmoid.forward(ctx, a.astype(np.float32)).astype(np.float16)
        if a.dtype == np.float32:  # torch's kernel: SLEEF's expf and log1pf
            return _sleef_unary.log_sigmoid(a)
        if a.dtype == np.float64:  # torch's kernel: SLEEF's exp and log1p
            return _sleef_double.log_sigmoid(a)
        return _layout.contiguous((np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))).astype(a.dtype))

    def backward(self, grad):
        x = self.saved("self")
        if plain_backward() and x._data.dtype == np.float32 == grad._data.dtype:
            # torch's float32 kernel, bit for bit (Note: array-level backwards in activation.py)
            return _wrap(array_kernel(_sleef_unary.log_sigmoid_backward, grad._data, x._data))
        if plain_backward() and x._data.dtype == np.float64 == grad._data.dtype:
            return _wrap(array_kernel(_sleef_double.log_sigmoid_backward, grad._data, x._data))
        if records_or_breaks_capture("log_sigmoid"):
            return LogSigmoidBackward.record(grad, x)
        reduced = reduced_in_float(lambda g, t: _wrap(array_kernel(
            _sleef_unary.log_sigmoid_backward, g._data, t._data, buffer_dtype=x._data.dtype)),
            grad, x)
        if reduced is not None:  # Note: reduced-float activation backwards (activation.py)
            return reduced
        return grad * (-x).sigmoid()

    jvp = auto_element_wise


@register
class LogSigmoidBackward(ActivationBackward, Op):
    node = "LogSigmoidBackwardBackward0"
    torch_names = ()

    @classmethod
    def forward(cls, ctx, grad, x):
        # its value: torch's log_sigmoid_backward kernel, as the plain backward's
        if x.dtype == np.float32 == grad.dtype:
            return (_sleef_unary.log_sigmoid_backward(grad, x),)
        if x.dtype == np.float64 == grad.dtype:
            return (_sleef_double.log_sigmoid_backward(grad, x),)
        return super().forward(ctx, grad, x)

    @staticmethod
    def formula(grad, x):
        return (grad * (-x).sigmoid(),)

    def backward(self, grads):
        # derivatives.yaml: grad_output log_sigmoid_backward(grad, self, buffer); self
        # log_sigmoid_double_backward(grad * grad_output, self) = g * (z - 1) * z, z = sigmoid
        gg, grad_output, x = grads[0], self.saved("grad_output"), self.saved("self")
        if gg is None:
            return None, None
        grad_grad = LogSigmoidBackward.record(gg, x) if self.needs_grad(0) else None
        grad_x = None
        if self.needs_grad(1):
            z = x.sigmoid()
            grad_x = gg * grad_output * (z - 1) * z
        return grad_grad, grad_x


@register
class Threshold(Op):
    """``x`` where ``x > threshold``, else ``value``."""

    node = "ThresholdBackward0"
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.threshold",)

    @staticmethod
    def forward(ctx, a, threshold, value):
        if a.dtype == np.bool_:
            raise NotImplementedError('"threshold_cpu" not implemented for \'Bool\'')
        if a.dtype.kind in "iu":  # both numbers as the kernel's scalar_t: c10's checked

            threshold = _integer_alpha(a.dtype, threshold)
            if threshold.__class__ is float:  # (truncated toward zero: -0.5 is 0)
                threshold = int(threshold)
            value = _integer_alpha(a.dtype, value)
        return _where(a <= threshold, a.dtype.type(value), a)  # NaN stays NaN, as torch

    def backward(self, grad):
        # torch: threshold_backward(grad, self, threshold), a recorded op (its own second
        # derivative, a zero in self); grad * mask had no edge to self and made NaN of an
        # inf grad where the mask is 0

        return ThresholdBackward.apply(grad, self.saved("self"),
                                       threshold=self._params["threshold"])

    jvp = auto_element_wise


@register
class Glu(Op):
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second half."""

    node = "GluBackward0"
    vmap = batch.dims("dim")
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.glu",)

    @staticmethod
    def forward(ctx, a, dim):
        first, second = np.split(_float(a), 2, axis=dim)
        if first.dtype == np.float32:
            # ATen's glu kernel: a * (1 / (1 + exp(-b))), the sigmoid as torch's (SLEEF's expf
            # in the vectors, glibc's in the scalar tail, as TensorIterator runs the halves)
            return np.asarray(first * _float_kernels.sigmoid_for(second, (first, second)))
        if first.dtype == np.float64:
            return np.asarray(first * _sigmoid(second))
        return first / (1 + np.exp(-second))

    def backward(self, grad):
        x = self.saved("self")
        if records_or_breaks_capture("glu"):
            return GluBackward.record(grad, x, **self._params)
        if plain_backward() and x._data.dtype == np.float32 == grad._data.dtype:
            # torch's float32 kernel, bit for bit (Note: array-level backwards)
            return _wrap(array_kernel(_float_kernels.glu_backward, grad._data, x._data,
                                      dim=self._params["dim"]))
        return GluBackward.formula(grad, x, **self._params)[0]

    def jvp(self, tangents, primals, result):
        # torch's glu_jvp: da * sigmoid(b) + glu * (db - sigmoid(b) * db)
        dim = self._params["dim"]
        gate = primals[0].chunk(2, dim)[1].sigmoid()
        da, db = tangents[0].chunk(2, dim)
        return da * gate + result * (db - gate * db)


@register
class GluBackward(ActivationBackward, Op):
    node = "GluBackwardBackward0"
    torch_names = ()

    @classmethod
    def forward(cls, ctx, grad, x, dim):
        if x.dtype == np.float32 == grad.dtype:  # its value: torch's kernel (glu_backward)
            return (_float_kernels.glu_backward(grad, x, dim),)
        return super().forward(ctx, grad, x, dim=dim)

    @staticmethod
    def formula(grad, x, dim):
        from . import Cat

        first, second = x.chunk(2, dim)
        gate = second.sigmoid()
        # glu_backward_cpu_out's order: sigmoid(b) * grad for the first half, the fused
        # kernel's (1 - s) * s * a * grad for the second
        return (Cat.apply_list([gate * grad, (1 - gate) * gate * first * grad], dim),)

    def backward(self, grads):
        # derivatives.yaml: glu_double_backward_grad_output(grad, self, dim) and
        # glu_double_backward(grad, grad_output, self, dim), in FunctionsManual's order
        from . import Cat
        from .. import ones

        gg, grad_output, x = grads[0], self.saved("grad_output"), self.saved("self")
        if gg is None:
            return None, None
        dim = self._params["dim"] % max(x.dim(), 1)
        half = x.shape[dim] // 2
        grad_grad = grad_x = None
        if self.needs_grad(0):
            sizes = list(x.shape)
            sizes[dim] = half
            tmp = gg * GluBackward.record(ones(sizes, dtype=x.dtype), x, dim=dim)
            grad_grad = tmp.narrow(dim, 0, half) + tmp.narrow(dim, half, half)
        if self.needs_grad(1):
            first, second = x.narrow(dim, 0, half), x.narrow(dim, half, half)
            sig = second.sigmoid()
            one_sub_sig = 1 - sig
            sig_one_sub_sig = sig * one_sub_sig
            gg_first, gg_second = gg.narrow(dim, 0, half), gg.narrow(dim, half, half)
            gg_second_first = gg_second * first
            grad_first = gg_second * grad_output * sig_one_sub_sig
            second_order = sig_one_sub_sig * one_sub_sig - sig * sig_one_sub_sig
            grad_second = (gg_second_first * grad_output * second_order
                           + gg_first * grad_output * sig_one_sub_sig)
            grad_x = Cat.apply_list([grad_first, grad_second], dim)
        return grad_grad, grad_x


@register
class Prelu(Op):
    """``x`` where positive, else ``weight * x``; ``weight`` has 1 or ``channels`` entries."""
    autocast = "lower_precision_fp"  # torch's CPU autocast list

    node = "PreluKernelBackward0"
    inputs = ("self", "weight")
    # the weight for either gradient: a create_graph backward's node has an edge to it
    saves = {"self": ("self", "weight"), "weight": ("self", "weight")}
    torch_names = ("nn.functional.prelu",)

    @staticmethod
    def _broadcast_shape(ndim: int, count: int) -> tuple:
        # one weight for all, or one per channel (dim 1)
        if count == 1:
            return (1,) * ndim
        return (1, count) + (1,) * (ndim - 2)

    @staticmethod
    def forward(ctx, a, weight):
        if weight.size != 1 and (a.ndim < 2 or a.shape[1] != weight.size):
            channels = a.shape[1] if a.ndim >= 2 else 1
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {weight.size} and channel size = {channels}."
            )
        w = weight.reshape(Prelu._broadcast_shape(a.ndim, weight.size))
        return _where(a > 0, a, w * a).astype(a.dtype)

    def backward(self, grad):
        x = self.saved("self")
        data = x._data
        count = self.input_shape(1)
        count = int(np.prod(count)) if count else 1
        shape = self._broadcast_shape(data.ndim, count)
        mask = (self.needs_grad(0), self.needs_grad(1))
        weight = self.saved("weight").reshape(shape) if mask[0] or records_double_backward() \
            else None
        if records_double_backward():  # torch's node, with an edge to the viewed weight
            grad_x, contribution = PreluBackward.apply(grad, x, weight, mask=mask)
        else:
            grad_x, contribution = PreluBackward.formula(grad, x, weight, mask)
        grad_w = None
        if mask[1]:
            if count == 1:  # torch sums over every dim by name (SumBackward1)
                every = tuple(range(data.ndim))
                total = contribution.sum(every) if every else contribution.sum()
                grad_w = total.reshape(self.input_shape(1))
            else:
                dims = [d for d in range(data.ndim) if d != 1]
                grad_w = contribution.sum(dims).reshape(self.input_shape(1))
        return grad_x if mask[0] else None, grad_w

    def jvp(self, tangents, primals, result):
        # torch: where(self_p >= 0, self_t, weight_p * self_t + weight_t * self_p)
        x, weight = primals
        shape = self._broadcast_shape(x.ndim, weight.numel())
        x_t, weight_t = filled(tangents, primals)
        return Where.apply(x_t, weight.reshape(shape) * x_t + weight_t.reshape(shape) * x,
                           condition=x >= 0)


@register
class PreluBackward(RecordedFormula, Op):
    """torch's _prelu_kernel_backward(grad_output, self, weight) -> (grad_input, the weight's
    gradient per element, summed by the caller), recorded by a create_graph backward
    (PreluKernelBackwardBackward0; ``weight`` is the weight viewed to broadcast)."""

    node = "PreluKernelBackwardBackward0"
    zeros_for_unused = True
    inputs = ("grad_output", "self", "weight")
    saves = {
        "grad_output": ("grad_output", "self", "weight"),
        "self": ("grad_output", "self", "weight"), "weight": ("grad_output", "self", "weight")}
    torch_names = ()

    @staticmethod
    def formula(grad, x, weight, mask):
        positive = kernel_tensor(_positive_mask, x._data)
        grad_x = grad * (positive + (1 - positive) * weight) if mask[0] else None
        contribution = grad * x * (1 - positive) if mask[1] else None
        return grad_x, contribution

    def backward(self, grads):
        # derivatives.yaml's _prelu_kernel_backward: with g0, g1 the gradients of its two
        # outputs, grad_output where(self >= 0, g0, g0 * weight + g1 * self) (a term without
        # its g left out, zeros for g0 undefined), self where(self >= 0, 0, grad_output * g1),
        # weight where(self >= 0, 0, grad_output * g0) (zeros_like(self) without that g)
        from .. import zeros_like

        g0, g1 = grads[0], grads[1] if len(grads) > 1 else None
        x = self.saved("self")
        nonnegative = kernel_tensor(_nonnegative, x._data)
        results = [None, None, None]
        if g0 is None and g1 is None:
            return tuple(results)
        if self.needs_grad(0):
            weight = self.saved("weight")
            if g0 is None:
                product = g1 * x
                results[0] = Where.apply(_zeros_like(product), product, condition=nonnegative)
            else:
                other = g0 * weight if g1 is None else g0 * weight + g1 * x
                results[0] = Where.apply(g0, other, condition=nonnegative)
        if self.needs_grad(1) or self.needs_grad(2):
            grad_output = self.saved("grad_output")
            for index, g in ((1, g1), (2, g0)):
                if not self.needs_grad(index):
                    continue
                if g is None:
                    results[index] = zeros_like(x)
                else:
                    product = grad_output * g
                    results[index] = Where.apply(_zeros_like(product), product,
                                                 condition=nonnegative)
        return tuple(results)


def rrelu_noise(a: np.ndarray, lower: float, upper: float, training: bool) -> np.ndarray:
    """The slopes rrelu multiplies ``a`` by (torch's ``noise`` argument of rrelu_with_noise):
    in training a draw from [lower, upper) for each non-positive element, in torch's stream
    (one 53-bit uniform per such element, in order), 1 elsewhere; in evaluation the mean slope
    for non-positive elements."""
    from .. import _rng as _random

    a = _float(a)
    if training:
        negative = a <= 0
        noise = np.ones_like(a)
        gen = _random.default_generator
        # torch takes lower/upper as the input's scalar type before the double arithmetic
        low, high = float(a.dtype.type(lower)), float(a.dtype.type(upper))
        with gen._lock:  # Note: one draw at a time (in _rng.py)
            draws = _random._uniform53(gen, int(negative.sum())) * (high - low) + low
        noise[negative] = draws.astype(a.dtype)
        return noise
    return np.where(a > 0, a.dtype.type(1), a.dtype.type((lower + upper) / 2))


rrelu_noise.draws_random = True  # leafgrad.compile: replayed, never dropped or merged


@register
class RreluWithNoise(Op):
    """Randomised leaky ReLU: ``self * noise`` with the slopes of ``rrelu_noise``, drawn before
    the op as torch draws them into its ``noise`` argument (so the forward-mode formula, like
    the backward, multiplies by the same slopes)."""

    node = "RreluWithNoiseBackward0"
    bfloat16_follows_self = True  # Note: opmath for bfloat16 (ops/_bfloat16.py)
    uint_kernel = staticmethod(_uint.rrelu_kernel)
    complex_message = '"leaky_relu_cpu" not implemented for \'ComplexFloat\''
    torch_names = ("nn.functional.rrelu",)

    @staticmethod
    def forward(ctx, a, noise, lower, upper, training):
        return _layout.contiguous(_floating(a, "leaky_relu_cpu") * noise)

    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)

    def backward(self, grad):
        if records_double_backward():  # torch's node, with an edge to self
            # (the in-place form's edge is to its result, as torch's)
            source = self.saved("result" if "result" in self.saves else "self")
            return RreluWithNoiseBackward.record(grad, source, noise=self._params["noise"])
        return RreluWithNoiseBackward.formula(grad, None, self._params["noise"])[0]

    jvp = auto_element_wise


@register
class RreluWithNoiseBackward(ActivationBackward, Op):
    """rrelu_with_noise_backward(grad_output, self, noise, ...): ``grad * noise`` (the slopes
    drawn by the forward); its derivative in self is zeros, as torch's."""

    node = "RreluWithNoiseBackwardBackward0"
    zeros_for_unused = True
    torch_names = ()

    @staticmethod
    def formula(grad, x, noise):
        from ..tensor import _wrap

        return (grad * _wrap(noise),)

    def backward(self, grads):
        # derivatives.yaml: grad_output rrelu_with_noise_backward(grad, self, noise, ...), its
        # own node again (a product by the noise recorded MulBackward0), self zeros_like(grad)
        from .. import zeros_like

        gg, x = grads[0], self.saved("self")
        results = [None] * len(self._next_nodes)
        if self.needs_grad(0) and gg is not None:
            results[0] = RreluWithNoiseBackward.record(gg, x, **self._params)
        if self.needs_grad(1):
            results[1] = zeros_like(x)
        return tuple(results)
