"""add/sub (and their in-place and operator forms) against torch over every pair of operand
dtypes and a range of alphas: torch refuses subtraction with any bool operand, a bool alpha
for non-bool results, a float or complex alpha for integral results and a complex alpha for
real ones, and checks that an in-place result can be written back before it looks at alpha.
Each call's result (values, dtype) or exception (type, first line) and, for in-place calls,
the tensor's values and version afterwards must be torch's."""

from __future__ import annotations

import itertools

import pytest

import leafgrad
from tests._torch import require_torch

DTYPES = ("float32", "float64", "int64", "int8", "bool", "complex64")
ALPHAS = (1, 0, -1, 2, 0.5, True, False, 1j)
METHODS = ("add", "sub", "add_", "sub_")
OPERATORS = ("__add__", "__sub__", "__iadd__", "__isub__", "__rsub__")


def _outcome(lib, call, dtype, other_dtype, alpha=None):
    target = lib.ones(3, dtype=getattr(lib, dtype))
    other = lib.tensor([1, 0, 1], dtype=getattr(lib, other_dtype))
    version = target._version
    try:
        with lib.no_grad():
            method = getattr(target, call)
            result = method(other) if alpha is None else method(other, alpha=alpha)
        outcome = (result.tolist(), str(result.dtype).split(".")[1])
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        outcome = (type(error).__name__, str(error).splitlines()[0])
    return outcome, target.tolist(), target._version - version


@pytest.mark.parametrize("call", METHODS)
@pytest.mark.parametrize("dtype,other_dtype", list(itertools.product(DTYPES, DTYPES)))
def test_methods_match_torch(call, dtype, other_dtype):
    torch = require_torch()
    for alpha in ALPHAS:
        assert _outcome(leafgrad, call, dtype, other_dtype, alpha) == \
            _outcome(torch, call, dtype, other_dtype, alpha), alpha


@pytest.mark.parametrize("call", OPERATORS)
@pytest.mark.parametrize("dtype,other_dtype", list(itertools.product(DTYPES, DTYPES)))
def test_operators_match_torch(call, dtype, other_dtype):
    torch = require_torch()
    assert _outcome(leafgrad, call, dtype, other_dtype) == _outcome(torch, call, dtype,
                                                                     other_dtype)


@pytest.mark.parametrize("expression", [
    "lib.ones(3) - True", "True - lib.ones(3)", "lib.ones(3).sub_(True)",
    "lib.ones(3, dtype=lib.bool) - 1", "1 - lib.ones(3, dtype=lib.bool)",
    "lib.ones(3, dtype=lib.bool).sub(True)", "lib.ones(3) - np.bool_(True)",
    "lib.rsub(lib.ones(3), True)", "lib.sub(lib.ones(3), lib.tensor(True), alpha=2)",
    "lib.ones(3, dtype=lib.bool).add(True, alpha=3)",
])
def test_python_scalars_match_torch(expression):
    import numpy as np

    torch = require_torch()

    def outcome(lib):
        try:
            value = eval(expression, {"lib": lib, "np": np})  # noqa: S307 - the table's calls
            return value.tolist(), str(value.dtype).split(".")[1]
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            return type(error).__name__, str(error).splitlines()[0]

    assert outcome(leafgrad) == outcome(torch)


# -- in-place elementwise ops with an operand that overlaps the target --------------------------
# torch refuses an operand that is part of the written tensor (it would read elements already
# written); the target itself, disjoint parts and copies are fine. Operands torch cannot judge
# (non-dense views such as m[:, :1]) are left out: torch then reads its own partial writes,
# as masked_scatter_ does with a source aliasing self (no overlap check there).
OVERLAP_CALLS = ["add_({})", "sub_({}, alpha=2)", "mul_({})", "div_({})", "pow_({})",
                 "fmod_({})", "remainder_({})", "copysign_({})", "hypot_({})", "atan2_({})",
                 "clamp_min_({})", "clamp_max_({})", "clamp_({}, m[2])", "lerp_({}, 0.5)",
                 "lerp_(m[2], {})", "addcmul_({}, m[2])", "addcdiv_(m[2], {})", "copy_({})",
                 "true_divide_({})", "floor_divide_({})", "xlogy_({})", "float_power_({})",
                 "eq_({})", "lt_({})", "logical_and_({})", "ldexp_({})",
                 "masked_fill_(m > 3, m[0, 0])"]
OPERANDS = ["m[0]", "m.t()", "m", "m.view(-1)[1:4]", "m[0, 0]", "m[0].clone()", "m[1:][0]"]


@pytest.mark.parametrize("call", OVERLAP_CALLS)
@pytest.mark.parametrize("operand", OPERANDS)
def test_inplace_overlap_matches_torch(call, operand):
    torch = require_torch()
    code = "m." + call.format(operand)

    def outcome(lib):
        m = lib.arange(1.0, 10.0).reshape(3, 3)
        version = m._version
        try:
            eval(code, {"m": m, "lib": lib})  # noqa: S307 - the table's calls
            result = "ok"
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            result = (type(error).__name__, str(error).splitlines()[0])
        return result, [round(v, 4) for v in m.reshape(-1).tolist()], m._version - version

    ours, theirs = outcome(leafgrad), outcome(torch)
    assert ours[0] == theirs[0]
    assert ours[1] == pytest.approx(theirs[1], rel=1e-6, nan_ok=True)
    if theirs[0] != "ok":
        assert ours[2] == theirs[2] == 0  # nothing written by a refused call
