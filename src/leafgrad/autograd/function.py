"""User-defined ops with torch's ``autograd.Function`` shape (``ctx``, ``save_for_backward``).

>>> class Cube(leafgrad.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, grad):
...         (x,) = ctx.saved_tensors
...         return 3 * x ** 2 * grad
>>> y = Cube.apply(leafgrad.tensor(2., requires_grad=True))
>>> y.grad_fn
<CubeBackward object at 0x...>
"""

from __future__ import annotations

from typing import Any

from .grad_mode import no_grad, state as _grad_state
from .graph import Node, SavedTensor

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` and ``backward`` share; also the node in the graph (as in torch)."""

    def save_for_backward(self, *tensors) -> None:
        self.to_save = tensors

    def mark_dirty(self, *tensors) -> None:
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function; one subclass per Function, named ``<Function>Backward``."""

    _forward_cls: Any = None

    @property
    def saved_tensors(self) -> tuple:
        saved = self._saved
        if saved is None:
            from .graph import FREED_MESSAGE

            raise RuntimeError(FREED_MESSAGE)
        return tuple(
            item.unpack(self) if isinstance(item, SavedTensor) else item
            for item in saved.get("tensors", ())
        )

    @property
    def needs_input_grad(self) -> tuple:
        return self._needs_input_grad

    def _apply(self, grads: list) -> tuple:
        from .._creation import zeros_like

        grads = list(grads) + [None] * (len(self._output_meta) - len(grads))
        if getattr(self, "materialize_grads", True):
            grads = [
                g if g is not None else zeros_like(_meta_tensor(meta))
                for g, meta in zip(grads, self._output_meta)
            ]
        results = self._forward_cls.backward(self, *grads)
        if not isinstance(results, tuple):
            results = (results,)
        expected = len(self._tensor_positions_all)
        if len(results) < expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(results)})"
            )
        grads_in = []
        for index, position in enumerate(self._tensor_positions):
            grad = results[position]
            meta = self._input_meta[index]
            if grad is not None and meta is not None and tuple(grad.shape) != meta[0]:
                from ..ops.registry import _sum_to

                try:
                    grad = _sum_to(grad, meta[0])
                except Exception:
                    grad = None
                if grad is None or tuple(grad.shape) != meta[0]:
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {index} - "
                        f"got {list(results[position].shape)} but expected shape compatible with "
                        f"{list(meta[0])}"
                    )
            grads_in.append(grad)
        return tuple(grads_in)


def _meta_tensor(meta):
    import numpy as np

    from ..tensor import _wrap

    shape, dtype = meta
    return _wrap(np.zeros(shape, dtype))


class _FunctionMeta(type):
    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call ``apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        from ..tensor import Tensor, _wrap

        node = cls._backward_cls.__new__(cls._backward_cls)
        Node.__init__(node)
        positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        node._tensor_positions = positions
        node._tensor_positions_all = list(range(len(args)))
        needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        node._needs_input_grad = needs
        recording = _grad_state.grad_enabled and any(needs)
        with no_grad():
            outputs = cls.forward(node, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outputs_t = (outputs,) if single else outputs
        if not recording:
            return outputs
        edges = []
        meta = []
        for i in positions:
            arg = args[i]
            data = arg._data
            meta.append((data.shape, data.dtype))
            if arg._requires_grad:
                fn = arg._grad_fn
                edges.append((fn, arg._output_nr) if fn is not None else (arg._accumulator(), 0))
            else:
                edges.append((None, 0))
        node.next_functions = tuple(edges)
        node._input_meta = meta
        non_diff = {id(t) for t in getattr(node, "non_differentiable", ())}
        wrapped = []
        output_meta = []
        for output_nr, out in enumerate(outputs_t):
            if not isinstance(out, Tensor):
                wrapped.append(out)
                continue
            output_meta.append((out._data.shape, out._data.dtype))
            if id(out) in non_diff or out._data.dtype.kind != "f":
                wrapped.append(out)
                continue
            if any(out is args[i] for i in positions) or out._grad_fn is not None:
                out = _wrap(out._data)  # an input returned as is: a new tensor sharing data
            out._grad_fn = node
            out._requires_grad = True
            out._output_nr = output_nr
            wrapped.append(out)
        node._output_meta = output_meta
        saved = [
            SavedTensor(t, is_output=t._grad_fn is node) if isinstance(t, Tensor) else t
            for t in getattr(node, "to_save", ())
        ]
        node._saved = {"tensors": saved}
        return wrapped[0] if single else tuple(wrapped)


def once_differentiable(fn):
    """Run ``backward`` without recording, so it cannot be differentiated again."""

    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper
