"""Loss ops whose torch node is a dedicated one (MseLossBackward0, NllLossBackward0, ...).
Losses torch composes from other ops (l1_loss, kl_div, cross_entropy) live in nn/functional."""

from __future__ import annotations

import numpy as np

from . import _cascade_sum, _promote
from ._forward import auto_element_wise, auto_linear, jvp_sum
from . import _batching_rules as batch
from ..autograd.graph import Node as _Node
from .registry import Op, register

_REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(values: np.ndarray, reduction: str) -> np.ndarray:
    """torch's apply_loss_reduction: ``loss.mean()`` / ``loss.sum()``, float sums in torch's
    order of additions as Tensor.sum's (its mean divides that sum by the count); NumPy's
    pairwise sum gave another last bit on about half of mse/bce/smooth_l1 losses."""
    if reduction != "none" and values.size and values.dtype.kind == "f":
        values = np.ascontiguousarray(values)
        if _cascade_sum.applies(values):
            total = _cascade_sum.total(values)
            if reduction == "mean":
                return np.asarray(total / values.dtype.type(values.size))
            return total
    if reduction == "mean":
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
    inputs = ("self", "target")
    saves = {"self": ("self", "target"), "target": ("self", "target")}

    @classmethod
    def forward(cls, ctx, a, target, reduction, **params):
        a, target = _promote.binary(a, target)
        return _reduce(cls.pointwise(a - target, **params), reduction)

    def backward(self, grad):
        x, target = self.saved("self"), self.saved("target")
        if target.dtype.name == "bool":  # torch's backward kernels take a bool target as 0/1
            target = target.to(x.dtype)
        diff = x - target
        params = {k: v for k, v in self._params.items() if k != "reduction"}
        local = _unreduce(grad, tuple(diff.shape), self._params["reduction"]) * self.slope(
            diff, **params
        )
        return (local if self.needs_grad(0) else None), (-local if self.needs_grad(1) else None)

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
    complex_message = '"mse_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    broadcasts = True
    torch_names = ("nn.functional.mse_loss",)

    @staticmethod
    def pointwise(diff):
        return diff * diff

    @staticmethod
    def slope(diff):
        return diff * 2


@register
class SmoothL1Loss(_Pointwise):
    autocast = "fp32"  # torch's CPU autocast list
    node = "SmoothL1LossBackward0"
    complex_message = '"smooth_l1_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    broadcasts = True
    torch_names = ("nn.functional.smooth_l1_loss",)

    @staticmethod
    def pointwise(diff, beta):
        absolute = np.abs(diff)
        if beta == 0:
            return absolute
        return np.where(absolute < beta, 0.5 * diff * diff / beta, absolute - 0.5 * beta)

    @staticmethod
    def slope(diff, beta):
        from .activation import kernel_tensor

        inside = kernel_tensor(_smooth_l1_inside, diff._data, beta=beta)
        return inside * (diff / beta if beta else diff) + (1 - inside) * diff.sign()


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
    torch_names = ("nn.functional.huber_loss",)

    @classmethod
    def forward(cls, ctx, a, target, reduction, **params):
        return np.asarray(super().forward.__func__(cls, ctx, a, target, reduction, **params)
                          ).astype(a.dtype, copy=False)

    def backward(self, grad):
        x, target = self.saved("self"), self.saved("target")
        if x.dtype is not target.dtype:
            raise RuntimeError(f"Found dtype {target.dtype._legacy} but expected "
                               f"{x.dtype._legacy}")
        return super().backward(grad)

    @staticmethod
    def pointwise(diff, delta):
        absolute = np.abs(diff)
        return np.where(absolute < delta, 0.5 * diff * diff, delta * (absolute - 0.5 * delta))

    @staticmethod
    def slope(diff, delta):
        from .activation import kernel_tensor

        inside = kernel_tensor(_huber_inside, diff._data, delta=delta)
        return inside * diff + (1 - inside) * diff.sign() * delta


def _smooth_l1_inside(data: np.ndarray, beta) -> np.ndarray:
    """1 where smooth_l1's quadratic part applies (beta 0: only NaN), in data's dtype (a
    leafgrad.compile kernel: Note: masks as kernels in activation.py)."""
    return (np.abs(data) < beta if beta else data != data).astype(data.dtype)


def _huber_inside(data: np.ndarray, delta) -> np.ndarray:
    return (np.abs(data) <= delta).astype(data.dtype)


def _nll_parts(shape, target, weight, ignore_index):
    """Per-target weights (0 where ignored) and the (n, class, rest...) index of each pick."""
    classes = shape[1] if len(shape) > 1 else shape[0]
    if target.size:
        low, high = target.min(), target.max()
        if 0 <= low and high < classes and not low <= ignore_index <= high:
            # every target a class and none ignored (the usual batch): three calls, not nine
            return (weight[target] if weight is not None else np.ones(target.shape)), target
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    if np.any((safe < 0) | (safe >= classes)):
        bad = int(safe[(safe < 0) | (safe >= classes)][0])
        raise IndexError(f"Target {bad} is out of bounds.")
    picked = weight[safe] if weight is not None else np.ones(target.shape)
    return np.where(valid, picked, 0.0), safe


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


def _nll_totals(losses, weights, kept, every, weighted, dtype=None):
    """torch's summed losses (None when losses is None) and summed weights, in the losses'
    (or dtype's) dtype (Note: nll_loss's sums)."""
    dtype = losses.dtype if losses is not None else np.dtype(dtype)
    count = kept.size
    positions = (np.arange(count) if every else np.flatnonzero(kept.reshape(-1)))
    total = None
    if losses is not None:
        flat = losses.reshape(-1)
        total = _nll_cascade(flat if every else flat[positions], positions, count)
    if not weighted:
        return total, dtype.type(len(positions))
    flat = weights.astype(dtype, copy=False).reshape(-1)
    return total, _nll_cascade(flat if every else flat[positions], positions, count)


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
    torch_names = ("nn.functional.nll_loss", "nn.functional.cross_entropy")

    @staticmethod
    def forward(ctx, a, weight, target, reduction, ignore_index):
        if ctx is not None:
            ctx.keep("weight_array", weight)
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
            return losses.astype(a.dtype, copy=False)
        total, total_weight = _nll_totals(losses, weights, kept, every, weight is not None)
        if reduction == "mean":
            if not losses.size:  # torch fills a quiet +NaN here (0 / 0 gives x86's -NaN)
                return np.asarray(np.nan, dtype=a.dtype)
            with np.errstate(invalid="ignore", divide="ignore"):
                total = total / total_weight
        return np.asarray(total, dtype=a.dtype)

    # torch's node has no edge for the weight (never differentiated)
    next_functions = property(lambda self: _Node.next_functions.fget(self)[:1],
                              _Node.next_functions.fset)

    def backward(self, grad):
        # torch does not differentiate nll_loss with respect to ``weight``
        grad_input = NllLossBackward.apply(grad, input_sizes=self.input_shape(0),
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
class NllLossBackward(Op):
    """The input gradient of nll_loss: ``-grad * weight[t] / total`` scattered at targets."""

    node = "NllLossBackwardBackward0"
    index_saves = {"target": ()}  # under create_graph (Note: saved index tensors)
    inputs = ("grad_output",)
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, input_sizes, target, reduction, ignore_index, weight):
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
        return NllLoss.apply(grad, weight, target=p["target"], reduction=p["reduction"],
                             ignore_index=p["ignore_index"])

    jvp = auto_linear


@register
class BinaryCrossEntropy(Op):
    autocast = "fp32"  # torch's CPU autocast list
    node = "BinaryCrossEntropyBackward0"
    bfloat16_follows_self = True  # the loss is the input's dtype, whatever the weight's
    complex_message = '"binary_cross_entropy" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    inputs = ("self", "target", "weight")
    saves = {"self": ("self", "target"), "target": ("self", "target"), "weight": ("self",)}
    torch_names = ("nn.functional.binary_cross_entropy",)

    @staticmethod
    def forward(ctx, a, target, weight, reduction):
        if np.any((a < 0) | (a > 1)):
            raise RuntimeError("all elements of input should be between 0 and 1")
        with np.errstate(divide="ignore"):
            # torch clamps each log at -100 so that 0 * log(0) stays finite
            log_a = np.maximum(np.log(a), -100)
            log_1a = np.maximum(np.log1p(-a), -100)
        losses = -(target * log_a + (1 - target) * log_1a)
        if weight is not None:
            losses = losses * weight
        return _reduce(losses.astype(a.dtype), reduction)

    def backward(self, grad):
        x, target = self.saved("self"), self.saved("target")
        weight = self._saved.get("weight") if self._saved else None
        local = _unreduce(grad, tuple(x.shape), self._params["reduction"])
        if weight is not None:
            local = local * self.saved("weight")
        grad_x = grad_t = None
        if self.needs_grad(0):
            grad_x = local * (x - target) / ((1 - x) * x).clamp(min=1e-12)
        if self.needs_grad(1):
            grad_t = local * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
        return grad_x, grad_t, None

    def jvp(self, tangents, primals, result):
        # torch: reduce(bce_backward(self_t, ...) + bce_target_backward(target_t, ...)) (the weight
        # is not differentiated)
        x, target, weight = primals
        scale = 1 if weight is None else weight
        pointwise = jvp_sum(
            tangents, lambda t: t * scale * (x - target) / ((1 - x) * x).clamp(min=1e-12),
            lambda t: t * scale * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100)))
        return _reduce_tangent(pointwise, self._params["reduction"])


@register
class BinaryCrossEntropyWithLogits(Op):
    autocast = "fp32"  # torch's CPU autocast list
    node = "BinaryCrossEntropyWithLogitsBackward0"
    complex_message = '"log_sigmoid_cpu" not implemented for \'ComplexFloat\''
    vmap = batch.loss
    inputs = ("self", "target", "weight", "pos_weight")
    saves = {"self": ("self", "target"), "target": ("self", "target"),
             "weight": ("self", "target"), "pos_weight": ("self", "target")}
    torch_names = ("nn.functional.binary_cross_entropy_with_logits",)

    @staticmethod
    def forward(ctx, a, target, weight, pos_weight, reduction, result_dtype=None):
        # log(1 + exp(-|x|)) + max(-x, 0) is log(1 + exp(-x)) without overflow
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
            from ._bfloat16 import to_bfloat16

            return to_bfloat16(_reduce(losses.astype(np.float32), reduction))
        return _reduce(losses.astype(result_dtype or a.dtype), reduction)

    def backward(self, grad):
        x, target = self.saved("self"), self.saved("target")
        saved = self._saved or {}
        local = _unreduce(grad, tuple(x.shape), self._params["reduction"])
        if saved.get("weight") is not None:
            local = local * self.saved("weight")
        s = x.sigmoid()
        grad_x = grad_t = None
        if saved.get("pos_weight") is not None:  # torch's formulas, with log_sigmoid
            pw = self.saved("pos_weight")
            if self.needs_grad(0):
                grad_x = local * (s * (1 + (pw - 1) * target) - pw * target)
            if self.needs_grad(1):
                grad_t = local * (_log_sigmoid(-x) - _log_sigmoid(x) * pw)
        else:
            if self.needs_grad(0):
                grad_x = local * (s - target)
            if self.needs_grad(1):
                grad_t = local * -x
        return grad_x, grad_t, None, None

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
    """log(sigmoid(x)) = -(log1p(exp(-|x|)) + max(-x, 0)), stable for large |x|."""
    return -(((-x.abs()).exp() + 1).log() + (-x).clamp(min=0))
