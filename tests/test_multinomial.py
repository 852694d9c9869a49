"""multinomial with replacement draws torch's indices for the same seed (1-d and 2-d, float32
and float64, explicit generators), so WeightedRandomSampler gives torch's order; errors."""

from __future__ import annotations

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _run(lib, code):
    lib.manual_seed(0)
    try:
        value = eval(code, {"lib": lib})  # noqa: S307
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return (value.tolist() if hasattr(value, "tolist") else value), lib.rand(2).tolist()


CASES = [
    "lib.multinomial(lib.tensor([0.1, 0.2, 0.7]), 10, True)",
    "lib.multinomial(lib.tensor([[1.0, 2, 3, 4], [4.0, 0, 0, 1]], dtype=lib.float64), 6, True)",
    "lib.multinomial(lib.tensor([0.3, 0.3, 0.4]), 5, True, generator=lib.Generator().manual_seed(3))",
    "list(lib.utils.data.WeightedRandomSampler([0.1, 0.9, 0.5, 0.2], 8))",
    "list(lib.utils.data.WeightedRandomSampler([1, 3], 5, generator=lib.Generator().manual_seed(1)))",
    "lib.multinomial(lib.tensor([0.1, -1.0]), 2, True)",
    "lib.multinomial(lib.tensor([0.5, float('nan')]), 1, True)",
    "lib.multinomial(lib.tensor([0.5, 0.5]), 3, False)",
    "lib.multinomial(lib.tensor([0.0, 0.0]), 1, True)",
    "lib.multinomial(lib.tensor([1, 2]), 1, True)",
    "lib.multinomial(lib.tensor([0.5, 0.5]), 0, True)",
]


@pytest.mark.parametrize("code", CASES)
def test_multinomial_matches_torch(code):
    assert _run(leafgrad, code) == _run(torch, code)


def test_without_replacement_draws_distinct_categories():
    leafgrad.manual_seed(0)
    draws = leafgrad.multinomial(leafgrad.tensor([[0.1, 0.2, 0.3, 0.4]] * 50), 4, False)
    assert all(sorted(row) == [0, 1, 2, 3] for row in draws.tolist())
    firsts = [row[0] for row in draws.tolist()]
    assert firsts.count(3) > firsts.count(0)  # heavier categories come first more often
