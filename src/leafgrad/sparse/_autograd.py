"""How sparse operations record their nodes.

Sparse operations are few and their nodes are torch's (``SparseAddmmBackward0``,
``ToDenseBackward0``, ...), but their forwards work on index and value arrays, not on one
array per operand, so they do not go through the op table of leafgrad.ops: each is a Node
subclass here whose ``backward`` takes the output's gradient (a Tensor, dense or sparse) and
gives one gradient per input, written with Tensor operations (so that ``create_graph=True``
records them).
"""

from __future__ import annotations

from .._compile.state import state as _capture
from ..autograd.graph import Node
from ..autograd.grad_mode import state as _grad_state
from ..tensor import Tensor

__all__ = ["SparseNode", "record", "refuse_capture"]


def refuse_capture() -> None:
    """leafgrad.compile records only the op table's ops: a sparse operation breaks the
    capture (the step runs eagerly, as for any other break) rather than be replayed wrong."""
    if _capture.active:
        _capture.tracer.broke("a sparse tensor operation ran (leafgrad.sparse is not "
                              "captured)")


class SparseNode(Node):
    """A node of a sparse operation: ``backward(grad) -> tuple`` (one gradient per input)."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.defined_in = cls.__module__
        cls.__module__ = "builtins"  # torch's nodes are C++ classes: <class 'ToDenseBackward0'>

    def saved(self, name: str):
        saved = self._saved
        if saved is None:
            from ..autograd.graph import FREED_MESSAGE

            raise RuntimeError(FREED_MESSAGE)
        return saved[name]

    def needs_grad(self, index: int) -> bool:
        return self._next_nodes[index] is not None

    def _apply(self, grads: list) -> tuple:
        grad = grads[0] if grads else None
        if grad is None:
            return (None,) * len(self._next_nodes)
        results = self.backward(grad)
        return tuple(None if child is None else result
                     for result, child in zip(results, self._next_nodes))

    def backward(self, grad):  # pragma: no cover - every node overrides
        raise NotImplementedError


def _edge(tensor) -> tuple:
    if not isinstance(tensor, Tensor):
        return (None, 0)
    node = tensor._history()  # (a stale view's history regenerated first)
    if not tensor._requires_grad:
        return (None, 0)
    if node is not None:
        return (node, tensor._output_nr)
    return (tensor._accumulator(), 0)


def record(cls, inputs: tuple, result: Tensor, **saved) -> Tensor:
    """Make ``result`` the output of a ``cls`` node over ``inputs`` when grad mode is on and
    some input requires grad; ``saved`` is what the backward reads."""
    if _capture.active:
        refuse_capture()
    if not _grad_state.grad_enabled:
        return result
    if not any(isinstance(t, Tensor) and t.requires_grad for t in inputs):
        return result
    if result.dtype.is_floating_point is False and not result.dtype.is_complex:
        return result  # (Note: integer tensors never require grad)
    node = cls(tuple(_edge(t) for t in inputs))
    node._saved = saved
    result._requires_grad = True
    result._node = node
    return result
