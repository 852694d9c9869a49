"""leafgrad.safetensors against safetensors.torch: files written by either load in the other
with the same names, dtypes, shapes and values; the same refusals (non-contiguous, shared
memory, non-tensors)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()
if os.environ.get("CI"):
    import safetensors.torch as st  # noqa: F401 - CI installs the extra; its absence must fail
else:
    st = pytest.importorskip("safetensors.torch")

from leafgrad import safetensors as lst  # noqa: E402


def _tensors(lib):
    return {"w": lib.arange(6.0).reshape(2, 3), "i": lib.tensor([1, -2], dtype=lib.int64),
            "h": lib.ones(2, dtype=lib.float16), "b": lib.tensor([True, False]),
            "s": lib.tensor(2.5), "e": lib.zeros(0, 2)}


def _plain(tensors):
    return {k: (str(v.dtype).split(".")[-1], tuple(v.shape), v.tolist())
            for k, v in sorted(tensors.items())}


def test_round_trips_both_ways(tmp_path):
    lst.save_file(_tensors(leafgrad), tmp_path / "a.safetensors", metadata={"kind": "test"})
    assert _plain(st.load_file(tmp_path / "a.safetensors")) == _plain(_tensors(torch))
    st.save_file(_tensors(torch), tmp_path / "b.safetensors")
    assert _plain(lst.load_file(tmp_path / "b.safetensors")) == _plain(_tensors(leafgrad))
    assert _plain(lst.load(lst.save(_tensors(leafgrad)))) == _plain(_tensors(leafgrad))


def test_refusals_match_safetensors_torch(tmp_path):
    def run(module, lib):
        x = lib.arange(6.0).reshape(2, 3)
        out = []
        for bad in ({"a": x.t()}, {"a": x, "b": x[0]}, {"a": 1}):
            try:
                module.save_file(bad, tmp_path / "bad.safetensors")
                out.append(None)
            except Exception as error:  # noqa: BLE001
                out.append((type(error).__name__, str(error).strip().splitlines()[0][:60]))
        return out

    assert run(lst, leafgrad) == run(st, torch)


def test_model_weights_through_safetensors(tmp_path):
    leafgrad.manual_seed(0)
    model = leafgrad.nn.Linear(3, 2)
    lst.save_file(dict(model.state_dict()), tmp_path / "m.safetensors")
    torch_model = torch.nn.Linear(3, 2)
    torch_model.load_state_dict(st.load_file(tmp_path / "m.safetensors"))
    np.testing.assert_array_equal(torch_model.weight.detach().numpy(),
                                  model.weight.detach().numpy())
