"""Tests for leafgrad.autograd.gradcheck.

Most cases are written once against a tensor library ``lib`` and run three ways: torch's own
gradcheck on torch tensors gives the expected outcome (return value or exception type and full
message, plus gradcheck's warnings); our gradcheck must reproduce it on leafgrad tensors, and
also on torch tensors (the module's ``_lib`` swapped for torch), which checks our gradcheck
independently of leafgrad's ops. The rest check leafgrad-only behaviour against mathematics.
"""

from __future__ import annotations

import importlib
import itertools
import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

gc = importlib.import_module("leafgrad.autograd.gradcheck")


@pytest.fixture(params=["leafgrad", "torch"])
def backend(request, monkeypatch):
    """(lib, torch): the library our gradcheck runs on, and torch for the expected outcome."""
    torch = require_torch()
    if request.param == "torch":
        monkeypatch.setattr(gc, "_lib", lambda: torch)
        return torch, torch
    return leafgrad, torch


def _values(seed: int, shape) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _leaf(lib, values, dtype=None):
    dtype = lib.float64 if dtype is None else dtype
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=dtype, requires_grad=True)


def _outcome(call):
    """What a gradcheck call did: its return value or its exception, and its warnings.

    Messages read ``leafgrad.`` as ``torch.`` (``leafgrad.float64`` prints where torch prints
    ``torch.float64``), the comparison rule of the conformance suite.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("returned", call())
        except Exception as error:  # the exception type and message are part of the outcome
            result = (type(error).__name__, str(error).replace("leafgrad.", "torch."))
    ours = ("Input #", "Backwards compatibility")
    messages = [str(w.message) for w in caught if str(w.message).startswith(ours)]
    return result, messages


# ---------------------------------------------------------------------------------------------
# Cases: build(lib) -> (func, inputs, keyword arguments for gradcheck)


def _doubling_hook(tensor):
    # A wrong gradient: the grad flowing through `tensor` is doubled. torch's undefined-grad
    # check hands hooks None, so pass that through.
    tensor.register_hook(lambda g: g if g is None else g * 2)
    return tensor


def case_correct(lib):
    inputs = (_leaf(lib, _values(0, 3)), _leaf(lib, _values(1, 3)))
    return (lambda x, y: x * y + x.sin(), inputs, {})


def case_wrong_grad(lib):
    def func(x):
        return _doubling_hook(x * 1).sin()

    return func, (_leaf(lib, _values(2, (2, 2))),), {}


def case_wrong_grad_no_raise(lib):
    func, inputs, _ = case_wrong_grad(lib)
    return func, inputs, {"raise_exception": False}


def case_multiple_outputs(lib):
    def func(x, y):
        return x * y, x.exp(), y.sum()

    return func, (_leaf(lib, _values(3, (2, 3))), _leaf(lib, _values(4, (2, 3)))), {}


def case_list_output(lib):
    return (lambda x: [x * 2, x * x], (_leaf(lib, _values(5, 3)),), {})


def case_wrong_second_output(lib):
    # Output 1 depends only on input 1; its gradient is wrong.
    def func(x, y):
        return x * y, _doubling_hook(y * 1).cos()

    return func, (_leaf(lib, _values(6, 2)), _leaf(lib, _values(7, 2))), {}


def case_multi_output_op(lib):
    # Several outputs of one op: dropping one output's grad leaves that node partly undefined.
    return (lambda x: x.unbind(0), (_leaf(lib, _values(23, (3, 2))),), {})


def case_non_tensor_arguments(lib):
    def func(x, scale, mode, y):
        return x * scale + y if mode == "affine" else x

    return func, (_leaf(lib, _values(8, 3)), 2.5, "affine", _leaf(lib, _values(9, 3))), {}


def case_wrong_grad_after_non_tensor(lib):
    # "input 1" counts only the inputs that require grad: y, not the float before it.
    def func(x, scale, y):
        return x * scale + _doubling_hook(y * 1)

    return func, (_leaf(lib, _values(10, 2)), 3.0, _leaf(lib, _values(11, 2))), {}


def case_zero_dim(lib):
    return (lambda x, y: (x * y).exp(), (_leaf(lib, 0.7), _leaf(lib, -1.3)), {})


def case_zero_dim_output(lib):
    return (lambda x: (x * x).sum(), (_leaf(lib, _values(12, (2, 2))),), {})


def case_empty(lib):
    # lib.zeros: torch.tensor(np.zeros((0, 3))) would keep NumPy's zero strides
    return (lambda x: x * 2, (lib.zeros(0, 3, dtype=lib.float64, requires_grad=True),), {})


def case_float32_input(lib):
    # Fails at default tolerances, with torch's precision warning.
    return (lambda x: x.sin(), (_leaf(lib, _values(13, 3), lib.float32),), {})


def case_output_without_grad(lib):
    return (lambda x: (x.detach() * 0, x * 3), (_leaf(lib, _values(14, 3)),), {})


def case_only_non_differentiable_output(lib):
    # The output depends on x but does not require grad: torch demands a zero numerical Jacobian.
    return (lambda x: x.detach() * 2, (_leaf(lib, _values(15, 3)),), {})


def case_no_input_requires_grad(lib):
    return (lambda x: x * 2, (_leaf(lib, _values(16, 3)).detach(),), {})


def case_stride_zero_input(lib):
    x = lib.ones(1, dtype=lib.float64).expand(3).requires_grad_()
    return (lambda x: x * 2, (x,), {})


def case_integer_output_only(lib):
    return (lambda x: (x > 0).to(lib.int64), (_leaf(lib, _values(17, 4)),), {})


def case_unused_input(lib):
    return (lambda x, y: x * 2, (_leaf(lib, _values(18, 3)), _leaf(lib, _values(19, 3))), {})


def case_transposed_input(lib):
    x = _leaf(lib, _values(20, (3, 2))).detach().t().requires_grad_()
    return (lambda x: x.matmul(x.t()), (x,), {})


def case_shape_depends_on_value(lib):
    x = _leaf(lib, [0.25, 1.5])

    def func(x):
        # x[0] - eps takes the branch with one element, x[0] + eps the one with two.
        return x if float(x.detach()[0]) > 0.25 else x[:1]

    return func, (x,), {}


def case_dtype_depends_on_value(lib):
    x = _leaf(lib, [0.25, 1.5])

    def func(x):
        return x if float(x.detach()[0]) > 0.25 else x.to(lib.float32)

    return func, (x,), {}


def _nondeterministic(lib):
    calls = itertools.count(1)

    def func(x):
        y = x * 1
        y.register_hook(lambda g: g if g is None else g * (1 + next(calls) * 1e-12))
        return y

    return func, (_leaf(lib, _values(21, 2)),)


def case_not_reentrant(lib):
    func, inputs = _nondeterministic(lib)
    return func, inputs, {}


def case_not_reentrant_within_tolerance(lib):
    func, inputs = _nondeterministic(lib)
    return func, inputs, {"nondet_tol": 1e-6}


def case_backward_not_multiplied_by_grad_output(lib):
    # Right Jacobian (every one-hot row is right) but nonzero grads for a zero grad_output.
    def func(x):
        y = x * 1
        y.register_hook(lambda g: g if g is None or float(g.abs().sum()) != 0 else g + 1)
        return y.sin()

    return func, (_leaf(lib, _values(22, 3)),), {}


def case_masked_dense(lib):
    func, inputs, _ = case_correct(lib)
    return func, inputs, {"masked": True}


def case_no_check_at_all(lib):
    func, inputs, _ = case_correct(lib)
    return func, inputs, {"check_backward_ad": False}


def case_loose_tolerance(lib):
    # The doubled gradient passes when rtol allows a factor of two.
    func, inputs, _ = case_wrong_grad(lib)
    return func, inputs, {"rtol": 1.5, "atol": 0.0}


# -- forward mode (check_forward_ad) --


def _scale_function(lib, jvp_factor):
    """x * 2 as a custom Function whose jvp multiplies by ``jvp_factor`` (2 is right)."""
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

        @staticmethod
        def jvp(ctx, tangent):
            return tangent * jvp_factor

    return Scale


def case_forward_ad(lib):
    func, inputs, _ = case_correct(lib)
    return func, inputs, {"check_forward_ad": True}


def case_forward_ad_only(lib):
    func, inputs, _ = case_multiple_outputs(lib)
    return func, inputs, {"check_forward_ad": True, "check_backward_ad": False}


def case_forward_ad_non_tensor_arguments(lib):
    func, inputs, _ = case_non_tensor_arguments(lib)
    return func, inputs, {"check_forward_ad": True}


def case_forward_ad_wrong_jvp(lib):
    scale = _scale_function(lib, 3.0)
    return (lambda x: scale.apply(x).sin(), (_leaf(lib, _values(24, (2, 2))),),
            {"check_forward_ad": True})


def case_forward_ad_wrong_jvp_backward_only(lib):
    func, inputs, _ = case_forward_ad_wrong_jvp(lib)
    return func, inputs, {}


def case_forward_ad_wrong_jvp_no_raise(lib):
    func, inputs, _ = case_forward_ad_wrong_jvp(lib)
    return func, inputs, {"check_forward_ad": True, "check_backward_ad": False,
                          "raise_exception": False}


def case_forward_ad_missing_jvp(lib):
    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return NoJvp.apply, (_leaf(lib, _values(25, 3)),), {"check_forward_ad": True}


def case_forward_ad_no_differentiable_output(lib):
    return (lambda x: x.detach() * 2, (_leaf(lib, _values(26, 3)),),
            {"check_forward_ad": True, "check_backward_ad": False})


def case_forward_ad_zero_dim(lib):
    func, inputs, _ = case_zero_dim(lib)
    return func, inputs, {"check_forward_ad": True}


GRADCHECK_CASES = [value for name, value in sorted(globals().items()) if name.startswith("case_")]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=lambda case: case.__name__[5:])
def test_gradcheck_agrees_with_torch(case, backend):
    lib, torch = backend
    func, inputs, kwargs = case(torch)
    expected = _outcome(lambda: torch.autograd.gradcheck(func, inputs, **kwargs))
    func, inputs, kwargs = case(lib)
    assert _outcome(lambda: gc.gradcheck(func, inputs, **kwargs)) == expected


# ---------------------------------------------------------------------------------------------
# gradgradcheck cases: build(lib) -> (func, inputs, grad_outputs or None, keyword arguments)


def _wrong_second_derivative(x):
    # x * x.detach() has half the true gradient of x**2; the hook doubles it back, so the first
    # derivative 2x is right, but 2x is built from a detached x: the second derivative is lost.
    z = x * x.detach()
    z.register_hook(lambda g: g if g is None else 2 * g)
    return z


def gg_case_smooth(lib):
    func = lambda x, y: (x * y).sin() + x**3  # noqa: E731
    return func, (_leaf(lib, _values(30, 3)), _leaf(lib, _values(31, 3))), None, {}


def gg_case_multiple_outputs(lib):
    func = lambda x, y: (x * y, (x + y).exp(), (x * x).sum())  # noqa: E731
    return func, (_leaf(lib, _values(32, 2)), _leaf(lib, _values(33, 2))), None, {}


def gg_case_given_grad_outputs(lib):
    func = lambda x: x.tanh() * x  # noqa: E731
    grad_output = _leaf(lib, _values(34, (2, 2)))
    return func, (_leaf(lib, _values(35, (2, 2))),), (grad_output,), {}


def gg_case_non_contiguous_grad_outputs(lib):
    func = lambda x: (x * x).sin()  # noqa: E731
    return func, (_leaf(lib, _values(36, (2, 3))),), None, {"gen_non_contig_grad_outputs": True}


def gg_case_non_tensor_argument(lib):
    func = lambda x, power: x**power  # noqa: E731
    return func, (_leaf(lib, np.abs(_values(37, 3)) + 0.5), 3.0), None, {}


def gg_case_wrong_second_derivative(lib):
    grad_output = _leaf(lib, _values(38, 3))
    return _wrong_second_derivative, (_leaf(lib, _values(39, 3)),), (grad_output,), {}


def gg_case_wrong_second_derivative_no_raise(lib):
    func, inputs, grad_outputs, _ = gg_case_wrong_second_derivative(lib)
    return func, inputs, grad_outputs, {"raise_exception": False}


def gg_case_wrong_first_derivative(lib):
    grad_output = _leaf(lib, _values(40, 2))

    def func(x):
        return _doubling_hook(x * 1).sin()

    return func, (_leaf(lib, _values(41, 2)),), (grad_output,), {}


def gg_case_undefined_grad_without_rev_over_rev(lib):
    func, inputs, grad_outputs, _ = gg_case_smooth(lib)
    return func, inputs, grad_outputs, {"check_rev_over_rev": False}


def gg_case_forward_over_reverse(lib):
    func, inputs, grad_outputs, _ = gg_case_multiple_outputs(lib)
    return func, inputs, grad_outputs, {"check_fwd_over_rev": True}


def gg_case_forward_over_reverse_only(lib):
    func, inputs, grad_outputs, _ = gg_case_smooth(lib)
    return func, inputs, grad_outputs, {"check_fwd_over_rev": True, "check_rev_over_rev": False,
                                        "check_undefined_grad": False}


GRADGRADCHECK_CASES = [
    value for name, value in sorted(globals().items()) if name.startswith("gg_case_")
]


@pytest.mark.parametrize("case", GRADGRADCHECK_CASES, ids=lambda case: case.__name__[8:])
def test_gradgradcheck_agrees_with_torch(case, backend):
    lib, torch = backend
    func, inputs, grad_outputs, kwargs = case(torch)
    expected = _outcome(lambda: torch.autograd.gradgradcheck(func, inputs, grad_outputs, **kwargs))
    func, inputs, grad_outputs, kwargs = case(lib)
    assert _outcome(lambda: gc.gradgradcheck(func, inputs, grad_outputs, **kwargs)) == expected


def test_first_derivative_of_wrong_second_derivative_case_is_right(backend):
    # gradgradcheck's failure above is about the second derivative only.
    lib, torch = backend
    x = _leaf(lib, _values(39, 3))
    assert gc.gradcheck(_wrong_second_derivative, (x,))
    assert torch.autograd.gradcheck(_wrong_second_derivative, (_leaf(torch, _values(39, 3)),))


# ---------------------------------------------------------------------------------------------
# Behaviour checked against mathematics or leafgrad's own contract


def test_numerical_jacobian_layout_is_input_by_output():
    # f(x) = A @ x has Jacobian A, so d output k / d input i is A[k, i]: the array is A.T.
    matrix = _values(50, (2, 3))
    x = _leaf(leafgrad, _values(51, 3))
    a = leafgrad.tensor(matrix, dtype=leafgrad.float64)
    func = lambda x: a.matmul(x)  # noqa: E731
    (per_output,) = gc._numerical_jacobians(func, (x,), [x], (func(x),), 1e-6)
    np.testing.assert_allclose(per_output[0], matrix.T, rtol=1e-8, atol=1e-8)


def test_analytical_jacobian_layout_is_input_by_output():
    matrix = _values(52, (2, 3))
    x = _leaf(leafgrad, _values(53, 3))
    a = leafgrad.tensor(matrix, dtype=leafgrad.float64)
    jacobians = gc._analytical_jacobians(leafgrad, [x], a.matmul(x), 0.0, False)
    np.testing.assert_allclose(jacobians[0], matrix.T, rtol=1e-12, atol=1e-12)


def test_failure_message_names_output_and_input():
    x = _leaf(leafgrad, [1.0, 2.0])
    y = _leaf(leafgrad, [3.0, -1.0])

    def func(x, y):
        return x + y, x * _doubling_hook(y * 1)

    with pytest.raises(gc.GradcheckError) as info:
        gc.gradcheck(func, (x, y))
    # d(x * y)/dx is right; d(x * y)/dy (= diag(x)) is doubled.
    assert str(info.value).startswith(
        "Jacobian mismatch for output 1 with respect to input 1,\nnumerical:"
    )


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_non_float_output_before_float_output_is_skipped(dtype):
    # torch misaligns its Jacobians after an integer output (IndexError) and cannot subtract
    # bool outputs (RuntimeError); here the non-float output is skipped, the float one checked.
    x = _leaf(leafgrad, _values(54, 3))
    dtype = getattr(leafgrad, dtype)
    assert gc.gradcheck(lambda x: ((x > 0).to(dtype), x * 2), (x,))
    with pytest.raises(gc.GradcheckError, match="^Jacobian mismatch for output 0 with respect"):
        gc.gradcheck(lambda x: ((x > 0).to(dtype), _doubling_hook(x * 1).sin()), (x,))


def test_inputs_are_restored_and_versions_untouched():
    x = _leaf(leafgrad, _values(55, (2, 3)))
    y = _leaf(leafgrad, _values(56, 3))
    before = (x.detach().numpy().copy(), y.detach().numpy().copy())
    versions = (x._version, y._version)
    assert gc.gradcheck(lambda x, y: (x * y).exp(), (x, y))
    assert not gc.gradcheck(lambda x, y: _doubling_hook(x * y), (x, y), raise_exception=False)
    np.testing.assert_array_equal(x.detach().numpy(), before[0])
    np.testing.assert_array_equal(y.detach().numpy(), before[1])
    assert (x._version, y._version) == versions


def test_input_restored_when_func_raises():
    x = _leaf(leafgrad, [1.0, 2.0])
    before = x.detach().numpy().copy()
    calls = itertools.count()

    def func(x):
        if next(calls) == 1:  # the first perturbed call
            raise ValueError("boom")
        return x * 2

    with pytest.raises(ValueError, match="boom"):
        gc.gradcheck(func, (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)


def _needs_both_output_grads(lib, on_missing):
    # A backward that misbehaves when the second output's grad is undefined (its hook sees
    # None): `on_missing` decides what the intermediate's hook does then.
    seen = []

    def func(x):
        seen.clear()
        y = x * 1
        y.register_hook(lambda g: g if all(seen) else on_missing(g))
        first, second = y.sin(), y.cos()
        second.register_hook(lambda g: seen.append(g is not None))
        return first, second

    return func


def _raise_runtime_error(g):
    raise RuntimeError("needs the second output's grad")


@pytest.mark.parametrize(
    ("on_missing", "message"),
    [
        (lambda g: None if g is None else g + 1,
         "^Expected all input grads to be undefined or zero when all output"),
        (_raise_runtime_error, "^Expected backward function to handle undefined output grads"),
    ],
)
def test_undefined_grad_check_catches_backward_needing_every_grad(backend, on_missing, message):
    # Called directly: the per-output analytical Jacobians would trip over these first.
    lib, _ = backend
    func = _needs_both_output_grads(lib, on_missing)
    x = _leaf(lib, _values(63, 3))
    with pytest.warns(UserWarning, match="^Backwards compatibility: New undefined gradient"):
        with pytest.raises(gc.GradcheckError, match=message):
            gc._check_undefined_grad(lib, func, (x,), num_outputs=2)
    func = _needs_both_output_grads(lib, lambda g: g)
    gc._check_undefined_grad(lib, func, (x,), num_outputs=2)


def test_warnings_point_at_the_caller():
    x = _leaf(leafgrad, _values(62, 2), leafgrad.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Linear in every checked argument, so float32 differences with a large eps are exact
        # enough for these tolerances.
        assert gc.gradcheck(lambda x: x * 2, (x,), eps=1e-2, atol=1e-2)
        assert gc.gradgradcheck(lambda x: x * x, (x,), eps=1e-2, atol=1e-2)
    ours = [w for w in caught if str(w.message).startswith("Input #0 requires gradient")]
    assert len(ours) == 2
    assert all(w.filename == __file__ for w in ours)


def test_fast_mode_runs_the_full_check():
    x = _leaf(leafgrad, _values(57, 3))
    assert gc.gradcheck(lambda x: x.sin() * x, (x,), fast_mode=True)
    assert not gc.gradcheck(
        lambda x: _doubling_hook(x * 1).sin(), (x,), fast_mode=True, raise_exception=False
    )
    assert gc.gradgradcheck(lambda x: x.sin() * x, (x,), fast_mode=True)


def test_gradgradcheck_random_grad_outputs_are_torchs():
    """Drawn as torch's make_tensor draws them (uniform_(-1, 1) from the default generator):
    the same seed gives torch's failure message, and the generator ends where torch's does."""
    torch = require_torch()
    outcomes = []
    for lib in (leafgrad, torch):
        lib.manual_seed(58)
        x = _leaf(lib, _values(58, 3))
        outcome = _outcome(lambda: lib.autograd.gradgradcheck(_wrong_second_derivative, (x,)))
        outcomes.append((outcome, lib.rand(3).tolist()))
    assert outcomes[0][0][0][0] == "GradcheckError"
    assert outcomes[0] == outcomes[1]


def test_gradgradcheck_random_grad_outputs_follow_output_dtype_and_layout():
    outputs = (
        leafgrad.zeros((2, 3), dtype=leafgrad.float32),
        leafgrad.zeros((2, 3), dtype=leafgrad.float64),
    )
    contiguous = gc._random_grad_outputs(leafgrad, outputs, noncontiguous=False)
    strided = gc._random_grad_outputs(leafgrad, outputs, noncontiguous=True)
    for grads in (contiguous, strided):
        assert [g.dtype for g in grads] == [leafgrad.float32, leafgrad.float64]
        assert all(g.shape == (2, 3) and g.requires_grad for g in grads)
        values = np.concatenate([g.detach().numpy().ravel() for g in grads])
        assert values.min() >= -1 and values.max() < 1
    assert all(g.is_contiguous() for g in contiguous)
    assert not any(g.is_contiguous() for g in strided)


def test_check_batched_grad_as_torch():
    """check_batched_grad compares one is_grads_batched gradient with two single ones, for
    randn_like grad_outputs from the default generator (two per differentiable output, as
    torch: the generator ends where torch's does), in gradcheck and gradgradcheck."""
    torch = require_torch()
    outcomes = []
    for lib in (leafgrad, torch):
        lib.manual_seed(61)
        a = _leaf(lib, _values(61, (3, 4)))
        b = _leaf(lib, _values(62, (4, 2)))
        seen = [
            _outcome(lambda: lib.autograd.gradcheck(lib.sin, (a,), check_batched_grad=True)),
            _outcome(lambda: lib.autograd.gradcheck(
                lambda x, y: (x @ y, x.sum(0), y.detach() * 2), (a, b), check_batched_grad=True)),
            _outcome(lambda: lib.autograd.gradcheck(lambda x, y: x.exp(), (a, b),
                                                    check_batched_grad=True)),
            _outcome(lambda: lib.autograd.gradcheck(lambda x, k: x * k, (a, 3),
                                                    check_batched_grad=True)),
            _outcome(lambda: lib.autograd.gradgradcheck(lambda x: (x ** 3).sum(1), (a,),
                                                        check_batched_grad=True)),
            _outcome(lambda: lib.autograd.gradcheck(lib.sin, (a,), check_batched_grad=True,
                                                    check_backward_ad=False,
                                                    check_forward_ad=True)),
        ]
        outcomes.append((seen, lib.rand(3).tolist()))
    assert outcomes[0] == outcomes[1]


def test_forward_check_leaves_no_level_open():
    x = _leaf(leafgrad, _values(62, 3))
    assert gc.gradcheck(lambda x: x.exp(), (x,), check_forward_ad=True)
    assert leafgrad.autograd.forward_ad._current_level == -1
    assert leafgrad.autograd.forward_ad.unpack_dual(x).tangent is None


def test_forward_check_finds_a_wrong_jvp_formula(monkeypatch):
    # A broken formula in the op table is what check_forward_ad is for.
    from leafgrad.ops import OPS

    monkeypatch.setattr(OPS["Sin"], "jvp", lambda self, tangents, primals, result:
                        tangents[0] * primals[0].cos() * 1.5)
    x = _leaf(leafgrad, _values(63, 3))
    assert gc.gradcheck(lambda x: x.sin(), (x,))
    with pytest.raises(gc.GradcheckError, match="Jacobian computed with forward mode mismatch"):
        gc.gradcheck(lambda x: x.sin(), (x,), check_forward_ad=True)


def test_option_consistency_is_checked_before_support():
    # torch's AssertionErrors come first, as in torch.
    x = _leaf(leafgrad, _values(61, 2))
    with pytest.raises(AssertionError, match="requires check_forward_ad to be True"):
        gc.gradcheck(lambda x: x, (x,), check_batched_forward_grad=True)
    with pytest.raises(AssertionError, match="requires check_rev_over_rev to be True"):
        gc.gradgradcheck(lambda x: x * x, (x,), check_rev_over_rev=False, check_fwd_over_rev=True)


def test_gradcheck_error_is_a_runtime_error():
    assert issubclass(gc.GradcheckError, RuntimeError)


def test_exported_from_leafgrad_autograd():
    # Also after the submodule has been imported (as it is by now): the names are functions.
    import leafgrad.autograd as autograd

    assert autograd.gradcheck is gc.gradcheck
    assert autograd.gradgradcheck is gc.gradgradcheck
    assert autograd.GradcheckError is gc.GradcheckError
