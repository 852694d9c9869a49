"""Arguments read as torch's argument parser reads them (third sweep): torch.special's
functions (all C bindings: missing, extra and mistyped arguments), dims of the wrong type,
keyword against positional naming, and operators with operands that are not numbers; each
outcome (value, or exception type and first line) against torch's."""

from __future__ import annotations

import numpy as np

import leafgrad

from ._torch import require_torch
from .test_scalars_findings import _outcome

torch = require_torch()


def _kind(outcome):
    """An outcome as these tests compare it: an exception by type and first line, a result by
    dtype and shape (its values are other tests' concern: some special functions differ from
    torch's in the last bit)."""
    if isinstance(outcome, tuple) and len(outcome) == 3 and isinstance(outcome[2], tuple):
        return outcome[0], outcome[2]
    if isinstance(outcome, tuple) and outcome and isinstance(outcome[0], tuple):
        return tuple(_kind(item) for item in outcome)
    return outcome


def _differences(cases):
    """``cases``: (label, call of a library); the labels whose outcomes differ."""
    found = []
    for label, call in cases:
        expected = _kind(_outcome(lambda: call(torch)))
        got = _kind(_outcome(lambda: call(leafgrad)))
        if expected != got:
            found.append((label, expected, got))
    return found

# arguments of every kind a parameter may be given
WRONG = {"str": lambda L: "a", "None": lambda L: None, "list": lambda L: [1.0],
         "float": lambda L: 1.5, "bool": lambda L: True, "tensor0": lambda L: L.tensor(0.5),
         "ndarray": lambda L: np.array([1.0]), "dtype": lambda L: L.float64}


def _x(L):
    return L.tensor([0.5, 1.5])


def _special_names():
    return sorted(name for name in dir(torch.special) if not name.startswith("_")
                  and type(getattr(torch.special, name)).__name__ == "builtin_function_or_method")


def test_special_functions_arity_keywords_and_types():
    """torch.special's functions are C bindings named special_<name>: a missing or extra
    argument, an unknown keyword or a mistyped one is its parser's error for the call as given
    (leafgrad: Python's, naming _scalar_overloads.<locals>.function or the bare name, or a
    NumPy ValueError for a polynomial's str n)."""
    cases = []
    for name in _special_names():
        def fn(L, n=name):
            return getattr(L.special, n)

        for count in range(4):
            cases.append((f"{name} {count} tensors",
                          lambda L, f=fn, k=count: f(L)(*[_x(L)] * k)))
        cases.append((f"{name} unknown keyword", lambda L, f=fn: f(L)(_x(L), foo=1)))
        cases.append((f"{name} out=int", lambda L, f=fn: f(L)(_x(L), out=1)))
        for label, make in WRONG.items():
            cases += [
                (f"{name} first {label}", lambda L, f=fn, m=make: f(L)(m(L))),
                (f"{name} first {label} second tensor",
                 lambda L, f=fn, m=make: f(L)(m(L), _x(L))),
                (f"{name} second {label}", lambda L, f=fn, m=make: f(L)(_x(L), m(L))),
            ]
    assert _differences(cases) == []


def test_special_functions_by_keyword():
    """torch's parameter names by keyword (x and n for the polynomials, input and other for
    xlogy/zeta/gammainc, x for airy_ai): valid calls compute, mistyped ones name the argument
    without a position or list the call's keywords."""
    pairs = {"x": ("x", "n"), "input": ("input", "other")}
    cases = []
    for name in _special_names():
        def fn(L, n=name):
            return getattr(L.special, n)

        for first, second in pairs.values():
            cases.append((f"{name} {first}=", lambda L, f=fn, a=first: f(L)(**{a: _x(L)})))
            cases.append((f"{name} {first}= {second}=", lambda L, f=fn, a=first, b=second: f(L)(
                **{a: _x(L), b: _x(L)})))
            cases.append((f"{name} {second}=", lambda L, f=fn, b=second: f(L)(
                _x(L), **{b: _x(L)})))
            for label, make in WRONG.items():
                cases.append((f"{name} {first}={label}", lambda L, f=fn, a=first, m=make: f(L)(
                    **{a: m(L)})))
                cases.append((f"{name} {second}={label}", lambda L, f=fn, b=second, m=make: f(L)(
                    _x(L), **{b: m(L)})))
    assert _differences(cases) == []
