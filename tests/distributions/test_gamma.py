"""Gamma, Chi2, Dirichlet, Beta against torch: samples bit for bit (torch's gamma sampler
replayed), densities, entropies and their gradients."""

import pytest

import leafgrad as lg
from tests.distributions._compare import assert_same, params


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma(dtype):
    def run(m):
        conc, rate = params(m, [0.3, 1.0, 2.5, 30.0], [1.0, 0.5, 2.0, 3.0], dtype=dtype)
        d = m.distributions.Gamma(conc, rate)
        v = m.tensor([0.5, 1.0, 0.1, 9.0], dtype=conc.dtype)
        return {"sample": d.sample((50,)), "after": m.rand(3), "lp": d.log_prob(v),
                "entropy": d.entropy(), "mean": d.mean, "var": d.variance, "mode": d.mode,
                "repr": repr(d), "bregman": m.distributions.ExponentialFamily.entropy(d)}, \
            [conc, rate]

    assert_same(run, rtol=1e-5, atol=1e-5, exact=("sample", "after"))


def test_gamma_rsample_rate_gradient():
    def run(m):
        conc = m.tensor([0.5, 4.0])
        (rate,) = params(m, [1.0, 2.0])
        return {"r": m.distributions.Gamma(conc, rate).rsample((3,))}, [rate]

    assert_same(run, exact=())


def test_gamma_concentration_gradient_through_sample_is_refused():
    conc = lg.tensor([0.5, 4.0], requires_grad=True)
    sample = lg.distributions.Gamma(conc, 1.0).rsample()
    with pytest.raises(NotImplementedError, match="_standard_gamma_grad"):
        sample.sum().backward()


def test_chi2_and_scalars():
    def run(m):
        d = m.distributions.Chi2(m.tensor([1.0, 3.0]))
        g = m.distributions.Gamma(2.0, 3.0)
        return {"s": d.sample((5,)), "df": d.df, "lp": d.log_prob(m.tensor([0.5, 2.0])),
                "g": g.sample((4,)), "gb": g.batch_shape,
                "c": m.distributions.Chi2(4.0).sample()}, []

    assert_same(run, rtol=1e-5, exact=("s", "g", "c"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet(dtype):
    def run(m):
        (conc,) = params(m, [[0.5, 1.0, 2.0], [3.0, 0.2, 0.7]], dtype=dtype)
        d = m.distributions.Dirichlet(conc)
        v = m.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype=conc.dtype)
        return {"sample": d.sample((10,)), "after": m.rand(2), "lp": d.log_prob(v),
                "entropy": d.entropy(), "mean": d.mean, "var": d.variance, "mode": d.mode,
                "event": d.event_shape}, [conc]

    assert_same(run, rtol=1e-5, atol=1e-5, exact=("sample", "after"))


def test_beta():
    def run(m):
        a, b = params(m, [0.5, 2.0, 5.0], [1.5, 2.0, 0.3])
        d = m.distributions.Beta(a, b)
        v = m.tensor([0.2, 0.5, 0.9])
        return {"sample": d.sample((6,)), "lp": d.log_prob(v), "entropy": d.entropy(),
                "mean": d.mean, "var": d.variance, "mode": d.mode,
                "scalar": m.distributions.Beta(2.0, 3.0).sample((3,)),
                "kl": m.distributions.kl_divergence(d, m.distributions.Beta(b, a))}, [a, b]

    assert_same(run, rtol=1e-5, atol=1e-5, exact=("sample", "scalar"))


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.Gamma(m.tensor([0.0]), 1.0),
    lambda m: m.distributions.Gamma(1.0, -1.0),
    lambda m: m.distributions.Dirichlet(m.tensor(1.0)),
    lambda m: m.distributions.Dirichlet(m.tensor([1.0, -1.0])),
    lambda m: m.distributions.Beta(0.0, 1.0),
    lambda m: m.distributions.Gamma(1.0, 1.0).log_prob(m.tensor(-1.0)),
    lambda m: m.distributions.Dirichlet(m.ones(3)).log_prob(m.tensor([0.5, 0.6, 0.1])),
])
def test_errors(build):
    assert_same(lambda m: ({"d": repr(build(m))}, []))


def test_gamma_family_kl():
    def run(m):
        a, b = params(m, [0.5, 2.0, 5.0], [1.5, 2.0, 0.3])
        D = m.distributions
        return {"gamma": D.kl_divergence(D.Gamma(a, b), D.Gamma(b, a)),
                "dirichlet": D.kl_divergence(D.Dirichlet(m.stack([a, b])),
                                             D.Dirichlet(m.stack([b, a]))),
                "chi2": D.kl_divergence(D.Chi2(a), D.Chi2(b))}, [a, b]

    assert_same(run, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_student_t(dtype):
    def run(m):
        df, loc, scale = params(m, [0.8, 1.5, 3.0, 30.0], [0.0, 1.0, -1.0, 0.5],
                                [1.0, 0.5, 2.0, 1.0], dtype=dtype)
        d = m.distributions.StudentT(df, loc, scale)
        v = m.tensor([0.5, 1.0, -3.0, 0.0], dtype=df.dtype)
        return {"sample": d.sample((5,)), "lp": d.log_prob(v), "entropy": d.entropy(),
                "mean": d.mean, "var": d.variance, "mode": d.mode,
                "scalar": m.distributions.StudentT(4.0).sample((3,)),
                "batch": m.distributions.StudentT(4.0).batch_shape,
                "r_loc_scale": m.distributions.StudentT(df.detach(), loc, scale).rsample()}, \
            [df, loc, scale]

    assert_same(run, rtol=1e-5, atol=1e-5)
