"""Optimizer behaviours found by replaying PyTorch's own optimizer tests as programs run under
torch and leafgrad; each program's observations must be identical."""

from __future__ import annotations

import importlib

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _same(program):
    got, expected = program(leafgrad), program(torch)
    assert got == expected


def _step(lib, optimizer, weight, count=2):
    for _ in range(count):
        optimizer.zero_grad()
        ((weight * lib.tensor([1.0, -2.0], dtype=weight.dtype)) ** 2).sum().backward()
        optimizer.step()


OPTIMIZERS = [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.1}),
              ("AdamW", {"lr": 0.1, "amsgrad": True}), ("RMSprop", {"lr": 0.1, "momentum": 0.5}),
              ("Adagrad", {"lr": 0.1}), ("NAdam", {"lr": 0.1}), ("Adamax", {"lr": 0.1})]


@pytest.mark.parametrize("name, options", OPTIMIZERS, ids=[n for n, _ in OPTIMIZERS])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_loaded_state_shares_the_state_dict_tensors(name, options, dtype):
    def program(lib):
        kind = getattr(lib, dtype)
        weight = lib.nn.Parameter(lib.tensor([0.5, -1.5], dtype=lib.float32))
        first = getattr(lib.optim, name)([weight], **options)
        _step(lib, first, weight)
        saved = first.state_dict()
        copy_weight = lib.nn.Parameter(weight.detach().clone().to(kind))
        second = getattr(lib.optim, name)([copy_weight], **options)
        second.load_state_dict(saved)
        loaded = second.state[copy_weight]
        shared = {key: value is saved["state"][0][key] for key, value in sorted(loaded.items())
                  if isinstance(value, lib.Tensor)}
        dtypes = {key: str(value.dtype).split(".")[-1] for key, value in sorted(loaded.items())
                  if isinstance(value, lib.Tensor)}
        before = {key: value.tolist() for key, value in sorted(saved["state"][0].items())
                  if isinstance(value, lib.Tensor)}
        _step(lib, second, copy_weight)
        after = {key: value.tolist() for key, value in sorted(saved["state"][0].items())
                 if isinstance(value, lib.Tensor)}
        # (the values to 5 places: bit-exact arithmetic is test_optim_bits' business)
        return [shared, dtypes, before == after, [round(v, 5) for v in copy_weight.tolist()]]

    _same(program)


def test_loaded_non_tensor_state_is_not_copied():
    def program(lib):
        weight = lib.nn.Parameter(lib.tensor([0.5, -1.5]))
        optimizer = lib.optim.SGD([weight], lr=0.1)
        marker = {"note": [1, 2]}
        optimizer.load_state_dict({"state": {0: {"extra": marker}, 7: marker},
                                   "param_groups": [{**optimizer.param_groups[0],
                                                     "params": [0]}]})
        return [optimizer.state[weight]["extra"] is marker, optimizer.state[7] is marker]

    _same(program)


def _hook_program(custom: bool, form: str):
    def program(lib):
        seen = []

        class Plain(lib.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, {"lr": lr})

            @lib.no_grad()
            def step(self, closure=None):
                loss = None
                if closure is not None:
                    with lib.enable_grad():
                        loss = closure()
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.add_(p.grad, alpha=-group["lr"])
                return loss

        weight = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        optimizer = (Plain if custom else lib.optim.SGD)([weight], lr=0.1)

        def describe(args, kwargs):
            return ([type(a).__name__ if a is optimizer else ("callable" if callable(a) else a)
                     for a in args], sorted(kwargs))

        optimizer.register_step_pre_hook(
            lambda opt, args, kwargs: seen.append(("pre", type(opt).__name__,
                                                   describe(args, kwargs))))
        optimizer.register_step_post_hook(
            lambda opt, args, kwargs: seen.append(("post", describe(args, kwargs))))
        module = importlib.import_module(lib.__name__ + ".optim.optimizer")
        global_pre = module.register_optimizer_step_pre_hook(
            lambda opt, args, kwargs: seen.append("global pre"))
        global_post = module.register_optimizer_step_post_hook(
            lambda opt, args, kwargs: seen.append("global post"))

        def closure():
            optimizer.zero_grad()
            loss = (weight ** 2).sum()
            loss.backward()
            return loss

        try:
            if form == "closure":
                seen.append(optimizer.step(closure).item())
            elif form == "keyword":
                closure()
                seen.append(optimizer.step(closure=None))
            else:
                closure()

                def replace(opt, args, kwargs):
                    return (args[0],), {"closure": closure}

                optimizer.register_step_pre_hook(replace)
                seen.append(optimizer.step().item())
        finally:
            global_pre.remove()
            global_post.remove()
        seen.append([round(v, 5) for v in weight.tolist()])
        return seen

    return program


@pytest.mark.parametrize("form", ["closure", "keyword", "replaced"])
@pytest.mark.parametrize("custom", [False, True])
def test_step_hooks_run_around_every_optimizer_step(custom, form):
    _same(_hook_program(custom, form))


def test_step_pre_hook_returning_something_else():
    def program(lib):
        weight = lib.nn.Parameter(lib.tensor([1.0]))
        optimizer = lib.optim.SGD([weight], lr=0.1)
        optimizer.register_step_pre_hook(lambda opt, args, kwargs: 5)
        try:
            optimizer.step()
        except RuntimeError as error:
            return str(error).split(" at 0x")[0], str(error).split(">")[-1]
        return None

    _same(program)
