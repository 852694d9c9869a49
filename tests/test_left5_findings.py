"""Differences from torch 2.13 found in the left5 review, each checked against torch itself.

1. Full sums past 32,768 elements follow torch's split among its threads (each thread's partial
   sum rounded to float16/bfloat16); float16 and bfloat16 add in float32 in torch's lane order.
2. float16/bfloat16 softmax and log_softmax round where torch's kernels round (forward and
   backward, every dim, threads splitting a non-last dim's positions).
3. The conjugate and negative bits follow views and aliases of a ``conj()`` tensor (leafgrad's
   conj stays eager: writing into ``z.conj()`` does not reach ``z``; see ops/complex.py).
4. An empty view's storage_offset() is torch's (NumPy leaves an empty view's data pointer at its
   parent's), its strides too, through slices, narrow, select, split, unbind, diagonal and
   the views and aliases of those.
5. scaled_dot_product_attention records torch's fused CPU node
   (ScaledDotProductFlashAttentionForCpuBackward0 over query, key, value) where torch's CPU
   dispatch takes that kernel, and the math path's nodes elsewhere.
6. ``ops.aten.<op>.<overload>`` for the common ops: torch's reprs, names and overload lists,
   the nodes each overload records (aten.add.Scalar: AddBackward1), torch's errors for
   unknown operators and overloads.
"""

from __future__ import annotations

import contextlib
import itertools

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


@contextlib.contextmanager
def _threads(count: int):
    """torch and leafgrad both on ``count`` threads."""
    previous = torch.get_num_threads(), leafgrad.get_num_threads()
    torch.set_num_threads(count)
    leafgrad.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous[0])
        leafgrad.set_num_threads(previous[1])


def _same_bits(ours, theirs, label) -> None:
    ours = ours.detach()
    theirs = theirs.detach()
    if theirs.dtype == torch.bfloat16:
        assert ours.dtype == leafgrad.bfloat16, label
        ours, theirs = ours.float(), theirs.float()
    ours, theirs = ours.numpy(), theirs.numpy()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, label
    assert ours.tobytes() == theirs.tobytes(), (label, ours, theirs)


def _cancelling(rng, size: int) -> np.ndarray:
    """Small values and a few large ones that cancel: float32's order of additions and every
    rounding to float16 show in the result."""
    data = rng.random(size) * 2.0 ** rng.integers(-14, -8, size)
    count = max(1, size // 50)
    where = rng.permutation(size)[: 2 * count]
    large = 2.0 ** rng.integers(8, 15, count)
    data[where[:count]] = large
    data[where[count:]] = -large
    # float32: torch converts float64 to float16 through float32 (two roundings), leafgrad
    # directly (a separate difference)
    return data.astype(np.float32)


# sizes around torch's GRAIN_SIZE (32768) and the thread split (chunks of ceil(n / threads)),
# by thread count (one thread never splits)
_SIZES = {1: [1, 15, 16, 17, 33, 4097, 32768, 65537], 2: [32768, 32769, 65535, 98305],
          3: [32769, 65536]}


def _full_forms(m, data, dtype):
    x = m.tensor(data, dtype=getattr(m, dtype))
    block = x[: x.numel() // 4 * 4].reshape(4, -1)
    with_nan = x.clone()
    with_nan[:: 7] = float("nan")
    yield "sum", x.sum()
    yield "mean", x.mean()
    yield "sum(dims)", block.sum((0, 1), keepdim=True)
    yield "mean(dims)", block.mean((1, 0))
    yield "t().sum", block.t().sum()
    yield "t().mean", block.t().mean()
    yield "strided", x[::3].sum()
    if dtype != "bfloat16":  # a non-dense bfloat16 tensor: not replayed (reduce.py)
        yield "sliced", block[:, 1:].sum()
    yield "sliced.mean", block[:, 1:].mean()
    yield "nansum", with_nan.nansum()
    yield "torch.sum", m.sum(x)
    if dtype == "float16":  # torch's nansum has no bfloat16 kernel
        yield "nansum(dims)", with_nan[: x.numel() // 4 * 4].reshape(4, -1).nansum((0, 1))
        yield "mse_loss(sum)", m.nn.functional.mse_loss(x, m.zeros_like(x), reduction="sum")
        yield "l1_loss", m.nn.functional.l1_loss(x, m.zeros_like(x))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_full_sums_replay_torchs_threads(dtype):
    rng = np.random.default_rng(5)
    for threads, sizes in _SIZES.items():
        with _threads(threads):
            for size in sizes:
                data = _cancelling(rng, size)
                for (name, ours), (_, theirs) in zip(_full_forms(leafgrad, data, dtype),
                                                     _full_forms(torch, data, dtype)):
                    _same_bits(ours, theirs, (dtype, threads, size, name))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_full_sums_split_among_threads(dtype):
    """Up to _cascade_sum.ORDER_LIMIT (65,536) elements float32/float64 sums replay torch's
    order, past 32,768 its split among threads too."""
    rng = np.random.default_rng(6)
    for threads in (1, 2, 3):
        with _threads(threads):
            for size in (32768, 32769, 40000, 65536):
                data = rng.standard_normal(size) * 1000 + 1
                for (name, ours), (_, theirs) in zip(_full_forms(leafgrad, data, dtype),
                                                     _full_forms(torch, data, dtype)):
                    if name not in ("strided", "sliced", "sliced.mean"):  # NumPy's order
                        _same_bits(ours, theirs, (dtype, threads, size, name))


def test_float16_sums_and_means_over_dims():
    """float16 over some dims: float32 additions in torch's order (past ORDER_LIMIT too), one
    rounding; over every dim: the full sum's; nansum as sum with NaNs read as 0."""
    rng = np.random.default_rng(7)
    with _threads(2):
        for shape in [(3, 5, 7), (2, 40, 33), (17, 2049), (2049, 17), (300, 300), (40000, 2)]:
            data = _cancelling(rng, int(np.prod(shape))).reshape(shape)
            data[0].flat[0] = np.nan
            for m_data in [data]:
                ours_x = leafgrad.tensor(m_data, dtype=leafgrad.float16)
                theirs_x = torch.tensor(m_data, dtype=torch.float16)
                for r in range(1, len(shape) + 1):
                    for dims in itertools.combinations(range(len(shape)), r):
                        for keepdim in ((False, True) if len(dims) == 1 else (r % 2 == 0,)):
                            label = (shape, dims, keepdim)
                            if len(dims) == len(shape):  # (float16 nansum over some dims
                                # rounds in torch's float16 kernel: not replayed)
                                _same_bits(ours_x.nansum(dims, keepdim),
                                           theirs_x.nansum(dims, keepdim), label + ("nansum",))
                            ours_y = ours_x.nan_to_num()
                            theirs_y = theirs_x.nan_to_num()
                            _same_bits(ours_y.sum(dims, keepdim), theirs_y.sum(dims, keepdim),
                                       label + ("sum",))
                            _same_bits(ours_y.mean(dims, keepdim), theirs_y.mean(dims, keepdim),
                                       label + ("mean",))


def test_sums_over_dims_of_transposed_tensors():
    """A transposed (dense) tensor's sum over dims adds as its contiguous permutation where
    TensorIterator walks it so: the kept dims in memory order."""
    rng = np.random.default_rng(8)
    with _threads(1):
        for shape in [(50, 70), (7, 300), (300, 7), (33, 17, 9), (4, 40, 40)]:
            for dtype in ("float32", "float64", "float16"):
                data = rng.standard_normal(shape) * 1000
                ours_x = leafgrad.tensor(data, dtype=getattr(leafgrad, dtype))
                theirs_x = torch.tensor(data, dtype=getattr(torch, dtype))
                for perm in itertools.permutations(range(len(shape))):
                    ours, theirs = ours_x.permute(perm), theirs_x.permute(perm)
                    memory_order = [perm.index(d) for d in range(len(shape))]
                    for r in range(1, len(shape)):
                        for dims in itertools.combinations(range(len(shape)), r):
                            kept = [d for d in memory_order if d not in dims]
                            if kept != sorted(kept):
                                continue  # NumPy's order (the kept dims out of memory order)
                            for fn in ("sum", "mean"):
                                _same_bits(getattr(ours, fn)(dims), getattr(theirs, fn)(dims),
                                           (shape, dtype, perm, dims, fn))


_SOFTMAX_SHAPES = [(), (0,), (1,), (7,), (3, 5), (4, 17), (2, 33, 9), (5, 100), (3, 300), (64,),
                   (2, 3, 4, 5), (16, 16), (3, 40, 7), (3, 4, 40), (0, 3)]


def _softmax_run(m, data, dtype, name, dim, create_graph):
    x = m.tensor(data, dtype=getattr(m, dtype), requires_grad=True)
    if name == "method":
        y = x.softmax(dim)
    elif name == "log_method":
        y = x.log_softmax(dim)
    else:
        y = getattr(m.nn.functional, name)(x.t() if x.ndim == 2 else x, dim)
    weight = m.tensor(np.cos(np.arange(y.numel(), dtype=np.float32)).reshape(y.shape),
                      dtype=y.dtype)
    (grad,) = m.autograd.grad((y * weight).sum(), x, create_graph=create_graph)
    return y, grad


def _softmax_cases():
    """Every shape and dim on one thread, forward and plain backward; two threads where
    they split a non-last dim's positions; the method forms and create_graph's backward
    (the _softmax_backward_data ops) on a few shapes (torch's float16 softmax takes ~7 ms a
    call here)."""
    for shape in _SOFTMAX_SHAPES:
        for dim in range(-len(shape), len(shape)) if shape else (0, -1):
            for name in ("softmax", "log_softmax"):
                yield 1, shape, dim, name, False
    for shape in [(3, 40, 7), (2, 3, 20, 40)]:
        for dim in range(len(shape) - 1):
            yield 2, shape, dim, "softmax", False
    for shape in [(), (4, 17), (2, 33, 9)]:
        for dim in (0, -1):
            for name in ("method", "log_method"):
                yield 1, shape, dim, name, True


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_softmax_bits(dtype):
    rng = np.random.default_rng(9)
    for threads, shape, dim, name, create_graph in _softmax_cases():
        data = (rng.standard_normal(shape) * 4).astype(np.float32)
        with _threads(threads):
            ours = _softmax_run(leafgrad, data, dtype, name, dim, create_graph)
            theirs = _softmax_run(torch, data, dtype, name, dim, create_graph)
        label = (dtype, threads, shape, dim, name, create_graph)
        _same_bits(ours[0], theirs[0], label + ("forward",))
        _same_bits(ours[1], theirs[1], label + ("backward",))
        assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()


def _conj_forms(m, dtype):
    x = m.tensor([[1 + 2j, 3 - 4j], [5j, 6]], dtype=getattr(m, dtype))
    y = x.conj()
    forms = {
        "conj": y, "detach": y.detach(), "data": y.data, "select": y[0], "t": y.t(),
        "view": y.view(4), "reshape": y.reshape(4), "slice": y[:, 1:], "unsqueeze": y.unsqueeze(0),
        "expand": y[:1].expand(3, 2), "permute": y.permute(1, 0), "narrow": y.narrow(1, 0, 1),
        "flatten": y.flatten(), "diagonal": y.diagonal(), "unbind": y.unbind(0)[1],
        "to": y.to(getattr(m, "complex128")), "clone": y.clone(), "contiguous": y.contiguous(),
        "resolve_conj": y[0].resolve_conj(), "conj_physical": x.conj_physical(), "mH": y.mH,
        "x.mH": x.mH, "adjoint": x.adjoint(), "conj.conj": y.conj(), "conj.t.conj": y.t().conj(),
        "imag": y.imag, "imag.view": y.imag[0], "real": y.real, "x": x, "neg": y.neg(),
        "real tensor": m.tensor([1.0, 2.0]).conj(),
    }
    return {name: (t.is_conj(), t.is_neg()) for name, t in forms.items()}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_conj_bits_follow_views(dtype):
    assert _conj_forms(leafgrad, dtype) == _conj_forms(torch, dtype)
    for m in (leafgrad, torch):  # what the bit refuses, on a view too
        y = m.tensor([[1 + 2j, 3 - 4j]], dtype=getattr(m, dtype)).conj()
        for refused in (lambda: y[0].numpy(), lambda: m.view_as_real(y.t())):
            with pytest.raises(RuntimeError) as info:
                refused()
            message = str(info.value).splitlines()[0]
            assert message.startswith(("Can't call numpy() on Tensor that has conjugate bit",
                                       "view_as_real doesn't work on unresolved conjugated"))


def _empty_views(m):
    x = m.arange(6.0).reshape(2, 3)
    y = m.arange(24.0).reshape(2, 3, 4)
    w = m.zeros(3, 4, requires_grad=True)
    forms = {
        "x[:, 3:]": lambda: x[:, 3:], "x[2:]": lambda: x[2:], "x[:, 1:1]": lambda: x[:, 1:1],
        "x[1:1, 2:]": lambda: x[1:1, 2:], "x[:, 5:]": lambda: x[:, 5:],
        "x[:, -1:-1]": lambda: x[:, -1:-1], "x[:, ::2][:, 2:]": lambda: x[:, ::2][:, 2:],
        "narrow": lambda: x.narrow(1, 3, 0), "narrow0": lambda: x.narrow(0, 1, 0),
        "y[:, :, 4:]": lambda: y[:, :, 4:], "y[:, 2:2]": lambda: y[:, 2:2], "y[1:1]": lambda: y[1:1],
        "y[1, :, 4:]": lambda: y[1, :, 4:], "y[:, :, 4:][0]": lambda: y[:, :, 4:][0],
        "select": lambda: y[:, :, 4:].select(1, 2), "select-1": lambda: y[:, :, 4:].select(1, -1),
        "transpose": lambda: y[:, 3:].transpose(0, 2), "t()[3:]": lambda: x.t()[3:],
        "unsqueeze": lambda: x[:, 3:].unsqueeze(0), "view": lambda: x[:, 3:].view(2, 0),
        "reshape": lambda: x[:, 3:].reshape(0, 2), "expand": lambda: x[:, 3:].expand(3, 2, 0),
        "permute": lambda: y[:, :, 4:].permute(2, 0, 1), "unbind": lambda: y[:, :, 4:].unbind(1)[2],
        "split": lambda: x.split(3, 1)[-1][:, 3:], "split_sizes": lambda: x.split([3, 0], 1)[1],
        "chunk": lambda: m.zeros(2, 0).chunk(2, 0)[1], "diagonal": lambda: x[:, 3:].diagonal(),
        "diagonal(1)": lambda: x[:1, 2:2].diagonal(1), "nested": lambda: x[:, 2:][:, 1:],
        "zeros(0, 3)[:, 1:]": lambda: m.zeros(0, 3)[:, 1:], "contiguous": lambda: x[:, 3:].contiguous(),
        "flatten": lambda: y[..., 4:].flatten(1), "detach": lambda: x[:, 3:].detach(),
        "data": lambda: x[:, 3:].data, "requires_grad": lambda: w[1:1, 2:],
        "squeeze": lambda: y[:1, :, 4:].squeeze(0), "movedim": lambda: y[:, 3:].movedim(0, -1),
        "clone": lambda: x[:, 3:].clone(), "empty": lambda: m.empty(2, 0),
    }
    return {name: (tuple(f().shape), f().stride(), f().storage_offset(), f().is_contiguous())
            for name, f in forms.items()}


def test_empty_views_storage_offsets_and_strides():
    assert _empty_views(leafgrad) == _empty_views(torch)


def _attention(m, dtype, mask, dropout, causal, requires, shapes=((2, 3, 4, 8), (2, 3, 5, 8))):
    rng = np.random.default_rng(10)
    q_shape, k_shape = shapes
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (q_shape, k_shape, k_shape)]
    inputs = [m.tensor(a, dtype=getattr(m, dtype), requires_grad=r)
              for a, r in zip(arrays, requires)]
    length, source = q_shape[-2], k_shape[-2]
    options = {"dropout_p": dropout, "is_causal": causal}
    if mask == "bool":
        options["attn_mask"] = m.tensor(rng.random((length, source)) > 0.3)
    elif mask == "bool 4-d":
        options["attn_mask"] = m.tensor(rng.random((2, 1, length, source)) > 0.3)
    elif mask == "float":
        options["attn_mask"] = m.tensor(rng.standard_normal((length, source)).astype(np.float32),
                                        dtype=getattr(m, dtype))
    elif mask == "float requires grad":
        options["attn_mask"] = m.zeros(length, source, dtype=getattr(m, dtype),
                                       requires_grad=True)
    elif mask == "fully masked row":
        allowed = np.ones((length, source), bool)
        allowed[1] = False
        options["attn_mask"] = m.tensor(allowed)
    try:
        out = m.nn.functional.scaled_dot_product_attention(*inputs, **options)
    except RuntimeError as error:
        return "error", str(error).splitlines()[0]
    node = out.grad_fn
    nodes = (node.name(), tuple((n.name() if n is not None else None, i)
                                for n, i in node.next_functions))
    if dropout:  # (random: the structure only)
        return nodes, tuple(out.shape)
    weight = m.tensor(np.cos(np.arange(out.numel(), dtype=np.float32)).reshape(out.shape),
                      dtype=out.dtype)
    grads = m.autograd.grad((out * weight).sum(), [x for x in inputs if x.requires_grad])
    return nodes, out.detach().double().numpy(), [g.double().numpy() for g in grads]


def test_sdpa_records_torchs_fused_cpu_node():
    tolerance = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 2e-2}
    cases = [("float32", None, 0.0, False, requires)
             for requires in itertools.product((False, True), repeat=3) if any(requires)]
    cases += [(dtype, mask, dropout, causal, requires)
              for dtype in ("float32", "float64")
              for mask in (None, "bool", "float", "float requires grad")
              for dropout in (0.0, 0.5) for causal in (False, True)
              for requires in ((True, True, True), (False, True, False))]
    cases += [(dtype, mask, 0.0, causal, (True, True, True))
              for dtype in ("float16", "bfloat16", "float32")
              for mask in (None, "bool 4-d", "fully masked row") for causal in (False, True)
              if dtype == "float32" or not causal]
    for dtype, mask, dropout, causal, requires in cases:
        ours = _attention(leafgrad, dtype, mask, dropout, causal, requires)
        theirs = _attention(torch, dtype, mask, dropout, causal, requires)
        label = (dtype, mask, dropout, causal, requires)
        assert ours[0] == theirs[0], label
        if ours[0] == "error" or dropout:
            assert ours[1] == theirs[1], label
            continue
        tol = tolerance[dtype]
        np.testing.assert_allclose(ours[1], theirs[1], rtol=tol, atol=tol, err_msg=str(label))
        for got, want in zip(ours[2], theirs[2]):
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=str(label))
    # the math path where torch's dispatch refuses the fused kernel: 3-d and 5-d inputs,
    # different head dims, a mask that requires grad (above), dropout (above)
    for shapes in [((3, 4, 8), (3, 5, 8)), ((2, 1, 3, 4, 8), (2, 1, 3, 5, 8))]:
        ours = _attention(leafgrad, "float32", None, 0.0, False, (True, True, True), shapes)
        theirs = _attention(torch, "float32", None, 0.0, False, (True, True, True), shapes)
        assert ours[0] == theirs[0], shapes


def _aten_probe(m):
    a = m.ops.aten
    out = []
    x = m.tensor([[1., -2.], [3., 4.]], requires_grad=True)
    w = m.tensor([[0.5, 1.], [2., -1.]], requires_grad=True)
    calls = [
        ("add.Tensor", lambda: a.add.Tensor(x, w, alpha=2)), ("add.Scalar", lambda: a.add.Scalar(x, 2)),
        ("add", lambda: a.add(x, 1)), ("sub.Tensor", lambda: a.sub.Tensor(x, w)), ("mul.Tensor", lambda: a.mul.Tensor(x, w)),
        ("mul.Scalar", lambda: a.mul.Scalar(x, 3)), ("div.Tensor", lambda: a.div.Tensor(x, w)), ("div.Scalar", lambda: a.div.Scalar(x, 4)), ("sub.Scalar", lambda: a.sub.Scalar(x, 2, 3)), ("add.Scalar alpha", lambda: a.add.Scalar(x, 2, 3)),
        ("div.Tensor_mode", lambda: a.div.Tensor_mode(x, w, rounding_mode="floor")),
        ("mm.default", lambda: a.mm.default(x, w)), ("bmm", lambda: a.bmm.default(x[None], w[None])), ("matmul", lambda: a.matmul.default(x, w)),
        ("addmm", lambda: a.addmm.default(x, x, w, beta=2)), ("relu.default", lambda: a.relu.default(x)),
        ("sigmoid", lambda: a.sigmoid.default(x)), ("tanh", lambda: a.tanh.default(x)), ("exp", lambda: a.exp.default(x)),
        ("neg", lambda: a.neg.default(x)), ("abs", lambda: a.abs.default(x)), ("sin", lambda: a.sin.default(x)),
        ("sum.default", lambda: a.sum.default(x)), ("sum.dim_IntList", lambda: a.sum.dim_IntList(x, [0], True)),
        ("sum", lambda: a.sum(x)), ("mean.default", lambda: a.mean.default(x)), ("mean.dim", lambda: a.mean.dim(x, [1])),
        ("view.default", lambda: a.view.default(x, [4])), ("reshape", lambda: a.reshape.default(x, [4, 1])),
        ("t.default", lambda: a.t.default(x)), ("transpose.int", lambda: a.transpose.int(x, 0, 1)),
        ("permute", lambda: a.permute.default(x, [1, 0])), ("unsqueeze", lambda: a.unsqueeze.default(x, 0)),
        ("squeeze.dim", lambda: a.squeeze.dim(x[None], 0)), ("expand", lambda: a.expand.default(x[:1], [3, 2])),
        ("clone", lambda: a.clone.default(x)), ("detach", lambda: a.detach.default(x)),
        ("cat", lambda: a.cat.default([x, w], 1)), ("stack", lambda: a.stack.default([x, w])),
        ("softmax.int", lambda: a.softmax.int(x, 1)), ("log_softmax.int", lambda: a.log_softmax.int(x, 0)),
        ("pow.Tensor_Scalar", lambda: a.pow.Tensor_Scalar(x, 2)), ("pow.Tensor_Tensor", lambda: a.pow.Tensor_Tensor(w.abs(), x)),
        ("linear", lambda: a.linear.default(x, w)), ("mse_loss", lambda: a.mse_loss.default(x, w, 2)),
        ("gelu", lambda: a.gelu.default(x, approximate="tanh")), ("where.self", lambda: a.where.self(x > 0, x, w)),
        ("flatten", lambda: a.flatten.using_ints(x)), ("select.int", lambda: a.select.int(x, 1, 0)),
        ("index_select", lambda: a.index_select.default(x, 0, m.tensor([1, 0]))), ("gather", lambda: a.gather.default(x, 1, m.tensor([[1], [0]]))),
        ("zeros_like", lambda: a.zeros_like.default(x)),
    ]
    for name, f in calls:
        try:
            y = f()
            out.append((name, y.detach().numpy().round(5).tolist(), y.grad_fn.name() if y.grad_fn else None))
        except Exception as e:
            out.append((name, type(e).__name__, str(e).splitlines()[0]))
    out.append(("reprs", repr(a.add), str(a.add), repr(a.add.Tensor), str(a.add.Tensor), a.add.Tensor.name(), a.mm.default.name(), str(a.add.Tensor.overloadpacket), a.add.Tensor._overloadname, a.add._qualified_op_name, a.add.__name__, type(a.add).__name__, type(a.add.Tensor).__name__))
    for op in ("add", "mul", "sum", "mm", "view", "t", "relu", "softmax", "tanh", "squeeze", "where"):
        out.append((op, getattr(a, op).overloads()))
    for bad in (lambda: a.nosuchop, lambda: a.add.nosuch, lambda: a.mm.default(x, m.ones(3, 3))):
        try: bad()
        except Exception as e: out.append((type(e).__name__, str(e).splitlines()[0]))
    return out


def test_aten_namespace_overloads():
    ours, theirs = _aten_probe(leafgrad), _aten_probe(torch)
    assert len(ours) == len(theirs)
    for got, want in zip(ours, theirs):
        assert got == want
    # the namespace prints as torch's, with leafgrad's module name
    assert repr(leafgrad.ops.aten).replace("leafgrad", "torch") == repr(torch.ops.aten)
