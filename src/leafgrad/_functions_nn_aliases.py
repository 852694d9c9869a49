"""torch's top-level forms of nn.functional functions that tutorials call as ``torch.<name>``:
``torch.threshold``, ``torch.hardshrink``, ``torch.prelu``, ``torch.rrelu``, the losses with an
integer ``reduction`` (0 none, 1 mean, 2 sum, as ATen takes it), ``torch.alpha_dropout(input,
p, train)`` and the others below, with ATen's signatures (every argument torch requires is
required here too, and a wrong argument type gives torch's TypeError).

Note: torch's Python binding reads the declared default ``reduction=Mean`` of the losses as 0,
so ``torch.kl_div(x, y)`` does not reduce at all; the defaults here are 0 to match."""

from __future__ import annotations

from . import _argparse
from .nn import functional as _F

__all__ = [
    "threshold", "threshold_", "hardshrink", "prelu", "rrelu", "rrelu_", "bilinear",
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
    "dropout_", "feature_dropout", "feature_dropout_", "instance_norm", "rms_norm", "kl_div", "margin_ranking_loss", "hinge_embedding_loss",
    "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss",
    "binary_cross_entropy_with_logits", "conv_transpose1d", "conv3d", "conv_transpose3d",
    "adaptive_max_pool1d", "max_pool3d", "ctc_loss", "conv_tbc",
]

conv_tbc = _F.conv_tbc  # the same function, as in torch

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}

_SIGNATURES = {
    "kl_div": "kl_div(Tensor input, Tensor target, int reduction=1, *, bool log_target=False)",
    "margin_ranking_loss": "margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, "
                           "float margin=0.0, int reduction=1)",
    "hinge_embedding_loss": "hinge_embedding_loss(Tensor input, Tensor target, "
                            "float margin=1.0, int reduction=1)",
    "cosine_embedding_loss": "cosine_embedding_loss(Tensor input1, Tensor input2, "
                             "Tensor target, float margin=0.0, int reduction=1)",
    "triplet_margin_loss": "triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, "
                           "float margin=1.0, float p=2, float eps=1e-06, bool swap=False, "
                           "int reduction=1)",
    "poisson_nll_loss": "poisson_nll_loss(Tensor input, Tensor target, bool log_input, "
                        "bool full, float eps, int reduction)",
    "binary_cross_entropy_with_logits": "binary_cross_entropy_with_logits(Tensor input, "
                                        "Tensor target, Tensor? weight=None, "
                                        "Tensor? pos_weight=None, int reduction=1)",
    "alpha_dropout": "alpha_dropout(Tensor input, float p, bool train)",
    "alpha_dropout_": "alpha_dropout_(Tensor input, float p, bool train)",
    "feature_alpha_dropout": "feature_alpha_dropout(Tensor input, float p, bool train)",
    "feature_alpha_dropout_": "feature_alpha_dropout_(Tensor input, float p, bool train)",
    "dropout_": "dropout_(Tensor input, float p, bool train)",
    "feature_dropout": "feature_dropout(Tensor input, float p, bool train)",
    "feature_dropout_": "feature_dropout_(Tensor input, float p, bool train)",
    "threshold": "threshold(Tensor input, Number threshold, Number value)",
    "threshold_": "threshold_(Tensor input, Number threshold, Number value)",
    "hardshrink": "hardshrink(Tensor input, Number lambd=0.5)",
    "prelu": "prelu(Tensor input, Tensor weight)",
    "pixel_shuffle": "pixel_shuffle(Tensor input, int upscale_factor)",
    "pixel_unshuffle": "pixel_unshuffle(Tensor input, int downscale_factor)",
    "channel_shuffle": "channel_shuffle(Tensor input, int groups)",
    "adaptive_max_pool1d": "adaptive_max_pool1d(Tensor input, tuple of ints output_size)",
    "instance_norm": "instance_norm(Tensor input, Tensor? weight, Tensor? bias, "
                     "Tensor? running_mean, Tensor? running_var, bool use_input_stats, "
                     "float momentum, float eps, bool cudnn_enabled)",
    "bilinear": "bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)",
}
_PARSED = {name: _argparse._overloads(text) for name, text in _SIGNATURES.items()}
_PARSED["ctc_loss"] = _argparse._overloads(*(
    f"ctc_loss(Tensor log_probs, Tensor targets, {lengths} input_lengths, {lengths} "
    "target_lengths, int blank=0, int reduction=1, bool zero_infinity=False)"
    for lengths in ("tuple of ints", "Tensor")))


def _check(name: str, args: tuple, kwargs: dict) -> None:
    """torch's TypeError when ``args``/``kwargs`` do not fit ``name``'s ATen signature."""
    known = _argparse.SIGNATURES
    saved = known.get(name)
    known[name] = _PARSED[name]
    try:
        problem = _argparse.error(name, args, kwargs)
    finally:
        if saved is None:
            del known[name]
        else:
            known[name] = saved
    if problem is not None:
        raise problem


def _parsed(name: str):
    """Check the call against ``name``'s signature before running the function."""
    def wrap(function):
        def checked(*args, **kwargs):
            _check(name, args, kwargs)
            return function(*args, **kwargs)

        checked.__name__ = checked.__qualname__ = name
        checked.__doc__ = function.__doc__
        checked.__wrapped__ = function
        return checked

    return wrap


def _reduction(value: int) -> str:
    """ATen's reduction codes: 1 mean, 2 sum; any other integer leaves the loss unreduced."""
    return _REDUCTIONS.get(value, "none")


# -- activations -------------------------------------------------------------------------------
@_parsed("threshold")
def threshold(input, threshold, value):
    return _F.threshold(input, threshold, value)


@_parsed("threshold_")
def threshold_(input, threshold, value):
    return _F.threshold_(input, threshold, value)


@_parsed("hardshrink")
def hardshrink(input, lambd=0.5):
    return _F.hardshrink(input, lambd)


@_parsed("prelu")
def prelu(input, weight):
    return _F.prelu(input, weight)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator=None):
    if generator is not None:
        raise NotImplementedError("leafgrad: rrelu with generator= is not supported")
    return _F.rrelu(input, lower, upper, training)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None):
    if generator is not None:
        raise NotImplementedError("leafgrad: rrelu_ with generator= is not supported")
    return _F.rrelu_(input, lower, upper, training)


# -- layers ------------------------------------------------------------------------------------
@_parsed("bilinear")
def bilinear(input1, input2, weight, bias=None):
    return _F.bilinear(input1, input2, weight, bias)


@_parsed("pixel_shuffle")
def pixel_shuffle(input, upscale_factor):
    return _F.pixel_shuffle(input, upscale_factor)


@_parsed("pixel_unshuffle")
def pixel_unshuffle(input, downscale_factor):
    return _F.pixel_unshuffle(input, downscale_factor)


@_parsed("channel_shuffle")
def channel_shuffle(input, groups):
    return _F.channel_shuffle(input, groups)


def _aten_p(p) -> None:
    """ATen's check of a dropout probability: a RuntimeError (nn.functional's is a ValueError)."""
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input, p, train, *, inplace=False, feature=False, alpha=False):
    from .nn._functional_layers import _dropout_impl

    _aten_p(p)
    return _dropout_impl(input, p, train, inplace, feature=feature, alpha=alpha)


@_parsed("alpha_dropout")
def alpha_dropout(input, p, train):
    return _dropout(input, p, train, alpha=True)


@_parsed("alpha_dropout_")
def alpha_dropout_(input, p, train):
    return _dropout(input, p, train, inplace=True, alpha=True)


@_parsed("feature_alpha_dropout")
def feature_alpha_dropout(input, p, train):
    return _dropout(input, p, train, feature=True, alpha=True)


@_parsed("feature_alpha_dropout_")
def feature_alpha_dropout_(input, p, train):
    return _dropout(input, p, train, inplace=True, feature=True, alpha=True)


@_parsed("dropout_")
def dropout_(input, p, train):
    """``torch.dropout_``: dropout written into ``input``."""
    _aten_p(p)
    return _F.dropout(input, p, train, inplace=True)


@_parsed("feature_dropout")
def feature_dropout(input, p, train):
    """Zero whole channels (dim 1) of an input of at least 2 dims, as ``dropout2d`` does."""
    return _dropout(input, p, train, feature=True)


@_parsed("feature_dropout_")
def feature_dropout_(input, p, train):
    return _dropout(input, p, train, inplace=True, feature=True)


@_parsed("instance_norm")
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats: bool,
                  momentum: float, eps: float, cudnn_enabled: bool):
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                            momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F.rms_norm(input, normalized_shape, weight, eps)


conv_transpose1d = _F.conv_transpose1d
conv3d = _F.conv3d
conv_transpose3d = _F.conv_transpose3d


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


@_parsed("adaptive_max_pool1d")
def adaptive_max_pool1d(input, output_size):
    return _F.adaptive_max_pool1d(input, output_size, return_indices=True)


# -- losses (ATen's integer reduction) ---------------------------------------------------------
@_parsed("kl_div")
def kl_div(input, target, reduction=0, *, log_target=False):
    return _F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


@_parsed("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F.margin_ranking_loss(input1, input2, target, margin,
                                  reduction=_reduction(reduction))


@_parsed("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


@_parsed("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F.cosine_embedding_loss(input1, input2, target, margin,
                                    reduction=_reduction(reduction))


@_parsed("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    return _F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                  reduction=_reduction(reduction))


@_parsed("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                               reduction=_reduction(reduction))


@_parsed("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _F.binary_cross_entropy_with_logits(input, target, weight,
                                               reduction=_reduction(reduction),
                                               pos_weight=pos_weight)



@_parsed("ctc_loss")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """``torch.ctc_loss``: nn.functional.ctc_loss with ATen's integer ``reduction`` (unreduced
    when it is not given: see the module's note)."""
    return _F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                       _reduction(reduction), zero_infinity)
