"""Module extras against torch: extra state in state dicts (save, load, missing/unexpected,
nothing written on a failed load), set_submodule, to_empty, and moves to absent devices."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _model(lib):
    class Counter(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(2, 2)
            self.steps = 0

        def get_extra_state(self):
            return {"steps": self.steps}

        def set_extra_state(self, state):
            self.steps = state["steps"]

        def forward(self, x):
            return self.linear(x)

    lib.manual_seed(0)
    return lib.nn.Sequential(Counter(), lib.nn.ReLU(), lib.nn.Linear(2, 1))


def _outcome(fn):
    try:
        return ("ok", repr(fn()))
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error).replace("leafgrad.", "torch.")


def test_extra_state_is_saved_under_torchs_key():
    for lib in (leafgrad, torch):
        model = _model(lib)
        model[0].steps = 7
    ours, theirs = _model(leafgrad), _model(torch)
    ours[0].steps = theirs[0].steps = 7
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.state_dict()["0._extra_state"] == theirs.state_dict()["0._extra_state"]
    assert dict(ours.state_dict()._metadata) == dict(theirs.state_dict()._metadata)


@pytest.mark.parametrize("case", ["round_trip", "missing", "missing_not_strict", "unexpected",
                                  "unexpected_plain_module", "with_size_error"])
def test_extra_state_loading_matches_torch_and_fails_cleanly(case):
    def run(lib):
        model = _model(lib)
        state = dict(_model(lib).state_dict())
        state["0._extra_state"] = {"steps": 3}
        strict = True
        if case == "missing":
            del state["0._extra_state"]
        elif case == "missing_not_strict":
            del state["0._extra_state"]
            strict = False
        elif case == "unexpected":
            state["2._extra_state"] = {"steps": 1}
        elif case == "unexpected_plain_module":
            state["1._extra_state"] = 5
        elif case == "with_size_error":
            state["2.weight"] = lib.zeros(3, 3)
        before = {k: v.clone() for k, v in model.state_dict().items() if k != "0._extra_state"}
        result = _outcome(lambda: model.load_state_dict(state, strict=strict))
        after = {k: v for k, v in model.state_dict().items() if k != "0._extra_state"}
        unchanged = all(np.array_equal(before[k].numpy(), after[k].numpy()) for k in before)
        return result, model[0].steps, unchanged

    ours, theirs = run(leafgrad), run(torch)
    assert ours[0] == theirs[0] and ours[2] and theirs[2]
    if ours[0][0] == "ok":
        assert ours[1] == theirs[1]
    else:  # torch has already set the extra state when it raises; a failed load here writes
        assert ours[1] == 0  # nothing at all


@pytest.mark.parametrize("call", [
    "m.set_submodule('', lib.nn.ReLU())", "m.set_submodule('0', 3)",
    "m.set_submodule('5.x', lib.nn.ReLU())", "m.set_submodule('0.x', lib.nn.ReLU(), strict=True)",
    "m.set_submodule('0.weight', lib.nn.ReLU())", "m.set_submodule('0.weight.x', lib.nn.ReLU())",
    "m.set_submodule('0.x', lib.nn.ReLU())", "m.set_submodule('1', lib.nn.Tanh())",
    "m.set_submodule('1', lib.nn.Tanh(), strict=True)", "m.set_submodule('2', lib.nn.Tanh(), True)",
])
def test_set_submodule(call):
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU(), lib.nn.Linear(2, 1))
        result = _outcome(lambda: eval(call, {"lib": lib, "m": m}))  # noqa: S307
        return result, repr(m), [n for n, _ in m.named_modules()]

    assert run(leafgrad) == run(torch)


def test_to_empty_keeps_parameters_and_shapes():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
        params = list(m.parameters())
        out = m.to_empty(device="cpu")
        return (out is m, [p is q for p, q in zip(params, m.parameters())],
                [(n, tuple(t.shape), str(t.dtype).split(".")[-1], type(t).__name__)
                 for n, t in m.state_dict(keep_vars=True).items()])

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("move", ["xpu", "ipu", "mtia"])
@pytest.mark.parametrize("layer", ["Linear(2, 2)", "ReLU()"])
def test_moves_to_absent_devices_raise_torchs_error(move, layer):
    def run(lib):
        m = eval("lib.nn." + layer, {"lib": lib})  # noqa: S307
        return _outcome(lambda: getattr(m, move)() is m)

    assert run(leafgrad) == run(torch)
