"""The in-place comparisons' own nodes: ``x.gt_(0)`` writes 1 and 0 into ``x`` and, when
recording, gives ``x`` torch's ``GtBackward0`` (a number ``other``) or ``GtBackward1`` (a tensor
``other``, which may be the one that requires grad). Their gradients are zeros for ``self`` and
a tensor ``other`` (torch's ``zeros_like``), their tangent a zero tangent; they save nothing.
The out-of-place comparisons (elementwise.py) give bool tensors that never require grad."""

from __future__ import annotations

from ._forward import zeros_tangent
from ._masks import zeros_tensor
from .elementwise import Eq, Ge, Gt, Le, Lt, Ne
from .registry import register


class _CompareInplace:
    """Mixed into each comparison: the result in ``self``'s dtype, and a zero gradient."""

    __slots__ = ()
    differentiable = True

    @classmethod
    def forward(cls, ctx, a, other):
        return super().forward(ctx, a, other).astype(a.dtype)

    def backward(self, grad):
        zeros = zeros_tensor(self.input_shape(), grad._data.dtype)
        if len(self._input_meta) == 1:  # a number other (Backward0): a parameter, no edge
            return zeros
        shape, dtype = self._input_meta[1]  # a tensor other (Backward1): zeros like it
        return zeros, zeros_tensor(shape, dtype)

    def jvp(self, tangents, primals, result):
        return zeros_tangent(result)


def _make(base, overload: int, method: str):
    """The in-place op ``method`` (``Tensor.gt_``) for one overload: 0 for a number ``other``,
    1 for a tensor one (the node's name ends in that digit, as torch's does)."""
    name = f"{base.op_name}{'Tensor' if overload else ''}Inplace"
    node = f"{base.node[:-1]}{overload}"
    return type(name, (_CompareInplace, base), {
        "__slots__": (),
        "inputs": ("self", "other") if overload else ("self",),
        # a number other is an operand of the wide-unsigned check (uint16 < 0.5 computes)
        "uint_params": () if overload else ("other",),
        "node": node,
        # torch's kernel message names the out-of-place op ("gt_cpu" for gt_ on complex)
        "complex_message": None if base.complex_ok else
        f'"{base.torch_names[0]}_cpu" not implemented for \'ComplexFloat\'',
        "torch_names": (f"Tensor.{method}",),
        "__module__": __name__,
    })


# One op per (comparison, overload); ``register`` names each class after its node.
EqInplace = register(_make(Eq, 0, "eq_"))
EqTensorInplace = register(_make(Eq, 1, "eq_"))
NeInplace = register(_make(Ne, 0, "ne_"))
NeTensorInplace = register(_make(Ne, 1, "ne_"))
LtInplace = register(_make(Lt, 0, "lt_"))
LtTensorInplace = register(_make(Lt, 1, "lt_"))
LeInplace = register(_make(Le, 0, "le_"))
LeTensorInplace = register(_make(Le, 1, "le_"))
GtInplace = register(_make(Gt, 0, "gt_"))
GtTensorInplace = register(_make(Gt, 1, "gt_"))
GeInplace = register(_make(Ge, 0, "ge_"))
GeTensorInplace = register(_make(Ge, 1, "ge_"))

INPLACE = {  # the out-of-place op -> its in-place ops for a number and a tensor ``other``
    Eq: (EqInplace, EqTensorInplace), Ne: (NeInplace, NeTensorInplace),
    Lt: (LtInplace, LtTensorInplace), Le: (LeInplace, LeTensorInplace),
    Gt: (GtInplace, GtTensorInplace), Ge: (GeInplace, GeTensorInplace),
}
