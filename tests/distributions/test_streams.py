"""The shared pieces the distributions rely on, against torch: multinomial's fast path
(one sample, or no replacement: torch's exponential race with its exponential_ kernel) and
indexing with a 0-d boolean mask."""

import pytest

from tests.distributions._compare import assert_same


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,replacement", [(1, True), (1, False), (3, False), (5, False),
                                           (4, True)])
def test_multinomial_matches_torch(dtype, n, replacement):
    def run(m):
        p = m.rand(40, 5, dtype=getattr(m, dtype))
        p[3, 1] = 0
        one = m.rand(5, dtype=getattr(m, dtype))
        return {"rows": m.multinomial(p, n, replacement), "vector": m.multinomial(one, n,
                                                                                replacement),
                "after": m.rand(3)}, []

    assert_same(run, seed=7, exact=("rows", "vector", "after"))


@pytest.mark.parametrize("mask", [True, False])
def test_zero_dim_boolean_mask(mask):
    def run(m):
        x = m.tensor(2.0, requires_grad=True)
        y = x * 3
        got = y[m.tensor(mask)]
        z = x * 1
        z[m.tensor(mask)] = 5.0
        w = m.arange(6.0).reshape(2, 3)
        w[m.tensor(mask)] = -1.0
        return {"get": got, "set": z, "grad_fn": z.grad_fn.name(),
                "wide": m.ones(2, 3)[m.tensor(mask)], "mixed": m.ones(2, 3)[0, m.tensor(mask)],
                "w": w}, [x]

    assert_same(run, exact=("get", "set", "wide", "mixed", "w"))
