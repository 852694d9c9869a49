"""Differences found by the generated-program comparison (tests/differential, seeds 139000 and
up) and the open items fuzz10 left, each fixed and checked here against torch 2.13 as a class
(not the one seed). Each test sweeps its class of inputs in one loop (the suite's time
budget)."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()

LIBS = (torch, leafgrad)


def _bits(tensor) -> bytes:
    return tensor.detach().numpy().tobytes()


def _zero_signs(expected, actual) -> bool:
    """Where torch's value is a zero, leafgrad's is the same zero (+0. or -0.)."""
    expected, actual = expected.detach().numpy(), actual.detach().numpy()
    zeros = expected == 0
    return bool(np.array_equal(actual[zeros], expected[zeros])
                and np.array_equal(np.signbit(actual[zeros]), np.signbit(expected[zeros])))


# -- training-mode batch_norm: torch's kernels ----------------------------------------------------
# (fuzz10's open item and generated-program seed 140822: a zero weight gave (x - mean)'s signed
# zeros where torch's fma(x, alpha, beta) gives +0.; the statistics, the output and the
# gradients now take the kernels' steps (ops/_batch_norm_kernels.py): every bit of torch's
# where input and gradient are contiguous (row-major or channels-last), float32)

def _layout(lib, values, layout):
    if layout == "strided":
        return lib.tensor(np.repeat(values, 2, axis=-1))[..., ::2]
    if layout == "expand":
        return lib.tensor(values[(0,) * values.ndim]).expand(values.shape)
    tensor = lib.tensor(values)
    if layout == "channels_last":
        return tensor.contiguous(memory_format=lib.channels_last)
    return tensor


def test_training_batch_norm_bits_and_zero_signs():
    # (one thread: with more rows than threads the channels-last kernels sum per thread)
    threads = [lib.get_num_threads() for lib in LIBS]
    try:
        for lib in LIBS:
            lib.set_num_threads(1)
        _check_training_batch_norm()
    finally:
        for lib, count in zip(LIBS, threads):
            lib.set_num_threads(count)


def _check_training_batch_norm():
    failures = []
    count = 0
    shapes = ((2, 3, 4), (3, 2, 5), (4, 3, 17), (2, 3, 2, 2), (2, 2, 3, 5), (3, 1, 33),
              (2, 3, 1), (5, 3), (9, 2), (30, 3),
              # a whole vector (8 float32, 4 float64 lanes) of channels or more: the input
              # gradient's loop over whole vectors is fused, its partial last vector not
              (8, 16), (6, 10), (3, 17), (2, 10, 2, 2))
    cases = itertools.product(("float32", "float64"), shapes,
                              ("contiguous", "channels_last", "strided"),
                              ("same", "sum", "expand"), (False, True))
    for dtype, shape, layout, grad_form, has_bias in cases:
        if layout == "channels_last" and len(shape) != 4:
            continue
        count += 1
        rng = np.random.default_rng(count)
        x = rng.standard_normal(shape).astype(dtype)
        weight = rng.standard_normal(shape[1]).astype(dtype)
        weight[0] = 0.0
        bias = rng.standard_normal(shape[1]).astype(dtype)
        grad = rng.standard_normal(shape).astype(dtype)
        observed = []
        for lib in LIBS:
            xt = _layout(lib, x, layout).requires_grad_()
            w = lib.tensor(weight, requires_grad=True)
            b = lib.tensor(bias, requires_grad=True) if has_bias else None
            y = lib.nn.functional.batch_norm(xt, None, None, w, b, training=True, eps=1e-3)
            if grad_form == "sum":
                y.sum().backward()
            else:
                y.backward(_layout(lib, grad, layout if grad_form == "same" else "expand"))
            observed.append((y, xt.grad, w.grad, y.stride(), xt.grad.stride()))
        expected, actual = observed
        problems = [name for name, a, b in zip(("y.stride", "x.grad.stride"), expected[3:],
                                                actual[3:]) if a != b]
        # (the gradients of a strided input, or of an expanded gradient that is not all ones,
        # read at::sum / at::mean of strided tensors, whose order leafgrad does not replay:
        # there only the output's zeros are checked)
        checked = 1 if layout == "strided" or grad_form == "expand" else 3
        problems += [name for name, a, b in zip(("y", "x.grad", "w.grad")[:checked], expected,
                                                actual) if not _zero_signs(a, b)]
        if dtype == "float32" and checked == 3:
            problems += [name for name, a, b in zip(("y bits", "x.grad bits", "w.grad bits"),
                                                    expected, actual) if _bits(a) != _bits(b)]
        if problems:
            failures.append((dtype, shape, layout, grad_form, has_bias, problems))
    assert not failures, (f"{len(failures)} of {count}", failures[:10])


# -- the strides of fresh results in their size-1 dims ------------------------------------------
# (generated-program seeds 142170, 152286: bmm's small-product loop and the reflect/replicate
# pads returned NumPy's strides in size-1 dims ((9, 9, 1) for torch's (1, 1, 1)); matmul folds
# a 3-d operand into mv/mm only on torch's strides, so a later product's node differed)

def _nodes(node, depth=0, out=None):
    out = [] if out is None else out
    if node is not None and depth < 6:
        out.append((depth, node.name()))
        for child, _ in node.next_functions:
            _nodes(child, depth + 1, out)
    return out


def test_matmul_results_have_torchs_strides_in_size_one_dims():
    shapes = ((1,), (3,), (1, 1), (1, 3), (3, 1), (2, 3), (1, 1, 1), (1, 1, 3), (1, 3, 1),
              (2, 1, 3), (1, 3, 3), (2, 3, 3), (2, 1, 1, 3))
    failures = []
    count = 0
    for left, right in itertools.product(shapes, shapes):
        for grads in ((True, False), (False, True)):
            observed = []
            for lib in LIBS:
                a = (lib.arange(float(np.prod(left))).reshape(left) + 1).requires_grad_(grads[0])
                b = (lib.arange(float(np.prod(right))).reshape(right) + 2).requires_grad_(
                    grads[1])
                try:
                    out = lib.matmul(a, b)
                except RuntimeError as error:
                    observed.append(str(error).splitlines()[0])
                    continue
                # a second product reads the first one's strides (matmul's fold)
                again = lib.matmul(lib.ones(out.shape[-2:][:1] or (1,)), out) \
                    if out.dim() >= 2 else out
                observed.append((out.stride(), _nodes(out.grad_fn), again.stride(),
                                 _nodes(again.grad_fn)))
            count += 1
            if observed[0] != observed[1]:
                failures.append((left, right, grads, observed))
    assert not failures, (f"{len(failures)} of {count}", failures[:5])


def test_reflect_and_replicate_pads_have_torchs_strides():
    failures = []
    count = 0
    cases = itertools.product(("reflect", "replicate"), ((1, 3, 1), (1, 1, 3), (1, 2, 3),
                                                         (1, 1, 2, 3), (1, 2, 1, 3),
                                                         (1, 1, 1, 2, 2)))
    for mode, shape in cases:
        pad = (1, 1) * (len(shape) - 2)
        if mode == "reflect" and min(shape[2:]) < 2:
            pad = (0, 0) * (len(shape) - 2)
        count += 1
        observed = []
        for lib in LIBS:
            x = (lib.arange(float(np.prod(shape))).reshape(shape) + 1).requires_grad_()
            y = lib.nn.functional.pad(x, pad, mode=mode)
            folded = lib.matmul(y, lib.ones(y.shape[-1]))
            (y * y).sum().backward()
            observed.append((y.stride(), x.grad.stride(), _nodes(folded.grad_fn)))
        if observed[0] != observed[1]:
            failures.append((mode, shape, observed))
    assert not failures, (f"{len(failures)} of {count}", failures[:5])


# -- embedding's backward with zero-wide rows ------------------------------------------------------
# (generated-program seeds 155030, 172318: a create_graph backward of an embedding of width 0
# reshaped its gradient with -1 and raised NumPy's "cannot reshape array of size 0")

def test_embedding_backward_of_zero_wide_weights():
    failures = []
    count = 0
    cases = itertools.product(((3, 0), (1, 0), (3, 2), (0, 0)), ("0-d", "1-d", "2-d", "empty"),
                              (None, 1), (False, True), (False, True))
    for shape, form, padding_idx, by_freq, create_graph in cases:
        if shape[0] == 0 and form != "empty" or padding_idx is not None and shape[0] < 2:
            continue
        count += 1
        indices = {"0-d": 0, "1-d": [0, shape[0] - 1, 0], "2-d": [[0], [0]],
                   "empty": []}[form]
        observed = []
        for lib in LIBS:
            weight = lib.ones(shape, requires_grad=True)
            index = lib.tensor(indices, dtype=lib.int64)
            out = lib.nn.functional.embedding(index, weight, padding_idx=padding_idx,
                                              scale_grad_by_freq=by_freq)
            try:
                (grad,) = lib.autograd.grad((out * 2).sum(), [weight], create_graph=create_graph)
                observed.append((tuple(grad.shape), grad.detach().numpy().tolist(),
                                 grad.grad_fn is None))
            except RuntimeError as error:
                observed.append(str(error).splitlines()[0])
        if observed[0] != observed[1]:
            failures.append((shape, form, padding_idx, by_freq, create_graph, observed))
    assert not failures, (f"{len(failures)} of {count}", failures[:5])


# -- cat's memory format ---------------------------------------------------------------------------
# (generated-program seed 164749: cat of a channels-last 4-d tensor and row-major ones was
# channels-last in leafgrad (the first input decided), row-major in torch
# (compute_output_memory_format: channels-last only when every input suggests it), so a later
# view of the result raised)

def test_cat_memory_format_from_every_input():
    def make(lib, shape, form):
        x = lib.arange(float(np.prod(shape)))
        if form == "channels_last":
            return x.reshape(shape).contiguous(memory_format=lib.channels_last)
        if form == "transposed":
            return x.reshape((shape[1], shape[0]) + shape[2:]).transpose(0, 1)
        return x.reshape(shape)

    failures = []
    count = 0
    forms = ("contiguous", "channels_last", "transposed")
    for first, second, dim in itertools.product(forms, forms, (0, 1, 3)):
        for shape in ((2, 3, 2, 2), (1, 2, 1, 2), (2, 1, 3, 3)):
            count += 1
            observed = []
            for lib in LIBS:
                a, b = make(lib, shape, first), make(lib, shape, second)
                out = lib.cat([a, b, a], dim)
                try:
                    viewed = tuple(out.view(-1, out.shape[-1]).shape)
                except RuntimeError as error:
                    viewed = str(error).splitlines()[0]
                observed.append((out.stride(), viewed))
            if observed[0] != observed[1]:
                failures.append((first, second, dim, shape, observed))
    assert not failures, (f"{len(failures)} of {count}", failures[:5])


# -- elementwise results of an operand row-major but for its size-1 dims' strides ---------------
# (generated-program seed 150887: a (1, 1, 3) view strided (1, 3, 1) divided by a (3, 1)
# tensor: NumPy calls the view row-major and so did leafgrad's result; TensorIterator orders
# the dims by those strides too and torch's (1, 3, 3) result is (1, 1, 3)-strided, not
# contiguous, so a Linear then took matmul + add where leafgrad took addmm)

def test_broadcast_results_follow_size_one_strides():
    # (the first operand (1, 1, 3) with other strides than row-major ones in its size-1 dims,
    # which the other operand's shape extends)
    failures = []
    count = 0
    forms = ("x / y", "x * y", "x + y", "x - y", "lib.maximum(x, y)", "lib.atan2(x, y)",
             "x.add(y, alpha=2)")
    views = ("a.reshape(3, 1).unsqueeze(-3).transpose(-3, -1).transpose(2, 1)",  # (1, 3, 1)
             "a.unsqueeze(-1).unsqueeze(-1).permute(2, 1, 0)",  # strided (1, 1, 1)
             "a.reshape(1, 1, 3)")  # (row-major)
    # (not here: the strides of the result's own size-1 dims, where TensorIterator's order puts
    # them (x / y with y (2, 1, 1): torch (3, 1, 1), leafgrad (3, 3, 1)): not replayed yet)
    others = ((3, 1), (3, 3), (2, 3, 1), (2, 3, 3))
    for form, view, other in itertools.product(forms, views, others):
        observed = []
        for lib in LIBS:
            a = lib.arange(1.0, 4.0)
            x = eval(view, {"a": a})
            y = lib.arange(2.0, 2.0 + float(np.prod(other))).reshape(other)
            out = eval(form, {"lib": lib, "x": x, "y": y})
            observed.append((tuple(out.shape), out.stride(), out.is_contiguous()))
        count += 1
        if observed[0] != observed[1]:
            failures.append((form, view, other, observed))
    assert not failures, (f"{len(failures)} of {count}", failures[:5])


# -- bmm of transposed operands with an inner size of 1 -------------------------------------------
# (generated-program seed 162366: bmm's outer-product path (k == 1) returned NumPy's layout of
# a transposed operand, (2, 6, 1) for torch's row-major (4, 2, 1); a dropout after it drew its
# mask in memory order, so other elements were zeroed)

def test_matmul_of_transposed_operands_is_row_major():
    shapes = ((3, 2, 1), (2, 1, 3), (1, 2), (2, 1), (3, 1, 2), (2, 3, 1, 2), (1, 1, 1))
    failures = []
    count = 0
    for left, right in itertools.product(shapes, shapes):
        for transposed in itertools.product((None, -2, 0), (None, -2, 0)):
            if transposed == (None, None):
                continue
            observed = []
            for lib in LIBS:
                def make(shape, flip, start):
                    # a view of the shape with dims (flip, -1) transposed in memory
                    values = lib.arange(float(start), float(start + np.prod(shape)))
                    if flip is None or len(shape) < 2 or flip == 0 and len(shape) < 3:
                        return values.reshape(shape)
                    swapped = list(shape)
                    swapped[flip], swapped[-1] = swapped[-1], swapped[flip]
                    return values.reshape(swapped).transpose(flip, -1)

                a, b = make(left, transposed[0], 1), make(right, transposed[1], 2)
                try:
                    out = lib.matmul(a, b)
                except RuntimeError as error:
                    observed.append(str(error).splitlines()[0])
                    continue
                observed.append((out.stride(), out.detach().numpy().tolist()))
            count += 1
            if observed[0] != observed[1]:
                failures.append((left, right, transposed, observed))
    assert not failures, (f"{len(failures)} of {count}", failures[:5])


# -- relu's backward orders its result by the result first -------------------------------------
# (generated-program seed 167607: threshold_backward's TensorIterator takes self (relu's result)
# before the gradient; leafgrad ordered by the gradient, so a transposed gradient of a
# row-major result gave a transposed input gradient, which the next reshape copied
# (UnsafeViewBackward0) where torch's views it (ViewBackward0))

def test_relu_backward_layout_follows_the_result():
    failures = []
    count = 0
    layouts = ("contiguous", "transposed", "expanded")
    for shape, x_layout, grad_layout, create_graph in itertools.product(
            ((2, 3, 4), (2, 2, 2), (3, 4), (1, 3, 2)), layouts[:2], layouts, (False, True)):
        count += 1
        observed = []
        for lib in LIBS:
            def make(layout, start):
                values = lib.arange(float(start), float(start + np.prod(shape))) - 5.5
                if layout == "transposed":
                    return values.reshape(shape[::-1]).permute(
                        *reversed(range(len(shape))))
                if layout == "expanded":
                    return lib.tensor(1.5).expand(shape)
                return values.reshape(shape)

            x = make(x_layout, 0).detach().requires_grad_()
            y = lib.relu(x * 1)
            (grad,) = lib.autograd.grad(y, [x], make(grad_layout, 3), create_graph=create_graph)
            viewed = grad.reshape(-1, shape[-1])
            observed.append((grad.stride(), None if viewed.grad_fn is None
                             else viewed.grad_fn.name()))
        if observed[0] != observed[1]:
            failures.append((shape, x_layout, grad_layout, create_graph, observed))
    assert not failures, (f"{len(failures)} of {count}", failures[:5])


# -- group_norm's forward on small inputs: torch's kernel --------------------------------------
# (generated-program seeds 161770, 180246: a value near zero after the mean's cancellation
# printed other digits (-8.4189e-04); the replay of torch's kernel (ops/_norm_kernels.py) now
# runs by default up to 4096 elements)

def test_small_group_norm_forward_bits():
    failures = []
    count = 0
    cases = itertools.product(((2, 3, 4), (2, 6, 5), (1, 4, 3, 3), (3, 8, 7), (2, 3, 1),
                               (2, 4, 2, 2)), (1, "all"), ("contiguous", "channels_last"),
                              (False, True))
    for shape, groups, layout, affine in cases:
        if layout == "channels_last" and len(shape) != 4:
            continue
        groups = shape[1] if groups == "all" else groups
        count += 1
        rng = np.random.default_rng(count)
        x = rng.standard_normal(shape).astype(np.float32)
        weight = rng.standard_normal(shape[1]).astype(np.float32)
        bias = rng.standard_normal(shape[1]).astype(np.float32)
        observed = []
        for lib in LIBS:
            xt = lib.tensor(x)
            if layout == "channels_last":
                xt = xt.contiguous(memory_format=lib.channels_last)
            w, b = (lib.tensor(weight), lib.tensor(bias)) if affine else (None, None)
            observed.append(_bits(lib.nn.functional.group_norm(xt, groups, w, b, eps=1e-3)))
        if observed[0] != observed[1]:
            failures.append((shape, groups, layout, affine))
    assert not failures, (f"{len(failures)} of {count}", failures[:10])


# -- layer_norm without bias: torch adds beta = 0 -------------------------------------------------
# (generated-program seed 168774: a float64 -0. equal to its row's mean stayed -0. where torch's
# kernel adds a zero bias and prints 0.0000; the float32 replay already did so)

def test_layer_norm_zero_signs_without_bias():
    failures = []
    count = 0
    cases = itertools.product(("float64", "float32"), ((1, 3), (2, 4), (3, 2, 4), (2, 80)),
                              (False, True), (1, -1))
    for dtype, shape, has_weight, sign in cases:
        count += 1
        rng = np.random.default_rng(count)
        x = rng.choice([-0.0, 0.0, 1.0, -1.0, 0.5], size=shape)
        x[..., 0] = -0.0
        x[..., 1:] = np.where(rng.random(x[..., 1:].shape) < 0.5, -x[..., 1:], x[..., 1:])
        weight = sign * (rng.random(shape[-1]) + 0.5)
        observed = []
        for lib in LIBS:
            kind = getattr(lib, dtype)
            w = lib.tensor(weight, dtype=kind) if has_weight else None
            y = lib.nn.functional.layer_norm(lib.tensor(x, dtype=kind), (shape[-1],), w)
            observed.append(y)
        if not _zero_signs(*observed):
            failures.append((dtype, shape, has_weight, sign))
    assert not failures, (f"{len(failures)} of {count}", failures[:10])
