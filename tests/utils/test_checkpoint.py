"""leafgrad.utils.checkpoint (issue 7 item 8): gradients identical to the plain function's,
dropout masks identical on recomputation, saved activations really dropped, and torch's
warnings, errors and return values for both variants (differential programs)."""

from __future__ import annotations

import gc
import importlib
import warnings
import weakref

import numpy as np
import pytest

import leafgrad
from leafgrad.utils.checkpoint import checkpoint, checkpoint_sequential

from .._torch import require_torch
from ..autograd._differential import observe

torch = require_torch()


def _checkpoint_module(lib):
    return importlib.import_module(lib.__name__ + ".utils.checkpoint")


def _rounded(t):
    return None if t is None else [round(v, 4) for v in t.detach().double().reshape(-1).tolist()]


# -- same gradients, same random draws ----------------------------------------------------------
def _mlp(dtype, dropout: float):
    layers = []
    for _ in range(3):
        layers += [leafgrad.nn.Linear(6, 6), leafgrad.nn.Tanh(), leafgrad.nn.Dropout(dropout)]
    return leafgrad.nn.Sequential(*layers, leafgrad.nn.Linear(6, 1)).to(dtype)


def _grads(net, x):
    return [x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in net.parameters()]


@pytest.mark.parametrize("dtype", [leafgrad.float32, leafgrad.float64])
@pytest.mark.parametrize("how", ["non-reentrant", "reentrant", "sequential-non-reentrant",
                                 "sequential-reentrant"])
def test_gradients_identical_to_no_checkpointing(how, dtype):
    leafgrad.manual_seed(0)
    net = _mlp(dtype, dropout=0.3)
    x = leafgrad.randn(5, 6, dtype=dtype, requires_grad=True)

    leafgrad.manual_seed(7)
    net(x).sum().backward()
    plain = _grads(net, x)
    after_plain = leafgrad.rand(3)  # the caller's stream continues where the forward left it

    net.zero_grad()
    x.grad = None
    leafgrad.manual_seed(7)
    reentrant = how.endswith("-reentrant") and not how.endswith("non-reentrant")
    if how.startswith("sequential"):
        out = checkpoint_sequential(net, 3, x, use_reentrant=reentrant)
    else:
        out = checkpoint(net, x, use_reentrant=how == "reentrant")
    after_checkpointed_forward = leafgrad.rand(3)
    out.sum().backward()
    for got, expected in zip(_grads(net, x), plain, strict=True):
        np.testing.assert_array_equal(got, expected)
    # the recomputation restored the caller's generator state afterwards
    np.testing.assert_array_equal(after_checkpointed_forward.numpy(), after_plain.numpy())


def test_dropout_mask_is_the_same_on_recomputation():
    masks = []

    def body(t):
        out = leafgrad.nn.functional.dropout(t, 0.5)
        masks.append((out != 0).numpy().copy())
        return out * 3

    x = leafgrad.ones(200, requires_grad=True)
    # early_stop=False: the recomputation runs to the end (else it stops inside dropout, at the
    # last tensor the forward saved, before `masks.append`)
    checkpoint(body, x, use_reentrant=False, early_stop=False).sum().backward()
    assert len(masks) == 2
    np.testing.assert_array_equal(masks[0], masks[1])
    np.testing.assert_array_equal(x.grad.numpy(), masks[0] * 6.0)


def test_without_preserving_rng_state_the_mask_is_drawn_again():
    masks = []

    def body(t):
        out = leafgrad.nn.functional.dropout(t, 0.5)
        masks.append((out != 0).numpy().copy())
        return out

    x = leafgrad.ones(200, requires_grad=True)
    checkpoint(body, x, use_reentrant=False, preserve_rng_state=False,
               early_stop=False).sum().backward()
    assert not np.array_equal(masks[0], masks[1])  # 2**-200 chance of a false failure


@pytest.mark.parametrize("reentrant", [False, True])
def test_activations_are_not_kept_and_the_function_runs_twice(reentrant):
    calls = []
    inner = []

    def body(t):
        calls.append(1)
        hidden = t.exp()
        inner.append(weakref.ref(hidden))
        return hidden.sin()  # sin saves its input: `hidden`

    x = leafgrad.ones(4, requires_grad=True)
    y = checkpoint(body, x, use_reentrant=reentrant)
    gc.collect()
    assert inner[0]() is None  # the forward kept nothing of `hidden`
    y.sum().backward()
    assert len(calls) == 2
    np.testing.assert_allclose(x.grad.numpy(), np.cos(np.exp(np.ones(4))) * np.exp(np.ones(4)),
                               rtol=1e-6)

    plain = body(x)  # without checkpoint the graph keeps it
    gc.collect()
    assert inner[-1]() is not None
    del plain


def test_double_backward_through_non_reentrant_checkpoint():
    x = leafgrad.tensor([0.3, -1.2, 2.0], dtype=leafgrad.float64, requires_grad=True)
    y = checkpoint(lambda t: (t.exp() * t.sin()).sum(), x, use_reentrant=False)
    (g,) = leafgrad.autograd.grad(y, x, create_graph=True)
    (gg,) = leafgrad.autograd.grad(g.sum(), x)
    xs = x.detach().numpy()
    # d/dx e^x sin x = e^x (sin x + cos x); again: 2 e^x cos x
    np.testing.assert_allclose(g.detach().numpy(), np.exp(xs) * (np.sin(xs) + np.cos(xs)))
    np.testing.assert_allclose(gg.numpy(), 2 * np.exp(xs) * np.cos(xs))


# -- compared with torch ------------------------------------------------------------------------
PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


@program
def warnings_given(lib, note):
    ck = _checkpoint_module(lib)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        x = lib.ones(2, requires_grad=True)
        ck.checkpoint(lambda t: t * 2, x)
        ck.checkpoint(lambda t: t * 2, lib.ones(2), use_reentrant=True)
        ck.checkpoint(lambda t: t * 2, lib.ones(2), use_reentrant=False)
        ck.checkpoint_sequential([lambda t: t * 2], 1, x)
    note(lambda: [(w.category.__name__, str(w.message)) for w in seen])


@program
def argument_errors(lib, note):
    ck = _checkpoint_module(lib)
    x = lib.ones(2, requires_grad=True)
    note(lambda: ck.checkpoint(lambda t, s: t * s, x, s=2, use_reentrant=True))
    note(lambda: _rounded(ck.checkpoint(lambda t, s: t * s, x, s=2, use_reentrant=False)))
    note(lambda: ck.checkpoint(lambda t: t, x, use_reentrant=True, debug=True))
    note(lambda: ck.checkpoint(lambda t: t, x, use_reentrant=True, context_fn=lambda: None))
    note(lambda: ck.checkpoint(lambda t: t, x, use_reentrant=False, determinism_check="x"))
    note(lambda: ck.checkpoint(lambda t: t, x, use_reentrant=False, debug=True,
                               context_fn=lambda: ck.noop_context_fn()))
    note(lambda: ck.checkpoint_sequential([lambda t: t], 1, x, use_reentrant=False, foo=1))
    note(lambda: ck.detach_variable([x]))
    note(lambda: [t.requires_grad for t in ck.detach_variable((x, lib.ones(1)))])
    note(lambda: issubclass(ck.CheckpointError, RuntimeError))


@program
def reentrant_refuses_partial_backward(lib, note):
    ck = _checkpoint_module(lib)
    x = lib.ones(2, requires_grad=True)
    y = ck.checkpoint(lambda t: t.exp() * 2, x, use_reentrant=True)
    note(lambda: lib.autograd.grad(y.sum(), x))
    y = ck.checkpoint(lambda t: t.exp() * 2, x, use_reentrant=True)
    note(lambda: y.sum().backward(inputs=[x]))
    y = ck.checkpoint(lambda t: t.exp() * 2, x, use_reentrant=False)
    note(lambda: _rounded(lib.autograd.grad(y.sum(), x)[0]))
    y = ck.checkpoint(lambda t: (t * 2, t.detach()), x, use_reentrant=True)
    note(lambda: [o.requires_grad for o in y])
    y = ck.checkpoint(lambda t: t.detach() * 2, x, use_reentrant=True)
    note(lambda: y.sum().backward())


@program
def recomputation_mismatches(lib, note):
    ck = _checkpoint_module(lib)
    x = lib.ones(2, requires_grad=True)
    state = {"calls": 0}

    def changing(first, later):
        def run(t):
            state["calls"] += 1
            return first(t) if state["calls"] == 1 else later(t)

        return run

    state["calls"] = 0
    y = ck.checkpoint(changing(lambda t: t.exp(), lambda t: t.exp().exp()), x,
                      use_reentrant=False)
    note(lambda: y.sum().backward())  # early stop: the extra save is never reached
    note(lambda: _rounded(x.grad))
    state["calls"] = 0
    with ck.set_checkpoint_early_stop(False):
        y = ck.checkpoint(changing(lambda t: t.exp(), lambda t: t.exp().exp()), x,
                          use_reentrant=False)
    note(lambda: y.sum().backward())
    state["calls"] = 0
    y = ck.checkpoint(changing(lambda t: (t * t).exp(), lambda t: t.exp() + 1), x,
                      use_reentrant=False)
    note(lambda: y.sum().backward())
    state["calls"] = 0
    y = ck.checkpoint(changing(lambda t: t.exp(), lambda t: t[:1].exp()), x,
                      use_reentrant=False)
    note(lambda: y.sum().backward())
    state["calls"] = 0
    y = ck.checkpoint(changing(lambda t: t.exp(), lambda t: t.double().exp()), x,
                      use_reentrant=False)
    note(lambda: y.sum().backward())
    state["calls"] = 0
    y = ck.checkpoint(changing(lambda t: t.exp(), lambda t: t[:1].exp()), x,
                      use_reentrant=False, determinism_check="none")
    note(lambda: y.sum().backward())


@program
def backward_twice_and_saved_access(lib, note):
    ck = _checkpoint_module(lib)
    x = lib.ones(2, requires_grad=True)
    calls = []

    def body(t):
        calls.append(1)
        return t.exp() * t

    y = ck.checkpoint(body, x, use_reentrant=False)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    note(lambda: (_rounded(x.grad), len(calls)))
    y = ck.checkpoint(body, x, use_reentrant=True)
    y.sum().backward(retain_graph=True)
    note(lambda: y.sum().backward())
    y = ck.checkpoint(lambda t: t.exp(), x, use_reentrant=False)
    note(lambda: _rounded(y.grad_fn._saved_result))

    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            ctx.saved_tensors
            (a,) = ctx.saved_tensors
            return g * a

    y = ck.checkpoint(lambda t: Twice.apply(t), x, use_reentrant=False)
    note(lambda: y.sum().backward())


@program
def grad_mode_and_outputs(lib, note):
    ck = _checkpoint_module(lib)
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        note(lambda: ck.checkpoint(lambda t: t * 2, x, use_reentrant=False).requires_grad)
        note(lambda: ck.checkpoint(lambda t: t * 2, x, use_reentrant=True).requires_grad)
    y = ck.checkpoint(lambda t: t * 2, x, use_reentrant=False)
    note(lambda: y.grad_fn.name())
    y = ck.checkpoint(lambda t: t * 2, x, use_reentrant=True)
    note(lambda: y.grad_fn.name())
    note(lambda: ck.checkpoint_sequential(
        lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh()), 2, lib.ones(1, 2),
        use_reentrant=False).shape)

    def contexts():
        events = []

        class Tag:
            def __init__(self, name):
                self.name = name

            def __enter__(self):
                events.append("enter " + self.name)

            def __exit__(self, *exc):
                events.append("exit " + self.name)

        return events, (lambda: (Tag("forward"), Tag("recompute")))

    events, context_fn = contexts()
    y = ck.checkpoint(lambda t: t.exp(), x, use_reentrant=False, context_fn=context_fn)
    y.sum().backward()
    note(lambda: events)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_torch(name):
    assert observe(PROGRAMS[name], leafgrad) == observe(PROGRAMS[name], torch)


@pytest.mark.parametrize("reentrant", [False, True])
def test_segment_inputs_are_freed_during_backward(reentrant):
    # Each checkpointed segment's input is released once its segment's backward has run, not
    # at the end: a Function's ctx.to_save used to keep it (torch sets it to None once saved).
    seen = []

    def segment(t):
        return (t * 2).relu()

    x = leafgrad.ones(8, requires_grad=True)
    hidden = [x]
    for _ in range(3):
        hidden.append(checkpoint(segment, hidden[-1], use_reentrant=reentrant))
    refs = [weakref.ref(h) for h in hidden[1:-1]]
    loss = hidden[-1].sum()
    del hidden

    def check(grad):
        gc.collect()
        seen.append([ref() is None for ref in refs])

    x.register_hook(check)
    loss.backward()
    assert seen == [[True, True]]


def test_function_to_save_is_none_after_forward_as_in_torch():
    def program(lib, note):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        y = Double.apply(lib.ones(2, requires_grad=True))
        note(lambda: y.grad_fn.to_save)

    assert observe(program, leafgrad) == observe(program, torch)


# -- normalisation layers inside a non-reentrant checkpoint (torchvision's memory-efficient
# DenseNet): their backward used the saved input twice and the checkpoint refused the second
# unpack ("already unpacked once"). Gradients are compared with torch's.
NORM_LAYERS = {
    "batch_norm_1d": (lambda lib: lib.nn.BatchNorm1d(3), (4, 3, 5)),
    "batch_norm_2d": (lambda lib: lib.nn.BatchNorm2d(3), (2, 3, 4, 4)),
    "batch_norm_no_affine": (lambda lib: lib.nn.BatchNorm1d(3, affine=False), (4, 3)),
    "layer_norm": (lambda lib: lib.nn.LayerNorm(5), (4, 3, 5)),
    "group_norm": (lambda lib: lib.nn.GroupNorm(3, 6), (2, 6, 4)),
    "instance_norm": (lambda lib: lib.nn.InstanceNorm1d(3, affine=True), (2, 3, 5)),
}


def _norm_inside_checkpoint(lib, layer_name, reentrant, input_grad, train_params):
    lib.manual_seed(0)
    make, shape = NORM_LAYERS[layer_name]
    layer = make(lib).double()
    for parameter in layer.parameters():
        parameter.requires_grad_(train_params)
        with lib.no_grad():
            parameter.uniform_(0.5, 1.5)
    conv = lib.nn.Linear(shape[-1], shape[-1]).double()
    x = lib.randn(*shape, dtype=lib.float64, requires_grad=input_grad)
    out = _checkpoint_module(lib).checkpoint(
        lambda t: layer(conv(t)).tanh(), x, use_reentrant=reentrant)
    (out * lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape)).sum().backward()
    grads = [x.grad] + [p.grad for p in list(layer.parameters()) + list(conv.parameters())]
    buffers = [b.clone() for b in layer.buffers() if b.dtype == lib.float64]
    return [None if g is None else g.numpy() for g in grads], [b.numpy() for b in buffers]


# (the reentrant form's output requires grad only through its inputs: with none requiring
# grad torch's backward raises, a case the reentrant tests above cover)
@pytest.mark.parametrize("reentrant,input_grad,train_params", [
    (False, True, True), (False, True, False), (False, False, True), (True, True, True),
    (True, True, False)])
@pytest.mark.parametrize("layer_name", sorted(NORM_LAYERS))
def test_normalisation_inside_checkpoint_matches_torch(layer_name, reentrant, input_grad,
                                                       train_params):
    ours = _norm_inside_checkpoint(leafgrad, layer_name, reentrant, input_grad, train_params)
    theirs = _norm_inside_checkpoint(torch, layer_name, reentrant, input_grad, train_params)
    for mine, reference in zip(ours[0] + ours[1], theirs[0] + theirs[1], strict=True):
        assert (mine is None) == (reference is None)
        if reference is not None:
            np.testing.assert_allclose(mine, reference, rtol=1e-10, atol=1e-12)
