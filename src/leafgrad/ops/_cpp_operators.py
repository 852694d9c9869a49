"""Note: C++ operators in backward formulas.

torch writes its backward formulas (derivatives.yaml, FunctionsManual.cpp) in C++, where a
Tensor and a number meet in ATen's operators, not Python's: ``x * x + 1`` is ``add.Scalar``
(AddBackward1, one edge), ``x - 1`` ``sub.Scalar`` (SubBackward1), ``x * 2`` and ``2 * x``
``mul.Scalar`` (MulBackward1), ``x / 2`` ``div.Scalar`` (DivBackward1), and a number on the
left of ``-`` or ``/`` fills a new tensor shaped as the other operand and subtracts or divides
in place (``empty_like(y).fill_(1).sub_(y)``: SubBackward0 / DivBackward0 with no edge for the
filled operand). In Python the number becomes a wrapped 0-d tensor (AddBackward0 with a None
edge, RsubBackward1, ``y.reciprocal() * 2``). A create_graph backward records what the
formula runs, so while an op's backward runs with grad mode on (registry.Op._apply sets
grad_mode.state.cpp_formula), Tensor's operators take these forms for a floating or complex
tensor and a real Python number. User code (hooks, custom Functions' backward) runs outside
it and keeps Python's forms.
"""

from __future__ import annotations

from .. import _dtype
from .special_fns import AddScalarFormula
from .elementwise import Div, MulScalar, Sub, SubScalar
from .loss import DivScalar


def _full(like, number):
    from .. import full_like

    return full_like(like.detach(), number)


def _inexact(tensor) -> bool:
    return _dtype.is_inexact(tensor._data)


def add(tensor, number):
    """C++'s ``tensor + number`` (also for ATen composites written in C++: pairwise_distance's
    ``+ eps``); Python's for other dtypes."""
    if not _inexact(tensor):
        return tensor + number
    return AddScalarFormula.apply(tensor, other=number)


def sub(tensor, number):
    return SubScalar.apply(tensor, other=number)


def rsub(tensor, number):
    return Sub.apply(_full(tensor, number), tensor)


def mul(tensor, number):
    if not _inexact(tensor):
        return tensor * number
    return MulScalar.apply(tensor, other=number)


def div(tensor, number):
    return DivScalar.apply(tensor, other=number)


def rdiv(tensor, number):
    return Div.apply(_full(tensor, number), tensor)
