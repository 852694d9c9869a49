"""Every op's output has torch's memory layout (Note: output layout in ops/_layout.py).

Each op-table sample runs against torch 2.13 on row-major inputs, on inputs of the same values
stored transposed (first and last dims swapped: what ``x.t()`` or ``permute`` gives) and, for
4-d inputs, stored channels-last. The outputs' strides must match torch's over the dims of size > 1 (the strides of
size-1 dims never affect addressing, ``is_contiguous`` or ``view``), and so must
``is_contiguous()``. A user's ``y.view(n)`` after a reduction of a permuted tensor fails in
leafgrad exactly when it fails in torch.
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import OPS

from .._torch import require_torch
from .samples import SAMPLES, values

torch = require_torch()

# Where leafgrad's layout knowingly differs from torch's, with the reason.
KNOWN = {
    # Not yet matched (left for later, see the nnx branch's report): fractional max pooling
    # of a channels-last batch returns row-major outputs where torch keeps the input's order.
    ("FractionalMaxPool2d", "CL", 0), ("FractionalMaxPool2dBackward", "CL", 0),
}


def _effective(shape, strides):
    return tuple(s for n, s in zip(shape, strides) if n > 1)


def _make(lib, array, layout):
    if layout == "T" and array.ndim >= 2:
        stored = lib.tensor(np.ascontiguousarray(np.swapaxes(array, 0, -1)), dtype=lib.float64)
        return stored.transpose(0, -1).detach().requires_grad_(True)
    tensor = lib.tensor(array, dtype=lib.float64)
    if layout == "CL" and array.ndim == 4:
        tensor = tensor.contiguous(memory_format=lib.channels_last)
    return tensor.requires_grad_(True)


def _outputs(value):
    if isinstance(value, (tuple, list)):
        return [v for v in value if hasattr(v, "stride")]
    return [value] if hasattr(value, "stride") else []


CASES = [
    pytest.param(name, layout, i, id=f"{name}-{layout}{i}")
    for name in sorted(OPS)
    for i in range(len(SAMPLES.get(name, [])))
    for layout in ("C", "T", "CL")
    if layout == "C"
    or (layout == "T" and any(len(shape) >= 2 for shape, _ in SAMPLES[name][i].shapes))
    or (layout == "CL" and any(len(shape) == 4 and shape[1] > 1
                               for shape, _ in SAMPLES[name][i].shapes))
]


@pytest.mark.parametrize("name,layout,index", CASES)
def test_output_strides_match_torch(name, layout, index):
    sample = SAMPLES[name][index]
    rng = np.random.default_rng(index)
    arrays = [values(shape, domain, rng) for shape, domain in sample.shapes]
    try:
        expected = sample.call(torch, *[_make(torch, a, layout) for a in arrays])
    except RuntimeError as error:  # e.g. view() of a transposed input: leafgrad must agree
        with pytest.raises(RuntimeError) as ours:
            sample.call(leafgrad, *[_make(leafgrad, a, layout) for a in arrays])
        assert str(ours.value) == str(error).splitlines()[0]
        return
    got = sample.call(leafgrad, *[_make(leafgrad, a, layout) for a in arrays])
    mismatches = []
    for k, (want, ours) in enumerate(zip(_outputs(expected), _outputs(got))):
        if want.numel() <= 1:
            continue
        if (_effective(want.shape, want.stride()) != _effective(ours.shape, ours.stride())
                or want.is_contiguous() != ours.is_contiguous()):
            mismatches.append((k, tuple(want.shape), want.stride(), ours.stride()))
    if (name, layout, index) in KNOWN:
        assert mismatches, "a known layout difference is gone: remove it from KNOWN"
        return
    assert not mismatches, mismatches


def _memory_format_calls(lib):
    """What clone/contiguous/is_contiguous answer for every memory format, as printable data."""
    results = []

    def record(call):
        try:
            value = call()
        except RuntimeError as error:
            results.append(("RuntimeError", str(error).splitlines()[0]))
            return
        if hasattr(value, "stride"):
            fn = value.grad_fn.name() if value.grad_fn is not None else None
            results.append((tuple(value.shape), value.stride(), fn))
        else:
            results.append(value)

    plain = lib.randn(2, 3, 4, 5)
    permuted = lib.randn(2, 3, 4, 5, requires_grad=True).permute(0, 2, 3, 1)
    five = lib.randn(2, 3, 4, 5, 6)
    vector = lib.randn(3)
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        fmt = getattr(lib, name)
        for tensor in (plain, permuted, five, vector):
            record(lambda: tensor.contiguous(memory_format=fmt))
            record(lambda: tensor.clone(memory_format=fmt))
            record(lambda: lib.clone(tensor, memory_format=fmt))
            record(lambda: tensor.is_contiguous(memory_format=fmt))
    results.append(repr(lib.channels_last).replace("leafgrad.", "torch."))
    return results


def test_memory_formats_match_torch():
    import pickle

    assert _memory_format_calls(leafgrad) == _memory_format_calls(torch)
    assert pickle.loads(pickle.dumps(leafgrad.channels_last)) is leafgrad.channels_last
