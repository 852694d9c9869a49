"""Run one program with leafgrad and with torch; compare results or errors."""

from __future__ import annotations

import numpy as np

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _leaves(tree):
    if isinstance(tree, dict):
        return [leaf for key in tree for leaf in _leaves(tree[key])]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]


def _structure(tree):
    if isinstance(tree, dict):
        return ("dict", tuple(tree), tuple(_structure(v) for v in tree.values()))
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__, tuple(_structure(v) for v in tree))
    return "leaf"


def same(program, *, rtol=1e-10, atol=1e-12, requires_grad=True):
    """``program(lib)`` with both libraries: same structure, shapes, dtypes, values (and
    requires_grad); or the same exception type and first line of message."""
    try:
        want = program(torch)
    except Exception as error:  # noqa: BLE001 - any torch error must be matched
        try:
            program(leafgrad)
        except Exception as ours:  # noqa: BLE001
            assert type(ours).__name__ == type(error).__name__, (ours, error)
            assert str(ours).splitlines()[0] == str(error).splitlines()[0]
            return None
        raise AssertionError(f"torch raised {type(error).__name__}: {error}, leafgrad did not")
    got = program(leafgrad)
    assert _structure(got) == _structure(want)
    for ours, theirs in zip(_leaves(got), _leaves(want)):
        if isinstance(theirs, torch.Tensor):
            assert isinstance(ours, leafgrad.Tensor), type(ours)
            assert tuple(ours.shape) == tuple(theirs.shape)
            assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
            if requires_grad:
                assert ours.requires_grad == theirs.requires_grad
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                       rtol=rtol, atol=atol)
        else:
            assert ours == theirs
    return got
