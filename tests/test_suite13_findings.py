"""Behaviours found by replaying PyTorch's own nn and tensor test files not covered before
(test/nn/test_pooling.py, test_convolution.py, test_embedding.py, test/test_nn.py's module
parts, test_torch.py's tensor methods, ...) as programs run under torch and leafgrad in one
process; each program's observations (values bit for bit, dtype, shape, strides, grad_fn names,
errors' type and first line, warnings) must be identical."""

from __future__ import annotations

import math

from ._torch import require_torch
from .test_suite11_findings import _same

torch = require_torch()


def _values(lib, *shape, dtype=None):
    """Deterministic values of ``shape`` (sines of a ramp), in ``dtype`` (float32 by default)."""
    count = math.prod(shape)
    values = (lib.arange(count, dtype=lib.float64) * 0.37 + 0.1).sin().reshape(shape)
    return values.to(dtype or lib.float32)


# --- pooling (test/nn/test_pooling.py) ---------------------------------------------------------

def test_fractional_max_pool_checks_its_random_samples():
    # leafgrad indexed whatever _random_samples it was given (a (N, C, 3) tensor for the 2-d
    # pool ran, a short batch or channel count was NumPy's IndexError); torch checks the
    # samples' dtype, rank and (batch, channels, dims) first
    def program(lib, see):
        F = lib.nn.functional
        for dims, pool in ((2, F.fractional_max_pool2d), (3, F.fractional_max_pool3d)):
            for batched in (True, False):
                x = _values(lib, *((2,) if batched else ()), 3, *(7,) * dims)
                for shape in [(2, 3, dims), (3, 3, dims), (1, 3, dims), (2, 2, dims),
                              (2, 4, dims), (2, 3, 1), (2, 3, 2), (2, 3, 3), (2, 3, 4),
                              (2, 3, 0), (2, 3), (2, 3, dims, 1), (0, 3, dims)]:
                    for dtype in (lib.float32, lib.float64):
                        samples = lib.full(shape, 0.5, dtype=dtype)
                        see(lambda: pool(x, 2, output_size=3, _random_samples=samples,
                                         return_indices=True))
                        see(lambda: pool(x, 2, output_ratio=0.5, _random_samples=samples))
                    # the input's rank and the output size are checked first
                    see(lambda: pool(x, 2, output_size=9, _random_samples=lib.full(
                        (2, 3, 5), 0.5)))
            for shape in [(3, 7), (1, 1, 1, 1, 3, 7)]:
                see(lambda: pool(_values(lib, *shape), 2, output_size=3,
                                 _random_samples=lib.full((2, 3, 5), 0.5)))

    _same(program)
