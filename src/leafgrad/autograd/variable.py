"""``autograd.Variable``: the pre-0.4 wrapper, now any Tensor (torchviz imports it).

``Variable(t, requires_grad=True)`` returns a new leaf sharing ``t``'s data, and
``isinstance(x, Variable)`` is true for every tensor, as in torch.
"""

from __future__ import annotations

__all__ = ["Variable"]


class VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from ..tensor import Tensor

        return isinstance(other, Tensor)


class _ImperativeEngine:
    """``Variable._execution_engine``: the engine's entry points that code reaches for."""

    @staticmethod
    def queue_callback(callback) -> None:
        from .engine import queue_callback

        queue_callback(callback)


class Variable(metaclass=VariableMeta):
    _execution_engine = _ImperativeEngine()

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        import operator

        from ..tensor import Tensor, _wrap

        # torch parses both flags as C integers ("b"): ints and bools only
        requires_grad, volatile = operator.index(requires_grad), operator.index(volatile)
        if volatile:  # (warned before the refusal below, as torch)
            import warnings

            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            import numpy as np

            data = _wrap(np.zeros(0, dtype=np.float32))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        result = data.detach()
        if requires_grad:
            result._set_requires_grad(True)
        return result
