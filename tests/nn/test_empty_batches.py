"""Layers on empty batches (and other zero-size dims) as torch: output shape, node, the
gradients of the input and every parameter, the running statistics; and BatchNorm's checks
(_verify_batch_size's size[0] * prod(size[2:]) == 1, an empty input's clone path).
Differential against torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch


def _modules(nn):
    return {
        "linear": (lambda: nn.Linear(4, 3), (0, 4)),
        "conv1d": (lambda: nn.Conv1d(2, 3, 3), (0, 2, 5)),
        "conv2d": (lambda: nn.Conv2d(2, 3, 3, padding=1), (0, 2, 5, 5)),
        "conv2d_groups": (lambda: nn.Conv2d(4, 4, 3, groups=2), (0, 4, 5, 5)),
        "conv2d_stride": (lambda: nn.Conv2d(2, 3, 3, stride=2), (0, 2, 7, 7)),
        "conv3d": (lambda: nn.Conv3d(2, 3, 2), (0, 2, 3, 3, 3)),
        "conv_transpose1d": (lambda: nn.ConvTranspose1d(2, 3, 2, stride=2), (0, 2, 4)),
        "conv_transpose2d": (lambda: nn.ConvTranspose2d(2, 3, 2, stride=2), (0, 2, 3, 3)),
        "max_pool1d": (lambda: nn.MaxPool1d(2), (0, 2, 4)),
        "max_pool2d": (lambda: nn.MaxPool2d(2), (0, 2, 4, 4)),
        "max_pool3d": (lambda: nn.MaxPool3d(2), (0, 2, 4, 4, 4)),
        "avg_pool2d": (lambda: nn.AvgPool2d(2), (0, 2, 4, 4)),
        "adaptive_avg": (lambda: nn.AdaptiveAvgPool2d(1), (0, 2, 4, 4)),
        "flatten": (lambda: nn.Flatten(), (0, 2, 3)),
        "flatten_middle": (lambda: nn.Flatten(1, 2), (3, 0, 2, 2)),
        "unflatten": (lambda: nn.Unflatten(1, (2, 3)), (0, 6)),
        "batch_norm1d_train": (lambda: nn.BatchNorm1d(3), (0, 3)),
        "batch_norm2d_train": (lambda: nn.BatchNorm2d(2), (0, 2, 3, 3)),
        "batch_norm2d_eval": (lambda: nn.BatchNorm2d(2).eval(), (0, 2, 3, 3)),
        "batch_norm_no_affine": (lambda: nn.BatchNorm1d(3, affine=False), (0, 3, 4)),
        "layer_norm": (lambda: nn.LayerNorm(4), (0, 4)),
        "group_norm": (lambda: nn.GroupNorm(1, 2), (0, 2, 3)),
        "lstm": (lambda: nn.LSTM(4, 3, batch_first=True), (0, 5, 4)),
        "embedding_bag_like_linear": (lambda: nn.Bilinear(2, 3, 4), None),
    }


def _run(lib, name):
    lib.manual_seed(0)
    make, shape = _modules(lib.nn)[name]
    module = make()
    if shape is None:
        x = lib.zeros(0, 2, requires_grad=True)
        out = module(x, lib.zeros(0, 3))
    else:
        x = lib.zeros(*shape, requires_grad=True)
        out = module(x)
    if isinstance(out, tuple):
        out = out[0]
    out.sum().backward()
    params = [(n, tuple(p.grad.shape) if p.grad is not None else None,
               None if p.grad is None else p.grad.numpy().tolist())
              for n, p in module.named_parameters()]
    buffers = [(n, b.numpy().tolist()) for n, b in module.named_buffers()]
    return (tuple(out.shape), out.grad_fn.name(), tuple(x.grad.shape), params, buffers)


@pytest.mark.parametrize("name", sorted(_modules(leafgrad.nn)))
def test_layer_on_an_empty_batch(name):
    torch = require_torch()
    assert _run(leafgrad, name) == _run(torch, name)


@pytest.mark.parametrize("shape", [(1, 3), (1, 3, 1), (0, 3), (2, 0), (0, 3, 4), (1, 0, 1),
                                   (2, 0, 3)])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batch_norm_checks_and_empty_inputs(shape, training):
    torch = require_torch()
    results = []
    for lib in (leafgrad, torch):
        bn = lib.nn.BatchNorm1d(shape[1]).train(training)
        try:
            out = bn(lib.zeros(*shape))
            results.append((tuple(out.shape), out.grad_fn.name(),
                            bn.running_mean.tolist(), int(bn.num_batches_tracked)))
        except Exception as error:  # noqa: BLE001 - compared with torch's
            results.append((type(error).__name__, str(error).splitlines()[0]))
    assert results[0] == results[1]


def _functional_cases(lib):
    F = lib.nn.functional

    def z(*shape):
        return lib.zeros(*shape, requires_grad=True)

    def labels(*shape):
        return lib.zeros(*shape, dtype=lib.long)

    return {
        "cross_entropy_sum": lambda: F.cross_entropy(z(0, 3), labels(0), reduction="sum"),
        "cross_entropy_none_kdim": lambda: F.cross_entropy(z(0, 3, 2), labels(0, 2),
                                                           reduction="none"),
        "cross_entropy_none_3d": lambda: F.cross_entropy(z(0, 3, 2, 2, 2), labels(0, 2, 2, 2),
                                                         reduction="none"),
        "nll_sum": lambda: F.nll_loss(z(0, 3), labels(0), reduction="sum"),
        "log_softmax_dim0": lambda: F.log_softmax(z(0, 3), 0),
        "log_softmax_dim1": lambda: F.log_softmax(z(0, 3), 1),
        "softmax_dim0": lambda: F.softmax(z(3, 0), 0),
        "grid_sample": lambda: F.grid_sample(z(0, 2, 3, 3), lib.zeros(0, 4, 4, 2),
                                             align_corners=False),
        "grid_sample_nearest": lambda: F.grid_sample(z(0, 2, 3, 3), lib.zeros(0, 4, 4, 2),
                                                     mode="nearest", align_corners=True),
        "adaptive_max_pool2d": lambda: F.adaptive_max_pool2d(z(0, 2, 4, 4), 2),
        "max_unpool2d": lambda: F.max_unpool2d(*F.max_pool2d(z(0, 2, 4, 4), 2,
                                                             return_indices=True), 2),
        "ctc_empty": lambda: F.ctc_loss(z(5, 0, 4).log_softmax(2), labels(0, 2),
                                        labels(0) + 5, labels(0)),
    }


@pytest.mark.parametrize("name", sorted(_functional_cases(leafgrad)))
def test_functional_on_an_empty_batch(name):
    torch = require_torch()
    results = []
    for lib in (leafgrad, torch):
        try:
            out = _functional_cases(lib)[name]()
            out.sum().backward()
            results.append((tuple(out.shape), out.grad_fn.name()))
        except Exception as error:  # noqa: BLE001 - compared with torch's
            results.append((type(error).__name__, str(error).splitlines()[0]))
    assert results[0] == results[1]


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf"), 0.0, -1.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_is_atens_norm(p, keepdim):
    torch = require_torch()
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(a, requires_grad=True)
        d = lib.nn.functional.pairwise_distance(x, lib.tensor(b), p=p, keepdim=keepdim)
        d.sum().backward()
        results.append((d.grad_fn.name(), d.detach().numpy(),
                        None if x.grad is None else x.grad.numpy()))
    (name, d, g), (t_name, t_d, t_g) = results
    assert name == t_name == "NormBackward1"
    np.testing.assert_allclose(d, t_d, rtol=1e-6)
    assert (g is None) == (t_g is None)
    if g is not None:
        np.testing.assert_allclose(g, t_g, rtol=1e-5, atol=1e-7)
