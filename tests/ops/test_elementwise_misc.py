"""heaviside, nextafter, ldexp, frexp, gcd, lcm (ops/elementwise_misc.py): dtypes, edge values,
in-place forms and errors against torch 2.13 (values and gradients: the op table)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

F = "lib.tensor([1.5, -2.0, 0.0, -0.0, float('inf'), float('nan')])"
V = "lib.tensor([0.5, 1.0, 2.0, 3.0, 4.0, 5.0])"
I = "lib.tensor([4, -6, 0, 7, -2**63, 12])"
J = "lib.tensor([6, 4, -3, 0, 0, -18])"

CASES = [
    # heaviside: same dtype only, NaN gives 0, ints and bools accepted
    f"lib.heaviside({F}, {V})", f"lib.heaviside({I}, {J})",
    "lib.heaviside(lib.tensor([True, False]), lib.tensor([False, True]))",
    f"lib.heaviside({F}, {V}.double())", f"lib.heaviside({I}, {V})",
    f"lib.heaviside({F}, 0.5)", f"{F}.heaviside(1)", f"lib.heaviside({F}, values={V})",
    f"{F}.heaviside_({V})", f"lib.heaviside({F}[:1], {V})",
    "lib.heaviside(lib.tensor([0.0, 1.0]), lib.tensor(7.0))",
    # nextafter: floats only, promotes
    f"lib.nextafter({F}, {V})", f"lib.nextafter({F}, {V}.double())", f"lib.nextafter({I}, {J})",
    f"lib.nextafter({F}, 1.0)", f"{F}.nextafter_({V})", f"{F}.half().nextafter({V}.half())",
    f"{F}.nextafter_({V}.double())", f"{F}[:2].nextafter({V})",
    # ldexp: integer results in the default float dtype; integer exponents exact
    f"lib.ldexp({F}, {J})", f"lib.ldexp({I}, {J} % 5)", f"lib.ldexp({F}, {V})",
    f"lib.ldexp({F}.double(), {J}.int())", f"lib.ldexp({F}.half(), {J})",
    f"lib.ldexp({J}.int(), {F}.double())", f"lib.ldexp({F}, 2)", f"lib.ldexp({F}, {J} * 100)",
    f"lib.ldexp_({F}, {J})", f"{F}.ldexp_({V})", f"{I}.ldexp_({J})",
    "lib.ldexp(lib.tensor([True, False]), lib.tensor([True, True]))",
    # frexp: float only; exponent int32
    f"lib.frexp({F})", f"lib.frexp({F}.double())", f"lib.frexp({F}.half())", f"lib.frexp({I})",
    "lib.frexp(lib.tensor([1e-40, -1e-45, 3.0e38]))", "lib.frexp(lib.tensor(8.0))",
    f"{F}.frexp()", "lib.frexp(lib.tensor([True]))",
    # gcd, lcm: integers only, promote, signs as torch
    f"lib.gcd({I}, {J})", f"lib.lcm({I}, {J})", f"lib.gcd({I}.to(lib.uint8), {J}.to(lib.int8))",
    f"lib.lcm({I}.int(), {J})", f"lib.gcd({F}, {V})", f"lib.lcm({I}, {V})",
    "lib.gcd(lib.tensor([True]), lib.tensor([False]))", f"lib.gcd({I}, 3)", f"{I}.gcd(3)",
    f"lib.gcd_({I}, {J})", f"lib.lcm_({I}, {J})", f"{I}.gcd_({J}.int())", f"{I}.int().gcd_({J})",
    f"{I}.lcm_({J})", "lib.lcm(lib.tensor([2**40]), lib.tensor([3**30]))",
    f"lib.gcd({I}[:2], {J})",
]


def _outcome(lib, code):
    try:
        value = eval(code, {"lib": lib})  # noqa: S307 - the table's calls
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    values = tuple(value) if isinstance(value, tuple) else (value,)
    return [(str(v.dtype).split(".")[-1], v.numpy()) for v in values]


@pytest.mark.parametrize("code", CASES)
def test_values_dtypes_and_errors_match_torch(code):
    ours, theirs = _outcome(leafgrad, code), _outcome(torch, code)
    if isinstance(theirs, tuple):
        assert ours == theirs
        return
    assert len(ours) == len(theirs)
    for (dtype, value), (t_dtype, t_value) in zip(ours, theirs):
        assert dtype == t_dtype
        np.testing.assert_array_equal(value, t_value)  # bit-for-bit: these ops are exact


@pytest.mark.parametrize("code", ["lib.heaviside(x, y)", "x.heaviside(y.detach())",
                                  "lib.heaviside(x.detach(), y)", "(x * 1).heaviside_(y)"])
def test_heaviside_records_a_node_without_derivative(code):
    def run(lib):
        x = lib.tensor([1.5, 0.0, -1.0], requires_grad=True)
        y = lib.tensor([0.5, 0.25, 2.0], requires_grad=True)
        out = eval(code, {"lib": lib, "x": x, "y": y})  # noqa: S307
        node = out.grad_fn
        try:
            out.sum().backward()
        except Exception as error:  # noqa: BLE001
            raised = type(error).__name__, str(error).splitlines()[0]
        else:
            raised = None
        return node.name(), type(node).__name__, len(node.next_functions), raised

    assert run(leafgrad) == run(torch)


def test_heaviside_has_no_forward_derivative():
    def run(lib):
        forward_ad = lib.autograd.forward_ad
        with forward_ad.dual_level():
            x = forward_ad.make_dual(lib.tensor([1.0, 0.0]), lib.tensor([1.0, 1.0]))
            try:
                lib.heaviside(x, lib.tensor([0.5, 0.5]))
            except Exception as error:  # noqa: BLE001
                return type(error).__name__, str(error).splitlines()[0]

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ldexp_and_frexp_gradients_with_integer_exponents(dtype):
    """torch's ldexp gradient uses pow(2, other) in the exponent's integer dtype (0 for negative
    exponents); frexp's is grad / 2 ** exponent."""

    def run(lib):
        x = lib.tensor([1.5, -2.0, 0.75, 3.0], dtype=getattr(lib, dtype), requires_grad=True)
        k = lib.tensor([3, -2, 0, 62])
        (lib.ldexp(x, k) * lib.arange(4.0)).sum().backward()
        first = x.grad.clone()
        x.grad = None
        (lib.frexp(x).mantissa * lib.arange(4.0)).sum().backward()
        return first.numpy(), x.grad.numpy()

    for ours, theirs in zip(run(leafgrad), run(torch)):
        np.testing.assert_array_equal(ours, theirs)
