"""Global module hooks and always-called forward hooks against torch: firing order (global
before the module's own), results, kwargs, removal, and hooks that run when forward fails."""

from __future__ import annotations

import warnings

import numpy as np

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _model(lib):
    class Fails(lib.nn.Module):
        def forward(self, x, fail=False):
            if fail:
                raise ValueError("forward failed")
            return x * 2

    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 2), Fails())


def _round(tensors):
    return [None if t is None else np.round(t.detach().numpy(), 5).tolist() for t in tensors]


def test_global_hooks_fire_in_torchs_order_and_are_removable():
    def run(lib):
        log = []
        module = lib.nn.modules.module
        model = _model(lib)
        handles = [
            module.register_module_forward_pre_hook(
                lambda m, args: log.append(("gpre", type(m).__name__))),
            module.register_module_forward_hook(
                lambda m, args, out: log.append(("gpost", type(m).__name__))),
            module.register_module_forward_hook(
                lambda m, args, kwargs, out: log.append(("gkw", sorted(kwargs))),
                with_kwargs=True),
            module.register_module_full_backward_pre_hook(
                lambda m, gout: log.append(("gbpre", type(m).__name__, _round(gout)))),
            module.register_module_full_backward_hook(
                lambda m, gin, gout: log.append(("gb", type(m).__name__, _round(gin)))),
        ]
        handles.append(model[0].register_forward_pre_hook(lambda m, a: log.append(("pre",))))
        handles.append(model[0].register_forward_hook(lambda m, a, o: o + 1))
        handles.append(model[0].register_full_backward_hook(
            lambda m, gin, gout: log.append(("b", _round(gout)))))
        try:
            x = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
            out = model(x)
            out.sum().backward()
            log.append(("out", _round([out, x.grad])))
        finally:
            for handle in handles:
                handle.remove()
        out = model(lib.ones(1, 3))  # no hooks left
        log.append(("after", _round([out])))
        return log

    assert run(leafgrad) == run(torch)


def test_always_called_hooks_run_when_forward_fails():
    def run(lib):
        log = []
        module = lib.nn.modules.module
        model = _model(lib)[1]
        handles = [
            module.register_module_forward_hook(
                lambda m, args, out: log.append(("global", out)), always_call=True),
            model.register_forward_hook(lambda m, args, out: log.append(("plain", out))),
            model.register_forward_hook(
                lambda m, args, kwargs, out: log.append(("kw", sorted(kwargs), out)),
                with_kwargs=True, always_call=True),
            model.register_forward_hook(lambda m, args, out: 1 / 0, always_call=True),
        ]
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    model(lib.ones(2), fail=True)
                except ValueError as error:
                    log.append(("raised", str(error)))
            log.append([str(w.message) for w in caught])
        finally:
            for handle in handles:
                handle.remove()
        return log

    assert run(leafgrad) == run(torch)
