"""What ``Function.apply`` does around the user's code, following torch's custom_function.cpp:
wrap the outputs (record the node, inputs returned as views, ``mark_dirty`` and
``mark_non_differentiable``), give them tangents through ``jvp``, check what ``backward``
returns, and ``once_differentiable``'s delayed error.
"""

from __future__ import annotations

from .. import _dtype as _dtype

import warnings

from ..ops.inplace import CopySlices  # (this module is imported on first use, after ops)
from .graph import Node, SavedTensor

__all__ = ["wrap_outputs", "forward_mode", "materialized", "checked_input_grads",
           "delayed_error"]


def _tensor_cls():
    from ..tensor import Tensor

    return Tensor


# -- outputs ---------------------------------------------------------------------------------------


def wrap_outputs(cls, node, args: tuple, outputs):
    """The outputs ``apply`` returns, with the node recorded as their history when an input
    requires grad (torch's _wrap_outputs)."""
    from .grad_mode import is_grad_enabled

    Tensor = _tensor_cls()
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else tuple(outputs)
    to_save = getattr(node, "to_save", ())
    for index, item in enumerate(to_save):
        if item is not None and not isinstance(item, Tensor):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {index} is of type "
                f"{type(item).__name__}"
            )
    inputs = {id(arg) for arg in args if isinstance(arg, Tensor)}
    dirty = getattr(node, "dirty_tensors", ())
    for tensor in dirty:
        if id(tensor) not in inputs:
            if tensor._base is not None:  # torch cannot rebase a view it was not given
                raise RuntimeError(
                    "ctx.mark_dirty() received a tensor that was not an input. Only input "
                    "Tensors that have been mutated should be passed to ctx.mark_dirty().")
            warnings.warn(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                "that have been mutated should be passed to ctx.mark_dirty().",
                UserWarning, stacklevel=4,
            )
    returned = {id(out) for out in outs if isinstance(out, Tensor)}
    if any(id(tensor) not in returned for tensor in dirty):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )
    recording = is_grad_enabled() and any(
        isinstance(arg, Tensor) and arg._requires_grad for arg in args)
    if recording:
        _record_inputs(node, args)
    dirty_ids = {id(tensor) for tensor in dirty}
    non_differentiable = {id(tensor) for tensor in getattr(node, "non_differentiable", ())}
    wrapped = []
    done: dict = {}  # id -> result, for a tensor returned twice
    firsts = []  # (result, differentiable, dirty) for each tensor's first place
    for output_nr, out in enumerate(outs):
        if not isinstance(out, Tensor):
            wrapped.append(out)
            continue
        differentiable = (recording and _dtype.kind(out._data) in "fc"  # float and complex
                          and id(out) not in non_differentiable)
        if id(out) in done:
            # torch returns the same tensor again; its history is the later output
            out = done[id(out)]
            if out._node is node:
                out._output_nr = output_nr
            wrapped.append(out)
            continue
        original = id(out)
        if id(out) in dirty_ids:
            if differentiable and out._base is not None and sum(
                    isinstance(other, Tensor) for other in outs) > 1:
                raise RuntimeError(_VIEW_INPLACE_MULTIPLE_OUTPUTS)
            out._bump_version()
            if differentiable:
                _rebase_history(node, out, output_nr, args)
            elif out.requires_grad:  # torch returns a detached alias, the input keeps its flag
                out = out.detach()
        elif id(out) in inputs:
            out = _returned_input(out, node if differentiable else None, output_nr)
        elif differentiable:
            if out._node is not None:  # made with history inside forward: a new tensor
                from ..tensor import _wrap

                out = _wrap(out._data)
            out._node = node
            out._requires_grad = True
            out._output_nr = output_nr
        firsts.append((out, differentiable, original in dirty_ids))
        # (an input returned twice comes back as a new view each time, as in torch)
        if original in dirty_ids or original not in inputs:
            done[original] = out
        wrapped.append(out)
    _mark_views(firsts)
    node._output_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None
                         for o in wrapped]
    if recording:
        node._saved = {"tensors": [
            SavedTensor(t, is_output=t._node is node) if isinstance(t, Tensor) else t
            for t in to_save
        ]}
    if to_save:
        # torch leaves ``ctx.to_save`` None once saved: kept, the tensors would outlive the
        # release of the saved values (a checkpointed segment's input held to the end)
        node.to_save = None
    return wrapped[0] if single else tuple(wrapped)


_VIEW_INPLACE_MULTIPLE_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one doing "
    "the inplace that returns a single Tensor and a second one that does the other operations). "
    "You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change."
)


def _record_inputs(node, args: tuple) -> None:
    Tensor = _tensor_cls()
    positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
    edges, meta = [], []
    for i in positions:
        arg = args[i]
        meta.append((arg._data.shape, arg._data.dtype))
        if arg._requires_grad:
            fn = arg._node
            edges.append((fn, arg._output_nr) if fn is not None else (arg._accumulator(), 0))
        else:
            edges.append((None, 0))
    node.next_functions = tuple(edges)
    node._input_meta = meta
    node._tensor_positions = positions
    node._tensor_positions_all = list(range(len(args)))


def _returned_input(tensor, node, output_nr: int):
    """An input returned as it is: torch returns ``input.view_as(input)`` (a new tensor that
    takes the node as history), except that without history an input requiring grad comes
    back as a plain alias."""
    from ..ops.shape import Alias
    from ..tensor import _wrap_view

    # (the property: a view made under no_grad or inference_mode of a tensor that requires grad
    # requires grad too, and comes back detached: generated-program seed 281 of the
    # autograd.Function stage, where a view of it was returned requiring grad)
    if node is None and tensor.requires_grad:
        return tensor.detach()
    view = _wrap_view(tensor._data.view(), tensor, node is not None, node, (Alias, {}))
    view._output_nr = output_nr
    return view


def _mark_views(firsts: list) -> None:
    """Every view a Function returns (but a dirty input) is current at this version and may not
    be modified in place where that would be recorded (Note: view creation meta): torch's
    CreationMeta::MULTI_OUTPUT_NODE when the node has several differentiable outputs and this
    is one, IN_CUSTOM_FUNCTION otherwise (also without history: in no_grad, or when no input
    requires grad)."""
    from ..tensor import IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE

    several = sum(1 for _, differentiable, _ in firsts if differentiable) > 1
    for tensor, differentiable, dirty in firsts:
        if dirty or tensor._base is None:
            continue
        tensor._view_version = tensor._vc[0]
        tensor._creation_meta = (MULTI_OUTPUT_NODE if differentiable and several
                                 else IN_CUSTOM_FUNCTION)


def _rebase_history(node, tensor, output_nr: int, args: tuple) -> None:
    """A dirty (modified in place) input gets the node as its history; a view's base gets a
    CopySlices around the node instead, with torch's errors for leaves."""
    from ..tensor import LEAF_INPLACE, VIEW_OF_LEAF_INPLACE, check_view_rebase

    base = tensor._base
    if base is None:
        if tensor._node is None and tensor._requires_grad:
            # torch's wording differs from the ops' in-place check here ("has been used")
            raise RuntimeError(LEAF_INPLACE.replace("is being used", "has been used"))
        tensor._node = node
        tensor._output_nr = output_nr
        tensor._requires_grad = True
        return
    check_view_rebase(tensor, False)  # (a view of a multi-view op first, as torch)
    if base._node is None and base._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE)
    tensor._refresh_view()
    base_edge = (None, 0)
    if base._requires_grad:
        fn = base._node
        base_edge = (fn, base._output_nr) if fn is not None else (base._accumulator(), 0)
    position = next(i for i, arg in enumerate(args) if arg is tensor)
    dirty_input = node._tensor_positions.index(position)
    edges = list(node.next_functions)
    del edges[dirty_input]
    copy_slices = _FunctionCopySlices(
        (base_edge,) + tuple(edges), node, tensor._view_steps,
        (base._data.shape, base._data.dtype), dirty_input, output_nr)
    base._node = copy_slices
    base._output_nr = 0
    base._requires_grad = True
    # the view was made current above, before its base had the CopySlices: regenerate it from
    # the base now, or its history would bypass the Function (its backward never called)
    tensor._view_version = -1
    tensor._refresh_view()


class _FunctionCopySlices(CopySlices):
    """CopySlices around a custom Function that modified a view in place: the view's region of
    the base gets the gradient of the dirty input, the other inputs get theirs."""

    __slots__ = ("_dirty_input", "_dirty_output")

    def __init__(self, next_functions, op_node, steps, base_meta, dirty_input, output_nr):
        super().__init__(next_functions, op_node, steps, base_meta)
        self._dirty_input = dirty_input
        self._dirty_output = output_nr

    def _apply(self, grads: list) -> tuple:
        from ..ops.shape import ViewScatter, replay

        if self._op_node is None:
            from .graph import FREED_MESSAGE

            raise RuntimeError(FREED_MESSAGE)
        grad = self._laid_out_as_base(grads[0])
        region = replay(grad, self._steps)
        output_grads = [None] * len(self._op_node._output_meta)
        output_grads[self._dirty_output] = region
        op_grads = list(self._op_node._apply(output_grads))
        region_grad = op_grads.pop(self._dirty_input)
        grad_base = None
        if self._next_nodes[0] is not None:
            if region_grad is None:
                region_grad = region * 0
            grad_base = ViewScatter.apply(grad, region_grad, steps=self._steps)
        return (grad_base,) + tuple(op_grads)


_FunctionCopySlices.__name__ = _FunctionCopySlices.__qualname__ = "CopySlices"
_FunctionCopySlices.__module__ = "builtins"  # a C++ class in torch: <class 'CopySlices'>


# -- backward --------------------------------------------------------------------------------------


def materialized(grads: list, output_meta: list) -> list:
    """Zeros for the outputs that got no gradient (torch's materialize_grads)."""
    import numpy as np

    from ..tensor import _wrap

    return [grad if grad is not None or meta is None else _wrap(np.zeros(*meta))
            for grad, meta in zip(grads, output_meta)]


def checked_input_grads(node, results: tuple) -> tuple:
    """One gradient per forward input, checked and fitted to the input as torch does."""
    from ..ops.registry import _np_to_dtype, _sum_to

    Tensor = _tensor_cls()
    expected = len(node._tensor_positions_all)
    if len(results) > expected and all(r is None for r in results[expected:]):
        results = results[:expected]
    if len(results) != expected:
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients (expected "
            f"{expected}, got {len(results)})"
        )
    for position, grad in enumerate(results):
        if grad is not None and not isinstance(grad, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
        if grad is not None and position not in node._tensor_positions:
            raise RuntimeError(
                f"function {node.name()} returned a gradient different than None at position "
                f"{position + 1}, but the corresponding forward input was not a Variable"
            )
    grads_in = []
    for index, position in enumerate(node._tensor_positions):
        grad = results[position]
        meta = node._input_meta[index]
        if grad is not None and tuple(grad.shape) != meta[0]:
            try:
                fitted = _sum_to(grad, meta[0])
            except Exception:
                fitted = None
            if fitted is None or tuple(fitted.shape) != meta[0]:
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index {index} - "
                    f"got {list(grad.shape)} but expected shape compatible with "
                    f"{list(meta[0])}"
                )
            grad = fitted
        if grad is not None and grad._data.dtype != meta[1]:
            grad = grad.to(_np_to_dtype(meta[1]))
        grads_in.append(grad)
    return tuple(grads_in)


# -- forward mode ----------------------------------------------------------------------------------


def forward_mode(cls, node, args: tuple, result) -> None:
    """Inside a dual level: the outputs' tangents from ``jvp(ctx, *input tangents)``."""
    import numpy as np

    from ..tensor import _wrap
    from .forward_ad import get_tangent, set_tangent

    Tensor = _tensor_cls()
    given = [get_tangent(arg) if isinstance(arg, Tensor) else None for arg in args]
    if all(tangent is None for tangent in given):
        return
    if cls.jvp is _base_jvp():
        cls.jvp(node)  # torch's NotImplementedError
    materialize = getattr(node, "materialize_grads", True)
    tangents = []
    for arg, tangent in zip(args, given):
        if tangent is None and isinstance(arg, Tensor) and materialize and \
                _dtype.kind(arg._data) in "fc":  # (an integer input's tangent stays None)
            tangent = _wrap(np.zeros(arg._data.shape, arg._data.dtype))
        tangents.append(tangent)
    dirty_versions = {id(t): t._version for t, arg in zip(tangents, args)
                      if t is not None and any(arg is d for d in getattr(node, "dirty_tensors", ()))}
    node._in_jvp = True
    try:
        out_tangents = cls.jvp(node, *tangents)
    finally:
        node._in_jvp = False
    outputs = result if isinstance(result, tuple) else (result,)
    if not isinstance(out_tangents, tuple):
        out_tangents = (out_tangents,)
    if len(out_tangents) != len(outputs):
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{len(outputs)} but got {len(out_tangents)})"
        )
    dirty = {id(t): tangents[i] for i, arg in enumerate(args)
             for t in getattr(node, "dirty_tensors", ()) if t is arg}
    non_differentiable = {id(t) for t in getattr(node, "non_differentiable", ())}
    for position, (out, tangent) in enumerate(zip(outputs, out_tangents)):
        differentiable = (isinstance(out, Tensor) and _dtype.kind(out._data) in "fc"
                          and id(out) not in non_differentiable)
        if not differentiable:
            if tangent is not None:
                raise RuntimeError(
                    f"Function's jvp returned a gradient at position {position}, but  the "
                    "corresponding forward output is not a differentiable Tensor.You should "
                    "return None at that position instead."
                )
            continue
        if tangent is None:  # (torch fails an internal assert here)
            continue
        if id(out) in dirty:
            given_tangent = dirty[id(out)]
            if tangent is not given_tangent or \
                    given_tangent._version == dirty_versions.get(id(given_tangent)):
                raise RuntimeError(
                    "An inplace custom Function is not modifying the forward mode gradients "
                    "inplace. If the forward is modifying an input inplace, then the jvp "
                    "function must modify the corresponding gradient inplace."
                )
            if get_tangent(out) is not tangent:
                set_tangent(out, tangent)
            continue
        _check_view_tangent(out, tangent, args, tangents)
        if tangent.shape != out.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {list(out.shape)} "
                f"while the given forward gradient is of size {list(tangent.shape)}."
            )
        set_tangent(out, tangent)
    _keep_saved_tangents(node, outputs)


def _check_view_tangent(out, tangent, args: tuple, tangents: list) -> None:
    """torch's checks of a jvp for a forward that returns a view of an input: the tangent must
    be a view of that input's tangent (of the same base when that tangent is a view itself)."""
    base = out._base
    if base is None:
        return
    for arg, given in zip(args, tangents):
        if given is None or not (base is arg or arg._base is not None and base is arg._base):
            continue
        if tangent._base is None:
            raise RuntimeError(
                "A custom Function's forward is returning a view (or an input as-is) but the "
                "jvp is not returning a view.")
        if given._base is not None:  # the input's tangent is a view (of a view's base's)
            if tangent._base is not given._base:
                raise RuntimeError(
                    "A custom Function is returning a view but the jvp is not returning a view "
                    "of the same base as the given grad input.")
        elif tangent._base is not given:
            raise RuntimeError(
                "A custom Function is returning a view but the jvp is not returning a view of "
                "the given grad input.")
        return


def _base_jvp():
    from .function import Function

    return Function.jvp


def _keep_saved_tangents(node, outputs: tuple) -> None:
    """Saved outputs keep their tangents for a backward run on dual tensors."""
    from ..ops._forward import _saved_with_tangent

    saved = node._saved.get("tensors") if node._saved else None
    if not saved:
        return
    for index, item in enumerate(saved):
        if type(item) is SavedTensor and item.output_nr is not None:
            tangent = getattr(outputs[item.output_nr], "_fw_grad", None)
            if tangent is not None:
                saved[index] = _saved_with_tangent(item, node, tangent)


# -- once_differentiable ---------------------------------------------------------------------------


class DelayedError(Node):
    """A node whose backward raises ``message`` (torch's DelayedError, shown as ``Error``)."""

    __slots__ = ("message",)
    qualified_name = "torch::autograd::Error"

    def __init__(self, next_functions: tuple, message: str):
        super().__init__(next_functions)
        self.message = message

    def _apply(self, grads: list) -> tuple:
        raise RuntimeError(self.message)


DelayedError.__name__ = DelayedError.__qualname__ = "Error"
DelayedError.__module__ = "builtins"


def delayed_error(outputs, message: str):
    """Aliases of ``outputs`` whose history is a DelayedError over detached leaves that require
    grad (torch's once_differentiable: differentiating them again raises ``message``)."""
    from ..tensor import _wrap

    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    leaves = []
    for out in outs:
        if out is None:
            leaves.append(None)
            continue
        leaf = out.detach()
        leaf.requires_grad = True
        leaves.append(leaf)
    node = DelayedError(tuple((leaf._accumulator(), 0) if leaf is not None else (None, 0)
                              for leaf in leaves), message)
    node._input_meta = [None if leaf is None else (leaf._data.shape, leaf._data.dtype)
                        for leaf in leaves]
    wrapped = []
    for output_nr, leaf in enumerate(leaves):
        if leaf is None:
            wrapped.append(None)
            continue
        out = _wrap(leaf._data, True, node)
        out._output_nr = output_nr
        wrapped.append(out)
    return wrapped[0] if single else tuple(wrapped)


def delayed_error_of(tensor, message: str):
    """``tensor``'s values behind a DelayedError node whose one edge is ``tensor``'s history
    (torch's DelayedError applied inside a backward formula): differentiating it raises
    ``message``. A tensor that does not require grad is returned as is."""
    from ..tensor import _wrap

    if not tensor.requires_grad:
        return tensor
    if tensor._node is not None:
        edge = (tensor._node, tensor._output_nr)
    else:
        edge = (tensor._accumulator(), 0)
    node = DelayedError((edge,), message)
    node._input_meta = [(tensor._data.shape, tensor._data.dtype)]
    return _wrap(tensor._data, True, node)
