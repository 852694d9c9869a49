"""Connectionist temporal classification: torch's CPU algorithm (ATen's LossCTC.cpp).

The loss of one sequence is -log of the summed probability of every alignment of its target to
its input steps, computed with the forward variables alpha over the extended target (a blank
between labels and at both ends) in log space; the gradient comes from alpha and the backward
variables beta. Both recursions run over time with every sequence of the batch and every
extended-target position as one array (sequences shorter than the longest are masked).

Note: the CTC gradient
Like ATen, the gradient returned for ``log_probs`` is ``exp(lp) - exp(lcab + nll - lp)``
(lcab: log of the summed alpha*beta of the positions holding that label), i.e. the gradient
with respect to the *logits* when ``log_probs`` came out of ``log_softmax`` (whose backward then
passes it on unchanged, the posterior summing to 1 over labels). For log_probs that are not
normalised it is not their derivative: that is torch's contract, kept here. Its own derivative
is not implemented in torch; under create_graph the gradient's node is torch's
``NotImplemented``, whose backward raises torch's error.
"""

from __future__ import annotations

import numpy as np

from .registry import Op, plain_backward, register


def _logsumexp3(a, b, c):
    """ATen's three-way log-sum-exp: shift by the max (0 when every term is -inf)."""
    top = np.maximum(np.maximum(a, b), c)
    top = np.where(top == -np.inf, 0, top)
    return np.log(np.exp(a - top) + np.exp(b - top) + np.exp(c - top)) + top


def _extended(targets: np.ndarray, target_lengths: np.ndarray, blank: int):
    """(labels, valid, skip): the extended targets (batch, 2 * max_len + 1), which positions
    exist for each sequence, and where a step may skip the blank before (label != label two
    back)."""
    batch = len(target_lengths)
    width = 2 * (int(target_lengths.max()) if batch else 0) + 1
    labels = np.full((batch, width), blank, dtype=np.int64)
    labels[:, 1::2] = targets[:, :(width - 1) // 2]
    positions = np.arange(width)
    valid = positions[None, :] < (2 * target_lengths + 1)[:, None]
    skip = np.zeros((batch, width), dtype=bool)
    skip[:, 2:] = (positions[2:] % 2 == 1) & (labels[:, 2:] != labels[:, :-2])
    return labels, valid, skip


def _shift(values: np.ndarray, by: int) -> np.ndarray:
    """``values[..., s - by]`` (``by`` > 0) or ``values[..., s + |by|]``, -inf off the end."""
    out = np.full_like(values, -np.inf)
    if by > 0:
        out[..., by:] = values[..., :-by]
    else:
        out[..., :by] = values[..., -by:]
    return out


def ctc_forward(log_probs, targets, input_lengths, target_lengths, blank):
    """(nll per sequence, log_alpha (T, N, S'), extended-target gathers) for padded targets
    (N, max_len)."""
    with np.errstate(all="ignore"):  # log(0) = -inf is the algorithm's "impossible"
        return _ctc_forward(log_probs, targets, input_lengths, target_lengths, blank)


def _ctc_forward(log_probs, targets, input_lengths, target_lengths, blank):
    steps, batch, _ = log_probs.shape
    labels, valid, skip = _extended(targets, target_lengths, blank)
    width = labels.shape[1]
    # lp of each extended position's label at every step: (T, N, S')
    picked = np.take_along_axis(log_probs, np.broadcast_to(labels[None], (steps, batch, width)),
                                axis=2)
    neg_inf = np.array(-np.inf, dtype=log_probs.dtype)
    alpha = np.full((steps, batch, width), neg_inf, dtype=log_probs.dtype)
    if steps:
        alpha[0, :, 0] = picked[0, :, 0]
        if width > 1:
            alpha[0, :, 1] = np.where(target_lengths > 0, picked[0, :, 1], neg_inf)
    for t in range(1, steps):
        previous = alpha[t - 1]
        jump = np.where(skip, _shift(previous, 2), neg_inf)
        step = _logsumexp3(previous, _shift(previous, 1), jump) + picked[t]
        alpha[t] = np.where(valid, step, neg_inf)
    nll = np.empty(batch, dtype=log_probs.dtype)
    for n in range(batch):
        length, size = input_lengths[n], target_lengths[n]
        if length == 0:
            nll[n] = -0.0 if size == 0 else np.inf
            continue
        last = alpha[length - 1, n, 2 * size]
        before = alpha[length - 1, n, 2 * size - 1] if size > 0 else neg_inf
        top = max(last, before)
        top = 0 if top == -np.inf else top
        nll[n] = -(np.log(np.exp(last - top) + np.exp(before - top)) + top)
    return nll, alpha, (labels, valid, skip, picked)


def ctc_gradient(log_probs, nll, alpha, gathered, input_lengths, target_lengths, zero_infinity):
    """d loss_n / d log_probs (T, N, C) per sequence (before the incoming gradient); NaN for
    an impossible sequence unless ``zero_infinity``, as torch."""
    with np.errstate(all="ignore"):
        return _ctc_gradient(log_probs, nll, alpha, gathered, input_lengths, target_lengths,
                             zero_infinity)


def _ctc_gradient(log_probs, nll, alpha, gathered, input_lengths, target_lengths,
                  zero_infinity):
    labels, valid, skip, picked = gathered
    steps, batch, classes = log_probs.shape
    width = labels.shape[1]
    neg_inf = np.array(-np.inf, dtype=log_probs.dtype)
    beta = np.full_like(alpha, neg_inf)
    ends = input_lengths - 1
    finals = np.zeros((batch, width), dtype=bool)
    finals[np.arange(batch), 2 * target_lengths] = True
    finals[np.arange(batch), np.maximum(2 * target_lengths - 1, 0)] |= target_lengths > 0
    skip_ahead = np.zeros_like(skip)  # may position s skip to s + 2
    skip_ahead[:, :-2] = skip[:, 2:]
    for t in range(steps - 1, -1, -1):
        start = np.where(finals, picked[t], neg_inf)
        if t + 1 < steps:
            following = beta[t + 1]
            jump = np.where(skip_ahead, _shift(following, -2), neg_inf)
            step = _logsumexp3(following, _shift(following, -1), jump) + picked[t]
        else:
            step = np.full_like(start, neg_inf)
        beta[t] = np.where((t == ends)[:, None], start,
                           np.where((t < ends)[:, None] & valid, step, neg_inf))
    both = alpha + beta
    top = both.max(axis=2, keepdims=True)
    top = np.where(top == -np.inf, 0, top)
    summed = np.zeros((steps, batch, classes), dtype=log_probs.dtype)
    step_index = np.arange(steps)[:, None, None]
    batch_index = np.arange(batch)[None, :, None]
    counted = np.broadcast_to(valid[None], both.shape).copy()
    # torch's CPU backward sets the last frame's two terms one after the other ("a blank and a
    # non-blank, so we know they are different"): when the last target is the blank itself, the
    # label's term replaces the blank's instead of adding to it
    for n in range(batch):
        size = target_lengths[n]
        if input_lengths[n] > 0 and size > 0 and labels[n, 2 * size - 1] == labels[n, 2 * size]:
            counted[ends[n], n, 2 * size] = False
    np.add.at(summed, (step_index, batch_index, labels[None]),
              np.where(counted, np.exp(both - top), 0))
    lcab = np.log(summed) + top
    grad = np.exp(log_probs) - np.exp(lcab + nll[None, :, None] - log_probs)
    inside = np.arange(steps)[:, None] < input_lengths[None, :]
    grad = np.where(inside[:, :, None], grad, 0)
    if zero_infinity:
        grad = np.where(np.isinf(nll)[None, :, None], 0, grad)
    return grad.astype(log_probs.dtype, copy=False)


@register
class CtcLoss(Op):
    """Per-sequence CTC negative log likelihood (reduction 'none') of (T, N, C) log_probs."""
    autocast = "fp32"  # torch's CPU autocast list

    node = "CtcLossBackward0"
    bfloat16_kernel = "ctc_loss_cpu"  # torch has no bfloat16 kernel
    index_saves = {"targets": ()}  # Note: saved index tensors (registry.py)
    inputs = ("log_probs",)
    saves = {"log_probs": ("log_probs",), "forward": ("log_probs",)}
    torch_names = ("nn.functional.ctc_loss", "nn.CTCLoss")

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        nll, alpha, gathered = ctc_forward(log_probs, targets, input_lengths, target_lengths,
                                           blank)
        if ctx is not None:
            ctx.keep("forward", (nll, alpha, gathered))
        return nll

    def _gradient(self) -> np.ndarray:
        p = self._params
        nll, alpha, gathered = self.saved("forward")
        return ctc_gradient(self.saved("log_probs")._data, nll, alpha, gathered,
                            p["input_lengths"], p["target_lengths"], p["zero_infinity"])

    def backward(self, grad):
        from ..tensor import _wrap

        if plain_backward():
            return _wrap(self._gradient() * grad._data[None, :, None])
        return CtcGradient.apply(grad, self.saved("log_probs"), gradient=self._gradient())

    def jvp(self, tangents, primals, result):
        # torch has no forward-mode formula for _ctc_loss; this is J @ t with the backward's
        # gradient (see Note: the CTC gradient)
        from ..tensor import _wrap

        if tangents[0] is None:
            return None
        log_probs = primals[0]._data
        p = self._params
        nll, alpha, gathered = ctc_forward(log_probs, p["targets"], p["input_lengths"],
                                           p["target_lengths"], p["blank"])
        gradient = ctc_gradient(log_probs, nll, alpha, gathered, p["input_lengths"],
                                p["target_lengths"], p["zero_infinity"])
        return (_wrap(gradient) * tangents[0]).sum((0, 2))


class CtcGradient(Op):
    """The CTC gradient as recorded under create_graph: torch implements no derivative for it
    (its node is named NotImplemented and its backward raises torch's error). Not in the op
    table: it has no gradient to test."""

    node = "NotImplemented"
    qualified_name = "torch::autograd::NotImplemented"
    inputs = ("grad", "log_probs")
    _save_plan = ()

    @staticmethod
    def forward(ctx, grad, log_probs, gradient):
        return (gradient * grad[None, :, None]).astype(log_probs.dtype, copy=False)

    def backward(self, grad):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")

    def jvp(self, tangents, primals, result):
        raise NotImplementedError("Trying to use forward AD with _ctc_loss_backward that does "
                                  "not support it because it has not been implemented yet.")


CtcGradient.__name__ = CtcGradient.__qualname__ = "NotImplemented"
