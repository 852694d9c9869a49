"""nn behaviours found by replaying PyTorch's own nn tests as programs run under torch and
leafgrad; each program's observations must be identical."""

from __future__ import annotations

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _same(program):
    got, expected = program(leafgrad), program(torch)
    assert got == expected


def _plain(grads):
    return [None if g is None else g.tolist() for g in grads]


@pytest.mark.parametrize("requires", ["first", "both", "second"])
@pytest.mark.parametrize("used", ["first", "both", "second"])
def test_full_backward_hooks_see_missing_gradients_as_torch(requires, used):
    def program(lib):
        seen = []

        class Pair(lib.nn.Module):
            def forward(self, a, b, scale=None):
                return a * 2, b * 3, 5

        module = Pair()
        module.register_full_backward_pre_hook(
            lambda mod, grad_output: seen.append(("pre", _plain(grad_output))))
        module.register_full_backward_hook(
            lambda mod, grad_input, grad_output: seen.append(
                ("hook", _plain(grad_input), _plain(grad_output))))
        a = lib.ones(2, requires_grad=requires in ("first", "both"))
        b = lib.ones(2, requires_grad=requires in ("second", "both"))
        x, y, _ = module(a, b)
        loss = None
        if used in ("first", "both") and x.requires_grad:
            loss = x.sum()
        if used in ("second", "both") and y.requires_grad:
            loss = y.sum() if loss is None else loss + y.sum()
        if loss is not None:
            loss.backward()
        return seen + [_plain([a.grad, b.grad]), x.requires_grad, y.requires_grad]

    _same(program)


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return (type(error).__name__, str(error).split("\n")[0])


def test_state_dict_hooks_private_and_public():
    def program(lib):
        seen = []
        model = lib.nn.Sequential(lib.nn.Linear(2, 2))
        inner = model[0]
        inner._register_state_dict_hook(
            lambda mod, sd, prefix, meta: seen.append(("legacy", prefix, list(sd), meta)))
        inner.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, meta, strict, missing, unexpected, errors: seen.append(
                ("load pre", prefix, strict, meta)))
        inner._register_load_state_dict_pre_hook(
            lambda sd, prefix, meta, strict, missing, unexpected, errors: seen.append(
                ("old load pre", prefix, strict, meta)))
        inner._register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, meta, *rest: seen.append(("with module", type(mod).__name__)),
            with_module=True)
        state = model.state_dict()
        seen.append(dict(state._metadata))
        model.load_state_dict(state)
        seen.append(str(model.load_state_dict({}, strict=False)))

        def replace(mod, sd, prefix, meta):
            return {key: value.shape for key, value in sd.items()}

        other = lib.nn.Linear(1, 1)
        other._register_state_dict_hook(replace)
        seen.append({key: list(shape) for key, shape in other.state_dict().items()})

        def public(mod, sd, prefix, meta):
            return sd

        third = lib.nn.Linear(1, 1)
        third.register_state_dict_post_hook(public)
        seen.append(_outcome(lambda: list(third.state_dict())))
        seen.append(_outcome(lambda: third._register_state_dict_hook(public) and None))
        return seen

    _same(program)
