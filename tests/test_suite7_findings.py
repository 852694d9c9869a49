"""Behaviours found by replaying PyTorch's own tensor-op test files (test_indexing.py,
test_type_promotion.py, test_tensor_creation_ops.py, test_sort_and_select.py,
test_scatter_gather.py, test_reductions.py) as programs run under torch and leafgrad; each
program's observations (values bit for bit, dtype, shape, strides, errors and warnings) must be
identical."""

from __future__ import annotations

import math
import warnings

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _seen(value):
    """A comparable picture of ``value``: tensors by dtype, shape, bytes and strides."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        data = value.detach()
        if data.dtype.itemsize == 2 and data.dtype.is_floating_point:
            data = data.view(torch.int16 if isinstance(data, torch.Tensor) else leafgrad.int16)
        raw = np.ascontiguousarray(data.resolve_conj().numpy()).tobytes()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), raw,
                value.stride() if value.numel() else None)
    if isinstance(value, (tuple, list)):
        return tuple(_seen(v) for v in value)
    if isinstance(value, (torch.dtype, leafgrad.dtype)):
        return str(value).split(".")[-1]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _outcome(fn):
    """(result picture or exception type and first message line, warnings' first lines)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", _seen(fn()))
        except Exception as error:  # noqa: BLE001 - the type is what is compared
            message = str(error).split("\n")[0].replace("leafgrad", "torch")
            result = (type(error).__name__, message)
    seen_warnings = tuple(str(w.message).split("\n")[0].split(" (Triggered internally")[0]
                          for w in caught)
    return result + (seen_warnings,)


def _same(cases):
    """``cases``: (label, program(module)) pairs; each must give the same outcome in both."""
    bad = []
    for label, program in cases:
        expected, got = _outcome(lambda: program(torch)), _outcome(lambda: program(leafgrad))
        if got != expected:
            bad.append(f"{label}: leafgrad {str(got)[:300]} != torch {str(expected)[:300]}")
    assert not bad, f"{len(bad)} of {len(cases)} differ:\n" + "\n".join(bad[:20])


# --- advanced indexing: index dtypes, uint8 masks, the order of index_put_'s checks ------------

def test_index_tensor_dtypes_masks_and_index_put_check_order():
    """Index tensors must be long, int, byte or bool (int8/int16/uint16 refused, a 0-d one in
    x[i] is an int); a uint8 index warns and is a mask, and x[mask] = one value is then
    masked_fill_'s bool-only error; x[idx] = v checks v's shape, then its dtype, then the
    bounds; a 0-d bool is the long index [0] or [] (so v's dtype must match); a mask of the
    wrong shape in index_put_ is torch's message; expand names the value's own type."""
    indices = [
        lambda m: (m.tensor([0, 1]),), lambda m: (m.tensor([-1, 0]),), lambda m: (m.tensor([2]),),
        lambda m: (m.tensor([-3]),), lambda m: (m.tensor([], dtype=m.long),),
        lambda m: (m.tensor([True, False]),), lambda m: (m.tensor(True),),
        lambda m: (m.tensor(False),), lambda m: (True,), lambda m: (slice(None), m.tensor([0, 5])),
        lambda m: (m.tensor([0, 1], dtype=m.int32),), lambda m: (m.tensor([0, 1], dtype=m.uint8),),
        lambda m: (m.tensor([0, 1], dtype=m.int8),), lambda m: (m.tensor([0, 1], dtype=m.int16),),
        lambda m: (m.tensor(1, dtype=m.int8),), lambda m: (m.tensor([True, False, True]),),
        lambda m: (slice(None), m.tensor([True, False, True])),
        lambda m: (m.ones(2, 3, 5, dtype=m.bool),), lambda m: (m.ones(2, 2, dtype=m.bool),),
        lambda m: (m.tensor([[[True]]]),), lambda m: (1, 2, 3), lambda m: (m.tensor([0, 5]),),
    ]
    values = [lambda m: 7, lambda m: m.tensor(-1.5), lambda m: m.tensor([5., 6., 7., 8.]),
              lambda m: m.tensor([1, 2]), lambda m: m.tensor([[9.]], dtype=m.float64)]
    cases = []
    for dtype in ("float32", "int64", "bool"):
        def base(m, dtype=dtype):
            return m.arange(24).reshape(2, 3, 4).to(getattr(m, dtype))
        for i, index in enumerate(indices):
            cases.append((f"get {dtype} {i}", lambda m, index=index, base=base: base(m)[index(m)]))
            for j, value in enumerate(values):
                def write(m, index=index, value=value, base=base):
                    x = base(m)
                    x[index(m)] = value(m)
                    return x
                cases.append((f"set {dtype} {i} {j}", write))
            for accumulate in (False, True):
                def put(m, index=index, accumulate=accumulate, base=base, inplace=True):
                    x = base(m)
                    tensors = tuple(t for t in index(m) if isinstance(t, m.Tensor))
                    if not tensors or any(t.ndim == 0 for t in tensors):
                        return None  # (torch's own internal assert for a lone 0-d mask)
                    values = m.ones(()).to(x.dtype) if inplace else m.arange(4).to(x.dtype)
                    if inplace:
                        return x.index_put_(tensors, values, accumulate=accumulate)
                    return m.index_put(x, tensors, values, accumulate=accumulate)
                cases.append((f"index_put_ {dtype} {i} {accumulate}", put))
                cases.append((f"index_put {dtype} {i} {accumulate}",
                              lambda m, put=put: put(m, inplace=False)))
    for name in ("float16", "bfloat16", "bool", "complex64", "uint16", "int8", "float64"):
        cases.append((f"expand {name}",
                      lambda m, name=name: m.zeros(2, dtype=getattr(m, name)).expand(())))
    _same(cases)
