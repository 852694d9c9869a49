"""Gamma, Chi2, Dirichlet, Beta against torch: samples bit for bit (torch's gamma sampler
replayed), densities, entropies and their gradients."""

import pytest

import numpy as np

from tests.distributions._compare import assert_same, assert_same_ok, params


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


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rsample_concentration_gradients(dtype):
    # torch's _standard_gamma_grad and _dirichlet_grad, through every sampler built on them
    def run(m):
        conc, rate, other = params(m, [0.05, 0.7, 1.0, 2.5, 9.0, 40.0],
                                   [1.0, 0.5, 2.0, 3.0, 1.0, 0.2],
                                   [0.3, 2.0, 1.5, 7.0, 12.0, 3.0], dtype=dtype)
        D = m.distributions
        weights = m.linspace(0.5, 3.0, 6, dtype=conc.dtype)
        return {"gamma": D.Gamma(conc, rate).rsample((4,)) * weights,
                "chi2": D.Chi2(conc).rsample((3,)) * weights,
                "beta": D.Beta(conc, other).rsample((3,)) * weights,
                "dirichlet": D.Dirichlet(m.stack([conc, other, rate], -1)).rsample((2,))
                * m.tensor([1.0, 2.0, 4.0], dtype=conc.dtype),
                "student": D.StudentT(conc + 1.0, rate, other).rsample((2,)) * weights,
                "fisher": D.FisherSnedecor(conc, other).rsample((2,)) * weights,
                "inverse_gamma": D.InverseGamma(conc + 1.0, rate).rsample((2,)) * weights,
                "after": m.rand(2)}, [conc, rate, other]

    tol = {"rtol": 2e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-9}
    assert_same_ok(run, exact=("after",), **tol)


def test_gamma_gradient_of_gradient_raises_as_torch():
    def run(m):
        (conc,) = params(m, [0.5, 2.0, 9.0])
        sample = m.distributions.Gamma(conc, 1.0).rsample()
        (grad,) = m.autograd.grad(sample.sum(), [conc], create_graph=True)
        m.autograd.grad(grad.sum(), [conc])
        return {}, []

    assert_same(run)


def test_dirichlet_backward_is_once_differentiable():
    def run(m):
        (conc,) = params(m, [0.5, 2.0, 9.0])
        sample = m.distributions.Dirichlet(conc).rsample()
        (grad,) = m.autograd.grad((sample * m.tensor([1.0, 2.0, 3.0])).sum(), [conc],
                                  create_graph=True)
        return {"grad": grad, "requires_grad": grad.requires_grad,
                "node": type(sample.grad_fn).__name__}, []

    assert_same_ok(run, rtol=1e-5)


def test_gamma_grad_kernel_matches_torch_on_its_branches():
    # every branch of torch's approximation (Taylor below x = 0.8f, saddle point above
    # alpha = 8 inside and outside [0.9f, 1.1f] * alpha, rational elsewhere), and both of
    # _dirichlet_grad's expansions and its rational correction
    from leafgrad.distributions._gamma import _dirichlet_grad_one, _standard_gamma_grad_one
    from tests.distributions._compare import torch

    alphas = [1e-3, 0.05, 0.3, 0.9, 1.0, 2.5, 7.9, 8.0, 8.5, 20.0, 150.0, 1e4]
    xs = [1e-30, 1e-8, 1e-3, 0.1, 0.5, 0.79, 0.8, 1.0, 2.0, 7.0, 7.5, 8.0, 9.0, 18.0, 20.0,
          22.0, 140.0, 150.0, 1e4, 1.05e4]
    pairs = [(a, x) for a in alphas for x in xs]
    want = torch._standard_gamma_grad(torch.tensor([a for a, _ in pairs], dtype=torch.float64),
                                      torch.tensor([x for _, x in pairs], dtype=torch.float64))
    got = [_standard_gamma_grad_one(a, x) for a, x in pairs]
    np.testing.assert_array_equal(np.array(got), want.numpy())
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(0, 1, 300), [1e-6, 0.5, 0.999999, 0.3]])
    alpha = np.concatenate([rng.uniform(0.01, 20, 300), [0.5, 3.0, 7.0, 12.0]])
    total = alpha + np.concatenate([rng.uniform(0.01, 20, 300), [0.5, 2.0, 7.0, 9.0]])
    want = torch._dirichlet_grad(torch.tensor(x), torch.tensor(alpha), torch.tensor(total))
    got = [_dirichlet_grad_one(*v) for v in zip(x, alpha, total)]
    np.testing.assert_allclose(np.array(got), want.numpy(), rtol=1e-12, atol=0)


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


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_cdf(dtype):
    def run(m):
        (rate,) = params(m, [1.0, 0.5, 2.0, 3.0], dtype=dtype)
        conc = m.tensor([0.3, 1.0, 2.5, 30.0], dtype=rate.dtype)
        v = m.tensor([0.5, 1.0, 0.1, 9.0], dtype=rate.dtype)
        return {"cdf": m.distributions.Gamma(conc, rate).cdf(v),
                "inverse_gamma": m.distributions.InverseGamma(conc, rate).cdf(v),
                "chi2": m.distributions.Chi2(conc).cdf(v)}, [rate]

    assert_same_ok(run, rtol=1e-5, atol=1e-6)


def test_gamma_cdf_errors():
    def run(m):
        d = m.distributions.Gamma(m.tensor([1.0]), m.tensor([1.0]))
        return {"cdf": d.cdf(m.tensor([-1.0]))}, []

    assert_same(run)


@pytest.mark.parametrize("needs", [(True, False), (False, True)])
def test_rsample_gradient_subsets(needs):
    def run(m):
        conc = m.tensor([0.3, 2.5, 30.0], dtype=m.float64, requires_grad=needs[0])
        rate = m.tensor([1.0, 0.5, 2.0], dtype=m.float64, requires_grad=needs[1])
        leaves = [x for x in (conc, rate) if x.requires_grad]
        return {"gamma": m.distributions.Gamma(conc, rate).rsample((3,)),
                "inverse": m.distributions.InverseGamma(conc, rate).rsample((2,)),
                "dirichlet": m.distributions.Dirichlet(m.stack([conc, rate], -1)).rsample()}, \
            leaves

    assert_same_ok(run, rtol=1e-9, atol=1e-9)
