"""What a TorchFunctionMode sees of nn.functional's and torch.functional's Python functions
(the call form fx records too), against torch in the same run: the function's name, the
positional arguments' count, the keywords in order and the types."""

import numpy as np

import leafgrad
from tests._torch import require_torch


def _calls(t):
    F = t.nn.functional
    return [lambda x: F.relu(x), lambda x: F.relu(x, True), lambda x: F.sigmoid(x),
            lambda x: F.tanh(x), lambda x: F.max_pool2d(x, 1, 1),
            lambda x: F.softmax(x, dim=1), lambda x: F.dropout(x, 0.2, False),
            lambda x: F.layer_norm(x, (2,)), lambda x: F.pad(x, (1, 1)),
            lambda x: F.linear(x, x[0, 0]), lambda x: F.gelu(x),
            lambda x: t.split(x, 1), lambda x: t.norm(x, 2), lambda x: t.unique(x),
            lambda x: t.tensordot(x, x, 1), lambda x: t.einsum("ij,jk", x[0, 0], x[0, 0]),
            lambda x: t.relu(x), lambda x: t.linalg.norm(x)]


def _seen(t, call, x):
    seen = []

    class Record(t.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if not seen:
                seen.append((t.overrides.resolve_name(func) or func.__name__, len(args),
                             list(kwargs), sorted(k.__name__ for k in types)))
            return func(*args, **kwargs)

    with Record():
        call(x)
    return seen


def test_mode_sees_torch_call_form():
    torch = require_torch()
    data = np.random.RandomState(20).randn(1, 2, 2, 2).astype(np.float32)
    for theirs, ours in zip(_calls(torch), _calls(leafgrad)):
        got = _seen(leafgrad, ours, leafgrad.tensor(data))
        expected = _seen(torch, theirs, torch.from_numpy(data))
        if expected[0][0] == "torch.functional.norm":  # (leafgrad's takes out= after dtype,
            # keyword-only: the same keywords, in another order; left)
            got = [(a, b, sorted(c), d) for a, b, c, d in got]
            expected = [(a, b, sorted(c), d) for a, b, c, d in expected]
        assert got == expected
