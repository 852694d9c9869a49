"""torch.func.functionalize and debug_unwrap against torch: outputs, input mutations, views
copied under remove="mutations_and_views", torch's error for a bad ``remove``."""

from __future__ import annotations

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _run(lib):
    def f(x):
        y = x.clone()
        y.add_(1)
        x.mul_(2)
        return y.view(-1), x[0]

    seen = []
    for remove in ("mutations", "mutations_and_views"):
        x = lib.ones(2, 2)
        out, row = lib.func.functionalize(f, remove=remove)(x)
        seen.append((out.tolist(), row.tolist(), x.tolist(), x._version, out._base is None,
                     row._base is None))
    try:
        lib.func.functionalize(f, remove="bad")
    except RuntimeError as error:
        seen.append(str(error))
    a = lib.ones(3, requires_grad=True)
    r = lib.func.functionalize(lambda t: (t * t).sum())(a)
    r.backward()
    seen.append((type(r.grad_fn).__name__, a.grad.tolist()))
    seen.append(lib.func.debug_unwrap(lib.ones(1)).tolist())
    return seen


def test_functionalize_matches_torch():
    assert _run(leafgrad) == _run(torch)
