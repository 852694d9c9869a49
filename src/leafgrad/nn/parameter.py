"""``nn.Parameter`` (a leaf tensor a Module registers as learnable) and ``nn.Buffer``."""

from __future__ import annotations

from ..tensor import Tensor, _wrap

__all__ = ["Parameter", "Buffer"]


def _alias(cls, data: Tensor, requires_grad: bool) -> Tensor:
    """A ``cls`` instance sharing ``data``'s memory and version counter, with no history."""
    if data._data.dtype.kind != "f" and requires_grad:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t = object.__new__(cls)
    plain = _wrap(data._data, bool(requires_grad))
    for slot in Tensor.__slots__:
        if slot not in ("__weakref__", "__dict__", "_fw_grad", "_post_acc_hooks"):
            object.__setattr__(t, slot, getattr(plain, slot))
    t._vc = data._version_counter()
    return t


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning it to a Module attribute registers it.

    >>> w = leafgrad.nn.Parameter(leafgrad.zeros(2))
    >>> w
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .._creation import empty

            data = empty(0)
        return _alias(cls, data, requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(_wrap(self._data.copy()), self._requires_grad)
        if self._grad is not None:
            result._grad = _wrap(self._grad._data.copy())
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad))

    @classmethod
    def _from_tensor(cls, tensor: Tensor) -> "Parameter":
        return cls(tensor, tensor._requires_grad)


def _rebuild_parameter(data, requires_grad: bool) -> Parameter:
    return Parameter(_wrap(data), requires_grad)


class Buffer(Tensor):
    """Marks a tensor as a buffer when assigned to a Module attribute (``nn.Buffer`` in torch).

    Assigning one registers it with ``register_buffer`` (``persistent`` as given) and stores the
    plain tensor, as torch does.
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            from .._creation import empty

            data = empty(0)
        t = _alias(cls, data, data._requires_grad)
        t.persistent = persistent
        return t
