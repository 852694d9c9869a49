"""Argument checks and bookkeeping shared by ``autograd.functional`` (torch's helpers' behaviour).

Every function there takes a Tensor or a tuple of Tensors, calls the user's function on fresh
tensor objects that require grad, and hands back results shaped like what it was given. The
messages below are torch 2.13's, word for word; tests compare them with torch's.
"""

from __future__ import annotations


def tensor_cls():
    from ..tensor import Tensor

    return Tensor


def torch_size(tensor) -> str:
    # torch's messages print sizes as torch.Size([...]), whatever the module is called here.
    return f"torch.Size({list(tensor.shape)})"


def as_tuple(value, arg_name: str, fn_name: str | None) -> tuple[bool, tuple]:
    """``(was_tuple, tensors)``; anything but a Tensor or a tuple of Tensors is a TypeError."""
    Tensor = tensor_cls()
    was_tuple = isinstance(value, tuple)
    values = value if was_tuple else (value,)
    for index, item in enumerate(values):
        if not isinstance(item, Tensor):
            where = (
                f"value at index {index} has type {type(item)}."
                if was_tuple
                else f"given {arg_name} has type {type(item)}."
            )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the {where}"
            )
    return was_tuple, values


def unpack(result, was_tuple):
    """Undo ``as_tuple``: ``was_tuple`` is one flag, or ``(outer, inner)`` for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(row[0] for row in result)
        if not outer:
            result = result[0]
        return result
    return result if was_tuple else result[0]


def prepare_inputs(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """New tensor objects for the user's function.

    Always new objects, so that the inputs given as arguments can be told apart from the same
    tensors captured by the function's closure. Under ``create_graph`` an input that requires
    grad stays connected to its history (through a view); otherwise it is detached.
    """
    prepared = []
    for tensor in inputs:
        if create_graph and tensor.requires_grad:
            prepared.append(tensor.view_as(tensor))
        else:
            prepared.append(tensor.detach().requires_grad_(need_graph))
    return tuple(prepared)


def finish(results, create_graph: bool):
    """Detach results (recursively through tuples) unless the caller asked for a graph."""
    Tensor = tensor_cls()
    if isinstance(results[0], Tensor):
        return results if create_graph else tuple(t.detach() for t in results)
    return tuple(finish(row, create_graph) for row in results)


def validate_v(v: tuple, other: tuple, other_was_tuple: bool) -> None:
    if len(other) != len(v):
        if other_was_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (given, expected) in enumerate(zip(v, other)):
        if given.shape != expected.shape:
            prefix = f"Entry {index} in " if other_was_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {torch_size(expected)} but got "
                f"{torch_size(given)}."
            )


def check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """strict mode: every tensor must exist and require grad; ``kind`` picks torch's message."""
    if not strict:
        return
    for index, tensor in enumerate(tensors):
        if tensor is None:  # only gradients can be missing
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {index}. "
                "This is not allowed in strict mode."
            )
        if tensor.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {index} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."
            )
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {index} is independent of the input. This is "
                "not allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example)."
            )
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {index} is independent of the inputs of "
                "the user-provided function. This is not allowed in strict mode."
            )
        raise RuntimeError(
            f"Output {index} of the user-provided function does not require gradients. The "
            "outputs must be computed in a differentiable manner from the input when running "
            "in strict mode."
        )


def grad_of(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph: bool = False,
            retain_graph=None, is_grads_batched: bool = False) -> tuple:
    """``autograd.grad`` that skips outputs not requiring grad (None for every input if none
    does) and gives None for inputs the outputs do not depend on."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    used_outputs, used_grads = [], []
    for output, grad_output in zip(outputs, grad_outputs):
        if output is not None and output.requires_grad:
            used_outputs.append(output)
            used_grads.append(grad_output)
    if not used_outputs:
        return (None,) * len(inputs)
    return grad(
        tuple(used_outputs), inputs, tuple(used_grads), retain_graph=retain_graph,
        create_graph=create_graph, allow_unused=True, is_grads_batched=is_grads_batched,
    )


# The error for a missing gradient depends on which differentiation found it missing.
_MISSING = {
    "back": (
        "The output of the user-provided function is independent of input {i}. This is not "
        "allowed in strict mode."
    ),
    "back_trick": (
        "The gradient with respect to the input is independent of entry {i} in the "
        "grad_outputs when using the double backward trick to compute forward mode gradients. "
        "This is not allowed in strict mode."
    ),
    "double_back": (
        "The jacobian of the user-provided function is independent of input {i}. This is not "
        "allowed in strict mode."
    ),
    "double_back_trick": (
        "The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
        "double backward trick to replace forward mode AD."
    ),
}


def fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool,
                  stage: str) -> tuple:
    """Zeros (shaped like ``refs``) for missing gradients, or torch's strict-mode errors."""
    from .._creation import zeros_like

    filled = []
    for index, grad in enumerate(grads):
        if grad is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(i=index))
            grad = zeros_like(refs[index])
        elif strict and create_graph and not grad.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {index}. "
                "This is not allowed in strict mode when create_graph=True."
            )
        filled.append(grad)
    return tuple(filled)
