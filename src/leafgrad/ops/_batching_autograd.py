"""autograd on batched tensors: ``autograd.grad`` and ``make_dual`` inside vmap (see Note:
batched tensors in _batching.py)."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._batching import BatchedTensor, align, level_sizes, levels_of, physical, wrap

__all__ = ["batched_grad", "batched_make_dual"]


def batched_grad(outputs: tuple, inputs: tuple, grads: tuple, **options):
    """``autograd.grad`` inside vmap.

    Batch dims the outputs have are differentiated physically: each example's graph is
    separate, so one backward of the physical tensors gives every example's gradients. Levels
    only the grad_outputs have (vjp under vmap, jacrev, is_grads_batched) are run as torch
    does: the backward formulas themselves run on batched gradients, through the batching
    rules. When nothing but the grad_outputs is batched, the engine does that on its own."""
    from .._creation import ones_like
    from ..autograd import _grad as autograd_grad

    if not any(type(v) is BatchedTensor for v in outputs + inputs):
        return NotImplemented
    out_levels = set()
    for output in outputs:
        out_levels.update(levels_of(output))
    extra = set()
    for grad in grads:
        if grad is not None:
            extra.update(level for level in levels_of(grad) if level not in out_levels)
    extra = tuple(sorted(extra))
    physical_outputs = []
    physical_grads = []
    for index, (output, grad) in enumerate(zip(outputs, grads)):
        own = levels_of(output)
        tensor = physical(output)
        if grad is None:
            if output._data.size != 1 and tensor._requires_grad:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grad = ones_like(tensor) if tensor._requires_grad else None
        else:
            if tuple(grad.shape) != tuple(output.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of "
                    f"torch.Size({list(grad.shape)}) and output[{index}] has a shape of "
                    f"torch.Size({list(output.shape)})."
                )
            grad = _grad_for(grad, own, tensor, extra)
        physical_outputs.append(tensor)
        physical_grads.append(grad)
    physical_inputs = [physical(tensor) for tensor in inputs]
    batched_outputs = bool(out_levels)
    retain = options["retain_graph"]
    results = list(autograd_grad(physical_outputs, physical_inputs, physical_grads,
                                 **dict(options, retain_graph=True if batched_outputs else
                                        retain)))
    for index, (result, tensor) in enumerate(zip(results, inputs)):
        if result is None:
            continue
        if batched_outputs and type(tensor) is not BatchedTensor:
            if extra:
                raise RuntimeError(
                    "vmap: leafgrad cannot give per-example gradients with respect to a tensor "
                    "shared by every example under nested batched gradients"
                )
            results[index] = _per_example_grad(physical_outputs, tensor, physical_grads,
                                               outputs, options)
            continue
        results[index] = _from_extra(result, levels_of(tensor), extra)
    return tuple(results)


def _grad_for(grad, own: tuple, tensor: Tensor, extra: tuple) -> Tensor:
    """The grad_output for a physical output: its own levels laid out physically (expanded
    to the output's batch), the extra levels kept as a batched tensor around it."""
    levels = tuple(sorted(set(own) | set(extra)))
    sizes = []
    for level in levels:
        if level in own:
            sizes.append(tensor._data.shape[own.index(level)])
        else:
            sizes.append(level_sizes((grad,), {}, (level,))[0])
    aligned = align(grad, levels, tuple(sizes))
    if not extra:
        return aligned
    front = [levels.index(level) for level in extra]
    rest = [i for i in range(aligned.ndim) if i not in front]
    return wrap(aligned.permute(front + rest), extra)


def _from_extra(result, own: tuple, extra: tuple):
    """A physical input's gradient back as a batched tensor: the input's own levels (physical
    dims of the result) and the extra levels (batched around it), merged in level order."""
    if type(result) is not BatchedTensor:
        return wrap(result, own)
    value = result._value
    have = result._levels + own  # physical order: extra levels first, then the input's own
    levels = tuple(sorted(set(have)))
    order = [have.index(level) for level in levels] + list(range(len(have), value.ndim))
    if order != list(range(value.ndim)):
        value = value.permute(order)
    return wrap(value, levels)


def _per_example_grad(outputs: list, tensor, grads: list, logical_outputs: tuple, options):
    """The gradient of each example's outputs with respect to a tensor every example shares:
    one backward per example through the shared graph (the batched backward would sum them)."""
    from ..autograd import _grad as autograd_grad
    from . import stack

    levels = tuple(sorted(set().union(*(levels_of(o) for o in logical_outputs))))
    sizes = level_sizes(logical_outputs, {}, levels)
    count = int(np.prod(sizes)) if sizes else 1
    flat_outputs = []
    flat_grads = []
    for output, logical, grad in zip(outputs, logical_outputs, grads):
        aligned = align(wrap(output, levels_of(logical)), levels, sizes)
        flat_outputs.append(aligned.reshape((count,) + tuple(logical.shape)))
        flat_grads.append(None if grad is None else
                          align(wrap(grad, levels_of(logical)), levels, sizes)
                          .reshape((count,) + tuple(logical.shape)))
    rows = []
    for example in range(count):
        row = autograd_grad([o[example] for o in flat_outputs], [tensor],
                            [None if g is None else g[example] for g in flat_grads],
                            **dict(options, retain_graph=True))[0]
        if row is None:
            return None
        rows.append(row)
    stacked = stack(rows).reshape(tuple(sizes) + tuple(tensor.shape))
    return wrap(stacked, levels)


def batched_make_dual(make_dual, tensor, tangent, level):
    """``make_dual`` inside vmap: primal and tangent aligned to the same batch, the physical
    tensor made dual (a tangent lives on the physical tensor, see Note: batched tensors)."""
    levels = tuple(sorted(set(levels_of(tensor)) | set(levels_of(tangent))))
    sizes = level_sizes((tensor, tangent), {}, levels)
    dual = make_dual(align(tensor, levels, sizes), align(tangent, levels, sizes), level=level)
    return wrap(dual, levels)


