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
from ._forward import jvp_by_decomposition
from .registry import Op
from ..autograd import _grad as differentiate
from ..autograd.grad_mode import enable_grad


def records_double_backward() -> bool:
    """Whether a backward is being recorded by create_graph alone: grad mode on, and no vmap,
    forward-AD level or leafgrad.compile capture (which see an op's older composite form)."""
    return _grad_state.grad_enabled and not (_dual_state.active or _vmap_state.active
                                             or _capture.active)


def records_or_breaks_capture(what: str) -> bool:
    """``records_double_backward()``, or else, for a create_graph backward that
    leafgrad.compile captures (no vmap or forward-AD level), break the capture and say True:
    the capture would record the op's composite backward, whose higher derivatives round
    otherwise than the node eager code records (torch's derivatives.yaml formulas), so the
    call runs eagerly with that node."""
    if records_double_backward():
        return True
    if _capture.active and _grad_state.grad_enabled and not (_dual_state.active
                                                             or _vmap_state.active):
        _capture.tracer.broke(f"{what}'s backward under create_graph (torch's node's formulas)")
        return True
    return False


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


# Note: recorded formulas. Where torch records a backward as one node whose own backward is a
# long hand-derived formula (batchnorm_double_backward, layer_norm_double_backward), the node
# here computes its value with the plain backward's Tensor formula, and its backward runs that
# formula again on the saved inputs with grad enabled and differentiates it (a vector-Jacobian
# product through the formula's own ops, taken at an alias of each input). Every order is then as right as the formula's ops,
# and a third derivative records the formula's composite nodes (torch's would be its own).


def formula_jvp(function, primals, tangents) -> tuple:
    """The output tangents of a backward formula ``function(*primals) -> tuple of Tensors or
    None`` in forward mode (None for an output it does not compute)."""
    computed = []

    def run(*inputs):
        outputs = function(*inputs)
        computed[:] = [out is not None for out in outputs]
        return tuple(out for out in outputs if out is not None)

    found = iter(jvp_by_decomposition(run, primals, tangents))
    return tuple(next(found) if present else None for present in computed)


class RecordedFormula:
    """Mixin for an ``Op`` that is a backward formula recorded as one node: a subclass sets
    ``inputs`` and ``formula(*tensors, **params) -> tuple of Tensors or None``; its ``forward``
    returns the formula's values (an output it does not compute: an empty placeholder)."""

    __slots__ = ()
    multi_output = True
    zeros_for_unused = False

    @classmethod
    def forward(cls, ctx, *arrays, **params):
        from ..tensor import _wrap
        import numpy as np

        tensors = [a if a is None else _wrap(a) for a in arrays]
        outputs = cls.formula(*tensors, **params)
        empty = np.zeros(0, dtype=next(o for o in outputs if o is not None)._data.dtype)
        return tuple(empty if out is None else out._data for out in outputs)

    def jvp(self, tangents, primals, result):
        """Forward mode through the formula's own ops (jvp_by_decomposition)."""
        return formula_jvp(lambda *inputs: type(self).formula(*inputs, **self._params),
                           primals, tangents)

    def backward(self, grads):
        create = _grad_state.grad_enabled
        saved = self._saved
        tensors = [self.saved(name) if saved is None or name in saved else None
                   for name in self.inputs]
        needed = [i for i, child in enumerate(self._next_nodes) if child is not None]
        with enable_grad():
            # each input through its own alias node: the formula's vector-Jacobian product is
            # taken at the aliases (partial derivatives in this node's inputs; the outer
            # backward carries them further), while a third derivative still reaches the
            # inputs through the aliases
            for i in needed:
                tensors[i] = tensors[i].view_as(tensors[i])
            outputs = type(self).formula(*tensors, **self._params)
        pairs = [(out, grad) for out, grad in zip(outputs, grads)
                 if out is not None and grad is not None and out._may_require_grad()]
        results = [None] * len(self._next_nodes)
        if pairs and needed:
            found = differentiate([out for out, _ in pairs], [tensors[i] for i in needed],
                                  [grad for _, grad in pairs], create_graph=create,
                                  allow_unused=True)
            for i, value in zip(needed, found):
                results[i] = value
        if self.zeros_for_unused:  # torch's formula gives zeros, not an undefined gradient
            from .. import zeros_like

            for i in needed:
                if results[i] is None:
                    results[i] = zeros_like(tensors[i])
        return tuple(results)


class ActivationBackward(RecordedFormula):
    """An activation's ``<name>_backward(grad_output, self)`` as torch's one-output node
    (SoftplusBackwardBackward0...), recorded by a create_graph backward: ``formula(grad, x,
    **params) -> (grad_input,)`` is the plain backward's Tensor formula."""

    __slots__ = ()
    inputs = ("grad_output", "self")
    saves = {"grad_output": ("grad_output", "self"), "self": ("grad_output", "self")}

    @classmethod
    def record(cls, grad, x, **params):
        return cls.apply(grad, x, **params)[0]


def not_implemented_gradient(kernel: str, value, *inputs):
    """``value`` (a Tensor computed without a graph) as the result of torch's backward kernel
    ``kernel`` where torch has no derivative for that kernel: while create_graph records, a
    ``NotImplemented`` node with edges to the ``inputs`` that require grad, whose backward
    raises torch's "derivative for aten::<kernel> is not implemented"."""
    if not records_double_backward():
        return value
    wanted = tuple(t for t in inputs if t is not None and t._may_require_grad())
    if not wanted:
        return value
    return _NotImplementedGradient.apply(*wanted, value=value._data, kernel=kernel)


def _make_not_implemented_node():
    class NotImplemented(Op):
        """Not in the op table: its backward only raises (nothing to gradcheck)."""

        node = "NotImplemented"
        qualified_name = "torch::autograd::NotImplemented"
        inputs = ()
        _save_plan = ()

        @staticmethod
        def forward(ctx, *tensors, value, kernel):
            return value

        def backward(self, grad):
            raise RuntimeError(
                f"derivative for aten::{self._params['kernel']} is not implemented")

        def jvp(self, tangents, primals, result):
            raise NotImplementedError(
                f"Trying to use forward AD with aten::{self._params['kernel']} that does not "
                "support it.")

    return NotImplemented


_NotImplementedGradient = _make_not_implemented_node()
