"""nn.functional's channel-wise and alpha dropouts against torch: the same seed gives the same
masks, every call form (keyword, in-place, unbatched, eval, p = 0 / 1), the same grad_fn and
gradients, and torch's warnings for the deprecated ranks of dropout2d/3d."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [
    ("dropout1d", (3, 4, 5), dict(p=0.3)),
    ("dropout1d", (4, 5), dict(p=0.5)),
    ("dropout1d", (3, 4, 5), dict(p=0.3, training=False)),
    ("dropout2d", (2, 3, 4, 4), dict(p=0.6)),
    ("dropout2d", (2, 3, 4), dict(p=0.4)),  # taken as (N, C, L), with torch's warning
    ("dropout2d", (2, 3, 4, 4, 2), dict(p=0.4)),  # deprecated rank: a warning, still works
    ("dropout3d", (2, 3, 2, 2, 2), dict(p=0.5)),
    ("dropout3d", (3, 2, 2, 2), dict(p=0.5)),
    ("dropout3d", (2, 3, 2, 2, 2), dict(p=1.0)),
    ("alpha_dropout", (6, 7), dict(p=0.3, training=True)),
    ("alpha_dropout", (6, 7), dict(p=0.3)),  # training defaults to False here
    ("alpha_dropout", (6, 7), dict(p=1.0, training=True)),
    ("feature_alpha_dropout", (3, 4, 5), dict(p=0.2, training=True)),
    ("dropout2d", (0, 3, 4, 4), dict(p=0.5)),
]


def _run(lib, name, shape, kwargs, dtype, inplace):
    lib.manual_seed(3)
    base = lib.tensor(np.random.default_rng(1).normal(size=shape), dtype=getattr(lib, dtype),
                      requires_grad=True)
    x = base * 1 if inplace else base  # in-place needs a non-leaf
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = getattr(lib.nn.functional, name)(x, inplace=inplace, **kwargs)
    messages = [str(w.message) for w in caught]
    node = out.grad_fn.name() if out.grad_fn is not None else None
    weight = lib.tensor(np.random.default_rng(2).normal(size=shape), dtype=out.dtype)
    (out * weight).sum().backward()
    after = lib.rand(3)  # the generator moved exactly as far as torch's
    return dict(out=out.detach().numpy(), grad=base.grad.numpy(), node=node,
                same=out is x, messages=messages, after=after.numpy())


@pytest.mark.parametrize("inplace", [False, True], ids=["out", "inplace"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shape,kwargs", CASES,
                         ids=[f"{n}-{s}-{k}" for n, s, k in CASES])
def test_dropout_variants_match_torch(name, shape, kwargs, dtype, inplace):
    ours = _run(leafgrad, name, shape, kwargs, dtype, inplace)
    theirs = _run(torch, name, shape, kwargs, dtype, inplace)
    np.testing.assert_array_equal(ours["out"], theirs["out"])
    np.testing.assert_array_equal(ours["grad"], theirs["grad"])
    np.testing.assert_array_equal(ours["after"], theirs["after"])
    assert ours["same"] == theirs["same"]
    assert ours["messages"] == theirs["messages"]
    assert ours["node"] == theirs["node"]


@pytest.mark.parametrize("code", [
    "F.dropout1d(lib.zeros(2, 3, 4, 5))", "F.dropout1d(lib.zeros(3), 0.5)",
    "F.dropout2d(lib.zeros(2, 3, 4), 1.5)", "F.dropout3d(lib.zeros(2, 3, 4), -1)",
    "F.alpha_dropout(lib.zeros(2), 2.0)", "F.feature_alpha_dropout(lib.zeros(3), 0.5, True)",
])
def test_dropout_errors_match_torch(code):
    def run(lib):
        try:
            eval(code, {"lib": lib, "F": lib.nn.functional})  # noqa: S307 - literals above
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0]
        return None

    expected = run(torch)
    assert expected is not None
    assert run(leafgrad) == expected


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call,shapes", [
    ("F.cosine_similarity(a, b)", [(3, 4), (3, 4)]),
    ("F.cosine_similarity(a, b, dim=0, eps=1e-3)", [(3, 4), (1, 4)]),
    ("F.cosine_similarity(a * 1e-9, b, dim=-1)", [(2, 3), (2, 3)]),  # a norm below eps
    ("F.bilinear(a, b, c)", [(4, 2), (4, 3), (5, 2, 3)]),
    ("F.bilinear(a, b, c, d)", [(2, 4, 2), (2, 4, 3), (5, 2, 3), (5,)]),
    ("F.rms_norm(a, (4,))", [(3, 4)]),
    ("F.rms_norm(a, [2, 4], b, 1e-2)", [(3, 2, 4), (2, 4)]),
    ("F.rms_norm(a * 1e-5, (4,), eps=None)", [(3, 4)]),
])
def test_functional_layers_match_torch(call, shapes, dtype):
    def run(lib):
        rng = np.random.default_rng(4)
        tensors = [lib.tensor(rng.normal(size=s), dtype=getattr(lib, dtype), requires_grad=True)
                   for s in shapes]
        names = dict(zip("abcd", tensors))
        out = eval(call, {"F": lib.nn.functional, **names})  # noqa: S307 - literals above
        weight = lib.tensor(rng.normal(size=tuple(out.shape)), dtype=out.dtype)
        (out * weight).sum().backward()
        return [out.detach().numpy()] + [t.grad.numpy() for t in tensors], out.grad_fn.name()

    (ours, our_node), (theirs, their_node) = run(leafgrad), run(torch)
    assert our_node == their_node
    tol = dict(rtol=2e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, **tol)
