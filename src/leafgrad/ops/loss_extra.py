"""Losses that torch computes in kernels of their own (one node each): soft margin and
multi-class margin. Backwards are Tensor expressions of the saved input, so they can be
differentiated again."""

from __future__ import annotations

import numpy as np

from .activation import _mask
from . import _layout
from .registry import Op, register


def _reduce_array(losses: np.ndarray, reduction: str) -> np.ndarray:
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


@register
class SoftMarginLoss(Op):
    """``log(1 + exp(-target * input))``, reduced."""

    node = "SoftMarginLossBackward0"
    inputs = ("self", "target")
    saves = {"self": ("self",), "target": ("self",)}
    torch_names = ("nn.functional.soft_margin_loss",)

    @staticmethod
    def forward(ctx, a, target, reduction):
        z = -target * a
        losses = _layout.like(np.logaddexp(0, z).astype(a.dtype, copy=False), a)
        return _reduce_array(losses, reduction)

    def backward(self, grad):
        x, y = self.saved("self"), self.saved("target")
        reduction = self._params["reduction"]
        spread = _reduce_grad(grad, tuple(x.shape), reduction, x.numel())
        # d/dx log(1 + exp(-y x)) = -y * sigmoid(-y x)
        return spread * (-y * (-y * x).sigmoid()), None


@register
class MultiMarginLoss(Op):
    """``sum_{j != y} max(0, margin - x[y] + x[j]) ** p / C`` per sample (weighted by
    ``weight[y]``), reduced."""

    node = "MultiMarginLossBackward0"
    inputs = ("self", "weight")
    saves = {"self": ("self",), "weight": ("self",)}
    torch_names = ("nn.functional.multi_margin_loss",)

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
        x = a.reshape(1, -1) if a.ndim == 1 else a
        t = target.reshape(-1)
        terms, _ = MultiMarginLoss._terms(x, t, p, margin, weight)
        losses = (terms.sum(1) / x.shape[1]).astype(a.dtype, copy=False)
        if a.ndim == 1:
            losses = losses.reshape(())
        return _reduce_array(losses, reduction)

    def backward(self, grad):
        from ..tensor import _wrap

        p = self._params
        x = self.saved("self")
        weight = self._saved.get("weight")
        weight = self.saved("weight") if weight is not None else None
        data = x._data.reshape(1, -1) if x.ndim == 1 else x._data
        target = p["target"].reshape(-1)
        rows = np.arange(data.shape[0])
        samples, classes = data.shape
        matrix = x.reshape(samples, classes)
        picked = matrix[_wrap(rows), _wrap(target)].reshape(samples, 1)
        margins = p["margin"] - picked + matrix
        _, active = self._terms(data, target, p["p"], p["margin"], None
                                if weight is None else weight._data)
        mask = _mask(active, data)
        # clamp first: inactive entries give +0, as torch's kernel (not -0 from 2 * m * 0)
        slope = mask if p["p"] == 1 else 2 * margins.clamp(min=0) * mask
        if weight is not None:
            slope = slope * weight[_wrap(target)].reshape(samples, 1)
        slope = slope / classes
        one_hot = _mask(np.eye(classes, dtype=bool)[target], data)
        per_sample = slope - one_hot * slope.sum(1, keepdim=True)
        reduction = p["reduction"]
        if reduction == "none":
            g = grad.reshape(samples, 1)
        else:
            g = grad / samples if reduction == "mean" else grad
        return (g * per_sample).reshape(tuple(x.shape)), None
