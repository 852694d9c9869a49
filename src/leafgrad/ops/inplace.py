"""In-place ops: the same op classes, applied so that the result replaces ``self``'s values.

Note: in-place rules (torch's)
- Everything is checked before anything is written: a failing call leaves the tensor, its
  version and its history as they were.
- A leaf that requires grad cannot be modified while grad mode is on (``no_grad`` and ``.data``
  are the sanctioned ways to update parameters).
- The result must have ``self``'s shape (no growing by broadcasting) and a dtype that can be
  cast to ``self``'s (no float into an int tensor).
- The version counter is bumped; saved tensors that see a bumped version refuse to unpack.
- When recording, the op's node takes ``self``'s old history as its first input and becomes
  ``self``'s ``grad_fn``. If the op saves ``self``, the old values are copied first.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from ..autograd.grad_mode import state as _grad_state
from ..autograd.graph import SavedTensor
from ..tensor import LEAF_INPLACE, VIEW_OF_LEAF_INPLACE, Tensor, _wrap
from . import _promote

_BY_NP = {d.np: d for d in _dtype.ALL}


def _check_result(target: Tensor, out: np.ndarray) -> None:
    if out.shape != target._data.shape:
        raise RuntimeError(
            f"output with shape {list(target._data.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)}"
        )
    if out.dtype != target._data.dtype:
        have, want = _BY_NP[out.dtype], _BY_NP[target._data.dtype]
        if not _dtype.can_cast(have, want):
            raise RuntimeError(
                f"result type {have._legacy} can't be cast to the desired output type "
                f"{want._legacy}"
            )


def inplace(op, target: Tensor, *others, **params) -> Tensor:
    """Apply ``op`` to ``(target, *others)`` and write the result into ``target``."""
    recording = _grad_state.grad_enabled and op.differentiable and (
        target._requires_grad
        or any(isinstance(o, Tensor) and o._requires_grad for o in others)
    )
    if recording:
        base = target._base
        if target._grad_fn is None and target._requires_grad:
            raise RuntimeError(LEAF_INPLACE)
        if base is not None:
            if base._grad_fn is None and base._requires_grad:
                raise RuntimeError(VIEW_OF_LEAF_INPLACE)
            # Rewriting the base's history (torch's CopySlices) arrives with issue #3.
            raise NotImplementedError(
                "leafgrad does not yet record in-place ops on views of tensors that require "
                "grad; apply the op to the base tensor, or use an out-of-place op"
            )
    if not target._data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    if not recording:
        ufunc = op.inplace_ufunc
        if ufunc is not None and len(others) == 1 and params.get("alpha", 1) == 1:
            return _ufunc_inplace(ufunc, target, others[0])
        arrays = [o._data if isinstance(o, Tensor) else o for o in others]
        out = np.asarray(op.forward(None, target._data, *arrays, **params))
        _check_result(target, out)
        np.copyto(target._data, out, casting="unsafe")
        target._bump_version()
        return target

    # Recording: the node's first input is a stand-in for target's old value and history.
    saves_self = "self" in op.saves
    old = _wrap(target._data.copy() if saves_self else target._data, target._requires_grad,
                target._grad_fn)
    old._output_nr = target._output_nr
    result = op._record((old,) + others, params)
    out = result._data
    _check_result(target, out)
    node = result._grad_fn
    np.copyto(target._data, out, casting="unsafe")
    target._bump_version()
    if node is not None:
        target._grad_fn = node
        target._output_nr = 0
        target._requires_grad = True
        saved = node._saved
        if saved and "result" in saved:
            saved["result"] = SavedTensor(target, is_output=True)
    return target


def _ufunc_inplace(ufunc, target: Tensor, other) -> Tensor:
    """The unrecorded ``a += b`` family straight into ``target``'s memory: one pass, no
    temporary (measured on the SGD update in benchmarks/bench_core.py)."""
    data = target._data
    value = other._data if isinstance(other, Tensor) else other
    if isinstance(value, np.ndarray):
        if value.shape != data.shape:
            _promote.check_broadcast(data.shape, value.shape)
            shape = np.broadcast_shapes(data.shape, value.shape)
            if shape != data.shape:
                raise RuntimeError(
                    f"output with shape {list(data.shape)} doesn't match the broadcast shape "
                    f"{list(shape)}"
                )
    result = _promote.result_np_dtype(data, value)
    if ufunc is np.true_divide and result.kind != "f":
        result = _promote.float_result(np.empty(0, result)).dtype
    if result != data.dtype:
        have, want = _BY_NP[result], _BY_NP[data.dtype]
        if not _dtype.can_cast(have, want):
            raise RuntimeError(
                f"result type {have._legacy} can't be cast to the desired output type "
                f"{want._legacy}"
            )
    if isinstance(value, np.ndarray) and value.dtype != result:
        value = value.astype(result)
    with np.errstate(divide="ignore", invalid="ignore"):
        ufunc(data, value, out=data, casting="unsafe")
    target._bump_version()
    return target


def clamp_(target: Tensor, min=None, max=None) -> Tensor:  # noqa: A002 - torch's names
    from .elementwise import Clamp

    return inplace(Clamp, target, min=min, max=max)
