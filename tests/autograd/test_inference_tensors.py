"""Inference tensors (issue 7 item 5, issue 11 item 11): what inference_mode() makes, compared
with torch 2.13: is_inference() of results, views, detach and clone; torch's errors for an
in-place update outside the mode, saving for backward, requires_grad and _version."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import leafgrad
from tests._torch import require_torch

torch = require_torch()


def _outcome(fn):
    try:
        value = fn()
    except Exception as error:  # noqa: BLE001 - the outcome is what is compared
        return ("raised", type(error).__name__, str(error).split("\n")[0])
    if hasattr(value, "detach"):
        return ("tensor", value.detach().numpy().tolist())
    return ("value", value)


def _made_inside(lib):
    with lib.inference_mode():
        return lib.ones(3), lib.ones(3) * 2


FLAGS = {
    "factory": lambda lib: _made_inside(lib)[0].is_inference(),
    "op result": lambda lib: _made_inside(lib)[1].is_inference(),
    "function form": lambda lib: lib.is_inference(_made_inside(lib)[0]),
    "normal": lambda lib: lib.ones(3).is_inference(),
    "op outside on inference": lambda lib: (_made_inside(lib)[0] + 1).is_inference(),
    "view outside of inference": lambda lib: _made_inside(lib)[0][1:].is_inference(),
    "detach": lambda lib: _made_inside(lib)[0].detach().is_inference(),
    "clone": lambda lib: _made_inside(lib)[0].clone().is_inference(),
    "deepcopy": lambda lib: copy.deepcopy(_made_inside(lib)[0]).is_inference(),
    "no_grad": lambda lib: _no_grad_tensor(lib).is_inference(),
    "mode False": lambda lib: _mode_false_tensor(lib).is_inference(),
    "nested False": lambda lib: _nested_false_tensor(lib).is_inference(),
    "view of normal made inside": lambda lib: _view_inside(lib)[1].is_inference(),
    "op on normal inside": lambda lib: _view_inside(lib)[2].is_inference(),
}


def _no_grad_tensor(lib):
    with lib.no_grad():
        return lib.ones(2)


def _mode_false_tensor(lib):
    with lib.inference_mode(False):
        return lib.ones(2)


def _nested_false_tensor(lib):
    with lib.inference_mode():
        with lib.inference_mode(False):
            return lib.ones(2)


def _view_inside(lib):
    normal = lib.ones(4)
    with lib.inference_mode():
        return normal, normal[1:], normal * 2


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_which_tensors_are_inference_tensors(name):
    assert _outcome(lambda: FLAGS[name](leafgrad)) == _outcome(lambda: FLAGS[name](torch))


def _requires_grad_inside(lib):
    with lib.inference_mode():
        return lib.ones(2).requires_grad_().requires_grad


def _leaf_made_inside_backward(lib):
    with lib.inference_mode():
        p = lib.tensor([1.0], requires_grad=True)
    (p * 2).sum().backward()
    return p.grad


def _inplace_normal_inside(lib):
    normal = lib.ones(3)
    with lib.inference_mode():
        normal.add_(1)
    return normal


def _inplace_on_view_of_normal_made_inside(lib):
    normal, view, _ = _view_inside(lib)
    view.add_(1)
    return normal


def _inplace_inside(lib):
    with lib.inference_mode():
        a = lib.ones(3)
        a.mul_(3)
        a[0] = 7
        return a


ERRORS = {
    "add_": lambda lib: _made_inside(lib)[0].add_(1),
    "setitem": lambda lib: _made_inside(lib)[0].__setitem__(0, 5.0),
    "zero_": lambda lib: _made_inside(lib)[0].zero_(),
    "fill_": lambda lib: _made_inside(lib)[0].fill_(2.0),
    "copy_": lambda lib: _made_inside(lib)[0].copy_(lib.zeros(3)),
    "uniform_": lambda lib: _made_inside(lib)[0].uniform_(),
    "unsqueeze_": lambda lib: _made_inside(lib)[0].unsqueeze_(0),
    "view add_": lambda lib: _made_inside(lib)[0][1:].add_(1),
    "detach add_": lambda lib: _made_inside(lib)[0].detach().add_(1),
    "detach view add_": lambda lib: _made_inside(lib)[0].detach()[1:].add_(1),
    "detach _version": lambda lib: _made_inside(lib)[0].detach()._version,
    "detach requires_grad_": lambda lib: _made_inside(lib)[0].detach().requires_grad_(),
    "detach saved": lambda lib: lib.ones(3, requires_grad=True) * _made_inside(lib)[0].detach(),
    "data is_inference": lambda lib: _made_inside(lib)[0].data.is_inference(),
    "data add_": lambda lib: _made_inside(lib)[0].data.add_(1),
    "detach_ add_": lambda lib: _made_inside(lib)[0].detach_().add_(1),
    "out=": lambda lib: lib.add(lib.ones(3), 1, out=_made_inside(lib)[0]),
    "_version": lambda lib: _made_inside(lib)[0]._version,
    "requires_grad_": lambda lib: _made_inside(lib)[0].requires_grad_(),
    "requires_grad =": lambda lib: setattr(_made_inside(lib)[0], "requires_grad", True),
    "saved for backward": lambda lib: lib.ones(3, requires_grad=True) * _made_inside(lib)[0],
    "not saved": lambda lib: (lib.ones(3, requires_grad=True) + _made_inside(lib)[0]).sum(),
    "requires_grad_ inside": _requires_grad_inside,
    "leaf made inside": _leaf_made_inside_backward,
    "in-place on normal inside": _inplace_normal_inside,
    "in-place on a view of normal made inside": _inplace_on_view_of_normal_made_inside,
    "in-place inside": _inplace_inside,
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_inference_tensor_rules_and_errors(name):
    assert _outcome(lambda: ERRORS[name](leafgrad)) == _outcome(lambda: ERRORS[name](torch))


@pytest.mark.parametrize("name", ["add_", "setitem", "zero_", "fill_", "copy_", "uniform_",
                                  "view add_", "out="])
def test_a_refused_update_changes_nothing(name):
    """torch writes first and raises after (its values change); leafgrad checks first."""
    with leafgrad.inference_mode():
        a = leafgrad.ones(3)
    calls = {
        "add_": lambda: a.add_(1), "setitem": lambda: a.__setitem__(0, 5.0),
        "zero_": lambda: a.zero_(), "fill_": lambda: a.fill_(2.0),
        "copy_": lambda: a.copy_(leafgrad.zeros(3)), "uniform_": lambda: a.uniform_(),
        "view add_": lambda: a[1:].add_(1),
        "out=": lambda: leafgrad.add(leafgrad.zeros(3), 1, out=a),
    }
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        calls[name]()
    np.testing.assert_array_equal(a.numpy(), np.ones(3, np.float32))
