"""nn.utils against torch: gradient clipping (every norm type, error_if_nonfinite, empty and
partly-None gradients) and parameters <-> vector."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _params(lib, grads=True):
    rng = np.random.default_rng(0)
    params = [lib.tensor(rng.normal(size=s), requires_grad=True) for s in ((3, 2), (4,), (2,))]
    if grads:
        for i, p in enumerate(params[:2]):  # the last parameter has no gradient
            p.grad = lib.tensor(rng.normal(size=tuple(p.shape)) * (i + 1))
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    def run(lib):
        params = _params(lib)
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
        return total.item(), [None if p.grad is None else p.grad.numpy() for p in params]

    ours, theirs = run(leafgrad), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    for a, b in zip(ours[1], theirs[1]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_clip_value_vectors_and_errors_match_torch():
    def run(lib):
        params = _params(lib)
        lib.nn.utils.clip_grad_value_(params, 0.3)
        clipped = [p.grad.tolist() for p in params[:2]]
        vector = lib.nn.utils.parameters_to_vector(params)
        lib.nn.utils.vector_to_parameters(vector * 2, params)
        bad = _params(lib)
        bad[0].grad[0, 0] = float("nan")
        try:
            lib.nn.utils.clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
            error = None
        except RuntimeError as e:
            error = str(e).splitlines()[0]
        empty = lib.nn.utils.clip_grad_norm_([], 1.0).item()
        return clipped, vector.tolist(), [p.tolist() for p in params], error, empty

    assert run(leafgrad) == run(torch)
