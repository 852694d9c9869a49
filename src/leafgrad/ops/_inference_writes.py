"""The version counts of Note: kernels' writes on inference operands (ops/registry.py) that
depend on the call: each function takes the op's operand ``arrays`` and ``params`` and gives
the count (or one per output), as measured against torch 2.13 (tests/test_fuzz10_findings.py).
"""

from __future__ import annotations
from . import _layout


def values_and_indices(arrays, params):
    """max/min/mode over a dim: the kernel writes keepdim=True outputs (1 each) and squeezes
    them in place (``squeeze_``, 1 more) unless keepdim; a 0-d input is copied once; an empty
    result is not written."""
    a = arrays[0]
    if a.ndim == 0:
        return 1
    if params.get("keepdim") or not a.size:
        return 0
    return 2


def mode_values(arrays, params):
    """mode over a dim: as max/min, but a 0-d input's outputs are written twice as well."""
    return 2 if arrays[0].ndim == 0 else values_and_indices(arrays, params)


def scan_copy(arrays, params):
    """cumsum/cumprod of a 0-d or empty tensor: a copy_ (no scan)."""
    a = arrays[0]
    return 1 if a.ndim == 0 or not a.size else 0


def integer_copy(arrays, params):
    """floor/ceil/round/trunc of an integer tensor: a clone (copy_)."""
    return 1 if arrays[0].dtype.kind in "iub" else 0


def not_floating(arrays, params):
    """isinf/isfinite/isposinf/isneginf of a non-floating tensor: zeros_like/ones_like (fill_)."""
    return 1 if arrays[0].dtype.kind in "iub" else 0


def floating_only(arrays, params):
    """amin: floating tensors go through an out= call, integer ones are written directly (and
    nothing is written from an empty input)."""
    a = arrays[0]
    return 1 if a.dtype.kind in "fc" and a.size else 0


def pow_fill_or_copy(arrays, params):
    """``x ** 0`` fills ones (fill_), ``x ** 1`` copies (copy_); other exponents: a kernel."""
    exponent = params.get("exponent")
    return 1 if type(exponent) is not bool and exponent in (0, 1) else 0


def over_every_dim(arrays, params):
    """std/var: a reduction over every dim (or of an empty input) writes its result through an
    out= call."""
    ndim = arrays[0].ndim
    dim = params.get("dim")
    if dim is None or ndim == 0 or not arrays[0].size:
        return 1
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return 1 if not dims or {d % ndim for d in dims} == set(range(ndim)) else 0


def flip_clone(arrays, params):
    """flip: a clone (copy_) where nothing moves (empty, or every flipped dim of size <= 1)."""
    a = arrays[0]
    dims = params.get("dims", ())
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return 1 if not a.size or all(a.shape[d] <= 1 for d in dims) else 0


def rot90_writes(arrays, params):
    """rot90: k = 0 clones; k = 1 and 3 flip one dim (a clone where nothing moves, as flip)
    and transpose the copy in place (transpose_, 1); k = 2 flips both dims."""
    a = arrays[0]
    k = params["k"] % 4
    first, second = params["dims"]
    if k == 0:
        return 1
    if k == 2:
        return flip_clone(arrays, {"dims": (first, second)})
    return 1 + flip_clone(arrays, {"dims": (second if k == 1 else first,)})


def repeat_copy(arrays, params):
    """repeat: the copy_ into the expanded result, skipped when a repeat count is 0."""
    return 0 if 0 in tuple(params.get("repeats", ())) else 1


def reduced_loss(arrays, params):
    """mse_loss with a reduction: the elementwise loss, then sum or mean through an out= call
    (one write for a 0-d input; reduction "none": the kernel's own result). ``reduction`` may
    be torch's enum int."""
    reduction = params.get("reduction")
    if reduction in ("none", 0):
        return 0
    return 1 if arrays[0].ndim == 0 else 2


__all__ = ["values_and_indices", "mode_values", "scan_copy", "integer_copy", "not_floating", "floating_only", "pow_fill_or_copy",
           "over_every_dim", "flip_clone", "rot90_writes", "repeat_copy", "reduced_loss"]


def restrided_2d_upsample(arrays, params):
    """2-d nearest, nearest-exact and bilinear upsampling: torch's kernel writes its output
    once more (a copy into the suggested memory format) unless contiguous and channels-last
    strides coincide for it (one channel, or a 1x1 output) or the input is channels-last."""
    x = arrays[0]
    sizes = params.get("output_size") or ()
    spatial = 1
    for size in sizes:
        spatial *= size
    if x.ndim != 4 or x.shape[1] == 1 or spatial == 1:
        return 0
    if not x.flags.c_contiguous and _layout.is_channels_last(x, 4):
        return 0
    return 1
