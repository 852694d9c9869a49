"""What a create_graph backward of an nn op records, against torch 2.13.

For each op and every subset of its differentiable inputs: the first derivatives (taken with
create_graph=True from a loss whose incoming gradient itself depends on the inputs) have
torch's requires_grad, grad_fn name and next_functions (two levels of names); the second
derivatives (of ``sum(g_i * v_i)`` in every input, unused ones None as in torch) equal
torch's in float64 and float32; gradgradcheck (float64) of the first derivatives checks the
second and third derivatives against finite differences; an empty batch behaves as torch's.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import gradgradcheck
from tests._torch import require_torch

torch = require_torch()


def _F(lib):
    return lib.nn.functional


def _long(lib, values):
    return lib.tensor(values)


def _seeded_rrelu(lib, x):
    lib.manual_seed(0)  # the same slopes on every call (gradgradcheck re-runs it)
    return _F(lib).rrelu(x, 0.1, 0.3, training=True)


# name: (call(lib, *tensors), ((shape, domain), ...), differentiable indices)
# domains: "any" normal, "unit" uniform in (0.1, 0.9) (probabilities), "pos" in (0.5, 1.5)
A, U = "any", "unit"
CASES = {
    "conv1d": (lambda lib, x, w, b: _F(lib).conv1d(x, w, b, stride=2, padding=1),
               (((2, 3, 7), A), ((4, 3, 3), A), ((4,), A)), (0, 1, 2)),
    "conv2d": (lambda lib, x, w, b: _F(lib).conv2d(x, w, b, padding=1),
               (((2, 2, 4, 4), A), ((3, 2, 3, 3), A), ((3,), A)), (0, 1, 2)),
    "conv2d_grouped": (lambda lib, x, w: _F(lib).conv2d(x, w, stride=2, dilation=2, groups=2),
                       (((1, 4, 6, 6), A), ((4, 2, 2, 2), A)), (0, 1)),
    "conv3d": (lambda lib, x, w, b: _F(lib).conv3d(x, w, b),
               (((1, 2, 3, 3, 3), A), ((2, 2, 2, 2, 2), A), ((2,), A)), (0, 1, 2)),
    "conv_transpose1d": (lambda lib, x, w, b: _F(lib).conv_transpose1d(x, w, b, stride=2),
                         (((2, 3, 4), A), ((3, 2, 3), A), ((2,), A)), (0, 1, 2)),
    # (with output_padding torch's third derivative raises "output_padding is not supported for
    # non-transposed convolutions"; leafgrad's gradgradcheck passes there too)
    "conv_transpose2d": (lambda lib, x, w, b: _F(lib).conv_transpose2d(
        x, w, b, stride=2, padding=1),
        (((1, 2, 3, 3), A), ((2, 3, 3, 3), A), ((3,), A)), (0, 1, 2)),
    "conv_transpose3d": (lambda lib, x, w: _F(lib).conv_transpose3d(x, w, groups=2),
                         (((1, 2, 2, 2, 2), A), ((2, 1, 2, 2, 2), A)), (0, 1)),
    "max_pool1d": (lambda lib, x: _F(lib).max_pool1d(x, 2), (((2, 3, 6), A),), (0,)),
    "max_pool2d": (lambda lib, x: _F(lib).max_pool2d(x, 3, 2, 1), (((2, 2, 5, 5), A),), (0,)),
    "max_pool3d": (lambda lib, x: _F(lib).max_pool3d(x, 2), (((1, 2, 4, 4, 4), A),), (0,)),
    "avg_pool1d": (lambda lib, x: _F(lib).avg_pool1d(x, 2), (((2, 3, 6), A),), (0,)),
    "avg_pool2d": (lambda lib, x: _F(lib).avg_pool2d(x, 2, padding=1), (((2, 2, 5, 5), A),),
                   (0,)),
    "avg_pool3d": (lambda lib, x: _F(lib).avg_pool3d(x, 2), (((1, 2, 4, 4, 4), A),), (0,)),
    "adaptive_avg_pool1d": (lambda lib, x: _F(lib).adaptive_avg_pool1d(x, 3),
                            (((2, 3, 7), A),), (0,)),
    "adaptive_avg_pool2d": (lambda lib, x: _F(lib).adaptive_avg_pool2d(x, 3),
                            (((2, 2, 5, 5), A),), (0,)),
    "adaptive_avg_pool3d": (lambda lib, x: _F(lib).adaptive_avg_pool3d(x, 2),
                            (((1, 2, 3, 3, 3), A),), (0,)),
    "adaptive_max_pool1d": (lambda lib, x: _F(lib).adaptive_max_pool1d(x, 3),
                            (((2, 3, 7), A),), (0,)),
    "adaptive_max_pool2d": (lambda lib, x: _F(lib).adaptive_max_pool2d(x, 3),
                            (((2, 2, 5, 5), A),), (0,)),
    "adaptive_max_pool3d": (lambda lib, x: _F(lib).adaptive_max_pool3d(x, 2),
                            (((1, 2, 3, 3, 3), A),), (0,)),
    "interpolate_area": (lambda lib, x: _F(lib).interpolate(x, size=3, mode="area"),
                         (((2, 2, 5, 5), A),), (0,)),
    "reflection_pad1d": (lambda lib, x: _F(lib).pad(x, (2, 1), mode="reflect"),
                         (((2, 3, 5), A),), (0,)),
    "reflection_pad2d": (lambda lib, x: _F(lib).pad(x, (1, 2, 2, 1), mode="reflect"),
                         (((1, 2, 4, 4), A),), (0,)),
    "replication_pad2d": (lambda lib, x: _F(lib).pad(x, (1, 2, 2, 1), mode="replicate"),
                          (((1, 2, 4, 4), A),), (0,)),
    "replication_pad3d": (lambda lib, x: _F(lib).pad(x, (1, 1, 0, 1, 1, 0), mode="replicate"),
                          (((1, 2, 3, 3, 3), A),), (0,)),
    "nll_loss": (lambda lib, x: _F(lib).nll_loss(x, _long(lib, [0, 2, 1, 2])),
                 (((4, 3), A),), (0,)),
    "nll_loss_weight_sum": (lambda lib, x: _F(lib).nll_loss(
        x, _long(lib, [0, 2, -100, 2]), weight=lib.tensor([0.5, 1.0, 2.0], dtype=x.dtype),
        reduction="sum"), (((4, 3), A),), (0,)),
    "nll_loss2d": (lambda lib, x: _F(lib).nll_loss(x, _long(lib, [[[0, 1], [2, 2]]]),
                                                   reduction="none"),
                   (((1, 3, 2, 2), A),), (0,)),
    "cross_entropy": (lambda lib, x: _F(lib).cross_entropy(x, _long(lib, [0, 2, 1, 2])),
                      (((4, 3), A),), (0,)),
    "mse_loss": (lambda lib, x, t: _F(lib).mse_loss(x, t), (((3, 4), A), ((3, 4), A)), (0, 1)),
    "mse_loss_none_broadcast": (lambda lib, x, t: _F(lib).mse_loss(x, t.expand(3, 4),
                                                                  reduction="none"),
                                (((3, 4), A), ((1, 4), A)), (0, 1)),
    "smooth_l1_loss": (lambda lib, x, t: _F(lib).smooth_l1_loss(x, t, beta=0.7, reduction="sum"),
                       (((3, 4), A), ((3, 4), A)), (0, 1)),
    "huber_loss": (lambda lib, x, t: _F(lib).huber_loss(x, t, delta=0.6),
                   (((3, 4), A), ((3, 4), A)), (0, 1)),
    "huber_loss_none": (lambda lib, x, t: _F(lib).huber_loss(x, t, reduction="none"),
                        (((3, 4), A), ((3, 4), A)), (0, 1)),
    "binary_cross_entropy": (lambda lib, x, t: _F(lib).binary_cross_entropy(x, t),
                             (((3, 4), U), ((3, 4), U)), (0, 1)),
    "binary_cross_entropy_weight_sum": (lambda lib, x, t: _F(lib).binary_cross_entropy(
        x, t, weight=lib.tensor([0.5, 1.0, 2.0, 0.3], dtype=x.dtype), reduction="sum"),
        (((3, 4), U), ((3, 4), U)), (0, 1)),
    "binary_cross_entropy_none": (lambda lib, x, t: _F(lib).binary_cross_entropy(
        x, t, reduction="none"), (((3, 4), U), ((3, 4), U)), (0, 1)),
    "batch_norm": (lambda lib, x, w, b: _F(lib).batch_norm(x, None, None, w, b, training=True),
                   (((4, 3, 2), A), ((3,), A), ((3,), A)), (0, 1, 2)),
    "batch_norm_running": (lambda lib, x, w, b: _F(lib).batch_norm(
        x, lib.zeros(3, dtype=x.dtype), lib.ones(3, dtype=x.dtype), w, b, training=True),
        (((4, 3, 2, 2), A), ((3,), A), ((3,), A)), (0, 1, 2)),
    "batch_norm_eval": (lambda lib, x, w, b: _F(lib).batch_norm(
        x, lib.tensor([0.1, -0.2, 0.3], dtype=x.dtype),
        lib.tensor([1.0, 2.0, 0.5], dtype=x.dtype), w, b),
        (((4, 3, 2), A), ((3,), A), ((3,), A)), (0, 1, 2)),
    "layer_norm": (lambda lib, x, w, b: _F(lib).layer_norm(x, (2, 3), w, b),
                   (((2, 2, 3), A), ((2, 3), A), ((2, 3), A)), (0, 1, 2)),
    "layer_norm_no_affine": (lambda lib, x: _F(lib).layer_norm(x, (4,)), (((3, 4), A),), (0,)),
    "softplus": (lambda lib, x: _F(lib).softplus(x, 2.0, 1.5), (((3, 4), A),), (0,)),
    "silu": (lambda lib, x: _F(lib).silu(x), (((3, 4), A),), (0,)),
    "hardswish": (lambda lib, x: _F(lib).hardswish(x * 4), (((3, 4), A),), (0,)),
    "logsigmoid": (lambda lib, x: _F(lib).logsigmoid(x), (((3, 4), A),), (0,)),
    "multilabel_soft_margin_loss": (lambda lib, x: _F(lib).multilabel_soft_margin_loss(
        x, lib.tensor([[1.0, 0.0, 1.0, 0.0]] * 3, dtype=x.dtype)), (((3, 4), A),), (0,)),
    "glu": (lambda lib, x: _F(lib).glu(x, 1), (((2, 4, 3), A),), (0,)),
    "prelu": (lambda lib, x, w: _F(lib).prelu(x, w), (((2, 3, 4), A), ((3,), A)), (0, 1)),
    "rrelu_eval": (lambda lib, x: _F(lib).rrelu(x, 0.1, 0.3), (((3, 4), A),), (0,)),
    "rrelu_inplace": (lambda lib, x: _F(lib).rrelu_(x * 1, 0.1, 0.3), (((3, 4), A),), (0,)),
    "rrelu_training": (lambda lib, x: _seeded_rrelu(lib, x), (((3, 4), A),), (0,)),
    "prelu_single_weight": (lambda lib, x, w: _F(lib).prelu(x, w), (((2, 3), A), ((1,), A)),
                            (0, 1)),
}

# torch's third derivatives of layer_norm and training-mode batch_norm (the backwards of
# layer_norm_double_backward / batchnorm_double_backward) disagree with finite differences;
# leafgrad's agree (gradgradcheck below), so those are compared with torch nowhere else.
TORCH_THIRD_DERIVATIVE_WRONG = {"layer_norm", "layer_norm_no_affine", "batch_norm",
                                "batch_norm_running"}


def _values(shape, domain, rng):
    if domain == U:
        return rng.uniform(0.1, 0.9, shape)
    return rng.standard_normal(shape)


def _arrays(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    return [_values(shape, domain, rng) for shape, domain in CASES[name][1]]


def _names(fn, depth=2):
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), tuple(_names(child, depth - 1) for child, _ in fn.next_functions))


def _loss(lib, out):
    # a loss whose incoming gradient depends on the inputs (2 * out): the second derivative
    # then also flows through grad_output
    return (out * out).sum() + out.sum()


def _first(lib, name, tensors, subset):
    call = CASES[name][0]
    out = call(lib, *tensors)
    return lib.autograd.grad(_loss(lib, out), [tensors[i] for i in subset], create_graph=True)


def _run(lib, name, subset, dtype):
    tensors = [lib.tensor(a, dtype=dtype, requires_grad=i in subset)
               for i, a in enumerate(_arrays(name))]
    firsts = _first(lib, name, tensors, subset)
    record = {
        "first": [g.detach().numpy() for g in firsts],
        "requires_grad": [g.requires_grad for g in firsts],
        "nodes": [_names(g.grad_fn) for g in firsts],
    }
    rng = np.random.default_rng(7)
    total = None
    for g in firsts:
        if g.requires_grad:
            term = (g * lib.tensor(rng.standard_normal(tuple(g.shape)), dtype=dtype)).sum()
            total = term if total is None else total + term
    if total is None:
        return record
    seconds = lib.autograd.grad(total, [tensors[i] for i in subset], create_graph=True,
                                allow_unused=True)
    record["second"] = [None if s is None else s.detach().numpy() for s in seconds]
    third_from = [s for s in seconds if s is not None and s.requires_grad]
    if third_from and name not in TORCH_THIRD_DERIVATIVE_WRONG:
        third = lib.autograd.grad(sum((s * s).sum() for s in third_from),
                                  [tensors[i] for i in subset], allow_unused=True)
        record["third"] = [None if t is None else t.numpy() for t in third]
    return record


def _subsets(name):
    indices = CASES[name][2]
    return [subset for k in range(1, len(indices) + 1)
            for subset in itertools.combinations(indices, k)]


PARAMS = [pytest.param(name, subset, id=f"{name}-{''.join(map(str, subset))}")
          for name in CASES for subset in _subsets(name)]


def _assert_close(got, want, rtol, atol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name, subset", PARAMS)
def test_nodes_and_values_match_torch(name, subset):
    got = _run(lg, name, subset, lg.float64)
    want = _run(torch, name, subset, torch.float64)
    assert got["requires_grad"] == want["requires_grad"]
    assert got["nodes"] == want["nodes"]
    assert got.keys() == want.keys()
    for key in ("first", "second", "third"):
        if key in want:
            _assert_close(got[key], want[key], 1e-7, 1e-9)


@pytest.mark.parametrize("name", list(CASES))
def test_float32_values_match_torch(name):
    subset = CASES[name][2]
    got = _run(lg, name, subset, lg.float32)
    want = _run(torch, name, subset, torch.float32)
    assert got["nodes"] == want["nodes"]
    for key in ("first", "second", "third"):
        if key in want:
            # float32 sums of products: an element's error is relative to the largest ones
            largest = max((float(np.abs(w).max()) for w in want[key] if w is not None and w.size),
                          default=1.0)
            _assert_close(got[key], want[key], 2e-4, 2e-5 * max(1.0, largest))


@pytest.mark.parametrize("name", list(CASES))
def test_gradgradcheck_of_first_derivatives(name):
    """Second and third derivatives against finite differences (float64)."""
    subset = CASES[name][2]
    arrays = _arrays(name)
    tensors = [lg.tensor(a, dtype=lg.float64, requires_grad=i in subset)
               for i, a in enumerate(arrays)]

    def first(*inputs):
        full = list(tensors)
        for i, value in zip(subset, inputs):
            full[i] = value
        return tuple(_first(lg, name, full, subset))

    assert gradgradcheck(first, [tensors[i] for i in subset])


EMPTY = {
    "conv2d": (lambda lib, x, w: _F(lib).conv2d(x, w), ((0, 2, 4, 4), (3, 2, 3, 3))),
    "max_pool2d": (lambda lib, x: _F(lib).max_pool2d(x, 2), ((0, 2, 4, 4),)),
    "avg_pool2d": (lambda lib, x: _F(lib).avg_pool2d(x, 2), ((0, 2, 4, 4),)),
    "mse_loss_sum": (lambda lib, x, t: _F(lib).mse_loss(x, t, reduction="sum"), ((0, 3), (0, 3))),
    "layer_norm": (lambda lib, x, w: _F(lib).layer_norm(x, (3,), w), ((0, 3), (3,))),
    "nll_loss_sum": (lambda lib, x: _F(lib).nll_loss(x, lib.zeros(0, dtype=lib.int64),
                                                     reduction="sum"), ((0, 3),)),
}


def _run_empty(lib, name):
    call, shapes = EMPTY[name]
    tensors = [lib.ones(shape, dtype=lib.float64, requires_grad=True) for shape in shapes]
    try:
        out = call(lib, *tensors)
        firsts = lib.autograd.grad(_loss(lib, out), tensors, create_graph=True)
        nodes = [_names(g.grad_fn) for g in firsts]
        seconds = lib.autograd.grad(sum(g.sum() for g in firsts), tensors, allow_unused=True)
    except RuntimeError as error:
        return type(error).__name__, str(error).splitlines()[0]
    return (nodes, [tuple(g.shape) for g in firsts],
            [None if s is None else (tuple(s.shape), float(s.sum())) for s in seconds])


@pytest.mark.parametrize("name", list(EMPTY))
def test_empty_batch_matches_torch(name):
    assert _run_empty(lg, name) == _run_empty(torch, name)


def test_plain_backward_unchanged_by_create_graph_nodes():
    """Without create_graph the conv / norm / loss backwards record nothing and give the same
    gradients as with it (the node is only for a recorded backward)."""
    arrays = _arrays("conv2d")
    values = []
    for create in (False, True):
        x, w, b = (lg.tensor(a, requires_grad=True) for a in arrays)
        out = _F(lg).batch_norm(_F(lg).conv2d(x, w, b, padding=1), None, None, training=True)
        grads = lg.autograd.grad(_F(lg).mse_loss(out, lg.zeros_like(out)), (x, w, b),
                                 create_graph=create)
        assert all(g.requires_grad == create for g in grads)
        values.append([g.detach().numpy() for g in grads])
    for plain, recorded in zip(*values):
        np.testing.assert_array_equal(plain, recorded)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_bce_target_gradient_alone(reduction):
    """The weight scales the target's gradient also when the input needs none (it was only
    saved for the input's gradient: the target's came out unweighted)."""
    results = []
    for lib in (lg, torch):
        x = lib.tensor([[0.3, 0.6], [0.2, 0.7]], dtype=lib.float64)
        target = lib.tensor([[0.2, 0.9], [0.5, 0.1]], dtype=lib.float64, requires_grad=True)
        weight = lib.tensor([2.0, 3.0], dtype=lib.float64)
        loss = _F(lib).binary_cross_entropy(x, target, weight=weight, reduction=reduction)
        loss.backward(lib.ones_like(loss))
        results.append(target.grad.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def _not_implemented_outcome(lib, scale):
    x = lib.tensor([[-4.0, -1.0, 0.5], [2.0, 3.5, 0.1]], dtype=lib.float64, requires_grad=True)
    out = _F(lib).hardsigmoid(x * scale)
    g, = lib.autograd.grad((out * out).sum(), x, create_graph=True)
    record = [g.requires_grad, _names(g.grad_fn, 2), g.detach().numpy().tolist()]
    try:
        lib.autograd.grad(g.sum(), x)
    except RuntimeError as error:
        record.append(str(error).splitlines()[0])
    return record


@pytest.mark.parametrize("scale", [1.0, 4.0])
def test_hardsigmoid_double_backward_not_implemented_as_torch(scale):
    """torch has no derivative for hardsigmoid_backward: its create_graph gradient hangs off a
    NotImplemented node and differentiating it raises; leafgrad's had no graph (so grad()
    raised 'does not require grad' instead)."""
    got, want = _not_implemented_outcome(lg, scale), _not_implemented_outcome(torch, scale)
    assert got[:2] == want[:2] and got[3:] == want[3:]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-12)
