"""The op table and the machinery every op shares.

An op is one class: ``forward`` on NumPy arrays, ``backward`` on Tensors (so that the backward
is itself recorded under ``create_graph=True``), what it saves, whether it broadcasts, and the
torch node name. The class *is* the node type: calling ``Op.apply`` while recording creates an
instance of it as the result's ``grad_fn``.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from .._alloc import alloc_error as _alloc_error
from .._dtype import is_bfloat16_array as _is_bfloat16
from ..autograd.anomaly_mode import record_node as _anomaly_record, state as _anomaly_state
from ..amp._state import state as _autocast_state
from ..autograd._vmap_state import state as _vmap_state
from ..autograd._fp_errors import loud as _loud, quiet as _quiet  # Note: floating-point warnings
from .._compile.state import state as _capture
from ..autograd.forward_ad import state as _dual_state
from ..autograd.grad_mode import inference_seen as _INFERENCE_SEEN, state as _grad_state
from ..autograd import graph as _graph, graph_hooks as _graph_hooks
from ..autograd.graph import DETACHED_SEEN, Node, SavedTensor, _ZEROS, _sequence, next_sequence_nr
from ..tensor import Tensor, _wrap, _wrap_view
from .. import _meta
from ._layout import iterated as _layout_iterated
from ._layout import decided_by_others as _decided_by_others
from ._layout import size_one_strides as _size_one_strides
from .._dtype import from_numpy_dtype
from ..autograd.graph import FREED_MESSAGE

_META_SEEN = _meta.SEEN
_META_ARRAY = _meta.MetaArray
_META_RUNNING = [False]  # an op's meta run is in progress (see _apply_meta)

_ndarray = np.ndarray

__all__ = ["Op", "register", "OPS", "plain_backward", "on_arrays", "array_kernel", "keep_index"]

_NO_EDGE = (None, 0)

# Note: interned meta
# Every recorded node keeps its inputs' ``(shape, dtype)`` pairs for backward. Built fresh they
# are three tuples per tensor input (the shape, the pair, and the tuple of pairs), and a pair
# stays tracked by the cyclic garbage collector for the node's whole life (a dtype is a
# collected object, so the collector cannot untrack a tuple holding one). A long graph made
# each full collection walk them all. Equal pairs and tuples of pairs are shared instead: the
# tuple built for the lookup dies at once, the node keeps the one already known. The table
# stops growing at _META_LIMIT entries (a program making endless new shapes keeps its own).
_META_PAIRS: dict = {}
_META_LIMIT = 4096


def _intern_meta(key: tuple) -> tuple:
    if len(_META_PAIRS) < _META_LIMIT:
        _META_PAIRS[key] = key
    return key

_new = object.__new__
_ops: dict[str, type] = {}
OPS = types.MappingProxyType(_ops)  # read-only view; only ``register`` writes



class NoDerivative:
    """Mixin (before the Op class in the bases) for the ops torch records under a node named
    ``NotImplemented`` (torch::autograd::NotImplemented): no derivative formula, so backward
    and forward AD raise naming the aten op, ``aten`` (its in-place form with an
    ``inplace_form`` param; a ``name`` param overrides it)."""

    node = "NotImplemented"
    qualified_name = "torch::autograd::NotImplemented"
    _save_plan = ()
    aten = ""

    def _aten_name(self) -> str:
        name = self._params.get("name") or self.aten
        return name + "_" if self._params.get("inplace_form") else name

    def backward(self, grad):
        raise RuntimeError(f"derivative for aten::{self._aten_name()} is not implemented")

    def jvp(self, tangents, primals, result):
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{self._aten_name()} that does not support it.")

def register(cls: type) -> type:
    """Add an op to ``OPS`` and name its class after the torch node (``MulBackward0``)."""
    key = cls.__name__
    if key in _ops:
        raise ValueError(f"op {key} registered twice")
    cls.op_name = key
    cls.__name__ = cls.__qualname__ = cls.node
    cls._save_plan = _save_plan(cls)
    # Note: output layout (ops/_layout.py): elementwise results of several operands
    vmap = getattr(cls, "vmap", None)
    cls._iterated = (cls._plain_result and len(cls.inputs) > 1
                     and not getattr(cls, "iterated_in_forward", False)
                     and getattr(vmap, "__qualname__", None) == "elementwise"
                     and getattr(vmap, "__module__", "").endswith("_batching_rules"))
    if cls._plain_result and cls.edges is None and "_record" not in cls.__dict__:
        # Note: recording one or two operands
        cls._save_actions = (None, _save_actions(cls, 1), _save_actions(cls, 2))
        cls._record = _record_fast
    _ops[key] = cls
    return cls


def _save_actions(cls, count: int) -> tuple:
    """``_save_plan`` resolved for ``count`` operands, by which of them have an edge (bit i:
    operand i has one): ``(names to drop, (name, operand index or -1) to save)``, the plan's
    order kept."""
    actions = []
    for mask in range(1 << count):
        drops, saves = [], []
        for name, index, needing in cls._save_plan:
            if not any(i < count and mask >> i & 1 for i in needing):
                drops.append(name)
            elif index is not None:
                if index >= count:
                    return None  # (the general path raises IndexError, as before)
                saves.append((name, index))
        actions.append((tuple(drops), tuple(saves)))
    return tuple(actions)


def _save_plan(cls) -> tuple:
    """``saves`` compiled to ``(name, input index or -1 for the result, needing indices)``."""
    plan = []
    for name, needed_by in cls.saves.items():
        needing = tuple(cls.inputs.index(n) for n in needed_by)
        if name == "result":
            # torch's generated code saves an output whenever it records the node, whichever
            # input's gradient needs it ((a ** b).grad_fn._saved_result with only a requiring
            # grad): needed by every input here
            plan.append((name, -1, tuple(range(len(cls.inputs)))))
        elif name in cls.inputs:
            plan.append((name, cls.inputs.index(name), needing))
        else:
            plan.append((name, None, needing))  # kept by forward via ctx.keep
    # torch's generated code saves an op's inputs in the order of their names and its outputs
    # after them (saved_tensors_hooks see ``a * b`` pack ``b`` (other) before ``a`` (self))
    plan.sort(key=lambda entry: (entry[1] is not None and entry[1] < 0, entry[0]))
    return tuple(plan)


def plain_backward() -> bool:
    """Whether a backward formula may use array-level shortcuts instead of its Tensor ops:
    nothing records it (grad mode off, no create_graph), no forward-AD level would give
    its result a tangent (forward-over-reverse) and no vmap is running (a batched gradient's
    array holds every example: shortcuts reading it would mix them, as conv's weight
    gradient did in ``jacrev``)."""
    return not (_grad_state.grad_enabled or _dual_state.active or _vmap_state.active)


def on_arrays() -> bool:
    """Whether a backward formula may make its NumPy calls itself instead of Tensor ops (see
    Note: array-level backwards in activation.py): ``plain_backward()``, and neither vmap nor
    leafgrad.compile is running (both see a backward only through its Tensor ops)."""
    return not (_grad_state.grad_enabled or _dual_state.active or _vmap_state.active
                or _capture.active)


def zeros_of(like: np.ndarray, shape: tuple) -> np.ndarray:
    """Zeros of ``shape`` in ``like``'s dtype, for ``array_kernel`` (a formula's fresh zeros
    stay in a captured graph)."""
    return np.zeros(shape, dtype=like.dtype)


def array_kernel(fn, *arrays, **params):
    """Run an op's array-level backward helper ``fn(*arrays, **params)`` (see Note: array-level
    backwards in activation.py). Under leafgrad.compile the call is recorded as one node of the
    captured graph, replayed as the same call; otherwise it is just the call.

    ``fn`` returns an array or a tuple of arrays computed from its arguments (which it does not
    modify). ``fn.draws_random = True``: it draws from a generator (replayed in order, never
    dropped); ``fn.always_runs = True``: a check that may raise, never dropped as dead code."""
    if _capture.active:
        return _capture.tracer.kernel(fn, arrays, params)
    return fn(*arrays, **params)


def plain_apply(op, *args, **params):
    """``op.apply(*args, **params)`` in a backward formula (Tensors or arrays as arguments).
    When nothing records (``on_arrays()``) that call would take apply's unrecorded path: this
    is that path (the op's forward on the arrays, wrapped) without the dispatch to reach it, so
    the result is the same bits. Only for ops with a plain result (not views, one output)."""
    if _grad_state.grad_enabled or _dual_state.active or _vmap_state.active or _capture.active:
        return op.apply(*args, **params)  # (not on_arrays(), inline)
    count = len(args)
    if count == 2:  # (unrolled as in apply: no comprehension's frame for one or two)
        a, b = args
        arrays = (a._data if isinstance(a, Tensor) else a, b._data if isinstance(b, Tensor) else b)
    elif count == 1:
        a = args[0]
        arrays = (a._data if isinstance(a, Tensor) else a,)
    else:
        arrays = [arg._data if isinstance(arg, Tensor) else arg for arg in args]
    token = _quiet()
    try:
        out = op.forward(None, *arrays, **params)
    except MemoryError as error:
        raise _alloc_error(error) from None
    finally:
        _loud(token)
    if op._iterated:  # as apply orders it (Note: output layout, _layout.py)
        first = arrays[0]
        if first.__class__ is _ndarray and (first.ndim > 1 and (
                not first.flags.c_contiguous or 1 in first.shape and _size_one_strides(first)
                or not first.size)
                and (any(first.strides) or len(arrays) > 2)
                or out.__class__ is _ndarray and first.shape != out.shape
                and _decided_by_others(first, out, arrays)):
            out = _layout_iterated(out, arrays)
    return _wrap(out)


class Op(Node):
    """Base of every differentiable op.

    Class attributes a subclass sets:

    - ``node``: torch's name for the grad_fn (``"MulBackward0"``).
    - ``inputs``: torch's names for the tensor arguments, in order (``("self", "other")``).
      Python scalars in those positions become ``(None, 0)`` edges, as torch's wrapped numbers.
    - ``saves``: ``{name: (inputs whose grad needs it, ...)}``; a name is an input name,
      ``"result"`` or a key the forward stores with ``ctx.keep``. Only what a needed gradient
      uses is saved, so only that is checked for in-place modification, as in torch.
    - ``broadcasts``: gradients are summed back to each input's shape (see ``_apply``).
    - ``is_view``: the output shares memory and version counter with ``inputs[0]``.
    - ``differentiable``: False for ops whose outputs never require grad (comparisons).
    - ``edges``: where torch's node has edges for the first ``edges`` inputs only (the others
      are never differentiated: a loss's ``weight``); the node's ``next_functions``, hooks'
      ``grad_inputs`` and ``backward`` results are that long.
    """

    __slots__ = ()

    node = "Op"
    op_name = "Op"
    inputs: tuple = ("self",)
    saves: dict = {}
    broadcasts = False
    is_view = False
    multi_output = False  # forward returns a tuple; backward gets the list of output grads
    inplace_ufunc = None  # the NumPy ufunc an unrecorded ``self.op_(other)`` may call with out=
    # elementwise in-place forms refuse an operand that partly overlaps the target (torch's
    # TensorIterator: assert_no_partial_overlap); False where torch computes the operand
    # first (ldexp_) or reads it as a value (masked_fill_). Index and scatter ops check
    # overlap after their own checks, in their own order: not here.
    checks_overlap = True
    # Note: writes through expanded tensors (ops/inplace.py): "silent" where torch's in-place
    # form writes into a tensor whose elements share memory, (name, index, value) of its
    # deprecation warning where it warns and writes; None: it refuses
    overlap_writes = None
    differentiable = True
    # Note: unneeded input gradients. torch's generated backward computes an input's gradient
    # only where the backward needs it (task_should_compute_output): under inputs= or
    # autograd.grad a node's post-hooks see None for an input that leads to none of them. An
    # op taking a tensor list (cat, stack) computes the whole list when any of it is needed.
    masks_unneeded_grads = True
    # Python numbers in tensor positions become plain 0-d tensors in torch.func.jvp's tangent
    # formula (Note: numbers under torch.func.jvp, ops/_forward.py)
    lifts_numbers = False
    # vmap's elementwise rule promotes by the examples' ranks (Note: type promotion under vmap,
    # ops/_batching_rules.py); False: by the physical tensors'
    vmap_promotes_logically = True
    edges = None
    # Note: complex support. Whether the op computes complex tensors with torch's values and
    # gradients; the others raise torch's "not implemented for 'ComplexFloat'" (see
    # ops/complex.py, which installs that check once the process makes a complex tensor).
    complex_ok = False
    complex_message = None  # torch's message where it is not '"<name>_cpu" not implemented...'
    complex_error_type = "NotImplementedError"
    # False where torch computes complex values but has no derivative for them: recording the
    # op on a complex input that requires grad raises torch's "does not support automatic
    # differentiation for outputs with complex dtype" (silu, nan_to_num)
    complex_autograd = True
    # Note: wide unsigned support (ops/_uint.py): whether the forward runs on uint16/32/64
    # tensors, and torch's kernel name in its "not implemented for 'UInt16'" otherwise.
    uint_ok = False
    uint_kernel = None
    uint_params: tuple = ()
    uint_same_dtype = False
    # Note: opmath for bfloat16 (ops/_bfloat16.py): True where torch's kernel reads a Python
    # number operand in float32 (mul, div, lerp); otherwise it is rounded to bfloat16 first.
    opmath_scalars = False
    bfloat16_finish = None  # adjusts the rounded result where torch's kernel has a scalar path
    # the result has self's dtype whatever the other operands' (torch writes into an output of
    # the input's dtype: soft_margin_loss(bf16, float32 target) is bfloat16); an int: the
    # operand at that position decides (a loss's backward node writes into zeros_like(self))
    bfloat16_follows_self = False
    # torch's kernel name where it has no bfloat16 kernel (its '"<kernel>" not implemented for
    # 'BFloat16'' error), or a function of the operand arrays and params giving the error
    bfloat16_kernel = None
    # the forward computes bfloat16 itself when every array operand is bfloat16 (the
    # half-precision gemm, linalg.py), instead of on widened float32 copies; "always": it
    # also sees mixed operands as they are (its own dtype checks name bfloat16 as torch's)
    bfloat16_native = False
    _plain_result = True  # neither a view nor multi-output (see __init_subclass__)
    _iterated = False  # an elementwise op of several operands (see register)
    # The backward formula chooses its branch from the values (zeros in prod, a singular
    # matrix in det): leafgrad.compile cannot capture it, the call runs eagerly.
    backward_reads_values = False
    # Parameters that may hold a boolean mask, which makes the result's shape depend on the
    # values (x[mask], masked_select): leafgrad.compile cannot capture those either.
    mask_params: tuple = ()
    # Note: capture kernels. A NumPy ufunc that computes this op when its operands already
    # have the result's dtype; leafgrad.compile's replay then calls it directly (with out=
    # into a reused buffer) instead of ``forward``. ``capture_params`` lists parameters that
    # are operands after the tensor arguments (``other`` of ``x * 2.0``). ``capture_kernel``,
    # a staticmethod ``(*operands, out)`` making the same NumPy calls as ``forward`` (out None:
    # fresh arrays), serves ops that are a few ufunc calls (tanh's backward); its ``out`` is
    # never one of its operands. Where the replay fuses small elementwise kernels into one
    # compiled loop (_compile/fuse.py), ``capture_vml`` names the MKL function a
    # ``capture_kernel`` calls (``_mkl.kernel``'s name) and ``capture_tape`` the loop's form
    # of its steps (ops/_numba_tape.py).
    capture_ufunc = None
    capture_kernel = None
    capture_params: tuple = ()
    capture_vml = None
    capture_tape = None
    # Note: saved index tensors. ``{param: (inputs whose grad needs it, ...)}`` for params that
    # hold an index or mask tensor's data, which torch saves for backward (see ``keep_index``).
    index_saves: dict = {}
    # Only for the docs and tests: which torch callables this op implements.
    torch_names: tuple = ()
    # torch's CPU autocast list this op is on: "lower_precision_fp" (runs in the autocast
    # dtype) or "fp32" (runs in float32); None: it runs in its inputs' dtype (amp/_state.py)
    autocast = None
    # Note: kernels' writes on inference operands. With every tensor operand an inference
    # tensor, outside inference_mode, torch's call skips the autograd and ADInplaceOrView
    # layers, so the in-place and out= ops its kernel runs on the new result through the
    # dispatcher (copy_, fill_, sum_out then div_, a squeeze_ of keepdim=False values) each
    # bump the result's version counter, which the autograd layer otherwise hides. The count
    # (measured against torch 2.13): an int, a tuple (one per output), or a staticmethod of
    # ``(arrays, params)`` giving either. 0: none (structured kernels write the result
    # directly).
    inference_writes = 0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._plain_result = not cls.is_view and not cls.multi_output
        if "_record" not in cls.__dict__ and (not cls._plain_result or cls.edges is not None):
            cls._record = Op.__dict__["_record"]  # a view or loss under a plain op's recorder

    @staticmethod
    def forward(ctx, *args, **params):  # pragma: no cover - every op overrides
        raise NotImplementedError

    def backward(self, grad: Tensor):  # pragma: no cover - every op overrides
        raise NotImplementedError

    # -- used by backward formulas ---------------------------------------------------------------
    def saved(self, name: str) -> Any:
        """The saved value ``name`` (a Tensor for tensors), version-checked."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        value = saved[name]
        if type(value) is not SavedTensor:
            return value
        # SavedTensor.unpack's usual case inlined (one frame less per saved value): a kept
        # input never modified in place since (no counter, or its count unchanged) while no
        # tensor was ever detached in place (Note: saved tensors detached in place).
        tensor = value.tensor
        if tensor is not None and value._counter is None and not DETACHED_SEEN[0]:
            counter = tensor._vc
            if (0 if counter is None else counter[0]) == value.version:
                return tensor
        if tensor is None and value.data is None:  # packed by saved-tensor hooks
            return _graph_hooks.unpack_once(value, self)
        return value.unpack(self)

    def needs_grad(self, index: int) -> bool:
        return self._next_nodes[index] is not None

    def input_shape(self, index: int = 0) -> tuple:
        return self._input_meta[index][0]

    def keep(self, name: str, value: Any) -> None:
        """Called by ``forward`` (when recording) to keep a non-tensor value for backward."""
        self._saved[name] = value

    # -- running forward ---------------------------------------------------------------------
    @classmethod
    def apply(cls, *args, **params) -> Tensor:
        if _META_SEEN[0] and not _META_RUNNING[0]:  # Note: meta tensors (_meta.py)
            for arg in args:
                if isinstance(arg, Tensor) and arg._data.__class__ is _META_ARRAY:
                    return _apply_meta(cls, args, params)
        if _autocast_state.active and cls.autocast is not None:  # inside leafgrad.autocast
            args = _autocast_state.cast_args(cls.autocast, args)
        if _vmap_state.active:  # inside vmap: batched arguments go to the op's batching rule
            result = _vmap_state.apply(cls, args, params)
            if result is not NotImplemented:
                return result
        if _dual_state.active:  # inside a forward-AD level (the only cost when outside one)
            from ._forward import dual_apply

            return dual_apply(cls, args, params)
        if _capture.active:  # leafgrad.compile is recording (_compile/capture.py)
            return _capture.tracer.op(cls, args, params)
        if _grad_state.grad_enabled and cls.differentiable:
            for arg in args:
                # a view requires grad when its base does (torch's DifferentiableViewMeta): one
                # made under no_grad gives a recorded result with no edge for it, a stale one is
                # regenerated by _record
                if isinstance(arg, Tensor) and (
                        arg._requires_grad or arg._base is not None and arg._base._requires_grad):
                    return cls._record(args, params)
        # Unrecorded (every op of a plain backward pass too): unwrap the arguments without a
        # comprehension's frame for the usual one or two.
        count = len(args)
        if count == 2:
            a, b = args
            arrays = (a._data if isinstance(a, Tensor) else a,
                      b._data if isinstance(b, Tensor) else b)
        elif count == 1:
            a = args[0]
            arrays = (a._data if isinstance(a, Tensor) else a,)
        else:
            arrays = [arg._data if isinstance(arg, Tensor) else arg for arg in args]
        token = _quiet()
        try:
            out = cls.forward(None, *arrays, **params)
        except MemoryError as error:
            raise _alloc_error(error) from None
        finally:
            _loud(token)
        if cls._plain_result:
            if cls._iterated:  # Note: output layout (ops/_layout.py): inline, a hot path
                first = arrays[0]
                if first.__class__ is _ndarray and (first.ndim > 1 and (
                        not first.flags.c_contiguous
                        or 1 in first.shape and _size_one_strides(first) or not first.size)
                        and (any(first.strides) or count > 2)  # (0 strides only: no say)
                        or out.__class__ is _ndarray and first.shape != out.shape
                        and _decided_by_others(first, out, arrays)):
                    out = _layout_iterated(out, arrays)
            if _INFERENCE_SEEN[0] and cls.inference_writes:
                return _inference_written(cls, args, arrays, params, _wrap(out))
            return _wrap(out)
        if cls.is_view:
            if cls.multi_output:
                return tuple(
                    _wrap_view(o, args[0], False, None, cls.view_step(params, i), True)
                    for i, o in enumerate(out)
                )
            return _wrap_view(out, args[0], False, None, (cls, params))
        if _INFERENCE_SEEN[0] and cls.inference_writes:
            return _inference_written(cls, args, arrays, params, tuple(_wrap(o) for o in out))
        return tuple(_wrap(o) for o in out)

    @classmethod
    def _record(cls, args: tuple, params: dict) -> Tensor:
        # The hot path of every recorded op: plain loops, no helper calls where a line does.
        node = _new(cls)
        node._seq = next(_sequence)
        node._saved = {}
        node._params = params
        node._hookset = None
        if _anomaly_state.enabled:
            _anomaly_record(node)
        children = []  # see Note: edges kept flat (autograd/graph.py)
        numbers = []
        meta = []
        arrays = []
        numbered = False  # some edge leads to an output other than 0
        for arg in args:
            if isinstance(arg, Tensor):
                if arg._base is not None and arg._view_version != arg._vc[0]:
                    arg._refresh_view()
                data = arg._data
                arrays.append(data)
                pair = (data.shape, data.dtype)
                meta.append(_META_PAIRS.get(pair) or _intern_meta(pair))  # Note: interned meta
                if arg._requires_grad:
                    fn = arg._node
                    if fn is not None:
                        children.append(fn)
                        output_nr = arg._output_nr
                        numbers.append(output_nr)
                        if output_nr:
                            numbered = True
                        continue
                    acc = arg._acc  # the leaf's accumulator, if a live graph holds it
                    fn = acc() if acc is not None else None
                    children.append(fn if fn is not None else arg._accumulator())
                    numbers.append(0)
                    continue
            else:
                arrays.append(arg)
                meta.append(None)
            children.append(None)
            numbers.append(0)
        node._next_nodes = children = tuple(children)
        count = len(numbers)
        node._next_nrs = _ZEROS[count] if count < len(_ZEROS) and not numbered else tuple(numbers)
        if cls.edges is not None:  # the save plan below still reads every input's child
            node._next_nodes, node._next_nrs = children[:cls.edges], node._next_nrs[:cls.edges]
        meta = tuple(meta)
        node._input_meta = _META_PAIRS.get(meta) or _intern_meta(meta)
        token = _quiet()
        try:
            out = cls.forward(node, *arrays, **params)
        except MemoryError as error:
            raise _alloc_error(error) from None
        finally:
            _loud(token)
        if cls._iterated:  # Note: output layout (ops/_layout.py)
            first = arrays[0]
            if first.__class__ is _ndarray and (first.ndim > 1 and (
                    not first.flags.c_contiguous or 1 in first.shape and _size_one_strides(first)
                or not first.size)
                    and (any(first.strides) or count > 2)  # (0 strides only: no say)
                    or out.__class__ is _ndarray and first.shape != out.shape
                    and _decided_by_others(first, out, arrays)):
                out = _layout_iterated(out, arrays)
        if cls.multi_output:
            results = cls._wrap_outputs(out, args, node)
            cls._save_inputs(node, args)
            if node._saved:
                _keep_index_outputs(node, results)
            return results
        if out.dtype.kind not in "fc" and not _is_bfloat16(out):  # Note: integer tensors
            return _wrap(out)  # never require grad
        if cls.is_view:
            result = _wrap_view(out, args[0], True, node, (cls, params))
        else:
            result = _wrap(out, True, node)
        saved = node._saved
        for name, index, needing in cls._save_plan:
            for i in needing:
                if i < count and children[i] is not None:
                    break
            else:
                saved.pop(name, None)  # no gradient that needs it is computed
                continue
            if index is None:
                continue
            value = result if index < 0 else args[index]
            if isinstance(value, Tensor):
                saved[name] = SavedTensor(value, index < 0)
            else:
                saved[name] = value
        return result

    @classmethod
    def _save_inputs(cls, node: "Op", args: tuple) -> None:
        """``saves`` for multi-output ops (inputs only; outputs are kept by the op itself)."""
        saved = node._saved
        children = node._next_nodes
        for name, index, needing in cls._save_plan:
            if index is None or index < 0:
                continue
            if any(i < len(children) and children[i] is not None for i in needing):
                value = args[index]
                saved[name] = SavedTensor(value) if isinstance(value, Tensor) else value

    @classmethod
    def view_step(cls, params: dict, output_nr: int) -> tuple:
        """How output ``output_nr`` of a multi-output view op is made from its input."""
        raise NotImplementedError

    @classmethod
    def _wrap_outputs(cls, arrays, args: tuple, node: "Op") -> tuple:
        outputs = []
        count = 0
        for output_nr, out in enumerate(arrays):
            differentiable = out.dtype.kind in "fc" or _is_bfloat16(out)
            grad_fn = node if differentiable else None
            if cls.is_view:
                step = cls.view_step(node._params, output_nr)
                tensor = _wrap_view(out, args[0], differentiable, grad_fn, step, True)
            else:
                tensor = _wrap(out, differentiable, grad_fn)
            tensor._output_nr = output_nr
            outputs.append(tensor)
            count += differentiable
        # the node's outputs in torch's sense, its differentiable ones: hooks see one grad
        # (or None) for each (Note: multi-output hooks, autograd/engine.py)
        node._num_outputs = count
        return tuple(outputs)

    # -- running backward ------------------------------------------------------------------------
    def _unpack_index(self) -> None:
        """Check the index tensors ``keep_index`` saved on this node (Note: saved index tensors)."""
        saved = self._saved
        if saved is None:
            if not self.index_saves:
                return  # a multi-output op: its backward reports a freed graph if it reads one

            raise RuntimeError(FREED_MESSAGE)
        for name, value in saved.items():
            if name.__class__ is tuple:  # an integer output (see _keep_index_outputs)
                value.unpack(self)
            elif name in self.index_saves:
                if isinstance(value, SavedTensor):
                    value.unpack(self)
                elif isinstance(value, tuple):
                    for item in value:
                        if isinstance(item, SavedTensor):
                            item.unpack(self)

    def index_tensor(self, name: str):
        """The index tensor ``keep_index`` saved as ``name`` (checked when the node started),
        or None (Note: saved index tensors)."""
        value = self._saved.get(name) if self._saved else None
        return value.tensor if isinstance(value, SavedTensor) else None

    def pass_index(self, result, name: str, to: str):
        """Under create_graph, save this node's index ``name`` on the node that made ``result``
        as ``to``, where the formula gave that op a transformed index array (Note: saved index
        tensors); returns ``result``."""
        value = self._saved.get(name) if self._saved else None
        node = _index_node(result) if value is not None and _grad_state.grad_enabled else None
        if node is not None and to in type(node).index_saves and node._saved is not None:
            node._saved.setdefault(to, value)
        return result

    def _apply(self, grads: list) -> tuple:
        edges = self._next_nodes
        if edges.count(None) == len(edges):
            # no input needs a gradient (an op on a view made under no_grad/inference_mode of a
            # tensor requiring grad records with no edge, and saves nothing): torch's node
            # computes nothing (the backward read a saved input: KeyError, seed 31118)
            return (None,) * len(edges)
        if _grad_state.grad_enabled and not _grad_state.cpp_formula and not (
                _dual_state.active or _vmap_state.active or _capture.active):
            # create_graph records the formula: Note: C++ operators in backward formulas
            _grad_state.cpp_formula = True
            try:
                return self._apply(grads)
            finally:
                _grad_state.cpp_formula = False
        if self.index_saves or self.multi_output:  # Note: saved index tensors
            self._unpack_index()
            if self.index_saves and _grad_state.grad_enabled and self._saved:
                start = next_sequence_nr()  # create_graph: the nodes this backward records
                results = self.backward(grads if self.multi_output else grads[0])
                _pass_index(self, results, start)
            else:
                results = self.backward(grads if self.multi_output else grads[0])
        else:
            results = self.backward(grads if self.multi_output else grads[0])
        if type(results) is not tuple:
            results = (results,)
        fixed = []
        index = -1
        for result, meta, child in zip(results, self._input_meta, self._next_nodes):
            index += 1
            if result is None or meta is None or child is None:
                # (an op of a tensor list hands its hooks every input's gradient, edge or not,
                # as computed: no cast to the input's dtype, which torch's engine does for
                # edges only. Note: unneeded input gradients; generated-program seeds 2530,
                # 5254, 91618)
                keep = child is None and not self.masks_unneeded_grads and meta is not None
                fixed.append(result if keep else None)
                continue
            shape, dtype = meta
            data = result._data
            if data.shape != shape:
                # torch's validate_outputs sums a gradient the input's shape expands to (a
                # saved-tensor hook's unpack of another shape makes one); else its error
                if not self.broadcasts and not _expands_to(shape, data.shape):
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {index} - "
                        f"got {list(result.shape)} but expected shape compatible with "
                        f"{list(shape)}"
                    )
                if on_arrays():  # Note: array-level backwards (activation.py)
                    result = _wrap(sum_to_array(data, shape))
                else:
                    result = _sum_to(result, shape)
                data = result._data
            if data.dtype is not dtype and data.dtype != dtype:
                if data.dtype.kind == "c" and dtype.kind != "c":
                    # Note: real inputs of complex ops. The gradient of a real input is the
                    # real part of the complex one (torch's handle_r_to_c).
                    result = result.real
                result = result.to(_np_to_dtype(dtype))
            fixed.append(result)
        return tuple(fixed)


def _expands_to(shape: tuple, target: tuple) -> bool:
    """torch's is_expandable_to(shape, target)."""
    if len(shape) > len(target):
        return False
    return all(size == 1 or size == want for size, want in zip(reversed(shape), reversed(target)))


# Note: the order of an op's input gradients
# torch's generated backward code computes an op's input gradients in the sorted order of their
# names in derivatives.yaml (``other`` before ``self``, ``mat2`` before ``self``, ``end`` before
# ``self`` before ``weight``), each formula on its own. Under create_graph the nodes a formula
# records take sequence numbers in that order, and the next backward runs ready nodes by
# sequence number, highest first: computed in input order, a float32 sum of three second-order
# gradients came in another order and gave another last bit (generated-program seed 39768).
# So a backward computes its gradients in torch's order where they record nodes (mul, div, pow,
# mm, maximum/minimum, fmax/fmin, hypot, logaddexp(2), xlogy, ldexp, dist, lerp, where;
# tests/test_fuzz7_findings.py compares the sequence numbers with torch's).


# Note: saved index tensors
# torch saves an index op's index (or mask, or target) tensor for backward like any other input
# and checks its version when the node runs: changing ``idx`` in place between ``x.gather(1,
# idx)`` and ``backward`` raises "modified by an inplace operation" naming the index tensor, and
# a second backward raises the "freed" error. Here such ops take the index as a parameter (its
# array, read by the backward formula), so the public function hands the index tensor to
# ``keep_index`` once the op is recorded, and ``Op._apply`` unpacks what was kept (the same
# ``SavedTensor`` check as any saved input) before the formula reads the parameter.

def _apply_meta(cls, args: tuple, params: dict):
    """``cls.apply`` with a meta operand (Note: meta tensors, _meta.py): the operands' devices
    checked, the op run on the meta arrays' zeros, its results made meta."""
    tensors = [arg for arg in args if isinstance(arg, Tensor)]
    _meta.check_devices(tensors)
    for name in cls.mask_params:
        value = params.get(name)
        values = value if isinstance(value, (tuple, list)) else (value,)
        if any(isinstance(v, np.ndarray) and v.dtype == np.bool_ for v in values):
            _meta.refuse("nonzero")  # x[mask]: torch's meta kernel would need nonzero
    if getattr(cls, "meta_refuses", None):
        _meta.refuse(cls.meta_refuses)
    _META_RUNNING[0] = True
    try:
        result = cls.apply(*args, **params)
    finally:
        _META_RUNNING[0] = False
    return _meta.convert_outputs(result, [t._data for t in tensors])


def _index_node(result):
    if not isinstance(result, Tensor):
        return None
    base = result._base  # an in-place op on a view: the op node of the base's CopySlices
    node = (result if base is None else base)._node
    return getattr(node, "_op_node", node)


def keep_index(result, tensor, name: str = "index"):
    """Save ``tensor`` (a Tensor, or a sequence of Tensors and Nones) as ``name`` on the node
    that just made ``result`` (Note: saved index tensors); returns ``result``."""
    if tensor is None or not _grad_state.grad_enabled:
        return result
    node = _index_node(result)
    if node is None:
        return result
    needing = type(node).index_saves.get(name)
    saved = node._saved
    if needing is None or saved is None or name in saved:
        return result
    if needing and all(i >= len(node._next_nodes) or node._next_nodes[i] is None
                       for i in needing):
        return result  # no gradient that needs it is computed: torch does not save it
    if isinstance(tensor, Tensor):
        saved[name] = SavedTensor(tensor)
    elif isinstance(tensor, (tuple, list)):
        saved[name] = tuple(SavedTensor(t) if isinstance(t, Tensor) else t for t in tensor)
    return result


def _index_param(node, name: str):
    params = node._params
    return params.get(name, params.get("index")) if name == "indices" else params.get(name)


def _same_index(kept, param) -> bool:
    """Whether ``param`` is the kept index array, or a tuple of index arrays holding it."""
    if param is None:
        return False
    if param is kept:
        return True
    if type(param) is tuple:
        if type(kept) is tuple:
            return len(kept) == len(param) and all(a is b for a, b in zip(kept, param))
        return any(item is kept for item in param)
    return False


def _pass_index(node: Op, results, start: int) -> None:
    """Under create_graph, the index ops a backward formula records with this node's index (the
    same array) save the same index tensor, as torch's double-backward nodes save the index
    they were given (Note: saved index tensors)."""
    kept = {}
    for name in node.index_saves:
        value = node._saved.get(name)
        if value is not None:
            kept[name] = (_index_param(node, name), value)
    if not kept:
        return
    pending = [r._node for r in (results if type(results) is tuple else (results,))
               if isinstance(r, Tensor) and r._node is not None]
    seen = set()
    while pending:
        fn = pending.pop()
        fn = getattr(fn, "_op_node", fn)
        if fn is None or id(fn) in seen or getattr(fn, "_seq", -1) < start:
            continue
        seen.add(id(fn))
        saved = fn._saved
        if saved is not None:
            for name in type(fn).index_saves if isinstance(fn, Op) else ():
                for param, value in kept.values():
                    if name not in saved and _same_index(param, _index_param(fn, name)):
                        saved[name] = value
        pending.extend(child for child in fn._next_nodes if child is not None)


def _keep_index_outputs(node: Op, results: tuple) -> None:
    """An integer output the op kept (as an array) for its backward, such as the indices of
    max(dim), sort or max_pool2d, is saved as that output tensor too, so changing it in place
    before backward raises as torch does (Note: saved index tensors). Its key is a tuple, so
    ``_saved_<name>`` still gives the array the backward formula reads."""
    saved = node._saved
    for tensor in results:
        data = tensor._data
        if data.dtype.kind in "fc" or _is_bfloat16(data):
            continue
        for name, value in list(saved.items()):
            if value is data:
                saved[(name,)] = SavedTensor(tensor)


def _np_to_dtype(np_dtype: np.dtype):
    return from_numpy_dtype(np_dtype)


_SUMS: list = []  # reduce._sum_all, reduce._sum_dims, _layout.contiguous


def sum_to_array(data: np.ndarray, shape: tuple) -> np.ndarray:
    """``_sum_to`` on arrays: the same sums (the forwards ``sum`` runs, so the same order of
    additions and the same bits) without a Tensor op per step, for backwards that record
    nothing (benchmarks/bench_train.py, mlp32: a bias gradient per layer)."""
    sums = _SUMS
    if not sums:  # reduce.py imports this module: bound on first use
        from . import _layout
        from .reduce import _sum_all, _sum_dims

        sums.extend((_sum_all, _sum_dims, _layout.contiguous))
    if _is_bfloat16(data):  # Note: opmath for bfloat16: summed in float32, rounded once
        from ._bfloat16 import to_bfloat16

        return to_bfloat16(sum_to_array(data.astype(np.float32), shape), False)
    if not shape:
        return sums[0](data, None)
    leading = data.ndim - len(shape)
    dims = list(range(leading))
    for i, size in enumerate(shape):
        if size == 1 and data.shape[leading + i] != 1:
            dims.append(leading + i)
    if dims:
        data = sums[2](sums[1](data, tuple(dims), True, None))
    if leading:
        data = data.reshape(shape)
    return data


def _sum_to(grad: Tensor, shape: tuple) -> Tensor:
    """Sum a broadcast gradient back to ``shape`` (torch's sum_to): leading dims, then size-1 dims."""
    if not shape:
        return grad.sum()
    leading = grad.ndim - len(shape)
    dims = list(range(leading))
    for i, size in enumerate(shape):
        if size == 1 and grad.shape[leading + i] != 1:
            dims.append(leading + i)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if leading:
        grad = grad.view(shape)
    return grad


# Note: recording one or two operands
# Nearly every recorded op has one or two operands (``y * w``, ``y.tanh()``, ``y + 1``). For
# those, ``register`` gives the op this recorder instead of ``Op._record``: the same steps with
# the operand loop unrolled and the save plan resolved ahead for each pattern of edges
# (``_save_actions``), so no lists are built and no plan entry is tested. It must stay
# step-for-step equal to ``Op._record``; anything it does not cover (anomaly mode, other
# operand counts, a plan it cannot resolve) goes there. benchmarks/bench_chain.py's chain:
# ~20% of a recorded product's forward.
_general_record = Op.__dict__["_record"].__func__
_INFERENCE_VC = _graph.INFERENCE_VC
_INFERENCE_DETACHED = _graph.INFERENCE_DETACHED


def _inference_written(cls, args, arrays, params, result):
    """``result`` with the version counts of Note: kernels' writes on inference operands
    when every tensor in ``args`` is an inference tensor and inference_mode is off."""
    if _grad_state.inference:
        return result
    found = False
    for arg in args:
        if isinstance(arg, Tensor):
            if arg._vc is not _INFERENCE_VC and arg._vc is not _INFERENCE_DETACHED:
                return result
            found = True
    if not found:
        return result
    writes = cls.inference_writes
    if callable(writes):
        writes = writes(arrays, params)
    if type(result) is tuple:
        counts = writes if type(writes) is tuple else (writes,) * len(result)
        for tensor, count in zip(result, counts):
            if count:
                tensor._vc = [count]
    elif writes:
        result._vc = [writes]
    return result


def _record_fast(cls, args: tuple, params: dict) -> Tensor:
    count = len(args)
    if count > 2 or not count or _anomaly_state.enabled:
        return _general_record(cls, args, params)
    actions = cls._save_actions[count]
    if actions is None:
        return _general_record(cls, args, params)
    node = _new(cls)  # (numbered before a stale view operand's regenerated node, as there)
    node._seq = next(_sequence)
    node._saved = saved = {}
    node._params = params
    node._hookset = None
    a = args[0]
    if isinstance(a, Tensor):
        if a._base is not None and a._view_version != a._vc[0]:
            a._refresh_view()
        data_a = a._data
        pair = (data_a.shape, data_a.dtype)
        meta_a = _META_PAIRS.get(pair) or _intern_meta(pair)
        if a._requires_grad:
            child_a = a._node
            if child_a is not None:
                nr_a = a._output_nr
            else:
                nr_a = 0
                acc = a._acc
                child_a = acc() if acc is not None else None
                if child_a is None:
                    child_a = a._accumulator()
        else:
            child_a = None
            nr_a = 0
    else:
        data_a = a
        meta_a = child_a = None
        nr_a = 0
    if count == 1:
        mask = child_a is not None
        node._next_nodes = (child_a,)
        node._next_nrs = (nr_a,) if nr_a else _ONE_ZERO
        meta = (meta_a,)
        node._input_meta = _META_PAIRS.get(meta) or _intern_meta(meta)
        token = _quiet()
        try:
            out = cls.forward(node, data_a, **params)
        except MemoryError as error:
            raise _alloc_error(error) from None
        finally:
            _loud(token)
        if cls._iterated:  # Note: output layout (ops/_layout.py)
            if data_a.__class__ is _ndarray and data_a.ndim > 1 \
                    and (not data_a.flags.c_contiguous or 1 in data_a.shape
                         and _size_one_strides(data_a) or not data_a.size) and any(data_a.strides):
                out = _layout_iterated(out, (data_a,))
    else:
        b = args[1]
        if isinstance(b, Tensor):
            if b._base is not None and b._view_version != b._vc[0]:
                b._refresh_view()
            data_b = b._data
            pair = (data_b.shape, data_b.dtype)
            meta_b = _META_PAIRS.get(pair) or _intern_meta(pair)
            if b._requires_grad:
                child_b = b._node
                if child_b is not None:
                    nr_b = b._output_nr
                else:
                    nr_b = 0
                    acc = b._acc
                    child_b = acc() if acc is not None else None
                    if child_b is None:
                        child_b = b._accumulator()
            else:
                child_b = None
                nr_b = 0
        else:
            data_b = b
            meta_b = child_b = None
            nr_b = 0
        mask = (child_a is not None) | (child_b is not None) << 1
        node._next_nodes = (child_a, child_b)
        node._next_nrs = (nr_a, nr_b) if nr_a or nr_b else _TWO_ZEROS
        meta = (meta_a, meta_b)
        node._input_meta = _META_PAIRS.get(meta) or _intern_meta(meta)
        token = _quiet()
        try:
            out = cls.forward(node, data_a, data_b, **params)
        except MemoryError as error:
            raise _alloc_error(error) from None
        finally:
            _loud(token)
        if cls._iterated:  # Note: output layout (ops/_layout.py)
            if data_a.__class__ is _ndarray and (data_a.ndim > 1
                    and (not data_a.flags.c_contiguous or 1 in data_a.shape
                         and _size_one_strides(data_a) or not data_a.size) and any(data_a.strides)
                    or out.__class__ is _ndarray and data_a.shape != out.shape
                    and _decided_by_others(data_a, out, (data_a, data_b))):
                out = _layout_iterated(out, (data_a, data_b))
    if out.dtype.kind not in "fc" and not _is_bfloat16(out):  # Note: integer tensors
        return _wrap(out)  # never require grad
    result = _wrap(out, True, node)
    drops, saves = actions[mask]
    for name in drops:
        saved.pop(name, None)  # no gradient that needs it is computed
    for name, index in saves:
        if index < 0:
            saved[name] = SavedTensor(result, True)
            continue
        value = args[index]
        if isinstance(value, Tensor):
            counter = value._vc
            if _graph.hooks_entered or counter is _INFERENCE_VC or counter is _INFERENCE_DETACHED:
                saved[name] = SavedTensor(value)
                continue
            # SavedTensor(value)'s usual case inline: a kept input, no saved-tensor hooks
            kept = _new(SavedTensor)
            kept.tensor = value
            kept.data = None
            kept._counter = None
            kept.version = 0 if counter is None else counter[0]
            kept.output_nr = None
            saved[name] = kept
        else:
            saved[name] = value
    return result


_record_fast = classmethod(_record_fast)
_ONE_ZERO = _ZEROS[1]
_TWO_ZEROS = _ZEROS[2]
