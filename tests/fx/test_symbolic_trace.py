"""leafgrad.fx.symbolic_trace against torch.fx in the same run: the printed graph, the
generated code, the GraphModule's repr, every node (opcode, name, target, args, kwargs,
users) and the traced module's results, for a dozen models (tests/fx/_models.py)."""

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

from . import _models
from ._harness import assert_same_values, node_rows, pair, to_numpy


@pytest.mark.parametrize("build", _models.MODELS + _models.EXTRA, ids=lambda b: b.__name__)
def test_trace_matches_torch(build):
    torch = require_torch()
    theirs, ours, targs, largs = pair(build)
    tgm = torch.fx.symbolic_trace(theirs)
    lgm = leafgrad.fx.symbolic_trace(ours)
    assert str(lgm.graph) == str(tgm.graph)
    assert lgm.code == tgm.code
    assert str(lgm) == str(tgm)
    assert type(lgm).__name__ == type(tgm).__name__
    assert node_rows(lgm.graph) == node_rows(tgm.graph)
    assert sorted(k for k, _ in lgm.named_parameters()) == \
        sorted(k for k, _ in tgm.named_parameters())
    assert sorted(k for k, _ in lgm.named_buffers()) == sorted(k for k, _ in tgm.named_buffers())
    # the traced module computes what the model does (bit for bit in each library)
    with torch.no_grad():
        expected = to_numpy(tgm(*targs))
        assert_same_values(to_numpy(theirs(*targs)), expected, exact=True)
    with leafgrad.no_grad():
        got = to_numpy(lgm(*largs))
        assert_same_values(to_numpy(ours(*largs)), got, exact=True)
    assert_same_values(expected, got)


@pytest.mark.parametrize("concrete", [{"mode": "max", "times": 1}, {"mode": "sum", "times": 3},
                                      ("sum", 0), {"times": 2, "mode": "sum"}])
def test_concrete_args(concrete):
    torch = require_torch()
    theirs, ours, targs, largs = pair(_models.control_flow)
    if isinstance(concrete, tuple):  # (every argument, positionally)
        concrete = (leafgrad.fx.PH,) + concrete
        tconcrete = (torch.fx.PH,) + concrete[1:]
    else:
        tconcrete = concrete
    tgm = torch.fx.symbolic_trace(theirs, concrete_args=tconcrete)
    lgm = leafgrad.fx.symbolic_trace(ours, concrete_args=concrete)
    assert str(lgm.graph) == str(tgm.graph)
    assert lgm.code == tgm.code
    assert node_rows(lgm.graph) == node_rows(tgm.graph)
    values = {"mode": "sum", "times": 2}  # (the placeholders take them in order)
    values.update(concrete if isinstance(concrete, dict) else zip(("mode", "times"),
                                                                  concrete[1:]))
    with torch.no_grad():
        expected = to_numpy(tgm(*targs, values["mode"], values["times"]))
    with leafgrad.no_grad():
        got = to_numpy(lgm(*largs, values["mode"], values["times"]))
    assert_same_values(expected, got)
    # another value than the specialised one fails torch._assert, in both
    other = ("sum" if values["mode"] == "max" else "max", values["times"])
    with pytest.raises(AssertionError) as theirs_error:
        tgm(*targs, *other)
    with pytest.raises(AssertionError) as ours_error:
        lgm(*largs, *other)
    assert str(ours_error.value) == str(theirs_error.value)


def test_dtype_arguments():
    """dtypes in the generated code are torch's names (the program's ``torch`` is leafgrad);
    the printed graph spells them as leafgrad prints them (str(leafgrad.float64))."""
    torch = require_torch()
    theirs, ours, targs, largs = pair(_models.dtypes)
    tgm = torch.fx.symbolic_trace(theirs)
    lgm = leafgrad.fx.symbolic_trace(ours)
    assert lgm.code == tgm.code
    assert [(n.op, n.name, n.target if isinstance(n.target, str) else n.target.__name__)
            for n in lgm.graph.nodes] == [
        (n.op, n.name, n.target if isinstance(n.target, str) else n.target.__name__)
        for n in tgm.graph.nodes]
    assert_same_values(to_numpy(tgm(*targs)), to_numpy(lgm(*largs)), exact=True)


def _structures(t):
    from collections import namedtuple

    pair_type = namedtuple("Pair", ["a", "b"])

    def from_dict(x, d):
        return t.relu(x) + d["a"], pair_type(x, x + 1)

    return from_dict


def test_dict_inputs_named_tuples_and_dict_roots():
    torch = require_torch()
    tgm = torch.fx.symbolic_trace(_structures(torch))
    lgm = leafgrad.fx.symbolic_trace(_structures(leafgrad))
    assert lgm.code.replace("leafgrad", "torch") == lgm.code  # (no leafgrad name in it)
    assert lgm.code == tgm.code
    assert node_rows(lgm.graph)[:-2] == node_rows(tgm.graph)[:-2]  # (the tuple types differ)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    t_out = tgm(torch.from_numpy(x), {"a": torch.ones(3)})
    l_out = lgm(leafgrad.tensor(x), {"a": leafgrad.ones(3)})
    assert type(l_out[1]).__name__ == type(t_out[1]).__name__ == "Pair"
    assert_same_values(to_numpy(t_out), to_numpy(l_out), exact=True)
    # a GraphModule built from a dict of targets
    theirs, ours, targs, largs = pair(_models.annotated)
    tgm = torch.fx.GraphModule({"lin": theirs.lin}, torch.fx.symbolic_trace(theirs).graph,
                               "FromDict")
    lgm = leafgrad.fx.GraphModule({"lin": ours.lin}, leafgrad.fx.symbolic_trace(ours).graph,
                                  "FromDict")
    assert str(lgm) == str(tgm)
    assert_same_values(to_numpy(tgm(*targs)), to_numpy(lgm(*largs)), exact=True)


def test_param_shapes_constant():
    torch = require_torch()

    def build(t):
        class P(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = t.nn.Parameter(t.ones(3, 4))

            def forward(self, x):
                return x.reshape(-1, self.w.shape[0]) @ self.w + self.w.size()[1] + self.w.dim()

        return P(), [np.ones((2, 3), np.float32)]

    theirs, ours, targs, largs = pair(build)
    tgraph = torch.fx.Tracer(param_shapes_constant=True).trace(theirs)
    lgraph = leafgrad.fx.Tracer(param_shapes_constant=True).trace(ours)
    assert str(lgraph) == str(tgraph)
    # torch's ParameterProxy.size() takes no dimension
    with pytest.raises(TypeError) as t_error:
        torch.fx.Tracer(param_shapes_constant=True).trace(
            type("R", (theirs.__class__,), {"forward": lambda s, x: x * s.w.size(1)})())
    with pytest.raises(TypeError) as l_error:
        leafgrad.fx.Tracer(param_shapes_constant=True).trace(
            type("R", (ours.__class__,), {"forward": lambda s, x: x * s.w.size(1)})())
    assert str(l_error.value) == str(t_error.value)


_BOUND_SOURCE = """
from {lib} import relu, cat, exp, matmul, flatten, add
from {lib}.nn.functional import linear, gelu, softmax, layer_norm, dropout


def program(x, w):
    y = relu(x) + cat([x, x], 1).sum(1, keepdim=True) + exp(x) - add(x, 1)
    y = matmul(y, w) + linear(x, w.t()) + gelu(x)
    y = softmax(y, 1) + layer_norm(y, (3,)) + dropout(y, training=False)
    return flatten(y)
"""


def test_functions_bound_before_tracing():
    """``from torch import relu`` at the top of a module: the bound function is recorded as
    torch records it (leafgrad's were bound before its dispatch was on)."""
    import types

    from leafgrad import overrides

    torch = require_torch()
    overrides._deactivate()  # (as in a fresh process: leafgrad's functions undispatched)
    spaces = []
    for lib in ("torch", "leafgrad"):
        module = types.ModuleType(f"bound_{lib}")
        exec(compile(_BOUND_SOURCE.format(lib=lib), f"<bound {lib}>", "exec"), vars(module))
        spaces.append(module)
    tgm = torch.fx.symbolic_trace(spaces[0].program)
    lgm = leafgrad.fx.symbolic_trace(spaces[1].program)
    assert str(lgm.graph) == str(tgm.graph)
    assert lgm.code == tgm.code
    assert type(spaces[1].relu) is not overrides._Dispatcher  # (its own binding, restored)
    x = np.random.RandomState(15).randn(2, 3).astype(np.float32)
    w = np.random.RandomState(16).randn(3, 3).astype(np.float32)
    expected = to_numpy(tgm(torch.from_numpy(x), torch.from_numpy(w)))
    assert_same_values(expected, to_numpy(lgm(leafgrad.tensor(x), leafgrad.tensor(w))))
    assert_same_values(expected, to_numpy(spaces[1].program(leafgrad.tensor(x),
                                                            leafgrad.tensor(w))))
