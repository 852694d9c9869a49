"""Module full backward hooks: identity nodes around a module's inputs and outputs.

As in torch, a call of a module with full backward (pre-)hooks passes its tensor outputs
through an identity Function (``BackwardHookFunctionBackward``) whose backward sees the
gradients of the outputs (pre-hooks may replace them), and its tensor inputs through another,
whose backward sees the gradients of the inputs and calls ``hook(module, grad_input,
grad_output)`` (a hook may return replacements for ``grad_input``).
"""

from __future__ import annotations

import warnings

from ...autograd.function import Function
from ...autograd.graph import check_hook_values
from ...tensor import Tensor

__all__ = ["BackwardHook", "attach_node_hooks"]


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if isinstance(a, Tensor)
                                      and not a.requires_grad])
        # torch's hooks read the gradients as they arrive (None for an output without one:
        # the output side's are node pre-hooks), the identity itself passes zeros for those
        ctx.set_materialize_grads(False)
        return args

    @staticmethod
    def backward(ctx, *grads):
        from ...autograd._function_outputs import materialized

        return ctx.on_backward(grads, tuple(materialized(list(grads), ctx._output_meta)))


def _pack_with_none(indices: list, values, size: int) -> tuple:
    packed = [None] * size
    for index, value in zip(indices, values):
        packed[index] = value
    return tuple(packed)


class BackwardHook:
    """What one call of a hooked module sets up (a new instance per call, as in torch)."""

    def __init__(self, module, hooks: list, pre_hooks: list):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_inputs = -1
        self.input_indices = None

    def _wrap(self, values, on_backward):
        """Pass the tensors requiring grad among ``values`` through one identity node."""
        if not isinstance(values, tuple):
            values = (values,)
        # every tensor goes through, as in torch (one not requiring grad gets zeros there)
        indices = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        if not any(values[i].requires_grad for i in indices):
            return values, None
        outputs = BackwardHookFunction.apply(*[values[i] for i in indices])
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        node = next((out.grad_fn for out in outputs if out.grad_fn is not None), None)
        if node is None:
            return values, None
        node.on_backward = on_backward  # read by BackwardHookFunction.backward
        result = list(values)
        for i, out in zip(indices, outputs):
            result[i] = out
        return tuple(result), indices

    def setup_input_hook(self, args: tuple) -> tuple:
        self.n_inputs = len(args)

        def hook(grads, filled):  # (named as torch's node hook: its errors name it)
            if self.grad_outputs is None:
                # as torch: the gradient reached the inputs without passing the module's
                # outputs (a double backward through this node): no hook runs
                return tuple(filled)
            grad_input = _pack_with_none(self.input_indices, filled, self.n_inputs)
            replaced = False
            for user_hook in self.hooks:
                result = user_hook(self.module, grad_input, self.grad_outputs)
                if result is None:
                    continue
                if len(result) != len(grad_input):  # (as torch: len() of what came back)
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, got "
                        f"{len(result)}, but expected {len(grad_input)}"
                    )
                grad_input, replaced = result, True
            self.grad_outputs = None  # (torch lets go of them once the hooks ran)
            returned = tuple(grad_input[i] for i in self.input_indices)
            if replaced:  # torch's checks of a node hook's values (Note: hook results)
                check_hook_values(hook, tuple(filled), returned)
            return returned

        wrapped, self.input_indices = self._wrap(args, hook)
        return wrapped

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        n_outputs = len(outputs)
        indices_holder = {}

        def hook(grads, filled):  # (named as torch's node pre-hook: its errors name it)
            grad_outputs = _pack_with_none(indices_holder["indices"], grads, n_outputs)
            replaced = False
            for user_pre_hook in self.pre_hooks:
                result = user_pre_hook(self.module, grad_outputs)
                if result is None:
                    continue
                if len(result) != len(grad_outputs):  # (as torch: len() of what came back)
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, got "
                        f"{len(result)}, but expected {len(grad_outputs)}"
                    )
                grad_outputs, replaced = result, True
            if replaced:  # torch's checks of a node pre-hook's values (Note: hook results)
                check_hook_values(hook, tuple(grads), tuple(
                    grad_outputs[i] for i in indices_holder["indices"]))
            self.grad_outputs = grad_outputs
            if self.input_indices is None:
                # No input requires grad: the hooks run now, with None for every input. torch
                # warns whether or not there is a full backward hook (a backward pre-hook
                # alone: generated-program seed 207 of the nn.Module stage)
                warnings.warn(
                    "Full backward hook is firing when gradients are computed with respect "
                    "to module outputs since no inputs require gradients. See "
                    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                    "#torch.nn.Module.register_full_backward_hook for more details.",
                    stacklevel=2,
                )
                grad_input = (None,) * max(self.n_inputs, 0)
                for user_hook in self.hooks:
                    returned = user_hook(self.module, grad_input, self.grad_outputs)
                    if returned is not None and not all(r is None for r in returned):
                        raise RuntimeError(
                            "Backward hook for Modules where no input requires gradient should "
                            "always return None or None for all gradients."
                        )
            # what the module's own graph gets: torch's node pre-hook result, so None where a
            # pre-hook gave None (the module's built-in nodes then pass nothing; a Function's,
            # the inputs' BackwardHookFunction included, gets zeros: Note: nodes reached
            # without a gradient, engine.py); zeros where no gradient arrived and no pre-hook
            # replaced it (the identity's materialized ones)
            if not replaced:
                return tuple(filled)
            return tuple(grad_outputs[i] for i in indices_holder["indices"])

        wrapped, indices = self._wrap(outputs, hook)
        indices_holder["indices"] = indices
        if indices is None:
            return result
        return wrapped[0] if single else wrapped


# -- the deprecated non-full hooks (Module.register_backward_hook) ------------------------------


def attach_node_hooks(module, hooks: list, args: tuple, result) -> None:
    """Hook the node that made the (first tensor of the) output, as torch does: each hook gets
    ``(module, grad_input, grad_output)`` of that one node; warn where that is misleading."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    node = var.grad_fn
    if node is None:
        return
    for hook in hooks:
        node.register_hook(lambda grad_input, grad_output, hook=hook:
                           hook(module, grad_input, grad_output))
    _warn_non_full(args, result, node)


def _warn_non_full(inputs, result, node) -> None:
    def warn(message: str) -> None:
        warnings.warn(message, FutureWarning, stacklevel=4)

    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warn("Using non-full backward hooks on a Module that does not return a single "
                 "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                 "versions. This hook will be missing some of the grad_output. Please use "
                 "register_full_backward_hook to get the documented behavior.")
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            warn("Using non-full backward hooks on a Module that does not take as input a "
                 "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                 "future versions. This hook will be missing some of the grad_input. Please "
                 "use register_full_backward_hook to get the documented behavior.")
            return
    else:
        inputs = (inputs,)
    out_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_nodes or (len(out_nodes) == 1 and node not in out_nodes):
        warn("Using a non-full backward hook when outputs are nested in python data structure "
             "is deprecated and will be removed in future versions. This hook will be missing "
             "some grad_output.")
    elif len(out_nodes) > 1:
        warn("Using a non-full backward hook when outputs are generated by different autograd "
             "Nodes is deprecated and will be removed in future versions. This hook will be "
             "missing some grad_output. Please use register_full_backward_hook to get the "
             "documented behavior.")
    else:
        input_nodes = {i.grad_fn for i in inputs if i.grad_fn is not None}
        if input_nodes != {n for n, _ in node.next_functions}:
            warn("Using a non-full backward hook when the forward contains multiple autograd "
                 "Nodes is deprecated and will be removed in future versions. This hook will "
                 "be missing some grad_input. Please use register_full_backward_hook to get "
                 "the documented behavior.")
