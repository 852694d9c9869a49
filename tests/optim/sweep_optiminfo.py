"""torch's OptimizerInfo database (torch.testing._internal.common_optimizers.optim_db) replayed
on leafgrad.optim, as torch's test_optimizers.py drives it on the CPU.

For every OptimizerInfo and every optim input (the CPU ones, then those torch keeps for CUDA:
tensor lr and betas, capturable), as given and with each global flag torch accepts set True
(foreach, fused where torch's CPU has the kernel, differentiable), float64 and float32:
identical parameters from torch's RNG (weight (10, 5), bias (10,), input (5,), converted bit for
bit), STEPS steps of ``optimizer.step(closure)`` on ``(weight.mv(input) + bias).pow(2).sum()``
(sparse gradients for SparseAdam), the schedulers of every ``scheduler_inputs`` entry stepped
after each step. Compared, bitwise: the losses, the parameters, ``state_dict()`` (state keys,
values, dtypes, Python types), ``param_groups``, a state dict loaded into a fresh optimizer of
the other impl and stepped again, a deepcopy stepped again, ``zero_grad`` with both
``set_to_none``, and errors (type, first line) and warnings where torch raises them.

Also every ``optim_error_inputs_func`` input: raised at the same point (constructor or step),
the same type and first line (warnings: category and first line), nothing changed.

Run as a script for the whole report: ``PYTHONPATH=src python -m tests.optim.sweep_optiminfo``.
"""

from __future__ import annotations

import copy
import types
import warnings

import numpy as np

import leafgrad
from tests.opinfo._harness import differences, first_line, to_leafgrad

STEPS = 6
DTYPES = ("float64", "float32")
SCHEDULERS = ("ConstantLR", "ExponentialLR", "LinearLR", "PolynomialLR", "ReduceLROnPlateau",
              "StepLR")


def optim_db():
    from torch.testing._internal.common_optimizers import optim_db

    return optim_db


def _inputs(info, dtype) -> list:
    """The CPU optim inputs, then the CUDA-only ones (tensor lr, capturable...) by desc."""
    inputs = list(info.optim_inputs_func(device="cpu", dtype=dtype))
    seen = {item.desc for item in inputs}
    try:
        extra = info.optim_inputs_func(device="cuda", dtype=dtype)
    except Exception:  # noqa: BLE001 - a func that makes tensors on the device
        extra = []
    return inputs + [item for item in extra if item.desc not in seen]


def configs(info, dtype) -> list[tuple[str, dict]]:
    """(desc, kwargs) for every input, as given and with each impl flag True."""
    flags = [flag for flag in ("foreach", "fused", "differentiable")
             if flag in info.supported_impls
             and (flag != "fused" or "cpu" in info.supports_fused_on)]
    out = []
    for item in _inputs(info, dtype):
        out.append((item.desc, item.kwargs))
        for flag in flags:
            out.append((f"{item.desc} & {flag}", {**item.kwargs, flag: True}))
    return out


class _Converter:
    """torch objects to leafgrad's, one leafgrad tensor per torch tensor (so a parameter given
    twice stays one), ``.grad`` included."""

    def __init__(self, torch):
        self.torch = torch
        self.memo: dict = {}

    def __call__(self, obj):
        torch = self.torch
        if isinstance(obj, torch.Tensor):
            if id(obj) not in self.memo:
                if obj.layout != torch.strided:
                    out = to_leafgrad(obj.to_dense(), torch).to_sparse()
                else:
                    out = to_leafgrad(obj.detach(), torch)
                if isinstance(obj, torch.nn.Parameter):
                    out = leafgrad.nn.Parameter(out, requires_grad=obj.requires_grad)
                elif obj.requires_grad:
                    out.requires_grad_(True)
                if obj.grad is not None:
                    out.grad = self(obj.grad)
                self.memo[id(obj)] = out
            return self.memo[id(obj)]
        if isinstance(obj, list):
            return [self(item) for item in obj]
        if isinstance(obj, tuple):
            return tuple(self(item) for item in obj)
        if isinstance(obj, dict):
            return {key: self(value) for key, value in obj.items()}
        return to_leafgrad(obj, torch)


def _lib_schedulers(factories, lib):
    """torch's scheduler lambdas with their globals pointing at ``lib``'s schedulers."""
    names = {name: getattr(lib.optim.lr_scheduler, name) for name in SCHEDULERS}
    return [types.FunctionType(f.__code__, {**f.__globals__, **names}, f.__name__,
                               f.__defaults__, f.__closure__) for f in factories]


def _plain(obj, lib):
    """A structure for ``differences``: dicts as sorted (key, value) lists, the rest as is."""
    if isinstance(obj, dict):
        return [("dict", repr(key), _plain(value, lib))
                for key, value in sorted(obj.items(), key=lambda kv: repr(kv[0]))]
    if isinstance(obj, (list, tuple)) and not isinstance(obj, lib.Size):
        return type(obj)(_plain(item, lib) for item in obj)
    if isinstance(obj, lib.Tensor) and obj.layout != lib.strided:
        return ("sparse", obj.to_dense())
    return obj


def _attempt(function):
    """('ok', result, warnings) or ('raised', type, first line, warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", function())
        except Exception as error:  # noqa: BLE001 - type and first line are compared
            # (a dtype in a message: leafgrad.float32 is how leafgrad spells torch.float32)
            result = ("raised", type(error).__name__,
                      first_line(error).replace("leafgrad.", "torch."))
    seen = tuple(sorted({(w.category.__name__, first_line(w.message)) for w in caught
                         if "leafgrad" not in str(w.message)}))
    return result + (seen,)


def _program(lib, cls_name, kwargs, start, sparse, factories):
    """Observations of one run: each stage's result (or error) in order."""
    weight0, bias0, input_ = start
    weight = lib.nn.Parameter(weight0.clone())
    bias = lib.nn.Parameter(bias0.clone())
    cls = getattr(lib.optim, cls_name)
    seen: list = []

    def make(params, options):
        return cls(params, **options)

    made = _attempt(lambda: make([weight, bias], kwargs))
    seen.append(("construct", made[0], made[1:] if made[0] == "raised" else made[2]))
    if made[0] == "raised":
        return seen
    optimizer = made[1]

    def closure_for(opt, w, b):
        def closure():
            opt.zero_grad()
            if w.is_complex():  # real operations on the parts (complex arithmetic's own
                real = lib.view_as_real  # last bits are the ops sweeps' matter)
                out = real(w).sum(-1).mv(real(input_)[..., 0]) + real(b).sum(-1)
                loss = out.pow(2).sum()
            else:
                loss = (w.mv(input_) + b).pow(2).sum()
            loss.backward()
            if sparse:
                w.grad = w.grad.to_sparse()
                b.grad = b.grad.to_sparse()
            return loss

        return closure

    closure = closure_for(optimizer, weight, bias)
    made = _attempt(lambda: [f(optimizer) for f in factories])
    seen.append(("schedulers", made[0], made[1:] if made[0] == "raised" else made[2]))
    schedulers = made[1] if made[0] == "ok" else []

    def run(opt, clos, count):
        losses = []
        for _ in range(count):
            loss = opt.step(clos)
            losses.append(loss.detach().clone())
            for scheduler in schedulers if opt is optimizer else []:
                if type(scheduler).__name__ == "ReduceLROnPlateau":
                    scheduler.step(loss)
                else:
                    scheduler.step()
        return losses

    ran = _attempt(lambda: run(optimizer, closure, STEPS))
    seen.append(("steps", *ran))
    if ran[0] == "raised":
        return seen
    seen.append(("params", weight.detach().clone(), bias.detach().clone()))
    state = optimizer.state_dict()
    seen.append(("state_dict", _plain(copy.deepcopy(state), lib)))
    seen.append(("lr", [group["lr"] for group in optimizer.param_groups]))
    seen.append(("types", sorted((index, key, type(value).__name__)
                                 for index, entry in state["state"].items()
                                 for key, value in entry.items())))
    # a deepcopy steps on as the original does
    twin = _attempt(lambda: copy.deepcopy(optimizer))
    if twin[0] == "ok":
        twin_opt = twin[1]
        twin_w, twin_b = twin_opt.param_groups[0]["params"][:2] if len(
            twin_opt.param_groups[0]["params"]) >= 2 else (None, None)
        got = _attempt(lambda: (run(twin_opt, closure_for(twin_opt, twin_w, twin_b), 2),
                                twin_w.detach().clone(), twin_b.detach().clone()))
        seen.append(("deepcopy", *got))
    else:
        seen.append(("deepcopy", *twin))
    # the state dict loaded into a fresh optimizer with the other impl flag, stepped twice
    other = {k: v for k, v in kwargs.items() if k not in ("foreach", "fused", "differentiable")}
    fresh_w = lib.nn.Parameter(weight.detach().clone())
    fresh_b = lib.nn.Parameter(bias.detach().clone())

    def reload():
        fresh = make([fresh_w, fresh_b], other)
        fresh.load_state_dict(copy.deepcopy(state))
        losses = run(fresh, closure_for(fresh, fresh_w, fresh_b), 2)
        return losses, fresh_w.detach().clone(), _plain(fresh.state_dict(), lib)

    seen.append(("reload", *_attempt(reload)))
    # zero_grad both ways
    closure()
    optimizer.zero_grad(set_to_none=False)
    seen.append(("zero_grad(False)", None if weight.grad is None else weight.grad.to_dense()))
    optimizer.zero_grad()
    seen.append(("zero_grad()", weight.grad))
    return seen


def _start(torch, dtype_name):
    torch.manual_seed(0)
    dtype = getattr(torch, dtype_name)
    return (torch.randn(10, 5, dtype=dtype), torch.randn(10, dtype=dtype),
            torch.randn(5, dtype=dtype))


def _compare(torch, theirs, ours) -> list[str]:
    out = []
    for index, item in enumerate(theirs):
        if index >= len(ours):
            out.append(f"{item[0]}: missing in leafgrad")
            break
        out += differences(_plain(item, torch), _plain(ours[index], leafgrad), torch, item[0],
                           strides=False)
    if len(ours) > len(theirs):
        out.append(f"leafgrad went on: {ours[len(theirs)][0]}")
    return out


def sweep_info(torch, info, dtypes=DTYPES, schedulers: bool = True,
               scheduled_configs: int | None = None) -> dict:
    """{(optimizer, desc, dtype, scheduler index): [differences]} for one OptimizerInfo; the
    scheduler_inputs run with the first ``scheduled_configs`` configs (all when None)."""
    found = {}
    name = info.optim_cls.__name__
    sparse = info.only_supports_sparse_grads
    for dtype_name in dtypes:
        if dtype_name.startswith("complex") and not info.supports_complex:
            continue
        start_t = _start(torch, dtype_name)
        start_l = to_leafgrad(start_t, torch)
        runs = [(None, [])]
        if schedulers:
            runs += list(enumerate(info.scheduler_inputs))
        for number, (desc, kwargs) in enumerate(configs(info, getattr(torch, dtype_name))):
            for index, factories in runs:
                if index is not None and ("differentiable" in desc or "foreach" in desc
                                          or number >= (scheduled_configs or 10**9)):
                    continue  # schedulers once per input, with torch's default impl
                theirs = _program(torch, name, copy.deepcopy(kwargs), start_t, sparse,
                                  factories)
                ours = _program(leafgrad, name, _Converter(torch)(kwargs), start_l, sparse,
                                _lib_schedulers(factories, leafgrad))
                problems = _compare(torch, theirs, ours)
                if problems:
                    found[(name, desc, dtype_name, index)] = problems
    return found


def _differentiable_program(lib, cls_name, kwargs, start):
    """torch's TestDifferentiableOptimizer shape: a non-leaf parameter (a clone of a leaf) with
    a gradient that requires grad, one step under differentiable=True, then the gradient of
    the parameter and the state with respect to the leaf and the gradient."""
    weight0 = start[0]
    leaf = weight0.clone().requires_grad_(True)
    grad = (weight0 * 0.5 + 0.25).requires_grad_(True)
    param = leaf.clone()
    seen: list = []

    def run():
        optimizer = getattr(lib.optim, cls_name)([param], differentiable=True, **kwargs)
        param.grad = grad * 2.0
        optimizer.step()
        state = optimizer.state[param]
        tensors = [value for _, value in sorted(state.items())
                   if isinstance(value, lib.Tensor) and value.requires_grad]
        total = param.pow(2).sum() + sum(t.sum() for t in tensors)
        grads = lib.autograd.grad(total, [leaf, grad], allow_unused=True)
        return [param.detach(), param.grad_fn.name(), sorted(state),
                [value.detach() if isinstance(value, lib.Tensor) else value
                 for _, value in sorted(state.items())], list(grads)]

    got = _attempt(run)
    seen.append(("differentiable", *got))
    return seen


def sweep_differentiable(torch, info) -> dict:
    """{(optimizer, desc, 'float64', 'differentiable'): [differences]} for non-leaf parameters
    stepped with differentiable=True."""
    found = {}
    if "differentiable" not in info.supported_impls:
        return found
    name = info.optim_cls.__name__
    start_t = _start(torch, "float64")
    start_l = to_leafgrad(start_t, torch)
    for desc, kwargs in configs(info, torch.float64):
        if "&" in desc:
            continue
        theirs = _differentiable_program(torch, name, copy.deepcopy(kwargs), start_t)
        ours = _differentiable_program(leafgrad, name, _Converter(torch)(kwargs), start_l)
        problems = _compare(torch, theirs, ours)
        if problems:
            found[(name, desc, "float64", "differentiable")] = problems
    return found


def _api_program(lib, cls_name, kwargs, start, sparse):
    """torch's test_optim.py cheap checks on one optimizer: every hook kind (what it sees, in
    which order, what returning a value does), a parameter group added after two steps,
    zero_grad both ways, a pickle round trip of the optimizer and of its state dict."""
    import pickle

    weight0, bias0, input_ = start
    weight = lib.nn.Parameter(weight0.clone())
    bias = lib.nn.Parameter(bias0.clone())
    extra = lib.nn.Parameter(bias0.clone() * 0.5)
    log: list = []
    optimizer = getattr(lib.optim, cls_name)([weight], **kwargs)

    def closure():
        optimizer.zero_grad()
        loss = (weight.mv(input_) + bias).pow(2).sum()
        if any(extra is p for g in optimizer.param_groups for p in g["params"]):
            loss = loss + (extra * bias).sum()
        loss.backward()
        if sparse:
            for p in (weight, bias, extra):
                if p.grad is not None:
                    p.grad = p.grad.to_sparse()
        return loss

    handles = [
        optimizer.register_step_pre_hook(lambda opt, args, kw: log.append(("pre", len(args)))),
        optimizer.register_step_post_hook(lambda opt, args, kw: log.append(("post", len(kw)))),
        optimizer.register_state_dict_pre_hook(lambda opt: log.append("sd pre")),
        optimizer.register_state_dict_post_hook(
            lambda opt, sd: log.append(("sd post", sorted(sd)))),
        optimizer.register_load_state_dict_pre_hook(
            lambda opt, sd: log.append(("load pre", sorted(sd)))),
        optimizer.register_load_state_dict_post_hook(lambda opt: log.append("load post")),
    ]
    seen: list = []
    for _ in range(2):
        optimizer.step(closure)
    group = {"params": [bias, extra]}
    if cls_name != "LBFGS":
        group["lr"] = 0.01
    seen.append(("add_param_group", *_attempt(lambda: optimizer.add_param_group(group))))
    seen.append(("step after", *_attempt(lambda: [optimizer.step(closure) for _ in range(2)])))
    state = optimizer.state_dict()
    seen.append(("state_dict", _plain(copy.deepcopy(state), lib)))
    seen.append(("load", *_attempt(lambda: optimizer.load_state_dict(copy.deepcopy(state)))))
    seen.append(("pickled state", *_attempt(
        lambda: _plain(pickle.loads(pickle.dumps(state)), lib))))
    seen.append(("pickled optimizer", *_attempt(
        lambda: _plain(pickle.loads(pickle.dumps(optimizer)).state_dict(), lib))))
    seen.append(("repr", repr(optimizer)))
    for handle in handles:
        handle.remove()
    seen.append(("step unhooked", *_attempt(lambda: optimizer.step(closure))))
    seen.append(("log", log))
    closure()
    optimizer.zero_grad(set_to_none=False)
    seen.append(("zero_grad(False)", [None if p.grad is None else p.grad.to_dense()
                                      for p in (weight, bias, extra)]))
    return seen


def sweep_api(torch, info, dtype_name: str = "float64", count: int = 4) -> dict:
    """{(optimizer, desc, dtype, 'api'): [differences]} for the first ``count`` configs (the
    first optim input with each impl flag)."""
    found = {}
    name = info.optim_cls.__name__
    start_t = _start(torch, dtype_name)
    start_l = to_leafgrad(start_t, torch)
    for desc, kwargs in configs(info, getattr(torch, dtype_name))[:count]:
        if "differentiable" in desc:  # (a leaf's differentiable step raises: sweep_info's)
            continue
        theirs = _api_program(torch, name, copy.deepcopy(kwargs), start_t,
                              info.only_supports_sparse_grads)
        ours = _api_program(leafgrad, name, _Converter(torch)(kwargs), start_l,
                            info.only_supports_sparse_grads)
        problems = _compare(torch, theirs, ours)
        if problems:
            found[(name, desc, dtype_name, "api")] = problems
    return found


def _snapshot(obj, torch) -> list:
    return [t.detach().clone() if t.layout == torch.strided else t.to_dense()
            for t in _tensors(obj, torch)] + [
        None if t.grad is None else t.grad.to_dense() for t in _tensors(obj, torch)]


def _tensors(obj, torch) -> list:
    lib_types = (torch.Tensor,) if torch is not leafgrad else (leafgrad.Tensor,)
    if isinstance(obj, lib_types):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in _tensors(item, torch)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors(item, torch)]
    return []


def _error_program(lib, cls_name, params, kwargs, on_step: bool):
    cls = getattr(lib.optim, cls_name)
    before = _snapshot((params, kwargs), lib)
    if on_step:
        made = _attempt(lambda: cls(params, **kwargs))
        if made[0] == "raised":
            return [("construct", *made)]
        got = _attempt(made[1].step)
        result = [("construct", "ok", made[2]), ("step", got[0], got[1:] if got[0] ==
                                                  "raised" else got[2])]
    else:
        got = _attempt(lambda: cls(params, **kwargs))
        result = [("construct", got[0], got[1:] if got[0] == "raised" else got[2])]
    after = _snapshot((params, kwargs), lib)
    result.append(("unchanged", before, after))
    return result


def sweep_errors(torch, info, dtypes=DTYPES) -> dict:
    """{(optimizer, error index, dtype): [differences]} for optim_error_inputs_func."""
    from torch.testing._internal.common_optimizers import OptimizerErrorEnum

    found = {}
    name = info.optim_cls.__name__
    if info.optim_error_inputs_func is None:
        return found
    for dtype_name in dtypes:
        torch.manual_seed(0)
        for index, error in enumerate(
                info.optim_error_inputs_func(device="cpu", dtype=getattr(torch, dtype_name))):
            item = error.optimizer_error_input
            on_step = error.error_on == OptimizerErrorEnum.STEP_ERROR
            convert = _Converter(torch)
            params_l, kwargs_l = convert(item.params), convert(item.kwargs)
            theirs = _error_program(torch, name, item.params, item.kwargs, on_step)
            ours = _error_program(leafgrad, name, params_l, kwargs_l, on_step)
            problems = _compare(torch, theirs, ours)
            if problems:
                found[(name, index, dtype_name)] = [item.desc] + problems
    return found


def main() -> None:
    import sys
    import torch

    names = sys.argv[1:]
    for info in optim_db():
        if names and info.optim_cls.__name__ not in names:
            continue
        report = {**sweep_errors(torch, info), **sweep_info(torch, info),
                  **sweep_differentiable(torch, info), **sweep_api(torch, info)}
        for key, problems in report.items():
            print(key)
            for line in problems[:6]:
                print("    ", line[:300])


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
