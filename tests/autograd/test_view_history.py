"""A view's history after its memory is written, against torch 2.13.

torch regenerates a view's grad_fn (AsStridedBackward0 over the base's current history) whenever
the memory's version changed since the view's history was set, however it was written: through
autograd, under no_grad, through a detached alias (generated-program seed 18151: x.detach()
.div_(w) left x's views with their old TransposeBackward0/UnsqueezeBackward0). Views made in
no_grad or inference mode, and the outputs of unbind/split/split_with_sizes/chunk (and views of
them), may not have their history rewritten: torch raises, directly (an in-place op on them
that records) or indirectly (reading their grad_fn after the memory was written elsewhere), and
prints their grad_fn as <Invalid>. Also: unbind of a 1-d tensor gives 0-d views, not copies.
"""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

from ._differential import observe

torch = require_torch()


def _plain(value):
    """Tensors as what they show (dtype, values with the sign of zero, flags, node name)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        data = value.detach().numpy(force=True) if isinstance(value, torch.Tensor) else \
            value.detach().numpy()
        fn = value.grad_fn
        return (str(value.dtype).rpartition(".")[2], data.tolist(),
                np.signbit(data.real).tolist(), value.requires_grad,
                None if fn is None else type(fn).__name__)
    return value


def _same(program):
    expected = _plain(observe(program, torch))
    actual = _plain(observe(program, leafgrad))
    assert actual == expected


def _node(t):
    fn = t.grad_fn
    if fn is None:
        return None
    return type(fn).__name__, [None if c is None else type(c).__name__ for c, _ in
                               fn.next_functions]


VIEWS = {
    "slice": lambda x: x[1:],
    "select": lambda x: x[1],
    "unsqueeze": lambda x: x.unsqueeze(-1),
    "transpose": lambda x: x.transpose(0, -1),
    "t": lambda x: x.t(),
    "view": lambda x: x.view(-1),
    "diagonal": lambda x: x.diagonal(),
    "permute chain": lambda x: x.unsqueeze(0).permute(2, 0, 1)[:, :, 1:],
    "expand": lambda x: x.unsqueeze(0).expand(2, -1, -1),
}

WRITES = {
    "base under no_grad": "base_no_grad",
    "view under no_grad": "view_no_grad",
    "detached base": "detach_base",
    "detached view": "detach_view",
    "sibling through autograd": "sibling",
}


def _write(lib, how, base, view):
    if how == "base_no_grad":
        with lib.no_grad():
            base.mul_(2)
    elif how == "view_no_grad":
        with lib.no_grad():
            view.add_(1) if view.stride() and 0 in view.stride() else view.mul_(3)
    elif how == "detach_base":
        base.detach().sub_(0.5)
    elif how == "detach_view":
        view.detach().zero_() if 0 in view.stride() else view.detach().mul_(-1)
    else:
        base[0].mul_(lib.tensor(2.0, dtype=base.dtype, requires_grad=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("base_kind", ["leaf", "non-leaf", "no grad"])
@pytest.mark.parametrize("how", sorted(WRITES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_views_regenerate_their_history_after_any_write(view, how, base_kind, dtype):
    def program(lib, note):
        leaf = lib.tensor(np.arange(6.0).reshape(2, 3) - 2.5, dtype=getattr(lib, dtype),
                          requires_grad=base_kind != "no grad")
        base = leaf if base_kind != "non-leaf" else leaf * 1.5
        if base_kind == "leaf" and how == "sibling":
            base = leaf.view(2, 3)  # a leaf cannot be written in place through autograd
        v = note(lambda: VIEWS[view](base))
        if base_kind == "leaf" and how == "view_no_grad" and 0 in v.stride():
            return
        note(lambda: _write(lib, how, base, v) and None)
        note(lambda: (_node(v), v.requires_grad, v.is_leaf, v._version, repr(v)))
        note(lambda: _node(v))  # a second read keeps the regenerated node
        if not v.requires_grad:
            return
        w = lib.linspace(-1, 1, v.numel(), dtype=v.dtype).reshape(v.shape)
        note(lambda: lib.autograd.grad((v * w).sum(), leaf, allow_unused=True))
        again = note(lambda: lib.autograd.grad((v * w).sum(), leaf, create_graph=True)[0])
        if again is not None and again.requires_grad:
            note(lambda: _node(again))

    _same(program)


def test_regenerated_view_keeps_retain_grad_and_hooks_as_torch():
    def program(lib, note):
        a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = a * 2
        v = y[1:]
        v.retain_grad()
        seen = []
        v.register_hook(lambda g: seen.append(g.tolist()))
        with lib.no_grad():
            y.add_(1)
        (v * v).sum().backward()
        note(lambda: (v.grad, a.grad, seen, _node(v)))

    _same(program)


def test_view_arguments_of_ops_are_regenerated_first():
    # the op records an edge to the regenerated node, not to the stale one
    def program(lib, note):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = a * 2  # (saves nothing of y: the write below leaves the graph usable)
        v = y.t()
        y.detach().div_(2)
        out = v @ lib.ones(2, 2)
        note(lambda: (_node(out), [_node(c.variable) if False else type(c).__name__
                                   for c, _ in out.grad_fn.next_functions[0][0].next_functions]))
        out.sum().backward()
        note(lambda: a.grad)
        note(lambda: _node(v))

    _same(program)


MULTI = {
    "unbind": lambda y: y.unbind(),
    "unbind dim 1": lambda y: y.unbind(1),
    "iteration": lambda y: list(y),
    "split": lambda y: y.split(1),
    "split dim 1": lambda y: y.split(2, dim=1),
    "split one output": lambda y: y.split(2),
    "split_with_sizes": lambda y: y.split([1, 1]),
    "chunk": lambda y: y.chunk(2, 1),
    "torch.split": lambda y: y.split(1, 0),
    # not multi-output views in torch: each output is a slice
    "tensor_split": lambda y: y.tensor_split(2, 1),
    "hsplit": lambda y: y.hsplit(3),
    "unsafe_split": lambda y: y.unsafe_split(1),
}

FURTHER = {
    "itself": lambda p: p,
    "slice of it": lambda p: p[..., :1],
    "view of it": lambda p: p.reshape(-1) if p.is_contiguous() else p.t(),
    "unsqueeze of it": lambda p: p.unsqueeze(0),
}

INPLACE = {
    "mul_": lambda t, lib: t.mul_(2),
    "add_ tensor": lambda t, lib: t.add_(lib.ones(t.shape, dtype=t.dtype), alpha=2),
    "zero_": lambda t, lib: t.zero_(),
    "copy_": lambda t, lib: t.copy_(t.detach() * 5),
    "clamp_": lambda t, lib: t.clamp_(max=1.5),
    "exp_": lambda t, lib: t.exp_(),
    "setitem": lambda t, lib: t.__setitem__(..., 7.0),
}


@pytest.mark.parametrize("op", sorted(INPLACE))
@pytest.mark.parametrize("further", sorted(FURTHER))
@pytest.mark.parametrize("make", sorted(MULTI))
def test_multi_output_views_refuse_in_place_ops_as_torch(make, further, op):
    def program(lib, note):
        a = lib.tensor([[1.0, 2.0, -1.0], [0.5, -2.0, 3.0]], requires_grad=True)
        y = a * 1
        parts = MULTI[make](y)
        target = note(lambda: FURTHER[further](parts[-1]))
        before = (y.detach().clone(), y._version)
        note(lambda: _node(INPLACE[op](target, lib)))
        note(lambda: (y.detach().clone(), y._version, before))  # nothing written on error
        note(lambda: [(_node(p), repr(p)) for p in parts])
        note(lambda: (_node(y), y.requires_grad))
        note(lambda: lib.autograd.grad(y.sum(), a))

    _same(program)


WRITERS = {
    "base through autograd": lambda y, parts, lib: y.mul_(2),
    "base under no_grad": lambda y, parts, lib: _no_grad(lib, lambda: y.add_(1)),
    "detached base": lambda y, parts, lib: y.detach().zero_(),
    "sibling under no_grad": lambda y, parts, lib: _no_grad(lib, lambda: parts[0].mul_(2)),
}


def _no_grad(lib, thunk):
    with lib.no_grad():
        thunk()


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("make", ["unbind", "split", "chunk", "split_with_sizes", "iteration",
                                  "tensor_split"])
def test_multi_output_views_after_their_memory_is_written(make, writer):
    def program(lib, note):
        a = lib.tensor([[1.0, 2.0, -1.0], [0.5, -2.0, 3.0]], requires_grad=True)
        y = a * 1
        parts = MULTI[make](y)
        last = parts[-1]
        more = last[:1]
        note(lambda: WRITERS[writer](y, parts, lib))
        note(lambda: _node(last))
        note(lambda: repr(last))
        note(lambda: (last.requires_grad, last._version))
        note(lambda: last.is_leaf)
        note(lambda: _node(last * 2))
        note(lambda: _node(more))
        note(lambda: lib.autograd.grad(last.sum(), a))
        note(lambda: lib.autograd.grad(y.sum(), a))

    _same(program)


MODES = ["no_grad", "inference_mode", "enable_grad(False)"]


def _mode(lib, name):
    if name == "no_grad":
        return lib.no_grad()
    if name == "inference_mode":
        return lib.inference_mode()
    return lib.set_grad_enabled(False)


@pytest.mark.parametrize("later", ["direct", "base", "sibling", "detached", "same mode",
                                   "chain", "plain"])
@pytest.mark.parametrize("base_kind", ["leaf", "non-leaf", "no grad"])
@pytest.mark.parametrize("mode", MODES)
def test_views_made_without_grad_mode_refuse_history_rewrites(mode, base_kind, later):
    def program(lib, note):
        a = lib.tensor([1.0, 2.0, -3.0, 4.0], requires_grad=base_kind != "no grad")
        y = a if base_kind != "non-leaf" else a * 1
        with _mode(lib, mode):
            v = y[1:]
            if later == "chain":
                v = v.unsqueeze(0)
        if later == "chain":
            v = v[:, 1:]  # made in grad mode from a view made without: the mode propagates
        w = lib.tensor([2.0, 3.0, 4.0][-v.shape[-1]:], requires_grad=True)
        note(lambda: (v.requires_grad, _node(v), repr(v)))
        if later in ("direct", "chain", "plain"):
            operand = 2.0 if later == "plain" else w
            note(lambda: _node(v.mul_(operand)))
        elif later == "base":
            note(lambda: _node(y.add_(w.sum())))
        elif later == "sibling":
            note(lambda: _node(y[:2].mul_(w[0])))
        elif later == "detached":
            y.detach().mul_(2)
        else:
            with _mode(lib, mode):
                note(lambda: _node(v.mul_(2)))
        note(lambda: (a.detach().clone(), a._version))
        note(lambda: _node(v))
        note(lambda: repr(v))
        note(lambda: (v.requires_grad, v._version))
        note(lambda: _node(v * w))
        note(lambda: lib.autograd.grad((v * w).sum(), w))

    _same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64"])
@pytest.mark.parametrize("shape, dim", [((3,), 0), ((3,), -1), ((2, 3), 1), ((0, 2), 1)])
def test_unbind_outputs_are_views_of_their_input(dtype, shape, dim):
    def program(lib, note):
        x = lib.ones(shape, dtype=getattr(lib, dtype))
        parts = x.unbind(dim)
        note(lambda: [(p.shape, p.stride(), p._base is x, p.storage_offset()) for p in parts])
        if not parts:
            return
        note(lambda: parts[-1].fill_(0) is not None)
        note(lambda: (x.clone(), x._version, parts[0]._version))
        x.mul_(0) if dtype != "bool" else x.logical_not_()
        note(lambda: [p.clone() for p in parts])
        note(lambda: [p.clone() for p in x])  # Tensor.__iter__ is unbind(0)

    _same(program)


WHOLE = [slice(None), slice(0, None), slice(0, 2), slice(0, 100), slice(None, None, 1), Ellipsis,
         (), (slice(None), slice(None)), (Ellipsis, slice(None)), (slice(None), Ellipsis),
         (Ellipsis, Ellipsis), (slice(None), slice(0, 3)),
         # not the whole tensor: a view, and CopySlices on the base when recorded
         slice(-2, None), slice(1, None), slice(None, -1), slice(None, None, 2), 0, (Ellipsis, 1),
         None, (slice(None), None), (slice(None), slice(0, 2))]
VALUES = {
    "number": lambda lib: 7.0,
    "int number": lambda lib: 3,
    "complex number": lambda lib: 1j,
    "0-d": lambda lib: lib.tensor(-2.0),
    "0-d requiring grad": lambda lib: lib.tensor(-2.0, requires_grad=True),
    "row": lambda lib: lib.tensor([1.0, 2.0, 3.0], requires_grad=True),
    "leading ones": lambda lib: lib.ones(1, 1, 3, requires_grad=True),
    "same shape": lambda lib: lib.full((2, 3), 4.0, requires_grad=True),
    "column": lambda lib: lib.tensor([[5.0], [6.0]], requires_grad=True),
    "int tensor": lambda lib: lib.tensor([1, 2, 3]),
    "too long": lambda lib: lib.ones(4),
    "extra dims": lambda lib: lib.ones(2, 2, 3),
}


@pytest.mark.parametrize("target", ["requires grad", "plain", "int64", "float64 leaf view"])
@pytest.mark.parametrize("value", sorted(VALUES))
@pytest.mark.parametrize("index", WHOLE, ids=repr)
def test_setitem_of_the_whole_tensor_writes_it_as_torch(index, value, target):
    """torch's applySlice returns self for a slice from 0 to the end (and Ellipsis adds no
    view): ``x[:] = v`` is x.fill_(v) (FillBackward3) for a 0-d v and x.copy_(v) (CopyBackwards,
    v viewed and expanded as copy_to does) otherwise, where leafgrad wrote through a view
    (CopySlices); a complex number raises torch's conversion error."""
    def program(lib, note):
        a = lib.tensor([[1.0, 2.0, -1.0], [0.5, -2.0, 3.0]], requires_grad=True)
        if target == "requires grad":
            x = a * 1
        elif target == "plain":
            x = lib.zeros(2, 3)
        elif target == "int64":
            x = lib.zeros(2, 3, dtype=lib.int64)
        else:
            x = lib.zeros(4, 3, dtype=lib.float64)[1:3]
        v = VALUES[value](lib)
        if target == "int64" and value == "0-d requiring grad":
            # torch's fill_ gives the integer tensor a FillBackward3 history (its later ops
            # raise 'Autograd not support dtype: Long'); leafgrad keeps it without history
            return
        note(lambda: x.__setitem__(index, v))
        note(lambda: (x.clone(), x._version, _node(x), x.requires_grad))
        if x.requires_grad:
            leaves = [t for t in (a, v) if isinstance(t, lib.Tensor) and t.requires_grad]
            w = lib.linspace(-1, 1, 6).reshape(2, 3).to(x.dtype)
            note(lambda: lib.autograd.grad((x * w).sum(), leaves, allow_unused=True))

    _same(program)


STRIDED = {
    "every other": ((2,), (2,), 1),
    "2-d window": ((2, 2), (3, 1), 1),
    "transposed": ((3, 2), (1, 3), 0),
    "whole": ((6,), (1,), 0),
    "0-d": ((), (), 4),
}
ROOTS = {
    "sum": lambda y, lib: y.sum(),
    "mean of square": lambda y, lib: (y * y).mean(),
    "weighted": lambda y, lib: (y * lib.linspace(-1, 2, y.numel()).reshape(y.shape)).sum(),
}
WRITES_ON_VIEW = {
    "mul_ by a leaf": lambda v, w: v.mul_(w),
    "add_ of a leaf": lambda v, w: v.add_(w, alpha=-2),
    "copy_ of a leaf": lambda v, w: v.copy_(w),
    "zero_": lambda v, w: v.zero_(),
    "exp_": lambda v, w: v.exp_(),
}


@pytest.mark.parametrize("root", sorted(ROOTS))
@pytest.mark.parametrize("write", sorted(WRITES_ON_VIEW))
@pytest.mark.parametrize("geometry", sorted(STRIDED))
def test_in_place_ops_on_as_strided_views_get_torchs_gradients(geometry, write, root):
    """CopySlices replayed an as_strided view on the incoming gradient, whose memory is not
    the base's (an expanded one-element tensor after sum): the gradient read past its memory
    (garbage such as 1e-40). torch lays the gradient out as the base first."""
    size, stride, offset = STRIDED[geometry]

    def program(lib, note):
        a = lib.tensor([0.5, -1.0, 2.0, 1.5, -0.25, 3.0], requires_grad=True)
        w = lib.tensor(np.linspace(0.5, 1.5, int(np.prod(size))).reshape(size),
                       dtype=lib.float32, requires_grad=True)
        y = a * 1
        WRITES_ON_VIEW[write](y.as_strided(size, stride, offset), w)
        out = ROOTS[root](y.view(2, 3) if geometry == "2-d window" else y, lib)
        note(lambda: lib.autograd.grad(out, [a, w], allow_unused=True, retain_graph=True))
        first = lib.autograd.grad(out, [a, w], create_graph=True, allow_unused=True)
        note(lambda: [_node(g) if g is not None else None for g in first])
        second = sum((g * g).sum() for g in first if g is not None and g.requires_grad)
        if isinstance(second, lib.Tensor):
            note(lambda: lib.autograd.grad(second, [a, w], allow_unused=True))

    _same(program)


@pytest.mark.parametrize("view", sorted(set(VIEWS) - {"expand"}))  # (writes into overlapping
@pytest.mark.parametrize("write", sorted(WRITES_ON_VIEW))               # memory: not here)
def test_second_derivatives_through_in_place_ops_on_views(view, write):
    """Generated-program seed 19226: x2's first gradient came through CopySlices' recorded
    steps (a base-strided copy, as_strided, copy_): the second derivative for x1 through them
    was garbage after its first element."""
    def program(lib, note):
        a = lib.tensor(np.arange(6.0).reshape(2, 3) / 4 - 0.5, requires_grad=True)
        y = a * 1
        v = VIEWS[view](y)
        w = lib.tensor(np.linspace(-1, 1, v.numel()).reshape(v.shape), dtype=lib.float32,
                       requires_grad=True)
        WRITES_ON_VIEW[write](v, w)
        first = lib.autograd.grad(y.sum(), [a, w], create_graph=True, allow_unused=True)
        note(lambda: [_node(g) if g is not None else None for g in first])
        total = sum(g.sum() for g in first if g is not None and g.requires_grad)
        if isinstance(total, lib.Tensor):
            note(lambda: lib.autograd.grad(total, [a, w], allow_unused=True))

    _same(program)


@pytest.mark.parametrize("how", ["direct", "base", "sibling", "read"])
@pytest.mark.parametrize("returns", ["a view", "its input", "a view of a view"])
def test_views_returned_by_custom_functions_refuse_in_place_ops(returns, how):
    """torch's CreationMeta::IN_CUSTOM_FUNCTION: a view an autograd.Function returns (or an
    input returned as it is) may not be modified in place, nor read after its base was."""
    def program(lib, note):
        class Fn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if returns == "its input":
                    return x
                view = x.view(-1)[1:]
                return view[1:] if returns == "a view of a view" else view

            @staticmethod
            def backward(ctx, g):
                return g.new_ones(2, 2) * g.sum()

        a = lib.tensor([[1.0, 2.0], [3.0, -4.0]], requires_grad=True)
        y = a * 1
        v = Fn.apply(y)
        note(lambda: (_node(v), v._base is y, v.requires_grad))
        if how == "direct":
            note(lambda: _node(v.mul_(2)))
        elif how == "base":
            note(lambda: _node(y.mul_(2)))
        elif how == "sibling":
            note(lambda: _node(y[0].add_(1)))
        note(lambda: (_node(v), repr(v)))
        note(lambda: lib.autograd.grad(v.sum(), a))

    _same(program)


# (as_strided_ on a view is left out: leafgrad counts its offset from the view's first element,
# torch from the storage's)
@pytest.mark.parametrize("op", ["t_", "transpose_", "unsqueeze_", "squeeze_"])
def test_in_place_view_ops_on_views_keep_their_node_and_geometry(op):
    """t_() and the like on a view record their own node (TBackward1...), current at the
    version they bump; a later regeneration replays the new geometry."""
    calls = {"t_": lambda v: v.t_(), "transpose_": lambda v: v.transpose_(0, 1),
             "unsqueeze_": lambda v: v.unsqueeze_(0), "squeeze_": lambda v: v.squeeze_()}

    def program(lib, note):
        a = lib.tensor(np.arange(12.0).reshape(4, 3) - 5, requires_grad=True)
        y = a * 1
        v = y[1:3]
        note(lambda: _node(calls[op](v)))
        note(lambda: (v.shape, v.stride(), v._version))
        with lib.no_grad():
            y.mul_(2)
        note(lambda: (_node(v), v.clone()))
        note(lambda: lib.autograd.grad((v * v).sum(), a))

    _same(program)
