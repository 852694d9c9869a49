"""Common ops run no import statement and read no NumPy ``dtype.name``.

A function-level ``from ..x import y`` costs about 1 us on every call (importlib's Python code
resolves the package and the fromlist), and NumPy's ``dtype.name`` is a Python property of
about the same cost: on a 64-element matrix product that was a third of the op's time. Each
case below runs once to warm up, then once under a profile hook that records every Python
function entered; none may be importlib's or NumPy's dtype-name helpers. (Not a timing test:
it counts calls, so it fails only when such a call comes back on these paths.)
"""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import leafgrad as torch

F = torch.nn.functional

_FORBIDDEN = {
    ("importlib._bootstrap", "_handle_fromlist"),
    ("importlib._bootstrap", "parent"),  # ModuleSpec.parent: a relative import's package
    ("importlib._bootstrap", "_find_and_load"),
    ("numpy._core._dtype", "_name_get"),
}


def _entered(fn) -> dict:
    """The forbidden (module, function) pairs ``fn()`` enters, each with the leafgrad line
    that led there."""
    seen = {}

    def hook(frame, event, arg):
        if event == "call":
            key = (frame.f_globals.get("__name__"), frame.f_code.co_name)
            if key in _FORBIDDEN:
                caller = frame.f_back
                while caller is not None and not caller.f_globals.get(
                        "__name__", "").startswith("leafgrad"):
                    caller = caller.f_back
                seen[key] = None if caller is None else (
                    f"{caller.f_code.co_filename.rsplit('/src/', 1)[-1]}:{caller.f_lineno}")

    # (the collector off: a finalizer of another test's garbage may import something while
    # fn runs, which would be no fault of fn's path)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if enabled:
            gc.enable()
    return seen


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 8)).astype(np.float32)
    y = rng.standard_normal((8, 8)).astype(np.float32)
    v = rng.standard_normal(64).astype(np.float32)
    return x, y, v


def _cases() -> list:
    return list(_case_params())


def _case_params():
    def leaves(requires_grad):
        x, y, v = _data()
        return (torch.tensor(x, requires_grad=requires_grad),
                torch.tensor(y, requires_grad=requires_grad),
                torch.tensor(v, requires_grad=requires_grad))

    ops = {
        "add": lambda x, y, v: x + y,
        "mul": lambda x, y, v: x * y,
        "mul_scalar": lambda x, y, v: x * 1.5,
        "pow2": lambda x, y, v: x ** 2,
        "exp": lambda x, y, v: x.exp(),
        "abs": lambda x, y, v: x.abs(),
        "tanh": lambda x, y, v: x.tanh(),
        "relu": lambda x, y, v: x.relu(),
        "clamp": lambda x, y, v: x.clamp(0.2, 0.8),
        "where": lambda x, y, v: torch.where(x > 0.5, x, y),
        "sum": lambda x, y, v: v.sum(),
        "mean": lambda x, y, v: v.mean(),
        "sum_dim1": lambda x, y, v: x.sum(1),
        "mean_dim1": lambda x, y, v: x.mean(1),
        "amax_dim1": lambda x, y, v: x.amax(1),
        "max": lambda x, y, v: v.max(),
        "std_dim1": lambda x, y, v: x.std(1),
        "norm": lambda x, y, v: v.norm(),
        "mm": lambda x, y, v: x @ y,
        "mv": lambda x, y, v: x @ v[:8],
        "linear": lambda x, y, v: F.linear(x, y),
        "mse_loss": lambda x, y, v: F.mse_loss(x, y),
        "view": lambda x, y, v: x.view(64),
        "unsqueeze": lambda x, y, v: x.unsqueeze(0),
        "cat": lambda x, y, v: torch.cat([x, y]),
        "stack": lambda x, y, v: torch.stack([x, y]),
        "clone": lambda x, y, v: x.clone(),
    }
    for name, op in ops.items():
        for backward in (False, True):
            def case(op=op, backward=backward):
                x, y, v = leaves(backward)
                out = op(x, y, v)
                if backward:
                    out.backward(torch.ones_like(out))
            yield pytest.param(case, id=f"{name}-{'backward' if backward else 'forward'}")

    x, y, v = _data()
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    inputs, labels = torch.tensor(x), torch.tensor(np.arange(8) % 4)

    def training_step():
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        loss.item()

    yield pytest.param(training_step, id="mlp-sgd-step")


@pytest.mark.parametrize("case", _cases())
def test_no_import_statement_or_dtype_name_on_hot_paths(case):
    case()  # warm-up: first calls may import what they need once
    found = _entered(case)
    assert not found, f"hot path entered {found}"
