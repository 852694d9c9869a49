"""The allow-list of leafgrad.load, compared with torch.load(weights_only=True): user classes
through add_safe_globals/safe_globals (plain and (obj, "full.path") entries, torch's checks
of bad entries), the refusal messages (blocked modules, unsupported globals), and the
allowed torch objects: devices, tensors and Parameters carrying attributes."""

from __future__ import annotations

import io
import pickle

import pytest

import leafgrad

from ._torch import require_torch
from .test_serialization import _describe

torch = require_torch()


class Config:
    """A user class a checkpoint may hold."""

    def __init__(self, lr, layers):
        self.lr, self.layers = lr, layers

    def __eq__(self, other):
        return type(other) is Config and vars(self) == vars(other)


def _saved(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def _errors(data: bytes):
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as ours:
        leafgrad.load(io.BytesIO(data))
    return str(ours.value), str(theirs.value)


@pytest.fixture(autouse=True)
def _clean_allow_lists():
    yield
    leafgrad.serialization.clear_safe_globals()
    torch.serialization.clear_safe_globals()


def test_user_classes_refused_then_allowed():
    data = _saved({"config": Config(0.1, [4, 4]), "w": torch.ones(2)})
    ours, theirs = _errors(data)
    assert ours.splitlines()[0] == theirs.splitlines()[0]
    detail = [line for line in theirs.splitlines() if "Unsupported global" in line][0]
    assert detail.strip().split("WeightsUnpickler error: ")[-1] in ours
    with leafgrad.serialization.safe_globals([Config]):
        assert leafgrad.serialization.get_safe_globals() == [Config]
        loaded = leafgrad.load(io.BytesIO(data))
    assert loaded["config"] == Config(0.1, [4, 4])
    assert leafgrad.serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        leafgrad.load(io.BytesIO(data))
    leafgrad.serialization.add_safe_globals([Config])
    leafgrad.serialization.add_safe_globals([Config])
    assert leafgrad.serialization.get_safe_globals() == [Config]
    assert leafgrad.load(io.BytesIO(data))["config"] == Config(0.1, [4, 4])


def test_safe_globals_given_by_full_name():
    data = _saved(Config(1, 2))
    entry = (Config, f"{Config.__module__}.Config")
    leafgrad.serialization.add_safe_globals([entry])
    torch.serialization.add_safe_globals([entry])
    assert leafgrad.load(io.BytesIO(data)) == torch.load(io.BytesIO(data)) == Config(1, 2)
    leafgrad.serialization.clear_safe_globals()
    leafgrad.serialization.add_safe_globals([(Config, "elsewhere.Config")])
    with pytest.raises(pickle.UnpicklingError):
        leafgrad.load(io.BytesIO(data))


@pytest.mark.parametrize("entry,error", [((Config,), ValueError), ((Config, 3), TypeError)])
def test_bad_safe_global_entries(entry, error):
    data = _saved({"w": torch.ones(1), "config": Config(1, 2)})
    leafgrad.serialization.add_safe_globals([entry])
    torch.serialization.add_safe_globals([entry])
    with pytest.raises(error) as theirs:
        torch.load(io.BytesIO(data))
    with pytest.raises(error) as ours:
        leafgrad.load(io.BytesIO(data))
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("payload", ["os", "builtins"])
def test_refusal_details_match_torch(payload):
    import os

    class Evil:
        def __reduce__(self):
            return (os.system, ("true",)) if payload == "os" else (eval, ("1",))

    ours, theirs = _errors(_saved({"x": Evil()}))
    assert ours.splitlines()[0] == theirs.splitlines()[0]
    line = [x for x in theirs.splitlines() if "GLOBAL" in x][0]
    assert line.strip().split("WeightsUnpickler error: ")[-1] in ours


def _with_attributes(lib):
    t = lib.arange(3.0)
    t.note = "scaled"
    p = lib.nn.Parameter(lib.ones(2))
    p.tag = {"frozen": False}
    return {"t": t, "p": p, "d": lib.device("cpu")}


def test_devices_and_attributes_both_ways():
    data = _saved(_with_attributes(torch))
    loaded = leafgrad.load(io.BytesIO(data))
    assert _describe(loaded["t"]) == _describe(_with_attributes(leafgrad)["t"])
    assert (loaded["t"].note, loaded["p"].tag) == ("scaled", {"frozen": False})
    assert isinstance(loaded["p"], leafgrad.nn.Parameter)
    assert loaded["d"] == leafgrad.device("cpu")
    buffer = io.BytesIO()
    leafgrad.save(_with_attributes(leafgrad), buffer)
    theirs = torch.load(io.BytesIO(buffer.getvalue()), weights_only=True)
    assert (theirs["t"].note, theirs["p"].tag) == ("scaled", {"frozen": False})
    assert isinstance(theirs["p"], torch.nn.Parameter) and theirs["d"] == torch.device("cpu")
    assert _describe(theirs["t"]) == _describe(_with_attributes(torch)["t"])


@pytest.mark.parametrize("legacy", [False, True])
def test_weights_only_false_unpickles_trusted_objects_as_torch(legacy):
    import numpy as np

    def obj(lib):
        return {"config": Config(0.5, (2, 3)), "array": np.arange(4.0), "w": lib.ones(2),
                "args": __import__("argparse").Namespace(epochs=3)}

    buffer = io.BytesIO()
    torch.save(obj(torch), buffer, _use_new_zipfile_serialization=not legacy)
    data = buffer.getvalue()
    with pytest.raises(pickle.UnpicklingError):
        leafgrad.load(io.BytesIO(data))
    theirs = torch.load(io.BytesIO(data), weights_only=False)
    ours = leafgrad.load(io.BytesIO(data), weights_only=False)
    assert ours["config"] == theirs["config"] and ours["args"] == theirs["args"]
    np.testing.assert_array_equal(ours["array"], theirs["array"])
    assert _describe(ours["w"]) == _describe(obj(leafgrad)["w"])


def test_whole_torch_models_cannot_be_rebuilt():
    buffer = io.BytesIO()
    torch.save(torch.nn.Linear(2, 2), buffer)
    with pytest.raises(pickle.UnpicklingError) as error:
        leafgrad.load(io.BytesIO(buffer.getvalue()), weights_only=False)
    assert "state_dict" in str(error.value)
