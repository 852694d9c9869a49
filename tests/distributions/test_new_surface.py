"""Every public member of each distribution added with Poisson ... LKJCholesky, against torch:
value or (exception type, first line) for the properties and methods torch defines on the
base class too (so a NotImplementedError where torch has none, or the reverse, shows)."""

import importlib
import pickle
import pkgutil
import warnings

import pytest

import leafgrad as lg
from tests.distributions._compare import _text, assert_same, torch

BUILDERS = {
    "Poisson": lambda m, f: m.distributions.Poisson(f([0.5, 3.0])),
    "Binomial": lambda m, f: m.distributions.Binomial(6, f([0.2, 0.7])),
    "Multinomial": lambda m, f: m.distributions.Multinomial(5, f([0.2, 0.3, 0.5])),
    "NegativeBinomial": lambda m, f: m.distributions.NegativeBinomial(f([2.0, 3.0]),
                                                                      f([0.2, 0.7])),
    "Weibull": lambda m, f: m.distributions.Weibull(f([1.0, 2.0]), f([0.7, 3.0])),
    "Pareto": lambda m, f: m.distributions.Pareto(f([1.0, 2.0]), f([0.7, 3.0])),
    "Kumaraswamy": lambda m, f: m.distributions.Kumaraswamy(f([1.0, 2.0]), f([0.7, 3.0])),
    "InverseGamma": lambda m, f: m.distributions.InverseGamma(f([1.5, 3.0]), f([0.7, 3.0])),
    "LogisticNormal": lambda m, f: m.distributions.LogisticNormal(f([0.0, 1.0]),
                                                                  f([0.7, 3.0])),
    "FisherSnedecor": lambda m, f: m.distributions.FisherSnedecor(f([3.0, 6.0]),
                                                                  f([5.0, 9.0])),
    "GeneralizedPareto": lambda m, f: m.distributions.GeneralizedPareto(f([0.0, 1.0]),
                                                                        f([1.0, 2.0]),
                                                                        f([0.2, -0.1])),
    "ContinuousBernoulli": lambda m, f: m.distributions.ContinuousBernoulli(f([0.2, 0.7])),
    "VonMises": lambda m, f: m.distributions.VonMises(f([0.0, 1.0]), f([0.5, 4.0])),
    "Wishart": lambda m, f: m.distributions.Wishart(f([3.0, 4.5]), covariance_matrix=f(
        [[2.0, 0.3], [0.3, 1.0]])),
    "LKJCholesky": lambda m, f: m.distributions.LKJCholesky(3, f([0.5, 2.0])),
}

MEMBERS = ["mean", "mode", "variance", "stddev", "support", "arg_constraints", "has_rsample",
           "has_enumerate_support", "batch_shape", "event_shape", "entropy", "perplexity",
           "enumerate_support", "enumerate_support_no_expand", "cdf", "icdf", "log_prob",
           "rsample", "sample", "sample_n", "param_shape", "repr", "expand_repr",
           "expand_extra", "log_prob_bad_shape"]


def _member(m, d, name):
    value = d.sample()
    if name == "entropy":
        return d.entropy()
    if name == "perplexity":
        return d.perplexity()
    if name == "enumerate_support":
        return d.enumerate_support()
    if name == "enumerate_support_no_expand":
        return d.enumerate_support(False)
    if name == "cdf":
        return d.cdf(value)
    if name == "icdf":
        return d.icdf(m.full(tuple(d.batch_shape), 0.3))
    if name == "log_prob":
        return d.log_prob(value)
    if name == "rsample":
        return d.rsample((2,))
    if name == "sample":
        return d.sample((2,))
    if name == "sample_n":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return d.sample_n(2)
    if name == "repr":
        return repr(d)
    if name == "expand_repr":
        return repr(d.expand((3,) + tuple(d.batch_shape)))
    if name == "expand_extra":
        e = d.expand((3,) + tuple(d.batch_shape))
        return (e.batch_shape, e.event_shape, tuple(e.sample().shape))
    if name == "log_prob_bad_shape":
        return d.log_prob(m.zeros((5,) * (len(d.event_shape) + len(d.batch_shape) + 1)))
    if name == "arg_constraints":
        return sorted((k, _text(v)) for k, v in d.arg_constraints.items())
    if name == "support":
        return _text(d.support).split(" at 0x")[0]
    return getattr(d, name)


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("member", MEMBERS)
@pytest.mark.parametrize("family", sorted(BUILDERS))
def test_member(family, member, layout):
    def run(m):
        def f(values):
            if layout == "contiguous":
                return m.tensor(values)
            wide = m.tensor(values).unsqueeze(-1).expand(*m.tensor(values).shape, 2).clone()
            return wide[..., 1]  # every other element: a non-contiguous view

        d = BUILDERS[family](m, f)
        result = _member(m, d, member)
        if not isinstance(result, m.Tensor):
            result = _text(result)
        return {"result": result}, []

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # samples pass through transcendental functions: a few ulps (float32)
        assert_same(run, rtol=1e-5, atol=1e-6)


def test_builders_cover_the_new_families():
    added = {"Poisson", "Binomial", "Multinomial", "NegativeBinomial", "Weibull", "Pareto",
             "Kumaraswamy", "InverseGamma", "LogisticNormal", "FisherSnedecor",
             "GeneralizedPareto", "ContinuousBernoulli", "VonMises", "Wishart", "LKJCholesky"}
    assert set(BUILDERS) == added
    assert all(hasattr(torch.distributions, name) for name in added)


HALF_MEMBERS = ["sample", "rsample", "log_prob", "mean", "variance", "entropy", "cdf", "repr"]


@pytest.mark.parametrize("dtype", ["float16"])  # leafgrad has no bfloat16
@pytest.mark.parametrize("member", HALF_MEMBERS)
@pytest.mark.parametrize("family", sorted(BUILDERS))
def test_half_precision(family, member, dtype):
    # reduced-precision parameters: torch's value, or torch's error where a kernel has none
    def run(m):
        def f(values):
            return m.tensor(values, dtype=getattr(m, dtype))

        d = BUILDERS[family](m, f)
        result = _member(m, d, member)
        if not isinstance(result, m.Tensor):
            result = _text(result)
        return {"result": result}, []

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(run, rtol=1e-2, atol=1e-2)


TORCH_MODULES = sorted(m.name for m in pkgutil.iter_modules(torch.distributions.__path__))


@pytest.mark.parametrize("name", TORCH_MODULES)
def test_torch_module_layout(name):
    # torch.distributions.<file>.<Class> works, and the class names that module as its home
    theirs = importlib.import_module("torch.distributions." + name)
    ours = importlib.import_module("leafgrad.distributions." + name)
    assert sorted(ours.__all__) == sorted(theirs.__all__)
    for member in theirs.__all__:
        want = getattr(theirs, member)
        got = getattr(ours, member)
        if isinstance(want, type):
            assert got.__module__.replace("leafgrad.", "torch.") == want.__module__, member
            assert got.__qualname__ == want.__qualname__


def test_pickle_round_trip():
    d = lg.distributions.Poisson(lg.tensor([1.0, 2.0]))
    assert pickle.loads(pickle.dumps(d)).rate.tolist() == [1.0, 2.0]
    assert type(pickle.loads(pickle.dumps(d))) is lg.distributions.poisson.Poisson
