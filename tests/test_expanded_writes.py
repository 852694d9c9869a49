"""In-place ops on tensors whose elements share memory (expanded views), against torch: the
store-only kernels write (zero_, fill_ with a number, fill_diagonal_, and with a deprecation
warning masked_fill_, index_fill_, index_put_ / x[mask] = v), every other op raises torch's
'unsupported operation' error and leaves the tensor as it was (Note: writes through expanded
tensors, ops/inplace.py)."""

from __future__ import annotations

import warnings

import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()

DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool", "complex64", "complex128",
          "float16", "int8"]


def _run(lib, case, dtype):
    """(base values after, result values, first error line, warning texts) of ``case``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        base = lib.arange(4).to(getattr(lib, dtype))
        if dtype != "bool":
            base = base + 1
        expanded = base.expand(3, 4)
        try:
            result = case(lib, expanded)
            error = None
        except Exception as exc:  # noqa: BLE001 - the type and message are compared
            result, error = None, (type(exc).__name__, str(exc).splitlines()[0])
    values = repr(base.tolist())  # (repr: NaN equal to itself)
    if isinstance(result, (torch.Tensor, leafgrad.Tensor)):
        result = (repr(result.tolist()), result.shape == expanded.shape, base._version)
    texts = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    return values, result, error, texts


CASES = {
    "zero_": lambda lib, e: e.zero_(),
    "fill_": lambda lib, e: e.fill_(1),
    "fill_tensor": lambda lib, e: e.fill_(lib.tensor(1).to(e.dtype)),
    "copy_": lambda lib, e: e.copy_(lib.ones(3, 4, dtype=e.dtype)),
    "copy_row": lambda lib, e: e.copy_(lib.ones(4, dtype=e.dtype)),
    "copy_self": lambda lib, e: e.copy_(e),
    "add_": lambda lib, e: e.add_(lib.ones(3, 4, dtype=e.dtype)),
    "mul_": lambda lib, e: e.mul_(lib.ones((), dtype=e.dtype)),
    "neg_": lambda lib, e: e.neg_(),
    "masked_fill_": lambda lib, e: e.masked_fill_(lib.tensor([True, False, False, True]), 0),
    "masked_fill_rows": lambda lib, e: e.masked_fill_(
        lib.tensor([[True, False, False, False], [False] * 4, [False, False, False, True]]), 0),
    "masked_fill_tensor": lambda lib, e: e.masked_fill_(
        lib.tensor([True, False, False, True]), lib.tensor(0).to(e.dtype)),
    "index_fill_": lambda lib, e: e.index_fill_(1, lib.tensor([0, 2]), 0),
    "index_fill_dim0": lambda lib, e: e.index_fill_(0, lib.tensor([1]), 0),
    "index_fill_tensor": lambda lib, e: e.index_fill_(1, lib.tensor([3]),
                                                      lib.tensor(0).to(e.dtype)),
    "index_put_": lambda lib, e: e.index_put_((lib.tensor([0]),), lib.tensor(0).to(e.dtype)),
    "index_put_pairs": lambda lib, e: e.index_put_((lib.tensor([0, 2]), lib.tensor([1, 3])),
                                                   lib.zeros(2, dtype=e.dtype)),
    "index_put_mask": lambda lib, e: e.index_put_((lib.ones(3, 4, dtype=lib.bool),),
                                                  lib.tensor(0).to(e.dtype)),
    "setitem_row": lambda lib, e: e.__setitem__(0, 0),
    "setitem_element": lambda lib, e: e.__setitem__((1, 2), 0),
    "setitem_column": lambda lib, e: e.__setitem__((slice(None), 0), 0),
    "setitem_all": lambda lib, e: e.__setitem__(Ellipsis, 0),
    "setitem_index": lambda lib, e: e.__setitem__(lib.tensor([1]), 0),
    "setitem_mask": lambda lib, e: e.__setitem__(lib.ones(3, 4, dtype=lib.bool), 0),
    "fill_diagonal_": lambda lib, e: e.fill_diagonal_(0),
    "scatter_": lambda lib, e: e.scatter_(1, lib.tensor([[0]]), 0),
    "index_copy_": lambda lib, e: e.index_copy_(1, lib.tensor([0]), lib.zeros(3, 1, dtype=e.dtype)),
    "put_": lambda lib, e: e.put_(lib.tensor([0]), lib.zeros(1, dtype=e.dtype)),
}
FLOAT_CASES = {
    "index_put_accumulate": lambda lib, e: e.index_put_((lib.tensor([0]),), lib.tensor(5.).to(
        e.dtype), accumulate=True),
    "sin_": lambda lib, e: e.sin_(),
    "clamp_": lambda lib, e: e.clamp_(0, 1),
    "normal_": lambda lib, e: e.normal_().shape,
    "uniform_": lambda lib, e: e.uniform_().shape,
    "bernoulli_": lambda lib, e: e.bernoulli_(0.5).shape,
    "init_zeros_": lambda lib, e: lib.nn.init.zeros_(e),
    "init_constant_": lambda lib, e: lib.nn.init.constant_(e, 0.5),
    "init_normal_": lambda lib, e: lib.nn.init.normal_(e).shape,
    "fill_nan": lambda lib, e: e.fill_(float("nan")),
    "fill_negative_zero": lambda lib, e: e.fill_(-0.0).sign(),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, dtype):
    expected = _run(torch, CASES[name], dtype)
    got = _run(leafgrad, CASES[name], dtype)
    assert got == expected


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "float16"])
@pytest.mark.parametrize("name", sorted(FLOAT_CASES))
def test_float_ops_match_torch(name, dtype):
    expected = _run(torch, FLOAT_CASES[name], dtype)
    got = _run(leafgrad, FLOAT_CASES[name], dtype)
    if name in ("normal_", "uniform_", "bernoulli_", "init_normal_") and expected[2] is None:
        got, expected = got[1:], expected[1:]  # (random values: the error and warnings only)
    assert got == expected


def test_negative_zero_reaches_memory():
    """A fill of -0.0 over +0.0 changes bits, not the value: it is still stored."""
    for lib in (torch, leafgrad):
        base = lib.zeros(2)
        base.expand(3, 2).fill_(-0.0)
        assert [str(v) for v in base.tolist()] == ["-0.0", "-0.0"]


@pytest.mark.parametrize("layout", ["transposed", "zero_sized", "zero_d", "sliced"])
def test_other_layouts(layout):
    def case(lib):
        if layout == "transposed":
            base = lib.arange(6.).reshape(2, 3)
            view = base.t().unsqueeze(0).expand(2, 3, 2)
        elif layout == "zero_sized":
            base = lib.ones(0)
            view = base.expand(3, 0)
        elif layout == "zero_d":
            base = lib.tensor(5.)
            view = base.expand(4)
        else:
            base = lib.arange(8.).reshape(2, 4)
            view = base[:, ::2].unsqueeze(1).expand(2, 3, 2)
        view.fill_(9.)
        view.masked_fill_(lib.ones(view.shape[-1:], dtype=lib.bool) if view.ndim else
                          lib.tensor(True), 7.)
        return base.tolist(), view.tolist(), base._version

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert case(leafgrad) == case(torch)


def test_recorded_write_and_its_backward():
    """Recorded: the base's history becomes CopySlices; torch's backward then raises the
    same overlap error (its gradient of the expanded region cannot be written)."""
    def case(lib):
        leaf = lib.ones(4, requires_grad=True)
        base = leaf * 1
        view = base.expand(3, 4)
        view.zero_()
        names = (type(base.grad_fn).__name__, base.grad_fn.name())
        try:
            (base * lib.arange(4.)).sum().backward()
            error = None
        except RuntimeError as exc:
            error = str(exc).splitlines()[0]
        return base.tolist(), names, error

    assert case(leafgrad) == case(torch)


def test_leaf_view_refused_first():
    for lib in (torch, leafgrad):
        leaf = lib.ones(4, requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
            leaf.expand(3, 4).zero_()
        assert leaf.tolist() == [1.0] * 4
