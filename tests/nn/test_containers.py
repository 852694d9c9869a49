"""Container operations against torch, call by call: Sequential/ModuleList/ModuleDict/
ParameterList/ParameterDict mutation, slicing, arithmetic, merging, reprs and errors."""

from __future__ import annotations

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CALLS = [
    "s = S(R(), T(), G()); r = s.pop(1)",
    "s = S(R(), T()); s.insert(1, E())", "s = S(R(), T()); s.insert(-1, E())",
    "s = S(R(), T()); s.insert(5, E())", "s = S(R()); s.extend([E(), T()])",
    "s = S(R(), T(), G()); del s[0:2]", "s = S(R(), T(), G()); del s[-1]",
    "s = S(R(), T()); s[-1] = E()", "s = S(R(), T()); s[5] = E()",
    "s = S(R(), T(), G()); r = s[::2]",
    "s = S(R()); r = s + S(T())", "s = S(R()); r = s + R()", "s = S(R(), T()); r = s * 2",
    "s = S(R()); r = 2 * s", "s = S(R(), T()); s *= 3", "s = S(R()); s *= 0",
    "s = S(R()); r = s * 1.5",
    "s = S(OD(a=R(), b=T())); s.append(G()); r = s[-1]", "s = S(OD(a=R())); r = s['a']",
    "s = S(R()); r = s[3]", "s = S(R(), T()); r = s[-3]",
    "s = L([R()]); s += [T()]", "s = L([R()]); s.insert(0, T())", "s = L([R(), T()]); r = s.pop(0)",
    "s = L([R()]); r = s[5]", "s = L([R(), T()]); r = s[-1:]", "s = L([R()]); s.extend(3)",
    "s = L([R()]); r = s()", "s = L([R(), T()]) + L([G()])", "s = L([R(), T(), G()]); del s[1]",
    "s = L([R(), T()]); s[0] = G()",
    "s = D({'a': R(), 'b': T()}); r = s.pop('a')", "s = D({'a': R()}); r = s['z']",
    "s = D({'a': R()}); s.update([('c', E())])", "s = D({'a': R()}); s.update(3)",
    "s = D({'a': R()}); s.update([('c', E(), 1)])", "s = D({'b': R(), 'a': T()}); r = list(s)",
    "s = PL([P(lib.ones(1))]); s.append(lib.ones(2))",
    "s = PL([P(lib.ones(1))]); s[0] = lib.ones(3)",
    "s = PL([P(lib.ones(1)), 3])", "s = PL([]); r = s[0]",
    "s = PD({'a': P(lib.ones(1))}); s['x'] = lib.ones(3)",
    "s = PD({'a': P(lib.ones(1))}); r = s.pop('a')",
    "s = PD({'a': P(lib.ones(1))}) | PD({'b': P(lib.ones(2, dtype=lib.float64))})",
    "s = PD({'a': P(lib.ones(1))}); s |= PD({'b': P(lib.ones(2))})",
    "s = PD(); r = s.setdefault('a', lib.ones(2))", "s = PD().fromkeys(['a', 'b'])",
    "s = PD({'a': P(lib.ones(1)), 'b': P(lib.ones(1))}); r = list(reversed(s))",
    "s = PD({'a': P(lib.ones(1))}); r = s['q']", "s = PD({'a.b': P(lib.ones(1))})",
]


def _run(lib, code):
    from collections import OrderedDict

    nn = lib.nn
    names = dict(lib=lib, S=nn.Sequential, L=nn.ModuleList, D=nn.ModuleDict, PL=nn.ParameterList,
                 PD=nn.ParameterDict, P=nn.Parameter, R=nn.ReLU, T=nn.Tanh, G=nn.Sigmoid,
                 E=nn.ELU, OD=OrderedDict)
    try:
        exec(code, names)  # noqa: S102 - the literal calls above
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0].replace("leafgrad", "torch")
    s = names["s"]
    result = names.get("r")
    params = [(n, type(p).__name__, p.requires_grad) for n, p in s.named_parameters()]
    text = repr(s).replace("leafgrad.", "torch.")
    return text, repr(result).replace("leafgrad.", "torch."), params, len(s)


@pytest.mark.parametrize("code", CALLS)
def test_container_operations_match_torch(code):
    assert _run(leafgrad, code) == _run(torch, code)


def test_in_place_repetition_keeps_the_same_object_and_modules():
    for lib in (leafgrad, torch):
        s = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())
        first = list(s)
        same = s.__imul__(3)
        assert same is s and list(s) == first * 3
