"""Loss ops whose torch node is a dedicated one (MseLossBackward0, NllLossBackward0, ...).
Losses torch composes from other ops (l1_loss, kl_div, cross_entropy) live in nn/functional."""

from __future__ import annotations

import numpy as np

from . import _cascade_sum, _layout, _numba_kernels, _promote, _sleef_unary
from ._select import where as _where, where_into
from ._forward import auto_element_wise, auto_linear, jvp_sum
from . import _batching_rules as batch
from ._double_backward import records_double_backward, self_args, self_edge
from .registry import Op, array_kernel, plain_backward, register
from ..tensor import _wrap
from . import _inference_writes as _writes
from ..autograd.forward_ad import get_tangent, state as dual_state
from ._batching_rules import MEAN_PER_EXAMPLE
from .._compile.state import state as capture
from ..autograd.grad_mode import state as grad_state
from ..autograd._vmap_state import state as vmap_state
from .activation_extra import LogSigmoid
from .activation import kernel_tensor
from .math_logic import Where
from ._forward import jvp_by_decomposition
from .elementwise import _legacy_name
from ._bfloat16 import to_bfloat16
from . import _sleef_double
from .special_fns import AddScalarFormula

_REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(values: np.ndarray, reduction: str) -> np.ndarray:
    """torch's apply_loss_reduction: ``loss.mean()`` / ``loss.sum()``, float sums in torch's
    order of additions as Tensor.sum's (its mean divides that sum by the count); NumPy's
    pairwise sum gave another last bit on about half of mse/bce/smooth_l1 losses."""
    if reduction != "none" and values.size and values.dtype.kind == "f":
        # a permuted layout (of permuted operands) adds in memory order, as Tensor.sum's
        values = np.ascontiguousarray(_cascade_sum.in_memory_order(values))
        if _cascade_sum.applies(values):
            total = _cascade_sum.total(values)
            if reduction == "mean":
                return np.asarray(total / values.dtype.type(values.size))
            return total
    if reduction == "mean" and values.dtype == np.float16 and values.size:
        # torch's Half mean: the float32 sum divided by the count, rounded once (NumPy's
        # float16 mean rounds the sum first: tests/test_left4_findings.py)
        wide = np.ascontiguousarray(_cascade_sum.in_memory_order(values), np.float32)
        total = _cascade_sum.total(wide) if _cascade_sum.applies(wide) else wide.sum()
        return np.asarray(np.float16(total / np.float32(values.size)))
    if reduction == "sum" and values.dtype == np.float16 and values.size:
        # Note: float16 sums and means (ops/reduce.py)
        return _cascade_sum.reduced_total(
            np.ascontiguousarray(_cascade_sum.in_memory_order(values)),
            lambda total: total.astype(np.float16))
    if reduction == "mean":
        if not values.size:  # torch's 0 / 0 (its bits), without NumPy's "Mean of empty slice"
            with np.errstate(invalid="ignore"):
                return np.divide(np.zeros((), values.dtype), values.dtype.type(0))
        return np.asarray(values.mean(dtype=values.dtype))
    if reduction == "sum":
        return np.asarray(values.sum(dtype=values.dtype))
    return values


def _unreduce(grad, shape, reduction: str):
    """The incoming grad of a reduced loss, spread back over the pointwise losses."""
    if reduction == "none":
        return grad
    count = int(np.prod(shape))
    spread = grad.expand(shape)
    return spread / count if reduction == "mean" else spread


def _reduce_tangent(tangent, reduction: str):
    """torch's apply_loss_reduction on the pointwise tangents of a loss."""
    if reduction == "mean":
        return tangent.mean()
    if reduction == "sum":
        return tangent.sum()
    return tangent


@register
class DivScalar(Op):
    """``tensor / number`` as torch's C++ code writes it (DivBackward1, one edge)."""

    node = "DivBackward1"
    complex_ok = True
    torch_names = ()

    @staticmethod
    def forward(ctx, a, other):
        return a / a.dtype.type(other)

    def backward(self, grad):
        other = self._params["other"]
        if isinstance(other, complex):  # Note: torch's convention for complex gradients
            other = other.conjugate()
        return grad / other

    jvp = auto_element_wise


class _Pointwise(Op):
    """A loss over ``input - target`` (broadcast), then reduced."""

    __slots__ = ()
    integer_kernel = None  # torch's kernel name in its error for integer and bool operands
    inputs = ("self", "target")
    saves = {"self": ("self", "target"), "target": ("self", "target")}

    @classmethod
    def forward(cls, ctx, a, target, reduction, **params):
        a, target = _promote.binary(a, target)
        if a.dtype.kind in "iub" and cls.integer_kernel is not None:
            raise NotImplementedError(
                f'"{cls.integer_kernel}" not implemented for \'{_legacy_name(a)}\'')
        half = getattr(cls, "half_kernel", None)
        if half is not None and a.dtype == np.float16 and target.dtype == np.float16 and \
                type(a) is np.ndarray and type(target) is np.ndarray and params.get(
                    "beta", 1.0) != 0:
            # torch's float16 kernel: its own rounding (Note: float16 pointwise loss kernels)
            return _reduce(half(a, target, **params), reduction)
        diff = np.subtract(a, target)
        if a.ndim > 1 and not a.flags.c_contiguous:
            # the pointwise losses laid out as TensorIterator lays out (input, target): a
            # transposed input's order, which a 'mean' then sums in (Note: output layout)
            diff = _layout.iterated(diff, (a, target))
        into = getattr(cls, "pointwise_into", None)
        if into is not None and a.dtype in _KERNEL_DTYPES and a.shape == target.shape \
                and a.ndim:
            # the same values, one temporary fewer per step (Note: pointwise loss kernels)
            return _reduce(into(diff, **params), reduction)
        return _reduce(cls.pointwise(diff, **params), reduction)

    def backward(self, grad):
        x, target = self.saved("self"), self.saved("target")
        if target.dtype.name == "bool":  # torch's backward kernels take a bool target as 0/1
            target = target.to(x.dtype)
        params = {k: v for k, v in self._params.items() if k != "reduction"}
        shape, reduction = tuple(np.broadcast_shapes(x.shape, target.shape)), self._params[
            "reduction"]
        grad_x = grad_target = None
        backward_op = getattr(self, "backward_op", None)
        if backward_op is not None and (backward_op.records(params) or getattr(
                self, "records_in_capture", False) and _recorded_in_capture()):
            # torch's node (MseLossBackwardBackward0...) under create_graph
            if self.needs_grad(0):
                grad_x = backward_op.apply(grad, x, target, reduction=reduction, **params)
            if self.needs_grad(1):
                grad_target = backward_op.apply(grad, target, x, reduction=reduction, **params)
            return grad_x, grad_target
        # torch's derivatives.yaml: the target's gradient is the same backward with self and
        # target swapped (slope(target - self)), not the negated input gradient: the two differ
        # in the sign of zeros (mse_loss(y, y): torch's gradients are both -0. under a negative
        # upstream gradient, leafgrad's summed to +0.: generated-program seed 32854)
        kernel = getattr(self, "grad_kernel", None)
        if kernel is not None and plain_backward() and _kernel_applies(grad, x, target):
            # torch's <loss>_backward kernel on the arrays (Note: pointwise loss kernels)
            if self.needs_grad(0):
                grad_x = _wrap(array_kernel(kernel, x._data, target._data, grad._data,
                                            reduction=reduction, **params))
            if self.needs_grad(1):
                grad_target = _wrap(array_kernel(kernel, target._data, x._data, grad._data,
                                                 reduction=reduction, **params))
            return grad_x, grad_target
        formula = getattr(self, "kernel_formula", None)
        if formula is not None:  # the kernel's order in Tensor ops (recorded, captured)
            if self.needs_grad(0):
                grad_x = formula(grad, x, target, shape, reduction)
            if self.needs_grad(1):
                grad_target = formula(grad, target, x, shape, reduction)
            return grad_x, grad_target
        if self.needs_grad(0):
            grad_x = _unreduce(grad, shape, reduction) * self.slope(x - target, **params)
        if self.needs_grad(1):
            grad_target = _unreduce(grad, shape, reduction) * self.slope(target - x, **params)
        return grad_x, grad_target

    def jvp(self, tangents, primals, result):
        # torch: reduce(loss_backward(self_t, self_p, target_p) + loss_backward(target_t, target_p,
        # self_p)); each slope is odd in the difference
        diff = primals[0] - primals[1]
        params = {k: v for k, v in self._params.items() if k != "reduction"}
        slope = self.slope(diff, **params)
        pointwise = jvp_sum(tangents, lambda t: t * slope, lambda t: -t * slope)
        return _reduce_tangent(pointwise.expand(diff.shape), self._params["reduction"])


@register
class MseLoss(_Pointwise):
    autocast = "fp32"  # torch's CPU autocast list
    node = "MseLossBackward0"
    inference_writes = staticmethod(_writes.reduced_loss)
    complex_message = '"mse_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    broadcasts = True
    integer_kernel = "mse_cpu"
    torch_names = ("nn.functional.mse_loss",)

    @staticmethod
    def pointwise(diff):
        return diff * diff

    @staticmethod
    def slope(diff):
        return diff * 2

    # under leafgrad.compile a create_graph backward records MseLossBackward too (its value
    # the kernel's, its own backward derivatives.yaml's order), as eagerly
    records_in_capture = True

    def backward(self, grad):
        _check_mse_forward_over_reverse(self, grad)
        return super().backward(grad)

    @staticmethod
    def kernel_formula(grad, x, target, shape, reduction):
        """``_mse_grad``'s order in Tensor ops: ``(x - target) * norm * grad`` (the number
        ``norm`` in the tensor's dtype, as torch's kernel casts it), so that a recorded or
        captured backward gives the kernel's bits."""
        count = int(np.prod(shape))
        norm = 2.0 / count if reduction == "mean" and count else 2.0
        spread = grad if reduction == "none" else grad.expand(shape)
        return (x - target) * norm * spread


@register
class SmoothL1Loss(_Pointwise):
    autocast = "fp32"  # torch's CPU autocast list
    node = "SmoothL1LossBackward0"
    complex_message = '"smooth_l1_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    broadcasts = True
    integer_kernel = "smooth_l1_cpu"
    torch_names = ("nn.functional.smooth_l1_loss",)

    @staticmethod
    def pointwise(diff, beta):
        absolute = np.abs(diff)
        if beta == 0:
            return absolute
        return _where(absolute < beta, 0.5 * diff * diff / beta, absolute - 0.5 * beta)

    @staticmethod
    def pointwise_into(diff, beta):
        """``pointwise(diff)`` computed in ``diff``'s memory and one more array."""
        if beta == 0:
            return np.abs(diff, out=diff)
        dtype = diff.dtype.type
        absolute = np.abs(diff, out=diff)
        quadratic = np.multiply(absolute, dtype(0.5))
        np.multiply(quadratic, absolute, out=quadratic)
        np.divide(quadratic, dtype(beta), out=quadratic)
        inside = absolute < beta
        linear = np.subtract(absolute, dtype(0.5 * beta), out=absolute)
        return where_into(inside, quadratic, linear)

    @staticmethod
    def slope(diff, beta):
        # a select, not a blend by the mask: an infinite difference has slope +-1 (0 * inf
        # was NaN)
        inside = kernel_tensor(_smooth_l1_inside, diff._data, beta=beta) != 0
        return Where.apply(diff / beta if beta else diff, diff.sign(), condition=inside)


@register
class HuberLoss(_Pointwise):
    """torch's huber_loss writes into a tensor of the input's dtype (computing in the common
    one), and its backward refuses a target of another dtype (TensorIterator's same-dtype
    check), where mse/l1/smooth_l1 promote."""

    autocast = "fp32"  # torch's CPU autocast list
    node = "HuberLossBackward0"
    complex_message = '"huber_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    broadcasts = True
    bfloat16_follows_self = True  # Note: opmath for bfloat16 (ops/_bfloat16.py)
    integer_kernel = "huber_cpu"
    torch_names = ("nn.functional.huber_loss",)

    @classmethod
    def forward(cls, ctx, a, target, reduction, **params):
        return np.asarray(super().forward.__func__(cls, ctx, a, target, reduction, **params)
                          ).astype(a.dtype, copy=False)

    def backward(self, grad):
        x, target = self.saved("self"), self.saved("target")
        if x.dtype is not target.dtype:
            # the first backward torch runs, huber_loss_backward(grad, self, target) (or with
            # the two swapped when only the target needs a gradient), expects its self's dtype
            if not self.needs_grad(0):
                x, target = target, x
            raise RuntimeError(f"Found dtype {target.dtype._legacy} but expected "
                               f"{x.dtype._legacy}")
        return super().backward(grad)

    @staticmethod
    def pointwise(diff, delta):
        absolute = np.abs(diff)
        return _where(absolute < delta, 0.5 * diff * diff, delta * (absolute - 0.5 * delta))

    @staticmethod
    def pointwise_into(diff, delta):
        """``pointwise(diff)`` computed in ``diff``'s memory and one more array."""
        dtype = diff.dtype.type
        absolute = np.abs(diff, out=diff)
        quadratic = np.multiply(absolute, dtype(0.5))
        np.multiply(quadratic, absolute, out=quadratic)
        inside = absolute < delta
        linear = np.subtract(absolute, dtype(0.5 * delta), out=absolute)
        np.multiply(linear, dtype(delta), out=linear)
        return where_into(inside, quadratic, linear)

    @staticmethod
    def slope(diff, delta):
        inside = kernel_tensor(_huber_inside, diff._data, delta=delta) != 0
        return Where.apply(diff, diff.sign() * delta, condition=inside)


class _PointwiseBackward(Op):
    """torch's ``<loss>_backward(grad_output, self, target)`` of a pointwise loss as one node,
    recorded by a create_graph backward: ``unreduce(grad) * slope(self - target)`` (the
    target's gradient is the same op with self and target swapped, as derivatives.yaml has
    it). Its value is the plain backward's, computed by the same Tensor formula; its own
    gradients are torch's ``<loss>_double_backward`` (``grad * curvature(self - target)``,
    divided by the count for mean) and, in grad_output, the slope reduced as the loss."""

    __slots__ = ()
    inputs = ("grad_output", "self", "target")
    # torch's kernel writes into zeros_like(self): a bfloat16 self gives a bfloat16 gradient
    # from this node itself (generated-program seed 20005448: a float64 input's bfloat16
    # target had a ToCopyBackward0 after it here)
    bfloat16_follows_self = 1
    saves = {"grad_output": ("self", "target"), "self": ("grad_output", "self", "target"),
             "target": ("grad_output", "self", "target")}
    broadcasts = True
    loss = None  # the forward op

    @classmethod
    def records(cls, params: dict) -> bool:
        return records_double_backward()

    @classmethod
    def forward(cls, ctx, grad, a, target, reduction, **params):
        kernel = getattr(cls.loss, "grad_kernel", None)
        if kernel is not None and _kernel_applies(grad, a, target):
            return kernel(a, target, grad, reduction=reduction, **params)
        shape = tuple(np.broadcast_shapes(a.shape, target.shape))
        slope = cls.loss.slope(_wrap(a) - _wrap(target), **params)
        result = (_unreduce(_wrap(grad), shape, reduction) * slope)._data
        # torch's kernel writes into zeros_like(self), computing in the common dtype: the
        # target's gradient of a float64 input and a float32 target is float32 from this node
        # itself, not a cast after it (generated-program seed 39142)
        return result.astype(a.dtype, copy=False) if a.dtype.kind == "f" else result

    def jvp(self, tangents, primals, result):
        params = dict(self._params)
        reduction = params.pop("reduction")

        def formula(grad, a, target):
            shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(target.shape)))
            return _unreduce(grad, shape, reduction) * self.loss.slope(a - target, **params)

        return jvp_by_decomposition(formula, primals, tangents)

    def backward(self, gg):
        params = dict(self._params)
        reduction = params.pop("reduction")
        x, target = self.saved("self"), self.saved("target")
        diff = x - target
        grad_grad = grad_x = grad_target = None
        if self.needs_grad(0):
            grad_grad = _reduce_tangent(gg * self.loss.slope(diff, **params), reduction)
        if self.needs_grad(1) or self.needs_grad(2):
            shape = tuple(diff.shape)
            spread = _unreduce(self.saved("grad_output"), shape, reduction)
            curved = gg * spread * self.curvature(diff, **params)
            grad_x = curved if self.needs_grad(1) else None
            grad_target = -curved if self.needs_grad(2) else None
        return grad_grad, grad_x, grad_target


@register
class MseLossBackward(_PointwiseBackward):
    node = "MseLossBackwardBackward0"
    loss = MseLoss
    torch_names = ()

    @staticmethod
    def curvature(diff):
        return 2

    def backward(self, gg):
        # derivatives.yaml's formulas in their order of operations (torch's bits): grad_output
        # gets mse_loss_backward(gg, self, target) summed to its shape, self
        # mse_loss_double_backward(gg * grad_output) = 2 * (gg * grad_output) / numel (mean),
        # target its negation
        reduction = self._params["reduction"]
        x, target = self.saved("self"), self.saved("target")
        grad_grad = grad_x = grad_target = None
        if self.needs_grad(0):
            grad_grad = MseLossBackward.apply(gg, x, target, reduction=reduction)
            shape = self.input_shape(0)
            if tuple(grad_grad.shape) != shape:  # the engine's sum_to in torch
                grad_grad = grad_grad.sum_to_size(shape)
        if self.needs_grad(1) or self.needs_grad(2):
            curved = (gg * self.saved("grad_output")) * 2
            if reduction == "mean":
                curved = curved / int(np.prod(np.broadcast_shapes(tuple(x.shape),
                                                                  tuple(target.shape))))
            grad_x = curved if self.needs_grad(1) else None
            grad_target = -curved if self.needs_grad(2) else None
        return grad_grad, grad_x, grad_target


def _check_mse_forward_over_reverse(node, grad) -> None:
    """torch's error when forward mode differentiates mse_loss_backward (forward over reverse:
    torch.func.jvp or jacfwd of torch.func.grad of an MSE loss) with 'mean' reduction and no
    tangent for the input or the target: mse_loss_double_backward(self_t * grad_output) then
    divides 2 * t in place by numel, and t is a ZeroTensor, which refuses. A vmap level inside
    the jvp runs mse_loss_backward as plain ops first (jacfwd(jacrev(f)) works)."""
    if not dual_state.active or node._params["reduction"] != "mean" and \
            node not in MEAN_PER_EXAMPLE:
        return
    tangents = [get_tangent(t) for t in (grad, node.saved("self"), node.saved("target"))]
    if all(t is None for t in tangents) or all(t is not None for t in tangents[1:]):
        return
    if _vmap_decomposes_inside_jvp():
        return
    raise RuntimeError(
        "ZeroTensors are immutable. Please use the materialized zero tensor obtained using "
        ".clone() if you want a mutable tensor.")


def _vmap_decomposes_inside_jvp() -> bool:
    """Whether a vmap level is open inside the innermost torch.func.jvp (or, for
    autograd.forward_ad, any vmap level): torch's vmap runs mse_loss_backward as plain ops,
    so the forward-mode formulas are those ops' own."""
    from ..autograd._vmap_state import state

    kinds = [kind for kind, _, _ in state.stack]
    if "jvp" not in kinds:
        return bool(state.levels)
    innermost_jvp = len(kinds) - 1 - kinds[::-1].index("jvp")
    return "vmap" in kinds[innermost_jvp + 1:]


@register
class SmoothL1LossBackward(_PointwiseBackward):
    node = "SmoothL1LossBackwardBackward0"
    loss = SmoothL1Loss
    torch_names = ()

    @classmethod
    def records(cls, params: dict) -> bool:
        # beta 0 is l1_loss's backward in torch, a composite (MulBackward0)
        return params["beta"] != 0 and records_double_backward()

    @staticmethod
    def curvature(diff, beta):
        return kernel_tensor(_strictly_inside, diff._data, bound=beta) / beta

    def backward(self, gg):
        # derivatives.yaml: grad_output smooth_l1_loss_backward(grad, self, target) (summed to
        # its shape by the engine); self smooth_l1_loss_double_backward(grad * grad_output) =
        # g * (|self - target| < beta) / beta, then / numel for a mean; target its negation
        # (each computed on its own, as torch's generated code does)
        reduction, beta = self._params["reduction"], self._params["beta"]
        x, target = self.saved("self"), self.saved("target")
        grad_grad = None
        if self.needs_grad(0):
            grad_grad = SmoothL1LossBackward.apply(gg, x, target, reduction=reduction, beta=beta)
            shape = self.input_shape(0)
            if tuple(grad_grad.shape) != shape:
                grad_grad = grad_grad.sum_to_size(shape)
        return (grad_grad,) + _loss_double_backward(self, gg, x, target, reduction, beta, beta)


@register
class HuberLossBackward(_PointwiseBackward):
    node = "HuberLossBackwardBackward0"
    loss = HuberLoss
    torch_names = ()

    @staticmethod
    def curvature(diff, delta):
        return kernel_tensor(_strictly_inside, diff._data, bound=delta)

    def backward(self, gg):
        # derivatives.yaml: grad_output huber_loss_double_backward_grad_output (none:
        # huber_loss_backward(grad, ...); else (huber_loss_backward(ones_like(grad_output),
        # ...) * grad).sum()); self huber_loss_double_backward(grad * grad_output) = g *
        # (|self - target| < delta), then / numel for a mean; target its negation
        from .. import ones_like

        reduction, delta = self._params["reduction"], self._params["delta"]
        x, target = self.saved("self"), self.saved("target")
        grad_grad = None
        if self.needs_grad(0):
            if reduction == "none":
                grad_grad = HuberLossBackward.apply(gg, x, target, reduction=reduction,
                                                    delta=delta)
            else:
                ones = ones_like(self.saved("grad_output"))
                grad_grad = (HuberLossBackward.apply(ones, x, target, reduction=reduction,
                                                     delta=delta) * gg).sum()
        return (grad_grad,) + _loss_double_backward(self, gg, x, target, reduction, delta, None)


def _loss_double_backward(node, gg, x, target, reduction, bound, divisor) -> tuple:
    """The self and target gradients of smooth_l1's and huber's backward node, in torch's
    order of operations: ``(gg * grad_output) * (|self - target| < bound) [/ divisor]
    [/ numel]`` and its negation, each computed on its own."""
    from .activation import kernel_tensor

    if not (node.needs_grad(1) or node.needs_grad(2)):
        return None, None
    inside = kernel_tensor(_strictly_inside, (x - target)._data, bound=bound)
    grad_output = node.saved("grad_output")

    def curved():
        value = gg * grad_output * inside
        if divisor is not None:
            value = value / divisor
        return value / x.numel() if reduction == "mean" else value

    return (curved() if node.needs_grad(1) else None,
            -curved() if node.needs_grad(2) else None)


MseLoss.backward_op = MseLossBackward
SmoothL1Loss.backward_op = SmoothL1LossBackward
HuberLoss.backward_op = HuberLossBackward


# Note: pointwise loss kernels
# torch's smooth_l1_loss_backward and huber_loss_backward kernels (float32/64) compute
# ``norm * slope * grad`` (norm: 1 / numel for a mean, else 1, in the dtype) with the slope
# clipped: ``x / beta`` within [-1, 1] (smooth_l1), ``x`` within [-delta, delta] (huber), for
# ``x = self - target``; their scalar op on each run's leftover (_layout.vectorized_elements)
# branches instead, rounding in another order and with beta and delta as doubles: ``norm * x *
# grad / beta`` and ``norm * x * grad`` inside, ``+-norm * grad`` and ``+-norm * grad * delta``
# outside. (float16 takes the Tensor formula: torch computes it in float32.) One array pass per
# step here, where the Tensor formula took ~15 (benchmarks/bench_large.py: smooth_l1, huber),
# and it gives torch's bits (the formula was an ulp off on many elements of a mean, and NaN for
# an infinite difference, where torch's slope is +-1).


def _recorded_in_capture() -> bool:
    if not capture.active:  # (norm.py's, False outside leafgrad.compile's capture)
        return False
    from .norm import _recorded_in_capture as recorded  # (loaded after this module)

    return recorded()


def _kernel_applies(grad, a, target) -> bool:
    """Whether the array kernels above take these operands (Tensors or arrays): one float
    dtype of NumPy's own (others take the Tensor formula)."""
    dtype = getattr(a, "_data", a).dtype
    return (dtype in _GRAD_KERNEL_DTYPES and getattr(target, "_data", target).dtype == dtype
            and getattr(grad, "_data", grad).dtype == dtype)


_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# float16 too for the backward kernels: torch's Half kernels round every step to float16 in
# both ops, which NumPy's float16 arithmetic does (Note: float16 pointwise loss kernels)
_GRAD_KERNEL_DTYPES = _KERNEL_DTYPES + (np.dtype(np.float16),)


# Note: float16 pointwise loss kernels
# torch's float16 (Half) kernels of these losses round differently from one another (measured
# against torch 2.13, every element of sizes 1..1000, both of Loops.h's ops): smooth_l1's
# forward rounds every step to float16 (Vectorized<Half> converts to float32 and back around
# each operation; NumPy's float16 arithmetic does the same), huber's forward and smooth_l1's
# backward compute in float32 from the float16 operands and round once (huber's backward
# agrees with both).


def _smooth_l1_half(a: np.ndarray, target: np.ndarray, beta) -> np.ndarray:
    """torch's smooth_l1 kernel on float16 arrays (Note: float16 pointwise loss kernels)."""
    half = np.float16
    z = np.abs(np.subtract(a, target))
    bound = half(beta)
    return np.where(z >= bound, z - half(0.5) * bound, half(0.5) * z * z / bound)


def _huber_half(a: np.ndarray, target: np.ndarray, delta) -> np.ndarray:
    """torch's huber kernel on float16 arrays (Note: float16 pointwise loss kernels)."""
    wide = np.float32
    z = np.abs(np.subtract(a, target, dtype=wide))
    bound = wide(np.float16(delta))
    out = np.where(z < bound, wide(0.5) * z * z, bound * (z - wide(0.5) * bound))
    return out.astype(np.float16)


def _scalar_elements(x: np.ndarray, target: np.ndarray, grad: np.ndarray):
    """The elements torch's kernel leaves to its scalar op: None (none), ``...`` (all) or an
    index into the result."""
    shape = np.broadcast_shapes(x.shape, target.shape, grad.shape)
    size = int(np.prod(shape))
    pair = 64 // x.itemsize
    if size < pair:
        return ...
    if all(op.size == 1 or (op.shape == shape and op.flags.c_contiguous)
           for op in (x, target, grad)):
        tail = size % pair
        return np.unravel_index(np.arange(size - tail, size), shape) if tail else None
    vectorized = _layout.vectorized_elements(shape, (x, target, grad), x.itemsize)
    if vectorized is None:
        return ...
    return None if vectorized.all() else ~vectorized


def _norm(x: np.ndarray, target: np.ndarray, reduction: str):
    size = int(np.prod(np.broadcast_shapes(x.shape, target.shape)))
    return x.dtype.type(1.0 / size if reduction == "mean" and size else 1.0)


def _smooth_l1_grad(x: np.ndarray, target: np.ndarray, grad: np.ndarray, reduction: str,
                    beta) -> np.ndarray:
    """torch's ``smooth_l1_loss_backward(grad, x, target)`` on arrays of one float dtype (Note:
    pointwise loss kernels)."""
    if x.dtype == np.float16:  # in float32, rounded once (Note: float16 pointwise loss kernels)
        size = int(np.prod(np.broadcast_shapes(x.shape, target.shape)))
        wide = np.float32
        norm = wide(1.0 / size if reduction == "mean" and size else 1.0)
        slope = np.clip(np.subtract(x, target, dtype=wide) / wide(beta), wide(-1), wide(1))
        return (slope * norm * grad.astype(wide)).astype(np.float16)
    dtype = x.dtype.type
    norm = _norm(x, target, reduction)
    diff = np.asarray(np.subtract(x, target))
    out = np.empty(np.broadcast_shapes(diff.shape, grad.shape), dtype=diff.dtype)
    np.divide(diff, dtype(beta), out=out)
    np.clip(out, dtype(-1), dtype(1), out=out)
    np.multiply(out, norm, out=out)
    np.multiply(out, grad, out=out)
    part = _scalar_elements(x, target, grad)
    if part is not None:  # the scalar op: beta a double there
        d = np.broadcast_to(diff, out.shape)[part]
        g = np.broadcast_to(grad, out.shape)[part]
        inside = (np.asarray(norm * d * g, dtype=np.float64) / beta).astype(out.dtype)
        out[part] = np.where(d <= -beta, -norm * g, np.where(d >= beta, norm * g, inside))
    return out


def _huber_grad(x: np.ndarray, target: np.ndarray, grad: np.ndarray, reduction: str,
                delta) -> np.ndarray:
    """torch's ``huber_loss_backward(grad, x, target)`` on arrays of one float dtype (Note:
    pointwise loss kernels)."""
    dtype = x.dtype.type
    norm = _norm(x, target, reduction)
    diff = np.asarray(np.subtract(x, target))
    out = np.empty(np.broadcast_shapes(diff.shape, grad.shape), dtype=diff.dtype)
    np.clip(diff, dtype(-delta), dtype(delta), out=out)
    np.multiply(out, norm, out=out)
    np.multiply(out, grad, out=out)
    part = _scalar_elements(x, target, grad)
    if part is not None:  # the scalar op: delta a double there
        d = np.broadcast_to(diff, out.shape)[part]
        g = np.broadcast_to(grad, out.shape)[part]
        outside = (np.asarray(norm * g, dtype=np.float64) * delta).astype(out.dtype)
        out[part] = np.where(d <= -delta, -outside, np.where(d >= delta, outside, norm * d * g))
    return out


def _mse_grad(x: np.ndarray, target: np.ndarray, grad: np.ndarray, reduction: str) -> np.ndarray:
    """torch's ``mse_loss_backward(grad, x, target)`` on arrays of one float dtype: ATen's
    kernel computes ``norm * (x - target) * grad`` in that order (its vector and scalar ops
    alike), ``norm`` the double ``2 / numel`` ('mean') or 2 cast to the dtype; float16 rounds
    every step, as NumPy's float16 arithmetic. The formula it replaces, ``grad / numel *
    ((x - target) * 2)``, rounded differently: ~half the elements of a 'mean' loss's
    gradient were a last bit off (tests/test_mse_loss_bits.py)."""
    size = int(np.prod(np.broadcast_shapes(x.shape, target.shape)))
    norm = x.dtype.type(2.0 / size if reduction == "mean" and size else 2.0)
    out = np.asarray(np.multiply(norm, np.subtract(x, target)))  # (0-d: NumPy's scalar)
    if np.broadcast_shapes(out.shape, grad.shape) != out.shape:
        return np.multiply(out, grad)
    return np.multiply(out, grad, out=out)


MseLoss.grad_kernel = staticmethod(_mse_grad)
SmoothL1Loss.grad_kernel = staticmethod(_smooth_l1_grad)
HuberLoss.grad_kernel = staticmethod(_huber_grad)
SmoothL1Loss.half_kernel = staticmethod(_smooth_l1_half)
HuberLoss.half_kernel = staticmethod(_huber_half)


def _strictly_inside(data: np.ndarray, bound) -> np.ndarray:
    """1 where ``|data| < bound`` (torch's double backwards of smooth_l1 and huber: the
    curvature at the boundary is 0), in data's dtype."""
    return (np.abs(data) < bound).astype(data.dtype)


def _smooth_l1_inside(data: np.ndarray, beta) -> np.ndarray:
    """1 where smooth_l1's quadratic part applies (beta 0: only NaN), in data's dtype (a
    leafgrad.compile kernel: Note: masks as kernels in activation.py)."""
    return (np.abs(data) < beta if beta else data != data).astype(data.dtype)


def _huber_inside(data: np.ndarray, delta) -> np.ndarray:
    return (np.abs(data) <= delta).astype(data.dtype)


def _nll_parts(shape, target, weight, ignore_index):
    """Per-target weights (0 where ignored; None without ``weight``: nothing reads them then)
    and the (n, class, rest...) index of each pick."""
    classes = shape[1] if len(shape) > 1 else shape[0]
    if target.size:
        low, high = target.min(), target.max()
        if 0 <= low and high < classes and not low <= ignore_index <= high:
            # every target a class and none ignored (the usual batch): three calls, not nine
            return (weight[target] if weight is not None else None), target
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    if np.any((safe < 0) | (safe >= classes)):
        bad = int(safe[(safe < 0) | (safe >= classes)][0])
        raise IndexError(f"Target {bad} is out of bounds.")
    if weight is None:
        return None, safe
    return np.where(valid, weight[safe], 0.0), safe


def _nll_index(shape, safe):
    if len(shape) == 1:
        return (safe,)
    if safe.ndim == 1:
        return (np.arange(len(safe)), safe)
    grids = np.indices(safe.shape, sparse=True)
    return (grids[0], safe) + tuple(grids[1:])


# Note: nll_loss's sums
# torch's nll_loss (LossNLL.cpp's nll_loss_out_frame, LossNLL2d.cpp's for spatial targets) sums
# the kept losses -weight[t] * input[..., t, ...] and their weights in the input's dtype, in
# the order of the flattened target, through 8 partial sums: each loss is added to level 0,
# and a target at linear position b with its low (j + 1) * p bits all zero (p = 4 below 2**40
# targets) then moves level j into level j + 1 and zeroes it, for j = 0..6 in turn while that
# holds; an ignored target adds nothing and moves nothing. The result is
# (((0 + level 0) + level 1) + ...) + level 7; mean divides it by the summed weights (the kept
# count without weights). A float64 sum rounded once (leafgrad before) differed from torch's
# loss in its last bit on about half of the batches tried.

_NLL_LEVELS = 8


def _in_order_sums(values: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The in-order sum of each group of values; group k ends at index ends[k] (inclusive)."""
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts + 1
    width = int(lengths.max())
    if len(ends) * width > 4 * len(values) + 4096:  # groups of very unequal sizes
        return np.array([np.add.accumulate(values[start:end + 1])[-1]
                         for start, end in zip(starts, ends)], dtype=values.dtype)
    padded = np.zeros((len(ends), width), dtype=values.dtype)  # + 0 changes no sum
    rows = np.repeat(np.arange(len(ends)), lengths)
    padded[rows, np.arange(len(values)) - starts[rows]] = values
    return np.add.accumulate(padded, axis=1)[:, -1]


def _nll_cascade(values: np.ndarray, positions: np.ndarray, count: int):
    """torch's sum of values (at these linear target positions, of count targets); see
    Note: nll_loss's sums. Zeros' signs cannot differ from torch's: every partial ends up
    added to a +0."""
    dtype = values.dtype
    ceil_log2 = max(1, (count - 1).bit_length())
    power = max(4, ceil_log2 // _NLL_LEVELS)
    result = dtype.type(0)
    for level in range(_NLL_LEVELS - 1):
        if not values.size:
            return result
        mask = (1 << (power * (level + 1))) - 1
        ends = np.flatnonzero((positions & mask) == 0)
        rest = values[ends[-1] + 1:] if ends.size else values
        if rest.size:
            result = result + np.add.accumulate(rest)[-1]
        if not ends.size:
            return result
        values, positions = _in_order_sums(values[:ends[-1] + 1], ends), positions[ends]
    if values.size:
        result = result + np.add.accumulate(values)[-1]
    return result


def _nll_cascade_every(values: np.ndarray):
    """``_nll_cascade`` when no target is ignored (positions 0, 1, ..., n - 1), in a few calls
    per level instead of a dozen: the first value moves straight to the top level (position 0
    has no bit set); after it, level 0 collects runs of 2**power values, each run's in-order sum
    moving up at a position that is a multiple of 2**power, and every level above groups the
    sums below it the same way. What is left in each level when the targets end is added last,
    level 0 first, the first value last (torch's accumulate of the levels)."""
    dtype = values.dtype
    count = values.size
    if not count:
        return dtype.type(0)
    ceil_log2 = max(1, (count - 1).bit_length())
    step = 1 << max(4, ceil_log2 // _NLL_LEVELS)
    accumulate = np.add.accumulate
    result = dtype.type(0)
    items = values[1:]
    top = values[:1]
    for level in range(_NLL_LEVELS - 1):
        if not items.size:
            break
        full = items.size - items.size % step
        if full < items.size:
            result = result + accumulate(items[full:])[-1]
        if level == _NLL_LEVELS - 2:  # the moves out of level 6 go to the top level
            if full:
                top = np.concatenate((top, accumulate(items[:full].reshape(-1, step),
                                                      axis=1)[:, -1]))
            break
        items = accumulate(items[:full].reshape(-1, step), axis=1)[:, -1]
    return result + accumulate(top)[-1]


def _nll_totals(losses, weights, kept, every, weighted, dtype=None):
    """torch's summed losses (None when losses is None) and summed weights, in the losses'
    (or dtype's) dtype (Note: nll_loss's sums)."""
    dtype = losses.dtype if losses is not None else np.dtype(dtype)
    count = kept.size
    if every:
        total = None if losses is None else _nll_cascade_every(losses.reshape(-1))
        if not weighted:
            return total, dtype.type(count)
        return total, _nll_cascade_every(weights.astype(dtype, copy=False).reshape(-1))
    positions = np.flatnonzero(kept.reshape(-1))
    total = None
    if losses is not None:
        total = _nll_cascade(losses.reshape(-1)[positions], positions, count)
    if not weighted:
        return total, dtype.type(len(positions))
    flat = weights.astype(dtype, copy=False).reshape(-1)
    return total, _nll_cascade(flat[positions], positions, count)


@register
class NllLoss(Op):
    """``-weight[t] * input[n, t]``, reduced; ``mean`` divides by the summed weights."""
    autocast = "fp32"  # torch's CPU autocast list

    node = "NllLossBackward0"
    # the weight too: it is no graph input (Note: saved index tensors, registry.py)
    index_saves = {"target": (), "weight": ()}
    complex_message = '"nll_loss_out_frame" not implemented for \'ComplexFloat\''
    vmap = batch.nll_loss
    inputs = ("self", "weight")
    saves = {"self": ("self",)}  # Note: torch's edge to self (_double_backward.py)
    torch_names = ("nn.functional.nll_loss", "nn.functional.cross_entropy")

    @staticmethod
    def forward(ctx, a, weight, target, reduction, ignore_index):
        if ctx is not None:
            ctx.keep("weight_array", weight)
        if _numba_kernels.active and weight is None:  # compiled loop (_numba_kernels)
            result = _numba_kernels.nll_loss(a, target, reduction, ignore_index)
            if result is not None:
                return result
        weights, safe = _nll_parts(a.shape, target, weight, ignore_index)
        picked = a[_nll_index(a.shape, safe)]
        # -(input * weight), rounded once in the input's dtype; an ignored target's loss is +0
        # (torch skips it), not -(x * 0)
        losses = -picked if weight is None else -(picked * weights.astype(a.dtype, copy=False))
        kept = target != ignore_index
        every = bool(kept.all())
        if not every:
            losses = np.where(kept, losses, a.dtype.type(0))
        if reduction == "none":
            if a.ndim == 1:  # torch's single-sample kernel: 0 - x * w (never -0.: seed 30390),
                losses = (losses + a.dtype.type(0)).reshape(())  # 0-d for a (1,) target too
            return losses.astype(a.dtype, copy=False)
        total, total_weight = _nll_totals(losses, weights, kept, every, weight is not None)
        if reduction == "mean":
            if not losses.size:  # torch fills a quiet +NaN here (0 / 0 gives x86's -NaN)
                return np.asarray(np.nan, dtype=a.dtype)
            with np.errstate(invalid="ignore", divide="ignore"):
                total = total / total_weight
        return np.asarray(total, dtype=a.dtype)

    edges = 1  # torch's node has no edge for the weight (never differentiated)

    def backward(self, grad):
        # torch does not differentiate nll_loss with respect to ``weight``
        backward_op = NllLoss2dBackward if type(self) is NllLoss2d else NllLossBackward
        grad_input = backward_op.apply(grad, *self_args(self), input_sizes=self.input_shape(0),
                                       weight=self.saved("weight_array"), **self._params)
        return grad_input, None

    def jvp(self, tangents, primals, result):
        # torch: nll_loss_forward(self_t, target, weight, reduction, ignore_index) (the weight is
        # not differentiated)
        if tangents[0] is None:
            return None
        return type(self).apply(tangents[0], primals[1], **self._params)


@register
class NllLoss2d(NllLoss):
    """nll_loss over (N, C, H, W) input; torch reshapes other spatial ranks to this one."""

    node = "NllLoss2DBackward0"
    complex_message = '"nll_loss2d_forward_out_frame" not implemented for \'ComplexFloat\''
    vmap = None  # spatial targets: the per-example loop (see _batching_rules.nll_loss)
    torch_names = ("nn.functional.nll_loss", "nn.functional.cross_entropy")


@register
@self_edge
class NllLossBackward(Op):
    """The input gradient of nll_loss: ``-grad * weight[t] / total`` scattered at targets."""

    node = "NllLossBackwardBackward0"
    index_saves = {"target": ()}  # under create_graph (Note: saved index tensors)
    inputs = ("grad_output",)
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, input_sizes, target, reduction, ignore_index, weight):
        if len(input_sizes) == 1 and target.ndim == 1 and target.shape[0] != input_sizes[0]:
            # torch's backward checks a 1-d target against the input's first size, which its
            # forward lets pass for one sample of classes (a (1,) target)
            raise RuntimeError(f"size mismatch (got input: {list(input_sizes)}, target: "
                               f"{list(target.shape)})")
        if _numba_kernels.active and weight is None:  # compiled loop (_numba_kernels)
            result = _numba_kernels.nll_loss_backward(grad, input_sizes, target, reduction,
                                                      ignore_index)
            if result is not None:
                return result
        weights, safe = _nll_parts(input_sizes, target, weight, ignore_index)
        kept = target != ignore_index
        every = bool(kept.all())
        # torch: -(grad / total_weight) for mean (total_weight as the forward summed it),
        # then times weight[t]; ignored targets keep their 0 (an inf or NaN grad included)
        scale = -grad
        if reduction == "mean":
            _, total_weight = _nll_totals(None, weights, kept, every, weight is not None,
                                          dtype=grad.dtype)
            with np.errstate(invalid="ignore", divide="ignore"):
                scale = -(grad / total_weight)
        values = scale if weight is None else weights.astype(grad.dtype, copy=False) * scale
        out = np.zeros(input_sizes, dtype=grad.dtype)
        index = _nll_index(input_sizes, safe)
        if every:
            out[index] = values
        else:
            values = np.broadcast_to(values, kept.shape)
            out[tuple(np.broadcast_to(i, kept.shape)[kept] for i in index)] = values[kept]
        return out

    def backward(self, grad):
        # Linear in grad_output: its gradient there is nll_loss of the incoming grad itself.
        from ..tensor import _wrap

        p = self._params
        weight = None if p["weight"] is None else _wrap(p["weight"])
        forward_op = NllLoss2d if type(self) is NllLoss2dBackward else NllLoss
        return forward_op.apply(grad, weight, target=p["target"], reduction=p["reduction"],
                                ignore_index=p["ignore_index"])

    jvp = auto_linear


@register
class NllLoss2dBackward(NllLossBackward):
    """nll_loss2d's input gradient (its own node name under create_graph)."""

    node = "NllLoss2DBackwardBackward0"
    vmap = None  # spatial targets (see NllLoss2d)


def _check_probabilities(x, target) -> None:
    """torch's checks in binary_cross_entropy's kernel, element by element in memory order: the
    first element whose input or target is outside [0, 1] (NaN included) raises, its input's
    message before its target's."""
    good_x = (x >= 0) & (x <= 1)
    good_t = (target >= 0) & (target <= 1)
    good = good_x & good_t
    if good.all():
        return
    first = int(np.flatnonzero(~np.broadcast_to(good, good.shape).reshape(-1))[0])
    if not np.broadcast_to(good_x, good.shape).reshape(-1)[first]:
        raise RuntimeError("all elements of input should be between 0 and 1")
    raise RuntimeError("all elements of target should be between 0 and 1")


@register
class BinaryCrossEntropy(Op):
    autocast = "fp32"  # torch's CPU autocast list
    node = "BinaryCrossEntropyBackward0"
    bfloat16_follows_self = True  # the loss is the input's dtype, whatever the weight's
    complex_message = '"binary_cross_entropy" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    inputs = ("self", "target", "weight")
    edges = 2  # torch's node has no edge for the weight (never differentiated)
    # the weight scales both gradients (it was saved for self's only: a target-only gradient
    # came out unweighted)
    saves = {"self": ("self", "target"), "target": ("self", "target"),
             "weight": ("self", "target")}
    torch_names = ("nn.functional.binary_cross_entropy",)

    @staticmethod
    def forward(ctx, a, target, weight, reduction):
        _check_probabilities(a, target)
        dtype = a.dtype
        low = dtype.type(-100)  # torch clamps each log at -100 so that 0 * log(0) stays finite
        with np.errstate(divide="ignore", invalid="ignore"):
            # torch's kernel (Loss.cpp), element by element: (t - 1) * max(log1p(-x), -100)
            # - t * max(log(x), -100), with the C library's logf/log1pf: float64's logs rounded
            # once give torch's float32 loss on 96% of elements (NumPy's float32 log: 89%)
            log_a = np.maximum(np.log(a, dtype=np.float64).astype(dtype), low)
            log_1a = np.maximum(np.log1p(np.negative(a), dtype=np.float64).astype(dtype), low)
            losses = (target - 1) * log_1a - target * log_a
        if weight is not None:
            losses = losses * weight
        return _reduce(losses.astype(dtype, copy=False), reduction)

    def backward(self, grad):
        # torch's order of roundings (binary_cross_entropy_backward and
        # binary_cross_entropy_target_backward): the pointwise formula times the incoming grad,
        # then times the weight, then divided by numel for 'mean'
        x, target = self.saved("self"), self.saved("target")
        finish = _loss_grad_finisher(self, x)
        g = _spread(grad, tuple(x.shape), self._params["reduction"])
        grad_x = grad_t = None
        if self.needs_grad(0) and _records_with_capture():  # torch's node
            weight = self.saved("weight") if (self._saved or {}).get("weight") is not None \
                else None
            grad_x = BinaryCrossEntropyBackward.apply(grad, x, target, weight,
                                                      reduction=self._params["reduction"])
        elif self.needs_grad(0):
            grad_x = finish(g * (x - target) / ((1 - x) * x).clamp(min=1e-12))
        if self.needs_grad(1):  # the incoming grad broadcast, not expanded (torch's nodes)
            grad_t = finish(-x.logit() * grad)
        return grad_x, grad_t

    def jvp(self, tangents, primals, result):
        # torch: reduce(bce_backward(self_t, ...) + bce_target_backward(target_t, ...)) (the weight
        # is not differentiated)
        x, target, weight = primals
        scale = 1 if weight is None else weight
        pointwise = jvp_sum(
            tangents, lambda t: t * scale * (x - target) / ((1 - x) * x).clamp(min=1e-12),
            lambda t: t * scale * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100)))
        return _reduce_tangent(pointwise, self._params["reduction"])


def _records_with_capture() -> bool:
    """records_double_backward(), leafgrad.compile's capture included (the op's forward is
    NumPy only: the capture records it as one step and its backward's Tensor ops)."""
    if not capture.active:
        return records_double_backward()

    return grad_state.grad_enabled and not (dual_state.active or vmap_state.active)


@register
class BinaryCrossEntropyBackward(Op):
    """torch's binary_cross_entropy_backward(grad_output, self, target, weight) as one node
    (recorded by a create_graph backward); its value is the plain backward's formula, its
    gradients torch's binary_cross_entropy_double_backward{,_target,_grad_output}."""

    node = "BinaryCrossEntropyBackwardBackward0"
    inputs = ("grad_output", "self", "target", "weight")
    edges = 3  # the weight is never differentiated
    saves = {"grad_output": ("self", "target"), "self": ("grad_output", "self", "target"),
             "target": ("grad_output", "self", "target"),
             "weight": ("grad_output", "self", "target")}
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, x, target, weight, reduction):
        # the plain backward's formula, the same NumPy operations in the same order (arrays
        # only, so that leafgrad.compile records this op as one step)
        g = np.broadcast_to(grad, x.shape) if reduction != "none" else grad
        value = g * (x - target) / np.maximum((1 - x) * x, x.dtype.type(1e-12))
        if weight is not None:
            value = value * weight
        if reduction == "mean":
            value = value / value.dtype.type(x.size)
        return np.asarray(value)

    def jvp(self, tangents, primals, result):
        reduction = self._params["reduction"]

        def formula(grad, x, target, weight):
            value = _spread(grad, tuple(x.shape), reduction) * (x - target) \
                / ((1 - x) * x).clamp(min=1e-12)
            if weight is not None:
                value = value * weight
            return DivScalar.apply(value, other=x.numel()) if reduction == "mean" else value

        return jvp_by_decomposition(formula, primals, tangents)

    def backward(self, gg):
        x, target = self.saved("self"), self.saved("target")
        reduction = self._params["reduction"]
        finish = _loss_grad_finisher(self, x)
        grad_grad = grad_x = grad_t = None
        if self.needs_grad(0):
            grad_grad = finish(gg * (x - target) / ((1 - x) * x).clamp(min=1e-12))
            if reduction != "none":
                grad_grad = grad_grad.sum()
        if self.needs_grad(1) or self.needs_grad(2):
            # torch's order of operations (the nodes of a third derivative are its nodes)
            g = gg * _spread(self.saved("grad_output"), tuple(x.shape), reduction)
            eps = 1e-12
            if self.needs_grad(1):
                grad_x = finish((x * x - 2 * x * target + target)
                                / ((x + eps).pow(2) * (1 - x + eps).pow(2)) * g)
            if self.needs_grad(2):
                numerator = -g
                weight = self.saved("weight") if (self._saved or {}).get("weight") is not None \
                    else None
                if weight is not None:
                    numerator = numerator * weight
                grad_t = numerator / (x * (1 - x))
                if reduction == "mean":
                    grad_t = DivScalar.apply(grad_t, other=x.numel())
        return grad_grad, grad_x, grad_t


@register
class BinaryCrossEntropyWithLogits(Op):
    autocast = "fp32"  # torch's CPU autocast list
    node = "BinaryCrossEntropyWithLogitsBackward0"
    complex_message = '"log_sigmoid_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    inputs = ("self", "target", "weight", "pos_weight")
    edges = 2  # no edges for weight and pos_weight (never differentiated)
    saves = {"self": ("self", "target"), "target": ("self", "target"),
             "weight": ("self", "target"), "pos_weight": ("self", "target")}
    torch_names = ("nn.functional.binary_cross_entropy_with_logits",)

    @staticmethod
    def forward(ctx, a, target, weight, pos_weight, reduction, result_dtype=None):
        # log(1 + exp(-|x|)) + max(-x, 0) is log(1 + exp(-x)) without overflow: torch's
        # -log_sigmoid(x), whose float32 kernel (SLEEF's expf and log1pf) is replayed
        if a.dtype == np.float32:
            softplus_neg = -_sleef_unary.log_sigmoid(a).reshape(a.shape)
        elif a.dtype == np.float64:  # (SLEEF's expd and log1pd: ops/_sleef_double.py)

            softplus_neg = -_sleef_double.log_sigmoid(a)
        else:
            softplus_neg = np.log1p(np.exp(-np.abs(a))) + np.maximum(-a, 0)
        if pos_weight is not None:
            factor = 1 + (pos_weight - 1) * target
            losses = (1 - target) * a + factor * softplus_neg
        else:
            losses = (1 - target) * a + softplus_neg
        if weight is not None:
            losses = losses * weight
        # torch's loss is (1 - target).mul_(input)...: the target's dtype (result_dtype, named
        # where it is not the input's; bfloat16 rounded here, the operands arriving widened)
        if result_dtype == "bfloat16":
            return to_bfloat16(_reduce(losses.astype(np.float32), reduction))
        return _reduce(losses.astype(result_dtype or a.dtype), reduction)

    def backward(self, grad):
        # torch's order of roundings (binary_cross_entropy_with_logits_backward and its
        # target_backward): the pointwise formula times the incoming grad, then times the
        # weight, then divided by numel for 'mean'
        x, target = self.saved("self"), self.saved("target")
        finish = _loss_grad_finisher(self, x)
        g = grad  # a reduced loss's 0-d grad broadcasts in the products (no ExpandBackward0)
        pw = self.saved("pos_weight") if (self._saved or {}).get("pos_weight") is not None \
            else None
        grad_x = grad_t = None
        if self.needs_grad(0):
            if pw is not None:
                scaled = pw * target
                grad_x = ((AddScalarFormula.apply(scaled, other=1) - target) * x.sigmoid()
                          - scaled) * g
            else:
                grad_x = (x.sigmoid() - target) * g
            grad_x = finish(grad_x)
        if self.needs_grad(1):
            if pw is not None:
                grad_t = (_log_sigmoid(-x) - _log_sigmoid(x) * pw) * g
            else:
                grad_t = -x * g
            grad_t = finish(grad_t)
        return grad_x, grad_t

    def jvp(self, tangents, primals, result):
        # torch: reduce(bce_with_logits_backward(self_t, ...) + ..._target_backward(target_t, ...))
        x, target, weight, pos_weight = primals
        scale = 1 if weight is None else weight
        if pos_weight is not None:
            slope_x = x.sigmoid() * (1 + (pos_weight - 1) * target) - pos_weight * target
            slope_t = _log_sigmoid(-x) - _log_sigmoid(x) * pos_weight
        else:
            slope_x, slope_t = x.sigmoid() - target, -x
        pointwise = jvp_sum(tangents, lambda t: t * scale * slope_x, lambda t: t * scale * slope_t)
        return _reduce_tangent(pointwise, self._params["reduction"])


def _log_sigmoid(x):
    """log(sigmoid(x)) as torch's log_sigmoid: min(x, 0) - log1p(exp(-|x|))."""
    return LogSigmoid.apply(x)


def _spread(grad, shape: tuple, reduction: str):
    """The incoming grad of a reduced loss, expanded over the pointwise losses (undivided)."""
    return grad if reduction == "none" else grad.expand(shape)


def _loss_grad_finisher(node, x):
    """Times the saved weight (if any), then divided by numel for 'mean': the last steps of
    torch's loss backwards."""
    saved = node._saved or {}
    weight = node.saved("weight") if saved.get("weight") is not None else None
    mean = node._params["reduction"] == "mean"
    count = x.numel()

    def finish(value):
        if weight is not None:
            value = value * weight
        # div(numel) with a Scalar in torch's C++ (DivBackward1 under create_graph; a Tensor
        # quotient recorded DivBackward0: generated-program seed 31622)
        return DivScalar.apply(value, other=count) if mean else value
    return finish
