"""Tensor queries and calls about devices, sharing and layouts that a CPU-only torch answers
in a fixed way (share_memory_/is_shared, pin_memory's error, is_xpu and friends, name,
volatile, is_set_to, const_data_ptr, to_dense, dense/sparse dims, Module.share_memory,
torch.GradScaler). Differential against torch 2.13."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

EXPRESSIONS = [
    "x.is_shared()", "x[:1].is_shared()", "x.share_memory_() is x", "x.is_shared()",
    "x[1:].is_shared()", "y.is_shared()", "x.is_pinned()", "x.is_xpu", "x.is_mps", "x.is_xla",
    "x.is_ipu", "x.is_mtia", "x.is_maia", "x.is_vulkan", "x.is_distributed()", "x.name",
    "x.volatile", "x.is_set_to(x)", "x.is_set_to(x[:])", "x.is_set_to(x[:1])",
    "x.is_set_to(x.view(1, 2))", "x.is_set_to(y)", "x.const_data_ptr() == x.data_ptr()",
    "x.to_dense() is x", "str(x.to_dense(lib.float64).dtype)", "x.dense_dim()", "x.sparse_dim()",
    "z.dense_dim()", "x.pin_memory()", "lib.GradScaler is lib.amp.GradScaler",
]


def _evaluate(lib, expression):
    x, y, z = lib.ones(2), lib.ones(2), lib.ones(2, 3, 4)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = eval(expression)  # noqa: S307 - the test's own expressions
        value = value.replace("torch.", "").replace("leafgrad.", "") \
            if isinstance(value, str) else value
        return value, [str(w.message).split(" (Triggered")[0] for w in caught]
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return type(error).__name__, str(error).splitlines()[0]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_query_as_torch(expression):
    torch = require_torch()
    assert _evaluate(leafgrad, expression) == _evaluate(torch, expression)


def test_module_share_memory():
    torch = require_torch()
    results = []
    for lib in (leafgrad, torch):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        model(lib.ones(3, 2)).sum().backward()
        fresh = lib.ones(1)
        returned = model.share_memory()
        results.append((returned is model, model[0].weight.is_shared(),
                        model[0].weight.grad.is_shared(), model[1].running_mean.is_shared(),
                        type(model[0].weight).__name__, fresh.is_shared()))
        with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized"):
            lib.nn.LazyLinear(3).share_memory()
    assert results[0] == results[1]


def test_shared_parameters_save_as_torch_saves_them():
    torch = require_torch()
    import io

    model = leafgrad.nn.Linear(2, 2)
    model.share_memory()
    for obj in (model.weight, {"w": model.weight}, model.state_dict()):
        buffer = io.BytesIO()
        leafgrad.save(obj, buffer)
        buffer.seek(0)
        loaded = torch.load(buffer, weights_only=True)
        tensors = loaded.values() if isinstance(loaded, dict) else [loaded]
        for tensor in tensors:
            assert vars(tensor) == {}  # nothing of leafgrad's bookkeeping travels
