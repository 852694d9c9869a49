"""Differences from torch 2.13 (and slow paths) found by the left4 helper; torch is the reference.

- ``t[index] = number`` / ``t[index] = 0-d tensor``, ``fill_`` and ``t[i, j]`` / ``t[a:b]``
  reads take a fast path (Note: fast basic indexing, tensor.py): every class of index, value,
  dtype, layout and autograd state must still give torch's values, versions, nodes, gradients
  and errors (the sweeps also found: the "dimension" of an out-of-bounds index, 0-d tensors'
  index errors, a zero slice step, a view made a leaf by requires_grad_(), fill_'s error order).
- float16 smooth_l1_loss / huber_loss / soft_margin_loss bits (Note: float16 pointwise loss
  kernels, ops/loss.py) and the integer and bool inputs of the losses (torch's errors).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _outcome(run):
    """What a program did: its result, or its exception's type and first message line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = run()
        except Exception as error:  # noqa: BLE001 - the type is compared with torch's
            result = (type(error).__name__, str(error).splitlines()[0] if str(error) else "")
    # (torch warns of a complex value cast to real once per process: not compared)
    return result, sorted({str(w.message).splitlines()[0].replace("leafgrad.Size", "torch.Size")
                           for w in caught
                           if "discards the imaginary part" not in str(w.message)})


def _values(t):
    """A tensor's values as comparable Python data (bits of NaN aside)."""
    name = str(t.dtype).split(".")[-1]
    t = t.detach()
    if name.startswith("complex"):
        return name, tuple(t.shape), t.real.double().tolist(), t.imag.double().tolist()
    return name, tuple(t.shape), t.double().tolist() if name != "bool" else t.tolist()


def _assert_same(got, want, what):
    def norm(x):
        if isinstance(x, float) and math.isnan(x):
            return "nan"
        if isinstance(x, (list, tuple)):
            return type(x)(norm(v) for v in x)
        return x

    assert norm(got) == norm(want), what


def _sweep(program, cases):
    """Run ``program(lib, *case)`` with leafgrad and torch for every case; report each distinct
    difference once (with the first case that shows it)."""
    differences = {}
    for case in cases:
        want = _outcome(lambda: program(torch, *case))
        got = _outcome(lambda: program(lg, *case))
        try:
            _assert_same(got, want, "")
        except AssertionError:
            differences.setdefault(repr((got, want))[:400], case)
    assert not differences, [(case, diff) for diff, case in differences.items()][:6]


# -- writes ----------------------------------------------------------------------------------

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int32", "int64",
          "bool", "uint16", "complex64"]
VALUES = [1.5, 2, True, -1, 300, 70000, 1e40, float("nan"), float("inf"), -float("inf"),
          2 ** 63 - 1, 2 ** 63, -2 ** 63 - 1, 2 ** 64, 0.0, -0.0]
INDICES = [1, -1, 3, -4, 4, -5, (1, 2), (1, -6), (1, 6), (-4, 0), slice(1, 3),
           slice(None, None, 2), slice(None, None, -1), slice(0, 0), slice(5, 1),
           slice(-100, 100), (slice(1, 3), 2), (1, slice(None)), (slice(None), slice(1, None, 2)),
           (), (1, 2, 3), (Ellipsis, 1), None, (slice(None), slice(None)), slice(None),
           slice(None, None, 0), (None, 1, 9), (Ellipsis, 9)]


def _base(lib, dtype):
    return lib.arange(24).reshape(4, 6).to(getattr(lib, dtype))


def _write_plain(lib, dtype, index, value):
    t = _base(lib, dtype)
    before = t._version
    t[index] = value
    return _values(t), t._version - before


def _write_layouts(lib, dtype, index, value):
    out = []
    base = _base(lib, dtype)
    view = base[1:]  # a view: the write reaches the base and bumps the shared counter
    before = base._version
    try:
        view[index] = value
    except Exception as error:  # noqa: BLE001
        out.append(type(error).__name__)
    out += [_values(base), base._version - before]
    t = lib.arange(24).reshape(6, 4).to(getattr(lib, dtype)).t()  # non-contiguous
    try:
        t[index] = value
    except Exception as error:  # noqa: BLE001
        out.append(type(error).__name__)
    out.append(_values(t))
    return out


# the index kinds the fast path takes (the others are swept below with fewer values)
FAST_INDICES = [1, -4, (1, 2), slice(1, 3), (slice(None), slice(1, None, 2)), slice(5, 1)]
SOME_VALUES = [("float32", 1.5), ("int64", 2 ** 63), ("uint8", -1), ("float16", 1e40),
               ("bool", float("nan"))]


def test_setitem_number_matches_torch_for_every_dtype_and_value():
    _sweep(_write_plain, [(d, i, v) for d in DTYPES for v in VALUES for i in FAST_INDICES])


def test_setitem_number_matches_torch_for_every_index():
    _sweep(_write_plain, [(d, i, v) for d, v in SOME_VALUES for i in INDICES])


def test_setitem_number_through_views_and_strided_tensors_matches_torch():
    _sweep(_write_layouts, [(d, i, v) for d in ["float32", "uint8", "float16"]
                            for v in [1.5, 300] for i in INDICES])


def _graph_write(lib, mode, index, value, dtype):
    """A write into a tensor in a graph (or a leaf that requires grad), then backward."""
    x = lib.arange(24, dtype=getattr(lib, dtype)).reshape(4, 6).requires_grad_()
    if mode == "leaf":
        x[index] = value
        return "no error"
    if mode == "leaf_no_grad":
        with lib.no_grad():
            x[index] = value
        return _values(x), x._version, x.requires_grad, x.grad_fn, x.is_leaf
    if mode == "view_of_leaf":
        x[1:][index] = value
        return "no error"
    y = x * 2
    target = y[1:] if mode == "view_of_result" else y
    target[index] = value
    names = [y.grad_fn.name(), target.grad_fn.name()]
    (y * lib.arange(24.0, dtype=y.dtype).reshape(4, 6)).sum().backward()
    return names, _values(y), _values(x.grad), y._version, target.is_leaf


def test_setitem_number_records_or_refuses_as_torch():
    modes = ["leaf", "leaf_no_grad", "view_of_leaf", "result", "view_of_result"]
    _sweep(_graph_write, [(m, i, v, d) for m in modes for d, v in [("float32", 1.5),
                                                                    ("float64", 1e40)]
                          for i in INDICES] +
           [(m, i, v, "float64") for m in modes for v in [2, True, float("nan")]
            for i in FAST_INDICES])


def _tensor_value_write(lib, value_dtype, requires_grad, grad_on, overlap, index):
    t = lib.arange(24, dtype=lib.float32).reshape(4, 6)
    if overlap:
        value = t[0, 5]
    else:
        value = lib.tensor(7, dtype=getattr(lib, value_dtype)).requires_grad_(requires_grad)
    before = t._version
    with lib.set_grad_enabled(grad_on):
        t[index] = value
    names = t.grad_fn.name() if t.grad_fn is not None else None
    if requires_grad and grad_on:
        t.sum().backward()
        return _values(t), names, _values(value.grad), t._version - before
    return _values(t), names, t.requires_grad, t._version - before


def test_setitem_zero_dim_tensor_matches_torch():
    cases = [(d, r, g, o, i) for d in ["float32", "float64", "int64", "bool", "float16",
                                       "complex64"]
             for r in (False, True) if not r or d in ("float32", "float64")
             for g in (False, True) for o in (False, True)
             for i in FAST_INDICES + [(1, 6), 4, slice(None, None, -1), (Ellipsis, 1)]]
    _sweep(_tensor_value_write, cases)


def _special_targets(lib, case, index, value):
    if case == "expanded":
        t = lib.arange(6.0).reshape(1, 6).expand(4, 6)
        t[index] = value
        return _values(t)
    if case == "inference":
        with lib.inference_mode():
            t = lib.zeros(4, 6)
        t[index] = value
        return _values(t)
    if case == "zero_dim":
        t = lib.tensor(3.0)
        t[index] = value
        return _values(t)
    if case == "empty":
        t = lib.zeros(0, 6)
        t[index] = value
        return _values(t)
    if case == "meta":
        t = lib.zeros(4, 6, device="meta")
        t[index] = value
        return tuple(t.shape), t._version
    raise AssertionError(case)


def test_setitem_number_special_targets_match_torch():
    _sweep(_special_targets, [(c, i, v) for c in ["expanded", "inference", "zero_dim", "empty",
                                                   "meta"]
                              for v in [1.5, 2 ** 63, float("nan")] for i in INDICES])


def _fill(lib, dtype, value, shape, case):
    t = lib.arange(int(np.prod(shape))).reshape(shape).to(getattr(lib, dtype))
    if case == "view":
        base, t = t, t[1:]
    elif case == "strided":
        base, t = t, t.t() if t.ndim == 2 else t
    else:
        base = t
    before = base._version
    result = t.fill_(value)
    return _values(base), base._version - before, result is t


def test_fill_number_matches_torch():
    _sweep(_fill, [(d, v, s, c) for d in DTYPES for v in VALUES
                   for s, c in [((4, 6), "plain"), ((4, 6), "view"), ((4, 6), "strided"),
                                ((1,), "plain"), ((), "plain"), ((0, 3), "plain")]])


def _fill_graph(lib, mode, value):
    x = lib.arange(6.0).requires_grad_()
    if mode == "leaf":
        x.fill_(value)
        return "no error"
    if mode == "leaf_no_grad":
        with lib.no_grad():
            x.fill_(value)
        return _values(x), x.requires_grad, x.is_leaf
    if mode == "view_of_leaf":
        x[1:].fill_(value)
        return "no error"
    y = x * 2
    (y[2:] if mode == "view" else y).fill_(value)
    name = y.grad_fn.name()
    (y * lib.arange(6.0)).sum().backward()
    return name, _values(y), _values(x.grad)


def test_fill_number_autograd_states_match_torch():
    _sweep(_fill_graph, [(m, v) for m in ["leaf", "leaf_no_grad", "view_of_leaf", "result",
                                          "view"] for v in [1.5, 2, 1e40]])


# -- reads -----------------------------------------------------------------------------------

READ_INDICES = [1, -1, 4, (1, 2), (-1, -6), (3, 6), (1, 2, 0), (1, 2, 0, 0), (), (0,),
                slice(1, 3), slice(None), slice(None, None, 2), slice(3, 1), slice(-100, 100),
                slice(None, None, -1), slice(None, None, 0), slice(1.0, 2), (None, 0, 5),
                (Ellipsis, 9), (0, Ellipsis, 9), (slice(None, None, -1), 9), (9, slice(None, None, 0))]


def _read(lib, index, layout, requires_grad):
    x = lib.arange(24.0).reshape(2, 3, 4)
    if layout == "strided":
        x = x.permute(2, 0, 1)
    if requires_grad:
        x.requires_grad_()
    r = x[index]
    names = r.grad_fn.name() if r.grad_fn is not None else None
    # (an empty result's storage_offset differs: leafgrad re-makes empty arrays, Note: strides
    # of empty tensors; not this fast path's doing)
    offset = r.storage_offset() if r.numel() else None
    out = [_values(r), r.stride(), offset, names, r._base is x, r.is_leaf]
    if requires_grad:
        (r * 3).sum().backward()
        out.append(_values(x.grad))
    return out


def test_getitem_ints_and_slice_match_torch():
    _sweep(_read, [(i, layout, r) for layout in ["contiguous", "strided"] for r in (False, True)
                   for i in READ_INDICES])


# -- float16 smooth_l1 / huber, integer inputs of the losses ----------------------------------

def _bits(t):
    return t.detach().numpy().view(np.uint16).tolist()


def _half_loss(lib, name, size, reduction, param, layout):
    rng = np.random.default_rng(size * 7 + len(reduction))
    a = (rng.standard_normal(size) * 3).astype(np.float16)
    b = (rng.standard_normal(size) * 3).astype(np.float16)
    x = lib.tensor(a, requires_grad=True)
    y = lib.tensor(b, requires_grad=True)
    xs, ys = x, y
    if layout == "strided" and size % 2 == 0:
        xs, ys = x.reshape(2, -1).t(), y.reshape(2, -1).t()
    elif layout == "broadcast":
        ys = y[:1]
    key = "beta" if name == "smooth_l1_loss" else "delta"
    kwargs = {} if param is None else {key: param}
    out = getattr(lib.nn.functional, name)(xs, ys, reduction=reduction, **kwargs)
    out.backward(lib.full_like(out, 0.7))
    return _bits(out), _bits(x.grad), _bits(y.grad)


def test_float16_smooth_l1_and_huber_bits_match_torch():
    """torch's Half kernels: smooth_l1 rounds every step to float16, huber and smooth_l1's
    backward compute in float32 and round once; sizes around the vector pairs (32 halves)."""
    cases = [(name, size, reduction, param, layout)
             for name, params in [("smooth_l1_loss", [None, 0.5, 2.0]),
                                  ("huber_loss", [None, 0.5, 2.0])]
             for param in params for reduction in ["none", "mean", "sum"]
             for size in [1, 3, 17, 32, 33, 70, 1000] for layout in ["contiguous"]]
    cases += [(name, size, "mean", 0.5, layout) for name in ["smooth_l1_loss", "huber_loss"]
              for size in [8, 70] for layout in ["strided", "broadcast"]]
    _sweep(_half_loss, cases)


def test_float16_tensor_mean_matches_torch():
    # Note: float16 sums and means (ops/reduce.py): torch adds in float32 and rounds once
    _sweep(lambda lib, size: _bits(lib.tensor(np.abs(np.random.default_rng(size).standard_normal(
        size) * 3).astype(np.float16)).mean()), [(size,) for size in [3, 17, 70, 100, 1000]])


_FLOAT16_REDUCTIONS = {
    "sum(0)": lambda t: t.sum(0), "sum(1)": lambda t: t.sum(1),
    "sum((0, 1), keepdim)": lambda t: t.sum((0, 1), keepdim=True), "mean()": lambda t: t.mean(),
    "mean(1)": lambda t: t.mean(1), "mean(0, keepdim)": lambda t: t.mean(0, keepdim=True),
    "t().mean()": lambda t: t.t().mean(), "t().mean(0)": lambda t: t.t().mean(0),
    "t().sum(0)": lambda t: t.t().sum(0), "[:, ::2].mean(-1)": lambda t: t[:, ::2].mean(-1),
    "mean(dtype=float16) of float32": lambda t: t.float().mean(dtype=t.dtype),
}


def test_float16_sums_and_means_over_dims_match_torch():
    """Outer-dim sums added rows in float16 (NumPy), and means divided a float16 sum: many
    such results differed from torch in the last bits before."""
    seen = {}
    for lib in (lg, torch):
        # (at most 31,000 elements: past 32,768 torch adds a full float16 sum in chunks whose
        # partial sums are rounded to float16, an open difference)
        for rows in (1, 4, 9, 31):
            for size in (1, 3, 17, 70, 257, 1000):
                a = (np.random.default_rng(rows * 1000 + size).standard_normal((rows, size))
                     * 3).astype(np.float16)
                for name, fn in _FLOAT16_REDUCTIONS.items():
                    out = fn(lib.tensor(a))
                    seen.setdefault((rows, size, name), []).append(
                        (out.numpy().tobytes(), tuple(out.shape), str(out.dtype).split(".")[-1]))
    differ = [key for key, (ours, theirs) in seen.items() if ours != theirs]
    assert not differ, differ[:10]


def _int_loss(lib, name, input_dtype, target_dtype, reduction):
    x = lib.tensor([[1, 0], [0, 1], [3, -2]]).to(getattr(lib, input_dtype))
    y = lib.tensor([[1, 0], [1, -1], [-1, 1]]).to(getattr(lib, target_dtype))
    out = getattr(lib.nn.functional, name)(x, y, reduction=reduction)
    # (rounded: the float32 soft_margin_loss is within an ulp of torch's SLEEF exp/log1p, not
    # bit for bit; this test is about dtypes and errors)
    return str(out.dtype).split(".")[-1], np.round(out.double().numpy(), 5).tolist()


def test_integer_inputs_of_losses_match_torch():
    dtypes = ["int64", "int32", "int8", "uint8", "bool", "float32", "float16"]
    names = ["binary_cross_entropy", "soft_margin_loss", "hinge_embedding_loss",
             "binary_cross_entropy_with_logits"]
    _sweep(_int_loss, [(n, a, b, r) for n in names for a in dtypes for b in dtypes
                       for r in ["mean", "sum", "none"]
                       if not (a.startswith("float") and b.startswith("float"))])


def test_hinge_embedding_loss_integer_margin_truncates_as_torch():
    def run(lib, dtype, margin, reduction):
        x = lib.tensor([[3, 0], [0, 1], [-2, 5]]).to(getattr(lib, dtype))
        y = lib.tensor([[1, -1], [-1, 1], [-1, -1]])
        out = lib.nn.functional.hinge_embedding_loss(x, y, margin=margin, reduction=reduction)
        return str(out.dtype).split(".")[-1], out.tolist()

    _sweep(run, [(d, m, r) for d in ["int64", "uint8", "int16"] for m in [1.0, 1.5, 2.7, -0.5]
                 for r in ["none", "sum"]])


def test_sdpa_integer_and_bool_inputs_raise_as_torch():
    """torch makes a boolean attn_mask a float mask of the query's dtype first (-inf cannot be
    an integer), scales an integer query into float, and then refuses the integer value."""
    def run(lib, dtype, mask):
        q = lib.ones(2, 2, 4).to(getattr(lib, dtype))
        k = lib.ones(2, 3, 4).to(getattr(lib, dtype))
        v = lib.ones(2, 3, 2).to(getattr(lib, dtype))
        kwargs = {"is_causal": True} if mask == "causal" else {} if mask is None else {
            "attn_mask": lib.tensor([[True, False, True], [False, False, False]])}
        return str(lib.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs).dtype)

    _sweep(run, [(d, m) for d in ["uint16", "int64", "int32", "uint8", "bool"]
                 for m in [None, "bool", "causal"]])

    def mixed(lib, dtypes):
        q, k, v = (lib.ones(shape).to(getattr(lib, d))
                   for shape, d in zip([(2, 2, 4), (2, 3, 4), (2, 3, 2)], dtypes))
        return str(lib.nn.functional.scaled_dot_product_attention(q, k, v).dtype)

    _sweep(mixed, [(("uint16", "int64", "int64"),), (("float32", "float32", "float64"),),
                   (("float32", "float16", "float32"),), (("bfloat16", "float32", "float32"),)])


def test_bilinear_mixed_dtypes_raise_as_torch():
    def run(lib, dtypes, with_bias, bad_dim):
        shapes = [(3, 2), (3, 4) if not bad_dim else (3, 1, 4), (5, 2, 4), (5,)]
        tensors = [lib.ones(shape).to(getattr(lib, d)) for shape, d in zip(shapes, dtypes)]
        out = lib.nn.functional.bilinear(*tensors[:3], tensors[3] if with_bias else None)
        return str(out.dtype).split(".")[-1], tuple(out.shape)

    kinds = [("float32",) * 4, ("float32", "int64", "int64", "float32"),
             ("float32", "float32", "float32", "float64"), ("float16", "float32", "float32",
                                                            "float32"),
             ("float32", "float32", "uint16", "float32"), ("int64",) * 4, ("bfloat16",) * 4]
    _sweep(run, [(k, b, d) for k in kinds for b in (False, True) for d in (False, True)])
