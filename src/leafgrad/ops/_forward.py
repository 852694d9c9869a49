"""Running ops on dual tensors: each op's ``jvp`` formula, and the rules torch applies around it.

Note: jvp formulas
Every differentiable op declares ``jvp(self, tangents, primals, result)`` right after its
``backward``. ``tangents`` holds one entry per input (None where the input has no tangent or
is not a tensor), ``primals`` the inputs as given (for an in-place op, ``self`` as it was
before), ``result`` the op's output (a tuple for multi-output ops). It returns the result's
tangent (a tuple, None for outputs without one), or None when no tangent reaches the result.
Formulas are written with Tensor ops on plain values: the inner ops propagate no tangents of
their own, but are recorded when grad mode is on, so a tangent can be differentiated in reverse
mode (reverse-over-forward), and backward formulas run on dual tensors give tangents to
gradients (forward-over-reverse).

``self`` is a throwaway instance of the op class that answers what a backward formula asks:
``self.saved(name)`` for input names and ``"result"``, ``self._params``, ``self.needs_grad(i)``
(input ``i`` has a tangent) and ``self.input_shape(i)``. So, as in torch's derivatives.yaml,
an elementwise op can state ``jvp = auto_element_wise`` (its backward applied to the tangent)
and a linear op ``jvp = auto_linear`` (the op itself applied to the tangents).

Note: zero tangents
torch gives a formula a zero tensor (a ZeroTensor, which costs no arithmetic) for each input
without a tangent. leafgrad passes None instead and skips those terms (``jvp_sum``), unless
the formula is recorded (grad mode on and some input or tangent requires grad): then real zeros
are passed, as torch's are recorded, so a tangent's ``requires_grad`` and ``grad_fn`` are
torch's (``x * 2`` with ``x`` requiring grad: ``AddBackward0``). Python numbers in an op's
tensor positions count as inputs (torch's wrapped numbers).

Around every formula, as torch does: a tangent that is one of the inputs' tangent objects is
copied (a result never aliases an input's tangent unless it is a view of it); a tangent
smaller than its result (a broadcast input) is expanded into a new tensor; and when every
input tangent has its primal's dtype the result's tangent gets the result's dtype (torch's
zero tangents promote it so).
"""

from __future__ import annotations

import numpy as np
from .. import _dtype as _dtype

from ..autograd.forward_ad import get_tangent, set_tangent, state
from ..autograd.grad_mode import state as _grad_state
from ..autograd._vmap_state import state as _vmap_state
from ..autograd.graph import SavedTensor
from ..tensor import Tensor, _wrap
from .registry import Op
from ._promote import result_np_dtype
from ._layout import empty_like_source

__all__ = ["dual_apply", "dual_inplace", "auto_linear", "auto_element_wise", "jvp_sum"]


# -- helpers for formulas --------------------------------------------------------------------------


def jvp_sum(tangents, *terms):
    """``sum(term_i(tangent_i))`` over the inputs that have a tangent; None if none has.

    The JVP of an op is linear in the tangents: one term per input, skipped when that input's
    tangent is absent (see Note: zero tangents).
    """
    total = zero = None
    for tangent, term in zip(tangents, terms):
        if tangent is None or term is None:
            continue
        if tangent.__class__ is ZeroPromotion:  # (Note: numbers under torch.func.jvp)
            if total is None:
                zero = tangent
            else:
                total = _promoted_with(total, tangent)
            continue
        value = term(tangent)
        total = value if total is None else total + value
        if zero is not None:
            total, zero = _promoted_with(total, zero), None
    return total


def auto_element_wise(self, tangents, primals, result):
    """torch's ``auto_element_wise``: the backward formula applied to the tangent (the Jacobian
    of an elementwise single-input op is diagonal, so its transpose is itself). With complex
    numbers the backward carries conjugates (Note: torch's convention for complex gradients,
    ops/complex.py), so the tangent goes through conj(backward(conj(tangent))), as in torch."""
    tangent = tangents[0]
    if tangent._data.dtype.kind == "c" or result._data.dtype.kind == "c":
        from .complex import conj

        return conj(self.backward(conj(tangent)))
    return self.backward(tangent)


def auto_linear(self, tangents, primals, result):
    """torch's ``auto_linear``: the op applied to the tangents with the same parameters (inputs
    without a tangent count as zeros)."""
    cls = type(self)
    args = []
    for tangent, primal in zip(tangents, primals):
        if tangent is not None or not isinstance(primal, Tensor):
            args.append(tangent if tangent is not None else primal)
        else:
            args.append(_zeros_like(primal))
    return cls.apply(*args, **self._params)


def jvp_by_decomposition(function, primals, tangents) -> tuple:
    """The output tangents of ``function(*primals)``, a Tensor-op decomposition of a fused op,
    run in forward mode (torch's forward mode differentiates such ops through the ops they
    decompose into). Each input with a tangent enters as a recorded alias carrying it."""
    duals = []
    for primal, tangent in zip(primals, tangents):
        if tangent is None:
            duals.append(primal)
            continue
        dual = FwPrimal.apply(primal)
        set_tangent(dual, tangent)
        duals.append(dual)
    state.active = True
    try:
        outputs = function(*duals)
    finally:
        state.active = False
    if isinstance(outputs, Tensor):
        return get_tangent(outputs)
    return tuple(get_tangent(out) for out in outputs)


def _zeros_like(tensor: Tensor) -> Tensor:
    return _wrap(np.zeros(tensor._data.shape, tensor._data.dtype))


def logsumexp_jvp(x: Tensor, tangent: Tensor, dims: tuple, keepdim: bool) -> Tensor:
    """torch's ``logsumexp_jvp``: ``sum(exp(x - amax) * t) / sum(exp(x - amax))`` over
    ``dims`` (shared by softmax, log_softmax and logsumexp)."""
    if x.numel() > 0:
        exps = (x - x.amax(dims, keepdim=True)).exp()
    else:
        exps = x.exp()
    return (exps * tangent).sum(dims, keepdim=keepdim) / exps.sum(dims, keepdim=keepdim)


def zeros_tangent(tensor: Tensor) -> Tensor:
    """A zero tangent for ``tensor`` (formulas that need every input's tangent)."""
    return _zeros_like(tensor)


def filled(tangents, primals) -> list:
    """The tangents with zeros for tensor inputs that have none (torch's zero tensors), for
    formulas that select between tangents rather than sum them."""
    return [t if t is not None or not isinstance(p, Tensor) else _zeros_like(p)
            for t, p in zip(tangents, primals)]


def empty_strided_like(tensor: Tensor, dtype=None) -> Tensor:
    """An uninitialised tensor with ``tensor``'s shape and strides (torch's
    ``new_empty_strided(sizes, strides)``), in ``dtype`` (default: ``tensor``'s)."""
    data = tensor._data
    np_dtype = data.dtype if dtype is None else dtype.np
    strides = tensor.stride()
    if data.size == 0 or any(s <= 0 for s in strides) or data.flags.c_contiguous:
        array = np.empty(data.shape, np_dtype)
        kept = empty_like_source(array, data)  # an empty tensor's own strides, as torch
        return _wrap(array if kept is None else kept)
    span = 1 + sum((size - 1) * stride for size, stride in zip(data.shape, strides))
    itemsize = np.dtype(np_dtype).itemsize
    storage = np.empty(span, np_dtype)
    array = np.lib.stride_tricks.as_strided(
        storage, data.shape, tuple(s * itemsize for s in strides), writeable=True)
    return _wrap(array)


# -- unpack_dual's primal --------------------------------------------------------------------------


class FwPrimal(Op):
    """The primal ``unpack_dual`` returns: a view without the tangent (torch's ``_fw_primal``,
    whose node is a C++ function torch names ``torch::autograd::Identity``, printed as
    ``grad_fn=<Identity>``).

    Machinery of forward_ad rather than an op of the table (like CopySlices for in-place
    ops): it only exists inside a dual level, where the table's samples cannot open one.
    """

    node = "CppFunction"
    qualified_name = "torch::autograd::Identity"
    is_view = True
    complex_ok = True  # a view: any dtype (a complex dual's primal: jvp of a * 1j)
    _save_plan = ()

    @staticmethod
    def forward(ctx, a):
        return a.view()

    def backward(self, grad):
        return grad

    def jvp(self, tangents, primals, result):
        return None  # the primal of a dual tensor has no tangent at its level


FwPrimal.op_name = "FwPrimal"
FwPrimal.__name__ = FwPrimal.__qualname__ = "CppFunction"


# -- running an op on dual tensors -----------------------------------------------------------------


def _no_formula(cls):
    raise NotImplementedError(
        f"Trying to use forward AD with {cls.op_name} that does not support it because it has "
        "not been implemented yet."
    )


def _context(cls, primals, tangents, params, result):
    """The ``self`` a jvp formula gets (see Note: jvp formulas)."""
    ctx = cls.__new__(cls)
    ctx._seq = -1
    ctx._hookset = None
    ctx._params = params
    saved = {}
    names = cls.inputs
    meta = []
    edges = []
    for index, (primal, tangent) in enumerate(zip(primals, tangents)):
        if index < len(names):
            saved[names[index]] = primal
        if isinstance(primal, Tensor):
            meta.append((primal._data.shape, primal._data.dtype))
        else:
            meta.append(None)
        edges.append((True, 0) if tangent is not None else (None, 0))
    saved["result"] = result
    ctx._saved = saved
    ctx._input_meta = meta
    ctx.next_functions = tuple(edges)
    return ctx


def _finish(tangent, result: Tensor, primals, tangents, target=None):
    """The rules applied to every formula's output (see Note: jvp formulas); ``target``: the
    dtype the formula's operands promote to, when it is not the result's (see Note: numbers
    under torch.func.jvp)."""
    if tangent is None:
        return None
    for given in tangents:
        if tangent is given:
            tangent = tangent.clone()
            break
    dtype = result._data.dtype if target is None else target
    if tangent._data.dtype != dtype and not _tangent_dtypes_match(primals, tangents):
        tangent = _promoted_by_zeros(tangent, result, primals, tangents)
    shape = result._data.shape
    if tangent._data.shape != shape:
        tangent = tangent.expand(shape).clone()
    if tangent._data.dtype.kind == "c" and dtype.kind != "c":
        tangent = tangent.real  # a real output's tangent is real (torch's handle_r_to_c)
    if tangent._data.dtype != dtype and _tangent_dtypes_match(primals, tangents):
        tangent = _wrap(tangent._data.astype(dtype)) if target is not None else \
            tangent.to(result.dtype)
    return tangent


class _Term:
    """What ``_dtype.result_type`` ranks: a zero tangent's term of a formula."""

    __slots__ = ("dtype", "ndim")

    def __init__(self, dtype, ndim: int) -> None:
        self.dtype, self.ndim = dtype, ndim


def _promoted_by_zeros(tangent, result, primals, tangents):
    """A tangent of another dtype than its primal's (a float64 tangent of a 0-d float32
    primal) promotes with the terms torch's zero tangents of the other inputs add: one of the
    result's dtype and that input's rank (jvp of ``a + b``, ``a`` 0-d with a float64 tangent
    and ``b`` a float32 vector without one, is float32 as ``t + zeros_like(b)``)."""
    terms = [_Term(result.dtype, primal._data.ndim) for primal, given in zip(primals, tangents)
             if given is None and isinstance(primal, Tensor)
             and _dtype.kind(primal._data) in "fc"]
    if not terms:
        return tangent
    dtype = _dtype.result_type(tangent, *terms)
    return tangent if dtype == tangent.dtype else tangent.to(dtype)


# Note: numbers under torch.func.jvp
# A Python number given to add/sub/mul/div is a wrapped number: a 0-d tensor that promotes
# weakly (float32 tensor * 1.5 is float32). Under torch.func.jvp, functorch lifts it into its
# level, and its zero tangent (a ZeroTensor: its terms vanish without arithmetic, signs of zero
# kept) is a plain 0-d tensor (float64 for a float, int64 for an int, complex128, bool) that
# promotes as any 0-d tensor where its term joins the formula: the primal of a 0-d float32
# ``a * 1.5`` is float32 and its tangent ``t * 1.5`` computed in float32, then float64;
# ``a / 3.0``'s is ``(t - 0 * result) / 3.0``, so ``t`` in float64 divided in float64. A tangent
# of one dimension or more keeps its dtype (0-d operands do not promote it). rsub, pow, clamp,
# where and the other ops taking a Scalar do not lift it, nor does autograd.forward_ad, nor
# do the in-place forms (a tangent keeps its tensor's dtype). Where the formula is recorded,
# the zero tangent is a real zero tensor (``_recorded_zeros``), as torch's are.

_LIFTED = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


class ZeroPromotion:
    """The zero tangent of a lifted number in ``jvp_sum``: its term is left out, and the sum
    so far is promoted with a 0-d tensor of ``dtype`` where it joins (see Note: numbers under
    torch.func.jvp)."""

    __slots__ = ("dtype", "ndim")

    def __init__(self, dtype) -> None:
        self.dtype, self.ndim = dtype, 0


def _promoted_with(total, zero: ZeroPromotion):
    dtype = _dtype.result_type(total, zero)
    return total if dtype == total.dtype else total.to(dtype)


def _lifted_numbers(cls, args, tangents):
    """``tangents`` with a zero tangent for each Python number in a tensor position that has
    none (see Note: numbers under torch.func.jvp), and the dtype the formula's terms promote to
    (None when there is no number)."""
    positions = len(cls.inputs)
    operands = None
    for index, arg in enumerate(args[:positions]):
        dtype = _LIFTED.get(arg.__class__)
        if dtype is None:
            continue
        if operands is None:
            operands, tangents = list(args[:positions]), list(tangents)
        operands[index] = zero = _wrap(np.zeros((), dtype))
        if tangents[index] is None:
            tangents[index] = ZeroPromotion(zero.dtype)
    if operands is None:
        return args, tangents, None

    target = result_np_dtype(*(value._data for value in operands if isinstance(value, Tensor)))
    return args, tangents, target


def _tangent_dtypes_match(primals, tangents) -> bool:
    for primal, tangent in zip(primals, tangents):
        if (tangent is not None and isinstance(primal, Tensor)
                and tangent._data.dtype != primal._data.dtype):
            return False
    return True


def _recorded_zeros(cls, args, tangents: list) -> list:
    """See Note: zero tangents."""
    if not _grad_state.grad_enabled:
        return tangents
    for value in (*args, *tangents):
        if isinstance(value, Tensor) and value._requires_grad:
            break
    else:
        return tangents
    filled = list(tangents)
    positions = len(cls.inputs)
    for index, (arg, tangent) in enumerate(zip(args, tangents)):
        if tangent is not None:
            continue
        if isinstance(arg, Tensor):
            if _dtype.kind(arg._data) in "fc":
                filled[index] = _zeros_like(arg)
        elif index < positions and isinstance(arg, (int, float)) and not isinstance(arg, bool):
            filled[index] = _wrap(np.zeros((), np.float64 if isinstance(arg, float)
                                           else np.int64))
    return filled


def _input_tangents(args) -> list | None:
    tangents = None
    for index, arg in enumerate(args):
        if isinstance(arg, Tensor):
            tangent = get_tangent(arg)
            if tangent is not None:
                if tangents is None:
                    tangents = [None] * len(args)
                tangents[index] = tangent
    return tangents


def dual_apply(cls, args: tuple, params: dict):
    """``cls.apply`` inside a dual level: the primal result, then its tangent."""
    tangents = _input_tangents(args)
    state.active = False
    try:
        result = cls.apply(*args, **params)
        if tangents is None or not cls.differentiable:
            return result
        jvp = getattr(cls, "jvp", None)
        if jvp is None:
            _no_formula(cls)
        outputs = result if cls.multi_output else (result,)
        if not any(_dtype.kind(out._data) in "fc" for out in outputs):
            return result
        target = None
        if cls.lifts_numbers and state.functorch:
            tangents = _recorded_zeros(cls, args, tangents)
            args, tangents, target = _lifted_numbers(cls, args, tangents)
        else:
            tangents = _recorded_zeros(cls, args, tangents)
        ctx = _context(cls, args, tangents, params, result)
        out_tangents = jvp(ctx, tangents, args, result)
        if not cls.multi_output:
            out_tangents = (out_tangents,)
        for out, tangent in zip(outputs, out_tangents):
            if _dtype.kind(out._data) not in "fc":
                continue
            tangent = _finish(tangent, out, args, tangents, target)
            if tangent is not None and _vmap_state.active and not cls.is_view:
                tangent = _in_torch_layout(out, tangent)
            if tangent is not None:
                set_tangent(out, tangent)
        node = next((out._node for out in outputs if out._node is not None), None)
        _keep_saved_tangents(node, cls, outputs)
    finally:
        state.active = True
    return result


def _in_torch_layout(out: Tensor, tangent: Tensor) -> Tensor:
    """A physical op's tangent inside vmap, laid out as torch lays out a batched tangent
    (Note: batched tangents in the primal's layout, _batching.py)."""
    from ._batching import in_primal_layout, physical_tangent_front

    front = physical_tangent_front()
    if not front or out._data.ndim < len(front):
        return tangent
    return in_primal_layout(out, tangent, front)


def _keep_saved_tangents(node, cls, outputs) -> None:
    """An output the node saved for its backward keeps its tangent when unpacked (torch's
    SavedVariable saves the forward grad), so that a backward run on dual tensors gives its
    gradients tangents (forward-over-reverse). Saved outputs are stored as data and rebuilt on
    unpack; those with a tangent become a stand-in tensor that carries it."""
    if node is None or type(node) is not cls:
        return
    saved = node._saved
    if not saved:
        return
    for name, value in list(saved.items()):
        if type(value) is not SavedTensor or value.output_nr is None:
            continue
        tangent = getattr(outputs[value.output_nr], "_fw_grad", None)
        if tangent is None:
            continue
        saved[name] = _saved_with_tangent(value, node, tangent)


def _saved_with_tangent(value: SavedTensor, node, tangent) -> SavedTensor:
    stand_in = SavedTensor.rebuild_output(value.data, value.version_counter, node,
                                          value.output_nr)
    set_tangent(stand_in, tangent)
    kept = SavedTensor(stand_in)
    kept.version = value.version
    return kept


# -- in-place ops on dual tensors ------------------------------------------------------------------


def dual_inplace(op, target: Tensor, others: tuple, params: dict) -> Tensor:
    """``inplace(op, target, *others)`` inside a dual level: the primal is updated, then the
    target's tangent, in place when it has one (so views of it see the change); a target
    without one gets the new tangent, through its base's when it is a view (torch's rules)."""
    from .inplace import inplace

    target_tangent = get_tangent(target)
    tangents = _input_tangents((target,) + others)
    state.active = False
    try:
        if tangents is None or not op.differentiable:
            return inplace(op, target, *others, **params)
        jvp = getattr(op, "jvp", None)
        if jvp is None:
            _no_formula(op)
        # the formula sees self as it was; the copy carries self's history (like inplace's
        # own stand-in), so the tangent is differentiable through it
        history = target._history()
        old = _wrap(target._data.copy(), target._requires_grad, history)
        old._output_nr = target._output_nr
        old_tangent = None
        if target_tangent is not None:
            # the tangent is about to be overwritten: the formula, and the old value the node
            # saves, read a copy (torch clones self and self_t before an in-place op too)
            old_tangent = tangents[0] = target_tangent.clone()
        inplace(op, target, *others, **params)
        primals = (old,) + others
        tangents = _recorded_zeros(op, primals, tangents)
        ctx = _context(op, primals, tangents, params, target)
        tangent = jvp(ctx, tangents, primals, target)
        if tangent is None:
            return target
        if target_tangent is not None:
            target_tangent.copy_(tangent)
        elif getattr(op, "tangent_from_source", False):
            _set_source_tangent(target, tangent)
        else:
            _set_inplace_tangent(target, _finish(tangent, target, primals, tangents))
        _keep_inplace_saved_tangents(target, op, old_tangent)
    finally:
        state.active = True
    return target


def _same_meta(a: Tensor, b: Tensor) -> bool:
    return (a.shape == b.shape and a.stride() == b.stride()
            and a.storage_offset() == b.storage_offset())


def _set_source_tangent(target: Tensor, source: Tensor) -> None:
    """Note: copy_'s tangent
    A target without a tangent takes the source's tangent as torch's copy_ formula and
    set_fw_grad leave it: a clone of it (its dtype: a float32 tensor may get a float64
    tangent), kept as is when its sizes, strides and offset are the target's (and, for a view,
    its base's: then it is the base's tangent too); otherwise a tensor of the target's meta
    and dtype holding it (for a view, a view of a zero tangent of its base)."""
    from .. import empty_strided

    tangent = source.clone()
    base = target._base
    if base is None:
        if not _same_meta(tangent, target):
            fresh = empty_strided(tuple(target.shape), target.stride(), dtype=target.dtype)
            tangent = fresh.copy_(tangent)
        set_tangent(target, tangent)
        return
    if get_tangent(base) is None and _same_meta(tangent, base) and _same_meta(tangent, target):
        set_tangent(base, tangent)
        set_tangent(target, tangent)
        return
    _set_inplace_tangent(target, tangent.to(target.dtype))


def _set_inplace_tangent(target: Tensor, tangent: Tensor) -> None:
    base = target._base
    if base is None:
        set_tangent(target, tangent)
        return
    from .shape import replay

    # the base gets a zero tangent and the view's tangent is the matching view of it
    base_tangent = _wrap(np.zeros(base._data.shape, tangent._data.dtype))
    set_tangent(base, base_tangent)
    view_tangent = replay(base_tangent, target._view_steps)
    view_tangent.copy_(tangent)
    set_tangent(target, view_tangent)


def _keep_inplace_saved_tangents(target: Tensor, op, old_tangent) -> None:
    """The op's node saved the target's old value (a stand-in copy) and its new value: both
    keep their tangents, for a backward run on dual tensors."""
    node = target._node
    if target._base is not None:
        base_fn = target._base._node
        node = getattr(base_fn, "_op_node", None)  # CopySlices wraps the op's node
    if node is None or type(node) is not op or not node._saved:
        return
    _keep_saved_tangents(node, op, (target,))
    stand_in = node._saved.get("self")
    if old_tangent is not None and type(stand_in) is SavedTensor and stand_in.tensor is not None:
        set_tangent(stand_in.tensor, old_tangent)


def zero_tangent(tensor: Tensor) -> None:
    """Random fills (``uniform_``...) zero the tangent, as torch's ``self_t.zero_()``."""
    tangent = get_tangent(tensor)
    if tangent is not None:
        state.active = False
        try:
            tangent.zero_()
        finally:
            state.active = True
