"""Differences found by the generated-program comparison (tests/differential, seeds 39400 and
up) and the open items fuzz6 left, each fixed and checked here against torch 2.13 as a class
(not the one seed). Each test sweeps its class of inputs in one loop (the suite's time budget)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()

LIBS = (torch, leafgrad)


def _graph(node, depth=4):
    """A grad_fn's name and its next functions' graphs, ``depth`` levels down."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return (node.name(), tuple(_graph(n, depth - 1) for n, _ in node.next_functions))


def _same_bits(actual: np.ndarray, expected: np.ndarray, where: str) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, where
    np.testing.assert_array_equal(actual, expected, err_msg=where)
    zeros = (actual == 0) & (expected == 0)
    assert np.array_equal(np.signbit(actual)[zeros], np.signbit(expected)[zeros]), where


def _numpy(tensor) -> np.ndarray:
    tensor = tensor.detach()
    if getattr(tensor, "_is_zerotensor", lambda: False)():
        return tensor.new_zeros(tensor.shape).numpy()
    return tensor.numpy().copy()


# -- a pointwise loss's create_graph gradient is its backward node's, in its own input's dtype --
# (generated-program seed 39142: smooth_l1_loss of a float64 input and a float32 target; torch's
# <loss>_backward writes into zeros_like(self), so the target's gradient is float32 from
# SmoothL1LossBackwardBackward0 itself, where leafgrad cast after it: ToCopyBackward0)


def test_pointwise_loss_gradients_under_create_graph_keep_each_inputs_dtype():
    losses = {
        "mse": lambda F, a, b, r: F.mse_loss(a, b, reduction=r),
        "smooth_l1": lambda F, a, b, r: F.smooth_l1_loss(a, b, reduction=r),
        "smooth_l1 beta 0.5": lambda F, a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.5),
        "huber": lambda F, a, b, r: F.huber_loss(a, b, reduction=r),
    }
    failures = []
    for (name, loss), dtypes, reduction, needs, shapes in itertools.product(
            losses.items(), [("float64", "float32"), ("float32", "float64"),
                             ("float32", "float32")],
            ["mean", "sum", "none"], [(True, True), (True, False), (False, True)],
            [((2, 3), (2, 3)), ((1, 3), ()), ((), (3,))]):
        outcomes = []
        for lib in LIBS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the broadcast warning)
                a = lib.tensor(np.linspace(-1.3, 2.1, int(np.prod(shapes[0]))).reshape(shapes[0]),
                               dtype=getattr(lib, dtypes[0]), requires_grad=needs[0])
                b = lib.tensor(np.linspace(0.7, -0.4, int(np.prod(shapes[1]))).reshape(shapes[1]),
                               dtype=getattr(lib, dtypes[1]), requires_grad=needs[1])
                try:
                    out = loss(lib.nn.functional, a * 1, b * 1, reduction)
                    leaves = [t for t in (a, b) if t.requires_grad]
                    grads = lib.autograd.grad(out.sum(), leaves, create_graph=True)
                    total = sum(g.sum() * (i + 2) for i, g in enumerate(grads))
                    second = lib.autograd.grad(total, leaves, allow_unused=True,
                                               materialize_grads=True)
                except RuntimeError as error:
                    outcomes.append(str(error).splitlines()[0])
                    continue
            outcomes.append([(str(g.dtype).split(".")[-1], _graph(g.grad_fn, 2), _numpy(g))
                             for g in (*grads, *second)])
        expected, actual = outcomes[0], outcomes[1]
        case = (name, dtypes, reduction, needs, shapes)
        if isinstance(expected, str) or isinstance(actual, str):
            if actual != expected:
                failures.append((case, expected, actual))
            continue
        for (e_dtype, e_graph, e_value), (a_dtype, a_graph, a_value) in zip(expected, actual):
            if (e_dtype, e_graph) != (a_dtype, a_graph) or not np.allclose(
                    a_value, e_value, rtol=1e-6, atol=1e-7):
                failures.append((case, (e_dtype, e_graph), (a_dtype, a_graph)))
    assert not failures, (len(failures), failures[:3])


# -- a convolution's result has row-major strides in its size-1 dims too --------------------
# (seed 41242: a one-channel conv1d result had stride 1 in its channel dim, NumPy's; torch's is
# the row-major length, so torch's matmul of it folded into mm where leafgrad took bmm)


def test_convolution_results_have_row_major_strides_in_size_one_dims():
    rng = np.random.default_rng(7)
    cases = []
    for n, c_in, c_out, length in itertools.product([1, 2], [1, 3], [1, 2], [1, 4]):
        cases.append(("conv1d", (n, c_in, length), (c_out, c_in, 1), {}))
        cases.append(("conv1d", (n, c_in, length), (c_out, c_in, 1), {"stride": 2}))
        cases.append(("conv2d", (n, c_in, length, 3), (c_out, c_in, 1, 1), {}))
        cases.append(("conv2d", (n, c_in, length, 3), (c_out, c_in, 1, 3), {}))
        cases.append(("conv3d", (n, c_in, length, 1, 2), (c_out, c_in, 1, 1, 1), {}))
        cases.append(("conv_transpose1d", (n, c_in, length), (c_in, c_out, 1), {}))
        cases.append(("conv_transpose2d", (n, c_in, length, 2), (c_in, c_out, 1, 1), {}))
    failures = []
    for name, x_shape, w_shape, params in cases:
        x_values, w_values = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
        seen = []
        for lib in LIBS:
            x = lib.tensor(x_values, requires_grad=True)
            w = lib.tensor(w_values, requires_grad=True)
            out = getattr(lib.nn.functional, name)(x, w, **params)
            product = lib.matmul(out, lib.ones(out.shape[-1], 2, dtype=lib.float64,
                                               requires_grad=True))
            product.sum().backward()
            seen.append((out.stride(), _graph(product.grad_fn, 1), x.grad.stride(),
                         w.grad.stride()))
        if seen[0] != seen[1]:
            failures.append((name, x_shape, w_shape, params, seen))
    assert not failures, (len(failures), failures[:3])


# -- an op's input gradients are made in torch's order: derivatives.yaml's names, sorted ------
# (seed 39768: torch's generated code computes `other` before `self`, `mat2` before `self`,
# `end` before `self`, so under create_graph the other's nodes have the lower sequence numbers;
# the next backward runs nodes by sequence number, and a float32 sum of three gradients in
# another order gave another last bit)

_BINARY = {
    "mul": lambda lib, x, y: x * y,
    "div": lambda lib, x, y: x / y,
    "pow": lambda lib, x, y: x.abs() ** y,
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "minimum": lambda lib, x, y: lib.minimum(x, y),
    "fmax": lambda lib, x, y: lib.fmax(x, y),
    "fmin": lambda lib, x, y: lib.fmin(x, y),
    "hypot": lambda lib, x, y: lib.hypot(x, y),
    "logaddexp": lambda lib, x, y: lib.logaddexp(x, y),
    "logaddexp2": lambda lib, x, y: lib.logaddexp2(x, y),
    "xlogy": lambda lib, x, y: lib.xlogy(x, y.abs()),
    "ldexp": lambda lib, x, y: lib.ldexp(x, y),
    "dist": lambda lib, x, y: lib.dist(x, y),
    "mm": lambda lib, x, y: x @ y,
    "matmul": lambda lib, x, y: lib.matmul(x[0], y),
    "lerp": lambda lib, x, y: lib.lerp(x, y, x * y),
    "sub": lambda lib, x, y: x - y,
    "atan2": lambda lib, x, y: lib.atan2(x, y),
    "where": lambda lib, x, y: lib.where(x > y, x, y),
}


def _creation_order(lib, name, tie):
    x = lib.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    y = lib.tensor([[3.0, 1.5], [0.5, -2.5]] if not tie else [[1.0, 1.5], [0.5, -2.5]],
                   requires_grad=True)
    z = _BINARY[name](lib, x, y)
    grads = lib.autograd.grad((z * z).sum(), [x, y], create_graph=True)
    order = sorted(range(2), key=lambda i: grads[i].grad_fn._sequence_nr())
    return order, [_graph(g.grad_fn, 3) for g in grads]


def test_input_gradients_are_made_in_torchs_order():
    failures = []
    for name, tie in itertools.product(_BINARY, [False, True]):
        expected, actual = (_creation_order(lib, name, tie) for lib in LIBS)
        if actual != expected:
            failures.append((name, tie, expected, actual))
    assert not failures, (len(failures), failures[:3])


def test_second_derivatives_add_in_torchs_order():
    # (seed 39768 itself: x / fmax(x, c) broadcast, a second derivative of rounding size)
    def run(lib):
        x0 = lib.tensor([[1.5954408645629883, 1.028302550315857, 1.6446418762207031],
                         [1.1158862113952637, 1.1687644720077515, 0.6717727780342102]],
                        requires_grad=True)
        x2 = lib.tensor([[[1.5, -1.5, -1.5], [-0.5, 0.5, -1.5]],
                         [[1.5, -0.5, -2.0], [-1.0, 1.0, 1.0]]])
        x4 = lib.div(x0, lib.fmax(x0, x2))
        mask = lib.tensor([[[False, False, False], [False, True, False]],
                           [[False, True, True], [True, True, True]]])
        picked = x4.reshape(2, 2, 3)[mask][:6:2]
        weight = lib.tensor([[-1.4375325441360474, 1.556749701499939, 0.6882408857345581],
                             [-1.1164674758911133, 0.1952713429927826, 1.1189137697219849],
                             [-1.7955313920974731, -0.445860356092453, -1.2784308195114136]],
                            requires_grad=True)
        grads = lib.autograd.grad(picked.matmul(weight).sum(), [x0, weight], create_graph=True)
        sum(g.sum() for g in grads).backward()
        return x0.grad

    expected, actual = (_numpy(run(lib)) for lib in LIBS)
    _same_bits(actual, expected, "x0.grad")


# -- a full reduction of a dense permuted tensor adds in memory order -------------------------
# (seed 40103: a sum_to of an outer product's transposed gradient; torch's TensorIterator sorts
# dims by stride and coalesces, NumPy summed in its own order: 1.49e-08 against -1.49e-08)


def test_full_sums_of_permuted_tensors_add_in_memory_order():
    rng = np.random.default_rng(3)
    failures = []
    for dtype, shape, perm in itertools.product(
            ["float32", "float64"], [(2, 3), (5, 7), (3, 1, 9), (4, 6, 5), (17, 33)],
            ["t", "reverse", "roll"]):
        values = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3, shape)).astype(dtype)
        results = []
        for lib in LIBS:
            base = lib.tensor(values)
            if perm == "t":
                moved = base.transpose(0, -1)
            elif perm == "reverse":
                moved = base.permute(*reversed(range(base.ndim)))
            else:
                moved = base.permute(*range(1, base.ndim), 0)
            every = tuple(range(moved.ndim))
            results.append([_numpy(r) for r in (
                moved.sum(), moved.sum(every), moved.sum(every, keepdim=True), moved.mean(),
                lib.nn.functional.mse_loss(moved, lib.zeros_like(moved), reduction="sum"))])
        for index, (e, a) in enumerate(zip(*results)):
            if e.shape != a.shape or e.dtype != a.dtype or not np.array_equal(e, a):
                failures.append((dtype, shape, perm, index, e, a))
    assert not failures, (len(failures), failures[:3])


# -- torch's ZeroTensor gradients pass through the nodes whose formula keeps them -------------
# (seed 42217: sgn's zero gradient through MvBackward0's ger and CatBackward0's narrow stays a
# ZeroTensor, +0. at the leaf, where leafgrad multiplied real zeros: -0.; seed 38997 again: a
# ZeroTensor arriving second at a private buffer is added in place, its +0. turning -0. into +0.)

_C = [[-1.0, 2.0, 0.5], [1.5, -2.0, 1.0]]
_V = [-1.5, 2.0, -0.5]
_THROUGH = {
    "mul other": lambda lib, x: lib.tensor(_C) * x,
    "div self": lambda lib, x: x / -2.0,
    "div other": lambda lib, x: lib.tensor(_C) / x,
    "add alpha": lambda lib, x: lib.add(lib.tensor(_C), x, alpha=-2),
    "sub self": lambda lib, x: x - lib.tensor(_C),
    "sub other": lambda lib, x: lib.tensor(_C) - x,
    "rsub": lambda lib, x: 1.0 - x,
    "mv self": lambda lib, x: x @ lib.tensor(_V),
    "mv vec": lambda lib, x: lib.tensor(_C) @ x[0],
    "mm": lambda lib, x: x @ lib.tensor(_C).t(),
    "view": lambda lib, x: x.reshape(3, 2) * -1.5,
    "unsqueeze": lambda lib, x: x.unsqueeze(0) * -1.5,
    "squeeze": lambda lib, x: x[None].squeeze(0) * -1.5,
    "cat": lambda lib, x: lib.cat([lib.tensor(_C), x]) * -1.5,
    "stack": lambda lib, x: lib.stack([x, lib.tensor(_C)]) * -1.5,
    "clone": lambda lib, x: x.clone() * -1.5,
    "t": lambda lib, x: x.t() * -1.5,
    "narrow": lambda lib, x: x[:, 1:] * -1.5,
    "expand": lambda lib, x: x.expand(2, 2, 3) * -1.5,
    "neg": lambda lib, x: -x,
    "abs": lambda lib, x: x.abs() * -1.5,
    "exp": lambda lib, x: x.exp() * -1.5,
    "sqrt": lambda lib, x: (x.abs() + 1).sqrt() * -1.5,
    "sin": lambda lib, x: x.sin() * -1.5,
    "tanh": lambda lib, x: x.tanh() * -1.5,
    "sigmoid": lambda lib, x: x.sigmoid() * -1.5,
    "pow": lambda lib, x: (x ** 2) * -1.5,
    "pow exponent": lambda lib, x: lib.tensor(_C).abs() ** x,
    "lerp": lambda lib, x: lib.lerp(x, lib.tensor(_C), 0.3) * -1.5,
    "where": lambda lib, x: lib.where(lib.tensor(_C) > 0, x, -x),
    "relu": lambda lib, x: x.relu() * -1.5,
}


def test_zero_gradients_pass_through_the_nodes_torch_keeps_them_in():
    # The gradient reaching each node is sgn's ZeroTensor (through "then"), mixed at the leaf
    # with a -0. from a second use of x whose gradient is a product by zero.
    failures = []
    for name, then in itertools.product(_THROUGH, ["sgn", "sgn + zero"]):
        results = []
        for lib in LIBS:
            x = lib.tensor([[1.0, -2.0, 0.5], [-1.5, 0.25, 2.0]], requires_grad=True)
            total = lib.sgn(_THROUGH[name](lib, x)).sum()
            if then == "sgn + zero":
                total = total + (x * lib.tensor(-0.0)).sum() * -1.0
            total.backward()
            results.append(_numpy(x.grad))
        try:
            _same_bits(results[1], results[0], name)
        except AssertionError:
            failures.append((name, then, results))
    assert not failures, (len(failures), failures[:3])


def test_zero_gradient_through_a_matrix_vector_product_and_cat():
    def run(lib):
        x0 = lib.tensor([[1.0, 1.0, -1.0], [0.5, -1.0, -0.5]], requires_grad=True)
        x1 = lib.tensor([[1.822630524635315, 1.1563172340393066, -1.8915067911148071]],
                        requires_grad=True)
        vec = lib.tensor([-1.6790350675582886, 0.3066088557243347, 1.606868028640747])
        product = (lib.cat([x1, x1, x0], dim=0) @ vec).abs()
        grads = lib.autograd.grad(product.sum(), [x0, x1], create_graph=True)
        sum(g.sum() for g in grads).backward()
        return x0.grad, x1.grad

    expected, actual = (run(lib) for lib in LIBS)
    for e, a in zip(expected, actual):
        _same_bits(_numpy(a), _numpy(e), "grad")


# -- a value-selecting reduction of a 0-d tensor scatters its gradient too ---------------------
# (seed 41876: max(dim) of a 0-d tensor; torch's value_selecting_reduction_backward records a
# ScatterBackward0 under create_graph where leafgrad passed the gradient through)


def test_value_selecting_reductions_of_0d_tensors_scatter_their_gradient():
    reductions = {
        "max": lambda t, k: t.max(-1, keepdim=k)[0],
        "min": lambda t, k: t.min(dim=0, keepdim=k).values,
        "median": lambda t, k: t.median(0, keepdim=k)[0],
        "kthvalue": lambda t, k: t.kthvalue(1, 0, keepdim=k)[0],
        "mode": lambda t, k: t.mode(0, keepdim=k)[0],
        "nanmedian": lambda t, k: t.nanmedian(0, keepdim=k)[0],
    }
    failures = []
    for (name, reduce), keepdim, dtype in itertools.product(
            reductions.items(), [False, True], ["float32", "float64"]):
        seen = []
        for lib in LIBS:
            x = lib.tensor(1.5, dtype=getattr(lib, dtype), requires_grad=True)
            y = reduce(reduce(x, keepdim).exp(), keepdim)
            (grad,) = lib.autograd.grad(y.sum(), [x], create_graph=True)
            (second,) = lib.autograd.grad(grad.sum(), [x])
            seen.append((_graph(grad.grad_fn, 3), _numpy(grad).tolist(), _numpy(second).tolist()))
        if seen[0] != seen[1]:
            failures.append((name, keepdim, dtype, seen))
    assert not failures, (len(failures), failures[:3])


# -- a Function's input returned under no_grad / inference_mode comes back detached -----------
# (seed 281 of the new autograd.Function stage: a view made inside inference_mode of a tensor
# requiring grad requires grad too; returned as it is, torch detaches it, leafgrad gave a view
# requiring grad)


def test_function_inputs_returned_without_grad_mode_come_back_detached():
    failures = []
    for mode, form, dirty in itertools.product(["no_grad", "inference_mode", "enabled"],
                                               ["leaf", "view inside", "view outside",
                                                "non-leaf", "no grad"], [False, True]):
        if dirty and form == "leaf":
            continue  # (torch's error for a leaf modified in place: another test's)
        seen = []
        for lib in LIBS:
            if dirty:
                forward = staticmethod(lambda ctx, x: (x.mul_(2), ctx.mark_dirty(x))[0])
            else:
                forward = staticmethod(lambda ctx, x: x)
            function = type("Same", (lib.autograd.Function,), {
                "forward": forward, "backward": staticmethod(lambda ctx, g: g)})
            base = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=form != "no grad")
            outside = base[0] if form == "view outside" else None
            if dirty and form in ("view outside",):
                base = base * 1
                outside = base[0]
            context = {"no_grad": lib.no_grad, "inference_mode": lib.inference_mode,
                       "enabled": lib.enable_grad}[mode]
            with context():
                given = {"leaf": base, "view inside": base[1], "view outside": outside,
                         "non-leaf": base * 1, "no grad": base}[form]
                if dirty and form == "view inside":
                    given = (base * 1)[1] if mode != "enabled" else given
                try:
                    out = function.apply(given)
                except RuntimeError as error:
                    seen.append(str(error).splitlines()[0])
                    continue
            # (a view of an inference tensor has no _base in torch, one here: an open item)
            view = None if out.is_inference() else out._base is not None
            seen.append((out.requires_grad, out.is_leaf, view, out is given,
                         getattr(out.grad_fn, "name", lambda: None)(), out.is_inference()))
        if seen[0] != seen[1]:
            failures.append((mode, form, dirty, seen))
    assert not failures, (len(failures), failures[:3])


# -- a create_graph gradient that records nothing is stored as a copy --------------------------
# (seed 45325: stack's gradients under backward(create_graph=True) are views of one tensor;
# kept as they were, one optimizer's zero_grad(set_to_none=False) zeroed another leaf's grad)


def test_create_graph_gradients_recording_nothing_are_stored_as_copies():
    joins = {
        "stack": lambda lib, a, b, c: lib.stack([a, b, c], dim=1),
        "cat": lambda lib, a, b, c: lib.cat([a, b, c]),
        "sum": lambda lib, a, b, c: a + b + c,
        "expand": lambda lib, a, b, c: (a + b * c).expand(2, 2, 3),
    }
    failures = []
    for (name, join), zeroed, layout in itertools.product(joins.items(), range(3),
                                                          ["contiguous", "transposed"]):
        seen = []
        for lib in LIBS:
            leaves = [lib.tensor(np.arange(6.0).reshape(2, 3) + i, requires_grad=True)
                      for i in range(3)]
            if layout == "transposed":
                leaves = [lib.tensor(np.arange(6.0).reshape(3, 2) + i).t().requires_grad_()
                          for i in range(3)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the reference-cycle warning of both)
                join(lib, *leaves).sum().backward(create_graph=True)
            leaves[zeroed].grad.zero_()
            seen.append([(_numpy(t.grad).tolist(), t.grad.stride(), t.grad.requires_grad)
                         for t in leaves])
        if seen[0] != seen[1]:
            failures.append((name, zeroed, layout, seen))
    assert not failures, (len(failures), failures[:3])


# -- an in-place op on a view whose base's gradient arrives non-contiguous ---------------------
# (seed 44660: x5 = x2.view(6) updated in place, x2's gradient a slice of cat's; CopySlices
# replayed view(6) on that slice and raised, where torch lays the gradient out as the base)


def test_in_place_updates_of_views_take_non_contiguous_base_gradients():
    views = {
        "view": lambda t: t.view(6),
        "view 3x2": lambda t: t.view(3, 2),
        "flatten": lambda t: t.flatten(),
        "reshape": lambda t: t.reshape(-1),
        "row": lambda t: t[1],
        "t": lambda t: t.t(),
    }
    updates = {
        "add_": lambda v: v.add_(3, alpha=2),
        "clamp_": lambda v: v.clamp_(min=2.5),
        "mul_": lambda v: v.mul_(v.detach() * 0 + 1.5),
    }
    uses = {
        "cat": lambda lib, x: lib.cat([lib.ones(2, 1), x, lib.ones(2, 2)], 1)[:, 1:4].sum(),
        "transpose": lambda lib, x: (x.t() * lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        .sum(),
        "expand": lambda lib, x: x.unsqueeze(1).expand(2, 3, 3).transpose(0, 2).sum(),
    }
    failures = []
    for (vname, view), (uname, update), (name, use) in itertools.product(
            views.items(), updates.items(), uses.items()):
        seen = []
        for lib in LIBS:
            leaf = lib.tensor([[0.5, 1.0, 3.0], [2.0, -1.0, 4.0]], requires_grad=True)
            base = leaf * 1
            update(view(base))
            (grad,) = lib.autograd.grad(use(lib, base), [leaf])
            seen.append(_numpy(grad).tolist())
        if seen[0] != seen[1]:
            failures.append((vname, uname, name, seen))
    assert not failures, (len(failures), failures[:3])


# -- dropout draws its mask in the memory order of torch's empty_like(input) -------------------
# (seed 45574: dropout of a transposed, flipped, expanded tensor; torch's bernoulli_ fills its
# empty_like(input) in memory order, leafgrad drew the mask row-major)


def test_dropout_masks_follow_the_inputs_layout():
    layouts = {
        "contiguous": lambda t: t,
        "t": lambda t: t.t(),
        "permuted": lambda t: t.reshape(2, 3, 4).permute(2, 0, 1),
        "expanded": lambda t: t[:1].expand(3, 6),
        "flipped expanded t": lambda t: t[:1].expand(3, 6).flip(0).t(),
        "sliced": lambda t: t[:, ::2],
    }
    failures = []
    for (name, layout), p in itertools.product(layouts.items(), [0.5, 0.25]):
        seen = []
        for lib in LIBS:
            lib.manual_seed(979)
            x = layout(lib.arange(1.0, 25.0).reshape(4, 6))
            seen.append(_numpy(lib.nn.functional.dropout(x, p, True)).tolist())
        if seen[0] != seen[1]:
            failures.append((name, p, seen))
    assert not failures, (len(failures), failures[:3])
