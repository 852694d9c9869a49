"""Reductions against torch: tie-breaking (indices and gradients), prod/cumprod with zeros to
second order, NaNs, result types and reprs, dtypes, warnings and errors.

The op table (test_op_table.py) checks smooth inputs; ties and zeros are where reductions
differ between implementations, so they are compared with torch here.
"""

from __future__ import annotations

import pickle
import re
import warnings

import zlib

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()
NAN = float("nan")


def _pair(array, dtype="float64", requires_grad=True):
    """The same values as a leafgrad tensor and a torch tensor."""
    array = np.asarray(array)
    ours = leafgrad.tensor(array, dtype=getattr(leafgrad, dtype))
    theirs = torch.tensor(array, dtype=getattr(torch, dtype))
    if requires_grad:
        ours.requires_grad_()
        theirs.requires_grad_()
    return ours, theirs


def _np(tensor):
    return tensor.detach().numpy(force=True)  # force: torch returns some zero grads as ZeroTensor


def _same(ours, theirs):
    """Values, dtype and shape equal (NaNs in the same places)."""
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert repr(ours.dtype).split(".")[-1] == repr(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(_np(ours), _np(theirs))


def _grads_match(ours_out, theirs_out, ours_in, theirs_in, seed=0):
    """Gradients for one random upstream gradient; first order, then second order through
    ``(grad * w).sum()`` (which is what create_graph users differentiate)."""
    rng = np.random.default_rng(seed)
    upstream = rng.normal(size=tuple(theirs_out.shape))
    (ours_grad,) = leafgrad.autograd.grad(ours_out, ours_in, leafgrad.tensor(upstream),
                                          create_graph=True)
    (theirs_grad,) = torch.autograd.grad(theirs_out, theirs_in, torch.tensor(upstream),
                                         create_graph=True)
    np.testing.assert_allclose(_np(ours_grad), _np(theirs_grad), rtol=1e-12, atol=1e-12)
    if not theirs_grad.requires_grad:
        assert not ours_grad.requires_grad
        return
    weights = rng.normal(size=tuple(theirs_grad.shape))
    (ours_second,) = leafgrad.autograd.grad((ours_grad * leafgrad.tensor(weights)).sum(),
                                            ours_in, allow_unused=True)
    (theirs_second,) = torch.autograd.grad((theirs_grad * torch.tensor(weights)).sum(),
                                           theirs_in, allow_unused=True)
    if theirs_second is None:
        assert ours_second is None or not np.any(_np(ours_second))
    else:
        np.testing.assert_allclose(_np(ours_second), _np(theirs_second), rtol=1e-10, atol=1e-12)


def _tied(rng, shape, levels=3, nan_fraction=0.0):
    values = rng.integers(0, levels, shape).astype(np.float64)
    if nan_fraction:
        values[rng.random(shape) < nan_fraction] = NAN
    return values


# -- ties: indices and gradients follow torch's algorithms ---------------------------------------


SELECTING = {
    "max": lambda t, dim: t.max(dim),
    "min": lambda t, dim: t.min(dim, keepdim=True),
    "median": lambda t, dim: t.median(dim),
    "nanmedian": lambda t, dim: t.nanmedian(dim),
    "mode": lambda t, dim: t.mode(dim),
    "kthvalue": lambda t, dim: t.kthvalue(2, dim),
    "sort": lambda t, dim: t.sort(dim),
    "sort_desc": lambda t, dim: t.sort(dim, descending=True),
    "sort_stable": lambda t, dim: t.sort(dim=dim, stable=True, descending=True),
    "topk": lambda t, dim: t.topk(3, dim),
    "topk_small": lambda t, dim: t.topk(2, dim, largest=False),
    "topk_unsorted": lambda t, dim: t.topk(3, dim, sorted=False),
}


@pytest.mark.parametrize("name", sorted(SELECTING))
@pytest.mark.parametrize("shape,dim", [((40,), 0), ((5, 23), 1), ((23, 5), 0), ((3, 4, 20), -1)])
def test_ties_pick_torchs_index_and_gradient(name, shape, dim):
    rng = np.random.default_rng(zlib.crc32(f"{name}-{shape}".encode()))
    for levels in (2, 5):
        ours, theirs = _pair(_tied(rng, shape, levels))
        got, want = SELECTING[name](ours, dim), SELECTING[name](theirs, dim)
        _same(got.values, want.values)
        _same(got.indices, want.indices)
        assert got.indices.dtype is leafgrad.int64
        _grads_match(got.values, want.values, ours, theirs)


@pytest.mark.parametrize("name", sorted(SELECTING))
def test_ties_with_nans(name):
    rng = np.random.default_rng(7)
    ours, theirs = _pair(_tied(rng, (6, 30), 4, nan_fraction=0.2))
    got, want = SELECTING[name](ours, 1), SELECTING[name](theirs, 1)
    _same(got.values, want.values)
    _same(got.indices, want.indices)


def test_all_nan_rows():
    ours, theirs = _pair(np.full((2, 5), NAN), requires_grad=False)
    for name in ("median", "nanmedian", "mode", "sort", "topk", "kthvalue", "max"):
        got, want = SELECTING[name](ours, 1), SELECTING[name](theirs, 1)
        _same(got.indices, want.indices)


@pytest.mark.parametrize("size", [3, 17, 100, 300])
@pytest.mark.parametrize("k", [1, 2, 4])
def test_topk_all_paths(size, k):
    """k * 64 <= n takes std::partial_sort, otherwise std::nth_element (+ std::sort)."""
    rng = np.random.default_rng(size * 10 + k)
    ours, theirs = _pair(_tied(rng, (4, size), 3), requires_grad=False)
    k = min(k, size)
    for largest in (True, False):
        for ordered in (True, False):
            got = ours.topk(k, largest=largest, sorted=ordered)
            want = theirs.topk(k, largest=largest, sorted=ordered)
            _same(got.indices, want.indices)
            _same(got.values, want.values)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32", "uint8", "bool"])
def test_sort_ties_every_dtype(dtype):
    rng = np.random.default_rng(3)
    values = rng.integers(0, 3, (3, 50))
    ours, theirs = _pair(values, dtype, requires_grad=False)
    for descending in (False, True):
        for stable in (None, True):
            got = ours.sort(descending=descending, stable=stable)
            want = theirs.sort(descending=descending, stable=stable)
            _same(got.indices, want.indices)
            _same(got.values, want.values)


def test_sort_of_expanded_dim_keeps_index_order():
    # torch does not sort a stride-0 dim: its indices are 0..n-1 even though sorting would not
    # be stable there.
    ours = leafgrad.tensor([2.0]).expand(40)
    theirs = torch.tensor([2.0]).expand(40)
    _same(ours.sort().indices, theirs.sort().indices)


@pytest.mark.parametrize("call", [
    lambda t: t.max(), lambda t: t.min(), lambda t: t.amax(), lambda t: t.amin(1),
    lambda t: t.amax((0, 1), keepdim=True), lambda t: t.median(), lambda t: t.nanmedian(),
    lambda t: t.norm(float("inf")), lambda t: t.norm(float("inf"), dim=0),
])
def test_evenly_distributed_gradients(call):
    ours, theirs = _pair([[3.0, 1.0, 3.0], [-3.0, 3.0, 0.0]])
    got, want = call(ours), call(theirs)
    _same(got, want)
    assert got.grad_fn.name() == want.grad_fn.name()
    _grads_match(got, want, ours, theirs)


@pytest.mark.parametrize("call", [
    lambda t: t.max(), lambda t: t.min(), lambda t: t.amax(), lambda t: t.amax(1),
    lambda t: t.median(), lambda t: t.nanmedian(), lambda t: t.max(1).values,
    lambda t: t.median(1).values, lambda t: t.logsumexp(1), lambda t: t.nansum(),
])
def test_nan_inputs(call):
    ours, theirs = _pair([[3.0, NAN, 3.0], [1.0, 2.0, NAN]])
    got, want = call(ours), call(theirs)
    _same(got, want)
    upstream = np.ones(tuple(want.shape))
    (ours_grad,) = leafgrad.autograd.grad(got, ours, leafgrad.tensor(upstream))
    (theirs_grad,) = torch.autograd.grad(want, theirs, torch.tensor(upstream))
    np.testing.assert_array_equal(_np(ours_grad), _np(theirs_grad))


# -- prod and cumprod with zeros, to second order -----------------------------------------------


PROD_INPUTS = {
    "no zero": [[2.0, -1.5, 3.0], [0.5, 4.0, -2.0]],
    "one zero": [[2.0, 0.0, 3.0], [0.5, 4.0, -2.0]],
    "two zeros": [[2.0, 0.0, 3.0], [0.0, 4.0, -2.0]],
    "two zeros in a row": [[0.0, 0.0, 3.0], [0.5, 4.0, -2.0]],
}
PROD_CALLS = {
    "prod": lambda t: t.prod(),
    "prod(1)": lambda t: t.prod(1),
    "prod(0, keepdim)": lambda t: t.prod(0, keepdim=True),
    "cumprod(1)": lambda t: t.cumprod(1),
    "cumprod(0)": lambda t: t.cumprod(0),
    "prod of transposed": lambda t: t.t().prod(1),
}


@pytest.mark.parametrize("inputs", sorted(PROD_INPUTS))
@pytest.mark.parametrize("call", sorted(PROD_CALLS))
def test_prod_and_cumprod_with_zeros(inputs, call):
    ours, theirs = _pair(PROD_INPUTS[inputs])
    got, want = PROD_CALLS[call](ours), PROD_CALLS[call](theirs)
    _same(got, want)
    assert got.grad_fn.name() == want.grad_fn.name()
    _grads_match(got, want, ours, theirs)


@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_prod_full_hessian(zeros):
    values = np.array([2.0, -3.0, 0.5, 1.5])
    values[:zeros] = 0.0
    ours, theirs = _pair(values)

    def hessian(lib, x):
        (grad,) = lib.autograd.grad(x.prod(), x, create_graph=True)
        return np.stack([_np(lib.autograd.grad(grad[i], x, retain_graph=True)[0])
                         for i in range(4)])

    np.testing.assert_allclose(hessian(leafgrad, ours), hessian(torch, theirs), atol=1e-12)


def test_prod_grad_without_graph_with_several_zeros():
    # Without create_graph torch returns zeros at once when two entries are 0.
    ours, theirs = _pair([0.0, 2.0, 0.0])
    ours.prod().backward()
    theirs.prod().backward()
    np.testing.assert_array_equal(_np(ours.grad), _np(theirs.grad))


# -- statistics ---------------------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda lib, t: t.var(), lambda lib, t: t.var(1), lambda lib, t: t.var(0, False, True),
    lambda lib, t: t.var(False), lambda lib, t: t.std(correction=0),
    lambda lib, t: t.std((0, 1), keepdim=True), lambda lib, t: lib.var(t, -1, correction=2),
    lambda lib, t: lib.std_mean(t, 0)[0], lambda lib, t: lib.var_mean(t, 1, keepdim=True)[1],
])
def test_var_std_overloads(call):
    ours, theirs = _pair([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]])
    got, want = call(leafgrad, ours), call(torch, theirs)
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.grad_fn.name() == want.grad_fn.name()
    _grads_match(got, want, ours, theirs)


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
@pytest.mark.parametrize("use", ["spread", "mean", "both"])
def test_var_mean_and_std_mean_share_one_node(name, use):
    ours, theirs = _pair([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]])
    got, want = getattr(leafgrad, name)(ours, 1), getattr(torch, name)(theirs, 1)
    assert type(got) is tuple and len(got) == 2
    assert got[0].grad_fn is got[1].grad_fn
    assert got[0].grad_fn.name() == want[0].grad_fn.name()
    # One output alone leaves the other's grad missing; the node must treat it as zeros.
    pick = {"spread": lambda pair: pair[0], "mean": lambda pair: pair[1],
            "both": lambda pair: pair[0] * pair[1]}[use]
    _grads_match(pick(got), pick(want), ours, theirs)


def test_std_of_constant_has_zero_gradient():
    ours, theirs = _pair([2.0, 2.0, 2.0])
    _grads_match(ours.std(), theirs.std(), ours, theirs)


def _warning_texts(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message).split(" (Triggered")[0] for w in caught
                    if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("call", [
    lambda lib, t: t.var(1, correction=3), lambda lib, t: t[:1, :1].std(),
    lambda lib, t: lib.var_mean(t[:0]), lambda lib, t: lib.std_mean(t[0, 0]),
])
def test_no_degrees_of_freedom_warns_like_torch(call):
    ours, theirs = _pair([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]], requires_grad=False)
    got, got_warnings = _warning_texts(lambda: call(leafgrad, ours))
    want, want_warnings = _warning_texts(lambda: call(torch, theirs))
    assert got_warnings == want_warnings and want_warnings
    got, want = (got, want) if isinstance(want, torch.Tensor) else (got[0], want[0])
    np.testing.assert_array_equal(_np(got), _np(want))


@pytest.mark.parametrize("call", [
    lambda lib, t: t.norm(), lambda lib, t: t.norm(1), lambda lib, t: t.norm(2, dim=1),
    lambda lib, t: t.norm(3), lambda lib, t: t.norm(0.5), lambda lib, t: t.norm(1.5, 0),
    lambda lib, t: lib.norm(t, "fro", (0, 1), keepdim=True), lambda lib, t: t.norm(p=0),
])
def test_norm_gradients_at_zero(call):
    # Zero rows and zero entries: torch masks each formula's 0/0 to 0.
    ours, theirs = _pair([[0.0, 0.0, 0.0], [3.0, 0.0, -4.0]])
    got, want = call(leafgrad, ours), call(torch, theirs)
    _same(got, want)
    assert got.grad_fn.name() == want.grad_fn.name()
    (ours_grad,) = leafgrad.autograd.grad(got.sum(), ours, allow_unused=True)
    (theirs_grad,) = torch.autograd.grad(want.sum(), theirs, allow_unused=True)
    if theirs_grad is None:
        assert ours_grad is None
    else:
        np.testing.assert_allclose(_np(ours_grad), _np(theirs_grad), atol=1e-12)


def test_logsumexp_is_stable():
    ours, theirs = _pair([[1000.0, 1000.0], [-1000.0, float("-inf")], [float("inf"), 1.0]])
    got, want = ours.logsumexp(1), theirs.logsumexp(1)
    _same(got, want)
    ours_int, theirs_int = _pair([[1, 2], [3, 4]], "int64", requires_grad=False)
    _same(ours_int.logsumexp(0), theirs_int.logsumexp(0))


# -- result types, reprs, dtypes ------------------------------------------------------------------


@pytest.mark.parametrize("name,call", [
    ("max", lambda t: t.max(1)), ("min", lambda t: t.min(0, True)), ("sort", lambda t: t.sort()),
    ("topk", lambda t: t.topk(2)), ("kthvalue", lambda t: t.kthvalue(1)),
    ("median", lambda t: t.median(1)), ("nanmedian", lambda t: t.nanmedian(0)),
    ("mode", lambda t: t.mode()),
])
def test_return_types(name, call):
    ours, theirs = _pair([[1.0, 5.0, 2.0], [7.0, 2.0, 2.0]])
    got, want = call(ours), call(theirs)
    assert type(got).__name__ == type(want).__name__ == name
    assert repr(got).replace("leafgrad.", "torch.") == repr(want)
    assert str(got).replace("leafgrad.", "torch.") == str(want)
    assert got.values is got[0] and got.indices is got[1]
    values, indices = got
    assert values is got.values and isinstance(got, tuple) and len(got) == 2
    assert (got.n_fields, got.n_sequence_fields) == (want.n_fields, want.n_sequence_fields)
    assert indices.dtype is leafgrad.int64 and not indices.requires_grad
    with pytest.raises(AttributeError):
        got.values = indices
    plain = leafgrad.return_types.max((values.detach(), indices))
    again = pickle.loads(pickle.dumps(plain))
    assert type(again) is type(plain) and again.values.equal(plain.values)


def test_repr_of_scalar_result():
    assert (repr(leafgrad.tensor(3.0).max(0)).replace("leafgrad.", "torch.")
            == repr(torch.tensor(3.0).max(0)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float32"])
@pytest.mark.parametrize("call", [
    lambda lib, t: t.prod(), lambda lib, t: t.prod(1), lambda lib, t: t.cumsum(0),
    lambda lib, t: t.cumprod(1), lambda lib, t: t.all(), lambda lib, t: t.any(1),
    lambda lib, t: t.all(()), lambda lib, t: t.count_nonzero(), lambda lib, t: t.max(),
    lambda lib, t: t.amax(0), lambda lib, t: t.max(1).values, lambda lib, t: lib.nansum(t),
    lambda lib, t: t.argmax(keepdim=True), lambda lib, t: t.mode(0).values,
    lambda lib, t: t.sort(0).values, lambda lib, t: t.cumsum(1, dtype=lib.float64),
])
def test_result_dtypes(dtype, call):
    ours, theirs = _pair([[1, 0, 2], [3, 3, 0]], dtype, requires_grad=False)
    try:
        want = call(torch, theirs)
    except RuntimeError as error:  # e.g. argmax of bool
        with pytest.raises(RuntimeError, match=re.escape(str(error).split("\n")[0])):
            call(leafgrad, ours)
        return
    _same(call(leafgrad, ours), want)


@pytest.mark.parametrize("call", [
    lambda t: t.argmax(), lambda t: t.argmin(1), lambda t: t.argmax(0, keepdim=True),
    lambda t: t.argmax(keepdim=True), lambda t: t.all(1), lambda t: t.count_nonzero(0),
    lambda t: t.sort().indices, lambda t: t.argsort(descending=True),
])
def test_non_differentiable_outputs(call):
    ours, theirs = _pair([[1.0, 5.0, 5.0], [7.0, NAN, 2.0]])
    got, want = call(ours), call(theirs)
    _same(got, want)
    assert not got.requires_grad and got.grad_fn is None


def test_scalar_inputs():
    ours, theirs = _pair(2.5)
    for call in (lambda t: t.max(0), lambda t: t.sort(), lambda t: t.topk(1),
                 lambda t: t.kthvalue(1), lambda t: t.median(-1), lambda t: t.mode()):
        got, want = call(ours), call(theirs)
        _same(got.values, want.values)
        _same(got.indices, want.indices)
        _grads_match(got.values, want.values, ours, theirs)


def test_empty_reductions_with_identity():
    ours, theirs = _pair(np.zeros((0, 3)), requires_grad=False)
    for call in (lambda t: t.prod(), lambda t: t.prod(0), lambda t: t.all(0), lambda t: t.any(),
                 lambda t: t.norm(), lambda t: t.logsumexp(0), lambda t: t.nansum(0),
                 lambda t: t.median(), lambda t: t.max(1).values, lambda t: t.kthvalue(2, 1)[0],
                 lambda t: t.topk(0, 0).values, lambda t: t.cumsum(0), lambda t: t.sort(0)[1]):
        _same(call(ours), call(theirs))


# -- errors ---------------------------------------------------------------------------------------


ERRORS = [
    lambda lib, t: t.max(2), lambda lib, t: t.min(-3), lambda lib, t: t.sort(5),
    lambda lib, t: t.prod(2), lambda lib, t: t.amax(2), lambda lib, t: t.var(2),
    lambda lib, t: t.cumsum(2), lambda lib, t: t.argmax(2), lambda lib, t: t.topk(1, 2),
    lambda lib, t: t.logsumexp(-3), lambda lib, t: t.all(2), lambda lib, t: t.median(2),
    lambda lib, t: t.norm(dim=2), lambda lib, t: t.var((0, 0)),
    lambda lib, t: t[:0].max(), lambda lib, t: t[:0].min(), lambda lib, t: t[:0].amax(),
    lambda lib, t: t[:0].max(0), lambda lib, t: t[:0].amin(0), lambda lib, t: t[:0].argmax(),
    lambda lib, t: t[:0].argmin(0), lambda lib, t: t[:0].mode(0), lambda lib, t: t[:, :0].mode(),
    lambda lib, t: t[:0].median(0), lambda lib, t: t[:0].kthvalue(1, 0),
    lambda lib, t: t[:0].norm(float("inf")), lambda lib, t: t[:0].norm(float("-inf"), dim=0),
    lambda lib, t: t.topk(4), lambda lib, t: t.topk(-1), lambda lib, t: t.kthvalue(0),
    lambda lib, t: t.kthvalue(4), lambda lib, t: (t > 0).argmax(), lambda lib, t: (t > 0).topk(1),
    lambda lib, t: (t > 0).median(), lambda lib, t: (t > 0).median(0),
    lambda lib, t: (t > 0).kthvalue(1), lambda lib, t: t.long().var(),
    lambda lib, t: t.long().std(0), lambda lib, t: lib.var_mean(t.long()),
    lambda lib, t: t.long().norm(), lambda lib, t: t.long().nanmean(),
    lambda lib, t: lib.linalg.vector_norm(t, dtype=lib.float32),
    lambda lib, t: lib.linalg.vector_norm(t, dtype=lib.int64),
    lambda lib, t: t.long().mean(),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    call = ERRORS[index]
    ours, theirs = _pair([[1.0, 5.0, 2.0], [7.0, 2.0, 2.0]], requires_grad=False)
    with pytest.raises(Exception) as expected:
        call(torch, theirs)
    with pytest.raises(type(expected.value)) as got:
        call(leafgrad, ours)
    first_line = str(expected.value).split("\n")[0]
    assert str(got.value).split("\n")[0] == first_line


def test_binary_max_min_are_maximum_minimum():
    ours_a, theirs_a = _pair([1.0, 5.0, 2.0])
    ours_b, theirs_b = _pair([3.0, 1.0, 2.0])  # a tie at index 2: torch splits the gradient
    for call in (lambda lib, a, b: lib.max(a, b), lambda lib, a, b: a.min(b),
                 lambda lib, a, b: lib.min(a, other=b)):
        got, want = call(leafgrad, ours_a, ours_b), call(torch, theirs_a, theirs_b)
        _same(got, want)
        assert got.grad_fn.name() == want.grad_fn.name()
        got_grads = leafgrad.autograd.grad(got.sum(), (ours_a, ours_b))
        want_grads = torch.autograd.grad(want.sum(), (theirs_a, theirs_b))
        for ours_grad, theirs_grad in zip(got_grads, want_grads):
            np.testing.assert_array_equal(_np(ours_grad), _np(theirs_grad))


def test_dim_out_of_range_message():
    with pytest.raises(IndexError) as error:
        leafgrad.zeros(2, 3).max(2)
    assert str(error.value) == (
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    )
    with pytest.raises(RuntimeError) as error:
        leafgrad.zeros(0).max()
    assert str(error.value) == (
        "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
        "reduction dim with the 'dim' argument."
    )
