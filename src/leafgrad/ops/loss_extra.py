"""Losses that torch computes in kernels of their own (one node each): soft margin and
multi-class margin. Backwards are Tensor expressions of the saved input, so they can be
differentiated again."""

from __future__ import annotations

import numpy as np

from .registry import array_kernel
from . import _layout
from . import _batching_rules as batch
from .registry import Op, register
from ._double_backward import (RecordedFormula, not_implemented_gradient, records_double_backward,
                               records_or_breaks_capture)
from .._dtype import from_numpy_dtype
from ..autograd.grad_mode import no_grad


def _reduce_array(losses: np.ndarray, reduction: str) -> np.ndarray:
    if losses.dtype.kind == "f":  # torch's order of additions (loss._reduce)
        from .loss import _reduce

        return _reduce(losses, reduction)
    if reduction == "mean":
        return np.asarray(losses.mean())
    if reduction == "sum":
        return np.asarray(losses.sum())
    return losses


def _reduce_grad(grad, shape, reduction: str, count: int):
    """The loss gradient spread back over the elements the reduction combined."""
    if reduction == "none":
        return grad
    scale = 1.0 / count if reduction == "mean" and count else 1.0
    return (grad * scale).expand(*shape)


def _complex_soft_margin(a, target, reduction):
    """torch's kernel on complex values: log1p(exp(-target * input)), in the promoted dtype,
    which must be the input's."""
    dtype = np.result_type(a, target)
    if dtype != a.dtype:
        raise RuntimeError(f"result type {from_numpy_dtype(dtype)._legacy} can't be cast to the "
                           f"desired output type {from_numpy_dtype(a.dtype)._legacy}")
    with np.errstate(all="ignore"):
        losses = np.log1p(np.exp(-(target * a)))
    return _reduce_array(_layout.like(losses.astype(dtype, copy=False), a), reduction)


@register
class SoftMarginLoss(Op):
    """``log(1 + exp(-target * input))``, reduced."""
    autocast = "fp32"  # torch's CPU autocast list

    node = "SoftMarginLossBackward0"
    bfloat16_follows_self = True  # Note: opmath for bfloat16 (ops/_bfloat16.py)
    uint_kernel = "neg_cpu"  # torch negates the target product first
    vmap = batch.loss
    inputs = ("self", "target")
    edges = 1  # torch's node has no edge for the target (never differentiated)
    saves = {"self": ("self",), "target": ("self",)}
    torch_names = ("nn.functional.soft_margin_loss",)
    complex_ok = True
    complex_autograd = False  # torch computes complex losses without a derivative for them

    @staticmethod
    def forward(ctx, a, target, reduction):
        if a.dtype.kind == "c" or target.dtype.kind == "c":
            return _complex_soft_margin(a, target, reduction)
        z = -a * target  # (torch: -input * target, so a bool target multiplies)
        if a.dtype == np.float16:
            # torch: neg_out(out, input).mul_(target).exp_().log1p_(), each step rounded to
            # float16 (as NumPy's float16 exp and log1p do); it overflows to inf as torch's
            with np.errstate(over="ignore"):
                z = np.asarray(z).astype(np.float16)
                losses = _layout.like(np.log1p(np.exp(z)), a)
        else:  # (float32/64: within an ulp of torch's SLEEF exp and log1p, not bit for bit)
            losses = _layout.like(np.logaddexp(0, z).astype(a.dtype, copy=False), a)
        return _reduce_array(losses, reduction)

    def backward(self, grad):
        x, y = self.saved("self"), self.saved("target")
        reduction = self._params["reduction"]
        if records_or_breaks_capture("soft_margin_loss"):
            # torch records soft_margin_loss_backward as one node (edges grad_output, self)
            return SoftMarginLossBackward.apply(grad, x, y, reduction=reduction)[0]
        return SoftMarginLossBackward.formula(grad, x, y, reduction)[0]

    def jvp(self, tangents, primals, result):
        # torch: reduce(soft_margin_loss_backward(self_t, self_p, target, none)) (the target is
        # not differentiated)
        if tangents[0] is None:
            return None
        x, y = primals
        pointwise = tangents[0] * (-y * (-y * x).sigmoid())
        reduction = self._params["reduction"]
        if reduction == "mean":
            return pointwise.mean()
        return pointwise.sum() if reduction == "sum" else pointwise


@register
class SoftMarginLossBackward(RecordedFormula, Op):
    """soft_margin_loss_backward(grad_output, self, target) as the one node a create_graph
    backward records (Note: recorded formulas, _double_backward.py); the target has no edge."""

    node = "SoftMarginLossBackwardBackward0"
    inputs = ("grad_output", "self", "target")
    edges = 2
    saves = {"grad_output": ("self",), "self": ("grad_output", "self"),
             "target": ("grad_output", "self")}
    torch_names = ()

    @staticmethod
    def formula(grad, x, y, reduction):
        # d/dx log(1 + exp(-y x)) = -y exp(-y x) / (1 + exp(-y x)), rounded in torch's order
        # (soft_margin_loss_backward): (y * z) * -norm / (1 + z) * grad, z = exp(-y * x)
        norm = 1.0 / x.numel() if reduction == "mean" and x.numel() else 1.0
        spread = grad if reduction == "none" else grad.expand(*x.shape)
        z = (-y * x).exp()
        return ((y * z) * -norm / (z + 1) * spread,)

    def backward(self, grads):
        # derivatives.yaml: grad_output soft_margin_loss_double_backward_grad_output (none:
        # soft_margin_loss_backward(grad, ...); else (soft_margin_loss_backward(
        # ones_like(grad_output), ...) * grad).sum()); self soft_margin_loss_double_backward(
        # grad * grad_output): g * (t * t) * z / ((z + 1) * (z + 1)), z = exp(self * -t), then
        # / numel for a mean
        from .. import ones_like

        gg = grads[0]
        if gg is None:
            return None, None
        x, y = self.saved("self"), self.saved("target")
        reduction = self._params["reduction"]
        grad_grad = grad_x = None
        if self.needs_grad(0):
            if reduction == "none":
                grad_grad = SoftMarginLossBackward.apply(gg, x, y, reduction=reduction)[0]
            else:
                ones = ones_like(self.saved("grad_output"))
                grad_grad = (SoftMarginLossBackward.apply(ones, x, y, reduction=reduction)[0]
                             * gg).sum()
        if self.needs_grad(1):
            z = (x * -y).exp()
            z_plus_1 = z + 1
            grad_x = gg * self.saved("grad_output") * (y * y) * z / (z_plus_1 * z_plus_1)
            if reduction == "mean":
                grad_x = grad_x / x.numel()
        return grad_grad, grad_x


@register
class MultiMarginLoss(Op):
    """``sum_{j != y} max(0, margin - x[y] + x[j]) ** p / C`` per sample (weighted by
    ``weight[y]``), reduced."""
    autocast = "fp32"  # torch's CPU autocast list

    node = "MultiMarginLossBackward0"
    bfloat16_kernel = "multi_margin_loss_cpu_kernel"  # torch has no bfloat16 kernel
    index_saves = {"target": ()}  # Note: saved index tensors (registry.py)
    complex_message = '"multi_margin_loss_cpu_kernel" not implemented for \'ComplexFloat\''
    inputs = ("self", "weight")
    saves = {"self": ("self",), "weight": ("self",)}
    torch_names = ("nn.functional.multi_margin_loss",)

    edges = 1  # torch's node has no edge for the weight (never differentiated)

    @staticmethod
    def _terms(x: np.ndarray, target: np.ndarray, p: int, margin: float, weight):
        rows = np.arange(x.shape[0])
        picked = x[rows, target][:, None]
        m = margin - picked + x
        m[rows, target] = 0
        active = m > 0
        terms = np.where(active, m if p == 1 else m * m, 0)
        if weight is not None:
            terms = terms * weight[target][:, None]
        return terms, active

    @staticmethod
    def forward(ctx, a, weight, target, p, margin, reduction):
        x = a.reshape(1, -1) if a.ndim <= 1 else a
        t = target.reshape(-1)
        terms, _ = MultiMarginLoss._terms(x, t, p, margin, weight)
        # torch's kernel: each sample's terms added one by one in the input's dtype, divided
        # by the class count; the reduction adds the samples one by one in the accumulate type
        sums = _sequential_sums(terms.astype(a.dtype, copy=False)) / a.dtype.type(x.shape[1])
        if reduction == "none" and target.ndim:
            return sums  # ATen's unreduced output is (frames,) for a dimensioned target
        return _accumulated(sums, a.dtype, reduction)

    def _per_sample(self):
        """d loss_n / d x[n, j] as a (samples, classes) matrix (before the reduction)."""
        from ..tensor import _wrap

        p = self._params
        x = self.saved("self")
        weight = self._saved.get("weight")
        weight = self.saved("weight") if weight is not None else None
        data = x._data.reshape(1, -1) if x.ndim <= 1 else x._data
        target = p["target"].reshape(-1)
        samples, classes = data.shape
        # the arrays computed from values are kernels (Note: masks as kernels in
        # activation.py), so leafgrad.compile recomputes them on every replay
        rows = array_kernel(np.arange, samples)
        matrix = x.reshape(samples, classes)
        picked = matrix[_wrap(rows), _wrap(target)].reshape(samples, 1)
        margins = p["margin"] - picked + matrix
        mask = _wrap(array_kernel(_multi_margin_active, data, target, p=p["p"],
                                  margin=p["margin"]))
        # clamp first: inactive entries give +0, as torch's kernel (not -0 from 2 * m * 0)
        slope = mask if p["p"] == 1 else 2 * margins.clamp(min=0) * mask
        if weight is not None:
            slope = slope * weight[_wrap(target)].reshape(samples, 1)
        slope = slope / classes
        one_hot = _wrap(array_kernel(_one_hot, target, classes=classes, dtype=data.dtype))
        return slope - one_hot * slope.sum(1, keepdim=True)

    def backward(self, grad):
        if records_double_backward():
            # torch has no derivative for multi_margin_loss_backward: its create_graph backward
            # records a NotImplemented node (edges grad_output, self) whose backward raises

            with no_grad():
                value = self._grad_value(grad)
            return not_implemented_gradient("multi_margin_loss_backward", value, grad,
                                            self.saved("self")), None
        return self._grad_value(grad), None

    def _grad_value(self, grad):
        from ..tensor import _wrap

        p = self._params
        weight = self._saved.get("weight")
        weight = self.saved("weight")._data if weight is not None else None
        # torch's kernel: the slopes with 1/(samples * classes) or 1/classes folded in, then
        # multiplied by the incoming gradient (per sample when unreduced)
        slopes = _wrap(array_kernel(_multi_margin_slopes, self.saved("self")._data,
                                    p["target"], weight, p=p["p"], margin=p["margin"],
                                    reduction=p["reduction"]))
        if p["reduction"] == "none":
            grad = grad.reshape(slopes.shape[0], 1)
        return (grad * slopes).reshape(tuple(self.input_shape(0)))

    def jvp(self, tangents, primals, result):
        # torch has no forward-mode formula for multi_margin_loss; this is J @ t from the same
        # per-sample slopes as the backward (the weight is not differentiated)
        if tangents[0] is None:
            return None
        per_sample = self._per_sample()
        losses = (per_sample * tangents[0].reshape(per_sample.shape)).sum(1)
        if primals[0].ndim <= 1:
            losses = losses.reshape(())
        reduction = self._params["reduction"]
        if reduction == "mean":
            return losses.mean()
        return losses.sum() if reduction == "sum" else losses


@register
class MultilabelMarginLoss(Op):
    """The multi-label hinge loss: each sample's target classes (its target row up to the first
    -1) against every class that is not one of them, ``max(0, 1 - x[y] + x[i]) / C``."""
    autocast = "fp32"  # torch's CPU autocast list

    node = "MultilabelMarginLossBackward0"
    bfloat16_kernel = "multilabel_margin_loss_forward_out_frame"  # torch has no bfloat16 kernel
    index_saves = {"target": ()}  # Note: saved index tensors (registry.py)
    complex_message = '"multilabel_margin_loss_forward_out_frame" not implemented for \'ComplexFloat\''
    inputs = ("self",)
    saves = {"self": ("self",)}
    torch_names = ("nn.functional.multilabel_margin_loss",)

    @staticmethod
    def _active(x: np.ndarray, target: np.ndarray):
        """(targets, valid, hinge): the target class per (sample, slot) (0 where unused), which
        slots come before the first -1, and which (sample, slot, class) hinges are positive."""
        samples, classes = x.shape
        ended = np.cumsum(target < 0, axis=1) > 0
        valid = ~ended
        targets = np.where(valid, target, 0)
        rows = np.arange(samples)[:, None]
        is_target = np.zeros((samples, classes), dtype=bool)
        is_target[np.broadcast_to(rows, targets.shape)[valid], targets[valid]] = True
        margins = 1 - x[rows, targets][:, :, None] + x[:, None, :]
        hinge = valid[:, :, None] & ~is_target[:, None, :] & (margins > 0)
        return targets, hinge, margins

    @staticmethod
    def forward(ctx, a, target, reduction):
        if a.dtype == np.float16:  # (torch's kernel is dispatched for float and double only)
            raise NotImplementedError(
                "\"multilabel_margin_loss_forward_out_frame\" not implemented for 'Half'")
        x = a.reshape(1, -1) if a.ndim < 2 else a
        t = target.reshape(x.shape)
        _, hinge, margins = MultilabelMarginLoss._active(x, t)
        # torch's kernel: each sample's hinges (slot by slot, class by class) added one by one
        # in the accumulate type; unreduced, that sum in the input's dtype over the class
        # count; reduced, the samples' sums added, over the class count (and sample count)
        terms = np.where(hinge, margins, 0).astype(a.dtype, copy=False)
        acc = _accumulate_type(a.dtype)
        sums = _sequential_sums(terms.reshape(x.shape[0], x.shape[1] ** 2).astype(acc))
        dim = x.shape[1]
        if reduction == "none" and a.ndim >= 2:
            return sums.astype(a.dtype) / a.dtype.type(dim)
        total = _sequential_sums(sums[None])[0] / acc.type(dim)
        if reduction == "mean":
            total = total / acc.type(x.shape[0])
        return np.asarray(total.astype(a.dtype))

    def _per_sample(self) -> np.ndarray:
        """d loss_n / d x[n, i] (before the reduction), a kernel (leafgrad.compile replays
        it; see Note: masks as kernels in activation.py)."""
        return array_kernel(_multilabel_slopes, self.saved("self")._data,
                            self._params["target"])

    def backward(self, grad):
        # constant (the loss is piecewise linear), torch's kernel's steps of 1/(samples *
        # classes) or 1/classes added one by one, then times the incoming gradient
        reduction = self._params["reduction"]
        if records_double_backward():
            # torch has no derivative for multilabel_margin_loss_backward: its create_graph
            # backward records a NotImplemented node (edges grad_output, self)
            from ..autograd.grad_mode import no_grad

            with no_grad():
                value = self._grad_value(grad)
            return not_implemented_gradient("multilabel_margin_loss_backward", value, grad,
                                            self.saved("self"))
        return self._grad_value(grad)

    def _grad_value(self, grad):
        from ..tensor import _wrap

        reduction = self._params["reduction"]
        slopes = _wrap(array_kernel(_multilabel_steps, self.saved("self")._data,
                                    self._params["target"], reduction=reduction))
        if reduction == "none":
            grad = grad.reshape(slopes.shape[0], 1)
        return (grad * slopes).reshape(tuple(self.input_shape(0)))

    def jvp(self, tangents, primals, result):
        # torch has no forward-mode formula here (NotImplementedError); this is J @ t with the
        # backward's slopes
        from ..tensor import _wrap

        if tangents[0] is None:
            return None
        per_sample = _wrap(self._per_sample())
        losses = (per_sample * tangents[0].reshape(per_sample.shape)).sum(1)
        if primals[0].ndim < 2:
            losses = losses.reshape(())
        reduction = self._params["reduction"]
        if reduction == "mean":
            return losses.mean()
        return losses.sum() if reduction == "sum" else losses


def _accumulate_type(dtype: np.dtype) -> np.dtype:
    """ATen's CPU acc_type: double for float and double, float for the half types."""
    return np.dtype(np.float64 if dtype.itemsize >= 4 else np.float32)


def _sequential_sums(rows: np.ndarray) -> np.ndarray:
    """Each row's sum, added left to right in the rows' dtype (a C loop's order)."""
    if rows.shape[-1] == 0:
        return np.zeros(rows.shape[:-1], dtype=rows.dtype)
    return np.cumsum(rows, axis=-1)[..., -1]


def _accumulated(sums: np.ndarray, dtype: np.dtype, reduction: str) -> np.ndarray:
    """ATen's reduced margin-loss output: the per-sample values added one by one in the
    accumulate type (divided by their count for a mean), cast back to ``dtype``."""
    acc = _accumulate_type(dtype)
    total = _sequential_sums(sums.reshape(1, -1).astype(acc))[0]
    if reduction == "mean":
        total = total / acc.type(sums.size)
    return np.asarray(total.astype(dtype))


def _step(dtype: np.dtype, samples: int, classes: int, reduction: str):
    """The margin-loss backward kernels' g: 1/(samples * classes) for a mean, else 1/classes,
    in double, rounded to ``dtype``."""
    with np.errstate(divide="ignore"):  # (no samples or classes: C++'s 1. / 0, infinite)
        count = samples * classes if reduction == "mean" else classes
        return dtype.type(np.float64(1.0) / np.float64(count))


def _multi_margin_slopes(data, target, weight, p, margin, reduction):
    """ATen's multi_margin_loss_backward before the incoming gradient: h = g (p = 1) or
    2 * g * z per positive hinge z (times weight[y]), the target's entry 0 minus each h in
    turn."""
    x = data.reshape(1, -1) if data.ndim <= 1 else data
    samples, classes = x.shape
    t = np.asarray(target).reshape(-1)
    dtype = x.dtype
    g = _step(dtype, samples, classes, reduction)
    rows = np.arange(samples)
    z = dtype.type(margin) - x[rows, t][:, None] + x
    active = z > 0
    active[rows, t] = False
    h = np.full_like(x, g) if p == 1 else (dtype.type(2) * g) * z
    if weight is not None:
        h = h * weight[t][:, None]
    h = np.where(active, h, dtype.type(0))
    slopes = h.copy()
    slopes[rows, t] = dtype.type(0) - _sequential_sums(h)
    return slopes


def _multilabel_steps(data, target, reduction):
    """ATen's multilabel_margin_loss_backward before the incoming gradient: per positive hinge
    g added to the other class's entry and taken from the target's, one at a time (k steps of
    g in the input's dtype, whose sum is not k * g)."""
    x = data.reshape(1, -1) if data.ndim < 2 else data
    t = target.reshape(x.shape)
    targets, hinge, _ = MultilabelMarginLoss._active(x, t)
    samples, classes = x.shape
    added = hinge.sum(1)  # per (sample, class): hinges where it is the other class
    taken = np.zeros((samples, classes), dtype=np.int64)
    np.add.at(taken, (np.broadcast_to(np.arange(samples)[:, None], targets.shape), targets),
              hinge.sum(2))
    g = _step(x.dtype, samples, classes, reduction)
    steps = np.concatenate([np.zeros(1, x.dtype), np.cumsum(np.full(
        max(int(added.max(initial=0)), int(taken.max(initial=0))), g, dtype=x.dtype))])
    return np.where(taken > 0, -steps[taken], steps[added])


def _multi_margin_active(data, target, p, margin):
    """1 where multi_margin_loss's hinge is positive (not at the target), in data's dtype."""
    return MultiMarginLoss._terms(data, target, p, margin, None)[1].astype(data.dtype)


def _one_hot(target, classes, dtype):
    return np.eye(classes, dtype=bool)[target].astype(dtype)


def _multilabel_slopes(data, target):
    """+1/C per positive hinge with class i as the other class, -1/C per positive hinge of
    target i."""
    x = data.reshape(1, -1) if data.ndim < 2 else data
    t = target.reshape(x.shape)
    targets, hinge, _ = MultilabelMarginLoss._active(x, t)
    samples, classes = x.shape
    slopes = hinge.sum(1).astype(x.dtype)
    per_slot = hinge.sum(2).astype(x.dtype)
    np.add.at(slopes, (np.broadcast_to(np.arange(samples)[:, None], targets.shape), targets),
              -per_slot)
    return slopes / classes
