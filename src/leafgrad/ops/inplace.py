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

from .. import _argparse, _dtype
from ..autograd._vmap_state import state as _vmap_state
from .._compile.state import state as _capture
from ..autograd.forward_ad import state as _dual_state
from ..autograd.grad_mode import state as _grad_state
from ..autograd import graph as _graph
from ..autograd.graph import Node, SavedTensor, saved_hooks_state as _saved_hooks
from ..tensor import (LEAF_INPLACE, VIEW_OF_LEAF_INPLACE, Tensor, _wrap, check_inplace_allowed,
                      check_view_rebase)
from . import _float_kernels, _promote
from .elementwise import check_alpha_kind, check_bool_subtraction
from .._out import _check_overlap
from ._batching_rules import elementwise as _ELEMENTWISE_RULE
from .registry import _loud, _quiet
from .. import _meta
from .._meta import MetaArray as _MetaArray, SEEN as _META_SEEN
from .elementwise import Clamp, Clone
from ._layout import _dense_bytes, _strided_empty
from .shape import replay_array
from .complex import _common_dtype, complex_error
from ._uint import check_operands
from ._forward import dual_inplace
from ..autograd.graph import FREED_MESSAGE

_BY_NP = _dtype._BY_NP  # (not rebuilt from .np: see _dtype._ComplexDtype)
_C10_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double", "int8": "signed char", "int16": "short int", "int32": "int",
              "int64": "long int", "uint8": "unsigned char", "bool": "bool"}


def _check_result(target: Tensor, out: np.ndarray, op=None) -> None:
    if out.shape != target._data.shape:
        raise RuntimeError(
            f"output with shape {list(target._data.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)}"
        )
    if out.dtype != target._data.dtype and target._data.__class__ is not _MetaArray:
        # (torch's meta kernels skip the cast check: a meta int tensor takes mul_(1.5))
        have, want = _BY_NP[out.dtype], _BY_NP[target._data.dtype]
        if not _dtype.can_cast(have, want):
            # clamp_ with number bounds names the output type as C++ does ("signed char")
            wanted = (_C10_NAMES[want.name] if getattr(op, "cast_error_names_c_type", False)
                      else want._legacy)
            raise RuntimeError(
                f"result type {have._legacy} can't be cast to the desired output type {wanted}")


def _check_broadcast_shape(target: Tensor, arrays: list) -> None:
    """torch's TensorIterator fixes the shape (refusing a broadcast that would grow ``self``)
    before it dispatches on the dtype: x.lerp_(y, w) of an integer x with a y that broadcasts
    it larger is the shape error, not lerp's 'not implemented for'."""
    shapes = [a.shape for a in arrays if isinstance(a, np.ndarray)]
    try:
        shape = np.broadcast_shapes(target._data.shape, *shapes)
    except ValueError:
        return  # (the forward's own broadcast error stands)
    if shape != target._data.shape:
        raise RuntimeError(f"output with shape {list(target._data.shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")


# Set by ops/complex.py once the process makes a complex tensor: in-place ops without complex
# support then refuse complex operands, as Op.apply does (Note: complex support, registry.py)
COMPLEX_SEEN = [False]
# Set by ops/_uint.py once the process makes a uint16/32/64 tensor (Note: wide unsigned support)
UINT_SEEN = [False]


_LEAF_FIRST = frozenset(("AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0",
                         "DivBackward2", "CopyBackwards"))  # (check_inplace_allowed's leaf_first)


# Binary ops whose kernels refuse some dtypes (complex, bool, integer division by zero): torch's
# TensorIterator checks that the operands' result type can be written back into ``self``
# before the kernel runs, so x.floor_divide_(1j) of an integer x is the cast error, not the
# kernel's. (add_/sub_/mul_ are left out: their kernels refuse nothing, and the optimizers'
# updates take them on a hot path.)
_CAST_FIRST = frozenset((
    "RemainderBackward0", "RemainderBackward1", "DivBackward2", "FmodBackward0",
    "FmodBackward1", "BitwiseAndBackward0", "BitwiseOrBackward0", "BitwiseXorBackward0",
    "LshiftBackward1", "RshiftBackward1", "Atan2Backward0", "CopysignBackward0",
    "CopysignBackward1", "GcdBackward0", "LcmBackward0", "XlogyBackward0", "XlogyBackward2"))
_FLOAT_RESULT = frozenset(("Atan2Backward0", "CopysignBackward0", "CopysignBackward1",
                           "XlogyBackward0", "XlogyBackward2", "DivBackward0"))
# (add_/sub_/mul_/div_: TensorIterator checks the cast before the kernel checks alpha:
# x.add_(float_tensor, alpha=True) of an integer x is the cast error; generated-program seed
# 20000295)
_CAST_FIRST = _CAST_FIRST | {"AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0"}


def _check_complex_half(data: np.ndarray, value) -> None:
    """A complex number (or 0-d complex tensor) into a float16 tensor: torch's result type is
    ComplexHalf, which it refuses to cast back (leafgrad cannot hold it, so it checks first:
    generated-program seed 20000634)."""
    if data.dtype == np.float16 and (value.__class__ is complex or (
            value.__class__ is np.ndarray and value.ndim == 0 and value.dtype.kind == "c")):
        raise RuntimeError("result type ComplexHalf can't be cast to the desired output type "
                           "Half")


def _check_cast_first(op, target: Tensor, other) -> None:
    data = target._data
    value = other._data if isinstance(other, Tensor) else other
    if data.__class__ is _MetaArray or not (isinstance(value, np.ndarray) or value.__class__ in (
            int, float, bool, complex)):
        return
    if op.node == "SubBackward0":  # (sub's own check comes before TensorIterator's)
        check_bool_subtraction(data, value)
    _check_complex_half(data, value)
    result = _promote.result_np_dtype(data, value)
    if op.node in _FLOAT_RESULT and result.kind in "biu":  # (integers promote to float)
        result = _promote.float_result(np.empty(0, result)).dtype
    if result != data.dtype:
        have, want = _BY_NP[result], _BY_NP[data.dtype]
        if not _dtype.can_cast(have, want):
            if value.__class__ is np.ndarray and value.shape != data.shape:
                # TensorIterator checks the shapes before the types: a self the other
                # broadcasts beyond is refused for that first
                _promote.check_broadcast(data.shape, value.shape)
                shape = np.broadcast_shapes(data.shape, value.shape)
                if shape != data.shape:
                    raise RuntimeError(f"output with shape {list(data.shape)} doesn't match "
                                       f"the broadcast shape {list(shape)}")
            raise RuntimeError(f"result type {have._legacy} can't be cast to the desired "
                               f"output type {want._legacy}")


def inplace(op, target: Tensor, *others, **params) -> Tensor:
    """Apply ``op`` to ``(target, *others)`` and write the result into ``target``."""
    check_inplace_allowed(target, op.node in _LEAF_FIRST)
    if op.node in _CAST_FIRST:
        _check_cast_first(op, target, others[0] if others else params.get("other"))
    elif op.node in ("PowBackward0", "PowBackward1"):
        operand = others[0] if others else params.get("exponent", params.get("other"))
        _check_complex_half(target._data,
                            operand._data if isinstance(operand, Tensor) else operand)
    if COMPLEX_SEEN[0] and not op.complex_ok:
        operands = (target,) + others
        if any(isinstance(operand, Tensor) and operand._data.dtype.kind == "c"
               or operand.__class__ is complex for operand in operands) or any(
                value.__class__ is complex for value in params.values()):
            raise complex_error(op, _common_dtype(operands, params), params)
    if UINT_SEEN[0] and not op.uint_ok:
        check_operands(op, (target,) + others, params)
    data = target._data
    elementwise = op.inplace_ufunc is not None or getattr(op, "vmap", None) is _ELEMENTWISE_RULE
    for operand in others if op.checks_overlap and elementwise else ():
        # torch's assert_no_partial_overlap: an operand may be the target itself, not a part
        # of it (m.add_(m[0]) would read rows it already wrote). One C-level bounds test first.
        if isinstance(operand, Tensor) and operand._data is not data and \
                np.may_share_memory(operand._data, data):
            _check_overlap(operand._data, data)
    if _vmap_state.active:
        result = _vmap_state.inplace(op, target, others, params)
        if result is not NotImplemented:
            return result
    if _dual_state.active:
        return dual_inplace(op, target, others, params)
    if _capture.active:  # leafgrad.compile is recording (_compile/capture.py)
        return _capture.tracer.inplace(op, target, others, params)
    recording = _grad_state.grad_enabled and op.differentiable and (
        target._requires_grad
        # an operand that is a view requires grad when its base does, as in Op.apply (one made
        # under no_grad: the result records with no edge for it; generated-program seed 49110)
        or any(isinstance(o, Tensor) and (o._requires_grad or o._base is not None
                                          and o._base._requires_grad) for o in others)
    )
    base = target._base
    if base is not None and _grad_state.grad_enabled and op.differentiable:
        recording = recording or base._requires_grad
        if recording:
            check_view_rebase(target, indirect=False)  # before the leaf check, as torch
        if base._node is None and (base._requires_grad or recording and target._requires_grad):
            # torch's check_inplace asks whether the view requires grad and its base is a leaf:
            # a view made a leaf by requires_grad_() has one even if the base needs no grad
            # (x = a.reshape(4, 6).requires_grad_(); x[1] = 1.5 raises too)
            raise RuntimeError(VIEW_OF_LEAF_INPLACE)
    if recording:
        if target._node is None and target._requires_grad:
            # a view made a leaf by requires_grad_() (its base does not require grad) is a view
            # of a leaf for torch too
            raise RuntimeError(LEAF_INPLACE if base is None else VIEW_OF_LEAF_INPLACE)
    dest = target._data
    if _META_SEEN[0] and (dest.__class__ is _MetaArray or any(
            isinstance(o, Tensor) and o._data.__class__ is _MetaArray for o in others)):
        _check_meta_operands(op, target, others)  # Note: meta tensors (_meta.py)
    elif not dest.flags.writeable:
        try:
            dest = overlapping_destination(op, target, others, params)
        except RuntimeError as error:
            dest = error  # raised before writing, after the op's own checks, as torch's order
    alpha = params.get("alpha", 1)
    if alpha.__class__ is not int and elementwise and others and isinstance(others[0], Tensor) \
            and others[0]._data.shape != target._data.shape:
        # torch's add_/sub_ build their TensorIterator (the broadcast check) before checking
        # alpha's kind: a bool or float alpha that would be refused meets the shape error first
        _promote.check_broadcast(target._data.shape, others[0]._data.shape)
        shape = np.broadcast_shapes(target._data.shape, others[0]._data.shape)
        if shape != target._data.shape:
            raise RuntimeError(f"output with shape {list(target._data.shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
    if not recording:
        ufunc = op.inplace_ufunc
        if ufunc is not None and len(others) == 1 and alpha.__class__ is not bool and \
                target._data.dtype.kind != "V" and dest is target._data and \
                dest.__class__ is np.ndarray and not (
                    op.opmath_scalars and dest.dtype.char in "eFD"):  # Note: float16 by a scalar
            # (complex products: Mul.forward's torch's forms, _float_kernels.complex_multiply)
            # (a bool alpha takes the forward, which refuses it as torch does; bfloat16 takes
            # it too: Note: opmath for bfloat16, ops/_bfloat16.py)
            if alpha == 1 and alpha.__class__ is int:  # (1.0: its kind is checked)
                return _ufunc_inplace(ufunc, target, others[0])
            if scaled_operand(target, others[0]):
                return _ufunc_inplace(ufunc, target, others[0], alpha)
        arrays = [o._data if isinstance(o, Tensor) else o for o in others]
        if ufunc is not None and len(arrays) == 1 and (alpha != 1 or alpha.__class__ is not int):
            # torch's order: the bool-subtraction and write-back checks before alpha's
            if ufunc is np.subtract:
                check_bool_subtraction(target._data, arrays[0])
            _inplace_result(ufunc, target._data, arrays[0])
        token = _quiet()
        try:
            out = np.asarray(op.forward(None, target._data, *arrays, **params))
        except NotImplementedError as error:
            if elementwise and "not implemented for '" in str(error):
                _check_broadcast_shape(target, arrays)
            raise
        finally:
            _loud(token)
        _check_result(target, out, op)
        write(target._data, dest, out)
        target._bump_version()
        return target

    if base is not None:
        return _inplace_on_view(op, target, base, others, params, dest)
    # Recording: the node's first input is a stand-in for target's old value and history.
    saves_self = "self" in op.saves
    clones = saves_self and target._requires_grad
    old = _wrap(target._data.copy() if saves_self else target._data, target._requires_grad,
                target._node)
    old._output_nr = target._output_nr
    result = _record(op, old, others, params, clones)
    out = result._data
    _check_result(target, out, op)
    node = result._node
    write(target._data, dest, out)
    target._bump_version()
    if node is not None:
        target._node = node
        target._output_nr = 0
        target._requires_grad = True
        target._move_retains_grad(old._node, old._output_nr)
        saved = node._saved
        if saved and "result" in saved:
            saved["result"] = SavedTensor(target, is_output=True)
    return target


MASKED_FILL_WRITES = ("masked_fill_", "mask", "scalar")  # (its Note: writes through ...)
OVERLAP_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
EXPANDED_WARNING = (
    "Use of {name} on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[{index}] = "
    "{value}"
)


def _check_meta_operands(op, target: Tensor, others: tuple) -> None:
    """An in-place op with meta operands: a meta target takes any operand and is not written;
    a CPU target cannot read a meta operand (torch's errors)."""
    if target._data.__class__ is _MetaArray:
        return
    if op.node == "CopyBackwards":
        raise NotImplementedError(_meta.NO_DATA)
    _meta.check_devices((target,) + tuple(o for o in others if isinstance(o, Tensor)))


def overlapping_destination(op, target: Tensor, others: tuple = (), params=None) -> np.ndarray:
    """Where ``op`` may write into ``target``, whose elements share memory (an expanded view:
    leafgrad keeps those read-only so that a write cannot go through unnoticed).

    Note: writes through expanded tensors
    torch refuses an in-place op on a tensor with internal overlap (assert_no_internal_overlap)
    except in the kernels that only store values: ``zero_`` and ``fill_`` with a number write
    silently; ``masked_fill_``, ``index_fill_`` and ``index_put_`` (so ``x[mask] = v``) warn
    that it is deprecated and write; ``copy_`` of the tensor itself does nothing. An op listed
    by ``overlap_writes`` gets a writable alias of the same memory and stores only the elements
    whose bits change (``write``), in order, so a location written through several elements
    keeps the last stored value, as in torch's loop; every other op raises torch's error."""
    data = target._data
    if not has_internal_overlap(data):
        # a view of an expanded tensor that reaches each location once (x.expand(3, 4)[0]):
        # NumPy keeps it read-only, torch writes
        alias = writable_alias(data)
        if alias is None:
            raise RuntimeError(OVERLAP_ERROR)
        return alias
    rule = op.overlap_writes
    if rule is None and not (op.node == "CopyBackwards" and others and others[0] is target):
        raise RuntimeError(OVERLAP_ERROR)
    alias = writable_alias(data)
    if alias is None:
        raise RuntimeError(OVERLAP_ERROR)
    if isinstance(rule, tuple):
        import warnings

        name, index, value = rule
        warnings.warn(EXPANDED_WARNING.format(name=name, index=index, value=value),
                      UserWarning, stacklevel=4)
        indices = (params or {}).get("index")
        if name == "index_put_" and not params.get("accumulate") and len(indices) == 1 and \
                indices[0].dtype.kind == "b" and others and np.size(others[0]._data) == 1:
            # torch's index_put_ of one value at a mask is masked_fill_, which warns too
            name, index, value = MASKED_FILL_WRITES
            warnings.warn(EXPANDED_WARNING.format(name=name, index=index, value=value),
                          UserWarning, stacklevel=4)
    return alias


def has_internal_overlap(data: np.ndarray) -> bool:
    """torch's has_internal_overlap(t) == MemOverlap::Yes: a dim of size > 1 with stride 0
    (other overlapping layouts are 'too hard' to tell, and torch writes them). An empty
    tensor is contiguous, so non-overlapping and dense: MemOverlap::No whatever its strides."""
    return data.size != 0 and any(stride == 0 and size > 1
                                  for size, stride in zip(data.shape, data.strides))


class _Interface:
    """An ``__array_interface__`` holder: ``np.asarray`` of it is an array at the given address
    that keeps ``base`` (the writable array owning the memory) alive."""

    __slots__ = ("__array_interface__", "base")

    def __init__(self, interface: dict, owner: np.ndarray) -> None:
        self.__array_interface__ = interface
        self.base = owner


def writable_alias(data: np.ndarray):
    """A writable array with ``data``'s address, shape and strides, or None when no array
    below ``data`` is writable (a read-only NumPy buffer)."""
    owner = data
    while owner is not None and not (isinstance(owner, np.ndarray) and owner.flags.writeable):
        owner = getattr(owner, "base", None)  # (as_strided's views hang on a holder's base)
    if owner is None:
        return None
    interface = dict(data.__array_interface__)
    interface["data"] = (interface["data"][0], False)
    return np.asarray(_Interface(interface, owner))


def _bits(array: np.ndarray) -> tuple:
    """``array`` viewed as unsigned integers of its item size (complex: its two halves), so
    that a comparison tells apart -0.0 and 0.0 and finds NaN equal to itself."""
    if array.dtype.kind == "c":
        return _bits(array.real) + _bits(array.imag)
    return (array.view(np.dtype(f"u{array.dtype.itemsize}")),)


def write(data: np.ndarray, dest: np.ndarray, out: np.ndarray) -> None:
    """Store ``out`` into ``data``'s memory: through ``dest`` when it is an alias of an
    overlapping ``data`` (see Note: writes through expanded tensors), otherwise a copy."""
    if dest is data:
        if data.__class__ is not _MetaArray:  # a meta tensor has nothing to write
            np.copyto(data, out, casting="unsafe")
        return
    if isinstance(dest, Exception):
        raise dest
    out = np.asarray(out).astype(data.dtype, copy=False)
    changed = np.zeros(data.shape, dtype=bool)
    for old, new in zip(_bits(data), _bits(out)):
        changed |= old != new
    dest[changed] = out[changed]


def _record(op, old: Tensor, others: tuple, params: dict, clones: bool) -> Tensor:
    """Record ``op`` on ``(old, *others)``; when ``clones``, its saved ``self`` becomes a
    recorded clone of the overwritten value (see _save_original_self).

    Note: saved-tensor hooks and in-place ops
    torch packs each saved tensor of an in-place op once, in the node's order: the clone of
    the overwritten self (not the value before it is cloned), and the result, which is the
    written tensor itself, after the write (the callers save it). So under hooks the node is
    recorded with packing held back, then its entries are packed in order."""
    hooks = _saved_hooks.stack if _graph.hooks_entered else ()
    if not hooks:
        result = op._record((old,) + others, params)
        if clones:
            _save_original_self(result._node, old)
        return result
    _saved_hooks.stack = ()
    try:
        result = op._record((old,) + others, params)
    finally:
        _saved_hooks.stack = hooks
    node = result._node
    saved = node._saved if node is not None else None
    for key, entry in (saved or {}).items():
        if key == "result" or not isinstance(entry, SavedTensor):
            continue  # the result: packed once written, as the written tensor
        if key == "self" and clones:
            saved[key] = SavedTensor(Clone._record((old,), {}))
        elif entry.tensor is not None:
            saved[key] = SavedTensor(entry.tensor)
    return result


def _save_original_self(node, old: Tensor) -> None:
    """torch saves the value an in-place op overwrites as ``self.clone()``, a recorded clone:
    a backward through the saved value (create_graph) passes a CloneBackward0 node, and the
    saved tensor's own version counter is the clone's."""
    saved = node._saved if node is not None else None
    if saved and "self" in saved:
        saved["self"] = SavedTensor(Clone._record((old,), {}))


def _inplace_on_view(op, view: Tensor, base: Tensor, others: tuple, params: dict,
                     dest: np.ndarray) -> Tensor:
    """An in-place op on a view: the base's history becomes CopySlices(old history, op)."""
    view._refresh_view()
    if dest is not view._data and view._data.flags.writeable and not isinstance(dest, Exception):
        dest = view._data  # (the refresh rebuilt the view)
    clones = "self" in op.saves and view._requires_grad
    old = _wrap(view._data.copy() if "self" in op.saves else view._data, view._requires_grad,
                view._node)
    old._output_nr = view._output_nr
    result = _record(op, old, others, params, clones)
    out = result._data
    _check_result(view, out, op)
    op_node = result._node
    write(view._data, dest, out)
    view._bump_version()
    if op_node is None:
        return view
    base_edge = (None, 0)
    if base._requires_grad:
        fn = base._node
        base_edge = (fn, base._output_nr) if fn is not None else (base._accumulator(), 0)
    copy_slices = CopySlices(
        (base_edge,) + op_node.next_functions[1:], op_node, view._view_steps,
        (base._data.shape, base._data.dtype), base.stride(),
    )
    old_fn, old_nr = base._node, base._output_nr
    base._node = copy_slices
    base._output_nr = 0
    base._requires_grad = True
    base._move_retains_grad(old_fn, old_nr)
    saved = op_node._saved
    if saved and "result" in saved:
        saved["result"] = SavedTensor(view, is_output=True)
    view._refresh_view()
    return view


class CopySlices(Node):
    """The base's node after an in-place op on one of its views (torch's CopySlices).

    Its gradient for the base is the incoming gradient with the view's region replaced by what
    the in-place op's backward says about the old values there; the op's other inputs get the
    op's own gradients.
    """

    __slots__ = ("_op_node", "_steps", "_base_strides")
    qualified_name = "torch::autograd::CopySlices"

    def __init__(self, next_functions, op_node, steps, base_meta, base_strides=None):
        super().__init__(next_functions)
        self._op_node = op_node
        self._steps = steps
        self._input_meta = [base_meta]
        self._base_strides = base_strides

    def _apply(self, grads: list) -> tuple:
        from .shape import ViewScatter, replay

        if self._op_node is None:
            raise RuntimeError(FREED_MESSAGE)
        grad = grads[0]
        if _grad_state.grad_enabled and self._base_strides is not None:
            return self._apply_recorded(grad)
        grad = self._laid_out_as_base(grad)
        try:
            region = replay(grad, self._steps)
        except RuntimeError:
            # a view step (x.view(6)) the gradient's own strides refuse (a slice of cat's
            # gradient): torch's gradient is always laid out as the base first (generated-
            # program seed 44660)
            grad = self._laid_out_as_base(grad, force=True)
            region = replay(grad, self._steps)
        # torch runs the op's backward on a contiguous clone of the region (so a copied-in
        # source's gradient is contiguous, not a strided view of the base's gradient)
        op_grads = self._op_node._apply([region.clone(memory_format=_contiguous_format())])
        grad_base = None
        if self._next_nodes[0] is not None:
            region_grad = op_grads[0] if op_grads[0] is not None else region * 0
            grad_base = ViewScatter.apply(grad, region_grad, steps=self._steps)
        return (grad_base,) + tuple(op_grads[1:])

    def _laid_out_as_base(self, grad, force: bool = False):
        """as_strided counts from the first element in memory: replayed on the incoming
        gradient (often an expanded one-element tensor) it read past that gradient's memory.
        torch's CopySlices always first lays the gradient out as the base (new_empty_strided,
        copy_); done here only where a step depends on it."""
        if not force and not any(op is _as_strided() for op, _ in self._steps):
            return grad

        shape, _ = self._input_meta[0]
        strides = self._base_strides
        if strides is None:
            itemsize = grad._data.dtype.itemsize
            strides = tuple(n // itemsize for n in _dense_bytes(shape, itemsize))
        return _wrap(_strided_empty(shape, strides, grad._data.dtype)).copy_(grad)

    def _apply_recorded(self, grad) -> tuple:
        """Under create_graph, torch's own steps, so that the recorded graph is torch's: the
        base's gradient is a new tensor with the base's strides, ``copy_(grad)`` into it
        (CopyBackwards), the view's region of it taken ``as_strided``, the op's backward run
        on a contiguous clone of that region, and its result ``copy_``-ed into the region (an
        in-place op on a view: CopySlices)."""
        shape, _ = self._input_meta[0]
        result = _wrap(_strided_empty(shape, self._base_strides, grad._data.dtype))
        result.copy_(grad)
        data = result._data
        region = replay_array(data, self._steps)
        start = data.__array_interface__["data"][0]
        offset = (region.__array_interface__["data"][0] - start) // data.itemsize
        grad_slice = result.as_strided(region.shape, [s // data.itemsize for s in region.strides],
                                       offset)
        op_grads = self._op_node._apply([grad_slice.clone(memory_format=_contiguous_format())])
        grad_base = None
        if self._next_nodes[0] is not None:
            if op_grads[0] is not None:
                grad_slice.copy_(op_grads[0])
            else:
                grad_slice.zero_()
            grad_base = result
        return (grad_base,) + tuple(op_grads[1:])

    def _release(self) -> None:
        # torch's CopySlices::release_variables drops its op node, which keeps its saved
        # tensors while something else holds it: a saved output rebuilt under create_graph
        # points at it (releasing them here made a second derivative through exp_ on a view
        # raise the 'second time' error)
        self._op_node = None
        super()._release()


CopySlices.__name__ = CopySlices.__qualname__ = "CopySlices"


def _as_strided():
    from .shape_ext import AsStridedPublic

    return AsStridedPublic


def _contiguous_format():
    from .. import contiguous_format

    return contiguous_format


def scaled_operand(target: Tensor, other) -> bool:
    """Whether ``target.add_(other, alpha=a)`` (or sub_) may run as ``ufunc(target, other * a,
    out=target)``: a floating tensor operand (the forward would scale it in its own dtype, as
    this does, and add in the result dtype) on a floating target. SGD's update takes this
    path: two passes and one temporary instead of the forward's three and two."""
    if not isinstance(other, Tensor):
        return False
    return target._data.dtype.kind == "f" and other._data.dtype.kind == "f"  # (not bfloat16)


def _inplace_result(ufunc, data: np.ndarray, value) -> np.dtype:
    """The dtype ``ufunc(data, value)`` computes in, after torch's check that it can be written
    back into ``data`` (which torch makes before it looks at alpha)."""
    _check_complex_half(data, value)
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
    return result


def _wrapped_int(value: int, dtype: np.dtype):
    """A Python int as torch's kernel takes it into an integer dtype: cast as C casts, modulo
    2**bits (x.add_(300) of a uint8 tensor adds 44; NumPy refuses the out-of-range int)."""
    info = np.iinfo(dtype)
    if info.min <= value <= info.max:
        return value
    bits = 8 * dtype.itemsize
    value %= 1 << bits
    return value - (1 << bits) if info.min and value > info.max else value


def _ufunc_inplace(ufunc, target: Tensor, other, alpha=1) -> Tensor:
    """The unrecorded ``a += b`` family straight into ``target``'s memory: one pass, no
    temporary (measured on the SGD update in benchmarks/bench_core.py); with ``alpha``, the
    scaled operand is one temporary (see ``scaled_operand``)."""
    data = target._data
    value = other._data if isinstance(other, Tensor) else other
    if isinstance(value, np.generic):  # torch's Scalar, weak like a Python number
        value = _argparse.numpy_scalar(value)
    if (type(value) is np.ndarray and value.dtype is data.dtype and value.shape == data.shape
            and data.dtype.kind == "f"):
        # same shape, same float dtype (an optimizer's update): nothing to promote or check
        # but a complex alpha, which torch refuses for a real result
        if alpha != 1 or alpha.__class__ is not int:
            check_alpha_kind("f", alpha)
        token = _quiet()
        try:
            if alpha != 1:  # one fused multiply-add, as torch's kernel
                _float_kernels.scaled_update(ufunc, data, value, alpha, out=data)
            else:
                ufunc(data, value, out=data)
        finally:
            _loud(token)
        target._bump_version()
        return target
    if ufunc is np.subtract:
        check_bool_subtraction(data, value)
    if isinstance(value, np.ndarray):
        if value.shape != data.shape:
            _promote.check_broadcast(data.shape, value.shape)
            shape = np.broadcast_shapes(data.shape, value.shape)
            if shape != data.shape:
                raise RuntimeError(
                    f"output with shape {list(data.shape)} doesn't match the broadcast shape "
                    f"{list(shape)}"
                )
    result = _inplace_result(ufunc, data, value)
    if alpha != 1 or alpha.__class__ is not int:
        check_alpha_kind(result.kind, alpha)
    if value.__class__ is int and result.kind in "iu":
        value = _wrapped_int(value, result)
    if isinstance(value, np.ndarray) and value.dtype != result:
        value = value.astype(result)
    token = _quiet()
    try:
        if alpha != 1 and result.kind == "f" and isinstance(value, np.ndarray):
            # one fused multiply-add, as torch's kernel
            _float_kernels.scaled_update(ufunc, data.astype(result, copy=False), value, alpha,
                                         out=data)
        else:
            if alpha != 1:
                value = value * alpha
            if ufunc is np.true_divide and result.kind == "c":  # (as Div: torch's formula)
                data[...] = _float_kernels.complex_true_divide(
                    data.astype(result, copy=False), np.asarray(value, dtype=result))
            else:
                ufunc(data, value, out=data, casting="unsafe")
    finally:
        _loud(token)
    target._bump_version()
    return target


def clamp_(target: Tensor, min=None, max=None) -> Tensor:  # noqa: A002 - torch's names

    return inplace(Clamp, target, min=min, max=max)
