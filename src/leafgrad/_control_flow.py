"""``torch.cond`` and ``torch.while_loop``: control flow as one op.

torch captures both branches (or the loop's body) as graphs with torch.compile and runs them as
a single higher-order op; eagerly, leafgrad runs the branch that the predicate picks (the loop
until its condition fails) and hangs the outputs from one node named as torch's
(``CondAutogradOpBackward``, ``WhileLoopAutogradOpBackward``), which passes the gradients on to
the graph the branch built, so operands and tensors the branch closes over get theirs. A Python
bool predicate calls the branch directly, as torch does. torch checks that the two branches
return tensors of the same metadata by tracing both; leafgrad runs only the branch taken.
"""

from __future__ import annotations

from .autograd.function import Function
from .autograd.grad_mode import is_grad_enabled

__all__ = ["cond", "while_loop"]


def _leaves(value) -> list:
    from .utils._pytree import tree_flatten

    return tree_flatten(value)[0]


def _passthrough(name: str):
    """An identity Function over the outputs, named as torch's node."""

    def forward(*tensors):
        return tensors[0].view_as(tensors[0]) if len(tensors) == 1 else \
            tuple(t.view_as(t) for t in tensors)

    def setup_context(ctx, inputs, output):
        pass

    def backward(ctx, *grads):
        return grads if len(grads) > 1 else grads[0]

    made = type(name, (Function,), {"forward": staticmethod(forward),
                                    "setup_context": staticmethod(setup_context),
                                    "backward": staticmethod(backward),
                                    "__module__": "leafgrad.autograd.function"})
    return made


_CondAutogradOp = _passthrough("CondAutogradOp")
_WhileLoopAutogradOp = _passthrough("WhileLoopAutogradOp")


def _attach(node_cls, out):
    """``out``'s tensors (one, or a tuple/list of them) as outputs of ``node_cls``."""
    from .tensor import Tensor

    single = isinstance(out, Tensor)
    items = [out] if single else list(out)
    tensors = [item for item in items if isinstance(item, Tensor)]
    if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
        return out
    attached = node_cls.apply(*[t.clone() if not t.requires_grad else t for t in tensors])
    attached = (attached,) if isinstance(attached, Tensor) else tuple(attached)
    it = iter(attached)
    items = [next(it) if isinstance(item, Tensor) else item for item in items]
    if single:
        return items[0]
    return type(out)(items) if isinstance(out, (tuple, list)) else items


def _check_operands(operands) -> None:
    from .tensor import Tensor

    if not isinstance(operands, (tuple, list)) or not all(
            isinstance(leaf, Tensor) for leaf in _leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``."""
    from .tensor import Tensor

    if isinstance(pred, (bool, int, float)) and not isinstance(pred, Tensor):
        return (true_fn if pred else false_fn)(*operands)
    if not isinstance(pred, Tensor) or pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    _check_operands(operands)
    branch = true_fn if bool(pred) else false_fn
    return _attach(_CondAutogradOp, branch(*operands))


def while_loop(cond_fn, body_fn, carried_inputs, additional_inputs=()):
    """Run ``carried = body_fn(*carried, *additional_inputs)`` while
    ``cond_fn(*carried, *additional_inputs)`` holds; the last ``carried``, as a tuple."""
    from .tensor import Tensor

    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError("carried_inputs must be a tuple or list, got "
                           f"{type(carried_inputs)}")
    carried = tuple(carried_inputs)
    extra = tuple(additional_inputs)
    while True:
        flag = cond_fn(*carried, *extra)
        if isinstance(flag, Tensor):
            if flag.numel() != 1 or flag.dtype.name != "bool":
                raise RuntimeError("cond_fn must return a boolean scalar tensor or a boolean, "
                                   f"but got {flag}")
            flag = bool(flag)
        if not flag:
            break
        result = body_fn(*carried, *extra)
        carried = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    return tuple(_attach(_WhileLoopAutogradOp, carried))
