"""Modules torch code imports by name: ``torch.functional``, ``torch.types``,
``torch.cpu.amp``; and ``torch.svd_lowrank`` / ``torch.pca_lowrank``, compared with torch."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()


def test_functional_module_has_torchs_names():
    ours = importlib.import_module("leafgrad.functional")
    theirs = importlib.import_module("torch.functional")
    assert sorted(ours.__all__) == sorted(theirs.__all__)
    for name in theirs.__all__:
        assert getattr(ours, name) is getattr(leafgrad, name), name
    a = np.arange(6.0).reshape(2, 3)
    assert np.array_equal(
        ours.einsum("ij,kj->ik", leafgrad.tensor(a), leafgrad.tensor(a)).numpy(),
        theirs.einsum("ij,kj->ik", torch.tensor(a), torch.tensor(a)).numpy())


def test_types_module_aliases():
    ours, theirs = importlib.import_module("leafgrad.types"), importlib.import_module("torch.types")
    for name in ("Number", "Device", "FileLike", "Storage", "Size", "Tensor", "IntLikeType",
                 "FloatLikeType", "BoolLikeType", "_size", "_TensorOrTensors", "_bool", "_int",
                 "_float", "_complex", "_str", "_dtype", "_device", "_Number"):
        assert hasattr(ours, name) and hasattr(theirs, name), name
    assert ours.Tensor is leafgrad.Tensor and ours.Size is leafgrad.Size
    assert ours._Number == theirs._Number
    assert isinstance(leafgrad.float32, ours._dtype)
    assert isinstance(leafgrad.device("cpu"), ours._device)


def _warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("dtype", [None, "float16", "bfloat16"])
def test_cpu_amp_deprecated_spellings(enabled, dtype):
    seen = []
    for lib in (torch, leafgrad):
        importlib.import_module(f"{lib.__name__}.cpu.amp")
        kwargs = {"enabled": enabled}
        if dtype is not None:
            kwargs["dtype"] = getattr(lib, dtype)
        context, warned = _warnings_of(lambda lib=lib: lib.cpu.amp.autocast(**kwargs))
        a = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=lib.float32)
        with context:
            product = a @ a.T
        scaler, scaler_warned = _warnings_of(lambda lib=lib: lib.cpu.amp.GradScaler(
            init_scale=1024.0, enabled=enabled))
        seen.append((warned, str(product.dtype).split(".")[-1], product.float().tolist(),
                     scaler_warned, scaler.get_scale(), scaler.is_enabled(),
                     isinstance(scaler, lib.amp.GradScaler)))
    assert seen[0] == seen[1]


def _lowrank_outcome(lib, function, shape, dtype, seed, **kwargs):
    lib.manual_seed(seed)
    A = lib.randn(*shape, dtype=getattr(lib, dtype))
    lib.manual_seed(seed + 1)
    try:
        U, S, V = getattr(lib, function)(A, **kwargs)
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0]
    return U.numpy(), S.numpy(), V.numpy(), A.numpy()


CASES = [("svd_lowrank", (8, 5), {}), ("svd_lowrank", (5, 8), {"q": 3}),
         ("svd_lowrank", (2, 7, 6), {"q": 4, "niter": 0}),
         ("svd_lowrank", (6, 6), {"q": 2, "niter": 4}),
         ("svd_lowrank", (9, 4), {"q": 3, "M": "mean"}),
         ("pca_lowrank", (10, 4), {}), ("pca_lowrank", (10, 4), {"q": 2, "center": False}),
         ("pca_lowrank", (3, 10, 4), {"q": 3}), ("pca_lowrank", (4, 3), {"q": 4}),
         ("pca_lowrank", (4, 3), {"q": -1}), ("pca_lowrank", (4, 3), {"niter": -1})]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("function,shape,kwargs", CASES)
def test_lowrank_matches_torch(function, shape, kwargs, dtype):
    results = []
    for lib in (torch, leafgrad):
        call_kwargs = dict(kwargs)
        if call_kwargs.get("M") == "mean":
            lib.manual_seed(7)
            call_kwargs["M"] = lib.randn(1, shape[-1], dtype=getattr(lib, dtype))
        results.append(_lowrank_outcome(lib, function, shape, dtype, 3, **call_kwargs))
    theirs, ours = results
    if isinstance(theirs[0], str):
        assert ours == theirs
        return
    tolerance = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(ours[1], theirs[1], rtol=tolerance, atol=tolerance)  # S
    # singular vectors up to the sign of each pair
    for mine, reference in ((ours[0], theirs[0]), (ours[2], theirs[2])):
        signs = np.sign(np.sum(mine * reference, axis=-2, keepdims=True))
        np.testing.assert_allclose(mine * signs, reference, rtol=10 * tolerance,
                                   atol=10 * tolerance)


def test_lowrank_gradients():
    def fn(A):
        leafgrad.manual_seed(0)
        U, S, V = leafgrad.svd_lowrank(A, q=3, niter=1)
        return S

    leafgrad.manual_seed(5)
    A = leafgrad.randn(6, 4, dtype=leafgrad.float64, requires_grad=True)
    assert leafgrad.autograd.gradcheck(fn, (A,))
    assert leafgrad.autograd.gradgradcheck(fn, (A,))
    # the same gradient as torch's for the same seeds
    grads = []
    for lib in (torch, leafgrad):
        lib.manual_seed(5)
        B = lib.randn(6, 4, dtype=lib.float64, requires_grad=True)
        lib.manual_seed(0)
        U, S, V = lib.pca_lowrank(B, q=3)
        S.sum().backward()
        grads.append(B.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-10)
