"""nn.utils.parametrize, nn.utils.parametrizations (weight_norm, spectral_norm), the hook-based
nn.utils.spectral_norm / remove_spectral_norm and nn.utils.stateless.functional_call against
torch: reprs, state_dict keys, values and gradients over training steps, RNG use, caching,
removal, errors and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    return Symmetric


def _scale(lib):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, X):
            return X / 2

    return Scale


def _steps(lib, model, x, count=3):
    """A few SGD steps; returns losses, outputs and the final parameters."""
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(count):
        optimizer.zero_grad()
        loss = (model(x) ** 2).sum()
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


def test_register_parametrization_matches_torch():
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 3).double()
        P = lib.nn.utils.parametrize
        P.register_parametrization(model, "weight", _symmetric(lib)())
        P.register_parametrization(model, "weight", _scale(lib)())
        out = [repr(model), list(model.state_dict()), type(model).__name__,
               P.is_parametrized(model), P.is_parametrized(model, "weight"),
               P.is_parametrized(model, "bias"),
               P.type_before_parametrizations(model).__name__,
               model.weight.detach().numpy().tolist(), model.weight.grad_fn.name()]
        x = lib.tensor(np.random.default_rng(0).normal(size=(4, 3)))
        out.append(_steps(lib, model, x))
        with P.cached():
            first, second = model.weight, model.weight
            out.append(first is second)
        out.append(model.weight is model.weight)
        # assignment goes through right_inverse
        model.weight = lib.tensor(np.arange(9.0).reshape(3, 3))
        out.append(model.parametrizations.weight.original.detach().numpy().tolist())
        P.remove_parametrizations(model, "weight", leave_parametrized=True)
        out += [repr(model), type(model).__name__, list(model.state_dict()),
                model.weight.detach().numpy().tolist(), hasattr(model, "parametrizations")]
        return out

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:7] == theirs[:7]
    np.testing.assert_allclose(ours[7], theirs[7], rtol=1e-6)
    assert ours[8] == theirs[8]
    np.testing.assert_allclose(ours[9][0], theirs[9][0], rtol=1e-12)
    for a, b in zip(ours[9][1], theirs[9][1]):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert ours[10:12] == theirs[10:12]
    np.testing.assert_allclose(ours[12], theirs[12])
    assert ours[13:16] == theirs[13:16]
    np.testing.assert_allclose(ours[16], theirs[16])
    assert ours[17] == theirs[17]


def test_remove_parametrization_without_leaving_and_errors():
    def run(lib):
        P = lib.nn.utils.parametrize
        results = []
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 3)
        P.register_parametrization(model, "weight", _symmetric(lib)())
        P.remove_parametrizations(model, "weight", leave_parametrized=False)
        results.append(model.weight.detach().numpy().round(6).tolist())
        for bad in (lambda: P.register_parametrization(model, "nothing", _scale(lib)()),
                    lambda: P.remove_parametrizations(model, "weight"),
                    lambda: P.register_parametrization(
                        model, "weight", type("Cut", (lib.nn.Module,), {
                            "forward": lambda self, X: X[:2]})())):
            try:
                bad()
                results.append(None)
            except Exception as error:  # noqa: BLE001
                results.append((type(error).__name__, str(error).splitlines()[0]))
        results.append(P.is_parametrized(model))
        return results

    assert run(leafgrad) == run(torch)


def test_unsafe_and_buffer_parametrization():
    def run(lib):
        P = lib.nn.utils.parametrize
        model = lib.nn.BatchNorm1d(3)
        P.register_parametrization(model, "running_var", _scale(lib)())
        plain = type("Plain", (lib.nn.Module,), {"forward": lambda self, X: X + 1})
        P.register_parametrization(model, "running_mean", plain())
        try:
            model.running_mean = lib.ones(3)
            refused = None
        except RuntimeError as error:
            refused = str(error)
        cut = type("Cut", (lib.nn.Module,), {"forward": lambda self, X: X[:2]})
        lib.manual_seed(1)
        linear = lib.nn.Linear(3, 3)
        P.register_parametrization(linear, "weight", cut(), unsafe=True)
        return (list(model.state_dict()), model.running_var.numpy().tolist(),
                list(linear.weight.shape), repr(linear), refused)

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_parametrizations_weight_norm_matches_torch(dim):
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(4, 3).double()
        lib.nn.utils.parametrizations.weight_norm(model, dim=dim)
        x = lib.tensor(np.random.default_rng(1).normal(size=(5, 4)))
        keys = list(model.state_dict())
        shapes = [list(v.shape) for v in model.state_dict().values()]
        return (repr(model), keys, shapes, model.weight.grad_fn.name(),
                _steps(lib, model, x), model.weight.detach().numpy())

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:4] == theirs[:4]
    np.testing.assert_allclose(ours[4][0], theirs[4][0], rtol=1e-12)
    for a, b in zip(ours[4][1] + [ours[5]], theirs[4][1] + [theirs[5]]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_parametrizations_weight_norm_loads_old_checkpoint_names():
    def run(lib):
        lib.manual_seed(0)
        old = lib.nn.utils.weight_norm(lib.nn.Linear(3, 2))
        state = old.state_dict()
        new = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2))
        result = new.load_state_dict(state)
        return (list(state), sorted(result.missing_keys), sorted(result.unexpected_keys),
                new.weight.detach().numpy().round(6).tolist())

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("layer,options", [
    ("Linear", dict()), ("Linear", dict(n_power_iterations=3)),
    ("Conv2d", dict()), ("ConvTranspose2d", dict()), ("Conv1d", dict(dim=1, eps=1e-6)),
], ids=str)
def test_parametrizations_spectral_norm_matches_torch(layer, options):
    def run(lib):
        lib.manual_seed(0)
        if layer == "Linear":
            model, x = lib.nn.Linear(5, 4), np.random.default_rng(1).normal(size=(3, 5))
        elif layer == "Conv1d":
            model, x = lib.nn.Conv1d(3, 4, 2), np.random.default_rng(1).normal(size=(2, 3, 5))
        else:
            model = getattr(lib.nn, layer)(3, 4, 2)
            x = np.random.default_rng(1).normal(size=(2, 3, 4, 4))
        model = model.double()
        lib.manual_seed(5)
        lib.nn.utils.parametrizations.spectral_norm(model, **options)
        after = lib.rand(2).numpy()  # the RNG consumed as torch's
        result = [repr(model), list(model.state_dict()), after.tolist(),
                  model.parametrizations.weight[0]._u.numpy()]
        x = lib.tensor(x)
        result.append(_steps(lib, model, x))
        model.eval()
        result.append(model.weight.detach().numpy())
        result.append(model.parametrizations.weight[0]._v.numpy())
        return result

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours[4][0], theirs[4][0], rtol=1e-10)
    for a, b in zip(ours[4][1] + ours[5:], theirs[4][1] + theirs[5:]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("layer", ["Linear", "Conv2d", "ConvTranspose2d"])
def test_hook_spectral_norm_matches_torch(layer):
    def run(lib):
        lib.manual_seed(0)
        if layer == "Linear":
            model, x = lib.nn.Linear(5, 4), np.random.default_rng(1).normal(size=(3, 5))
        else:
            model = getattr(lib.nn, layer)(3, 4, 2)
            x = np.random.default_rng(1).normal(size=(2, 3, 4, 4))
        model = model.double()
        lib.manual_seed(5)
        lib.nn.utils.spectral_norm(model, n_power_iterations=2)
        result = [repr(model), list(model.state_dict()), lib.rand(2).numpy().tolist()]
        x = lib.tensor(x)
        result.append(_steps(lib, model, x))
        model.eval()
        model(x)
        result.append(model.weight.detach().numpy())
        lib.nn.utils.remove_spectral_norm(model)
        result += [list(model.state_dict()), model.weight.detach().numpy()]
        for bad in (lambda: lib.nn.utils.remove_spectral_norm(model),
                    lambda: lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(
                        lib.nn.Linear(2, 2)))):
            try:
                bad()
                result.append(None)
            except Exception as error:  # noqa: BLE001
                result.append((type(error).__name__, str(error).splitlines()[0]))
        return result

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3][0], theirs[3][0], rtol=1e-10)
    for a, b in zip(ours[3][1] + [ours[4]], theirs[3][1] + [theirs[4]]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
    assert ours[5] == theirs[5]
    np.testing.assert_allclose(ours[6], theirs[6], rtol=1e-9, atol=1e-11)
    assert ours[7:] == theirs[7:]


def test_stateless_functional_call_matches_torch():
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        weights = {"weight": lib.ones(2, 3), "bias": lib.zeros(2)}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.utils.stateless.functional_call(model, weights,
                                                         (lib.arange(3.0).view(1, 3),))
        return out.numpy().tolist(), [(w.category.__name__, str(w.message)) for w in caught]

    assert run(leafgrad) == run(torch)
