"""torch.jit's scripting and tracing, run as Python (leafgrad/jit.py), against torch 2.13:
the same outputs, shared parameters, type names and printed forms; save/load round trips
within leafgrad; TorchScript archives and plain checkpoints refused with clear errors."""

from __future__ import annotations

import io

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _net_class(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l = lib.nn.Linear(2, 3)
            self.seq = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())
            self.register_buffer("scale", lib.tensor(2.0))

        def forward(self, x):
            return self.seq(self.l(x)) * self.scale

    Net.__qualname__ = Net.__name__ = f"Net_{lib.__name__}"
    return Net


Net_leafgrad = _net_class(leafgrad)  # module level: pickle finds the class by name
Net_torch = _net_class(torch)


def _model(lib):
    lib.manual_seed(0)
    return Net_leafgrad() if lib is leafgrad else Net_torch()


def _norm(text: str) -> str:
    return text.replace("leafgrad.", "torch.")


@pytest.mark.parametrize("how", ["script", "trace"])
def test_modules_as_torch(how):
    seen = []
    for lib in (leafgrad, torch):
        model = _model(lib)
        x = lib.tensor(np.linspace(-1, 1, 8).reshape(4, 2).astype(np.float32))
        if how == "script":
            converted = lib.jit.script(model)
        else:
            converted = lib.jit.trace(model, lib.ones(1, 2))
        out = converted(x)
        out.sum().backward()
        seen.append((type(converted).__name__,
                     _norm(repr(converted)).replace(f"Net_{lib.__name__}", "Net"),
                     list(converted.state_dict()), converted.l.weight is model.l.weight,
                     out.detach().numpy().tolist(), model.l.weight.grad.numpy().tolist(),
                     isinstance(converted, lib.jit.ScriptModule),
                     isinstance(converted, lib.nn.Module), converted.training))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("how", ["script", "trace"])
def test_functions_as_torch(how):
    def f(x, y):
        return x * 2 + y

    seen = []
    for lib in (leafgrad, torch):
        a, b = lib.tensor([1.0, 2.0]), lib.tensor([0.5, -1.0])
        g = lib.jit.script(f) if how == "script" else lib.jit.trace(f, (a, b))
        seen.append((type(g).__name__, g(a, b).tolist(), g(b, a).tolist()))
    assert seen[0] == seen[1]


def test_save_and_load_round_trip(tmp_path):
    model = leafgrad.jit.script(_model(leafgrad))
    x = leafgrad.ones(3, 2)
    path = tmp_path / "m.pt"
    model.save(str(path))
    for loaded in (leafgrad.jit.load(str(path)), leafgrad.jit.load(path)):
        assert type(loaded).__name__ == "RecursiveScriptModule"
        assert repr(loaded) == repr(model)
        assert leafgrad.equal(loaded(x), model(x))
    buffer = io.BytesIO()
    leafgrad.jit.save(model, buffer)
    buffer.seek(0)
    assert leafgrad.equal(leafgrad.jit.load(buffer)(x), model(x))
    fn = leafgrad.jit.script(leafgrad.sigmoid)
    buffer = io.BytesIO()
    leafgrad.jit.save(fn, buffer)
    buffer.seek(0)
    assert leafgrad.equal(leafgrad.jit.load(buffer)(x), leafgrad.sigmoid(x))


def test_plain_module_cannot_be_saved_as_torch():
    messages = []
    for lib in (leafgrad, torch):
        model = _model(lib)
        for target in (io.BytesIO(), "unused.pt"):
            with pytest.raises(AttributeError) as error:
                lib.jit.save(model, target)
            messages.append(str(error.value).replace(f"Net_{lib.__name__}", "Net"))
    assert messages[:2] == messages[2:]


def test_foreign_files_are_refused_before_unpickling(tmp_path):
    scripted = torch.jit.script(torch.nn.Linear(2, 1))
    archive = tmp_path / "ts.pt"
    scripted.save(str(archive))
    with pytest.raises(RuntimeError, match="TorchScript archive"):
        leafgrad.jit.load(str(archive))
    checkpoint = tmp_path / "sd.pt"
    torch.save(torch.nn.Linear(2, 1).state_dict(), str(checkpoint))
    with pytest.raises(RuntimeError) as ours:
        leafgrad.jit.load(str(checkpoint))
    with pytest.raises(RuntimeError) as theirs:
        torch.jit.load(str(checkpoint))
    assert str(theirs.value).startswith(str(ours.value))


def test_helpers_as_torch():
    for lib in (leafgrad, torch):
        jit = lib.jit
        assert jit.is_scripting() is False and jit.is_tracing() is False
        assert jit.annotate(int, 3) == 3

        @jit.ignore
        def ignored(x):
            return x + 1

        @jit.unused
        def unused(x):
            return x - 1

        assert ignored(1) == 2 and unused(1) == 0
        future = jit.fork(lambda a, b: a + b, lib.ones(1), lib.ones(1))
        assert jit.wait(future).tolist() == [2.0]
        with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
            jit.freeze(jit.script(_model(lib)))
        frozen = jit.freeze(jit.script(_model(lib)).eval())
        assert isinstance(frozen, jit.ScriptModule)


def test_deprecation_warnings_as_torch(tmp_path):
    import warnings

    def f(x):
        return x

    seen = []
    for lib in (leafgrad, torch):
        jit = lib.jit
        calls = [lambda: jit.script(f), lambda: jit.trace(f, lib.ones(1)),
                 lambda: jit.trace(lib.nn.Linear(2, 1), lib.ones(1, 2)),
                 lambda: jit.freeze(jit.script(lib.nn.Linear(2, 1)).eval()),
                 lambda: jit.save(jit.script(lib.nn.Linear(2, 1)), str(tmp_path / "m.pt")),
                 lambda: jit.load(str(tmp_path / "m.pt")), lambda: jit.wait(jit.fork(f, 1)),
                 lambda: jit.annotate(int, 1), lambda: jit.ignore(f), lambda: jit.is_scripting()]
        messages = []
        for call in calls:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                call()
            messages.append([(w.category.__name__, str(w.message)) for w in caught])
        seen.append(messages)
    assert seen[0] == seen[1]
