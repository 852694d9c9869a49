"""Optimizer behaviours found by replaying torch's OptimizerInfo database
(tests/optim/test_optiminfo.py), each swept over its whole class against torch: programs run
under torch and leafgrad must observe the same things, bit for bit."""

from __future__ import annotations

import copy
import itertools

import numpy as np

import leafgrad
from tests.opinfo._harness import differences, first_line, to_leafgrad

from .._torch import require_torch

torch = require_torch()


def _same(program, *args):
    """program(lib, *args) under both; the observations compared with the sweep's rules."""
    theirs = _observe(program, torch, args)
    ours = _observe(program, leafgrad, to_leafgrad(args, torch))
    problems = differences(theirs, ours, torch, "observed", strides=False)
    assert not problems, problems[:6]


def _observe(program, lib, args):
    try:
        return ["ok", program(lib, *args)]
    except Exception as error:  # noqa: BLE001 - type and first line are compared
        # (a dtype in a message: leafgrad.float32 is how leafgrad spells torch.float32)
        return ["raised", type(error).__name__, first_line(error).replace("leafgrad.", "torch.")]


def _randn(*shape, dtype=torch.float64):
    return torch.randn(*shape, dtype=dtype)


def _steps(lib, cls_name, kwargs, weight, bias, input_, count=3, sparse=False):
    """Parameters, state and losses after ``count`` closure steps of the sweep's loss."""
    weight = lib.nn.Parameter(weight.clone())
    bias = lib.nn.Parameter(bias.clone())
    optimizer = getattr(lib.optim, cls_name)([weight, bias], **kwargs)

    def closure():
        optimizer.zero_grad()
        loss = (weight.mv(input_) + bias).pow(2).sum()
        loss.backward()
        return loss

    losses = [optimizer.step(closure).detach() for _ in range(count)]
    state = [sorted((key, value.detach().clone() if isinstance(value, lib.Tensor) else value)
                    for key, value in optimizer.state[p].items()) for p in (weight, bias)]
    return [losses, weight.detach(), bias.detach(), state]


def test_capturable_steps_refuse_the_cpu_with_torchs_assertion():
    # every optimizer with a capturable flag, both update paths: torch asserts the device
    # before updating (its device list differs between paths and optimizers)
    torch.manual_seed(0)
    weight, bias, input_ = _randn(3, 2), _randn(3), _randn(2)
    for name in ("Adadelta", "Adam", "AdamW", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop",
                 "Rprop"):
        for foreach in (False, True, None):
            _same(_steps, name, {"capturable": True, "foreach": foreach}, weight, bias, input_)
    # fused=True takes no such check (its kernels run on the CPU)
    for name in ("Adam", "AdamW"):
        _same(_steps, name, {"capturable": True, "fused": True}, weight, bias, input_)


def test_differentiable_steps_record_or_refuse_leaves_as_torch():
    # differentiable=True runs the step with grad enabled: a leaf parameter's in-place update
    # raises autograd's error; a non-leaf one is recorded (values, state and grad_fn)
    torch.manual_seed(1)
    weight, bias, input_ = _randn(4, 3), _randn(4), _randn(3)
    options = {"SGD": [{"lr": 0.1}, {"lr": 0.1, "momentum": 0.9, "nesterov": True}],
               "Adam": [{}, {"amsgrad": True, "weight_decay": 0.1}, {"maximize": True}],
               "AdamW": [{}, {"amsgrad": True}], "Adagrad": [{}, {"weight_decay": 0.1}],
               "Adadelta": [{}], "Adamax": [{}, {"weight_decay": 0.1}],
               "NAdam": [{}, {"decoupled_weight_decay": True, "weight_decay": 0.1}],
               "RAdam": [{}], "RMSprop": [{}, {"centered": True, "momentum": 0.5}],
               "Rprop": [{}], "ASGD": [{}]}

    def non_leaf(lib, name, kwargs, weight):
        leaf = weight.clone().requires_grad_(True)
        param = leaf.clone()
        param.grad = (weight * 0.5 + 0.25).requires_grad_(True)
        optimizer = getattr(lib.optim, name)([param], differentiable=True, **kwargs)
        optimizer.step()
        state = sorted((key, value.detach()) for key, value in optimizer.state[param].items())
        return [param.detach(), param.grad_fn.name(), param.requires_grad, state]

    for name, choices in options.items():
        for kwargs in choices:
            _same(_steps, name, {**kwargs, "differentiable": True}, weight, bias, input_)
            _same(non_leaf, name, kwargs, weight)


def test_fused_kernels_match_torchs_cpu_kernels_bit_for_bit():
    # sizes across the 64-byte vector loop, its 32-byte vectorised tail and the scalar rest
    # (optim/_fused.py, Note: fused kernels' rounding), every option, three steps
    torch.manual_seed(2)
    sizes = (1, 3, 4, 7, 8, 9, 15, 16, 17, 24, 31, 33, 50)
    cases = {
        "SGD": [dict(lr=0.1, momentum=m, dampening=d, nesterov=n, weight_decay=w, maximize=x)
                for m, d, n, w, x in itertools.product((0, 0.9), (0, 0.2), (False, True),
                                                       (0, 0.1), (False, True))
                if not (n and (m == 0 or d != 0))],
        "Adam": [dict(lr=0.01, weight_decay=w, amsgrad=a, maximize=x, betas=b)
                 for w, a, x, b in itertools.product((0, 0.1), (False, True), (False, True),
                                                     ((0.9, 0.999), (0.3, 0.9)))],
        "AdamW": [dict(lr=0.01, amsgrad=a, maximize=x) for a in (False, True)
                  for x in (False, True)],
        "Adagrad": [dict(lr=0.1, weight_decay=w, lr_decay=d, maximize=x)
                    for w, d, x in itertools.product((0, 0.1), (0, 0.01), (False, True))],
    }
    for dtype in (torch.float32, torch.float64):
        for size in sizes:
            weight, bias, input_ = _randn(size, 2, dtype=dtype), _randn(size, dtype=dtype), \
                _randn(2, dtype=dtype)
            for name, choices in cases.items():
                for kwargs in choices:
                    _same(_steps, name, {**kwargs, "fused": True}, weight, bias, input_)


def test_fused_refuses_foreach_and_differentiable_in_torchs_order():
    weight = torch.zeros(2)
    for name in ("SGD", "Adam", "AdamW", "Adagrad"):
        for flags in ({"foreach": True}, {"differentiable": True},
                      {"foreach": True, "differentiable": True}):
            def program(lib, weight):
                getattr(lib.optim, name)([lib.nn.Parameter(weight)], fused=True, **flags)
                return "made"

            _same(program, weight)


def test_foreach_paths_follow_torchs_multi_tensor_arithmetic():
    # ASGD (one addcmul_ with the eta tensor, eta from the float32 step tensor), NAdam (the
    # root before the bias correction), RAdam (the reciprocal form), Adafactor (scaled, then
    # added); plus the optimizers whose foreach arithmetic equals the for-loop's
    torch.manual_seed(3)
    cases = {
        "ASGD": [{}, {"weight_decay": 0.1, "lambd": 0.01}, {"maximize": True, "t0": 1}],
        "NAdam": [{}, {"weight_decay": 0.1}, {"decoupled_weight_decay": True,
                                              "weight_decay": 0.1, "maximize": True}],
        "RAdam": [{}, {"weight_decay": 0.1}, {"decoupled_weight_decay": True,
                                              "weight_decay": 0.1}],
        "Adafactor": [{}, {"weight_decay": 0.1}, {"maximize": True, "lr": 0.1}],
        "Adam": [{}, {"amsgrad": True}], "Adamax": [{}], "Adadelta": [{}], "Adagrad": [{}],
        "RMSprop": [{"centered": True, "momentum": 0.5}], "Rprop": [{}], "SGD": [
            {"lr": 0.1, "momentum": 0.9}],
    }
    for dtype in (torch.float32, torch.float64):
        weight, bias, input_ = _randn(5, 3, dtype=dtype), _randn(5, dtype=dtype), \
            _randn(3, dtype=dtype)
        for name, choices in cases.items():
            for kwargs in choices:
                # 7 steps: RAdam's variance is rectified from the sixth
                _same(_steps, name, {**kwargs, "foreach": True}, weight, bias, input_, 7)


def test_tensor_hyperparameters_stay_tensors_and_are_checked():
    # torch's _to_scalar keeps a 1-element tensor lr/betas a (0-d) tensor in the groups and
    # state (LBFGS's step length t); 2-element ones are refused with torch's words
    torch.manual_seed(4)
    weight = _randn(3, 2)

    def groups(lib, name, kwargs, weight):
        param = lib.nn.Parameter(weight.clone())
        optimizer = getattr(lib.optim, name)([param], **kwargs)

        def closure():
            optimizer.zero_grad()
            loss = param.pow(2).sum()
            loss.backward()
            return loss

        optimizer.step(closure)
        group = {key: value for key, value in optimizer.param_groups[0].items()
                 if key != "params"}
        state = {key: value for key, value in optimizer.state[param].items()
                 if not isinstance(value, list)}
        return [sorted(group.items()), sorted((k, type(v).__name__) for k, v in state.items())]

    cases = [("Adam", {"lr": torch.tensor(0.01), "betas": (torch.tensor([[0.9]]),
                                                          torch.tensor(0.99))}),
             ("Adam", {"lr": torch.tensor([0.01]), "fused": True,
                       "betas": (torch.tensor(0.9), torch.tensor(0.99))}),
             ("AdamW", {"betas": (torch.tensor(0.9), torch.tensor(0.99))}),
             ("LBFGS", {"lr": torch.tensor(0.5)}), ("LBFGS", {"lr": torch.tensor([0.5])})]
    for lr in (torch.tensor([0.1, 0.2]), torch.tensor([[0.1]]), torch.tensor(0.1)):
        for name in ("SGD", "SparseAdam", "Adam", "Adagrad", "RMSprop", "LBFGS"):
            cases.append((name, {"lr": lr}))
    for foreach in (True, False):
        for betas in ((torch.tensor(0.9), torch.tensor(0.99)),
                      (torch.tensor([0.9, 0.8]), torch.tensor(0.99)),
                      (torch.tensor(0.9), torch.tensor([0.99, 0.9])), (0.9, torch.tensor(0.9))):
            for name in ("Adam", "AdamW"):
                cases.append((name, {"betas": betas, "foreach": foreach}))
    for name, kwargs in cases:
        if name == "SparseAdam":
            continue  # (dense gradients: its construction checks are the next test's)
        _same(groups, name, kwargs, weight)


def test_sparse_adam_checks_its_groups_after_building_them():
    # torch's SparseAdam: 1-element tensor lr; sparse or complex parameters listed by
    # [group, index] after the base class has built the groups
    dense = torch.zeros(2, 2)

    def program(lib, dense, kind, lr):
        plain = lib.nn.Parameter(dense.clone())
        other = {"sparse": dense.to_sparse(), "complex": dense.to(lib.complex64),
                 "dense": dense.clone()}[kind]
        groups = [{"params": [plain]}, {"params": [plain.detach().clone().requires_grad_(),
                                                   other.requires_grad_()]}]
        optimizer = lib.optim.SparseAdam(groups, lr=lr)
        return len(optimizer.param_groups)

    for kind in ("sparse", "complex", "dense"):
        for lr in (1e-3, torch.tensor(1e-3), torch.tensor([1e-3, 1e-3])):
            _same(program, dense, kind, lr)


def test_deepcopy_of_a_parameter_drops_its_grad():
    # torch's Parameter.__deepcopy__ copies the data only (a plain tensor's keeps its grad);
    # optimizers deep-copied after a step (SparseAdam's sparse grads included) step on
    torch.manual_seed(5)
    values = _randn(3, 2)

    def program(lib, values, grad_kind, plain):
        base = values.clone()
        tensor = base.requires_grad_(True) if plain else lib.nn.Parameter(base)
        if grad_kind == "dense":
            tensor.grad = values * 2
        elif grad_kind == "sparse":
            tensor.grad = (values * 2).to_sparse()
        copied = copy.deepcopy(tensor)
        grad = copied.grad
        return [type(copied).__name__, copied.detach(), None if grad is None else
                grad.to_dense(), copied.requires_grad, copied.is_leaf]

    for grad_kind in ("none", "dense", "sparse"):
        for plain in (False, True):
            if plain and grad_kind == "sparse":
                continue  # (a plain tensor's deepcopy of a sparse grad: not this finding)
            _same(program, values, grad_kind, plain)

    def sparse_adam(lib, values):
        param = lib.nn.Parameter(values.clone())
        optimizer = lib.optim.SparseAdam([param], lr=0.1)
        param.grad = (values * 2).to_sparse()
        optimizer.step()
        twin = copy.deepcopy(optimizer)
        twin_param = twin.param_groups[0]["params"][0]
        twin_param.grad = (values * 3).to_sparse()
        twin.step()
        return [twin_param.detach(), param.detach(),
                sorted((k, v) for k, v in twin.state[twin_param].items())]

    _same(sparse_adam, values)


def test_the_fused_tail_rule_is_measured_not_assumed():
    # the element ranges _fused takes for the scalar form, checked against torch's kernel
    # directly on momentum buffers whose two products round apart
    from leafgrad.optim import _fused

    torch.manual_seed(6)
    for dtype in (torch.float32, torch.float64):
        for size in (5, 8, 13, 16, 31, 40):
            param, grad, buf = (_randn(size, dtype=dtype) for _ in range(3))
            theirs_param, theirs_buf = param.clone(), buf.clone()
            torch._fused_sgd_([theirs_param], [grad.clone()], [theirs_buf], weight_decay=0.1,
                              momentum=0.9, lr=0.01, dampening=0.3, nesterov=False,
                              maximize=False, is_first_step=False)
            ours_param, ours_buf = param.numpy().copy(), buf.numpy().copy()
            _fused.sgd(ours_param, grad.numpy(), ours_buf, weight_decay=0.1, momentum=0.9,
                       lr=0.01, dampening=0.3, nesterov=False, maximize=False,
                       first_step=False)
            assert np.array_equal(ours_buf, theirs_buf.numpy()), (dtype, size)
            assert np.array_equal(ours_param, theirs_param.numpy()), (dtype, size)


def test_a_dense_gradient_onto_a_sparse_grad_gives_a_dense_sum():
    # torch's accumulateGrad adds dense + sparse (its sparse + dense is refused) into a new
    # dense .grad, with grad mode on or off (a parameter outside SparseAdam's groups keeps a
    # sparse .grad that zero_grad does not clear)
    torch.manual_seed(7)
    values = _randn(4, 3)

    def program(lib, values, create_graph, sparse_first):
        param = lib.nn.Parameter(values.clone())
        first = values * 2
        param.grad = first.to_sparse() if sparse_first else first
        (param * values).sum().backward(create_graph=create_graph)
        grad = param.grad
        return [grad.layout == lib.strided, grad.detach().to_dense(), grad.requires_grad]

    for create_graph in (False, True):
        for sparse_first in (False, True):
            _same(program, values, create_graph, sparse_first)


def test_lbfgs_steps_refuse_a_second_parameter_group():
    # add_param_group is the base class's (accepted); LBFGS's step asserts one group
    def program(lib, values):
        param = lib.nn.Parameter(values.clone())
        optimizer = lib.optim.LBFGS([param])
        optimizer.add_param_group({"params": [lib.nn.Parameter(values.clone())]})

        def closure():
            optimizer.zero_grad()
            loss = param.pow(2).sum()
            loss.backward()
            return loss

        optimizer.step(closure)
        return param.detach()

    _same(program, torch.ones(3))


def test_complex_parameters_are_updated_as_their_real_parts():
    # torch views a complex parameter, its gradient and its state as real pairs (view_as_real):
    # grad * grad squares each part. Where the weight decay is added (as complex numbers or on
    # the parts), Adagrad's and Rprop's complex initial values (v + vj), Adadelta keeping the
    # complex parameter, LBFGS's flat real vector, and fused's dtype check, as torch's
    torch.manual_seed(8)
    cases = {
        "Adam": [{}, {"weight_decay": 0.1, "amsgrad": True}, {"maximize": True,
                                                           "weight_decay": 0.1}],
        "AdamW": [{}], "Adagrad": [{"weight_decay": 0.1, "initial_accumulator_value": 0.5}],
        "Adadelta": [{"weight_decay": 0.1}], "Adamax": [{"weight_decay": 0.1}],
        "ASGD": [{"weight_decay": 0.1}], "NAdam": [{"weight_decay": 0.1}],
        "RAdam": [{"weight_decay": 0.1}], "Rprop": [{}, {"maximize": True}],
        "RMSprop": [{"weight_decay": 0.1, "centered": True, "momentum": 0.5}],
        "SGD": [{"lr": 0.1, "momentum": 0.9}], "LBFGS": [{}],
    }

    def complex_steps(lib, name, kwargs, weight, bias, input_):
        weight = lib.nn.Parameter(weight.clone())
        bias = lib.nn.Parameter(bias.clone())
        optimizer = getattr(lib.optim, name)([weight, bias], **kwargs)
        real = lib.view_as_real

        def closure():
            optimizer.zero_grad()
            loss = (real(weight).sum(-1).mv(input_) + real(bias).sum(-1)).pow(2).sum()
            loss.backward()
            return loss

        losses = [optimizer.step(closure).detach() for _ in range(3)]
        state = [sorted((k, v.detach().clone() if isinstance(v, lib.Tensor) else v)
                        for k, v in optimizer.state[p].items() if not isinstance(v, list))
                 for p in (weight, bias)]
        return [losses, weight.detach(), bias.detach(), state]

    for dtype in (torch.complex64, torch.complex128):
        real_dtype = torch.float32 if dtype == torch.complex64 else torch.float64
        weight, bias = _randn(4, 3, dtype=dtype), _randn(4, dtype=dtype)
        input_ = _randn(3, dtype=real_dtype)
        for name, choices in cases.items():
            for kwargs in choices:
                for flags in ({}, {"foreach": True}, {"fused": True}):
                    if name == "LBFGS" and flags or (flags.get("fused") and name not in (
                            "Adam", "AdamW", "SGD", "Adagrad")):
                        continue
                    _same(complex_steps, name, {**kwargs, **flags}, weight, bias, input_)
