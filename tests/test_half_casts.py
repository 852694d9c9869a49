"""Casts into float16 as torch's: c10::Half is built from a float, so a float64 value (a Python
float, a float64 or int64 tensor) rounds to float32 first, then to float16 (Note: casts to
float16, _dtype.py). The values sit where the two roundings part: a float32 value on a float16
midpoint."""

import numpy as np

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _values():
    rng = np.random.default_rng(0)
    # float16 midpoints (an odd 12th bit) nudged below float32's resolution, both ways, over
    # the normal and subnormal ranges, around the overflow limit, and plain random values
    # (12 significant bits, the last one set: halfway between two float16 neighbours)
    mantissa = rng.integers(2 ** 10, 2 ** 11, 200) * 2 + 1
    exponent = rng.integers(-14, 15, 200).astype(np.float64)
    midpoints = mantissa * 2.0 ** (exponent - 11)
    nudge = midpoints * 2.0 ** -30
    edges = [65504.0, 65519.9, 65520.0, 65520.1, 2.0 ** -24 * 1.5, 2.0 ** -25 + 2.0 ** -40]
    values = np.concatenate([midpoints + nudge, midpoints - nudge, -(midpoints + nudge), edges,
                             rng.standard_normal(50)])
    return values


def test_casts_to_float16_round_through_float32():
    values = _values()
    ints = np.array([2 ** 24 + 1, 2 ** 25 + 3, -(2 ** 26) - 5, 2049, 4097], dtype=np.int64)
    results = []
    for lib in (lg, torch):
        source = lib.tensor(values)
        written = lib.zeros(len(values), dtype=lib.float16)
        for index, value in enumerate(values[:40]):
            written[index] = float(value)
        filled = [lib.zeros(2, dtype=lib.float16).fill_(float(v)).tolist() for v in values[:40]]
        copied = lib.zeros(len(values), dtype=lib.float16).copy_(source)
        results.append([
            source.half().tolist(), source.to(lib.float16).tolist(),
            lib.tensor(values.tolist(), dtype=lib.float16).tolist(),
            lib.tensor(values, dtype=lib.float16).tolist(),
            lib.as_tensor(values, dtype=lib.float16).tolist(),
            [lib.full((1,), float(v), dtype=lib.float16).item() for v in values[:40]],
            written.tolist(), filled, copied.tolist(),
            lib.tensor(ints).half().tolist(), lib.tensor(ints.tolist(), dtype=lib.float16).tolist(),
            lib.tensor(values.astype(np.complex128)).real.half().tolist(),
        ])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
