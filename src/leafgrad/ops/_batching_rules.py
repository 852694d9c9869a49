"""Batching rules an op class declares as ``vmap`` (see Note: batched tensors in _batching.py).

A rule is called as ``rule(cls, args, params)`` with some arguments batched; it calls the op
(or a few ops) once on physical tensors whose batch dims are in front and returns the batched
result. Most ops need one of a handful of generic rules, built here from what the op declares:

- ``elementwise``: broadcasting ops; batched operands get size-1 dims for levels they lack and
  their logical rank padded, so NumPy's broadcasting lines examples up.
- ``dims("dim", ...)``: ops that act along named dims and treat the others independently
  (reductions, scans, softmax, cat, gather, transpose...): the named dims are shifted past the
  batch dims; every tensor operand is expanded to the full batch.
- ``shape("shape")``: view/expand/reshape-like ops: the batch sizes are prepended.
- ``leading``: ops that act on trailing dims and accept any leading dims (linalg, padding,
  layer_norm): the physical tensor is passed as it is.
- ``fold(rank)``: ops with a fixed-rank layout (conv, pooling): the batch is folded into N.
- ``reduce_all(op, "dim")``: full reductions, as the op's dim form over the flattened example.
- ``decompose(function)``: the op written with other ops on batched tensors (addmm as mm + add).
A rule returns NotImplemented for a case it does not cover; the op then runs once per example
(``fallback`` in _batching.py).
"""

from __future__ import annotations

import inspect
import weakref

import numpy as np

from ..autograd._vmap_state import per_example as _per_example
from ..autograd.forward_ad import state as _fw_state
from ..tensor import Tensor
from ._batching import (
    BatchedTensor,
    LogicalArray,
    align,
    all_levels,
    level_sizes,
    physical_param,
    wrap,
    wrap_result,
)
from .. import _dtype
from .registry import OPS
from ..autograd.function import Function

__all__ = ["elementwise", "dims", "shape", "leading", "fold", "reduce_all", "decompose",
           "permute", "matmul_like", "loss"]


def _logical_rank(value) -> int:
    if isinstance(value, Tensor):
        return value._data.ndim
    if isinstance(value, np.ndarray):
        return value.ndim
    return 0


def _is_batched(value) -> bool:
    return type(value) is BatchedTensor or (
        isinstance(value, LogicalArray) and type(value.batched) is BatchedTensor
    )


def elementwise(cls, args, params):
    levels = all_levels(args, params)
    rank = 0
    for value in (*args, *params.values()):
        if isinstance(value, (Tensor, np.ndarray)):
            rank = max(rank, _logical_rank(value))
    new_args = [align(a, levels, rank=rank) if type(a) is BatchedTensor else a for a in args]
    if cls.vmap_promotes_logically:
        new_args = _logically_promoted(args, new_args)
    new_params = {name: physical_param(v, levels, rank=rank) if _is_batched(v) else v
                  for name, v in params.items()}
    return wrap_result(cls.apply(*new_args, **new_params), levels)


# Note: type promotion under vmap
# torch's batching rule for binary pointwise ops promotes as the op would on one example: a
# batched tensor that is 0-d in each example (physically 1-d or more) is cast, before the op, to
# the dtype its example promotes to (recorded: ToCopyBackward0). Physically it has dims, so the
# op alone would promote by them: vmap(lambda r: r * f64_scalar)(f32_vector) is float64 in
# torch (each r is a 0-d float32), and f64_vector's examples times an f32 (2,) tensor float32.
# where, clamp and lerp promote the physical tensors (their own batching rules).


def _logically_promoted(args, physical):
    # (only an example's 0-d tensor ranks differently from its physical tensor)
    if not any(type(a) is BatchedTensor and a.ndim == 0 for a in args):
        return physical
    if sum(isinstance(a, Tensor) for a in args) < 2:
        return physical

    operands = [a for a in args if isinstance(a, (Tensor, bool, int, float, complex))]
    logical = _dtype.result_type(*operands)
    if logical is _dtype.complex32:  # (no such NumPy type: left to the physical promotion)
        return physical
    if logical == _dtype.result_type(*(p for a, p in zip(args, physical) if
                                       isinstance(a, (Tensor, bool, int, float, complex)))):
        return physical
    return [p.to(logical) if type(a) is BatchedTensor and a.ndim == 0 and a.dtype != logical
            else p for a, p in zip(args, physical)]


def _dim_error(dim, rank):
    low, high = (-1, 0) if rank == 0 else (-rank, rank - 1)
    return IndexError(
        f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
    )


def _shift(dim, rank: int, count: int):
    if isinstance(dim, (tuple, list)):
        return type(dim)(_shift(d, rank, count) for d in dim)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        return dim
    span = max(rank, 1)
    if dim < -span or dim >= span:
        raise _dim_error(dim, rank)
    return dim % span + count


def dims(*names, extra_rank: int = 0, sizes: str | None = None, all_dims: bool = False,
         none=None, arrays: tuple = ()):
    """The rule for ops acting along the dims named by the parameters ``names``.

    ``extra_rank``: the dims index a result one rank larger (unsqueeze, stack, diag_embed).
    ``sizes``: a parameter holding the input's shape (the backward ops) gets the batch sizes.
    ``all_dims``: a dim of None or () reduces every logical dim (the op accepts a tuple).
    ``none``: the rule for a dim of None (argmax over the flattened example).
    ``arrays``: array parameters laid out like the input (gather's index), expanded with it;
    any other batched array parameter (index_select's index) is left to the fallback.
    """

    def rule(cls, args, params):
        if none is not None and any(params.get(n, 0) is None for n in names):
            return none(cls, args, params)
        levels = all_levels(args, params)
        batch = level_sizes(args, params, levels)
        count = len(levels)
        first = args[0]
        rank = _logical_rank(first)
        pad = rank == 0 and extra_rank == 0
        target = 1 if pad else None
        new_args = [
            align(a, levels, batch, rank=target) if isinstance(a, Tensor) else a for a in args
        ]
        new_params = {}
        for name, value in params.items():
            if name in names:
                if value is None or (all_dims and value == ()):
                    if not all_dims:
                        return NotImplemented
                    value = tuple(range(max(rank, 1)))
                value = _shift(value, rank + extra_rank, count)
            elif name == sizes:
                value = tuple(batch) + tuple(value)
            elif name in arrays:
                if _is_batched(value):
                    value = physical_param(value, levels, batch, rank=target)
                else:
                    array = np.asarray(value)
                    if pad:
                        array = array.reshape((1,) * (1 - array.ndim) + array.shape)
                    value = np.broadcast_to(array, tuple(batch) + array.shape)
            elif _is_batched(value):
                return NotImplemented
            new_params[name] = value
        result = cls.apply(*new_args, **new_params)
        if pad:
            result = _unpad(result, count)
        return wrap_result(result, levels)

    return rule


def _unpad(result, count: int):
    if isinstance(result, (tuple, list)):
        return type(result)(_unpad(r, count) for r in result)
    if isinstance(result, Tensor) and result._data.ndim > count:
        return result.reshape(result._data.shape[:count])
    return result


def shape(name: str = "shape"):
    """The rule for ops given the result's shape (view, reshape, expand, repeat)."""

    def rule(cls, args, params):
        (value,) = args
        levels = value._levels
        target = tuple(params[name])
        count = len(levels)
        tensor = value._value
        if cls.op_name in ("Expand", "Repeat"):
            tensor = align(value, levels, rank=len(target))
            if cls.op_name == "Repeat":
                target = (1,) * count + target
            else:
                target = tensor._data.shape[:count] + target
        else:
            target = tensor._data.shape[:count] + target
        new = dict(params)
        new[name] = target
        return wrap(cls.apply(tensor, **new), levels)

    return rule


def leading(cls, args, params):
    """Ops on trailing dims that take any leading dims: the physical tensors as they are
    (every tensor operand expanded to the full batch)."""
    levels = all_levels(args, params)
    batch = level_sizes(args, params, levels)
    new_args = [align(a, levels, batch) if isinstance(a, Tensor) else a for a in args]
    new_params = {name: physical_param(v, levels, batch) if _is_batched(v) else v
                  for name, v in params.items()}
    return wrap_result(cls.apply(*new_args, **new_params), levels)


def leading_first(cls, args, params):
    """``leading`` for ops whose later tensor operands are per-channel parameters (weights,
    biases): only the first operand may be batched."""
    if any(type(a) is BatchedTensor for a in args[1:]) or any(
            _is_batched(v) for v in params.values()):
        return NotImplemented
    value = args[0]
    return wrap_result(cls.apply(value._value, *args[1:], **params), value._levels)


def fold(rank, batched_params: tuple = ()):
    """Ops with an N-first layout of ``rank`` dims (N, C, spatial...; ``"spatial"``: the
    ``spatial`` parameter + 2) that also accept an input without N (``rank`` None: N is
    always there): the batch dims are folded into N, weights and biases unbatched."""

    def rule(cls, args, params):
        value = args[0]
        if type(value) is not BatchedTensor or any(type(a) is BatchedTensor for a in args[1:]):
            return NotImplemented
        full = rank
        if rank == "spatial":
            full = params["spatial"] + 2
        for name, param in params.items():
            if _is_batched(param) and name not in batched_params:
                return NotImplemented
        levels = value._levels
        count = len(levels)
        tensor = value._value
        data_shape = tensor._data.shape
        batch, logical = data_shape[:count], data_shape[count:]
        has_n = full is None or len(logical) == full
        # (sizes spelled out: -1 is ambiguous for an empty batch)
        examples = int(np.prod(batch)) * (logical[0] if has_n else 1)
        folded = tensor.reshape((examples,) + logical[1:] if has_n else (examples,) + logical)
        new_params = {}
        for name, param in params.items():
            if _is_batched(param):
                array = physical_param(param, levels, batch)
                param = array.reshape((examples,) + array.shape[count + 1:] if has_n
                                      else (examples,) + array.shape[count:])
            new_params[name] = param
        result = cls.apply(folded, *args[1:], **new_params)

        def unfold(out):
            if not isinstance(out, Tensor):
                return out
            rest = out._data.shape[1:]
            shape = batch + ((logical[0],) if has_n else ()) + rest
            return wrap(out.reshape(shape), levels)

        if isinstance(result, tuple):
            return tuple(unfold(r) for r in result)
        return unfold(result)

    return rule


def reduce_all(op_name: str, *, dim: str = "dim", **fixed):
    """A full reduction: the op's dim form over the flattened example."""

    def rule(cls, args, params):
        value = args[0]
        levels = value._levels
        count = len(levels)
        tensor = value._value
        # (the example's size spelled out: -1 is ambiguous for an empty batch)
        flat = tensor.reshape(tensor._data.shape[:count] + (value._data.size,))
        new = dict(params)
        new.pop(dim, None)
        new.update(fixed)
        new[dim] = (count,) if op_name in ("SumDim", "MeanDim", "Amax", "Amin") else count
        # (unwrapped: a bfloat16 process wraps the forwards, see ops/_bfloat16.py)
        if "keepdim" in inspect.unwrap(OPS[op_name].forward).__code__.co_varnames:
            new.setdefault("keepdim", False)
        result = OPS[op_name].apply(flat, **new)
        if isinstance(result, tuple):
            result = result[0]
        if params.get("keepdim"):
            result = result.reshape(result._data.shape[:count] + (1,) * value._data.ndim)
        return wrap(result, levels)

    return rule


def decompose(function):
    """A rule that writes the op with other ops on the (batched) arguments."""

    def rule(cls, args, params):
        return function(*args, **params)

    return rule


def permute(cls, args, params):
    (value,) = args
    count = len(value._levels)
    rank = value._data.ndim
    order = tuple(range(count)) + tuple(_shift(d, rank, count) for d in params["dims"])
    return wrap(cls.apply(value._value, dims=order), value._levels)


def matmul_like(cls, args, params):
    """mm, mv, dot, bmm: torch.matmul on the physical tensors (a batch folds into rows when
    the other operand is unbatched); both batched: batched matrix products."""
    from .linalg import matmul

    a, b = args
    levels = all_levels(args, params)
    batch = level_sizes(args, params, levels)
    name = cls.op_name
    if type(b) is not BatchedTensor and name == "Mm" and _fw_state.level is not None and \
            b._data.ndim == 2 and _entered(a._value, len(levels)):
        # a primal vmap(jvp) batched only to carry its tangents (batched_make_dual): torch's
        # primal is one matrix and its batched tangent's product folds into mm; so fold this
        # one too (matmul would keep the stride-0 batch and take bmm, other last bits)
        physical_a = a._value
        rows = physical_a.reshape(-1, physical_a.shape[-1])
        out = matmul(rows, b).view(*physical_a.shape[:-1], b.shape[-1])
    elif type(b) is not BatchedTensor:
        out = matmul(a._value, b)
    elif type(a) is not BatchedTensor and name in ("Mm", "Bmm"):
        out = matmul(a, b._value)
    elif type(a) is not BatchedTensor and name in ("Mv", "Dot") and len(levels) == 1:
        # torch's rules: mv(A, batched v) is mm(A, v.t()) with the batch dim moved to the front
        # (PermuteBackward0); dot(u, batched v) is matmul(u, v.t())
        out = matmul(a, b._value.t())
        if name == "Mv":
            out = out.permute(1, 0)
    else:
        pa = align(a, levels, batch)
        pb = align(b, levels, batch)
        recorded = _per_example() and (pa._requires_grad or pb._requires_grad)
        if name == "Mv" and recorded:
            out = _per_example_apply(name, _mv_values_entered, _mv_grads, pa, pb)
        elif name == "Mv":
            out = _mv_values(pa, pb)
        elif name == "Dot" and recorded:
            out = _per_example_apply(name, _dot_values_entered, _dot_grads, pa, pb)
        elif name == "Dot":  # torch's rule (its squeezes: SqueezeBackward1)
            out = matmul(pa.unsqueeze(-2), pb.unsqueeze(-1)).squeeze(-1).squeeze(-1)
        elif name == "Vdot" and recorded:
            out = _per_example_apply(name, _vdot_values, _vdot_grads, pa, pb)
        elif name == "Vdot":
            out = _vdot_values(pa, pb)
        elif name == "Mm" and recorded:
            out = _per_example_apply(name, _mm_values, _mm_grads, pa, pb)
        elif name == "Bmm" and recorded:
            out = _per_example_apply(name, matmul, _mm_grads, pa, pb)
        else:
            out = matmul(pa, pb)
    return wrap(out, levels)


def _entered(t: Tensor, count: int) -> bool:
    """Whether a batched operand is one tensor expanded over the ``count`` batch dims (stride
    0): an unbatched input that func.grad batched only to differentiate it (Note: levels
    without level tensors, func/_transforms.py), which torch's rules see unbatched."""
    return count > 0 and all(stride == 0 for stride in t._data.strides[:count])


def _mm_values(a: Tensor, b: Tensor) -> Tensor:
    """mm's values under vmap(grad): an entered operand (_entered) is one matrix for torch, so
    its rule is matmul(batched, matrix), whose batch folds into rows (or matmul(matrix,
    batched)); the operands as the rule sees them, not requiring grad (matmul folds a
    3-d @ 2-d product whose matrix requires grad, and only then, when the batch is strided)."""
    from .linalg import matmul

    a, b = a.detach(), b.detach()
    count = a._data.ndim - 2
    if _entered(b, count) and not _entered(a, count):
        return matmul(a, b[(0,) * count])
    if _entered(a, count) and not _entered(b, count):
        return matmul(a[(0,) * count], b)
    return matmul(a, b)


def _mv_values_entered(a: Tensor, b: Tensor) -> Tensor:
    """mv's values under vmap(grad) at one level: an entered matrix (_entered) takes torch's
    rule mm(A, v.t()).permute(1, 0); an entered vector, matmul(batched A, v)."""
    from .linalg import matmul

    a, b = a.detach(), b.detach()
    count = a._data.ndim - 2
    if count == 1 and _entered(a, count) and not _entered(b, count):
        return matmul(a[0], b.t()).permute(1, 0)
    if count == 1 and _entered(b, count) and not _entered(a, count):
        return matmul(a, b[0])
    return _mv_values(a, b)


def _dot_values_entered(a: Tensor, b: Tensor) -> Tensor:
    """dot's values under vmap(grad) at one level: an entered vector (_entered) takes torch's
    rules, matmul(u, v.t()) or matmul(u, v)."""
    from .linalg import matmul

    a, b = a.detach(), b.detach()
    count = a._data.ndim - 1
    if count == 1 and _entered(a, count) and not _entered(b, count):
        return matmul(a[0], b.t())
    if count == 1 and _entered(b, count) and not _entered(a, count):
        return matmul(a, b[0])
    return _dot_values(a, b)


def _dot_values(a: Tensor, b: Tensor) -> Tensor:
    from .linalg import matmul

    return matmul(a.unsqueeze(-2), b.unsqueeze(-1)).squeeze(-1).squeeze(-1)


def _mv_values(a: Tensor, b: Tensor) -> Tensor:
    from .linalg import matmul

    return matmul(a, b.unsqueeze(-1)).squeeze(-1)


def _dot_grads(a: Tensor, b: Tensor, grad: Tensor) -> tuple:
    grad = grad.unsqueeze(-1)  # torch's DotBackward0: grad * other.conj() for each
    return grad * b.conj(), grad * a.conj()


def _mv_grads(a: Tensor, b: Tensor, grad: Tensor) -> tuple:
    # torch's MvBackward0: grad.ger(vec.conj()) (an outer product: elementwise, keeps -0) and
    # self.conj().t().mv(grad)
    return grad.unsqueeze(-1) * b.conj().unsqueeze(-2), _mv_values(a.conj().transpose(-1, -2),
                                                                     grad)


def _vdot_values(a: Tensor, b: Tensor) -> Tensor:
    return _dot_values(a.conj(), b)


def _vdot_grads(a: Tensor, b: Tensor, grad: Tensor) -> tuple:
    # torch's VdotBackward0: grad.conj() * other and grad * self, for each example
    return grad.conj().unsqueeze(-1) * b, grad.unsqueeze(-1) * a


def _example_mm(x: Tensor, y: Tensor) -> Tensor:
    """Each example's mm as torch's kernel gives it: a product over a size-1 dim is the
    elementwise product (it keeps -0), where a batched product would sum it into +0."""
    from .linalg import matmul

    if x.shape[-1] == 1:
        return x * y
    return matmul(x, y)


def _mm_grads(a: Tensor, b: Tensor, grad: Tensor) -> tuple:
    # torch's MmBackward0: grad.mm(mat2.t().conj()) and self.t().conj().mm(grad), per example
    return (_example_mm(grad, b.transpose(-1, -2).conj()),
            _example_mm(a.transpose(-1, -2).conj(), grad))


_PER_EXAMPLE: dict = {}


def _per_example_apply(name: str, values, grads, a: Tensor, b: Tensor) -> Tensor:
    """A batched product recorded with the op's own backward formula per example (Note:
    per-example backward formulas, autograd/_vmap_state.py): the values of torch's batched
    matmul, the gradients torch's node gives each example."""
    function = _PER_EXAMPLE.get(name)
    if function is None:
        class PerExample(Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return values(a, b)

            @staticmethod
            def backward(ctx, grad):
                return grads(*ctx.saved_tensors, grad)

        function = _PER_EXAMPLE[name] = PerExample
    return function.apply(a, b)


# the nodes of losses whose 'mean' the rule below took per example: torch's autograd recorded
# the loss with its 'mean' reduction, above the batching
MEAN_PER_EXAMPLE = weakref.WeakSet()


def loss(cls, args, params):
    """Elementwise losses: per-example ``reduction='none'``, then each example reduced."""
    reduction = params.get("reduction", "mean")
    rank = max(_logical_rank(a) for a in args if isinstance(a, (Tensor, np.ndarray)))
    levels = all_levels(args, params)
    batch = level_sizes(args, params, levels)
    new_args = [align(a, levels, batch, rank=rank) if isinstance(a, Tensor) else a
                for a in args]
    new_params = {name: physical_param(v, levels, batch, rank=rank) if _is_batched(v) else v
                  for name, v in params.items()}
    new_params["reduction"] = "none"
    out = cls.apply(*new_args, **new_params)
    if reduction == "mean" and out._node is not None:
        MEAN_PER_EXAMPLE.add(out._node)  # (loss.py: _check_mse_forward_over_reverse)
    count = len(levels)
    if reduction != "none" and out._data.ndim > count:
        dims = tuple(range(count, out._data.ndim))
        out = out.sum(dims) if reduction == "sum" else out.mean(dims)
    elif reduction != "none":
        out = out.reshape(tuple(batch))
    return wrap(out, levels)


def _nll(a, weight, *, target, reduction, ignore_index):
    """nll_loss per example: 'none' over the batch, then each example's sum or weighted mean."""
    nll = OPS["NllLoss"]
    if type(weight) is BatchedTensor or type(a) is not BatchedTensor:
        return NotImplemented
    levels = a._levels
    count = len(levels)
    tensor = a._value
    batch = tensor._data.shape[:count]
    classes = tensor._data.shape[-1] if a._data.ndim else 1
    has_n = a._data.ndim == 2
    target_array = physical_param(target, levels, batch) if _is_batched(target) else \
        np.broadcast_to(np.asarray(target), batch + np.shape(target))
    flat = tensor.reshape(-1, classes)
    flat_target = np.ascontiguousarray(target_array).reshape(-1)
    out = nll.apply(flat, weight, target=flat_target, reduction="none",
                    ignore_index=ignore_index)
    out = out.reshape(batch + ((a._data.shape[0],) if has_n else ()))
    if reduction == "none":
        return wrap(out, levels)
    dims = tuple(range(count, out._data.ndim))
    total = out.sum(dims) if dims else out
    if reduction == "sum":
        return wrap(total, levels)
    valid = flat_target != ignore_index
    if weight is not None:
        safe = np.where(valid, flat_target, 0)
        per = np.where(valid, weight._data[safe], 0).astype(tensor._data.dtype)
    else:
        per = valid.astype(tensor._data.dtype)
    per = per.reshape(out._data.shape)
    norm = per.sum(axis=dims) if dims else per
    from ..tensor import _wrap

    return wrap(total / _wrap(np.asarray(norm, dtype=tensor._data.dtype)), levels)


nll_loss = decompose(_nll)


def _embedding(weight, *, indices, **params):
    if type(weight) is BatchedTensor:
        return _embedding_batched_weight(weight, indices, params)
    if not _is_batched(indices):
        return NotImplemented
    source = indices.batched
    array = physical_param(indices, source._levels)
    return wrap(OPS["Embedding"].apply(weight, indices=array, **params), source._levels)


def _embedding_batched_weight(weight, indices, params):
    """Each example looks rows up in its own weight: one advanced index over the flattened
    batch (its backward scatters into each example's rows). padding_idx and
    scale_grad_by_freq change the weight's gradient, so those calls take the loop."""
    padding = params.get("padding_idx")
    if (padding is not None and padding >= 0) or params.get("scale_grad_by_freq"):
        return NotImplemented
    levels = all_levels((weight,), {"indices": indices})
    sizes = level_sizes((weight,), {"indices": indices}, levels)
    total = int(np.prod(sizes))
    table = align(weight, levels, sizes)
    table = table.reshape((total,) + table._data.shape[len(levels):])
    if _is_batched(indices):
        rows = physical_param(indices, levels, sizes)
    else:
        rows = np.broadcast_to(np.asarray(indices), tuple(sizes) + np.shape(indices))
    rows = np.ascontiguousarray(rows).reshape((total,) + rows.shape[len(levels):])
    examples = np.arange(total).reshape((total,) + (1,) * (rows.ndim - 1))
    out = OPS["Index"].apply(table, index=(examples, rows.astype(np.int64)))
    return wrap(out.reshape(tuple(sizes) + out._data.shape[1:]), levels)


embedding = decompose(_embedding)


def _index_key(index) -> tuple | None:
    """The index with room for the batch dims in front, or None when NumPy would move the
    advanced indices to the front (they are not adjacent) or one of them is batched."""
    key = index if isinstance(index, tuple) else (index,)
    advanced = []
    for position, item in enumerate(key):
        if _is_batched(item) or type(item) is BatchedTensor:
            return None
        if isinstance(item, np.ndarray) or isinstance(item, (int, np.integer, list)):
            advanced.append(position)
    if any(isinstance(item, np.ndarray) or isinstance(item, list) for item in key):
        if advanced and advanced[-1] - advanced[0] != len(advanced) - 1:
            return None
    return key


def index(cls, args, params):
    (value,) = args
    key = _index_key(params["index"])
    if key is None or type(value) is not BatchedTensor:
        return NotImplemented
    count = len(value._levels)
    out = cls.apply(value._value, index=(slice(None),) * count + key)
    return wrap(out, value._levels)


def index_put(cls, args, params):
    value, values = args
    key = _index_key(params["index"])
    if key is None or type(value) is not BatchedTensor:
        return NotImplemented
    levels = value._levels
    if any(level not in levels for level in _levels_of(values)):
        return NotImplemented
    count = len(levels)
    indexed_rank = np.empty(value._data.shape, np.int8)[key].ndim
    if type(values) is BatchedTensor:
        values = align(values, levels, rank=indexed_rank)
    new = dict(params)
    new["index"] = (slice(None),) * count + key
    return wrap(cls.apply(value._value, values, **new), levels)


def _levels_of(value) -> tuple:
    return value._levels if type(value) is BatchedTensor else ()


def _t(a):
    if a.ndim < 2:
        return a.view_as(a) if a.ndim else a.view(())
    return a.transpose(0, 1)


t = decompose(_t)


def _squeeze_all(a):
    dims_ = tuple(i for i, size in enumerate(a.shape) if size == 1)
    return a.squeeze(dims_) if dims_ else a.view(a.shape)


squeeze_all = decompose(_squeeze_all)


def _trace(a):
    return a.diagonal().sum()


trace = decompose(_trace)


def addmm(cls, args, params):
    """addmm, addmv, baddbmm: ``beta * self + alpha * (mat1 @ mat2)``, each op batched."""
    bias, a, b = args
    product = OPS[{"Addmm": "Mm", "Addmv": "Mv", "Baddbmm": "Bmm"}[cls.op_name]].apply(a, b)
    alpha = params.get("alpha", 1)
    beta = params.get("beta", 1)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return product + (bias if beta == 1 else bias * beta)


def _fill_tensor(a, value):
    return value.to(a.dtype).expand(a.shape).clone()


fill_tensor = decompose(_fill_tensor)


def solve(cls, args, params):
    """linalg.solve(_triangular): ``leading``, with a vector B given a trailing matrix dim
    (B is a vector when it has one dim, or A's shape without the last, as torch decides) and
    both operands padded to one rank so that their own batch dims broadcast as torch's do."""
    a, b = args
    vector = cls.op_name == "LinalgSolveEx" and (b._data.ndim == 1 or (
        b._data.ndim == a._data.ndim - 1 and b._data.shape == a._data.shape[:-1]))
    axis = -1 if params.get("left", True) else -2
    if vector:
        b = b.unsqueeze(axis)
    levels = all_levels((a, b), params)
    batch = level_sizes((a, b), params, levels)
    rank = max(a._data.ndim, b._data.ndim)
    result = cls.apply(align(a, levels, batch, rank), align(b, levels, batch, rank), **params)
    if vector:
        if isinstance(result, tuple):
            result = (result[0].squeeze(axis),) + tuple(result[1:])
        else:
            result = result.squeeze(axis)
    return wrap_result(result, levels)


def _masked_fill_tensor(a, value, *, mask):
    from ..tensor import _wrap

    if isinstance(mask, LogicalArray) and type(mask.batched) is BatchedTensor:
        condition = mask.batched
    else:
        condition = _wrap(np.asarray(mask))
    return OPS["Where"].apply(value.to(a.dtype), a, condition=condition)


masked_fill_tensor = decompose(_masked_fill_tensor)


_fold_spatial = fold("spatial")


def convolution(cls, args, params):
    """conv1d/conv2d: an unbatched weight folds the batch into N; a batched weight (per-example
    gradients of a CNN) becomes one grouped convolution, each example's channels a group of
    its own weight's."""
    x, w, b = args
    if type(w) is not BatchedTensor and type(b) is not BatchedTensor:
        return _fold_spatial(cls, args, params)
    levels = all_levels(args, params)
    sizes = level_sizes(args, params, levels)
    count = len(levels)
    total = int(np.prod(sizes))
    has_n = x._data.ndim == params["spatial"] + 2
    px = align(x, levels, sizes)
    if not has_n:
        px = px.unsqueeze(count)
    shape = px._data.shape
    n, channels, space = shape[count], shape[count + 1], shape[count + 2:]
    px = px.reshape((total, n, channels) + space).movedim(0, 1)
    px = px.reshape((n, total * channels) + space)
    pw = align(w, levels, sizes)
    outs = pw._data.shape[count]
    pw = pw.reshape((total * outs,) + pw._data.shape[count + 1:])
    pb = None if b is None else align(b, levels, sizes).reshape(total * outs)
    new = dict(params)
    new["groups"] = params["groups"] * total
    out = cls.apply(px, pw, pb, **new)
    out_space = out._data.shape[2:]
    out = out.reshape((n, total, outs) + out_space).movedim(1, 0)
    out = out.reshape(tuple(sizes) + (n, outs) + out_space)
    if not has_n:
        out = out.squeeze(count)
    return wrap(out, levels)


def conv_input_grad(cls, args, params):
    """A convolution's input gradient of batched gradients (jacrev/vmap over a conv's vjp):
    the batch folded into N, the weight shared."""
    grad, weight = args
    spatial = params["spatial"]
    if type(grad) is not BatchedTensor or type(weight) is BatchedTensor:
        return NotImplemented
    levels = grad._levels
    count = len(levels)
    shape = grad._value._data.shape
    batch, logical = shape[:count], shape[count:]
    if len(logical) != spatial + 2 or len(params["input_shape"]) != spatial + 2:
        return NotImplemented
    folded = grad._value.reshape((int(np.prod(batch)) * logical[0],) + logical[1:])
    new = dict(params)
    new["input_shape"] = (folded._data.shape[0],) + tuple(params["input_shape"][1:])
    out = cls.apply(folded, weight, **new)
    return wrap(out.reshape(batch + (logical[0],) + out._data.shape[1:]), levels)


def conv_weight_grad(cls, args, params):
    """A convolution's weight gradient with batched gradients and/or inputs (jacrev over a
    conv's weights, per-example gradients): every example becomes its own set of groups of
    one grouped weight gradient, its input and gradient channels side by side."""
    x, grad = args
    spatial = params["spatial"]
    if x._data.ndim - (len(x._levels) if type(x) is BatchedTensor else 0) != spatial + 2:
        return NotImplemented  # an input without N
    levels = all_levels(args, params)
    sizes = level_sizes(args, params, levels)
    count = len(levels)
    total = int(np.prod(sizes))

    def side_by_side(value):  # (levels..., N, C, space) -> (N, total * C, space)
        physical_value = align(value, levels, sizes)
        shape = physical_value._data.shape
        n, channels, space = shape[count], shape[count + 1], shape[count + 2:]
        physical_value = physical_value.reshape((total, n, channels) + space).movedim(0, 1)
        return physical_value.reshape((n, total * channels) + space)

    new = dict(params)
    weight_shape = tuple(params["weight_shape"])
    new["weight_shape"] = (total * weight_shape[0],) + weight_shape[1:]
    new["groups"] = params["groups"] * total
    out = cls.apply(side_by_side(x), side_by_side(grad), **new)
    return wrap(out.reshape(tuple(sizes) + weight_shape), levels)


def affine(inner):
    """layer_norm / group_norm with a batched weight or bias (per-example gradients): the
    normalisation batched by ``inner`` without them, then the affine map as batched ops."""

    def rule(cls, args, params):
        x, weight, bias = args
        if type(weight) is not BatchedTensor and type(bias) is not BatchedTensor:
            return inner(cls, args, params)
        out = cls.apply(x, None, None, **params)
        shape = cls.affine_shape(tuple(x.shape), params)
        if weight is not None:
            out = out * weight.reshape(shape)
        if bias is not None:
            out = out + bias.reshape(shape)
        return out

    return rule


def view_as_complex(cls, args, params):
    """view_as_complex on the physical tensor, whose batch dims are already in front: as torch's
    rule, a batch dim moved there from after the pair dim leaves it a stride other than 1,
    which the physical tensor's check refuses with torch's message."""
    from .complex import check_view_as_complex

    value = args[0]
    check_view_as_complex(value._value)
    return wrap(cls.apply(value._value), value._levels)
