"""Poisson, Binomial, Multinomial, NegativeBinomial against torch: samples value for value
(torch's poisson/binomial/multinomial kernels replayed), log_prob, entropy, moments and their
gradients, expand, reprs, argument errors."""

import pytest

import leafgrad as lg
from tests.distributions._compare import assert_same, assert_same_ok, params

DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_poisson(dtype):
    def run(m):
        (rate,) = params(m, [0.0, 0.5, 3.0, 12.0, 250.0], dtype=dtype)
        d = m.distributions.Poisson(rate)
        value = m.tensor([0.0, 1.0, 2.0, 15.0, 240.0], dtype=rate.dtype)
        return {"sample": d.sample((6,)), "after": m.rand(2), "lp": d.log_prob(value),
                "lp_sample": d.log_prob(d.sample()), "mean": d.mean, "mode": d.mode,
                "var": d.variance, "repr": repr(d), "support": repr(d.support),
                "expand": d.expand((2, 5)).sample(), "expand_batch": d.expand((3, 5)).batch_shape,
                "scalar": m.distributions.Poisson(4.0).sample((3,)),
                "scalar_batch": m.distributions.Poisson(4.0).batch_shape,
                "lp_broadcast": d.log_prob(m.tensor([[1.0], [3.0]], dtype=rate.dtype))}, [rate]

    assert_same_ok(run, rtol=1e-5, atol=1e-5,
                exact=("sample", "after", "expand", "scalar"))


def test_poisson_empty_and_0d():
    def run(m):
        (rate,) = params(m, 2.5)
        d = m.distributions.Poisson(rate)
        e = m.distributions.Poisson(m.empty(0, 3))
        return {"s": d.sample((4,)), "lp": d.log_prob(m.tensor(3.0)), "batch": d.batch_shape,
                "empty": e.sample((2,)), "empty_lp": e.log_prob(m.empty(0, 3))}, [rate]

    assert_same_ok(run, exact=("s", "empty"))


@pytest.mark.parametrize("form", ["probs", "logits"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_binomial(form, dtype):
    def run(m):
        values = [0.0, 0.2, 0.5, 0.9, 1.0] if form == "probs" else [-3.0, -0.5, 0.0, 1.0, 4.0]
        (p,) = params(m, values, dtype=dtype)
        d = m.distributions.Binomial(30, **{form: p})
        value = m.tensor([0.0, 5.0, 15.0, 27.0, 30.0], dtype=p.dtype)
        return {"sample": d.sample((4,)), "after": m.rand(2), "lp": d.log_prob(value),
                "entropy": d.entropy(), "mean": d.mean, "mode": d.mode, "var": d.variance,
                "probs": d.probs, "logits": d.logits, "repr": repr(d),
                "support": repr(d.support), "enum": d.enumerate_support(),
                "enum1": d.enumerate_support(False), "param_shape": d.param_shape,
                "expand": d.expand((2, 5)).sample(), "total": d.total_count}, [p]

    assert_same_ok(run, rtol=1e-5, atol=1e-5, exact=("sample", "after", "expand"))


def test_binomial_tensor_count_broadcast():
    def run(m):
        count, p = params(m, [[5.0], [20.0], [200.0]], [0.1, 0.5, 0.97])
        d = m.distributions.Binomial(count.detach(), p)
        value = m.tensor([[1.0], [10.0], [150.0]])
        return {"sample": d.sample((2,)), "lp": d.log_prob(value), "batch": d.batch_shape,
                "mean": d.mean, "mode": d.mode, "count_dtype": d.total_count.dtype,
                "int_count": m.distributions.Binomial(m.tensor([3, 4]), m.tensor([0.5, 0.5]))
                .total_count}, [p]

    assert_same_ok(run, rtol=1e-5, atol=1e-5, exact=("sample",))


@pytest.mark.parametrize("dtype", DTYPES)
def test_multinomial(dtype):
    def run(m):
        (logits,) = params(m, [[0.1, 0.5, -1.0, 0.0], [0.0, 0.0, 2.0, -3.0]], dtype=dtype)
        d = m.distributions.Multinomial(9, logits=logits)
        value = m.tensor([[2.0, 3.0, 1.0, 3.0], [0.0, 0.0, 9.0, 0.0]], dtype=logits.dtype)
        return {"sample": d.sample((3,)), "sample0": d.sample(), "after": m.rand(2),
                "lp": d.log_prob(value), "entropy": d.entropy(), "mean": d.mean,
                "var": d.variance, "probs": d.probs, "logits": d.logits, "repr": repr(d),
                "support": repr(d.support), "batch": d.batch_shape, "event": d.event_shape,
                "expand": d.expand((2, 2)).sample(), "param_shape": d.param_shape}, [logits]

    assert_same_ok(run, rtol=1e-5, atol=1e-5, exact=("sample", "sample0", "after", "expand"))


def test_multinomial_probs_with_zero():
    def run(m):
        (probs,) = params(m, [0.5, 0.0, 0.5])
        d = m.distributions.Multinomial(4, probs)
        value = m.tensor([1.0, 0.0, 3.0])
        return {"sample": d.sample((5,)), "lp": d.log_prob(value), "entropy": d.entropy()}, [probs]

    assert_same_ok(run, rtol=1e-5, atol=1e-5, exact=("sample",))


@pytest.mark.parametrize("form", ["probs", "logits"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_negative_binomial(form, dtype):
    def run(m):
        values = [0.0, 0.3, 0.6, 0.9] if form == "probs" else [-2.0, 0.0, 0.5, 2.0]
        count, p = params(m, [0.5, 1.0, 3.5, 10.0], values, dtype=dtype)
        d = m.distributions.NegativeBinomial(count, **{form: p})
        value = m.tensor([0.0, 1.0, 4.0, 30.0], dtype=p.dtype)
        return {"sample": d.sample((5,)), "after": m.rand(2), "lp": d.log_prob(value),
                "mean": d.mean, "mode": d.mode, "var": d.variance, "probs": d.probs,
                "logits": d.logits, "repr": repr(d), "support": repr(d.support),
                "expand": d.expand((2, 4)).sample(), "param_shape": d.param_shape}, [count, p]

    assert_same_ok(run, rtol=1e-5, atol=1e-5, exact=("sample", "after", "expand"))


def test_negative_binomial_zero_count():
    def run(m):
        (p,) = params(m, [0.3, 0.7])
        d = m.distributions.NegativeBinomial(0.0, p)
        return {"lp": d.log_prob(m.tensor([0.0, 2.0])), "s": d.sample((3,))}, [p]

    assert_same_ok(run, exact=("s",))


@pytest.mark.parametrize("build", [
    lambda m: m.distributions.Poisson(m.tensor([-1.0, 2.0])),
    lambda m: m.distributions.Poisson(1.0).log_prob(m.tensor(1.5)),
    lambda m: m.distributions.Poisson(1.0).log_prob(m.tensor(-1.0)),
    lambda m: m.distributions.Poisson(m.ones(2)).log_prob(m.ones(3)),
    lambda m: m.distributions.Poisson(m.ones(2)).log_prob([1.0, 2.0]),
    lambda m: m.distributions.Binomial(10),
    lambda m: m.distributions.Binomial(10, m.tensor([0.5]), m.tensor([0.0])),
    lambda m: m.distributions.Binomial(10, m.tensor([1.5])),
    lambda m: m.distributions.Binomial(m.tensor([2.5]), m.tensor([0.5])),
    lambda m: m.distributions.Binomial(m.tensor([-1.0]), m.tensor([0.5])),
    lambda m: m.distributions.Binomial(m.ones(2), m.ones(3) / 2),
    lambda m: m.distributions.Binomial(10, m.tensor([0.5])).log_prob(m.tensor([11.0])),
    lambda m: m.distributions.Binomial(m.tensor([1.0, 2.0]), m.tensor([0.5, 0.5])).entropy(),
    lambda m: m.distributions.Binomial(m.tensor([1.0, 2.0]),
                                       m.tensor([0.5, 0.5])).enumerate_support(),
    lambda m: m.distributions.Multinomial(m.tensor(3), m.tensor([0.5, 0.5])),
    lambda m: m.distributions.Multinomial(3, m.tensor([0.5, 0.6])),
    lambda m: m.distributions.Multinomial(3),
    lambda m: m.distributions.Multinomial(3, m.tensor([0.5, 0.5])).log_prob(m.tensor([1.0, 1.0])),
    lambda m: m.distributions.Multinomial(3, m.tensor([0.5, 0.5])).log_prob(m.tensor([1.0])),
    lambda m: m.distributions.NegativeBinomial(m.tensor([-1.0]), m.tensor([0.5])),
    lambda m: m.distributions.NegativeBinomial(m.tensor([1.0]), m.tensor([1.0])),
    lambda m: m.distributions.NegativeBinomial(1.0),
    lambda m: m.distributions.NegativeBinomial(1.0, m.tensor([0.5])).log_prob(m.tensor([0.5])),
])
def test_errors(build):
    assert_same(lambda m: ({"d": repr(build(m))}, []))


def test_validation_off_allows_bad_parameters():
    def run(m):
        d = m.distributions.Poisson(m.tensor([-1.0, 2.0]), validate_args=False)
        b = m.distributions.Binomial(10, m.tensor([1.5]), validate_args=False)
        return {"lp": d.log_prob(m.tensor([1.0, 1.5])), "repr": repr(b)}, []

    assert_same_ok(run)


@pytest.mark.parametrize("make", [
    lambda r: lg.distributions.Poisson(r[0]).log_prob(lg.tensor([0.0, 2.0, 7.0],
                                                                 dtype=lg.float64)),
    lambda r: lg.distributions.Binomial(12, logits=r[0]).log_prob(
        lg.tensor([0.0, 6.0, 12.0], dtype=lg.float64)),
    lambda r: lg.distributions.Binomial(12, probs=r[1]).entropy(),
    lambda r: lg.distributions.Multinomial(5, logits=r[0]).log_prob(
        lg.tensor([1.0, 4.0, 0.0], dtype=lg.float64)),
    lambda r: lg.distributions.Multinomial(5, probs=r[1] / r[1].sum()).entropy(),
    lambda r: lg.distributions.NegativeBinomial(r[0].exp(), probs=r[1]).log_prob(
        lg.tensor([0.0, 3.0, 8.0], dtype=lg.float64)),
])
def test_gradcheck(make):
    first = lg.tensor([0.3, 1.2, 2.5], dtype=lg.float64, requires_grad=True)
    second = lg.tensor([0.2, 0.45, 0.7], dtype=lg.float64, requires_grad=True)

    def fn(a, b):
        return make((a, b))

    assert lg.autograd.gradcheck(fn, (first, second))
    assert lg.autograd.gradgradcheck(fn, (first, second))


def test_half_precision_samplers_refused_as_torch():
    # torch's CPU binomial, gamma and dirichlet kernels have no float16 version
    for build in (lambda m: m.binomial(m.tensor([5.0], dtype=m.float16),
                                       m.tensor([0.5], dtype=m.float16)),
                  lambda m: m.distributions.Gamma(m.tensor([2.0], dtype=m.float16),
                                                  1.0).sample(),
                  lambda m: m.distributions.Dirichlet(m.tensor([2.0, 1.0],
                                                               dtype=m.float16)).sample(),
                  lambda m: m.poisson(m.tensor([5.0], dtype=m.float16))):
        assert_same(lambda m: ({"s": build(m)}, []))
