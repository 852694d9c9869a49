"""nn.CrossMapLRN2d (torch's legacy cross-channel LRN) against torch: its repr, node name,
float32 forward and gradients bit for bit (float64 within the last bits of float64 pow), its
error for non-4-d input, and torch's own failure for size 1's backward."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _run(lib, size, shape, dtype, seed):
    lib.manual_seed(seed)
    module = lib.nn.CrossMapLRN2d(size, alpha=1e-2, beta=0.75, k=1)
    x = (lib.randn(shape, dtype=dtype) * 2).requires_grad_()
    y = module(x)
    try:
        y.backward(lib.randn(shape, dtype=dtype))
        grad = x.grad.numpy()
    except RuntimeError as error:
        grad = str(error)
    return repr(module), type(y.grad_fn).__name__, y.detach().numpy(), grad


def test_cross_map_lrn2d_matches_torch():
    for size, shape, dtype in itertools.product((1, 2, 3, 4, 5),
                                                ((2, 4, 3, 3), (1, 7, 2, 5), (3, 1, 2, 2)),
                                                ("float32", "float64")):
        theirs = _run(torch, size, shape, getattr(torch, dtype), size)
        ours = _run(leafgrad, size, shape, getattr(leafgrad, dtype), size)
        assert theirs[:2] == ours[:2]
        assert isinstance(theirs[3], str) == isinstance(ours[3], str), (size, shape)
        pairs = [(theirs[2], ours[2])] + ([] if isinstance(ours[3], str) else
                                          [(theirs[3], ours[3])])
        if isinstance(ours[3], str):
            assert ours[3] == theirs[3]
        for a, b in pairs:
            if dtype == "float32":
                assert a.tobytes() == b.tobytes(), (size, shape)
            else:  # (float64 pow's last bit: 1-2 elements of 70)
                np.testing.assert_allclose(b, a, rtol=4e-16 * 4, atol=0)
    for lib in (torch, leafgrad):
        try:
            lib.nn.CrossMapLRN2d(3)(lib.ones(2, 3, 4))
        except ValueError as error:
            assert str(error) == "CrossMapLRN2d: Expected input to be 4D, got 3D instead."
        else:
            raise AssertionError("3-d input was accepted")
