"""nn.Module, Parameter, containers, Linear against torch.nn: init numbers, reprs, iteration
orders, state_dict keys and metadata, load_state_dict results/errors, hooks, dtype moves."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _first_line_error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        # leafgrad names its dtypes leafgrad.float32 where torch says torch.float32
        return type(error).__name__, str(error).splitlines()[0].replace("leafgrad.", "torch.")
    return None


def _net(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.Tanh()
            self.register_buffer("steps", lib.zeros(()))
            self.register_buffer("scratch", lib.ones(2), persistent=False)

        def forward(self, x):
            return self.act(self.fc(x)) + self.steps

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(3, 4, bias=False)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.head = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))
            self.shared = self.head[1]  # the same module twice: reported once
            self.scale = nn.Parameter(lib.ones(1))

        def forward(self, x):
            x = self.embed(x)
            for block in self.blocks:
                x = block(x)
            return self.head(x) * self.scale

    return Net()


def _seeded(lib, seed=0):
    lib.manual_seed(seed)
    return _net(lib)


def test_default_init_is_torchs_number_for_number():
    for seed in (0, 1, 123):
        ours, theirs = _seeded(leafgrad, seed), _seeded(torch, seed)
        for (name, p), (tname, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert name == tname
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_init_forward_backward(dtype, bias):
    def run(lib):
        lib.manual_seed(3)
        layer = lib.nn.Linear(5, 3, bias=bias, dtype=getattr(lib, dtype))
        x = lib.randn(2, 4, 5, dtype=getattr(lib, dtype), requires_grad=True)
        y = layer(x)
        (y * y).sum().backward()
        grads = [p.grad.numpy() for p in layer.parameters()]
        return y.detach().numpy(), x.grad.numpy(), grads, y.grad_fn.name(), repr(layer)

    ours, theirs = run(leafgrad), run(torch)
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours[0], theirs[0], rtol=tol, atol=tol)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=tol, atol=tol)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    assert ours[3:] == theirs[3:]


def test_repr_of_nested_models_and_containers():
    def reprs(lib):
        nn = lib.nn
        return [
            repr(_seeded(lib)),
            repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])),
            repr(nn.ModuleList()),
            repr(nn.Sequential(nn.Linear(1, 2), nn.Sequential(nn.GELU(), nn.Softmax(dim=1)))),
            repr(nn.ModuleDict({"a": nn.ReLU(inplace=True), "b": nn.LeakyReLU(0.2)})),
            repr(nn.Flatten()), repr(nn.Unflatten(1, (2, 3))), repr(nn.Identity()),
            repr(nn.Hardtanh(-2.0, 2.0)), repr(nn.ReLU6()), repr(nn.ELU(alpha=0.5)),
            repr(nn.Bilinear(2, 3, 4)), repr(nn.CrossEntropyLoss()), repr(nn.MSELoss()),
            repr(nn.Linear(2, 3).weight).splitlines()[0],
        ]

    assert reprs(leafgrad) == reprs(torch)


def test_iteration_orders_and_deduplication():
    def names(lib):
        net = _seeded(lib)
        return (
            [n for n, _ in net.named_parameters()],
            [n for n, _ in net.named_parameters(remove_duplicate=False)],
            [n for n, _ in net.named_buffers()],
            [n for n, _ in net.named_modules()],
            [n for n, _ in net.named_children()],
            [type(m).__name__ for m in net.modules()],
            [n for n, _ in net.named_parameters(prefix="model", recurse=False)],
            len(list(net.parameters())),
            [type(m).__name__ for m in net.blocks[0].children()],
        )

    assert names(leafgrad) == names(torch)


def test_state_dict_keys_values_and_metadata():
    ours, theirs = _seeded(leafgrad).state_dict(), _seeded(torch).state_dict()
    assert list(ours) == list(theirs)
    assert dict(ours._metadata) == dict(theirs._metadata)
    for key in ours:
        np.testing.assert_array_equal(ours[key].numpy(), theirs[key].numpy())
        assert ours[key].requires_grad == theirs[key].requires_grad
    kept = _seeded(leafgrad).state_dict(keep_vars=True)
    assert all(v.requires_grad for k, v in kept.items() if "steps" not in k)


def test_load_state_dict_round_trip_and_result():
    def run(lib):
        source, target = _seeded(lib, 0), _seeded(lib, 1)
        result = target.load_state_dict(source.state_dict())
        same = all(lib.equal(p, q) for p, q in zip(source.parameters(), target.parameters()))
        partial = dict(source.state_dict())
        partial.pop("scale")
        partial["extra.weight"] = lib.zeros(1)
        loose = target.load_state_dict(partial, strict=False)
        return repr(result), same, loose.missing_keys, loose.unexpected_keys

    assert run(leafgrad) == run(torch)


@pytest.mark.parametrize("case", ["missing", "unexpected", "shape", "not_tensor", "not_dict"])
def test_load_state_dict_errors_match_torch_and_change_nothing(case):
    def run(lib):
        net = _seeded(lib, 0)
        state = dict(_seeded(lib, 1).state_dict())
        if case == "missing":
            state.pop("head.1.bias")
        elif case == "unexpected":
            state["blocks.0.fc.extra"] = lib.zeros(1)
        elif case == "shape":
            state["embed.weight"] = lib.zeros(5, 3)
        elif case == "not_tensor":
            state["scale"] = [1.0]
        else:
            state = [1, 2]
        before = [p.detach().clone() for p in net.parameters()]
        versions = [p._version for p in net.parameters()]
        try:
            net.load_state_dict(state)
        except Exception as error:  # noqa: BLE001
            message = str(error)
            return type(error).__name__, message, before, versions, net
        raise AssertionError("no error")

    ours, theirs = run(leafgrad), run(torch)
    assert ours[:2] == theirs[:2]
    net, before, versions = ours[4], ours[2], ours[3]
    # Beyond torch: a failed load changes nothing (torch copies the entries that fit first).
    for p, b in zip(net.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), b.numpy())
    assert [p._version for p in net.parameters()] == versions


def test_assignment_rules_and_errors():
    def run(lib):
        nn = lib.nn
        out = []
        layer = nn.Linear(2, 2)
        out.append(_first_line_error(lambda: setattr(layer, "weight", lib.zeros(2, 2))))
        out.append(_first_line_error(lambda: layer.register_parameter("w", lib.zeros(1))))
        out.append(_first_line_error(lambda: layer.register_buffer("weight", lib.zeros(1))))
        out.append(_first_line_error(lambda: layer.nonexistent))
        out.append(_first_line_error(lambda: layer.add_module("a.b", nn.ReLU())))
        layer.weight = None
        out.append([n for n, _ in layer.named_parameters()])
        layer.extra = nn.Parameter(lib.ones(1))
        out.append([n for n, _ in layer.named_parameters()])
        del layer.extra
        layer.sub = nn.ReLU()
        out.append([n for n, _ in layer.named_children()])
        out.append(_first_line_error(lambda: setattr(layer, "sub", 3)))

        class Early(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(lib.ones(1))

        out.append(_first_line_error(Early))
        out.append(_first_line_error(lambda: nn.Module()(1)))
        out.append(_first_line_error(lambda: nn.Linear(3, 2)(lib.zeros(2, 4))))
        return out

    assert run(leafgrad) == run(torch)


def test_train_eval_zero_grad_requires_grad_apply():
    def run(lib):
        net = _seeded(lib)
        net.eval()
        modes = [m.training for m in net.modules()]
        net.train()
        net(lib.ones(2, 3)).sum().backward()
        net.zero_grad(set_to_none=False)
        zeroed = [float(p.grad.abs().sum()) for p in net.parameters()]
        net.zero_grad()
        cleared = [p.grad for p in net.parameters()]
        net.requires_grad_(False)
        flags = [p.requires_grad for p in net.parameters()]
        visited = []
        net.apply(lambda m: visited.append(type(m).__name__))
        return modes, zeroed, cleared, flags, visited

    assert run(leafgrad) == run(torch)


def test_dtype_moves_keep_parameter_identity():
    def run(lib):
        net = _seeded(lib)
        ids = [id(p) for p in net.parameters()]
        net.double()
        dtypes = [str(p.dtype).split(".")[-1] for p in net.parameters()]
        net.to(lib.float32)
        back = [str(p.dtype).split(".")[-1] for p in net.parameters()]
        net.half().float()
        same_ids = [id(p) for p in net.parameters()] == ids
        error = _first_line_error(lambda: net.to(lib.int64))
        return dtypes, back, same_ids, error, net.to("cpu") is net

    assert run(leafgrad) == run(torch)


def test_forward_hooks_order_kwargs_and_removal():
    def run(lib):
        log = []
        layer = lib.nn.Linear(2, 2)
        h1 = layer.register_forward_pre_hook(lambda m, args: log.append("pre1"))
        layer.register_forward_pre_hook(lambda m, args: log.append("pre0"), prepend=True)
        layer.register_forward_pre_hook(
            lambda m, args, kwargs: (log.append("prekw"), (args[0] * 2,), kwargs)[1:],
            with_kwargs=True)
        layer.register_forward_hook(lambda m, args, out: log.append("post") or out + 1)
        layer.register_forward_hook(lambda m, args, kwargs, out: log.append(("kw", kwargs)),
                                    with_kwargs=True)
        x = lib.ones(1, 2)
        y1 = layer(x)
        h1.remove()
        h1.remove()
        y2 = layer(x)
        return log, y1.tolist(), y2.tolist()

    lib_out = run(leafgrad)
    torch.manual_seed(0)
    leafgrad.manual_seed(0)
    assert lib_out[0] == run(torch)[0]


def test_full_backward_hooks_see_torchs_grads():
    def run(lib):
        lib.manual_seed(0)
        log = []
        layer = lib.nn.Linear(3, 2)

        def pre(module, grad_output):
            log.append(("pre", [g.tolist() for g in grad_output]))
            return (grad_output[0] * 2,)

        def hook(module, grad_input, grad_output):
            log.append(("hook", [None if g is None else np.round(g.numpy(), 5).tolist()
                                 for g in grad_input],
                        [g.tolist() for g in grad_output]))

        layer.register_full_backward_pre_hook(pre)
        layer.register_full_backward_hook(hook)
        x = lib.ones(1, 3, requires_grad=True)
        layer(x).sum().backward()
        y = layer(lib.ones(1, 3))  # no input requires grad: grad_input is (None,)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y.sum().backward()
        log.append([str(w.message) for w in caught])
        return log, np.round(x.grad.numpy(), 5).tolist()

    assert run(leafgrad) == run(torch)


def test_containers_behave_like_torch():
    def run(lib):
        nn = lib.nn
        seq = nn.Sequential(nn.Linear(1, 1), nn.ReLU(), nn.Tanh())
        out = [type(seq[-1]).__name__, [type(m).__name__ for m in seq[1:]], len(seq)]
        seq.append(nn.Sigmoid())
        seq.insert(0, nn.Identity())
        del seq[1]
        out.append([type(m).__name__ for m in seq])
        out.append(list(seq._modules))
        out.append(_first_line_error(lambda: seq[10]))
        popped = seq.pop(0)
        out.append(type(popped).__name__)
        out.append([type(m).__name__ for m in seq + nn.Sequential(nn.ReLU())])
        mlist = nn.ModuleList([nn.ReLU()])
        mlist += [nn.Tanh()]
        mlist.insert(0, nn.Identity())
        out.append([type(m).__name__ for m in mlist[1:]])
        mdict = nn.ModuleDict([("b", nn.ReLU()), ("a", nn.Tanh())])
        out.append(list(mdict.keys()))
        plist = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(3)])
        out.append([type(p).__name__ for p in plist])
        out.append(repr(plist).replace("leafgrad.", "torch."))
        pdict = nn.ParameterDict({"w": lib.ones(1)})
        out.append([(k, type(v).__name__) for k, v in pdict.items()])
        holder = nn.Module()
        holder.plist = plist
        holder.pdict = pdict
        out.append([n for n, _ in holder.named_parameters()])
        out.append(_first_line_error(lambda: plist(1)))
        return out

    assert run(leafgrad) == run(torch)


def test_deepcopy_and_pickle_keep_types_and_values():
    net = _seeded(leafgrad)
    leafgrad.manual_seed(0)
    plain = leafgrad.nn.Sequential(leafgrad.nn.Linear(2, 3), leafgrad.nn.ReLU())
    restored = pickle.loads(pickle.dumps(plain))
    assert repr(restored) == repr(plain)
    for p, q in zip(restored.parameters(), plain.parameters()):
        assert type(p).__name__ == "Parameter" and p.requires_grad
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    for clone in (copy.deepcopy(net),):
        assert [type(p).__name__ for p in clone.parameters()] == ["Parameter"] * len(
            list(net.parameters()))
        for p, q in zip(clone.parameters(), net.parameters()):
            assert p is not q
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        assert clone.shared is clone.head[1]
