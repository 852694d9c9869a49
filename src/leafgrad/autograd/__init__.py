"""``leafgrad.autograd``: the two entry points into the engine, ``backward`` and ``grad``.

>>> x = leafgrad.tensor(3., requires_grad=True)
>>> (dx,) = leafgrad.autograd.grad(x ** 3, x, create_graph=True)
>>> leafgrad.autograd.grad(dx, x)
(tensor(18.),)
"""

from __future__ import annotations

import warnings

import numpy as np

from . import anomaly_mode, forward_ad, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)

__all__ = [
    "backward",
    "grad",
    "graph",
    "forward_ad",
    "no_grad",
    "enable_grad",
    "enforce_grad_layout_policy",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "set_multithreading_enabled",
    "is_multithreading_enabled",
    "gradcheck",
    "gradgradcheck",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "functional",
    "anomaly_mode",
    "detect_anomaly",
    "set_detect_anomaly",
]


CREATE_GRAPH_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using autograd.grad "
    "when creating the graph to avoid this. If you have to use this function, make sure to "
    "reset the .grad fields of your parameters to None after use to break the cycle and avoid "
    "the leak."
)


_warned = {"create_graph": False}


from ._vmap_state import state as _vmap_state
from ._vmap_state import BACKWARD as _BACKWARD_IN_TRANSFORM
from .._compile.state import state as _capture


def _tensor_cls():
    # (imported on first use: tensor.py imports this package. Kept afterwards, as an import
    # statement costs ~1 us on every autograd.grad / backward call.)
    global _TENSOR, _WRAP
    if _TENSOR is None:
        from ..tensor import Tensor, _wrap

        _TENSOR, _WRAP = Tensor, _wrap
    return _TENSOR


_TENSOR = _WRAP = None  # leafgrad.Tensor and tensor._wrap, once _tensor_cls has run


def _as_tuple(value, name: str) -> tuple:
    Tensor = _tensor_cls()
    if value is None:
        return ()
    if isinstance(value, (Tensor, graph.GradientEdge)):  # a GradientEdge is a tuple too
        return (value,)
    return tuple(value)


def _make_grads(outputs: tuple, grads: tuple, is_grads_batched: bool = False) -> list:
    """torch's _make_grads: check given grads against outputs, make ones for scalar outputs."""
    Tensor = _tensor_cls()
    result = []
    for output, grad in zip(outputs, grads):
        if isinstance(output, graph.GradientEdge):
            # Note: gradient edges. leafgrad's nodes do not record their outputs' shapes, so
            # the gradient of an edge output must be given (torch makes ones for a scalar).
            if not isinstance(grad, Tensor):
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs\n(leafgrad needs "
                    "grad_outputs for every GradientEdge output, scalar ones too)"
                )
            result.append(grad)
            continue
        if isinstance(grad, Tensor):
            shape = grad.shape[1:] if is_grads_batched else grad.shape
            if shape != output.shape:
                index = len(result)
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of "
                    f"torch.Size({list(grad.shape)}) and output[{index}] has a shape of "
                    f"torch.Size({list(output.shape)})."
                )
            if grad._data.dtype != output._data.dtype:
                grad = grad.to(output.dtype)  # the engine works in each output's dtype
            result.append(grad)
        elif grad is None:
            if output._requires_grad:
                if output.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not output.is_floating_point():
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {output.dtype}")
                if type(output) is Tensor and not _capture.active and \
                        type(output._data) is np.ndarray:  # (a meta output: ones_like is meta)
                    # a one-element grad (any layout is torch's), made directly
                    data = output._data
                    one = np.empty(data.shape, data.dtype)
                    one.fill(1)  # (np.ones is a Python function: ~1 us more per call)
                    result.append(_WRAP(one))  # (set by the _tensor_cls() above)
                else:
                    from .._creation import ones_like

                    result.append(ones_like(output))
            else:
                result.append(None)
        else:
            raise TypeError(
                "gradients can be either Tensors or None, but got " + type(grad).__name__
            )
    return result


def _edge(tensor) -> tuple:
    if isinstance(tensor, graph.GradientEdge):
        return tensor.node, tensor.output_nr
    fn = tensor._history()  # a view's history may need regenerating first
    if fn is not None:
        return fn, tensor._output_nr
    return tensor._accumulator(), 0


def _root_edges(outputs: tuple) -> list:
    edges = []
    for index, output in enumerate(outputs):
        if not isinstance(output, graph.GradientEdge) and not output._requires_grad:
            raise RuntimeError(
                f"element {index} of tensors does not require grad and does not have a grad_fn"
            )
        edges.append(_edge(output))
    return edges


def _input_edges(inputs: tuple, for_backward: bool = False) -> list:
    edges = []
    for tensor in inputs:
        if isinstance(tensor, graph.GradientEdge):
            edges.append((tensor.node, tensor.output_nr, None))
            continue
        if not tensor.requires_grad:  # (a view made under no_grad of one that requires grad
            # requires grad too: generated-program seed 31674)
            if for_backward:
                # torch's wording: backward(inputs=...) retains grads on the inputs.
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node, output_nr = _edge(tensor)
        edges.append((node, output_nr, tensor))
    return edges


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables=None,
    inputs=None,
) -> None:
    """Sum the gradients of ``tensors`` into the ``.grad`` of the leaves they depend on.

    ``grad_tensors`` are the vectors of the vector-Jacobian products (needed for non-scalar
    outputs); ``inputs`` restricts which tensors get ``.grad``.
    """
    if _vmap_state.stack:  # (Note: autograd calls inside transforms, _vmap_state.py)
        raise RuntimeError(_BACKWARD_IN_TRANSFORM)
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors, "tensors")
    Tensor = _tensor_cls()
    if inputs is not None:
        inputs = _as_tuple(inputs, "inputs")
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if grad_tensors is None:
        grads = (None,) * len(outputs)
    elif isinstance(grad_tensors, Tensor):
        grads = (grad_tensors,)
    else:
        grads = tuple(grad_tensors)
    # torch pairs them with zip (extra gradients are ignored) and then counts what is left
    grads = grads[:len(outputs)]
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    root_grads = _make_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outputs)
    if create_graph and inputs is None and not _warned["create_graph"]:
        _warned["create_graph"] = True  # torch warns once per process (TORCH_WARN_ONCE)
        warnings.warn(CREATE_GRAPH_CYCLE_WARNING, UserWarning, stacklevel=3)
    input_edges = None
    if inputs is not None:
        input_edges = _input_edges(inputs, for_backward=True)
        for tensor in inputs:
            # torch retains the grad of a non-leaf listed in inputs; its .grad is filled by the
            # retain_grad hook when the engine reaches it.
            if not isinstance(tensor, graph.GradientEdge) and tensor._node is not None:
                tensor.retain_grad()
    run_backward(roots, root_grads, bool(retain_graph), bool(create_graph), input_edges)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` untouched)."""
    from .. import overrides

    if overrides._wrapped.methods_wrapped and not overrides._state.all_disabled:
        # torch's grad is overridable as a whole: a mode or a tensor-like among the outputs and
        # inputs sees one call to grad (not the calls grad makes)
        outputs_t, inputs_t = _as_tuple(outputs, "outputs"), _as_tuple(inputs, "inputs")
        relevant = tuple(t for t in outputs_t + inputs_t if overrides.is_tensor_like(t))
        if overrides._state.modes or any(overrides._overrides(t) for t in relevant):
            return overrides.handle_torch_function(
                grad, relevant, outputs_t, inputs_t, grad_outputs=grad_outputs,
                retain_graph=retain_graph, create_graph=create_graph, only_inputs=only_inputs,
                allow_unused=allow_unused, is_grads_batched=is_grads_batched,
                materialize_grads=materialize_grads)
    if _vmap_state.active:
        from ..ops._batching import check_visible_grad

        check_visible_grad(outputs, inputs)
    return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                 allow_unused, is_grads_batched, materialize_grads)


def _grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """``grad`` without the check of what the caller sees inside vmap: leafgrad's transforms
    differentiate batched tensors whose grad level has closed."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs_t = _as_tuple(outputs, "outputs")
    inputs_t = _as_tuple(inputs, "inputs")
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.", FutureWarning, stacklevel=2)
    if not inputs_t:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if grad_outputs is None:
        grads = (None,) * len(outputs_t)
    else:
        grads = _as_tuple(grad_outputs, "grad_outputs")
    grads = grads[:len(outputs_t)]  # zip, as torch (extra gradients are ignored)
    if len(grads) != len(outputs_t):
        raise RuntimeError(f"got {len(outputs_t)} tensors and {len(grads)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    if _vmap_state.active and not is_grads_batched:
        from ..ops._batching_autograd import batched_grad

        result = batched_grad(outputs_t, inputs_t, grads, retain_graph=retain_graph,
                              create_graph=create_graph, allow_unused=allow_unused,
                              materialize_grads=materialize_grads)
        if result is not NotImplemented:
            return result
    if is_grads_batched:
        return _batched_grad(
            outputs_t, inputs_t, grads, retain_graph, create_graph, allow_unused,
            materialize_grads,
        )
    root_grads = _make_grads(outputs_t, grads)
    roots = _root_edges(outputs_t)
    edges = _input_edges(inputs_t)
    results = run_backward(
        roots, root_grads, bool(retain_graph), bool(create_graph), edges, accumulate=False
    )
    return _finish_results(results, inputs_t, allow_unused, materialize_grads, create_graph)


def _finish_results(results, inputs, allow_unused, materialize_grads, create_graph) -> tuple:
    finished = []
    for index, (result, tensor) in enumerate(zip(results, inputs)):
        if result is None:
            from .._creation import zeros_like

            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                if isinstance(tensor, graph.GradientEdge):
                    raise RuntimeError(
                        "materialize_grads cannot be used when the given input is a GradientEdge"
                    )
                # torch's materialized zeros require grad under create_graph, so that a
                # further derivative through them is allowed (and is zero)
                result = zeros_like(tensor, requires_grad=bool(create_graph))
        finished.append(result)
    return tuple(finished)


def _batched_grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused,
                  materialize_grads) -> tuple:
    """``is_grads_batched``: the backward vmapped over the first dim of the grad_outputs, as
    torch does (the backward formulas run once on batched gradients, through the batching
    rules)."""
    from .._creation import zeros_like
    from ..func import vmap

    for index, (output, row) in enumerate(zip(outputs, grads)):
        if row is not None and tuple(row.shape[1:]) != tuple(output.shape):
            raise RuntimeError(
                f"If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                f"as the batch dimension. The sizes of the remaining dimensions are expected to "
                f"match the shape of corresponding output, but a mismatch was detected: "
                f"grad_output[{index}] has a shape of torch.Size({list(row.shape[1:])}) and "
                f"output[{index}] has a shape of torch.Size({list(output.shape)}). If you only want some tensors in `grad_output` to be "
                f"considered batched, consider using vmap."
            )
    unused = [False] * len(inputs)

    def one(*row_grads):
        results = grad(outputs, inputs, row_grads, retain_graph=True,
                       create_graph=create_graph, allow_unused=allow_unused)
        filled = []
        for index, (result, tensor) in enumerate(zip(results, inputs)):
            if result is None:
                unused[index] = True
                result = zeros_like(tensor)
            filled.append(result)
        return tuple(filled)

    in_dims = tuple(None if g is None else 0 for g in grads)
    stacked = vmap(one, in_dims=in_dims)(*grads)
    # as torch: an unused input's materialized gradient is one unbatched zero tensor
    return tuple((zeros_like(tensor) if materialize_grads else None) if missing else result
                 for missing, result, tensor in zip(unused, stacked, inputs))


# Imported last: gradcheck uses the functions above. Binding the names here also makes
# ``leafgrad.autograd.gradcheck`` the function rather than the submodule, as in torch.
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402
from . import profiler  # noqa: E402
from .variable import Variable  # noqa: E402
from .trace import trace  # noqa: E402
from .explain import explain_grad  # noqa: E402
from . import functional  # noqa: E402
