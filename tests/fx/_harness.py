"""Shared helpers of the fx tests: build a model in torch and leafgrad with the same weights,
and compare traced graphs, code and results."""

import numpy as np

import leafgrad
from tests._torch import require_torch


def pair(build):
    """(torch's model, leafgrad's model with torch's weights, torch inputs, leafgrad inputs)."""
    torch = require_torch()
    theirs, arrays = build(torch)
    ours, _ = build(leafgrad)
    if isinstance(theirs, torch.nn.Module):
        state = {k: leafgrad.tensor(v.detach().numpy()) for k, v in
                 theirs.state_dict().items()}
        ours.load_state_dict(state)
    return (theirs, ours, [torch.from_numpy(a.copy()) for a in arrays],
            [leafgrad.tensor(a.copy()) for a in arrays])


def node_rows(graph):
    """Each node as text: opcode, name, printed target, args, kwargs, users."""
    return [(n.op, n.name, n._pretty_print_target(n.target), str(n.args), str(n.kwargs),
             [u.name for u in n.users],
             [(k, path, kind.__name__) for k, (path, kind) in
              n.meta.get("nn_module_stack", {}).items()])
            for n in graph.nodes]  # (types: in str(graph))


def to_numpy(value):
    """Nested results as nested NumPy arrays / plain values, for comparing libraries."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return ("tensor", str(value.dtype).split(".")[-1], value.detach().numpy())
    if isinstance(value, dict):
        return {k: to_numpy(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value).__name__ if type(value).__name__ == "Size" else None, \
            [to_numpy(v) for v in value]
    return value


def assert_same_values(a, b, exact=False):
    if isinstance(a, tuple) and len(a) == 3 and a[0] == "tensor":
        assert b[0] == "tensor" and a[1] == b[1], (a, b)
        assert a[2].shape == b[2].shape
        if exact:
            assert a[2].tobytes() == b[2].tobytes()
        else:
            np.testing.assert_allclose(a[2], b[2], rtol=1e-5, atol=1e-6)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert_same_values(a[k], b[k], exact)
    elif isinstance(a, tuple):
        assert a[0] == b[0] and len(a[1]) == len(b[1]), (a, b)
        for x, y in zip(a[1], b[1]):
            assert_same_values(x, y, exact)
    else:
        assert a == b, (a, b)
