"""What a create_graph backward records for nn ops whose backward torch records as one node.

Note: torch's edge to self. torch's backward kernels of pooling, padding and nll_loss
(``max_pool2d_with_indices_backward(grad_output, self, ...)`` and the like) take the forward's
input as an argument although their value reads only its shape: the node a create_graph
backward records (``MaxPool2DWithIndicesBackwardBackward0``) has an edge to ``self``, so the
gradient requires grad whenever the input does, and differentiating it in ``self`` gives
zeros (derivatives.yaml: ``self: zeros_like(self)``), not an error. ``self_edge`` gives a
backward op that edge; the forward op passes its saved input through ``self_args`` only while
create_graph records, so a plain backward calls the op as before.
"""

from __future__ import annotations

from ..autograd.grad_mode import state as _grad_state
from ..autograd.forward_ad import state as _dual_state
from ..autograd._vmap_state import state as _vmap_state
from .._compile.state import state as _capture


def records_double_backward() -> bool:
    """Whether a backward is being recorded by create_graph alone: grad mode on, and no vmap,
    forward-AD level or leafgrad.compile capture (which see an op's older composite form)."""
    return _grad_state.grad_enabled and not (_dual_state.active or _vmap_state.active
                                             or _capture.active)


def self_args(node, name: str = "self") -> tuple:
    """``(saved input,)`` for a backward op's ``self`` edge while create_graph records,
    else ``()`` (see Note: torch's edge to self)."""
    if records_double_backward():
        return (node.saved(name),)
    return ()


def self_edge(cls):
    """Give a backward op ``forward(ctx, grad, [self], **params)`` whose value ignores
    ``self``, and whose backward returns zeros for it (see Note: torch's edge to self)."""
    raw = cls.__dict__["forward"]
    kernel = raw.__func__
    backward = cls.backward

    if isinstance(raw, classmethod):
        def forward(owner, ctx, grad, *self_, **params):
            return kernel(owner, ctx, grad, **params)
    else:
        def forward(ctx, grad, *self_, **params):
            return kernel(ctx, grad, **params)

    def backward_with_self(node, grad):
        grad_grad = backward(node, grad) if node.needs_grad(0) else None
        if len(node._next_nodes) < 2 or not node.needs_grad(1):
            return grad_grad
        from .. import zeros_like

        return grad_grad, zeros_like(grad)

    cls.inputs = ("grad_output", "self")
    cls.forward = classmethod(forward) if isinstance(raw, classmethod) else staticmethod(forward)
    cls.backward = backward_with_self
    return cls
