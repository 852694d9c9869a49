"""Defects found in review, each tested as a class against torch 2.13.

1. Index, mask and target tensors are saved for backward (Note: saved index tensors in
   ops/registry.py): changing one in place before backward raises torch's error instead of
   silently giving the gradient of the new index.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _outcome(fn, module):
    """What ``fn(module)`` gives: ("ok", [arrays]) or ("raise", type name, first line)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(module)
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return ("raise", type(error).__name__, str(error).split("\n")[0])
    return ("ok", [np.asarray(r.detach().numpy()) if hasattr(r, "detach") else r
                   for r in result])


def _same(fn):
    want = _outcome(fn, torch)
    got = _outcome(fn, leafgrad)
    assert got[0] == want[0], (got, want)
    if want[0] == "raise":
        assert got[1:] == want[1:]
    else:
        assert len(got[1]) == len(want[1])
        for g, w in zip(got[1], want[1]):
            if isinstance(w, np.ndarray):
                assert isinstance(g, np.ndarray)
                assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
                np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
            else:  # None, or a description (names, versions, flags)
                assert g == w


def _leaf(T, data, dtype=None):
    return T.tensor(data, dtype=dtype or T.float64).requires_grad_()


# -- item 1: index tensors are saved -------------------------------------------------------------
# Each case: (name, op(T, x, index) -> result, x data, index(T), what the mutation does)

def _idx(values, dtype="int64"):
    return lambda T: T.tensor(values, dtype=getattr(T, dtype))


def _bump(index):
    """An in-place change that keeps every index valid (a permutation of the values)."""
    flat = index.reshape(-1)
    if flat.numel():
        flat[0] = flat[-1].clone()
    else:
        index.add_(0)


X2 = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
X1 = [1.0, 2.0, 3.0, 4.0]

INDEX_CASES = [
    ("gather", lambda T, x, i: x.gather(1, i), X2, _idx([[0, 2], [1, 0]])),
    ("gather_fn", lambda T, x, i: T.gather(x, 1, i), X2, _idx([[0, 2], [1, 0]])),
    ("gather_empty", lambda T, x, i: x.gather(1, i), X2, lambda T: T.zeros(2, 0,
                                                                              dtype=T.int64)),
    ("gather_0d", lambda T, x, i: x.sum().gather(0, i), X1, lambda T: T.tensor(0)),
    ("index_select", lambda T, x, i: x.index_select(1, i), X2, _idx([2, 0])),
    ("index_select_int32", lambda T, x, i: x.index_select(1, i), X2, _idx([2, 0], "int32")),
    ("index_select_0d", lambda T, x, i: x.index_select(0, i), X1, lambda T: T.tensor(1)),
    ("index_select_fn", lambda T, x, i: T.index_select(x, 0, i), X1, _idx([3, 1, 1])),
    ("take", lambda T, x, i: x.take(i), X2, _idx([[5, 0], [1, 1]])),
    ("take_fn", lambda T, x, i: T.take(x, i), X2, _idx([5, 0])),
    ("take_along_dim", lambda T, x, i: T.take_along_dim(x, i, 1), X2, _idx([[0], [2]])),
    ("take_along_dim_method", lambda T, x, i: x.take_along_dim(i, 1), X2, _idx([[0], [2]])),
    ("scatter_src", lambda T, x, i: x.scatter(1, i, T.ones(2, 2, dtype=T.float64)), X2,
     _idx([[0, 2], [1, 0]])),
    ("scatter_value", lambda T, x, i: x.scatter(1, i, 2.5), X2, _idx([[0, 2], [1, 0]])),
    ("scatter_add_self_only", lambda T, x, i: x.scatter_add(1, i, T.ones(2, 2,
                                                                         dtype=T.float64)),
     X2, _idx([[0, 2], [1, 0]])),
    ("scatter_add_src", lambda T, x, i: T.zeros(3, 3, dtype=T.float64).scatter_add(0, i, x),
     X2, _idx([[0, 2, 1], [1, 0, 2]])),
    ("scatter_reduce", lambda T, x, i: x.scatter_reduce(0, i, T.ones(2, dtype=T.float64),
                                                        "sum"), X1, _idx([0, 2])),
    ("scatter_reduce_amax", lambda T, x, i: T.scatter_reduce(x, 0, i, x[:2] * 2, "amax"), X1,
     _idx([0, 2])),
    ("index_add_self_only", lambda T, x, i: x.index_add(0, i, T.ones(2, dtype=T.float64)), X1,
     _idx([0, 2])),
    ("index_add_source", lambda T, x, i: T.zeros(4, dtype=T.float64).index_add(0, i, x[:2]),
     X1, _idx([0, 2])),
    ("index_add_int32", lambda T, x, i: T.zeros(4, dtype=T.float64).index_add(0, i, x[:2]),
     X1, _idx([0, 2], "int32")),
    ("index_copy", lambda T, x, i: x.index_copy(0, i, T.ones(2, dtype=T.float64)), X1,
     _idx([0, 2])),
    ("index_copy_source", lambda T, x, i: T.zeros(4, dtype=T.float64).index_copy(0, i, x[:2]),
     X1, _idx([1, 3])),
    ("index_fill", lambda T, x, i: x.index_fill(0, i, 1.5), X1, _idx([0, 2])),
    ("index_fill_tensor", lambda T, x, i: x.index_fill(0, i, T.tensor(1.5, dtype=T.float64)),
     X1, _idx([0, 2])),
    ("index_reduce", lambda T, x, i: x.index_reduce(0, i, T.ones(2, dtype=T.float64) * 2,
                                                    "prod"), X1, _idx([0, 2])),
    ("put", lambda T, x, i: x.put(i, T.ones(2, dtype=T.float64)), X1, _idx([0, 2])),
    ("put_accumulate", lambda T, x, i: x.put(i, T.ones(2, dtype=T.float64), True), X1,
     _idx([0, 2])),
    ("embedding", lambda T, x, i: T.nn.functional.embedding(i, x), X2, _idx([1, 0, 1])),
    ("embedding_2d", lambda T, x, i: T.nn.functional.embedding(i, x), X2, _idx([[1], [0]])),
    ("getitem", lambda T, x, i: x[i], X2, _idx([1, 0, 1])),
    ("getitem_cols", lambda T, x, i: x[:, i], X2, _idx([2, 0])),
    ("getitem_pair", lambda T, x, i: x[i, i], X2, _idx([1, 0])),
    ("getitem_int32", lambda T, x, i: x[:, i], X2, _idx([2, 0], "int32")),
    ("index_put", lambda T, x, i: x.index_put((i,), T.ones(2, 3, dtype=T.float64)), X2,
     _idx([1, 0])),
    ("setitem_values", lambda T, x, i: _setitem(T, x, i), X2, _idx([1, 0])),
    ("nll_loss", lambda T, x, i: T.nn.functional.nll_loss(x, i), X2, _idx([2, 0])),
    ("nll_loss_0d_target", lambda T, x, i: T.nn.functional.nll_loss(x[0], i), X2,
     lambda T: T.tensor(1)),
    ("nll_loss_3d", lambda T, x, i: T.nn.functional.nll_loss(x.reshape(1, 3, 2), i), X2,
     _idx([[2, 0]])),
    ("nll_loss_4d", lambda T, x, i: T.nn.functional.nll_loss(x.reshape(1, 3, 2, 1), i), X2,
     _idx([[[2], [0]]])),
    ("cross_entropy", lambda T, x, i: T.nn.functional.cross_entropy(x, i), X2, _idx([2, 0])),
    ("cross_entropy_smoothing",
     lambda T, x, i: T.nn.functional.cross_entropy(x, i, label_smoothing=0.2), X2,
     _idx([2, 0])),
    ("multi_margin", lambda T, x, i: T.nn.functional.multi_margin_loss(x, i), X2,
     _idx([2, 0])),
    ("multilabel_margin", lambda T, x, i: T.nn.functional.multilabel_margin_loss(x, i), X2,
     _idx([[2, 0, -1], [1, -1, 0]])),
    ("embedding_bag", lambda T, x, i: T.nn.functional.embedding_bag(
        i, x, T.tensor([0, 1])), X2, _idx([1, 0, 1])),
    ("embedding_bag_2d", lambda T, x, i: T.nn.functional.embedding_bag(i, x), X2,
     _idx([[1, 0], [0, 0]])),
    ("max_unpool2d", lambda T, x, i: T.nn.functional.max_unpool2d(
        x.reshape(1, 1, 2, 3)[..., :2], i, 2), X2, _idx([[[[0, 3], [8, 13]]]])),
]


def _setitem(T, x, i):
    y = T.zeros(2, 3, dtype=T.float64)
    y[i] = x
    return y


def _run_index_case(op, data, make_index, mutate, when="after", twice=False):
    def fn(T):
        x = _leaf(T, data)
        index = make_index(T)
        if when == "before":
            mutate(index)
        y = op(T, x, index)
        if when == "after":
            mutate(index)
        loss = (y * T.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)).sum()
        loss.backward(retain_graph=twice and when != "twice")
        if when == "twice":
            loss.backward()
        return [x.grad]

    return fn


@pytest.mark.parametrize("name,op,data,make_index", INDEX_CASES, ids=[c[0] for c in INDEX_CASES])
@pytest.mark.parametrize("when", ["never", "before", "after", "twice"])
def test_index_changed_in_place_before_backward(name, op, data, make_index, when):
    _same(_run_index_case(op, data, make_index, _bump, when))


@pytest.mark.parametrize("name,op,data,make_index", INDEX_CASES, ids=[c[0] for c in INDEX_CASES])
def test_index_base_changed_through_another_view(name, op, data, make_index):
    """A non-contiguous index (a view): changing its base bumps the version they share."""
    def fn(T):
        x = _leaf(T, data)
        index = make_index(T)
        base = T.stack([index, index], -1)
        view = base[..., 0]  # non-contiguous (for a non-empty index with a dim)
        y = op(T, x, view)
        base.add_(0)
        y.sum().backward()
        return [x.grad]

    _same(fn)


MASK = [[True, False, True], [False, False, True]]

MASK_CASES = [
    ("masked_fill", lambda T, x, m: x.masked_fill(m, 0.5)),
    ("masked_fill_tensor", lambda T, x, m: x.masked_fill(m, T.tensor(0.5, dtype=T.float64))),
    ("masked_fill_broadcast", lambda T, x, m: x.masked_fill(m[0], 0.5)),
    ("masked_select", lambda T, x, m: x.masked_select(m)),
    ("masked_select_fn", lambda T, x, m: T.masked_select(x, m)),
    ("masked_scatter", lambda T, x, m: x.masked_scatter(m, T.ones(6, dtype=T.float64))),
    ("getitem_mask", lambda T, x, m: x[m]),
    ("getitem_row_mask", lambda T, x, m: x[m[:, 0]]),
    ("where", lambda T, x, m: T.where(m, x, 0.0)),
    ("where_method", lambda T, x, m: x.where(m, -x)),
    ("setitem_mask", lambda T, x, m: _set_mask(T, x, m)),
]


def _set_mask(T, x, m):
    y = T.zeros(2, 3, dtype=T.float64)
    y[m] = x[m] * 2
    return y


@pytest.mark.parametrize("name,op", MASK_CASES, ids=[c[0] for c in MASK_CASES])
@pytest.mark.parametrize("when", ["never", "before", "after", "twice"])
@pytest.mark.parametrize("dtype", ["bool", "uint8"])
def test_mask_changed_in_place_before_backward(name, op, when, dtype):
    # (the ops other than indexing and where refuse a uint8 mask: compared as errors)
    def fn(T):
        x = _leaf(T, X2)
        mask = T.tensor(MASK, dtype=getattr(T, dtype))
        if when == "before":
            mask[0, 0] = 0
        y = op(T, x, mask)
        if when == "after":
            mask[0, 0] = 0
        loss = y.sum() * 2
        loss.backward(retain_graph=False)
        if when == "twice":
            loss.backward()
        return [x.grad]

    _same(fn)


OUTPUT_CASES = [
    ("max_dim", lambda T, x: x.max(1)),
    ("min_dim", lambda T, x: T.min(x, 0, keepdim=True)),
    ("sort", lambda T, x: x.sort(1)),
    ("sort_stable", lambda T, x: T.sort(x, stable=True, descending=True)),
    ("topk", lambda T, x: x.topk(2, 1)),
    ("kthvalue", lambda T, x: x.kthvalue(2, 1)),
    ("median_dim", lambda T, x: x.median(1)),
    ("nanmedian_dim", lambda T, x: x.nanmedian(0)),
    ("mode", lambda T, x: x.mode(1)),
    ("cummax", lambda T, x: x.cummax(1)),
    ("cummin", lambda T, x: T.cummin(x, 0)),
    ("max_pool1d", lambda T, x: T.nn.functional.max_pool1d(x[None], 2, return_indices=True)),
    ("max_pool2d", lambda T, x: T.nn.functional.max_pool2d(x[None, None], 2,
                                                            return_indices=True)),
    ("adaptive_max_pool2d", lambda T, x: T.nn.functional.adaptive_max_pool2d(
        x[None, None], 1, return_indices=True)),
]


@pytest.mark.parametrize("name,op", OUTPUT_CASES, ids=[c[0] for c in OUTPUT_CASES])
@pytest.mark.parametrize("when", ["never", "after", "twice"])
def test_returned_indices_changed_in_place_before_backward(name, op, when):
    def fn(T):
        x = _leaf(T, [[3.0, 1.0, 2.0, 0.5], [4.0, 6.0, 5.0, 7.0]])
        values, indices = op(T, x)
        if when == "after":
            indices.zero_()
        loss = (values * 3).sum()
        loss.backward()
        if when == "twice":
            loss.backward()
        return [x.grad]

    _same(fn)


def test_saved_index_accessors_give_the_index_tensor():
    for T in (torch, leafgrad):
        x = _leaf(T, X2)
        index = T.tensor([[0, 2], [1, 0]])
        assert x.gather(1, index).grad_fn._saved_index is index
        mask = T.tensor(MASK)
        assert T.where(mask, x, 0.0).grad_fn._saved_condition is mask
        assert x.masked_fill(mask, 1.0).grad_fn._saved_mask is mask
        values, indices = x.max(1)
        assert values.grad_fn._saved_indices is indices
        values, indices = x.sort(1)
        assert values.grad_fn._saved_indices is indices
        out, kept = T.native_dropout(x, 0.5, True)
        assert out.grad_fn._saved_result1 is kept


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "float32", "float64", "complex64", "complex128"])
def test_modified_message_names_the_type_as_torch(dtype):
    """torch.FloatTensor for the legacy tensor types, CPUBoolType / CPUComplexFloatType else."""
    def fn(T):
        complex_ = "complex" in dtype
        x = T.ones(2, dtype=T.complex128 if complex_ else T.float64).requires_grad_()
        other = T.ones(2, dtype=getattr(T, dtype))
        y = x * other
        other.logical_not_() if dtype == "bool" else other.add_(1)
        y.abs().sum().backward()
        return [x.grad]

    _same(fn)


def test_inplace_index_ops_on_views_save_the_index():
    """An in-place index op on a view records CopySlices; its op node keeps the index."""
    def fn(T):
        x = _leaf(T, X2)
        base = x * 1
        index = T.tensor([0, 2])
        base[0].index_fill_(0, index, 0.0)
        index[0] = 1
        base.sum().backward()
        return [x.grad]

    _same(fn)


@pytest.mark.parametrize("method", ["scatter_", "scatter_add_", "index_add_", "index_copy_",
                                    "index_fill_", "put_", "masked_fill_", "masked_scatter_",
                                    "index_put_", "scatter_reduce_", "index_reduce_"])
@pytest.mark.parametrize("when", ["never", "after"])
def test_inplace_index_ops_save_the_index(method, when):
    def fn(T):
        src = _leaf(T, [1.0, 2.0])
        y = T.zeros(4, dtype=T.float64).requires_grad_()
        target = y * 1
        index = T.tensor([2, 0])
        mask = T.tensor([True, False, True, False])
        call = {
            "scatter_": lambda: target.scatter_(0, index, src),
            "scatter_add_": lambda: target.scatter_add_(0, index, src),
            "index_add_": lambda: target.index_add_(0, index, src),
            "index_copy_": lambda: target.index_copy_(0, index, src),
            "index_fill_": lambda: target.index_fill_(0, index, 3.0),
            "put_": lambda: target.put_(index, src),
            "masked_fill_": lambda: target.masked_fill_(mask, 3.0),
            "masked_scatter_": lambda: target.masked_scatter_(mask, src),
            "index_put_": lambda: target.index_put_((index,), src),
            "scatter_reduce_": lambda: target.scatter_reduce_(0, index, src, "sum"),
            "index_reduce_": lambda: target.index_reduce_(0, index, src, "prod"),
        }[method]
        call()
        if when == "after":
            index[0] = 1
            mask[1] = True
        (target * T.arange(1.0, 5.0, dtype=T.float64)).sum().backward()
        return [y.grad, src.grad]

    _same(fn)


# -- item 2: in-place comparisons record torch's nodes ------------------------------------------

COMPARISONS = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "less_equal_",
               "not_equal_", "greater_equal_", "less_"]
OTHERS = {  # what is compared with: (other(T), whether it requires grad)
    "number": lambda T: 0.5,
    "int": lambda T: 1,
    "tensor": lambda T: T.tensor([[0.5, 2.0, -1.0], [1.0, 1.0, 9.0]], dtype=T.float64),
    "broadcast": lambda T: T.tensor([0.5, 2.0, -1.0], dtype=T.float64),
    "0d_tensor": lambda T: T.tensor(1.0, dtype=T.float64),
    "int_tensor": lambda T: T.tensor([1, 2, 0]),
    "grad_tensor": lambda T: T.tensor([0.5, 2.0, -1.0], dtype=T.float64).requires_grad_(),
}
SELF = [[-1.0, 0.5, 2.0], [1.0, 3.0, -4.0]]


def _describe(T, result, base):
    fn = result.grad_fn
    return (result.detach().numpy().tolist(), str(result.dtype).split(".")[-1],
            None if fn is None else fn.name(), result.requires_grad, base._version,
            None if fn is None else [None if n is None else n.name()
                                     for n, _ in fn.next_functions])


@pytest.mark.parametrize("method", COMPARISONS)
@pytest.mark.parametrize("other", list(OTHERS))
@pytest.mark.parametrize("target", ["leaf", "nonleaf", "view", "no_grad", "plain",
                                    "transposed"])
def test_inplace_comparison_matches_torch(method, other, target):
    def fn(T):
        x = _leaf(T, SELF)
        o = OTHERS[other](T)
        if target == "leaf":
            y = x
        elif target == "plain":
            y = x.detach().clone()
        elif target == "transposed":
            y = (x * 2).t().contiguous().t()  # non-contiguous non-leaf
        else:
            y = x * 2
        with leafgrad.no_grad() if T is leafgrad and target == "no_grad" else \
                torch.no_grad() if target == "no_grad" else _Nothing():
            if target == "view":
                r = getattr(y[1:], method)(o[1:] if getattr(o, "ndim", 0) == 2 else o)
            else:
                r = getattr(y, method)(o)
        described = _describe(T, y, y)
        grads = []
        if y.requires_grad:
            (y * T.arange(1.0, 7.0, dtype=T.float64).reshape(2, 3)).sum().backward()
            grads = [x.grad, o.grad if isinstance(o, T.Tensor) and o.requires_grad else None]
        return [T.tensor(described[0], dtype=T.float64), described[1:]] + grads \
            + [None if target != "view" else tuple(r.shape)]

    _same(fn)


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_inplace_comparison_names_and_versions():
    """The node name, edges and version bump, compared directly (torch: one bump)."""
    for method in ("gt_", "eq_", "le_"):
        got = {}
        for T in (torch, leafgrad):
            x = _leaf(T, SELF)
            y = x * 2
            getattr(y, method)(0.5)
            other = T.zeros(3, dtype=T.float64, requires_grad=True)
            z = x * 2
            getattr(z, method)(other)
            plain = T.zeros(3, dtype=T.float64)
            getattr(plain, method)(other)
            got[T] = (_describe(T, y, y), _describe(T, z, z), _describe(T, plain, plain))
        assert got[leafgrad] == got[torch]


@pytest.mark.parametrize("method", ["eq_", "ne_", "gt_"])
def test_inplace_comparison_complex(method):
    def fn(T):
        x = T.tensor([1j, 0j, 2.0 + 0j], requires_grad=True)
        y = x * 1
        getattr(y, method)(0)
        y.abs().sum().backward()
        return [x.grad, y]

    _same(fn)


@pytest.mark.parametrize("method", ["gt_", "eq_"])
def test_inplace_comparison_refuses_growing_and_keeps_self(method):
    def fn(T):
        x = _leaf(T, [1.0, 2.0, 3.0])
        y = x * 1
        try:
            getattr(y, method)(T.zeros(2, 3, dtype=T.float64))
        finally:
            kept = (y.detach().clone(), y._version, y.grad_fn.name())
            assert kept[2] == "MulBackward0"
        return [kept[0]]

    _same(fn)


def test_inplace_comparison_forward_ad_tangent_is_zero():
    def fn(T):
        fw = T.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(T.tensor([1.0, -1.0], dtype=T.float64),
                             T.tensor([3.0, 4.0], dtype=T.float64)) * 1
            d.gt_(0)
            primal, tangent = fw.unpack_dual(d)
            return [primal, tangent]

    _same(fn)


def test_inplace_comparison_under_vmap_and_create_graph():
    def fn(T):
        out = T.func.vmap(lambda t: (t * 1).gt_(0))(T.tensor([[1.0, -1.0], [-2.0, 3.0]]))
        x = _leaf(T, [1.0, -1.0])
        y = x * x
        y.gt_(0.5)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        return [out, g]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's "no batching rule for aten::gt_" warning
        _same(fn)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("method", ["eq_", "ne_", "lt_", "ge_"])
@pytest.mark.parametrize("other", ["number", "int_tensor", "0d_tensor"])
def test_inplace_comparison_keeps_self_dtype(dtype, method, other):
    def fn(T):
        x = T.tensor([[0, 1, 2], [3, 0, 1]]).to(getattr(T, dtype))
        o = OTHERS[other](T)
        return [getattr(x, method)(o), x._version]

    _same(fn)


# -- item 3: broadcast_tensors returns the tensors that need no expanding ------------------------

def _broadcast_description(T, results, inputs):
    return [(tuple(r.shape), r.stride(), None if r.grad_fn is None else r.grad_fn.name(),
             r is i, r._base is i, r.requires_grad, r.is_leaf)
            for r, i in zip(results, inputs)]


BROADCAST_CASES = {
    "one_expands": lambda T: (_leaf(T, X2), _leaf(T, [1.0, 2.0, 3.0])),
    "none_expand": lambda T: (T.ones(2, 3), T.zeros(2, 3)),
    "both_expand": lambda T: (_leaf(T, [[1.0], [2.0]]), T.ones(1, 3)),
    "single": lambda T: (_leaf(T, [1.0, 2.0]),),
    "none": lambda T: (),
    "same_tensor": lambda T: (lambda a: (a, a))(_leaf(T, X2)),
    "non_leaf": lambda T: (_leaf(T, X2) * 2, T.ones(3, 2).t()),
    "non_contiguous": lambda T: (T.ones(3, 2).t(), T.ones(3)),
    "zero_d": lambda T: (T.tensor(2.0, requires_grad=True), T.ones(2, 2)),
    "zero_d_only": lambda T: (T.tensor(2.0), T.tensor(3.0)),
    "int_and_bool": lambda T: (T.tensor([1, 2]), T.tensor([[True], [False]])),
    "mismatch": lambda T: (T.ones(2), T.ones(3)),
}


@pytest.mark.parametrize("case", list(BROADCAST_CASES))
@pytest.mark.parametrize("grad_mode", [True, False])
def test_broadcast_tensors_matches_torch(case, grad_mode):
    def fn(T):
        inputs = BROADCAST_CASES[case](T)
        with T.set_grad_enabled(grad_mode):
            results = T.broadcast_tensors(*inputs)
        grads = []
        if grad_mode and any(r.requires_grad for r in results):
            sum(((r * (k + 1)).sum() for k, r in enumerate(results) if r.requires_grad)
                ).backward()
            grads = [i.grad for i in inputs if i.is_leaf and i.requires_grad]
        described = _broadcast_description(T, results, inputs)
        if not grad_mode:
            # (requires_grad of a view made under no_grad of a tensor that requires grad:
            # torch says True, leafgrad False; a general view rule, not broadcast_tensors')
            described = [d[:5] for d in described]
        return list(results) + grads + [described]

    _same(fn)


def test_broadcast_tensors_result_of_own_shape_is_the_input():
    """In-place changes through a returned input follow torch's leaf rules, not view rules."""
    def fn(T):
        a = T.ones(2, 3, requires_grad=True)
        b = T.ones(3)
        x, y = T.broadcast_tensors(a, b)
        x.add_(1)
        return [x]

    _same(fn)


# -- item 4: index_put's shape checks are torch's -----------------------------------------------

def _mask(T):
    return T.tensor([[True, False, True], [False, False, True]])


PUT_CASES = {  # (index(T), value shape): the value broadcast to the indexing result, or not
    "mask_too_few": (_mask, (2,)), "mask_too_many": (_mask, (4,)), "mask_one": (_mask, (1,)),
    "mask_exact": (_mask, (3,)), "mask_empty_value": (_mask, (0,)),
    "mask_column": (_mask, (3, 1)), "mask_leading_ones": (_mask, (1, 1, 3)),
    "mask_0d_value": (_mask, ()),
    "mask_none_true": (lambda T: T.zeros(2, 3, dtype=T.bool), (2,)),
    "mask_none_true_1": (lambda T: T.zeros(2, 3, dtype=T.bool), (1,)),
    "row_mask": (lambda T: T.tensor([True, False]), (2,)),
    "row_mask_rows": (lambda T: T.tensor([True, False]), (2, 3)),
    "row_mask_ok": (lambda T: T.tensor([True, False]), (3,)),
    "rows": (lambda T: T.tensor([0, 1]), (4,)), "rows_ok": (lambda T: T.tensor([0, 1]), (2, 1)),
    "rows_leading": (lambda T: T.tensor([0, 1]), (1, 1, 2, 3)),
    "rows_extra": (lambda T: T.tensor([0, 1]), (3, 1, 3)),
    "pairs": (lambda T: (T.tensor([0, 1]), T.tensor([1, 2])), (3,)),
    "pairs_ok": (lambda T: (T.tensor([0, 1]), T.tensor([1, 2])), (1, 2)),
    "pairs_unbroadcastable": (lambda T: (T.tensor([0, 1]), T.tensor([0, 1, 2])), (3,)),
    "mask_and_index": (lambda T: (T.tensor([True, False]), T.tensor([0, 1, 2])), (2,)),
    "column_mask": (lambda T: (slice(None), T.tensor([True, False, True])), (3,)),
    "column_mask_ok": (lambda T: (slice(None), T.tensor([True, False, True])), (2, 1)),
    "sliced_rows": (lambda T: (slice(1, None), T.tensor([True, False, True])), (2, 2)),
    "index_2d": (lambda T: T.tensor([[0, 1]]), (2, 2, 3)),
}


@pytest.mark.parametrize("case", list(PUT_CASES))
@pytest.mark.parametrize("form", ["setitem", "index_put_", "index_put_accumulate",
                                  "index_put", "recorded_setitem"])
def test_index_put_checks_the_value_shape(case, form):
    make_index, value_shape = PUT_CASES[case]

    def fn(T):
        index = make_index(T)
        x = T.zeros(2, 3, dtype=T.float64)
        value = T.arange(1.0, 1.0 + int(np.prod(value_shape)), dtype=T.float64)
        value = value.reshape(value_shape)
        if form == "recorded_setitem":
            leaf = x.requires_grad_()
            value.requires_grad_()
            x = leaf * 1
        before = x.detach().clone()
        try:
            if form in ("setitem", "recorded_setitem"):
                x[index] = value
                result = x
            else:
                indices = index if isinstance(index, tuple) else (index,)
                if any(isinstance(i, slice) for i in indices):
                    return ["slices are not index_put's"]
                call = x.index_put if form == "index_put" else x.index_put_
                result = call(indices, value, accumulate=form == "index_put_accumulate")
        except Exception:
            assert np.array_equal(x.detach().numpy(), before.numpy())  # nothing written
            assert x._version == 0
            raise
        grads = []
        if form == "recorded_setitem":
            (result * T.arange(1.0, 7.0, dtype=T.float64).reshape(2, 3)).sum().backward()
            grads = [leaf.grad, value.grad, result.grad_fn.name(),
                     [None if n is None else n.name() for n, _ in
                      result.grad_fn.next_functions]]
        return [result] + grads

    _same(fn)


@pytest.mark.parametrize("values", [(2,), (5,), (6,), (2, 3), (0,)])
def test_masked_scatter_value_count(values):
    def fn(T):
        x = T.zeros(2, 3)
        x.masked_scatter_(_mask(T), T.ones(values))
        return [x, T.zeros(2, 3).masked_scatter(_mask(T), T.ones(values))]

    _same(fn)


@pytest.mark.parametrize("index", ["pair", "mask_pair", "three"])
def test_getitem_index_shapes_must_broadcast(index):
    def fn(T):
        x = T.zeros(2, 3, 4)
        item = {
            "pair": (T.tensor([0, 1]), T.tensor([0, 1, 2])),
            "mask_pair": (T.tensor([[True, False, True], [True, True, True]]),
                          T.tensor([0, 1, 2])),
            "three": (T.tensor([0, 1]), T.tensor([True, False, True]), T.tensor([0, 1, 2])),
        }[index]
        return [x[item]]

    _same(fn)


# -- item 6: view_as_complex has a batching rule ---------------------------------------------------

def _values(T, shape, dtype="float32", seed=0):
    data = np.random.default_rng(seed).normal(size=shape)
    return T.tensor(data.tolist(), dtype=getattr(T, dtype))


VMAP_CASES = {
    "dim0": lambda T: T.func.vmap(T.view_as_complex)(_values(T, (3, 4, 2))),
    "dim1_contiguous": lambda T: T.func.vmap(T.view_as_complex, in_dims=1)(
        _values(T, (4, 3, 2))),
    "dim_after_pair": lambda T: T.func.vmap(T.view_as_complex, in_dims=2)(
        _values(T, (4, 2, 3))),
    "vector_examples": lambda T: T.func.vmap(T.view_as_complex)(_values(T, (3, 2))),
    "transposed": lambda T: T.func.vmap(T.view_as_complex)(
        _values(T, (3, 2, 3)).transpose(1, 2)),
    "no_pair": lambda T: T.func.vmap(T.view_as_complex)(_values(T, (3, 3))),
    "float64": lambda T: T.func.vmap(T.view_as_complex)(_values(T, (3, 4, 2), "float64")),
    "int": lambda T: T.func.vmap(T.view_as_complex)(T.ones(3, 2, dtype=T.int64)),
    "nested": lambda T: T.func.vmap(T.func.vmap(T.view_as_complex))(
        _values(T, (2, 3, 4, 2))),
    "out_dims": lambda T: T.func.vmap(T.view_as_complex, out_dims=1)(_values(T, (3, 4, 2))),
    "empty_batch": lambda T: T.func.vmap(T.view_as_complex)(T.zeros(0, 4, 2)),
    "empty_example": lambda T: T.func.vmap(T.view_as_complex)(T.zeros(3, 0, 2)),
    "with_view_as_real": lambda T: T.func.vmap(
        lambda t: T.view_as_real(T.view_as_complex(t)) * 2)(_values(T, (3, 4, 2))),
    "jacrev": lambda T: T.func.jacrev(lambda t: T.view_as_complex(t).abs())(
        _values(T, (4, 2), "float64")),
    "vmap_of_vjp": lambda T: T.func.vmap(T.func.vjp(lambda t: T.view_as_complex(t * 2),
                                                    _values(T, (4, 2)))[1])(
        T.ones(5, 4, dtype=T.complex64))[0],
}


@pytest.mark.parametrize("case", list(VMAP_CASES))
def test_view_as_complex_under_vmap(case):
    def fn(T):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no per-example fallback (it warns)
            result = VMAP_CASES[case](T)
        return [result]

    _same(fn)


def test_view_as_complex_vmap_gradient():
    def fn(T):
        x = _values(T, (3, 4, 2), "float64").requires_grad_()
        out = T.func.vmap(lambda t: T.view_as_complex(t).abs())(x)
        (out * T.arange(12.0, dtype=T.float64).reshape(3, 4)).sum().backward()
        return [out, x.grad]

    _same(fn)


# -- the same class, found by a sweep: other tensors a node reads that are not graph inputs ------

def _nll_weight(T, change):
    x = _leaf(T, X2)
    weight = T.tensor([1.0, 2.0, 0.5], dtype=T.float64)
    y = T.nn.functional.nll_loss(x, T.tensor([2, 0]), weight=weight)
    if change:
        weight[0] = 3.0
    y.backward()
    return [x.grad]


def _cross_entropy_weight(T, change):
    x = _leaf(T, X2)
    weight = T.tensor([1.0, 2.0, 0.5], dtype=T.float64)
    y = T.nn.functional.cross_entropy(x.reshape(1, 3, 2), T.tensor([[2, 0]]), weight=weight)
    if change:
        weight.mul_(2)
    y.backward()
    return [x.grad]


def _native_dropout_mask(T, change):
    x = _leaf(T, X1)
    T.manual_seed(0)
    out, mask = T.native_dropout(x, 0.5, True)
    if change:
        mask.logical_not_()
    out.sum().backward()
    return [x.grad]


def _ctc_targets(T, change, dtype="int64", flat=False):
    log_probs = T.tensor(np.random.default_rng(0).normal(size=(5, 1, 4)).tolist(),
                         dtype=T.float64).log_softmax(2).detach().requires_grad_()
    targets = T.tensor([[1, 2]], dtype=getattr(T, dtype))
    if flat:
        targets = targets[0]
    loss = T.nn.functional.ctc_loss(log_probs, targets, T.tensor([5]), T.tensor([2]))
    if change:
        targets.reshape(-1)[0] = 3
    loss.backward()
    return [log_probs.grad]


SWEEP_CASES = {
    "nll_weight": _nll_weight,
    "cross_entropy_weight": _cross_entropy_weight,
    "native_dropout_mask": _native_dropout_mask,
    "ctc_targets": _ctc_targets,
    "ctc_targets_flat": lambda T, change: _ctc_targets(T, change, flat=True),
    "ctc_targets_int32": lambda T, change: _ctc_targets(T, change, dtype="int32"),
}


@pytest.mark.parametrize("case", list(SWEEP_CASES))
@pytest.mark.parametrize("change", [False, True])
def test_other_saved_tensors_changed_in_place(case, change):
    _same(lambda T: SWEEP_CASES[case](T, change))


def _double_backward_case(op, data, make_index, change, mutate=_bump):
    def fn(T):
        x = _leaf(T, data)
        index = make_index(T)
        y = op(T, x, index)
        c = T.ones_like(y).requires_grad_()
        g, = T.autograd.grad((y * c).sum(), x, create_graph=True)
        if change:
            mutate(index)
        if not g.requires_grad:
            return [g]
        (g * T.arange(1.0, g.numel() + 1, dtype=g.dtype).reshape(g.shape)).sum().backward()
        return [g, c.grad]

    return fn


@pytest.mark.parametrize("name,op,data,make_index", INDEX_CASES, ids=[c[0] for c in INDEX_CASES])
@pytest.mark.parametrize("change", [False, True])
def test_index_saved_by_double_backward_nodes(name, op, data, make_index, change):
    """Under create_graph the backward's own index ops save the index too (torch's double-
    backward nodes): a change between the two backwards raises there."""
    fn = _double_backward_case(op, data, make_index, change)
    if name in NO_TORCH_DOUBLE_BACKWARD:
        # torch has no derivative of these backwards; leafgrad's is recorded (not compared)
        want = _outcome(fn, torch)
        assert want[0] == "raise" and "not implemented" in want[2]
        return
    _same(fn)


NO_TORCH_DOUBLE_BACKWARD = {"multi_margin", "multilabel_margin", "embedding_bag",
                            "embedding_bag_2d"}


@pytest.mark.parametrize("name,op", MASK_CASES, ids=[c[0] for c in MASK_CASES])
@pytest.mark.parametrize("change", [False, True])
def test_mask_saved_by_double_backward_nodes(name, op, change):
    def mutate(mask):
        mask[0, 0] = False

    _same(_double_backward_case(op, X2, lambda T: T.tensor(MASK), change, mutate))
