"""More losses of ``nn.functional``, written as ATen (or torch's Python) composes them, so the
recorded graph ends in the same nodes: margin ranking, hinge embedding, cosine embedding,
triplet margin (with ``pairwise_distance``), Poisson and Gaussian NLL, multilabel soft margin;
multilabel margin and CTC (ops of their own)."""

from __future__ import annotations

import math

import numpy as np

from .. import _argparse
from ..ops.registry import keep_index
from ._functional_nn import _legacy_reduction, _not_differentiable, _reduce
from ..ops import _cpp_operators
from ..ops.native_forms import NormDims
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ._functional_act import logsigmoid
from ..ops.loss_extra import MultilabelMarginLoss, MultiMarginLoss, SoftMarginLoss
from ..ops._promote import check_broadcast
from ..ops.loss_ctc import CtcLoss
from .._construct import check_scalar_write
from .._argparse import invalid_combination
from ..ops.registry import array_kernel

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "pairwise_distance", "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "multilabel_soft_margin_loss", "soft_margin_loss", "multi_margin_loss",
           "triplet_margin_with_distance_loss", "multilabel_margin_loss", "ctc_loss"]

_EPSILON = 1e-12  # ATen's cosine_embedding_loss


def _check_reduction(reduction: str) -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)  # torch's _Reduction.get_enum, before any shape check
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
            .replace("leafgrad.Size", "torch.Size"))
    if margin.__class__ is not float and margin.__class__ is not int:  # torch's C function's
        margin, = _argparse.doubles("margin_ranking_loss", ("margin", margin, 4, "float"))
    output = (-target * (input1 - input2) + margin).clamp_min_(0)
    return _reduce(output, reduction)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    from .. import where, zeros_like

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin.__class__ is not float and margin.__class__ is not int:  # torch's C function's
        margin, = _argparse.doubles("hinge_embedding_loss", ("margin", margin, 3, "float"))
    zeros = zeros_like(input)
    if input.dtype.name == "bool":  # torch: a tensor like self filled with margin, minus self
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        # (that fill converts the margin to the integer dtype: truncated, or torch's error)
        margin = check_scalar_write(margin, input.dtype)
    margin_clamp = (margin - input).clamp_min_(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction)


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, size_average=None,
                          reduce=None, reduction: str = "mean"):
    from .. import where, zeros_like

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    dim = input1.dim() - 1 if input1.dim() else 0
    prod_sum = (input1 * input2).sum(dim)
    mag_square1 = (input1 * input1).sum(dim) + _EPSILON
    mag_square2 = (input2 * input2).sum(dim) + _EPSILON
    denom = (mag_square1 * mag_square2).sqrt_()
    cos = prod_sum / denom
    zeros = zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    output = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return _reduce(output, reduction)


@_argparse.parsed("pairwise_distance")  # (a C function in torch: its parser's errors)
def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """``||x1 - x2 + eps||_p`` over the last dim."""
    if p.__class__ is not float or eps.__class__ is not float or keepdim.__class__ is not bool:
        p, eps, keepdim = _argparse.doubles("pairwise_distance", ("p", p, 3, "float"),
                                            ("eps", eps, 4, "float"),
                                            ("keepdim", keepdim, 5, "bool"))

    dim = max(x1.dim(), x2.dim()) - 1
    # (C++'s + eps: add.Scalar, AddBackward1. Note: C++ operators in backward formulas)
    shifted = _cpp_operators.add(x1 - x2, eps)
    if dim < 0:  # (torch's norm over dim -1 of the 0-d difference)
        return NormDims.apply(shifted, ord=float(p), dim=(), keepdim=bool(keepdim))
    # ATen's at::norm(x1 - x2 + eps, p, dim, keepdim): NormBackward1 (Tensor.norm is
    # linalg.vector_norm's LinalgVectorNormBackward0)
    return NormDims.apply(shifted, ord=float(p), dim=(dim,), keepdim=bool(keepdim))


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean"):
    from .. import minimum

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if margin.__class__ is not float or p.__class__ is not int and p.__class__ is not float or \
            eps.__class__ is not float or swap.__class__ is not bool:  # torch's C function's
        margin, p, eps, swap = _argparse.doubles(
            "triplet_margin_loss", ("margin", margin, 4, "float"), ("p", p, 5, "float"),
            ("eps", eps, 6, "float"), ("swap", swap, 7, "bool"))
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if not (dims[0] == dims[1] == dims[2]):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = (_cpp_operators.add(dist_pos, margin) - dist_neg).clamp_min(0)  # (ATen's C++)
    return _reduce(output, reduction)


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None, reduction: str = "mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):  # (torch concatenates: a non-str is a TypeError)
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        # (ATen's at::exp(input) - target * input: the compiler evaluates the right operand
        # first, so the product's node is older and the exp path's gradient arrives first)
        product = target * input
        loss = input.exp() - product
    else:
        loss = input - target * _cpp_operators.add(input, eps).log()  # (ATen's C++)
    if full:
        stirling = target * target.log() - target + _cpp_operators.mul(
            _cpp_operators.mul(target, 2 * math.pi).log(), 0.5)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def _check_var(var):
    if (var < 0).any():
        raise ValueError("var has negative entry/entries")
    return np.zeros(0, dtype=bool)


_check_var.always_runs = True  # leafgrad.compile: a check, never dropped as dead code


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    # torch's order: var's sign (a Python float checked as a number; any other non-tensor
    # reaches torch.any(bool), which its parser refuses), then var's size
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        from .. import ones_like

        var = var * ones_like(input)
    elif not isinstance(var, Tensor):
        raise invalid_combination("any", (var < 0,), {})
    elif var._data.dtype.kind == "c":
        if bool((var < 0).any()):  # the Tensor comparison raises torch's complex error
            raise ValueError("var has negative entry/entries")
    else:
        # a check kernel: leafgrad.compile replays it (raising as eager code does) instead of
        # breaking the graph at a Python branch on the values
        array_kernel(_check_var, var._data)
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:  # homoscedastic: one variance per row
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(
                size for own, size in zip(input.shape, var.shape) if own != size) == 1):
            # torch's test: var's sizes where they differ from input's add up to 1 (one dim
            # of size 1 broadcast)
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)



def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``log(1 + exp(-target * input))`` averaged (or summed); targets are +1 or -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _not_differentiable("soft_margin_loss", "target", target)
    if input.dtype.name == "bool":  # torch's neg_out(output, input) first
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead.")

    check_broadcast(tuple(input.shape), tuple(target.shape))  # (ATen's input * target)
    shape = tuple(input.shape)
    if tuple(target.shape) != shape:  # (ATen multiplies in place, into the input's shape)
        wide = list(np.broadcast_shapes(shape, tuple(target.shape)))
        if tuple(wide) != shape:
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast "
                               f"shape {wide}")
    if input.dtype.name in ("int8", "int16", "int32", "int64", "uint8"):
        # torch writes -input * target, then its exp and log1p, into a tensor of input's dtype
        from .. import get_default_dtype

        result = target.dtype if target.dtype.is_floating_point else get_default_dtype()
        raise RuntimeError(f"result type {result._legacy} can't be cast to the desired output "
                           f"type {input.dtype._legacy}")
    return SoftMarginLoss.apply(input, target, reduction=reduction)


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean"):
    """The multi-class hinge loss over (N, C) (or (C,)) scores and class indices."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if p.__class__ is not int or margin.__class__ is not float and margin.__class__ is not int:
        p, margin = _argparse.doubles("multi_margin_loss", ("p", p, 3, "Number"),
                                      ("margin", margin, 4, "Number"))  # its C function's
    if weight is not None:
        _not_differentiable("multi_margin_loss", "weight", weight)
    # ATen's shape checks (input, target, weight) come before its dtype checks
    ndim = input.dim()
    if not ((ndim == 2 and input.shape[1] != 0) or (ndim == 1 and input.shape[0] != 0)
            or ndim == 0):
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}")
    frames = input.shape[0] if ndim == 2 else 1
    if target.dim() > 1 or target.numel() != frames:
        raise RuntimeError(
            f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{frames}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    classes = input.shape[-1] if ndim else 1
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(
            f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    if input.dtype.name in ("float16", "bfloat16"):  # the kernel's dtypes, then its int64
        raise NotImplementedError(  # read of target
            f'"multi_margin_loss_cpu_kernel" not implemented for \'{input.dtype._legacy}\'')
    if target.dtype.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._legacy}")
    indices = target._data
    if indices.size and (indices.min() < 0 or indices.max() >= classes):
        raise RuntimeError("target out of range")
    result = MultiMarginLoss.apply(input, weight, target=indices, p=p, margin=margin,
                                   reduction=reduction)
    return keep_index(result, target, "target")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean"):
    """The triplet loss with any distance (default ``pairwise_distance``)."""
    from .. import minimum

    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if not (dims[0] == dims[1] == dims[2]):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs")
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None,
                           reduction: str = "mean"):
    """The multi-label hinge loss over (N, C) (or (C,)) scores; each target row lists class
    indices up to its first -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    shape = list(input.shape)
    if not (input.dim() == 2 and shape[1] != 0 or input.dim() == 1 and shape[0] != 0
            or input.dim() == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {shape}")
    if list(target.shape) != shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{shape}")
    if str(target.dtype).split(".")[-1] != "int64":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._legacy}")
    indices = target._data
    classes = shape[-1] if shape else 1
    if indices.size and (indices.min() < -1 or indices.max() >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    return keep_index(MultilabelMarginLoss.apply(input, target=indices, reduction=reduction),
                      target, "target")



def _lengths(value, name: str) -> np.ndarray:
    if isinstance(value, Tensor):
        if value._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return value._data.reshape(-1).astype(np.int64)
    return np.asarray(value, dtype=np.int64).reshape(-1)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    """The connectionist temporal classification loss of (T, N, C) (or (T, C)) log
    probabilities against padded (N, S) or concatenated targets (torch's CPU algorithm)."""
    from .. import tensor as make_tensor, where, zeros

    _check_reduction(reduction)
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    batched = log_probs.dim() == 3
    inputs = _lengths(input_lengths, "input_lengths")
    sizes = _lengths(target_lengths, "target_lengths")
    probs = log_probs if batched else log_probs.unsqueeze(1)
    steps, batch, classes = probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(inputs) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(sizes) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    labels = targets._data.astype(np.int64)
    if not batched:
        labels = labels[None]
    where_ = "(while checking arguments for ctc_loss_allocate_outputs)"
    padded = np.zeros((batch, int(sizes.max()) if batch and sizes.size else 0), np.int64)
    offset = 0
    for n in range(batch):
        size = sizes[n]
        if size < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got "
                               f"value {size} {where_}")
        if labels.ndim == 1:
            if offset + size <= labels.shape[0]:
                padded[n, :size] = labels[offset:offset + size]
            offset += size
        else:
            if size > labels.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {size} at dimension "
                                   f"1, but got size {labels.shape[1]} for argument #2 'targets'"
                                   f" {where_}")
            padded[n, :size] = labels[n, :size]
    if labels.ndim == 1 and labels.shape[0] != offset:  # concatenated: exactly the lengths
        raise RuntimeError(f"Expected tensor to have size {offset} at dimension 0, but got size "
                           f"{labels.shape[0]} for argument #2 'targets' {where_}")
    for n in range(batch):
        if inputs[n] < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got "
                               f"value {inputs[n]} {where_}")
        if inputs[n] > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                               f"value {inputs[n]} {where_}")
    loss = CtcLoss.apply(probs, targets=padded, input_lengths=inputs, target_lengths=sizes,
                         blank=blank, zero_infinity=bool(zero_infinity))
    if targets._data.dtype == np.int64:  # (torch saves a converted copy of other dtypes)
        keep_index(loss, targets, "targets")
    if zero_infinity:
        loss = where(loss == float("inf"), zeros((), dtype=loss.dtype), loss)
    if reduction == "mean":
        divisors = make_tensor(sizes, dtype=loss.dtype).clamp_min(1)
        loss = (loss / divisors).mean()
    elif reduction == "sum":
        loss = loss.sum()
    return loss if batched or reduction != "none" else loss.squeeze(0)
