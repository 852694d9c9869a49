"""In-place functional activations (F.relu_, elu_, celu_, selu_, hardtanh_, leaky_relu_,
threshold_, rrelu_) and torch's top-level forms of nn.functional functions (torch.threshold,
torch.kl_div(..., reduction=int), ...) against torch: values, grad_fn names, version counters,
the in-place rules (leaf, view of a leaf, views: CopySlices), gradients and errors."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

INPLACE = {
    "relu_": lambda lib, x: lib.nn.functional.relu_(x),
    "elu_": lambda lib, x: lib.nn.functional.elu_(x, 0.7),
    "elu_default": lambda lib, x: lib.nn.functional.elu_(x),
    "celu_": lambda lib, x: lib.nn.functional.celu_(x, 1.5),
    "selu_": lambda lib, x: lib.nn.functional.selu_(x),
    "hardtanh_": lambda lib, x: lib.nn.functional.hardtanh_(x, -0.5, 0.8),
    "leaky_relu_": lambda lib, x: lib.nn.functional.leaky_relu_(x, 0.2),
    "threshold_": lambda lib, x: lib.nn.functional.threshold_(x, 0.1, 2.0),
    "elu_inplace_kw": lambda lib, x: lib.nn.functional.elu(x, inplace=True),
    "leaky_inplace_kw": lambda lib, x: lib.nn.functional.leaky_relu(x, inplace=True),
    "torch.relu_": lambda lib, x: lib.relu_(x),
    "torch.selu_": lambda lib, x: lib.selu_(x),
    "torch.celu_": lambda lib, x: lib.celu_(x, 0.5),
    "torch.threshold_": lambda lib, x: lib.threshold_(x, -0.2, 3.0),
    "rrelu_train": lambda lib, x: (lib.manual_seed(3), lib.nn.functional.rrelu_(x, 0.1, 0.3,
                                                                                 True))[1],
    "torch.rrelu_": lambda lib, x: lib.rrelu_(x),
}

DATA = np.array([[-1.5, -0.3, 0.0, 0.2], [0.7, 1.9, -0.05, 3.0]])


def _run(lib, name, dtype):
    leaf = lib.tensor(DATA, dtype=getattr(lib, dtype), requires_grad=True)
    x = leaf * 2
    before = x._version
    out = INPLACE[name](lib, x)
    assert out is x
    bumped = x._version - before
    loss = (out * lib.arange(8, dtype=out.dtype).view(2, 4)).sum()
    # second-order: the gradient of the gradient exists and agrees too
    (g,) = lib.autograd.grad(loss, leaf, create_graph=True)
    gg = lib.autograd.grad((g * g).sum(), leaf, allow_unused=True)[0] if g.requires_grad \
        else None
    return dict(out=out.detach().numpy(), node=out.grad_fn.name(), bumped=bumped,
                grad=g.detach().numpy(), gg=None if gg is None else gg.numpy(),
                dtype=str(out.dtype).split(".")[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_activation_matches_torch(name, dtype):
    ours, theirs = _run(leafgrad, name, dtype), _run(torch, name, dtype)
    assert ours["node"] == theirs["node"]
    assert ours["bumped"] == theirs["bumped"] == 1
    assert ours["dtype"] == theirs["dtype"]
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=tol, atol=tol)
    np.testing.assert_allclose(ours["grad"], theirs["grad"], rtol=tol, atol=tol)
    # a piecewise-linear activation's second derivative is zero: torch records it, leafgrad's
    # backward of a constant mask leaves the gradient without history (None here)
    zeros = np.zeros_like(ours["grad"])
    np.testing.assert_allclose(zeros if ours["gg"] is None else ours["gg"],
                               zeros if theirs["gg"] is None else theirs["gg"], rtol=tol,
                               atol=tol)


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).splitlines()[0]
    return None


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_activation_rules_match_torch(name):
    def run(lib):
        results = []
        leaf = lib.tensor(DATA, requires_grad=True)
        results.append(_error(lambda: INPLACE[name](lib, leaf)))  # a leaf that requires grad
        results.append(leaf._version)
        results.append(_error(lambda: INPLACE[name](lib, leaf[0])))  # a view of such a leaf
        with lib.no_grad():  # allowed without grad mode
            plain = lib.tensor(DATA, requires_grad=True)
            INPLACE[name](lib, plain)
            results.append((plain._version, plain.detach().numpy().round(12).tolist()))
        # on a view of a non-leaf: the base's history becomes CopySlices
        base = lib.tensor(DATA, requires_grad=True) * 1
        view = base[1]
        INPLACE[name](lib, view)
        results.append((base.grad_fn.name(), view.grad_fn.name()))
        source = lib.tensor(DATA, requires_grad=True)
        base = source * 1
        INPLACE[name](lib, base[:, 1:3])
        base.sum().backward()
        results.append(source.grad.numpy().round(12).tolist())
        # a value saved by an earlier op, then overwritten: backward refuses
        x = lib.tensor(DATA, requires_grad=True) * 1
        y = x * x
        INPLACE[name](lib, x)
        results.append(_error(lambda: y.sum().backward()))
        return results

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.elu_(x, -0.5),
    lambda lib, x: lib.nn.functional.celu_(x, -1.0),
    lambda lib, x: lib.nn.functional.leaky_relu_(x, -0.2),
    lambda lib, x: lib.nn.functional.elu_(x, 0.0),
    lambda lib, x: lib.nn.functional.hardtanh_(x, 1.0, -1.0),
], ids=["elu_negative", "celu_negative", "leaky_negative", "elu_zero", "hardtanh_bounds"])
def test_inplace_activation_errors_match_torch(call):
    def run(lib):
        x = lib.tensor(DATA, requires_grad=True) * 1
        forward = _error(lambda: call(lib, x))
        backward = _error(lambda: x.sum().backward()) if forward is None else None
        return forward, backward, x.detach().numpy().round(12).tolist()

    assert run(leafgrad) == run(torch)


rng = np.random.default_rng(5)
X = rng.normal(size=(3, 4))
Y = rng.normal(size=(3, 4))
T = np.sign(rng.normal(size=3))

ALIASES = {
    "threshold": lambda lib, x, y: lib.threshold(x, 0.1, -2.0),
    "hardshrink": lambda lib, x, y: lib.hardshrink(x, 0.3),
    "hardshrink_default": lambda lib, x, y: lib.hardshrink(x),
    "Tensor.hardshrink": lambda lib, x, y: x.hardshrink(0.4),
    "prelu": lambda lib, x, y: lib.prelu(x, y[0, :1]),
    "Tensor.prelu": lambda lib, x, y: x.prelu(y[0]),
    "rrelu_eval": lambda lib, x, y: lib.rrelu(x, 0.1, 0.2),
    "rrelu_train": lambda lib, x, y: (lib.manual_seed(1), lib.rrelu(x, 0.1, 0.2, True))[1],
    "bilinear": lambda lib, x, y: lib.bilinear(x, y, y.view(3, 4, 1).expand(3, 4, 4) * 1,
                                               y[:, 0]),
    "bilinear_nobias": lambda lib, x, y: lib.bilinear(x, y, y.view(3, 4, 1).expand(3, 4, 4) * 1),
    "pixel_shuffle": lambda lib, x, y: lib.pixel_shuffle(x.reshape(1, 4, 3, 1), 2),
    "pixel_unshuffle": lambda lib, x, y: lib.pixel_unshuffle(x.reshape(1, 1, 2, 6), 2),
    "channel_shuffle": lambda lib, x, y: lib.channel_shuffle(x.reshape(1, 4, 3), 2),
    "alpha_dropout_eval": lambda lib, x, y: lib.alpha_dropout(x, 0.5, False),
    "alpha_dropout_train": lambda lib, x, y: (lib.manual_seed(2),
                                              lib.alpha_dropout(x, 0.3, True))[1],
    "feature_alpha_dropout": lambda lib, x, y: (lib.manual_seed(2), lib.feature_alpha_dropout(
        x.reshape(3, 2, 2), 0.4, True))[1],
    "alpha_dropout_": lambda lib, x, y: (lib.manual_seed(4),
                                         lib.alpha_dropout_(x * 1, 0.3, True))[1],
    "feature_alpha_dropout_": lambda lib, x, y: (lib.manual_seed(4), lib.feature_alpha_dropout_(
        x.reshape(3, 2, 2) * 1, 0.3, True))[1],
    "instance_norm": lambda lib, x, y: lib.instance_norm(x.reshape(1, 3, 4), y[0, :3], y[1, :3],
                                                         None, None, True, 0.1, 1e-5, False),
    "rms_norm": lambda lib, x, y: lib.rms_norm(x, [4], y[0]),
    "rms_norm_eps": lambda lib, x, y: lib.rms_norm(x, (3, 4), None, 1e-3),
    "kl_div": lambda lib, x, y: lib.kl_div(x, y.exp()),
    "kl_div_none_log": lambda lib, x, y: lib.kl_div(x, y, 0, log_target=True),
    "kl_div_sum": lambda lib, x, y: lib.kl_div(x, y.abs(), 2),
    "kl_div_mean": lambda lib, x, y: lib.kl_div(x, y.abs(), 1),
    "hinge_embedding_loss_default": lambda lib, x, y: lib.hinge_embedding_loss(x, y.sign()),
    "triplet_margin_loss_default": lambda lib, x, y: lib.triplet_margin_loss(x, y, x * y),
    "margin_ranking_loss": lambda lib, x, y: lib.margin_ranking_loss(x[0], y[0], y[1].sign(),
                                                                     0.2),
    "margin_ranking_loss_none": lambda lib, x, y: lib.margin_ranking_loss(
        x[0], y[0], y[1].sign(), 0.0, 0),
    "hinge_embedding_loss": lambda lib, x, y: lib.hinge_embedding_loss(x, y.sign(), 0.5, 2),
    "cosine_embedding_loss": lambda lib, x, y: lib.cosine_embedding_loss(
        x, y, lib.tensor([1.0, -1.0, 1.0], dtype=x.dtype)),
    "triplet_margin_loss": lambda lib, x, y: lib.triplet_margin_loss(x, y, x * y, 0.5, 1.5,
                                                                     1e-6, True, 0),
    "poisson_nll_loss": lambda lib, x, y: lib.poisson_nll_loss(x, y.abs(), True, True, 1e-8, 1),
    "poisson_nll_loss_nolog": lambda lib, x, y: lib.poisson_nll_loss(x.abs(), y.abs(), False,
                                                                     False, 1e-3, 2),
    "bce_with_logits": lambda lib, x, y: lib.binary_cross_entropy_with_logits(x, y.sigmoid()),
    "bce_with_logits_code3": lambda lib, x, y: lib.binary_cross_entropy_with_logits(
        x, y.sigmoid(), reduction=3),
    "bce_with_logits_weights": lambda lib, x, y: lib.binary_cross_entropy_with_logits(
        x, y.sigmoid(), y[0].abs().detach(), y[1].abs().detach(), 1),
    "conv_transpose1d": lambda lib, x, y: lib.conv_transpose1d(x.reshape(1, 3, 4), y[:, :2]
                                                               .reshape(3, 1, 2), None, 2),
    "adaptive_max_pool1d": lambda lib, x, y: lib.adaptive_max_pool1d(x.reshape(1, 3, 4), 3),
    "adaptive_max_pool1d_kw": lambda lib, x, y: lib.adaptive_max_pool1d(x.reshape(3, 4),
                                                                        output_size=[2]),
}


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_top_level_forms_match_torch(name):
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        y = lib.tensor(Y, requires_grad=True)
        out = ALIASES[name](lib, x, y)
        outs = out if isinstance(out, tuple) else (out,)
        floats = [o for o in outs if o.dtype.is_floating_point]
        sum(((o * o).sum() for o in floats), lib.zeros((), dtype=lib.float64)).backward()
        return ([o.detach().numpy() for o in outs], [str(o.dtype).split(".")[1] for o in outs],
                [None if o.grad_fn is None else o.grad_fn.name() for o in outs],
                [None if t.grad is None else t.grad.numpy() for t in (x, y)])

    ours, theirs = run(leafgrad), run(torch)
    assert ours[1:3] == theirs[1:3]
    for a, b in zip(ours[0] + ours[3], theirs[0] + theirs[3]):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


BAD = [
    lambda lib, x: lib.kl_div(x, x, "mean"),
    lambda lib, x: lib.kl_div(x, x, 1, True),
    lambda lib, x: lib.alpha_dropout(x, 0.5),
    lambda lib, x: lib.alpha_dropout(x, 0.5, training=True),
    lambda lib, x: lib.threshold(x, 0.5),
    lambda lib, x: lib.threshold(x, "a", 1),
    lambda lib, x: lib.poisson_nll_loss(x, x),
    lambda lib, x: lib.hinge_embedding_loss(x, x, reduction="sum"),
    lambda lib, x: lib.margin_ranking_loss(x, x),
    lambda lib, x: lib.pixel_shuffle(x.reshape(1, 3, 4), 2.0),
    lambda lib, x: lib.channel_shuffle(x, 2),
    lambda lib, x: lib.adaptive_max_pool1d(x.reshape(1, 3, 4), 2, True),
    lambda lib, x: lib.prelu(x),
    lambda lib, x: lib.hardshrink(x, lambd=None),
    lambda lib, x: lib.bilinear(x, x),
    lambda lib, x: lib.instance_norm(x, None, None, None, None, True, 0.1, 1e-5),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_top_level_form_errors_match_torch(index):
    def run(lib):
        return _error(lambda: BAD[index](lib, lib.tensor(X)))

    ours, theirs = run(leafgrad), run(torch)
    assert theirs is not None
    assert ours == theirs
