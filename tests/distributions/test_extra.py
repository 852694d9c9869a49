"""Cauchy, Geometric, relaxed distributions and MixtureSameFamily against torch."""

import pytest

from tests.distributions._compare import assert_same, params


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cauchy(dtype):
    def run(m):
        loc, scale = params(m, [0.5, -1.0], [1.0, 0.3], dtype=dtype)
        d = m.distributions.Cauchy(loc, scale)
        v = m.tensor([0.1, 3.0], dtype=loc.dtype)
        return {"sample": d.sample((3,)), "rsample": d.rsample(), "lp": d.log_prob(v),
                "cdf": d.cdf(v), "icdf": d.icdf(m.tensor([0.2, 0.7], dtype=loc.dtype)),
                "entropy": d.entropy(), "mean": d.mean, "var": d.variance, "mode": d.mode,
                "many": m.distributions.Cauchy(0.0, 1.0).sample((500,)), "after": m.rand(2),
                "repr": repr(d)}, [loc, scale]

    assert_same(run, exact=("sample", "many", "after"))


@pytest.mark.parametrize("form", ["probs", "logits"])
def test_geometric(form):
    def run(m):
        (p,) = params(m, [0.2, 0.5, 0.9] if form == "probs" else [-1.0, 0.0, 2.0])
        d = m.distributions.Geometric(**{form: p})
        v = m.tensor([0.0, 3.0, 1.0])
        return {"sample": d.sample((4,)), "lp": d.log_prob(v), "entropy": d.entropy(),
                "mean": d.mean, "var": d.variance, "mode": d.mode,
                "edge": m.distributions.Geometric(m.tensor([1.0, 0.5])).log_prob(
                    m.tensor([0.0, 0.0]))}, [p]

    assert_same(run, rtol=2e-6, exact=("sample",))


def test_geometric_errors():
    for build in (lambda m: m.distributions.Geometric(m.tensor([0.0, 0.5])),
                  lambda m: m.distributions.Geometric(m.tensor([1.5])),
                  lambda m: m.distributions.Geometric(0.5).log_prob(m.tensor(0.5))):
        assert_same(lambda m: ({"d": repr(build(m))}, []))


@pytest.mark.parametrize("form", ["probs", "logits"])
def test_relaxed_bernoulli(form):
    def run(m):
        (p,) = params(m, [0.2, 0.5, 0.9] if form == "probs" else [-1.0, 0.0, 2.0])
        (t,) = params(m, 0.5)
        d = m.distributions.RelaxedBernoulli(t, **{form: p})
        s = d.rsample((2,))
        return {"rsample": s, "sample": d.sample(), "lp": d.log_prob(s.detach()),
                "batch": d.batch_shape, "support": repr(d.support)}, [p, t]

    assert_same(run, rtol=1e-5, atol=1e-5)


def test_relaxed_one_hot_categorical():
    def run(m):
        (logits,) = params(m, [[0.2, -0.5, 1.0], [0.0, 0.0, 0.0]])
        (t,) = params(m, 0.7)
        d = m.distributions.RelaxedOneHotCategorical(t, logits=logits)
        s = d.rsample((2,))
        e = d.base_dist  # ExpRelaxedCategorical (not exported at the top level by torch)
        x = e.rsample()
        return {"rsample": s, "lp": d.log_prob(s.detach()), "exp_lp": e.log_prob(x.detach()),
                "event": d.event_shape, "x": x, "base": type(e).__name__}, [logits, t]

    assert_same(run, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("event", [0, 1])
def test_mixture_same_family(event):
    def run(m):
        (w,) = params(m, [0.2, 0.3, 0.5])
        loc, scale = params(m, [[-1.0, 0.0], [0.5, 1.0], [2.0, -2.0]],
                            [[1.0, 0.5], [0.3, 0.3], [2.0, 1.0]])
        comp = m.distributions.Normal(loc, scale)
        if event:
            comp = m.distributions.Independent(comp, 1)
        else:
            comp = m.distributions.Normal(loc[:, 0], scale[:, 0])
        d = m.distributions.MixtureSameFamily(m.distributions.Categorical(w), comp)
        x = m.tensor([[0.1, 0.2], [1.0, -1.0], [3.0, 0.0]]) if event else m.tensor([0.1, 2.0])
        out = {"sample": d.sample((4,)), "lp": d.log_prob(x), "mean": d.mean,
               "var": d.variance, "batch": d.batch_shape, "event": d.event_shape,
               "repr": repr(d), "support": repr(d.support),
               "expand": d.expand((2,)).sample().shape}
        if not event:
            out["cdf"] = d.cdf(x)
        return out, [w, loc, scale]

    assert_same(run, rtol=2e-6, exact=("sample",))


def test_mixture_errors():
    for build in (lambda m: m.distributions.MixtureSameFamily(
                      m.distributions.Normal(0.0, 1.0), m.distributions.Normal(0.0, 1.0)),
                  lambda m: m.distributions.MixtureSameFamily(
                      m.distributions.Categorical(m.ones(3)),
                      m.distributions.Normal(m.zeros(2), 1.0))):
        assert_same(lambda m: ({"d": repr(build(m))}, []))
