"""``Tensor.random_()`` with no range draws torch's numbers for every dtype (the DataLoader's
seeds come from an int64 draw), and leaves the stream where torch leaves it."""

from __future__ import annotations

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8", "bool"])
@pytest.mark.parametrize("explicit_generator", [False, True])
def test_random_fill_default_range_matches_torch(dtype, explicit_generator):
    def run(lib):
        lib.manual_seed(0)
        generator = lib.Generator().manual_seed(7) if explicit_generator else None
        values = lib.empty(2, 5, dtype=getattr(lib, dtype)).random_(generator=generator)
        ranged = lib.empty(4, dtype=getattr(lib, dtype)).random_(2, generator=generator)
        return values.tolist(), ranged.tolist(), lib.rand(3).tolist()

    assert run(leafgrad) == run(torch)
