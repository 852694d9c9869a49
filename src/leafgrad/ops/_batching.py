"""Running ops on batched tensors (vmap): the batched tensor, and how the op table's rules run.

Note: batched tensors
Inside ``vmap`` a batched value is a ``BatchedTensor``: a Tensor whose ``_value`` is a plain
"physical" Tensor holding every example, with one batch dim per open vmap level in front
(``_levels``, ascending; an inner level's dim comes after an outer one's). What the function
sees is the logical tensor, one example: ``shape``, ``dtype``, ``ndim`` are read from its
``_data``, a read-only view of the first example (a ``LogicalArray``), so every shape check
written for plain tensors works unchanged. Values are never read from ``_data``: every op
reaches ``Op.apply``, which hands batched arguments to ``batched_apply`` here. It finds the
op's batching rule (``vmap`` in the op's class, or one derived from what the class declares,
see ``rule_for``), which moves batch dims to the front and calls the same op once on the
physical tensors. Autograd and forward-mode AD only ever see physical tensors, so a gradient
or a tangent lives on the physical tensor and every transform composes with vmap.
Python-level reads of values (``item``, ``bool``, ``tolist``) raise torch's vmap errors.

Note: batched arrays in parameters
Some ops take a tensor argument as an array parameter (an index, a mask, a target). A batched
tensor's ``_data`` is a ``LogicalArray`` that knows its tensor, so a rule can use the physical
values (``physical_param``). An array computed from one (by a ufunc or a reshape) no longer
maps onto the batch, and reaching an op with it raises instead of using the first example.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..autograd._vmap_state import EQUAL_UNDER_VMAP, RETAIN_GRAD, state
from ..autograd.forward_ad import state as _fw_state
from ..tensor import Tensor, _new, _wrap
from ..autograd._transform_levels import _grad_levels, wrapper_repr
from ._forward import auto_element_wise
from ..autograd.forward_ad import get_tangent, set_tangent
from .registry import OPS

__all__ = ["BatchedTensor", "LogicalArray", "batched_apply", "wrap", "levels_of", "physical"]


class LogicalArray(np.ndarray):
    """The first example of a batched tensor (see Note: batched arrays in parameters)."""

    def __array_finalize__(self, obj) -> None:
        source = getattr(obj, "batched", None)
        if source is not None and source is not False and self.shape == obj.shape:
            self.batched = source  # a same-shape view (reshape(-1) of a vector, astype)
        else:
            self.batched = False if isinstance(obj, LogicalArray) else None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [x.view(np.ndarray) if isinstance(x, LogicalArray) else x for x in inputs]
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, LogicalArray) else o
                                  for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if isinstance(result, np.ndarray) and result.ndim:
            result = result.view(LogicalArray)
            result.batched = False  # computed from example values: no longer batched
        return result


VMAP_ITEM = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling "
    ".item() on a Tensor, please try to rewrite what you're doing with other operations. If "
    "error is occurring somewhere inside PyTorch internals, please file a bug report."
)
VMAP_CONTROL_FLOW = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. "
    "We don't support that yet, please file an issue at https://github.com/pytorch/pytorch/"
    "issues ."
)
NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"


class BatchedTensor(Tensor):
    """A Tensor seen one example at a time inside vmap (see Note: batched tensors)."""

    __slots__ = ("_value", "_levels")

    from ..overrides import _disabled_torch_function_impl as __torch_function__  # (internal)

    def __repr__(self, *, tensor_contents=None) -> str:
        # torch's nesting, innermost level outside; leafgrad keeps batch dims in front

        text = wrapper_repr(self._value, self._levels)  # with grad levels between
        if text is not None:
            return text
        bdim = self.__dict__.get("_bdim", 0)  # (an input vmapped at another dim: _vmap._run)
        text = repr(self._value.movedim(0, bdim) if bdim else self._value)
        for level in self._levels:
            inner = "\n".join("    " + line for line in text.splitlines())
            text = f"BatchedTensor(lvl={level}, bdim={bdim}, value=\n{inner}\n)"
        return text

    __str__ = __repr__

    # torch's batching rules for new_zeros/new_empty/new_ones/new_full materialize a batched
    # tensor: each example gets its own (a copy_ of a batched value into it then works)
    def _new_batched(self, name: str, size: tuple, *args, **kwargs) -> Tensor:
        from .._creation import _size

        size = _size(size, name)
        batch = tuple(self._value.shape[: len(self._levels)])
        kwargs.setdefault("dtype", self.dtype)
        return wrap(getattr(self._value, name)(batch + tuple(size), *args, **kwargs),
                    self._levels)

    def new_zeros(self, *size, **kwargs) -> Tensor:
        return self._new_batched("new_zeros", size, **kwargs)

    def new_ones(self, *size, **kwargs) -> Tensor:
        return self._new_batched("new_ones", size, **kwargs)

    def new_empty(self, *size, **kwargs) -> Tensor:
        return self._new_batched("new_empty", size, **kwargs)

    def new_full(self, size, fill_value, **kwargs) -> Tensor:
        return self._new_batched("new_full", (tuple(size),), fill_value, **kwargs)

    # Note: what autograd shows of a batched tensor
    # torch's BatchedTensor has no autograd meta of its own: when it is the outermost wrapper
    # (no grad transform opened inside its vmap level tracks it) it does not require grad, is a
    # leaf without grad_fn or grad, whatever its physical tensor does; under vmap(grad(f)) the
    # grad level's wrapper is outside and shows that level's autograd (the physical one's here).
    @property
    def requires_grad(self) -> bool:
        return not shown_batched(self) and self._value.requires_grad

    def _may_require_grad(self) -> bool:
        return self._value.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not shown_batched(self):
            self._value.requires_grad = value

    def requires_grad_(self, *args, **kwargs) -> Tensor:
        Tensor.requires_grad_(self._value, *args, **kwargs)  # torch's transform check raises
        return self

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        raise RuntimeError(RETAIN_GRAD)  # (Note: autograd calls inside transforms)

    @property
    def grad_fn(self):
        return None if shown_batched(self) else self._value.grad_fn

    @property
    def is_leaf(self) -> bool:
        return shown_batched(self) or self._value.is_leaf

    @property
    def grad(self):
        if shown_batched(self):
            return None
        grad = self._value.grad
        return None if grad is None else wrap(grad, self._levels)

    def detach(self) -> Tensor:
        return wrap(self._value.detach(), self._levels)

    @property
    def data(self) -> Tensor:
        return wrap(self._value.data, self._levels)

    def item(self):
        raise RuntimeError(VMAP_ITEM)

    def equal(self, other) -> bool:
        raise RuntimeError(EQUAL_UNDER_VMAP)

    def __bool__(self) -> bool:
        raise RuntimeError(VMAP_CONTROL_FLOW)

    __float__ = __int__ = __index__ = item

    def tolist(self):
        raise RuntimeError(NO_STORAGE)

    def numpy(self, *, force: bool = False):
        raise RuntimeError(NO_STORAGE)

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(NO_STORAGE)

    def data_ptr(self) -> int:
        raise RuntimeError(NO_STORAGE)

    def _become(self, view):
        """The in-place shape methods (``unsqueeze_``...): the physical tensor changes shape."""
        if type(view) is not BatchedTensor:  # pragma: no cover - a batched input gives one
            raise RuntimeError("vmap: an in-place shape method lost the batch")
        self._value._become(view._value)
        self._levels = view._levels
        self._data = view._data
        self._data.batched = self
        return self


def wrap(value: Tensor, levels: tuple) -> Tensor:
    """The batched tensor whose physical tensor is ``value`` (batch dims for ``levels`` in
    front); ``value`` itself when ``levels`` is empty."""
    if not levels:
        return value
    data = value._data
    count = len(levels)
    if 0 in data.shape[:count]:
        logical = np.zeros(data.shape[count:], data.dtype).view(LogicalArray)
    else:
        logical = data[(0,) * count + (Ellipsis,)].view(LogicalArray)
    logical.flags.writeable = False
    t = _new(BatchedTensor)
    logical.batched = t
    t._data = logical
    t._value = value
    t._levels = levels
    t._requires_grad = False
    t._node = None
    t._output_nr = 0
    t._grad_value = None
    t._vc = None
    t._base = None
    t._hooks = None
    t._acc = None
    t._retains_grad = False
    t._view_steps = ()
    t._view_version = None
    return t


def shown_batched(tensor: BatchedTensor) -> bool:
    """Whether ``tensor``'s outermost wrapper in torch is its BatchedTensor (see Note: what
    autograd shows of a batched tensor)."""
    if not state.stack:  # a batched tensor kept past its vmap
        return False
    grad_levels = _grad_levels(tensor._value)
    return not grad_levels or max(grad_levels) < tensor._levels[-1]


def check_visible_grad(outputs, inputs) -> None:
    """``autograd.grad`` called inside vmap: a batched output or input the caller sees as a
    BatchedTensor does not require grad (torch's engine errors, outputs first)."""
    outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    inputs = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
    for index, output in enumerate(outputs):
        if type(output) is BatchedTensor and shown_batched(output):
            raise RuntimeError(
                f"element {index} of tensors does not require grad and does not have a grad_fn"
            )
    for tensor in inputs:
        if type(tensor) is BatchedTensor and shown_batched(tensor):
            raise RuntimeError("One of the differentiated Tensors does not require grad")


def levels_of(value) -> tuple:
    return value._levels if type(value) is BatchedTensor else ()


def physical(value) -> Tensor:
    return value._value if type(value) is BatchedTensor else value


def batch_sizes(value) -> tuple:
    if type(value) is not BatchedTensor:
        return ()
    return value._value._data.shape[: len(value._levels)]


def align(value, levels: tuple, sizes: tuple | None = None, rank: int | None = None) -> Tensor:
    """``value``'s physical tensor with batch dims for exactly ``levels`` in front (size 1 for a
    level it lacks, or expanded to ``sizes``) and its logical rank padded to ``rank`` with
    leading size-1 dims (NumPy broadcasting then lines examples up as torch does)."""
    own = levels_of(value)
    tensor = physical(value)
    shape = tensor._data.shape
    logical = shape[len(own):]
    if own != levels or (rank is not None and rank > len(logical)):
        batch = []
        for level in levels:
            batch.append(shape[own.index(level)] if level in own else 1)
        pad = (1,) * (rank - len(logical)) if rank is not None and rank > len(logical) else ()
        tensor = tensor.reshape(tuple(batch) + pad + logical)
        shape = tensor._data.shape
    if sizes is not None and shape[: len(levels)] != tuple(sizes):
        tensor = tensor.expand(tuple(sizes) + shape[len(levels):])
    return tensor


def physical_param(value, levels: tuple, sizes: tuple | None = None, rank=None):
    """An array parameter aligned like ``align`` (see Note: batched arrays in parameters)."""
    if type(value) is BatchedTensor:
        return align(value, levels, sizes, rank)
    if not isinstance(value, LogicalArray):
        if sizes is not None and isinstance(value, np.ndarray):
            return np.broadcast_to(value, tuple(sizes) + value.shape)
        return value
    source = value.batched
    if source is False or source is None:
        raise RuntimeError(
            "vmap: an array computed from a batched tensor was passed to an op; leafgrad has "
            "no batching rule for this use. Please compute it with tensor operations."
        )
    array = align(source, levels, sizes, rank)._data
    return array if array.dtype == value.dtype else array.astype(value.dtype)


def _param_levels(value) -> tuple:
    if isinstance(value, LogicalArray):
        source = value.batched
        if source is False:
            return (None,)  # poisoned: forces the rule-less path, which raises
        return source._levels if source is not None else ()
    if type(value) is BatchedTensor:
        return value._levels
    if isinstance(value, (tuple, list)):
        found = ()
        for item in value:
            found = found + _param_levels(item)
        return found
    return ()


def all_levels(args, params) -> tuple:
    """The sorted levels of every batched argument and array parameter."""
    found = set()
    for arg in args:
        if type(arg) is BatchedTensor:
            found.update(arg._levels)
    for value in params.values():
        found.update(_param_levels(value))
    return tuple(sorted(found, key=lambda x: -1 if x is None else x))


def level_sizes(args, params, levels: tuple) -> tuple:
    sizes = dict()
    values = list(args) + [p.batched if isinstance(p, LogicalArray) else p
                           for p in _flat_params(params)]
    for value in values:
        if type(value) is BatchedTensor:
            for level, size in zip(value._levels, value._value._data.shape):
                sizes[level] = size
    return tuple(sizes[level] for level in levels)


def _flat_params(params) -> list:
    flat = []
    for value in params.values():
        if isinstance(value, (tuple, list)):
            flat.extend(value)
        else:
            flat.append(value)
    return flat


def _has_batched(args, params) -> bool:
    for arg in args:
        if type(arg) is BatchedTensor:
            return True
    for value in params.values():
        if isinstance(value, LogicalArray) or type(value) is BatchedTensor:
            return True
        if type(value) in (tuple, list):
            for item in value:
                if isinstance(item, LogicalArray) or type(item) is BatchedTensor:
                    return True
    return False


def wrap_result(result, levels: tuple):
    if isinstance(result, tuple):
        return tuple(wrap(r, levels) if isinstance(r, Tensor) else r for r in result)
    if isinstance(result, list):
        return [wrap(r, levels) if isinstance(r, Tensor) else r for r in result]
    return wrap(result, levels)


# -- dispatch -------------------------------------------------------------------------------------


def rule_for(cls):
    """The op's batching rule: its own ``vmap``, else one derived from what it declares
    (an elementwise op, ``jvp = auto_element_wise``, needs the generic elementwise rule)."""
    rule = getattr(cls, "vmap", None)
    if rule is not None:
        return rule
    from ._batching_rules import elementwise

    if getattr(cls, "jvp", None) is auto_element_wise:
        return elementwise
    return None


def batched_apply(cls, args: tuple, params: dict):
    """``cls.apply`` inside vmap: NotImplemented when nothing is batched (the op runs as
    usual), else the op's batching rule, or a loop over the examples when it has none."""
    if not _has_batched(args, params):
        return NotImplemented
    if None in all_levels(args, params):
        physical_param(_poisoned(params), ())  # raises
    refused = getattr(cls, "vmap_refuses", None)
    if refused is not None and _batched_mask(params.get(refused[0])):
        raise RuntimeError(refused[1])  # (a per-example shape: torch refuses the op)
    rule = rule_for(cls)
    if rule is not None:
        _RULES.running += 1
        try:
            result = rule(cls, args, params)
        finally:
            _RULES.running -= 1
        if result is not NotImplemented:
            if _fw_state.level is not None and not cls.is_view:
                _tangents_in_primal_layout(result)
            return result
    return fallback(cls, args, params)


class _RULES:
    running = 0  # batching rules under way: their physical ops' results are intermediate


def _tangents_in_primal_layout(result) -> None:
    """Note: batched tangents in the primal's layout
    torch stores an op's tangent as is only when its layout is the primal's; otherwise it
    copies it into ``new_empty_strided(primal's sizes and strides)``. Inside vmap the tangent
    is a batched tensor, and that copy is its batching rule's: batch dims in front, each
    example laid out as the primal. A batching rule that leaves the batch dim inside (mv of a
    batched vector: (O, B) memory) therefore hands the next op a tangent with the batch in
    front, which decides the order of a later reduction's additions (torch.func.hessian, that
    is jacfwd over jacrev, of a linear model's loss: other last bits). Here the primal's
    example layout is the order of its physical strides over the dims that are not the
    tangent's batch dims (those of the vmap levels open outside the jvp)."""
    outputs = result if isinstance(result, (tuple, list)) else (result,)
    outer = _levels_outside_dual()
    for out in outputs:
        if type(out) is not BatchedTensor:
            continue
        primal = out._value
        tangent = get_tangent(primal)
        if tangent is None or type(tangent) is not Tensor:
            continue
        count = len(out._levels)
        front = [i for i, level in enumerate(out._levels) if level in outer]
        if not front:
            # an inner vmap's output whose values are the dual's physical tensors (the
            # backward of vmap(jvp(jacrev(f)))): the outer levels' dims follow this level's
            front = list(range(count, min(count + len(outer), primal._data.ndim)))
        moved = in_primal_layout(primal, tangent, front)
        if moved is not tangent:
            set_tangent(primal, moved)


def in_primal_layout(primal: Tensor, tangent: Tensor, front) -> Tensor:
    """``tangent`` as is when its layout is torch's for ``primal``'s tangent (the dims
    ``front`` outermost, the others as the primal orders them), else a copy in that layout
    (Note: batched tangents in the primal's layout)."""
    data = tangent._data
    if data.ndim != primal._data.ndim or data.size < 2:
        return tangent
    wanted = _batch_front_strides(primal._data, front)
    if all(size < 2 or have // data.itemsize == want
           for size, have, want in zip(data.shape, data.strides, wanted)):
        return tangent
    copy = np.empty(data.size, data.dtype)
    copy = np.lib.stride_tricks.as_strided(
        copy, data.shape, tuple(s * data.itemsize for s in wanted))
    active, _fw_state.active = _fw_state.active, False
    try:
        return _wrap(copy).copy_(tangent)
    finally:
        _fw_state.active = active


def physical_tangent_front():
    """For a tangent computed on physical tensors outside any batching rule (autograd's
    backward inside vmap(jvp(grad(f)))): the dims of the vmap levels open outside the jvp,
    which lead every dual's physical tensor; None when the layout rule does not apply here."""
    if _RULES.running or not state.active:
        return None
    return list(range(len(_levels_outside_dual())))


def _levels_outside_dual() -> set:
    """The vmap levels open outside the innermost torch.func.jvp (every open one without it):
    the levels a tangent is batched over, for torch's forward-mode layout rule."""
    duals = [level for kind, level, _ in state.stack if kind == "jvp"]
    if not duals:
        return {level for level, _, _ in state.levels}
    return {level for kind, level, _ in state.stack if kind == "vmap" and level < duals[-1]}


def _batch_front_strides(primal: np.ndarray, front: list) -> tuple:
    """Element strides of a dense tensor of ``primal``'s shape: the dims ``front``
    outermost in order, then the others ordered as the primal's strides order them
    (outermost first; ties keep their order)."""
    shape = primal.shape
    rest = [d for d in range(primal.ndim) if d not in front]
    rest.sort(key=lambda d: -abs(primal.strides[d]))  # (stable: ties keep their order)
    strides = [0] * primal.ndim
    step = 1
    for dim in reversed(front + rest):
        strides[dim] = step
        step *= max(shape[dim], 1)
    return tuple(strides)


def _batched_mask(value) -> bool:
    """Whether an op's parameter holds a boolean mask that differs per example."""
    values = value if isinstance(value, (tuple, list)) else (value,)
    for item in values:
        if type(item) is BatchedTensor and item._data.dtype == bool:
            return True
        if isinstance(item, LogicalArray) and item.dtype == bool and type(item.batched) is \
                BatchedTensor:
            return True
    return False


DYNAMIC_SHAPE = (
    "vmap: We do not support batching operators that can output dynamic shape. Attempted to "
    "vmap over aten::{}. Please file an issue at https://github.com/pytorch/pytorch/issues if "
    "you need this feature."
)


def per_example_call(function, name: str, args: tuple, kwargs: dict, *, dynamic=False,
                     no_fallback=False, warn=True):
    """A function that computes from arrays (no op of the table) called inside vmap:
    NotImplemented when no argument is batched; torch's dynamic-shape or no-fallback error
    where torch refuses the op; else torch's slow fallback: the function per example of the
    innermost level, the results stacked (stack's error when their shapes differ)."""
    values = list(args) + list(kwargs.values())
    if not any(type(v) is BatchedTensor for v in values):
        return NotImplemented
    if dynamic:
        raise RuntimeError(DYNAMIC_SHAPE.format(name))
    if no_fallback:
        raise RuntimeError(f"Batching rule not implemented for aten::{name}. We could not "
                           "generate a fallback.")
    if warn and name not in _WARNED:  # (a composite of torch's has rules: no warning)
        _WARNED.add(name)
        warnings.warn(
            f"There is a performance drop because we have not yet implemented the batching rule "
            f"for aten::{name}. Please file us an issue on GitHub so that we can prioritize its "
            "implementation.",
            UserWarning,
            stacklevel=3,
        )
    level = all_levels(tuple(v for v in values if type(v) is BatchedTensor), {})[-1]
    size = level_sizes(tuple(values), {}, (level,))[0]
    rows = []
    for index in range(size):
        rows.append(function(*[select_example(a, level, index) for a in args],
                             **{k: select_example(v, level, index) for k, v in kwargs.items()}))
    return stack_level(rows, level, size)


def _poisoned(params):
    for value in _flat_params(params):
        if isinstance(value, LogicalArray) and value.batched is False:
            return value
    return None


_WARNED: set = set()


def fallback(cls, args: tuple, params: dict):
    """No batching rule: run the op once per example of the innermost level and stack the
    results (torch's slow fallback), warning once per op."""
    if cls.op_name not in _WARNED:
        _WARNED.add(cls.op_name)
        warnings.warn(
            f"There is a performance drop because we have not yet implemented the batching rule "
            f"for {cls.op_name}. Please file us an issue on GitHub so that we can prioritize its "
            "implementation.",
            UserWarning,
            stacklevel=3,
        )
    levels = all_levels(args, params)
    level = levels[-1]
    size = level_sizes(args, params, (level,))[0]
    rows = []
    for index in range(size):
        row_args = [select_example(arg, level, index) for arg in args]
        row_params = {name: _select_param(value, level, index) for name, value in params.items()}
        rows.append(cls.apply(*row_args, **row_params))
    shapes = {tuple(r.shape) for row in rows for r in (row if isinstance(row, tuple) else (row,))
              if isinstance(r, Tensor)} if not isinstance(rows[0], tuple) else set()
    if len(shapes) > 1:
        raise RuntimeError(
            "vmap: We do not support batching operators that can output dynamic shape. "
            f"Attempted to vmap over aten::{cls.op_name}. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues if you need this feature."
        )
    if not rows:
        raise RuntimeError(
            f"vmap: leafgrad cannot run {cls.op_name} over an empty batch without a batching rule"
        )
    if isinstance(rows[0], tuple):
        return tuple(stack_level([row[i] for row in rows], level, size)
                     for i in range(len(rows[0])))
    return stack_level(rows, level, size)


def select_example(value, level, index):
    """Example ``index`` of ``value`` at ``level`` (``value`` itself if not batched there)."""
    if type(value) is BatchedTensor and level in value._levels:
        position = value._levels.index(level)
        rest = value._levels[:position] + value._levels[position + 1:]
        return wrap(value._value.select(position, index), rest)
    return value


def _select_param(value, level, index):
    if isinstance(value, LogicalArray):
        source = value.batched
        if level not in source._levels:
            return value
        example = select_example(source, level, index)
        data = example._data
        return data if data.dtype == value.dtype else data.astype(value.dtype)
    if isinstance(value, (tuple, list)):
        return type(value)(_select_param(v, level, index) for v in value)
    return value


def stack_level(rows: list, level: int, size: int) -> Tensor:
    """Stack per-example results into a tensor batched at ``level``."""
    from . import stack

    if not isinstance(rows[0], Tensor):
        raise RuntimeError("vmap: a fallback op returned a non-tensor value")
    levels = tuple(sorted(set().union(*(levels_of(r) for r in rows))))
    sizes = level_sizes(rows, {}, levels)
    physicals = [align(r, levels, sizes) for r in rows]
    position = sum(1 for other in levels if other < level)
    stacked = stack(physicals, position)
    return wrap(stacked, tuple(sorted(levels + (level,))))


# -- in-place ops --------------------------------------------------------------------------------

VMAP_INPLACE = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor "
    "`other` in extra_args that has more elements than `self`. This happened due to `other` "
    "being vmapped over but `self` not being vmapped over in a vmap. Please try to use "
    "out-of-place operators instead of inplace arithmetic. If said operator is being called "
    "inside the PyTorch framework, please file a bug report instead."
)


# How torch refuses an in-place op whose other argument is batched where self is not: its
# in-place binary rules ("inplace arithmetic"), ops of their own rule (fill_), the slow
# fallback (aten::<name>_, at the level); add_ broadcasts first and gives the shape error.
_ARITHMETIC = ("Sub", "Mul", "Div", "MaskedFill", "Copy")
_OWN_RULE = {"FillTensor": "fill_"}
_FALLBACK = {"PowTensor": "pow_", "ClampTensor": "clamp_", "Addcmul": "addcmul_",
             "Lerp": "lerp_", "Hypot": "hypot_", "DivRounding": "floor_divide_",
             "RemainderTensor": "remainder_", "EqTensorInplace": "eq_",
             "MaskedScatter": "masked_scatter_"}


def _inplace_refusal(op_name: str, level: int):
    if op_name in _ARITHMETIC:
        return VMAP_INPLACE
    name, where = _OWN_RULE.get(op_name), "in a vmap"
    if name is None and op_name in _FALLBACK:
        name, where = "aten::" + _FALLBACK[op_name], f"at level {level}"
    if name is None:
        return None
    return (f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor "
            "`other` in extra_args that has more elements than `self`. This happened due to "
            f"`other` being vmapped over but `self` not being vmapped over {where}. Please try "
            f"to use out-of-place operators instead of {name}. If said operator is being called "
            "inside the PyTorch framework, please file a bug report instead.")


def batched_inplace(op, target, others: tuple, params: dict):
    """``inplace(op, target, *others)`` inside vmap: the physical target is updated. A value
    batched where the target is not cannot be written into it (torch's errors)."""
    args = (target,) + others
    if not _has_batched(args, params):
        return NotImplemented
    own = levels_of(target)
    levels = all_levels(args, params)
    missing = [level for level in levels if level not in own]
    if missing:
        refusal = _inplace_refusal(op.op_name, missing[-1])  # (the innermost level)
        if refusal is not None:
            raise RuntimeError(refusal)
        sizes = level_sizes(args, params, tuple(missing))
        shape = list(target._data.shape)
        raise RuntimeError(
            f"output with shape {shape} doesn't match the broadcast shape {list(sizes) + shape}"
        )
    from ._batching_rules import elementwise
    from .inplace import inplace

    if rule_for(op) is elementwise:
        rank = target._data.ndim
        aligned = [align(o, own, rank=rank) if type(o) is BatchedTensor else o for o in others]
        aligned_params = {
            name: physical_param(v, own, rank=rank) if isinstance(v, LogicalArray) else v
            for name, v in params.items()
        }
        inplace(op, target._value, *aligned, **aligned_params)
        return target

    if "self" in op.saves:
        # the result is computed out of place and then copied into target: an op that saves
        # self must save the old values, not target's storage that the copy overwrites
        args = (target.clone(),) + others
    result = batched_apply(op, args, params)
    if result is NotImplemented:  # pragma: no cover - target is batched
        result = op.apply(*args, **params)
    inplace(OPS["Copy"], target._value, align(result, own))
    return target


state.apply = batched_apply
state.inplace = batched_inplace
