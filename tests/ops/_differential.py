"""The differential check the scans and statistics tests share: one call with leafgrad and
with torch, compared value by value (dtype, shape, grad_fn name, requires_grad, torch's
exception type and first line), and its first and second-order gradients for a random upstream
gradient."""

from __future__ import annotations

import numpy as np

import leafgrad

from .._torch import require_torch

torch = require_torch()
NAN, INF = float("nan"), float("inf")



def _tensors(lib, arrays, dtype, requires_grad):
    out = []
    for array in arrays:
        if isinstance(array, np.ndarray):
            # float arrays take the test's dtype; integer arrays (weights, counts) stay int64
            kind = {"f": dtype, "c": "complex128"}.get(array.dtype.kind, "int64")
            t = lib.tensor(array, dtype=getattr(lib, kind))
            if requires_grad and (t.is_floating_point() or t.is_complex()):
                t.requires_grad_()
            out.append(t)
        else:
            out.append(array)
    return out


def _run(lib, fn, arrays, dtype, requires_grad):
    inputs = _tensors(lib, arrays, dtype, requires_grad)
    try:
        return inputs, fn(lib, *inputs)
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return inputs, (type(error).__name__, str(error).splitlines()[0])


def _is_error(outcome) -> bool:
    return type(outcome) is tuple and len(outcome) == 2 and isinstance(outcome[0], str)


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [t for item in result for t in _flat(item)]
    return [result]


def _np(tensor):
    return tensor.detach().numpy(force=True)


def _same_tensor(ours, theirs, rtol, atol):
    if not isinstance(theirs, torch.Tensor):
        assert ours == theirs
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    if rtol == 0:
        np.testing.assert_array_equal(_np(ours), _np(theirs))
    else:
        np.testing.assert_allclose(_np(ours), _np(theirs), rtol=rtol, atol=atol)
    assert ours.requires_grad == theirs.requires_grad
    ours_node = type(ours.grad_fn).__name__ if ours.grad_fn is not None else None
    theirs_node = type(theirs.grad_fn).__name__ if theirs.grad_fn is not None else None
    assert ours_node == theirs_node


def check(fn, *arrays, dtype="float64", grad=True, rtol=0.0, atol=0.0, grad_rtol=1e-10,
          second_order=True, seed=0):
    """``fn(lib, *tensors)`` gives torch's values, result types, grad_fn names and errors; with
    ``grad``, its first and second-order gradients for a random upstream gradient too."""
    arrays = [np.asarray(a, dtype=float) if isinstance(a, list) else a for a in arrays]
    ours_in, ours = _run(leafgrad, fn, arrays, dtype, grad)
    theirs_in, theirs = _run(torch, fn, arrays, dtype, grad)
    if _is_error(theirs):
        assert ours == theirs
        return
    assert not _is_error(ours), ours
    assert type(ours).__name__ == type(theirs).__name__
    if type(theirs).__module__ == "torch.return_types":
        assert repr(ours).split("(")[0] == repr(theirs).split("(")[0].replace("torch.",
                                                                              "leafgrad.")
    ours_flat, theirs_flat = _flat(ours), _flat(theirs)
    assert len(ours_flat) == len(theirs_flat)
    for o, t in zip(ours_flat, theirs_flat):
        _same_tensor(o, t, rtol, atol)
    if not grad:
        return
    _grads_match(ours_in, theirs_in, ours_flat, theirs_flat, grad_rtol, second_order, seed)


def _real(tensor):
    return tensor.real if tensor.is_complex() else tensor


def _grads_match(ours_in, theirs_in, ours_out, theirs_out, rtol, second_order, seed):
    rng = np.random.default_rng(seed)
    pairs = [(o, t) for o, t in zip(ours_out, theirs_out)
             if isinstance(t, torch.Tensor) and t.requires_grad]
    wrt = [(o, t) for o, t in zip(ours_in, theirs_in)
           if isinstance(t, torch.Tensor) and t.requires_grad]
    if not pairs or not wrt:
        return
    ups = [rng.normal(size=tuple(t.shape)) for _, t in pairs]
    ours_total = sum((o * leafgrad.tensor(u, dtype=o.dtype)).sum() for (o, _), u in zip(pairs, ups))
    theirs_total = sum((t * torch.tensor(u, dtype=t.dtype)).sum() for (_, t), u in zip(pairs, ups))
    ours_g = leafgrad.autograd.grad(ours_total, [o for o, _ in wrt], create_graph=True,
                                    allow_unused=True)
    theirs_g = torch.autograd.grad(theirs_total, [t for _, t in wrt], create_graph=True,
                                   allow_unused=True)
    for o, t in zip(ours_g, theirs_g):
        if t is None:
            assert o is None or not np.any(_np(o))
            continue
        np.testing.assert_allclose(_np(o), _np(t), rtol=rtol, atol=rtol)
    if not second_order:
        return
    weights = [rng.normal(size=tuple(t.shape)) if t is not None else None for t in theirs_g]
    ours_second = [_real((o * leafgrad.tensor(w, dtype=o.dtype)).sum())
                   for o, w in zip(ours_g, weights) if o is not None and o.requires_grad]
    theirs_second = [_real((t * torch.tensor(w, dtype=t.dtype)).sum())
                     for t, w in zip(theirs_g, weights) if t is not None and t.requires_grad]
    assert len(ours_second) == len(theirs_second)
    if not theirs_second:
        return
    ours_gg = leafgrad.autograd.grad(sum(ours_second), [o for o, _ in wrt], allow_unused=True)
    theirs_gg = torch.autograd.grad(sum(theirs_second), [t for _, t in wrt], allow_unused=True)
    for o, t in zip(ours_gg, theirs_gg):
        if t is None:
            assert o is None or not np.any(_np(o))
            continue
        np.testing.assert_allclose(_np(o), _np(t), rtol=rtol, atol=rtol)
