"""nn.init against torch: after the same seed (default generator or an explicit one) every
initialiser writes torch's numbers and leaves the generator where torch leaves it; gains, fans
and errors are torch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

# (call, exact): exact=False only where LAPACK's QR may round differently from torch's
CALLS = [
    ("uniform_(t)", True), ("uniform_(t, -1, 2, generator=g)", True),
    ("normal_(t, 1, 3)", True), ("normal_(t, std=0.5, generator=g)", True),
    ("constant_(t, 0.3)", True), ("ones_(t)", True), ("zeros_(t)", True),
    ("xavier_uniform_(t)", True), ("xavier_uniform_(t, gain=1.5, generator=g)", True),
    ("xavier_normal_(t)", True), ("xavier_normal_(t, 0.5, g)", True),
    ("kaiming_uniform_(t)", True), ("kaiming_uniform_(t, a=5 ** 0.5)", True),
    ("kaiming_uniform_(t, a=0.1, mode='fan_out', nonlinearity='leaky_relu')", True),
    ("kaiming_uniform_(t, nonlinearity='relu', generator=g)", True),
    ("kaiming_normal_(t)", True), ("kaiming_normal_(t, mode='fan_out', nonlinearity='tanh')", True),
    ("kaiming_normal_(t, 0.2, generator=g)", True),
    # trunc_normal_: both of torch 2.13's samplers (redraw when [a, b] holds > 30% of the mass,
    # else uniform proposals), with rejections that need several rounds
    ("trunc_normal_(t)", True), ("trunc_normal_(t, 1.0, 0.5, -0.2, 2.0, generator=g)", True),
    ("trunc_normal_(t, 0.0, 1.0, -0.5, 0.5)", True),
    ("trunc_normal_(t, 0.0, 1.0, 1.5, 3.0)", True),
    ("trunc_normal_(t, std=0.02, generator=g)", True),
    ("trunc_normal_(t, 0.0, 1.0, 2.5, 3.0, generator=g)", True),
    ("orthogonal_(t)", False), ("orthogonal_(t, gain=2.0, generator=g)", False),
]
CALLS_2D = [("sparse_(t, 0.3)", True), ("sparse_(t, 0.5, std=0.1, generator=g)", True),
            ("eye_(t)", True)]
CALLS_CONV = [("dirac_(t)", True), ("dirac_(t, groups=2)", True)]
SHAPES = [(4, 6), (6, 4), (4, 2, 3, 3), (5, 1)]


def _run(lib, call, shape, dtype):
    lib.manual_seed(0)
    g = lib.Generator().manual_seed(5)
    t = lib.empty(*shape, dtype=getattr(lib, dtype))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = eval("lib.nn.init." + call, {"lib": lib, "t": t, "g": g})  # noqa: S307
    return dict(same=out is t, values=t.numpy().copy(), after=lib.rand(3).numpy(),
                after_g=lib.rand(2, generator=g).numpy(), requires_grad=t.requires_grad,
                warnings=[str(w.message) for w in caught])


def _check(call, exact, shape, dtype):
    ours, theirs = _run(leafgrad, call, shape, dtype), _run(torch, call, shape, dtype)
    if exact:
        np.testing.assert_array_equal(ours["values"], theirs["values"])
    else:
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(ours["values"], theirs["values"], rtol=tol, atol=tol)
    np.testing.assert_array_equal(ours["after"], theirs["after"])
    np.testing.assert_array_equal(ours["after_g"], theirs["after_g"])
    for key in ("same", "requires_grad", "warnings"):
        assert ours[key] == theirs[key]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("call,exact", CALLS, ids=[c for c, _ in CALLS])
def test_initialisers_draw_torchs_numbers(call, exact, shape, dtype):
    _check(call, exact, shape, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 6), (7, 3), (1, 1)], ids=str)
@pytest.mark.parametrize("call,exact", CALLS_2D, ids=[c for c, _ in CALLS_2D])
def test_matrix_initialisers(call, exact, shape, dtype):
    _check(call, exact, shape, dtype)


@pytest.mark.parametrize("shape", [(4, 2, 3), (4, 6, 3, 3), (2, 4, 3, 2, 3), (6, 2, 5, 5)],
                         ids=str)
@pytest.mark.parametrize("call,exact", CALLS_CONV, ids=[c for c, _ in CALLS_CONV])
def test_dirac(call, exact, shape):
    _check(call, exact, shape, "float32")


def test_parameters_keep_requires_grad_and_no_history():
    for lib in (leafgrad, torch):
        p = lib.nn.Parameter(lib.empty(3, 4))
        lib.nn.init.kaiming_uniform_(p)
        assert p.requires_grad and p.grad_fn is None and p.is_leaf


@pytest.mark.parametrize("args", [
    ("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("selu",),
    ("leaky_relu",), ("leaky_relu", 0.2), ("leaky_relu", 3), ("conv_transpose1d",),
])
def test_calculate_gain(args):
    assert leafgrad.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


@pytest.mark.parametrize("shape", [(3, 4), (3, 4, 5), (2, 3, 4, 5), (5,), (0, 3)], ids=str)
def test_fans(shape):
    def run(lib):
        try:
            return lib.nn.init._calculate_fan_in_and_fan_out(lib.empty(*shape))
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error)

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("code", [
    "init.calculate_gain('foo')", "init.calculate_gain('leaky_relu', 'x')",
    "init.calculate_gain('leaky_relu', True)",
    "init.kaiming_uniform_(lib.empty(2, 3), mode='bad')",
    "init.kaiming_normal_(lib.empty(2, 3), nonlinearity='swish')",
    "init.xavier_uniform_(lib.empty(2))", "init.orthogonal_(lib.empty(2))",
    "init.dirac_(lib.empty(2, 2))", "init.dirac_(lib.empty(3, 2, 2), groups=2)",
    "init.eye_(lib.empty(2, 2, 2))", "init.sparse_(lib.empty(2, 2, 2), 0.1)",
])
def test_errors_match_torch_and_leave_the_tensor_alone(code):
    def run(lib):
        lib.manual_seed(0)
        try:
            eval(code, {"lib": lib, "init": lib.nn.init})  # noqa: S307 - literals above
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).splitlines()[0], lib.rand(2).numpy().tolist()
        return None

    expected = run(torch)
    assert expected is not None
    assert run(leafgrad) == expected


def test_zero_element_tensors_warn_like_torch():
    for call in ("kaiming_uniform_", "kaiming_normal_"):
        results = []
        for lib in (leafgrad, torch):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                getattr(lib.nn.init, call)(lib.empty(0, 3))
            results.append([str(w.message) for w in caught])
        assert results[0] == results[1] and results[0]


@pytest.mark.parametrize("call", [
    "uniform(t, -1, 1)", "normal(t)", "constant(t, 2.0)", "eye(t)", "xavier_uniform(t)",
    "xavier_normal(t, gain=2.0)", "kaiming_uniform(t, a=1)", "kaiming_normal(t)",
    "orthogonal(t)", "sparse(t, 0.5)", "dirac(t.view(4, 6, 1))",
])
def test_deprecated_names_warn_and_initialise_like_torch(call):
    def run(lib):
        lib.manual_seed(0)
        t = lib.empty(4, 6)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eval("lib.nn.init." + call, {"lib": lib, "t": t})  # noqa: S307 - literals above
        return t.numpy(), [(w.category.__name__, str(w.message)) for w in caught]

    (ours, our_warnings), (theirs, their_warnings) = run(leafgrad), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)  # orthogonal: LAPACK
    assert our_warnings == their_warnings
