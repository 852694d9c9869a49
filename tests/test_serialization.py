"""leafgrad.save/load in torch's checkpoint format: torch reads what leafgrad writes
(weights_only=True), leafgrad reads what torch writes; every dtype, 0-d/empty/non-contiguous
and storage-sharing tensors, Parameters, state dicts with _metadata, containers; files and
file objects; a malicious file runs nothing; corrupted files give clear errors."""

from __future__ import annotations

import collections
import io
import os
import pickle

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _objects(lib):
    base = lib.arange(24.0).reshape(4, 6)
    out = {
        "base": base, "view": base[1:, ::2], "t": base.t(), "row": base[2],
        "scalar": lib.tensor(2.5), "empty": lib.zeros(0, 3), "grad": lib.ones(2, requires_grad=True),
        "param": lib.nn.Parameter(lib.tensor([1.0, -1.0])),
        "frozen": lib.nn.Parameter(lib.ones(1), requires_grad=False),
        "nested": [1, 2.5, None, True, "text", (3, [lib.tensor([7])]), {"k": 2**70}],
        "size": lib.Size([2, 3]), "dtype": lib.float64,
    }
    for name in DTYPES:
        values = np.arange(-3, 3) if name != "bool" else np.array([True, False, True])
        if name == "uint8":
            values = np.arange(6)
        out["dtype_" + name] = lib.tensor(values.tolist(), dtype=getattr(lib, name))
    state = collections.OrderedDict(w=lib.ones(2, 2), b=lib.zeros(2))
    state._metadata = collections.OrderedDict({"": {"version": 1}, "sub": {"version": 2}})
    out["state"] = state
    return out


def _describe(value):
    """What must survive a round trip, as comparable data."""
    if hasattr(value, "stride") and hasattr(value, "dtype"):
        return (type(value).__name__, str(value.dtype).split(".")[-1], tuple(value.shape),
                value.stride(), value.requires_grad, value.detach().tolist())
    if isinstance(value, dict):
        meta = getattr(value, "_metadata", None)
        return (type(value).__name__, {k: _describe(v) for k, v in value.items()},
                None if meta is None else dict(meta))
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_describe(v) for v in value]
    if hasattr(value, "is_floating_point"):  # a dtype
        return str(value).split(".")[-1]
    return value


def _shares(d, a, b) -> bool:
    x, y = d[a], d[b]
    if isinstance(x, np.ndarray):
        return np.shares_memory(x, y)
    return np.shares_memory(x.detach().numpy(), y.detach().numpy())


def test_torch_reads_what_leafgrad_writes(tmp_path):
    path = tmp_path / "model.pt"
    leafgrad.save(_objects(leafgrad), path)
    loaded = torch.load(path, weights_only=True)
    assert _describe(loaded) == _describe(_objects(torch))
    assert loaded["view"].untyped_storage().data_ptr() == loaded["base"].untyped_storage().data_ptr()
    assert isinstance(loaded["param"], torch.nn.Parameter)


def test_leafgrad_reads_what_torch_writes(tmp_path):
    path = tmp_path / "model.pth"
    torch.save(_objects(torch), path)
    loaded = leafgrad.load(path)
    assert _describe(loaded) == _describe(_objects(leafgrad))
    assert isinstance(loaded["param"], leafgrad.nn.Parameter)
    # tensors that shared a storage in torch share memory after loading
    assert np.shares_memory(loaded["view"].numpy(), loaded["base"].numpy())
    loaded["base"][1, 0] = 100.0
    assert loaded["view"][0, 0].item() == 100.0


def test_round_trip_through_file_objects_and_leafgrad_itself():
    buffer = io.BytesIO()
    leafgrad.save(_objects(leafgrad), buffer)
    buffer.seek(0)
    assert _describe(leafgrad.load(buffer)) == _describe(_objects(leafgrad))
    buffer.seek(0)
    assert _describe(torch.load(buffer, weights_only=True)) == _describe(_objects(torch))


def test_model_and_optimizer_state_both_ways(tmp_path):
    def model(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.BatchNorm2d(2), lib.nn.Flatten(),
                                 lib.nn.Linear(2 * 4 * 4, 3))

    ours, theirs = model(leafgrad), model(torch)
    optimizer = leafgrad.optim.Adam(ours.parameters())
    ours(leafgrad.ones(2, 1, 6, 6)).sum().backward()
    optimizer.step()
    leafgrad.save({"model": ours.state_dict(), "optimizer": optimizer.state_dict()},
                  tmp_path / "a.pt")
    checkpoint = torch.load(tmp_path / "a.pt", weights_only=True)
    theirs.load_state_dict(checkpoint["model"])
    torch_optimizer = torch.optim.Adam(theirs.parameters())
    torch_optimizer.load_state_dict(checkpoint["optimizer"])
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    torch.save(theirs.state_dict(), tmp_path / "b.pt")
    fresh = model(leafgrad)
    assert repr(fresh.load_state_dict(leafgrad.load(tmp_path / "b.pt"))) == (
        "<All keys matched successfully>")
    for p, q in zip(fresh.state_dict().values(), theirs.state_dict().values()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_malicious_file_runs_nothing_and_raises(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    torch.save({"weights": torch.ones(1), "payload": _Evil(marker)}, path)
    with pytest.raises(pickle.UnpicklingError) as error:
        leafgrad.load(path)
    assert "Weights only load failed" in str(error.value).splitlines()[0]
    assert "system" in str(error.value)
    assert not marker.exists()
    for weights_only in (True, None):
        with pytest.raises(pickle.UnpicklingError):
            leafgrad.load(path, weights_only=weights_only)
    assert not marker.exists()


def test_corrupted_truncated_and_foreign_files(tmp_path):
    path = tmp_path / "ok.pt"
    leafgrad.save({"w": leafgrad.ones(3)}, path)
    data = path.read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError) as ours:
        leafgrad.load(truncated)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(truncated)
    assert str(ours.value).splitlines()[0] in str(theirs.value).splitlines()[0]
    text = tmp_path / "notes.pt"
    text.write_text("hello world")
    with pytest.raises(pickle.UnpicklingError):
        leafgrad.load(text)


def test_counter_is_allowed_as_in_torch(tmp_path):
    path = tmp_path / "c.pt"
    torch.save({"shape": collections.Counter(a=1)}, path)
    assert leafgrad.load(path) == torch.load(path) == {"shape": collections.Counter(a=1)}


def test_non_leaf_tensors_load_as_leaves_requiring_grad(tmp_path):
    def run(lib):
        x = lib.ones(2, requires_grad=True) * 2
        lib.save(x, tmp_path / "x.pt")
        loaded = lib.load(tmp_path / "x.pt")
        return loaded.tolist(), loaded.requires_grad, loaded.is_leaf

    assert run(leafgrad) == run(torch)
