"""Differences found by running the generated-program comparison (tests/differential) on seeds
33800 and up, each fixed and checked here against torch 2.13 as a class (not the one seed)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _graph(fn, depth=8):
    """A node's name and its inputs' graphs, in next_functions order (AccumulateGrad's name
    differs between the libraries, so leaves are 'leaf')."""
    if fn is None:
        return None
    name = "leaf" if type(fn).__name__ == "AccumulateGrad" else fn.name()
    if depth == 0:
        return name
    return (name, tuple(_graph(child, depth - 1) for child, _ in fn.next_functions))


def _observed(tensors):
    seen = []
    for t in tensors:
        if t is None:
            seen.append(None)
            continue
        data = t.detach().numpy()
        seen.append((str(t.dtype).split(".")[-1], data, _graph(t.grad_fn)))
    return seen


def _assert_same(expected, actual):
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        if e is None or a is None:
            assert e is a
            continue
        assert e[0] == a[0] and e[2] == a[2]
        np.testing.assert_allclose(a[1], e[1], rtol=1e-5, atol=1e-6)
        zeros = (a[1] == 0) & (e[1] == 0)
        assert np.array_equal(np.signbit(a[1])[zeros], np.signbit(e[1])[zeros])


# -- kl_div: the order of its two terms (seed 34198) -----------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("wants", [(True, True), (True, False), (False, True)])
def test_kl_div_gradients_add_up_in_torchs_order(dtype, reduction, log_target, wants):
    """ATen evaluates the right operand of `xlogy(t, t) - t * input` and `exp(t) * (t - input)`
    first; the engine then runs that node last, so the gradients meeting at the target add up
    in torch's order: the graph of a create_graph gradient shows it (AddBackward0's operands)."""
    runs = []
    for lib in (torch, leafgrad):
        dt = getattr(lib, dtype)
        x = lib.tensor([[0.1, 0.5, -0.3], [0.2, 0.1, 0.9]], dtype=dt, requires_grad=wants[0])
        y = lib.tensor([[0.3, -0.5, 0.2], [0.1, 0.4, -0.2]], dtype=dt, requires_grad=wants[1])
        target = y.log_softmax(-1) if log_target else y.softmax(-1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = lib.nn.functional.kl_div(x.log_softmax(-1), target, reduction=reduction,
                                            log_target=log_target)
        leaves = [t for t, w in zip((x, y), wants) if w]
        grads = lib.autograd.grad(loss.sum(), leaves, create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), leaves, allow_unused=True)
        runs.append(_observed([loss, *grads, *second]))
    _assert_same(*runs)


# -- maximum/minimum/clamp ties of zeros: torch's vectorised loop (seed 34096) ----------------


def _layouts(shape):
    """Ways to hold values of ``shape``: row-major, transposed, a slice of rows, a stepped
    slice; each a function (lib, array) -> tensor."""
    yield lambda lib, array: lib.tensor(array)
    if len(shape) >= 2:
        yield lambda lib, array: lib.tensor(
            np.ascontiguousarray(np.swapaxes(array, -1, -2))).transpose(-1, -2)
        yield lambda lib, array: lib.tensor(np.concatenate([array, array], -1))[..., :shape[-1]]
    if shape:
        yield lambda lib, array: lib.tensor(np.repeat(array, 2, -1))[..., ::2]


TIE_OPS = {
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "minimum": lambda lib, a, b: a.minimum(b),
    "max": lambda lib, a, b: lib.max(a, b),
    "min": lambda lib, a, b: lib.min(a, b),
    "clamp min": lambda lib, a, b: lib.clamp(a, min=b),
    "clamp max": lambda lib, a, b: a.clamp(max=b),
    "clamp both": lambda lib, a, b: lib.clamp(a, b, -b),
    "clip": lambda lib, a, b: a.clip(b, None),
    "clamp_min": lambda lib, a, b: lib.clamp_min(a, b),
    "clamp_ in place": lambda lib, a, b: a.clone().clamp_(max=b),
    "fmax": lambda lib, a, b: lib.fmax(a, b),
    "fmin": lambda lib, a, b: lib.fmin(a, b),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", sorted(TIE_OPS))
def test_ties_of_zeros_take_the_sign_torchs_loop_gives(name, dtype):
    """On a tie of +0. and -0. torch's scalar loop keeps self and its vectorised loop the other
    operand (maximum, minimum, clamp with tensor bounds; fmax/fmin keep self in both), so the
    sign depends on the element's place: in a full pair of vectors of the innermost row
    TensorIterator runs, or in the leftover, or in a row it cannot vectorise (strided, or two
    broadcast operands)."""
    rng = np.random.default_rng(34096)
    op = TIE_OPS[name]
    shapes = [(17,), (9,), (33,), (40,), (2, 17), (3, 9), (17, 2), (2, 16), (2, 3, 8), (4, 1, 8)]
    for shape in shapes:
        for other_shape in sorted({shape, shape[-1:], (), shape[:-1] + (1,)}):
            a = np.where(rng.random(shape) < 0.5, -0.0, 0.0).astype(dtype)
            b = np.where(rng.random(other_shape) < 0.5, -0.0, 0.0).astype(dtype)
            for make_a, make_b in itertools.product(_layouts(shape), _layouts(other_shape)):
                signs = [np.signbit(op(lib, make_a(lib, a), make_b(lib, b)).float().numpy())
                         for lib in (torch, leafgrad)]
                assert np.array_equal(*signs), (shape, other_shape)


# -- the backward of a regenerated expanded view under create_graph (seed 35102) -------------


EXPANDED_VIEWS = {
    "transpose then expand": lambda x: x.transpose(0, 1).expand(-1, 3),
    "expand new dims": lambda x: x.expand(2, 1, 3),
    "slice then expand": lambda x: x[:, 1:].expand(4, 2),
    "unsqueeze then expand": lambda x: x[0].unsqueeze(1).expand(3, 2),
    "expand of a column": lambda x: x.t()[:, :1].expand(3, 3),
    "not expanded": lambda x: x.t()[1:],
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("write", ["no_grad", "data"])
@pytest.mark.parametrize("name", sorted(EXPANDED_VIEWS))
def test_regenerated_expanded_view_backward_is_torchs_graph(name, write, dtype):
    """A view of a leaf written outside autograd regenerates its history (AsStridedBackward0);
    under create_graph torch's as_strided_backward sums the view's expanded dims (SumBackward1)
    and scatters into zeros (CopySlices, AsStridedBackward0); the second derivative too."""
    runs = []
    for lib in (torch, leafgrad):
        x = lib.tensor([[1.25, 0.5, 1.5]], dtype=getattr(lib, dtype), requires_grad=True)
        view = EXPANDED_VIEWS[name](x)
        if write == "no_grad":
            with lib.no_grad():
                view.mul_(1.5) if name == "not expanded" else x.mul_(1.5)
        else:
            x.data.mul_(1.5)
        y = view.pow(1.5) * 2
        (grad,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (second,) = lib.autograd.grad(grad.sum(), x)
        runs.append(_observed([view, y, grad, second]))
    _assert_same(*runs)


# -- torch.func results and the caller's autograd (the torch.func stage, seeds 20 and 76) -----

FUNC_CALLS = {
    "grad argnums=(0, 1)": lambda lib, a, b, w: lib.func.grad(
        lambda p, q: ((p + 0.5) * (q * w).sin()).sum(), argnums=(0, 1))(a, b),
    "grad_and_value argnums=1": lambda lib, a, b, w: lib.func.grad_and_value(
        lambda p, q: ((p.sin() + 0.5) * q * w).sum(), argnums=1)(a, b),
    "grad without closure": lambda lib, a, b, w: lib.func.grad(
        lambda p, q: (p.tanh() * q).sum(), argnums=0)(a, b),
    "vjp": lambda lib, a, b, w: (lambda out, fn: (out, fn(lib.ones_like(out))))(
        *lib.func.vjp(lambda p, q: p.sin() * q + w, a, b)),
    "jvp closure": lambda lib, a, b, w: lib.func.jvp(
        lambda p: p.sin() ** 2 * w, (a,), (b.detach(),)),
    "jvp two": lambda lib, a, b, w: lib.func.jvp(
        lambda p, q: p * q.exp(), (a, b), (lib.ones_like(a), lib.ones_like(b))),
}


@pytest.mark.parametrize("wants", list(itertools.product([False, True], repeat=3)))
@pytest.mark.parametrize("name", sorted(FUNC_CALLS))
def test_func_results_require_grad_only_through_the_callers_tensors(name, wants):
    """A transform's result requires grad where it depends on a tensor of the caller that
    requires grad (an input or a closure's), and only there; its values and the gradients
    reaching the caller's tensors are torch's."""
    runs = []
    for lib in (torch, leafgrad):
        a, b, w = (lib.tensor(values, dtype=lib.float64, requires_grad=want) for values, want
                   in zip(([0.5, -1.25, 2.0], [1.5, 0.25, -0.75], [0.3, 0.9, -1.1]), wants))
        flat = []
        stack = [FUNC_CALLS[name](lib, a, b, w)]
        while stack:  # the results, depth first, in order
            item = stack.pop(0)
            if isinstance(item, (tuple, list)):
                stack[:0] = list(item)
            else:
                flat.append(item)
        seen = [(t.requires_grad, t.is_leaf, t.detach().numpy().tolist()) for t in flat]
        callers = [t for t in (a, b, w) if t.requires_grad]
        needing = [t for t in flat if t.requires_grad]
        if callers and needing:
            total = sum((t * (index + 1.5)).sum() for index, t in enumerate(needing))
            grads = lib.autograd.grad(total, callers, allow_unused=True, materialize_grads=True)
            seen.append([g.numpy().tolist() for g in grads])
        runs.append(seen)
    assert _close(*runs)


def _close(expected, actual):
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        if isinstance(e, tuple):
            assert e[:2] == a[:2]
            np.testing.assert_allclose(a[2], e[2], rtol=1e-12)
        else:
            np.testing.assert_allclose(a, e, rtol=1e-12)
    return True


# -- optimizers: one version bump per in-place op of torch's step (optimizer stage, seed 22) --

OPTIMIZERS = [
    "Adam(P, lr=0.1)", "Adam(P, lr=0.1, weight_decay=0.1, amsgrad=True)",
    "Adam(P, lr=0.1, decoupled_weight_decay=True, weight_decay=0.1)", "AdamW(P, lr=0.1)",
    "AdamW(P, lr=0.1, weight_decay=0.0)", "AdamW(P, lr=0.1, amsgrad=True, maximize=True)",
    "SGD(P, lr=0.1, momentum=0.9)", "SGD(P, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)",
    "RMSprop(P, lr=0.01, momentum=0.5, centered=True, weight_decay=0.1)",
    "Adagrad(P, lr=0.1, weight_decay=0.1, lr_decay=0.1)", "Adamax(P, lr=0.1, weight_decay=0.1)",
    "NAdam(P, lr=0.1, decoupled_weight_decay=True, weight_decay=0.1)",
    "RAdam(P, lr=0.1, decoupled_weight_decay=True, weight_decay=0.1)", "Adadelta(P)",
    "ASGD(P)", "Rprop(P)",
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("spec", OPTIMIZERS)
def test_optimizer_steps_bump_versions_as_torchs(spec, dtype):
    """Each in-place op of torch's single-tensor step bumps the version of the tensor it writes:
    AdamW's decoupled decay (param.mul_) and exp_avg_sq's mul_ then addcmul_ count too; values
    and the views of a parameter follow."""
    runs = []
    for lib in (torch, leafgrad):
        p = lib.tensor([[0.5, -1.0], [1.5, 0.25]], dtype=getattr(lib, dtype), requires_grad=True)
        q = lib.tensor([0.75, -0.5], dtype=getattr(lib, dtype), requires_grad=True)
        view = p[0]
        ((p * q).sum() + (q ** 2).sum()).backward()
        optimizer = eval("lib.optim." + spec.replace("P", "[p, q]"))  # noqa: S307 - a fixed table
        seen = []
        for _ in range(2):
            optimizer.step()
            states = {key: value._version for key, value in optimizer.state[p].items()
                      if isinstance(value, lib.Tensor)}
            seen.append((p._version, q._version, view._version, states,
                         p.detach().numpy().tolist(), view.detach().numpy().tolist()))
        runs.append(seen)
    for expected, actual in zip(*runs):
        assert expected[:4] == actual[:4]
        np.testing.assert_allclose(actual[4], expected[4], rtol=1e-5)
        np.testing.assert_allclose(actual[5], expected[5], rtol=1e-5)


# -- jacrev/jacfwd: the basis is torch's (seed 67 of the torch.func stage) --------------------

JACOBIANS = {
    "jacrev a + 0.5": lambda lib, a, b: lib.func.jacrev(lambda p: p + 0.5)(a),
    "jacrev a - b": lambda lib, a, b: lib.func.jacrev(lambda p, q: p - q, argnums=(0, 1))(a, b),
    "jacrev a.sin()": lambda lib, a, b: lib.func.jacrev(lambda p: p.sin())(a),
    "jacfwd a + 0.5": lambda lib, a, b: lib.func.jacfwd(lambda p: p + 0.5)(a),
    "jacfwd a * b": lambda lib, a, b: lib.func.jacfwd(lambda p, q: p * q, argnums=(0, 1))(a, b),
}


@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 1)])
@pytest.mark.parametrize("name", sorted(JACOBIANS))
def test_jacobians_that_pass_the_basis_through_show_its_version(name, shape):
    """torch builds each input's one-hot rows as zeros whose diagonal is fill_(1)-ed: a
    Jacobian that is those rows passed through (add, sub) has version 1."""
    runs = []
    for lib in (torch, leafgrad):
        a = lib.full(shape, 0.3, dtype=lib.float64)
        b = lib.full(shape, -1.5, dtype=lib.float64)
        result = JACOBIANS[name](lib, a, b)
        result = result if isinstance(result, tuple) else (result,)
        runs.append([(t._version, tuple(t.shape), t.stride(), t.numpy().tolist())
                     for t in result])
    assert runs[0] == runs[1]


# -- indexing: which slices torch skips (seed 36846) ----------------------------------------

SLICES = [slice(-1, 2), slice(0, 1), slice(None, 1), slice(0, 5), slice(-5, None),
          slice(0, None), slice(None, None, 1), slice(-1, None), slice(-3, None),
          slice(0, -1), slice(1, None), slice(0, 3, 1), slice(None, None, 2), slice(0, 0)]


@pytest.mark.parametrize("shape", [(3, 1), (1, 3), (2, 3, 1)])
@pytest.mark.parametrize("form", ["ellipsis", "leading", "with None", "after int", "lone"])
def test_slices_that_keep_a_dim_are_skipped_as_torch_skips_them(form, shape):
    """In a tuple index torch skips a slice only when it is written start 0 (or none), stop at
    least the size (or none), step 1 (or none): x[..., -1:2] of a size-1 dim still records
    SliceBackward0, x[0:5] of a size-3 dim does not; a lone slice is always recorded."""
    runs = []
    for lib in (torch, leafgrad):
        base = lib.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        x = base * 1
        seen = []
        for item in SLICES:
            index = {"ellipsis": (Ellipsis, item), "leading": (item, Ellipsis),
                     "with None": (None, item, 0), "after int": (0, item),
                     "lone": item}[form]
            y = x[index]
            seen.append((_graph(y.grad_fn, 3), tuple(y.shape), y.detach().numpy().tolist()))
        runs.append(seen)
    assert runs[0] == runs[1]
