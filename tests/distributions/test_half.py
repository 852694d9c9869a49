"""HalfNormal, HalfCauchy, Gumbel against torch."""

import pytest

from tests.distributions._compare import assert_same, params


@pytest.mark.parametrize("name", ["HalfNormal", "HalfCauchy"])
def test_half(name):
    def run(m):
        (scale,) = params(m, [1.0, 0.5, 2.0])
        d = getattr(m.distributions, name)(scale)
        v = m.tensor([0.5, -1.0, 3.0])
        return {"sample": d.sample((4,)), "rsample": d.rsample(), "lp": d.log_prob(v),
                "cdf": d.cdf(v.abs()), "icdf": d.icdf(m.tensor([0.1, 0.5, 0.9])),
                "entropy": d.entropy(), "mean": d.mean, "var": d.variance, "mode": d.mode,
                "support": repr(d.support), "expand": d.expand((2, 3)).sample(),
                "scalar": getattr(m.distributions, name)(2.0).sample((3,))}, [scale]

    assert_same(run, rtol=2e-6)


def test_gumbel():
    def run(m):
        loc, scale = params(m, [0.0, 1.0, -2.0], [1.0, 0.5, 2.0])
        d = m.distributions.Gumbel(loc, scale)
        v = m.tensor([0.5, -1.0, 3.0])
        return {"sample": d.sample((4,)), "rsample": d.rsample(), "lp": d.log_prob(v),
                "entropy": d.entropy(), "mean": d.mean, "var": d.variance, "mode": d.mode,
                "stddev": d.stddev, "scalar": m.distributions.Gumbel(0.0, 1.0).sample((3,)),
                "expand": d.expand((2, 3)).sample()}, [loc, scale]

    assert_same(run, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.HalfNormal(-1.0),
    lambda m: m.distributions.HalfCauchy(m.tensor([0.0])),
    lambda m: m.distributions.Gumbel(0.0, 0.0),
    lambda m: m.distributions.HalfNormal(1.0).log_prob(m.tensor(-1.0)),
])
def test_errors(build):
    assert_same(lambda m: ({"d": repr(build(m))}, []))
