"""exponential_/geometric_/log_normal_/cauchy_, poisson, binomial, and the bernoulli and
multinomial methods draw torch's numbers bit for bit and leave the stream where torch does."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

FLOATS = ["float16", "float32", "float64"]


def _bits(tensor) -> list:
    array = tensor.detach().numpy()
    return [array.dtype.name, array.shape, array.view(f"u{array.itemsize}").tolist()
            if array.dtype.kind == "f" else array.tolist()]


def _both(program):
    results = []
    for lib in (leafgrad, torch):
        lib.manual_seed(1234)
        results.append(program(lib))
    return results


FILLS = [
    ("exponential_", "()"), ("exponential_", "(3.5)"), ("exponential_", "(lambd=0.25)"),
    ("exponential_", "(float('inf'))"),
    ("geometric_", "(0.3)"), ("geometric_", "(0.999)"), ("geometric_", "(p=1e-3)"),
    ("log_normal_", "()"), ("log_normal_", "(0.5, 0.25)"), ("log_normal_", "(mean=-1, std=3)"),
    ("cauchy_", "()"), ("cauchy_", "(1.5, 2.0)"), ("cauchy_", "(median=-3, sigma=0.1)"),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("size", [1, 7, 16, 33, 1000])
@pytest.mark.parametrize("method,args", FILLS)
def test_fills_match_torch_bits(method, args, size, dtype):
    def program(lib):
        x = lib.empty(size, dtype=getattr(lib, dtype))
        first = _bits(eval(f"x.{method}{args}"))  # noqa: S307 - the cases above
        return first, _bits(lib.rand(3)), _bits(lib.randn(3, dtype=lib.float64))

    ours, theirs = _both(program)
    assert ours == theirs


@pytest.mark.parametrize("method,args", FILLS)
def test_fills_with_generator_and_views(method, args):
    def program(lib):
        generator = lib.Generator().manual_seed(99)
        x = lib.zeros(4, 6, dtype=lib.float64)
        view = x[:, 1:4]
        inner = args[1:-1]
        call = f"view.{method}({inner}{', ' if inner else ''}generator=generator)"
        result = eval(call, {"view": view, "generator": generator})  # noqa: S307
        assert result is view
        return _bits(x), _bits(lib.rand(2, generator=generator)), _bits(lib.rand(2))

    ours, theirs = _both(program)
    assert ours == theirs


def test_log_normal_shares_the_normal_cache():
    """A scalar normal_ caches its second Box-Muller value; log_normal_ takes it next."""
    def program(lib):
        a = lib.empty(3, dtype=lib.float64).normal_()
        b = lib.empty(3, dtype=lib.float64).log_normal_()
        return _bits(a), _bits(b), _bits(lib.randn(5, dtype=lib.float64))

    ours, theirs = _both(program)
    assert ours == theirs


INT_GEOMETRIC = ["int8", "int16", "int32", "int64", "uint8"]


@pytest.mark.parametrize("dtype", INT_GEOMETRIC)
def test_geometric_integer_tensors(dtype):
    ours, theirs = _both(lambda lib: _bits(lib.zeros(50, dtype=getattr(lib, dtype))
                                           .geometric_(0.2)))
    assert ours == theirs


ERRORS = [
    "lib.zeros(3).exponential_(-1)", "lib.zeros(3).exponential_(0)",
    "lib.zeros(3).exponential_(float('nan'))", "lib.zeros(3, dtype=lib.int64).exponential_()",
    "lib.zeros(3).geometric_(0)", "lib.zeros(3).geometric_(1)", "lib.zeros(3).geometric_(1.5)",
    "lib.zeros(3, dtype=lib.bool).geometric_(0.5)", "lib.zeros(3).log_normal_(0, -1)",
    "lib.zeros(3).log_normal_(0, 0)", "lib.zeros(3, dtype=lib.int64).log_normal_()",
    "lib.zeros(3).cauchy_(0, -1)", "lib.zeros(3).cauchy_(0, 0)",
    "lib.zeros(3, dtype=lib.int64).cauchy_()",
    "lib.zeros(3, requires_grad=True).exponential_()",
    "lib.poisson(lib.tensor([-1.0]))", "lib.poisson(lib.tensor([1]))", "lib.poisson([1.0])",
    "lib.binomial(lib.tensor([5]), lib.tensor([0.5]))",
    "lib.binomial(lib.tensor([5.0]), lib.tensor([0.5], dtype=lib.float64))",
    "lib.tensor([1, 2]).bernoulli()", "lib.tensor([0.2, 0.8]).multinomial(3)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code):
    outcomes = []
    for lib in (leafgrad, torch):
        try:
            eval(code, {"lib": lib})  # noqa: S307 - the cases above
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            outcomes.append((type(error).__name__, str(error).splitlines()[0]))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] is not None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_matches_torch(dtype):
    rates = np.concatenate([np.linspace(0, 9.9, 40), np.linspace(10, 500, 40), [0.0, 1e-3, 1e4, 0.5]])

    def program(lib):
        x = lib.tensor(rates, dtype=getattr(lib, dtype))
        generator = lib.Generator().manual_seed(5)
        return (_bits(lib.poisson(x)), _bits(lib.poisson(x.reshape(3, -1)[:, ::2],
                                                         generator=generator)),
                _bits(lib.rand(3)), _bits(lib.rand(2, generator=generator)))

    ours, theirs = _both(program)
    assert ours == theirs


def test_poisson_gradient_is_zero():
    results = []
    for lib in (leafgrad, torch):
        lib.manual_seed(0)
        x = lib.tensor([1.0, 20.0], requires_grad=True)
        y = lib.poisson(x)
        (y * 3).sum().backward()
        results.append((y.grad_fn.name(), x.grad.tolist(), y.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_matches_torch(dtype):
    rng = np.random.default_rng(3)
    counts = np.concatenate([rng.integers(0, 40, 60), rng.integers(40, 5000, 60),
                             [0, -3, 10, 1e6]]).astype(float)
    probs = np.concatenate([rng.uniform(0, 1, 120), [0.5, 0.5, 0.0, 1.0]])
    probs[::7] = rng.uniform(0.93, 1.0, probs[::7].shape)
    probs[1::9] = rng.uniform(0.0, 0.02, probs[1::9].shape)

    def program(lib):
        count = lib.tensor(counts, dtype=getattr(lib, dtype))
        prob = lib.tensor(probs, dtype=getattr(lib, dtype))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            broadcast = lib.binomial(lib.tensor([[5.0], [300.0]], dtype=getattr(lib, dtype)),
                                     lib.tensor([0.1, 0.5, 0.9], dtype=getattr(lib, dtype)))
        messages = [str(w.message).split(" (Triggered")[0] for w in caught]
        return (_bits(lib.binomial(count, prob)), _bits(broadcast), _bits(lib.rand(3)),
                messages)

    ours, theirs = _both(program)
    assert ours == theirs


def test_bernoulli_and_multinomial_methods():
    def program(lib):
        p = lib.tensor([[0.1, 0.5, 0.9], [0.3, 0.3, 0.4]])
        generator = lib.Generator().manual_seed(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return (_bits(p.bernoulli()), _bits(p.bernoulli(0.5)), _bits(p.bernoulli(p=0.2)),
                    _bits(p.bernoulli(generator=generator)), _bits(p.multinomial(2)),
                    _bits(p.multinomial(5, replacement=True)),
                    _bits(p[0].multinomial(3, generator=generator)), _bits(lib.rand(2)))

    ours, theirs = _both(program)
    assert ours == theirs
