"""Differences from torch noticed in review (second batch), each tested as a class against
torch 2.13.

1. Ops that write ``self`` while reading another tensor refuse a source or index sharing
   memory with ``self`` (torch's assert_no_overlap: "unsupported operation: some elements of
   the input tensor and the written-to tensor refer to a single memory location..."), each at
   torch's moment among its other checks, leaving ``self`` and its version as they were.
   masked_fill_ refuses a mask that is part of ``self``; masked_scatter_ checks nothing and
   reads a source in ``self``'s memory as it writes. Found alongside: index_add/scatter/
   scatter_add/index_put with a source of another dtype raised nothing (torch refuses), and
   scatter's shape checks for an empty index or a src of lower rank. out= tensors sharing
   memory with an input: refused as torch refuses them (partly, or at all).
2. Under saved_tensors_hooks an in-place op packs what torch packs, once each, in its order:
   the recorded clone of the overwritten self, other operands, the written tensor last.
3. ``z.real``/``z.imag`` are torch's select(view_as_real(z), -1, i) (a conjugated z:
   _conj() first, and _neg_view() for imag, with the negative bit); in-place writes through
   them regenerate the view as torch does, with a correct gradient.
4. An out= tensor that is resized (empty, or of another shape: with torch's warning) takes the
   strides torch's kernel computes for the result (exp(x.t(), out=empty) is transposed), keeps
   its memory when the element count is kept, and multi-output kernels warn in torch's order
   with torch's shapes (kthvalue/mode: the keepdim shape; multinomial: silently).
5. Loss and affine_grid dtype edges: binary_cross_entropy's target and nll_loss's weight must
   have the input's dtype, bce_with_logits has the target's dtype (bool/int targets refused),
   huber keeps the input's dtype (its backward refuses another target dtype), kl_div refuses
   integral inputs (and its target gradient at 0 is NaN, torch's xlogy), multi_margin refuses
   half inputs and non-int64 targets, soft_margin a target that requires grad; affine_grid
   with a one-step axis refuses float16/bfloat16 and builds a bfloat16 base grid as torch.
6. Signed zeros: max/min/fmax/fmin/clamp keep self at a tie (maximum(-0., 0.) is -0.); the
   flat-slope activations' backward ops (hardtanh/relu6, threshold, hardshrink, softshrink,
   leaky_relu, elu/selu/celu) select (+0. where blocked), are torch's *BackwardBackward0 nodes
   and differentiate again (0 in x, elu's by torch's elu_double_backward); prelu's dtypes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _describe(tensor):
    """(values, dtype name, version) of a tensor (bfloat16 values read as float32)."""
    data = tensor.detach()
    name = str(data.dtype).split(".")[-1]
    if name == "bfloat16":
        data = data.float()
    return (np.array(data.numpy(), copy=True), name, tensor._version)


def _outcome(fn, module):
    """What ``fn(module)`` gives: ("ok", descriptions) or ("raise", type, first line,
    descriptions of the tensors it was given), descriptions being (values, dtype, version)."""
    seen = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(module, seen)
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return ("raise", type(error).__name__, str(error).split("\n")[0],
                [_describe(t) for t in seen])
    described = [_describe(t) for t in seen]
    if hasattr(result, "detach"):
        described.append(_describe(result))
    return ("ok", described)


def _assert_same(fn):
    want = _outcome(fn, torch)
    got = _outcome(fn, leafgrad)
    assert got[:-1] == want[:-1], (got, want)
    assert len(got[-1]) == len(want[-1])
    for (g, g_dtype, g_version), (w, w_dtype, w_version) in zip(got[-1], want[-1]):
        assert g_dtype == w_dtype and g_version == w_version, (got, want)
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


# -- item 1: overlap between the written-to tensor and a source or index ------------------------

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool",
          "complex64"]

# ops writing self (1-d, 10 elements) from src (3 elements at positions idx)
WRITERS = {
    "index_put_": lambda T, x, i, s: x.index_put_((i,), s),
    "index_put_acc": lambda T, x, i, s: x.index_put_((i,), s, accumulate=True),
    "setitem": lambda T, x, i, s: x.__setitem__(i, s),
    "index_copy_": lambda T, x, i, s: x.index_copy_(0, i, s),
    "index_add_": lambda T, x, i, s: x.index_add_(0, i, s),
    "index_add_alpha": lambda T, x, i, s: x.index_add_(0, i, s, alpha=2),
    "scatter_": lambda T, x, i, s: x.scatter_(0, i, s),
    "scatter_add_": lambda T, x, i, s: x.scatter_add_(0, i, s),
    "scatter_reduce_legacy": lambda T, x, i, s: x.scatter_(0, i, s, reduce="add"),
    "scatter_reduce_": lambda T, x, i, s: x.scatter_reduce_(0, i, s, "amax"),
    "scatter_reduce_sum": lambda T, x, i, s: x.scatter_reduce_(0, i, s, "sum",
                                                               include_self=False),
    "index_reduce_": lambda T, x, i, s: x.index_reduce_(0, i, s, "prod"),
    "put_": lambda T, x, i, s: x.put_(i, s),
    "put_acc": lambda T, x, i, s: x.put_(i, s, accumulate=True),
    "masked_scatter_": lambda T, x, i, s: x.masked_scatter_(T.arange(10) < len(s), s),
}

# (self, idx, src) for each aliasing pattern
SOURCES = {
    "partial": lambda T, x: (T.arange(3), x[1:4]),
    "inside": lambda T, x: (T.arange(3), x[5:8]),
    "self": lambda T, x: (T.arange(10), x),
    "alias": lambda T, x: (T.arange(10), x[:]),
    "view": lambda T, x: (T.arange(10), x.view(10)),
    "strided": lambda T, x: (T.arange(3), x[::4]),  # not dense: torch cannot tell, computes
    "flipped_copy": lambda T, x: (T.arange(3), x[1:4].clone()),
    "empty": lambda T, x: (T.arange(0), x[:0]),
    "disjoint": lambda T, x: (T.arange(3), T.ones(3).to(x.dtype)),
}


def _self(T, dtype):
    return T.arange(10).to(getattr(T, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("op", sorted(WRITERS))
def test_source_overlap(op, source, dtype):
    def run(T, seen):
        x = _self(T, dtype)
        index, src = SOURCES[source](T, x)
        seen.extend([x, src])
        return WRITERS[op](T, x, index, src)

    _assert_same(run)


# index tensors sharing memory with an int64 self (values kept valid indices)
INDEXED = {
    "index_put_": lambda T, x, i, s: x.index_put_((i,), s),
    "setitem": lambda T, x, i, s: x.__setitem__(i, s),
    "index_copy_": lambda T, x, i, s: x.index_copy_(0, i, s),
    "index_add_": lambda T, x, i, s: x.index_add_(0, i, s),
    "scatter_": lambda T, x, i, s: x.scatter_(0, i, s),
    "scatter_value": lambda T, x, i, s: x.scatter_(0, i, 7),
    "scatter_add_": lambda T, x, i, s: x.scatter_add_(0, i, s),
    "scatter_reduce_": lambda T, x, i, s: x.scatter_reduce_(0, i, s, "amin"),
    "index_reduce_": lambda T, x, i, s: x.index_reduce_(0, i, s, "amax"),
    "put_": lambda T, x, i, s: x.put_(i, s),
    "index_fill_": lambda T, x, i, s: x.index_fill_(0, i, 7),
    "index_fill_tensor": lambda T, x, i, s: x.index_fill_(0, i, T.tensor(7)),
}
INDEXES = {
    "head": lambda x: x[:3],
    "inside": lambda x: x[5:8],
    "strided": lambda x: x[::4],
    "empty": lambda x: x[:0],
}


@pytest.mark.parametrize("index", sorted(INDEXES))
@pytest.mark.parametrize("op", sorted(INDEXED))
def test_index_overlap(op, index):
    def run(T, seen):
        x = T.arange(10)
        i = INDEXES[index](x)
        src = T.full((i.numel(),), 9)
        seen.extend([x, i])
        return INDEXED[op](T, x, i, src)

    _assert_same(run)


def _bools(T):
    return T.tensor([True, False, True, True, False, True, False, True, True, False])


MASKS = {
    # masked_fill_: torch refuses a mask that is part of self, not all of it
    "masked_fill_self": lambda T, b: b.masked_fill_(b, False),
    "masked_fill_part": lambda T, b: b[:5].masked_fill_(b[1:6], False),
    "masked_fill_inside": lambda T, b: b.masked_fill_(b[2:3], False),
    "masked_fill_tensor_value": lambda T, b: b[:5].masked_fill_(b[1:6], T.tensor(False)),
    # index_put_ with one bool mask and a one-element value takes masked_fill_
    "index_put_mask_scalar": lambda T, b: b.index_put_((b,), T.tensor(False)),
    "index_put_mask_1elem": lambda T, b: b.index_put_((b,), T.tensor([False])),
    "index_put_mask_values": lambda T, b: b.index_put_((b,), T.zeros(6, dtype=T.bool)),
    "index_put_mask_acc": lambda T, b: b.index_put_((b,), T.tensor(False), accumulate=True),
    "index_put_part_mask": lambda T, b: b[:5].index_put_((b[1:6],), T.tensor(False)),
    "setitem_mask_scalar": lambda T, b: b.__setitem__(b, False),
    "setitem_part_mask": lambda T, b: b[:5].__setitem__(b[1:6], False),
    "setitem_mask_values": lambda T, b: b.__setitem__(b, T.zeros(6, dtype=T.bool)),
    "setitem_mask_self_value": lambda T, b: b.__setitem__(b, b[:6]),
    "masked_scatter_mask_self": lambda T, b: b.masked_scatter_(b, T.zeros(10, dtype=T.bool)),
    "masked_scatter_src_self": lambda T, b: b.masked_scatter_(T.ones(10, dtype=T.bool), b),
}


@pytest.mark.parametrize("case", sorted(MASKS))
def test_mask_overlap(case):
    def run(T, seen):
        b = _bools(T)
        seen.append(b)
        return MASKS[case](T, b)

    _assert_same(run)


def _float(T):
    return T.arange(10.0)


def _grid(T):
    return T.arange(9.0).reshape(3, 3)


# each with a check failing besides the overlap, or an overlap only torch's byte ranges see
ORDER = {
    "index_put_mask_value_alias": lambda T, x: x.index_put_((x > 5,), x[0]),
    "index_put_mask_1elem_alias": lambda T, x: x.index_put_((x > 5,), x[0:1]),
    "index_put_mask_acc_alias": lambda T, x: x.index_put_((x > 5,), x[0:1], accumulate=True),
    "index_put_mask_many": lambda T, x: x.index_put_((x > 5,), x[1:5]),
    "setitem_0d_value_alias": lambda T, x: x.__setitem__(T.tensor([1, 2]), x[0]),
    "setitem_slice_then_index": lambda T, x: x.view(2, 5).__setitem__(
        (slice(0, 1), T.tensor([0, 1])), x[7:9]),
    "index_put_float_index": lambda T, x: x.index_put_((x[:3],), x[3:6]),
    "index_put_bounds": lambda T, x: x.index_put_((T.tensor([20, 0, 1]),), x[1:4]),
    "index_put_value_shape": lambda T, x: x.index_put_((T.tensor([0, 1]),), x[1:4]),
    "index_put_dtype_view": lambda T, x: x.index_put_((T.arange(3),), x[1:4].view(T.int32)),
    "index_put_too_many": lambda T, x: x.index_put_((T.tensor([0]), T.tensor([0])), x[:1]),
    "index_copy_dtype_view": lambda T, x: x.index_copy_(0, T.arange(3), x[1:4].view(T.int32)),
    "index_copy_count": lambda T, x: x.index_copy_(0, T.arange(2), x[1:4]),
    "index_copy_index_dims": lambda T, x: x.index_copy_(0, T.zeros(1, 3, dtype=T.long), x[1:4]),
    "index_copy_int32_index": lambda T, x: x.index_copy_(0, T.arange(3, dtype=T.int32), x[1:4]),
    "index_copy_bounds": lambda T, x: x.index_copy_(0, T.tensor([0, 1, 20]), x[1:4]),
    "index_copy_bad_dim": lambda T, x: x.index_copy_(3, T.arange(3), x[1:4]),
    "index_add_dtype_view": lambda T, x: x.index_add_(0, T.arange(3), x[1:4].view(T.int32)),
    "index_add_index_view": lambda T, x: x.index_add_(0, x[:3].view(T.int32), T.ones(3)),
    "index_add_count": lambda T, x: x.index_add_(0, T.tensor([0, 1]), x[1:4]),
    "scatter_dtype_view": lambda T, x: x.scatter_(0, T.arange(3), x[1:4].view(T.int32)),
    "scatter_index_view": lambda T, x: x.scatter_(0, x[:3].view(T.int32), T.ones(3)),
    "scatter_shape": lambda T, x: x.scatter_(0, T.tensor([0, 1, 2, 3, 4]), x[1:4]),
    "scatter_bounds": lambda T, x: x.scatter_(0, T.tensor([0, 1, 20]), x[1:4]),
    "scatter_empty_index": lambda T, x: x.scatter_(0, T.tensor([], dtype=T.long), x[1:4]),
    "scatter_value_0d_alias": lambda T, x: x.scatter_(0, T.tensor([0, 1]), x[5]),
    "scatter_0d_src_alias": lambda T, x: x[:1].scatter_(0, T.tensor([0]), x[5:6]),
    "scatter_add_dtype_view": lambda T, x: x.scatter_add_(0, T.arange(3), x[1:4].view(T.int32)),
    "scatter_reduce_dtype_view": lambda T, x: x.scatter_reduce_(0, T.arange(3),
                                                                x[1:4].view(T.int32), "sum"),
    "index_reduce_dtype_view": lambda T, x: x.index_reduce_(0, T.arange(3),
                                                            x[1:4].view(T.int32), "prod"),
    "index_reduce_count": lambda T, x: x.index_reduce_(0, T.arange(2), x[1:4], "prod"),
    "put_dtype_view": lambda T, x: x.put_(T.arange(3), x[1:4].view(T.int32)),
    "put_index_view": lambda T, x: x.put_(x[:3].view(T.int32), T.ones(3)),
    "put_count": lambda T, x: x.put_(T.tensor([0, 1]), x[1:4]),
    "put_bounds": lambda T, x: x.put_(T.tensor([0, 1, 20]), x[1:4]),
    "index_fill_index_view": lambda T, x: x.index_fill_(0, x[:2].view(T.int32), 1.0),
    "index_fill_value_alias": lambda T, x: x.index_fill_(0, T.tensor([0, 1]), x[5]),
    "masked_fill_value_alias": lambda T, x: x.masked_fill_(x > 5, x[0]),
    "masked_fill_uint8_mask": lambda T, x: x.masked_fill_(x.view(T.uint8)[3:13], 1.0),
    "masked_fill_mask_shape": lambda T, x: x.view(T.uint8)[:20].masked_fill_(
        x.view(T.bool)[5:10], 1),
    "masked_scatter_reads_as_it_writes": lambda T, x: x.masked_scatter_(x >= 1, x[0:9]),
    "masked_scatter_ahead": lambda T, x: x.masked_scatter_(x >= 1, x[1:10]),
    "copy_partial": lambda T, x: x[:5].copy_(x[1:6]),
    "copy_self": lambda T, x: x.copy_(x),
}
GRID = {
    "masked_scatter_rows": lambda T, x: x.masked_scatter_(x > 5, x[0]),
    "masked_scatter_transposed_self": lambda T, x: x.t().masked_scatter_(x.t() > 0, x.view(9)),
    "masked_scatter_broadcast_mask": lambda T, x: x.masked_scatter_(
        T.tensor([False, True, True]), x.view(9)[2:]),
    "masked_scatter_strided_src": lambda T, x: x.masked_scatter_(x > 0, x.t()),
    "index_put_transposed": lambda T, x: x.index_put_((T.arange(3),), x.t()),
    "index_put_same_strides": lambda T, x: x.index_put_((T.arange(3),), x.t().t()),
    "index_copy_rows_of_columns": lambda T, x: x[:, :2].index_copy_(0, T.arange(2), x[1:3, :2]),
    "index_copy_transposed": lambda T, x: x.t().index_copy_(0, T.arange(2), x.t()[1:3]),
    "index_add_columns": lambda T, x: x.index_add_(1, T.arange(2), x[:, 1:3]),
    "scatter_rows": lambda T, x: x.scatter_(0, T.zeros(1, 3, dtype=T.long), x[2:3]),
    "scatter_shapes_src_rank": lambda T, x: x.scatter_(0, T.zeros(3, 3, dtype=T.long), x[0]),
}


@pytest.mark.parametrize("case", sorted(ORDER))
def test_overlap_among_other_checks(case):
    def run(T, seen):
        x = _float(T)
        seen.append(x)
        return ORDER[case](T, x)

    _assert_same(run)


@pytest.mark.parametrize("case", sorted(GRID))
def test_overlap_2d(case):
    def run(T, seen):
        x = _grid(T)
        seen.append(x)
        return GRID[case](T, x)

    _assert_same(run)


ZERO_D = {
    "put_self": lambda T, x: x.put_(T.tensor(0), x),
    "put_view": lambda T, x: x.put_(T.tensor(0), x.view(())),
    "index_copy_self": lambda T, x: x.index_copy_(0, T.tensor(0), x),
    "index_add_view": lambda T, x: x.index_add_(0, T.tensor(0), x.view(())),
    "scatter_self": lambda T, x: x.scatter_(0, T.tensor(0), x),
    "masked_fill_value_self": lambda T, x: x.masked_fill_(T.tensor(True), x),
    "empty_self_index_put": lambda T, x: x[:0].index_put_((T.arange(0),), x[:0]),
    "masked_scatter_self": lambda T, x: x.masked_scatter_(T.tensor(True), x),
    "masked_scatter_view": lambda T, x: x.masked_scatter_(T.tensor(True), x.view(1)),
}


@pytest.mark.parametrize("case", sorted(ZERO_D))
def test_overlap_0d_and_empty(case):
    def run(T, seen):
        x = T.tensor(5.0) if not case.startswith("empty") else T.arange(3.0)
        seen.append(x)
        return ZERO_D[case](T, x)

    _assert_same(run)


def test_same_empty_tensor_overlaps_itself():
    # torch compares the tensors themselves before their sizes: an empty self is refused
    def run(T, seen):
        x = T.tensor([])
        seen.append(x)
        return x.index_put_((T.tensor([], dtype=T.long),), x)

    _assert_same(run)

    def run_copy(T, seen):
        x = T.tensor([])
        seen.append(x)
        return x.index_copy_(0, T.tensor([], dtype=T.long), x)

    _assert_same(run_copy)


RECORDED = {
    "index_put_": lambda T, x: x.index_put_((T.arange(3),), x[1:4]),
    "index_copy_": lambda T, x: x.index_copy_(0, T.arange(3), x[1:4]),
    "index_add_": lambda T, x: x.index_add_(0, T.arange(3), x[5:8]),
    "scatter_": lambda T, x: x.scatter_(0, T.arange(3), x[1:4]),
    "put_": lambda T, x: x.put_(T.arange(3), x[1:4]),
    "setitem": lambda T, x: x.__setitem__(T.arange(3), x[1:4]),
    "disjoint": lambda T, x: x.index_put_((T.arange(3),), x[1:4].detach().clone()),
    "masked_scatter_": lambda T, x: x.masked_scatter_(x > 2, x[:7]),
}


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_overlap_while_recording(case):
    """A non-leaf requiring grad: the refusal comes before anything is recorded."""

    def run(T, seen):
        leaf = T.arange(10.0, dtype=T.float64).requires_grad_()
        x = leaf * 1
        seen.append(x)
        result = RECORDED[case](T, x)
        x.sum().backward()
        seen.append(leaf.grad)
        return result

    want = _outcome(run, torch)
    got = _outcome(run, leafgrad)
    assert got[:-1] == want[:-1]
    for g, w in zip(got[-1], want[-1]):
        np.testing.assert_array_equal(g[0], w[0])


def test_nothing_recorded_by_a_refused_call():
    for T in (torch, leafgrad):
        leaf = T.arange(10.0).requires_grad_()
        x = leaf * 2
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            x.index_copy_(0, T.arange(3), x[1:4])
        assert type(x.grad_fn).__name__ == "MulBackward0" and x._version == 0


# -- dtype and shape checks found alongside (torch raises, leafgrad computed) ------------------

MISMATCH = {
    "index_add_": lambda T, x, s: x.index_add_(0, T.arange(3), s),
    "index_add": lambda T, x, s: x.index_add(0, T.arange(3), s),
    "torch.index_add": lambda T, x, s: T.index_add(x, 0, T.arange(3), s),
    "scatter_": lambda T, x, s: x.scatter_(0, T.arange(3), s),
    "scatter": lambda T, x, s: x.scatter(0, T.arange(3), s),
    "torch.scatter": lambda T, x, s: T.scatter(x, 0, T.arange(3), s),
    "scatter_add_": lambda T, x, s: x.scatter_add_(0, T.arange(3), s),
    "scatter_add": lambda T, x, s: x.scatter_add(0, T.arange(3), s),
    "index_put_": lambda T, x, s: x.index_put_((T.arange(3),), s),
    "index_put_acc": lambda T, x, s: x.index_put_((T.arange(3),), s, accumulate=True),
    "index_put": lambda T, x, s: x.index_put((T.arange(3),), s),
    "setitem": lambda T, x, s: x.__setitem__(T.arange(3), s),
    "index_put_mask_1elem": lambda T, x, s: x.index_put_((x > 6,), s[:1]),
    # (the bad index first: torch's kernel writes the entries before it, then raises)
    "index_put_bounds": lambda T, x, s: x.index_put_((T.tensor([11, 0, 1]),), s),
    "index_put_value_shape": lambda T, x, s: x.index_put_((T.arange(2),), s),
    "index_put_float_index": lambda T, x, s: x.index_put_((T.tensor([0.0, 1.0, 2.0]),), s),
    "index_put_index_shapes": lambda T, x, s: x.view(2, 5).index_put_(
        (T.tensor([0, 1]), T.tensor([0, 1, 2])), s),
}


@pytest.mark.parametrize("src_dtype", ["float64", "int32", "int64", "float16", "complex64",
                                       "bool", "float32"])
@pytest.mark.parametrize("case", sorted(MISMATCH))
def test_source_dtype_must_match(case, src_dtype):
    def run(T, seen):
        x = T.arange(10.0)
        s = T.ones(3, dtype=getattr(T, src_dtype))
        seen.append(x)
        return MISMATCH[case](T, x, s)

    _assert_same(run)


SCATTER_SHAPES = [(3, 3), (1, 1), (2, 2), (1, 3), (0, 3), (0, 5), (5, 0), (0,)]
SRC_SHAPES = [(2,), (5,), (0,), (), (2, 2)]


@pytest.mark.parametrize("src_shape", SRC_SHAPES)
@pytest.mark.parametrize("index_shape", SCATTER_SHAPES)
@pytest.mark.parametrize("op", ["scatter_", "scatter", "scatter_add_"])
def test_scatter_shape_checks(op, index_shape, src_shape):
    def run(T, seen):
        x = T.zeros(4, 4)
        seen.append(x)
        return getattr(x, op)(0, T.zeros(index_shape, dtype=T.long), T.ones(src_shape))

    _assert_same(run)


# -- item 1, out=: an out tensor sharing memory with an input --------------------------------

from tests.out_cases import OUT_CASES  # noqa: E402

_SINGLE_OUT = sorted(name for name, code in OUT_CASES.items()
                     if "OUT2" not in code and "OUT3" not in code)


def _out_inputs(T):
    return {"lib": T, "x": T.tensor([[0.1, 0.5, 0.7], [0.3, 0.9, 0.2]]),
            "y": T.tensor([[0.4, 0.6, 0.2], [0.8, 0.1, 0.5]]),
            "m": T.tensor([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.1, 0.4, 3.0]]),
            "v": T.tensor([0.5, 0.2, 0.7]),
            "b": T.tensor([[[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.1, 0.4, 3.0]]] * 2),
            "i": T.tensor([[1, 2, 3], [4, 5, 6]])}


def _out_overlap_run(T, code, pattern):
    """Run ``code`` with its out in the memory of the first input of the result's dtype:
    overlapping it from its second element (partial) or being it (full, same shape).
    Returns None when the case does not apply, else (outcome, buffer values, clean result)."""
    T.manual_seed(0)
    plain = code.replace(", out=OUT", "").replace("out=OUT", "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            clean = eval(plain, _out_inputs(T))  # noqa: S307 - the table's calls
        except Exception:  # noqa: BLE001 - cases needing other inputs: not applicable
            return None
    if not hasattr(clean, "shape"):
        return None
    shape = tuple(clean.shape)
    namespace = _out_inputs(T)
    for name in ("x", "m", "v", "b", "i", "y"):
        tensor = namespace[name]
        if name not in plain.replace("lib.", "") or tensor.dtype != clean.dtype:
            continue
        if pattern == "full" and tuple(tensor.shape) != shape:
            continue
        size = int(np.prod(shape))
        buffer = T.zeros(tensor.numel() + size + 1, dtype=tensor.dtype)
        buffer[:tensor.numel()] = tensor.reshape(-1)
        namespace[name] = buffer[:tensor.numel()].view(tuple(tensor.shape))
        out = namespace[name] if pattern == "full" else buffer[1:1 + size].view(shape)
        namespace["OUT"] = out
        T.manual_seed(0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                eval(code, namespace)  # noqa: S307
        except Exception as error:  # noqa: BLE001 - the exception is what is compared
            return ("raise", type(error).__name__, str(error).split("\n")[0]), \
                buffer.numpy().copy(), None
        return ("ok",), buffer.numpy().copy(), np.asarray(clean.detach().numpy())
    return None


@pytest.mark.parametrize("pattern", ["partial", "full"])
@pytest.mark.parametrize("name", _SINGLE_OUT)
def test_out_overlapping_an_input(name, pattern):
    want = _out_overlap_run(torch, OUT_CASES[name], pattern)
    got = _out_overlap_run(leafgrad, OUT_CASES[name], pattern)
    assert (want is None) == (got is None)
    if want is None:
        return
    assert got[0] == want[0]
    if want[0][0] == "raise":
        np.testing.assert_array_equal(got[1], want[1])  # nothing written
        return
    # where torch computed as if nothing were shared, leafgrad must give the same values
    # (elsewhere torch's kernels read what they already wrote: unspecified, not compared)
    written = want[1][1:1 + want[2].size] if pattern == "partial" else want[1][:want[2].size]
    if np.allclose(written, want[2].reshape(-1), rtol=1e-6, atol=1e-6, equal_nan=True):
        np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)


def _abc(T):
    x = T.tensor([[0.1, 0.5, 0.7], [0.3, 0.9, 0.2]])
    y = T.tensor([[0.4, 0.6, 0.2], [0.8, 0.1, 0.5]])
    m = T.tensor([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.1, 0.4, 3.0]])
    v = T.tensor([0.5, 0.2, 0.7])
    i = T.tensor([[1, 2, 0], [0, 2, 1]])
    return x, y, m, v, i


OUT_ALIAS = {
    "cross_self": lambda T, x, y, m, v, i: T.cross(m, m.flip(0).contiguous(), dim=1, out=m),
    "linalg_cross_self": lambda T, x, y, m, v, i: T.linalg.cross(m, m.flip(0).contiguous(),
                                                                 out=m),
    "addr_vec_row": lambda T, x, y, m, v, i: T.addr(T.zeros(3, 3), m[0], v, out=m),
    "addr_self": lambda T, x, y, m, v, i: T.addr(m, v, v, out=m),
    # (addmm(m, m, m, out=m) is not here: torch hands the aliased arrays to MKL's sgemm,
    # whose result then depends on its blocking on the processor: m + m @ m on an AVX-512
    # machine, other values on an AMD EPYC with AVX2. leafgrad gives m + m @ m.)
    "gather_self": lambda T, x, y, m, v, i: T.gather(x, 1, i, out=x),
    "gather_index": lambda T, x, y, m, v, i: T.gather(i, 1, i, out=i),
    "index_select_self": lambda T, x, y, m, v, i: T.index_select(m, 0, T.tensor([2, 0, 1]),
                                                                 out=m),
    "take_self": lambda T, x, y, m, v, i: T.take(x, i, out=x),
    "take_index": lambda T, x, y, m, v, i: T.take(i, i, out=i),
    "take_along_dim_self": lambda T, x, y, m, v, i: T.take_along_dim(x, i, 1, out=x),
    "masked_select_self": lambda T, x, y, m, v, i: T.masked_select(v, v > 0, out=v),
    "cat_parts": lambda T, x, y, m, v, i: T.cat([x[:1], x[1:]], out=x),
    "cat_single": lambda T, x, y, m, v, i: T.cat([x], out=x),
    "cat_other": lambda T, x, y, m, v, i: T.cat([y[:1], y[1:]], out=x),
    "stack_rows": lambda T, x, y, m, v, i: T.stack([x[0], x[1]], out=x),
    "hstack_parts": lambda T, x, y, m, v, i: T.hstack([v[:1], v[1:]], out=v),
    "vstack_parts": lambda T, x, y, m, v, i: T.vstack([x[:1], x[1:]], out=x),
    "scatter_self": lambda T, x, y, m, v, i: T.scatter(x, 1, i, y, out=x),
    "scatter_src": lambda T, x, y, m, v, i: T.scatter(x, 1, i, y, out=y),
    "scatter_index": lambda T, x, y, m, v, i: T.scatter(i, 1, i, i.flip(0), out=i),
    "scatter_add_self": lambda T, x, y, m, v, i: T.scatter_add(x, 1, i, y, out=x),
    "scatter_add_src": lambda T, x, y, m, v, i: T.scatter_add(x, 1, i, y, out=y),
    "scatter_reduce_self": lambda T, x, y, m, v, i: T.scatter_reduce(x, 1, i, y, "sum", out=x),
    "index_add_self": lambda T, x, y, m, v, i: T.index_add(m, 0, T.tensor([2, 0, 1]),
                                                           m.flip(0).contiguous(), out=m),
    "index_add_source": lambda T, x, y, m, v, i: T.index_add(m.flip(0).contiguous(), 0,
                                                             T.tensor([2, 0, 1]), m, out=m),
    "index_copy_self": lambda T, x, y, m, v, i: T.index_copy(m, 0, T.tensor([2, 0, 1]),
                                                             m.flip(0).contiguous(), out=m),
    "index_reduce_self": lambda T, x, y, m, v, i: T.index_reduce(
        m, 0, T.tensor([2, 0, 1]), m.flip(0).contiguous(), "prod", out=m),
    "where_input": lambda T, x, y, m, v, i: T.where(x > 0.4, x, y, out=x),
    "where_other": lambda T, x, y, m, v, i: T.where(x > 0.4, x, y, out=y),
    "cumsum_self": lambda T, x, y, m, v, i: T.cumsum(x, 1, out=x),
    "cumsum_rows": lambda T, x, y, m, v, i: T.cumsum(m[:2], 1, out=m[1:]),
    "msort_self": lambda T, x, y, m, v, i: T.msort(x, out=x),
    "nan_to_num_self": lambda T, x, y, m, v, i: T.nan_to_num(x, out=x),
    "clamp_self": lambda T, x, y, m, v, i: T.clamp(x, 0.2, 0.6, out=x),
    "lerp_self": lambda T, x, y, m, v, i: T.lerp(x, y, 0.5, out=x),
}


@pytest.mark.parametrize("case", sorted(OUT_ALIAS))
def test_out_is_or_contains_an_input(case):
    def run(T, seen):
        tensors = _abc(T)
        seen.extend(tensors)
        return OUT_ALIAS[case](T, *tensors)

    _assert_same(run)


# -- item 2: saved_tensors_hooks around in-place ops ------------------------------------------

INPLACE_SAVING = {
    "mul_": lambda T, a, b: a.mul_(b),
    "mul_scalar": lambda T, a, b: a.mul_(2.0),
    "mul_self": lambda T, a, b: a.mul_(a),
    "add_": lambda T, a, b: a.add_(b),
    "add_alpha": lambda T, a, b: a.add_(b, alpha=2),
    "sub_": lambda T, a, b: a.sub_(b),
    "div_": lambda T, a, b: a.div_(b),
    "div_scalar": lambda T, a, b: a.div_(2.0),
    "pow_": lambda T, a, b: a.pow_(2),
    "pow_tensor": lambda T, a, b: a.abs_().pow_(b),
    "addcmul_": lambda T, a, b: a.addcmul_(b, b),
    "addcdiv_": lambda T, a, b: a.addcdiv_(b, b),
    "clamp_": lambda T, a, b: a.clamp_(-1, 1),
    "clamp_min_": lambda T, a, b: a.clamp_min_(0),
    "clamp_tensor": lambda T, a, b: a.clamp_(min=b),
    "exp_": lambda T, a, b: a.exp_(),
    "sigmoid_": lambda T, a, b: a.sigmoid_(),
    "tanh_": lambda T, a, b: a.tanh_(),
    "sqrt_": lambda T, a, b: a.abs_().sqrt_(),
    "rsqrt_": lambda T, a, b: a.abs_().rsqrt_(),
    "relu_": lambda T, a, b: a.relu_(),
    "abs_": lambda T, a, b: a.abs_(),
    "neg_": lambda T, a, b: a.neg_(),
    "sin_": lambda T, a, b: a.sin_(),
    "tan_": lambda T, a, b: a.tan_(),
    "erf_": lambda T, a, b: a.erf_(),
    "log_": lambda T, a, b: a.abs_().log_(),
    "reciprocal_": lambda T, a, b: a.reciprocal_(),
    "square_": lambda T, a, b: a.square_(),
    "lerp_": lambda T, a, b: a.lerp_(b, 0.3),
    "atan2_": lambda T, a, b: a.atan2_(b),
    "hypot_": lambda T, a, b: a.hypot_(b),
    "fmod_": lambda T, a, b: a.fmod_(b),
    "xlogy_": lambda T, a, b: a.xlogy_(b.abs()),
    "masked_fill_": lambda T, a, b: a.masked_fill_(b > 0, 1.0),
    "copy_": lambda T, a, b: a.copy_(b),
    "index_put_": lambda T, a, b: a.index_put_((T.tensor([0]),), b[:1]),
    "F.relu": lambda T, a, b: T.nn.functional.relu(a, inplace=True),
    "F.leaky_relu": lambda T, a, b: T.nn.functional.leaky_relu(a, inplace=True),
    "F.elu": lambda T, a, b: T.nn.functional.elu(a, inplace=True),
    "F.hardtanh": lambda T, a, b: T.nn.functional.hardtanh(a, inplace=True),
    "view_mul_": lambda T, a, b: a[:2].mul_(b[:2]),
    "view_exp_": lambda T, a, b: a[:2].exp_(),
    "view_pow_tensor": lambda T, a, b: a.abs_()[1:].pow_(b[1:]),
    "detached_self": lambda T, a, b: a.detach().mul_(b),
    "chain": lambda T, a, b: a.mul_(b).sigmoid_().mul_(a.detach()),
}


@pytest.mark.parametrize("case", sorted(INPLACE_SAVING))
def test_saved_tensors_hooks_pack_calls_of_inplace_ops(case):
    def run(T):
        calls = []
        a_leaf = T.tensor([1.5, -2.0, 3.0], requires_grad=True)
        b_leaf = T.tensor([0.5, 4.0, -1.0], requires_grad=True)
        a, b = a_leaf * 1, b_leaf * 1
        names = {id(a): "a", id(b): "b"}

        def pack(tensor):
            calls.append((names.get(id(tensor), "other"), tuple(tensor.shape),
                          np.array(tensor.detach().numpy(), copy=True).tolist(), tensor._version))
            return tensor

        with T.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            out = INPLACE_SAVING[case](T, a, b)
        try:
            (out.sum() + a.sum()).backward()
            grads = [None if t.grad is None else t.grad.numpy().tolist()
                     for t in (a_leaf, b_leaf)]
        except RuntimeError as error:
            grads = str(error).split("\n")[0]
        return calls, grads

    want, got = run(torch), run(leafgrad)
    assert got[0] == want[0]
    if isinstance(want[1], str):
        assert got[1] == want[1]
        return
    for g, w in zip(got[1], want[1]):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-6)


# -- item 3: z.real / z.imag of a complex tensor that requires grad --------------------------

def _graph(fn, depth=6):
    """The graph under ``fn`` breadth-first: (depth, name, next names) per node."""
    seen, todo = [], [(fn, 0)]
    while todo:
        node, level = todo.pop(0)
        if node is None or level > depth:
            continue
        nexts = [(None if n is None else n.name(), i) for n, i in node.next_functions]
        seen.append((level, node.name(), nexts))
        todo.extend((n, level + 1) for n, _ in node.next_functions)
    return seen


PARTS = {
    "real": lambda T, z: z.real,
    "imag": lambda T, z: z.imag,
    "torch.real": lambda T, z: T.real(z),
    "torch.imag": lambda T, z: T.imag(z),
    "real_nonleaf": lambda T, z: (z * 2).real,
    "imag_nonleaf": lambda T, z: (z * 2).imag,
    "real_of_slice": lambda T, z: (z * 2)[1:].real,
    "imag_of_transpose": lambda T, z: z.view(2, 1).t().imag,
    "real_of_conj": lambda T, z: z.conj().real,
    "imag_of_conj": lambda T, z: z.conj().imag,
    "imag_of_conj_resolved": lambda T, z: z.conj().imag.resolve_neg(),
    "real_times_2": lambda T, z: z.real * 2,
    "real_real": lambda T, z: z.real.real,
    "real_0d": lambda T, z: z[0].real,
    "imag_0d": lambda T, z: z[1].imag,
    "real_complex128": lambda T, z: z.to(T.complex128).real,
    "imag_complex128": lambda T, z: z.to(T.complex128).imag,
    "imag_mul_": lambda T, z: (z * 1).imag.mul_(2),
    "real_add_": lambda T, z: (z * 1).real.add_(1),
    "imag_of_slice_mul_": lambda T, z: (z * 1)[1:].imag.mul_(3),
    "imag_setter": lambda T, z: (lambda w: (setattr(w, "imag", T.ones(2)), w)[1])(z * 1),
    "real_setter": lambda T, z: (lambda w: (setattr(w, "real", T.zeros(2)), w)[1])(z * 1),
    "empty_real": lambda T, z: z[:0].real,
    "view_as_real_mul_": lambda T, z: T.view_as_real(z * 1).mul_(2),
    "view_as_real_of_slice_mul_": lambda T, z: T.view_as_real((z * 1)[1:]).mul_(2),
    "view_as_real_select_mul_": lambda T, z: T.view_as_real(z * 1)[:, 1].mul_(2),
    "real_slice_mul_": lambda T, z: (z * 1).real[1:].mul_(2),
    "two_slices_imag_mul_": lambda T, z: (z * 1)[1:][:1].imag.mul_(2),
}


@pytest.mark.parametrize("case", sorted(PARTS))
def test_real_and_imag_graphs(case):
    def run(T):
        z = T.tensor([1 + 2j, 3 - 4j], requires_grad=True)
        part = PARTS[case](T, z)
        described = [str(part.dtype).split(".")[-1], tuple(part.shape), part.is_leaf,
                     part._base is not None, part.is_neg(), _graph(part.grad_fn)]
        loss = part.abs().sum() if part.is_complex() else (part * T.arange(1.0, 1.0 + part.numel())
                                                           .reshape(part.shape)).sum()
        loss.backward()
        grad = z.grad.detach()
        return described, part.detach().resolve_neg().numpy().copy(), \
            T.view_as_real(grad).numpy().copy()

    want, got = run(torch), run(leafgrad)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_array_equal(got[2], want[2])
    np.testing.assert_array_equal(np.signbit(got[2]), np.signbit(want[2]))


@pytest.mark.parametrize("case", ["real", "imag", "imag_of_conj", "real_of_conj"])
def test_real_and_imag_second_order(case):
    def run(T):
        z = T.tensor([1 + 2j, 3 - 4j], dtype=T.complex128, requires_grad=True)
        part = PARTS[case](T, z)
        (g,) = T.autograd.grad((part ** 3).sum(), z, create_graph=True)
        (gg,) = T.autograd.grad(T.view_as_real(g).sum(), z)
        return _graph(g.grad_fn, depth=3), T.view_as_real(gg).numpy().copy()

    want, got = run(torch), run(leafgrad)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10)


def test_negative_bit_of_imag_of_conj():
    for T in (torch, leafgrad):
        part = T.tensor([1 + 2j]).conj().imag
        assert part.is_neg() and not part.resolve_neg().is_neg()
        assert T.resolve_neg(part).tolist() == [-2.0]
        with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that has "
                                               "negative bit set"):
            part.numpy()
        assert not T.tensor([1 + 2j]).imag.is_neg() and not T.ones(1).is_neg()


# -- item 4: out= resized: its strides follow the computed result ---------------------------

def _layout_inputs(T, layout):
    """The out= table's inputs, row-major ("c") or stored transposed ("t": same values)."""
    namespace = _out_inputs(T)
    if layout == "t":
        for name in ("x", "y", "m", "i"):
            namespace[name] = namespace[name].t().contiguous().t()
        namespace["b"] = namespace["b"].permute(2, 1, 0).contiguous().permute(2, 1, 0)
    return namespace


def _warning_text(caught) -> str:
    """A warning's text without torch's " (Triggered internally at <file>:<line>.)"."""
    return str(caught.message).split(" (Triggered internally at ")[0]


def _resized_outs(T, code, layout, out_shape):
    plain = code
    for marker in (", out=OUT3", ", out=OUT2", ", out=OUT", "out=OUT"):
        plain = plain.replace(marker, "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        T.manual_seed(0)
        try:
            result = eval(plain, _layout_inputs(T, layout))  # noqa: S307
        except Exception:  # noqa: BLE001 - cases needing other inputs: not applicable
            return None
    results = result if isinstance(result, tuple) else (result,)
    if not all(hasattr(r, "stride") for r in results):
        return None
    outs = tuple(T.zeros(out_shape, dtype=r.dtype) for r in results)
    namespace = _layout_inputs(T, layout)
    namespace.update(OUT=outs[0], OUT2=outs[:2], OUT3=outs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T.manual_seed(0)
        eval(code, namespace)  # noqa: S307
    messages = [_warning_text(w) for w in caught if "resized" in str(w.message)]
    return [(tuple(o.shape), o.stride()) for o in outs], messages


# kernels whose result without out= has other strides in leafgrad than in torch (lu's LU
# factor, kron of transposed inputs): their out= strides are compared, the plain call is not
_PLAIN_LAYOUT_DIFFERS = {("lu", "c"), ("kron", "t")}


@pytest.mark.parametrize("out_shape", [(0,), (1, 1)], ids=["empty", "wrong_shape"])
@pytest.mark.parametrize("layout", ["c", "t"])
@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_resized_out_strides(name, layout, out_shape):
    want = _resized_outs(torch, OUT_CASES[name], layout, out_shape)
    got = _resized_outs(leafgrad, OUT_CASES[name], layout, out_shape)
    assert (want is None) == (got is None)
    if want is not None:
        assert got == want


RESIZES = {
    "exp_transposed": lambda T, x: T.exp(x.t(), out=T.empty(0)),
    "exp_same_count": lambda T, x: T.exp(x.t(), out=T.empty(6)),
    "exp_right_shape_kept": lambda T, x: T.exp(x, out=T.empty(3, 2).t()),
    "exp_empty_2d": lambda T, x: T.exp(x.t(), out=T.empty(0, 3)),
    "exp_empty_transposed": lambda T, x: T.exp(x.t(), out=T.empty(3, 0).t()),
    "exp_channels_last": lambda T, x: T.exp(
        T.arange(24.0).reshape(1, 2, 3, 4).contiguous(memory_format=T.channels_last),
        out=T.empty(0)),
    "tanh_permuted": lambda T, x: T.tanh(T.arange(24.0).reshape(2, 3, 4).permute(1, 2, 0),
                                         out=T.empty(5)),
    "add_transposed": lambda T, x: T.add(x.t(), x.t(), out=T.empty(0)),
    "mul_scalar": lambda T, x: T.mul(x.t(), 2, out=T.empty(0)),
    "clamp": lambda T, x: T.clamp(x.t(), 1, 3, out=T.empty(0)),
    "where": lambda T, x: T.where(x.t() > 1, x.t(), T.zeros(()), out=T.empty(0)),
    "sum_permuted": lambda T, x: T.sum(T.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1), 1,
                                       out=T.empty(0)),
    "mean_keepdim": lambda T, x: T.mean(T.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1), 2,
                                        keepdim=True, out=T.empty(0)),
    "cumsum": lambda T, x: T.cumsum(x.t(), 0, out=T.empty(0)),
    "mm": lambda T, x: T.mm(x.t(), x, out=T.empty(0)),
    "mm_wrong_shape": lambda T, x: T.mm(x.t(), x, out=T.empty(2, 2)),
    "matmul": lambda T, x: T.matmul(x.t(), x, out=T.empty(0)),
    "mv": lambda T, x: T.mv(x.t(), T.ones(2), out=T.empty(0)),
    "cat": lambda T, x: T.cat([x.t(), x.t()], out=T.empty(0)),
    "sort": lambda T, x: T.sort(x.t(), 0, out=(T.empty(0), T.empty(0, dtype=T.long)))[0],
    "0d": lambda T, x: T.exp(T.tensor(1.0), out=T.empty(0)),
    "0d_wrong_shape": lambda T, x: T.exp(T.tensor(1.0), out=T.empty(2)),
    "empty_result": lambda T, x: T.exp(x[:, :0].t(), out=T.empty(3)),
    "int_out": lambda T, x: T.add(x.t().long(), 1, out=T.empty(0, dtype=T.long)),
    "bool_out": lambda T, x: T.gt(x.t(), 2, out=T.empty(0, dtype=T.bool)),
}


@pytest.mark.parametrize("case", sorted(RESIZES))
def test_resized_out(case):
    def run(T):
        x = T.arange(6.0).reshape(2, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = RESIZES[case](T, x)
        return (tuple(out.shape), out.stride(), out.is_contiguous(),
                np.array(out.numpy(), copy=True).tolist(),
                [_warning_text(w) for w in caught if "resized" in str(w.message)])

    assert run(leafgrad) == run(torch)


def test_resized_out_keeps_its_memory_when_the_count_is_kept():
    def run(T):
        out = T.zeros(6)
        alias = out.view(6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            T.exp(T.arange(6.0).reshape(2, 3).t(), out=out)
        return out.stride(), alias.tolist()

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("args", ["x,0.", "0.,x", "1.,0.", "x,1", "True,x"])
def test_where_out_takes_tensors(args):
    def run(T):
        x = T.ones(2)
        first, second = (eval(a, {"x": x, "True": True}) for a in args.split(","))  # noqa: S307
        with pytest.raises(TypeError) as info:
            T.where(x > 0, first, second, out=T.empty(0))
        return str(info.value)

    assert run(leafgrad) == run(torch)


INDEXED_REDUCTIONS = {
    "kthvalue": lambda T, x, o: T.kthvalue(x, 2, 1, out=o),
    "kthvalue_keepdim": lambda T, x, o: T.kthvalue(x, 2, 1, keepdim=True, out=o),
    "kthvalue_dim0": lambda T, x, o: T.kthvalue(x, 1, 0, out=o),
    "mode": lambda T, x, o: T.mode(x, 1, out=o),
    "mode_keepdim": lambda T, x, o: T.mode(x, 1, True, out=o),
    "mode_dim0": lambda T, x, o: T.mode(x, 0, out=o),
    "median": lambda T, x, o: T.median(x, 1, out=o),
    "nanmedian": lambda T, x, o: T.nanmedian(x, 1, out=o),
    "max": lambda T, x, o: T.max(x, 1, out=o),
    "min_keepdim": lambda T, x, o: T.min(x, 1, keepdim=True, out=o),
    "cummax": lambda T, x, o: T.cummax(x, 1, out=o),
    "sort": lambda T, x, o: T.sort(x, 1, out=o),
    "topk": lambda T, x, o: T.topk(x, 2, 1, out=o),
}


@pytest.mark.parametrize("shape", [(0,), (1,), (1, 1), (2,), (2, 1), (), (3,), (1, 1, 1)])
@pytest.mark.parametrize("case", sorted(INDEXED_REDUCTIONS))
def test_resize_warnings_of_values_and_indices(case, shape):
    def run(T):
        x = T.arange(6.0).reshape(2, 3).t().contiguous().t()
        outs = (T.zeros(shape), T.zeros(shape, dtype=T.long))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            INDEXED_REDUCTIONS[case](T, x, outs)
        return ([(tuple(o.shape), o.stride(), o.tolist()) for o in outs],
                [_warning_text(w) for w in caught])

    assert run(leafgrad) == run(torch)


# -- item 5: dtype edges of losses and affine_grid (torch raises, or keeps another dtype) ----

LOSS_DTYPES = ["float32", "float64", "bfloat16", "float16"]
TARGET_DTYPES = ["float32", "float64", "bfloat16", "float16", "int64", "bool"]


def _loss_cases(T, x, y, idt, tdt):
    F = T.nn.functional
    x2 = T.tensor([[0.2, 0.7, 0.5], [0.1, 0.3, 0.6]], dtype=getattr(T, idt), requires_grad=True)
    labels = T.tensor([0, 2]).to(getattr(T, tdt))
    other = getattr(T, tdt)
    return {
        "bce": lambda: F.binary_cross_entropy(x, y),
        "bce_weight": lambda: F.binary_cross_entropy(x, y.detach().to(x.dtype),
                                                     weight=T.ones(3, dtype=other)),
        "bce_logits": lambda: F.binary_cross_entropy_with_logits(x, y),
        "bce_logits_weight": lambda: F.binary_cross_entropy_with_logits(
            x, y, weight=T.full((3,), 0.5, dtype=getattr(T, idt))),
        "mse": lambda: F.mse_loss(x, y),
        "l1": lambda: F.l1_loss(x, y),
        "smooth_l1": lambda: F.smooth_l1_loss(x, y),
        "huber": lambda: F.huber_loss(x, y),
        "kl_div": lambda: F.kl_div(x, y, reduction="batchmean"),
        "soft_margin": lambda: F.soft_margin_loss(x, y),
        "poisson": lambda: F.poisson_nll_loss(x, y),
        "hinge": lambda: F.hinge_embedding_loss(x, y),
        "multilabel_soft": lambda: F.multilabel_soft_margin_loss(x[None], y[None]),
        "nll": lambda: F.nll_loss(x2, labels),
        "nll_weight": lambda: F.nll_loss(x2, T.tensor([0, 2]), weight=T.ones(3, dtype=other)),
        "cross_entropy": lambda: F.cross_entropy(x2, labels),
        "multi_margin": lambda: F.multi_margin_loss(x2, labels),
    }


_LOSS_NAMES = sorted(_loss_cases(torch, None, None, "float32", "float32"))
_TOLERANCE = {"bfloat16": 2e-2, "float16": 2e-3, "float32": 1e-6, "float64": 1e-12}


@pytest.mark.parametrize("tdt", TARGET_DTYPES)
@pytest.mark.parametrize("idt", LOSS_DTYPES)
@pytest.mark.parametrize("name", _LOSS_NAMES)
def test_loss_dtype_pairs(name, idt, tdt):
    def run(T):
        x = T.tensor([0.2, 0.7, 0.5], dtype=getattr(T, idt), requires_grad=True)
        y = T.tensor([0.0, 1.0, 1.0]).to(getattr(T, tdt))
        if y.dtype.is_floating_point:
            y.requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                loss = _loss_cases(T, x, y, idt, tdt)[name]()
            except Exception as error:  # noqa: BLE001 - the exception is what is compared
                return ("raise", type(error).__name__, str(error).split("\n")[0])
            described = ["ok", str(loss.dtype).split(".")[-1], loss.grad_fn.name(),
                         float(loss.detach().float())]
            try:
                grads = T.autograd.grad(loss, [x] + ([y] if y.requires_grad else []),
                                        allow_unused=True)
                described.append([None if g is None else (str(g.dtype).split(".")[-1],
                                                          g.float().tolist()) for g in grads])
            except Exception as error:  # noqa: BLE001
                described.append(("raise", type(error).__name__, str(error).split("\n")[0]))
        return described

    want, got = run(torch), run(leafgrad)
    if want[0] == "raise":
        assert got == want
        return
    tolerance = max(_TOLERANCE[idt], _TOLERANCE.get(tdt, 0))
    assert got[:3] == want[:3]
    assert got[3] == pytest.approx(want[3], rel=tolerance, abs=tolerance)
    if isinstance(want[4], tuple):
        assert got[4] == want[4]
        return
    assert len(got[4]) == len(want[4])
    for g, w in zip(got[4], want[4]):
        assert (g is None) == (w is None)
        if w is not None:
            assert g[0] == w[0]
            np.testing.assert_allclose(g[1], w[1], rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [[1, 1, 2, 2, 2], [2, 3, 4, 5, 6], [1, 1, 3, 1, 7],
                                  [1, 1, 1, 1, 1], [2, 1, 3, 5], [1, 1, 1, 4], [1, 1, 5, 6]])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_affine_grid_dtypes(dtype, size, align_corners):
    def run(T):
        rows = [[1.0, 0.5, 0, 0.1], [0.2, 1, 0, 0], [0, 0.3, 1, 0.7]] if len(size) == 5 else \
            [[1.0, 0.5, 0.1], [0.2, 1, 0.3]]
        theta = T.tensor([rows] * size[0], dtype=getattr(T, dtype), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                grid = T.nn.functional.affine_grid(theta, size, align_corners=align_corners)
            except Exception as error:  # noqa: BLE001
                return ("raise", type(error).__name__, str(error).split("\n")[0])
        (grid * T.arange(1.0, grid.numel() + 1).reshape(grid.shape).to(grid.dtype)).sum() \
            .backward()
        return ("ok", str(grid.dtype).split(".")[-1], grid.grad_fn.name(),
                grid.detach().float().numpy().tolist(), theta.grad.float().numpy().tolist())

    want, got = run(torch), run(leafgrad)
    assert got[:3] == want[:3]
    if want[0] == "ok":
        assert got[3] == want[3]  # bit for bit: the base grid rounds as torch's does
        np.testing.assert_allclose(got[4], want[4], rtol=_TOLERANCE[dtype] * 4)


# -- item 6: the sign of zero in values and first/second derivatives --------------------------

def _signed(tensor):
    """Values with their sign bits (-0. vs 0.), or None."""
    if tensor is None:
        return None
    values = np.array(tensor.detach().numpy(), copy=True).reshape(-1)
    return [(float(v), bool(s)) for v, s in zip(values, np.signbit(values))]


SIGNED_ZERO = {
    "relu": lambda T, x, y: x.relu(),
    "clamp": lambda T, x, y: x.clamp(-1, 1),
    "clamp_min0": lambda T, x, y: x.clamp(min=0.0),
    "clamp_max0": lambda T, x, y: x.clamp(max=0.0),
    "clamp_min_tensor": lambda T, x, y: x.clamp(min=y),
    "clamp_max_tensor": lambda T, x, y: x.clamp(max=y),
    "clamp_min_fn": lambda T, x, y: T.clamp_min(x, 0.0),
    "clamp_max_fn": lambda T, x, y: T.clamp_max(x, 0.0),
    "maximum": lambda T, x, y: T.maximum(x, y),
    "minimum": lambda T, x, y: T.minimum(x, y),
    "fmax": lambda T, x, y: T.fmax(x, y),
    "fmin": lambda T, x, y: T.fmin(x, y),
    "max_dim": lambda T, x, y: x.reshape(2, 2).max(1)[0],
    "sign": lambda T, x, y: x.sign() * x,
    "leaky_relu": lambda T, x, y: T.nn.functional.leaky_relu(x, 0.1),
    "hardtanh": lambda T, x, y: T.nn.functional.hardtanh(x),
    "relu6": lambda T, x, y: T.nn.functional.relu6(x),
    "elu": lambda T, x, y: T.nn.functional.elu(x),
    "selu": lambda T, x, y: T.nn.functional.selu(x),
    "celu": lambda T, x, y: T.nn.functional.celu(x, 0.5),
    "threshold": lambda T, x, y: T.nn.functional.threshold(x, 0.0, 0.0),
    "hardshrink": lambda T, x, y: T.nn.functional.hardshrink(x, 0.5),
    "softshrink": lambda T, x, y: T.nn.functional.softshrink(x, 0.5),
    "where": lambda T, x, y: T.where(x > 0, x, T.zeros((), dtype=x.dtype)),
    "pow2": lambda T, x, y: x.pow(2),
    "norm": lambda T, x, y: x.norm(),
    "copysign": lambda T, x, y: T.copysign(x, y),
    "mul_neg_zero": lambda T, x, y: x * -0.0,
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(SIGNED_ZERO))
def test_signed_zeros_through_first_and_second_derivatives(case, dtype):
    def run(T):
        d = getattr(T, dtype)
        x = T.tensor([-2.0, -0.0, 0.0, 1.0], dtype=d, requires_grad=True)
        y = T.tensor([-2.0, 0.0, -0.0, 1.0], dtype=d, requires_grad=True)
        out = SIGNED_ZERO[case](T, x, y)
        upstream = T.full(out.shape, -1.0, dtype=d)
        first = T.autograd.grad(out, [x, y], upstream, create_graph=True, allow_unused=True)
        described = [_signed(out), _signed(first[0]), _signed(first[1]),
                     None if first[0] is None else first[0].requires_grad]
        if first[0] is not None and first[0].requires_grad:
            weight = T.tensor([-1.0, 1.0, -1.0, 1.0], dtype=d)
            second = T.autograd.grad((first[0] * weight).sum(), [x, y], allow_unused=True)
            described += [_signed(second[0]), _signed(second[1]),
                          first[0].grad_fn.name()]
        return described

    want, got = run(torch), run(leafgrad)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if not isinstance(w, list):
            assert g == w
            continue
        assert isinstance(g, list) and len(g) == len(w)
        # the sign bits exactly; the values to rounding (elu's family differs by an ulp)
        assert [s for _, s in g] == [s for _, s in w]
        np.testing.assert_allclose([v for v, _ in g], [v for v, _ in w], rtol=1e-6)


@pytest.mark.parametrize("pair", [("float64", "float32"), ("float32", "float64"),
                                  ("float32", "bfloat16"), ("bfloat16", "float32"),
                                  ("float16", "float32"), ("int64", "int64"),
                                  ("float32", "float32")])
def test_prelu_dtypes(pair):
    def run(T):
        x = T.tensor([-1.0, 2.0, -3.0]).to(getattr(T, pair[0]))
        w = T.tensor([0.25]).to(getattr(T, pair[1]))
        try:
            return ("ok", T.nn.functional.prelu(x, w).float().tolist())
        except Exception as error:  # noqa: BLE001
            return ("raise", type(error).__name__, str(error).split("\n")[0])

    assert run(leafgrad) == run(torch)


# the reductions' own dtype support (torch's kernels: no complex amax/amin or bool mean in
# scatter_reduce, no complex or bool index_reduce; complex sum/prod/mean without a derivative)
REDUCE_KERNELS = {
    "scatter_reduce_": lambda T, x, s, r: x.scatter_reduce_(0, T.arange(3), s, r),
    "scatter_reduce": lambda T, x, s, r: x.scatter_reduce(0, T.tensor([0, 0, 1]), s, r),
    "scatter_reduce_no_self": lambda T, x, s, r: x.scatter_reduce(0, T.tensor([0, 0, 1]), s, r,
                                                                  include_self=False),
    "scatter_reduce_bounds": lambda T, x, s, r: x.scatter_reduce_(0, T.tensor([20, 0, 1]), s,
                                                                  r),
    "index_reduce_": lambda T, x, s, r: x.index_reduce_(0, T.arange(3), s,
                                                        "prod" if r == "sum" else r),
    # (the bad index first: torch's index_reduce kernel writes the rows before it, then raises)
    "index_reduce_bounds": lambda T, x, s, r: x.index_reduce_(0, T.tensor([20, 0, 1]), s,
                                                              "amax" if r == "sum" else r),
    "scatter_legacy": lambda T, x, s, r: x.scatter(0, T.tensor([0, 0, 1]), s,
                                                   reduce="multiply" if r == "prod" else "add"),
    "scatter_legacy_value": lambda T, x, s, r: x.scatter_(0, T.arange(3), 2, reduce="multiply"),
}


_REDUCE_DTYPES = [(dtype, grad) for dtype in ("complex64", "complex128", "bool", "float16",
                                              "bfloat16", "uint8", "int32", "float64")
                  for grad in (False, True)
                  if not grad or dtype.startswith(("complex", "float", "bfloat"))]


@pytest.mark.parametrize("dtype,requires_grad", _REDUCE_DTYPES)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("case", sorted(REDUCE_KERNELS))
def test_reduction_kernel_dtypes(case, reduce, dtype, requires_grad):
    def run(T, seen):
        dt = getattr(T, dtype)
        x = T.arange(10).to(dt).requires_grad_(requires_grad)
        s = T.ones(3, dtype=dt)
        in_place = case.endswith(("_", "_bounds", "legacy_value"))
        target = x * 1 if requires_grad and in_place else x  # a leaf refuses in-place ops
        seen.append(x)
        return REDUCE_KERNELS[case](T, target, s, reduce)

    _assert_same(run)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "amax", "amin", "mean"])
@pytest.mark.parametrize("shape,dim,src", [((3,), 0, (2,)), ((2, 3), 1, (2, 2)),
                                           ((3, 2), 0, (2, 2)), ((2, 2, 3), 2, (2, 2, 2))])
@pytest.mark.parametrize("dtype", ["bool", "complex64", "complex128"])
def test_index_reduce_kernels_by_rank(dtype, shape, dim, src, reduce, include_self):
    def run(T, seen):
        d = getattr(T, dtype)
        x = T.ones(shape, dtype=d)
        seen.append(x)
        return x.index_reduce(dim, T.tensor([0, 0]), (T.ones(src) * 2).to(d), reduce,
                              include_self=include_self)

    _assert_same(run)


@pytest.mark.parametrize("value", [-0.0, 0.0, -1.0, 2.0])
@pytest.mark.parametrize("case", ["clamp_", "clamp", "clamp_max", "clamp_tensor", "maximum",
                                  "minimum", "fmax"])
def test_signed_zero_ties_of_0d_tensors(case, value):
    calls = {
        "clamp_": lambda T, x: x.clamp_(min=-0.5),
        "clamp": lambda T, x: x.clamp(min=0.0),
        "clamp_max": lambda T, x: x.clamp(max=0.0),
        "clamp_tensor": lambda T, x: x.clamp(min=T.tensor(0.0)),
        "maximum": lambda T, x: T.maximum(x, T.tensor(0.0)),
        "minimum": lambda T, x: T.minimum(x, T.tensor(-0.0)),
        "fmax": lambda T, x: T.fmax(x, T.tensor(0.0)),
    }

    def run(T):
        out = calls[case](T, T.tensor(value))
        return tuple(out.shape), _signed(out)

    assert run(leafgrad) == run(torch)
