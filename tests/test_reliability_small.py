"""Issue 11, item 11: relu's gradient at NaN, float32 scans accumulated as torch does, deepcopy
keeping memory shared, compared with torch 2.13."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


@pytest.mark.parametrize("make", [
    lambda lib, x: lib.relu(x),
    lambda lib, x: lib.nn.functional.relu(x),
    lambda lib, x: lib.nn.functional.threshold(x, 0.5, -1.0),
    lambda lib, x: lib.nn.functional.relu6(x),
    lambda lib, x: lib.nn.functional.hardtanh(x),
    lambda lib, x: lib.nn.functional.hardshrink(x),
    lambda lib, x: lib.nn.functional.softshrink(x),
    lambda lib, x: lib.nn.functional.hardswish(x),
    lambda lib, x: lib.nn.functional.elu(x),
    lambda lib, x: lib.nn.functional.selu(x),
    lambda lib, x: lib.nn.functional.celu(x, 0.7),
])
def test_nan_and_infinite_inputs_as_torch(make):
    """torch's kernels test `x <= t` (or `x >= lo && x <= hi`) and pass the other branch, so a
    NaN input passes its gradient (and the shrinks pass NaN forward)."""
    values = [float("nan"), -1.0, 0.0, -0.0, 0.3, 0.7, 2.0, 5.0, float("inf"), -float("inf")]
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor(values, requires_grad=True)
        y = make(lib, x)
        y.sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=0, equal_nan=True)
        assert np.array_equal(np.signbit(ours), np.signbit(theirs))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("np_dtype,ours_dtype,torch_dtype", [
    (np.float32, leafgrad.float32, torch.float32), (np.float16, leafgrad.float16, torch.float16),
    (np.float64, leafgrad.float64, torch.float64)])
def test_scans_accumulate_in_a_wider_type_as_torch(name, np_dtype, ours_dtype, torch_dtype):
    rng = np.random.default_rng(3)
    if name == "cumsum":
        data = rng.random(200_000).astype(np_dtype)
    else:  # a product that stays finite
        data = (1 + (rng.random(3000) - 0.5) / 50).astype(np_dtype)
    ours = getattr(leafgrad.tensor(data), name)(0).numpy()
    theirs = getattr(torch.tensor(data), name)(0).numpy()
    assert ours.dtype == theirs.dtype
    assert ours.tobytes() == theirs.tobytes()
    matrix = data[:3000].reshape(30, 100)
    for dim in (0, 1):
        ours = getattr(leafgrad.tensor(matrix), name)(dim).numpy()
        theirs = getattr(torch.tensor(matrix), name)(dim).numpy()
        assert ours.tobytes() == theirs.tobytes()
        ours = getattr(leafgrad.tensor(matrix), name)(dim, dtype=leafgrad.float64).numpy()
        theirs = getattr(torch.tensor(matrix), name)(dim, dtype=torch.float64).numpy()
        assert ours.tobytes() == theirs.tobytes()


def _aliasing(lib, make):
    objects = make(lib)
    copies = copy.deepcopy(objects)
    copies[-1][(0,) * copies[-1].ndim] = 100.0
    return [c.detach().numpy().tolist() for c in copies], [o.detach().numpy().tolist()
                                                           for o in objects]


@pytest.mark.parametrize("make", [
    lambda lib: (lambda b: (b, b[2:]))(lib.arange(6.0)),
    lambda lib: (lambda b: (b.t(), b))(lib.arange(6.0).reshape(2, 3)),
    lambda lib: (lambda b: (b, b[1], b[:, 1:]))(lib.arange(12.0).reshape(3, 4)),
    lambda lib: (lambda x: (x, x.detach()))(lib.ones(3, requires_grad=True)),
    lambda lib: (lib.ones(3), lib.ones(3)),
    lambda lib: (lambda b: [b[::2], b])(lib.arange(8.0)),
])
def test_deepcopy_keeps_memory_shared_between_copies(make):
    assert _aliasing(leafgrad, make) == _aliasing(torch, make)


def test_deepcopy_of_a_module_copies_its_parameters():
    model = leafgrad.nn.Linear(3, 2)
    clone = copy.deepcopy(model)
    with leafgrad.no_grad():
        clone.weight.fill_(0.0)
    assert float(model.weight.abs().sum()) > 0


@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_writing_through_a_diagonal_view(offset):
    """NumPy's diagonal views are read-only; torch writes through them (and records it)."""
    results = []
    for lib in (leafgrad, torch):
        z = lib.zeros(4, 3)
        z.diagonal(offset).fill_(1.0)
        x = lib.ones(3, 3, requires_grad=True)
        y = x * 1
        y.diagonal(offset).mul_(3.0)
        y.sum().backward()
        results.append((z.numpy().tolist(), x.grad.numpy().tolist(), y.grad_fn.name()))
    assert results[0] == results[1]


def test_no_module_shadows_a_c_module_of_the_standard_library():
    """Python run from inside the package directory puts it first on sys.path: a file named
    like one of the standard library's C modules (_random, _json, ...) would replace it.
    (random.py is torch's own torch.random, which shadows the pure-Python module in torch too.)"""
    import pathlib
    import subprocess
    import sys

    package = pathlib.Path(leafgrad.__file__).parent
    names = sorted(p.stem for p in package.glob("_*.py") if p.stem in sys.builtin_module_names
                   or p.stem in getattr(sys, "stdlib_module_names", ()))
    assert names == []
    result = subprocess.run([sys.executable, "-c", "import _random; _random.Random(1)"],
                            cwd=package, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
