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


# -- gradients of operands that disagree on a layout ------------------------------------------
_GRAD_UNARY = {
    "tanh": lambda t: t.tanh(),
    "sigmoid": lambda t: t.sigmoid(),
    "relu": lambda t: t.relu(),
    "exp": lambda t: t.exp(),
    "square": lambda t: t * t,
}
_GRAD_BINARY = {
    "mul": lambda lib, a, b: a * b,
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "div": lambda lib, a, b: a / (b * b + 1),
    "where": lambda lib, a, b: lib.where(a > b, a, b),
}


def _mixed_gradients(lib, unary, binary, order, create_graph):
    rng = np.random.default_rng(7)
    x = lib.tensor(rng.standard_normal((6, 5)), requires_grad=True)
    y = lib.tensor(rng.standard_normal((5, 6)), requires_grad=True)
    a, b = (x.t(), y) if order == 0 else (y, x.t())
    out = _GRAD_UNARY[unary](_GRAD_BINARY[binary](lib, a, b))
    first = lib.autograd.grad(out.sum(), [x, y], retain_graph=True, create_graph=create_graph)
    second = lib.autograd.grad(out * x.t(), [x, y], lib.ones_like(out),
                               create_graph=create_graph)
    return [out.stride()] + [g.stride() for g in first + second]


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("binary", sorted(_GRAD_BINARY))
def test_mixed_layout_gradients_match_torch(binary, order):
    """The array-level backwards of plain backward passes (Mul's and Tanh's) order their
    results as the ops they stand for do (Note: output layout), so gradients have torch's
    strides, and those a recorded (create_graph) or compiled backward gives."""
    for unary in sorted(_GRAD_UNARY):
        expected = _mixed_gradients(torch, unary, binary, order, False)
        assert _mixed_gradients(leafgrad, unary, binary, order, False) == expected, unary
        assert _mixed_gradients(leafgrad, unary, binary, order, True) == expected, unary


def _where_layouts(lib):
    rng = np.random.default_rng(3)
    a = lib.tensor(rng.standard_normal((3, 4)))
    b = lib.tensor(rng.standard_normal((4, 3))).t()
    c = a > 0
    c_t = c.t().contiguous().t()
    results = []
    for condition in (c, c_t, lib.tensor(True)):
        for first, second in ((a, b), (b, a), (b, b), (a, 1.0), (b, 1.0)):
            results.append(lib.where(condition, first, second).stride())
    return results


def test_where_condition_decides_first():
    """torch's where passes the condition to TensorIterator before self and other: a
    row-major condition keeps a row-major result whatever self's layout."""
    assert _where_layouts(leafgrad) == _where_layouts(torch)
