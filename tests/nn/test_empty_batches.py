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
