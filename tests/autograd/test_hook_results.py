"""What tensor and node hooks may return (issue 11 item 6), compared with torch: the checks of
python_hook.cpp (type, then size; tuples of the right length; no value where the gradient was
None), the hook's name in the message, and nothing stored when a check fails."""

from __future__ import annotations

import functools

import pytest

import leafgrad

from .._torch import require_torch
from ._differential import observe

torch = require_torch()

# What a hook returns, made in the library under test (so each case runs under both).
RESULTS = {
    "same": lambda lib: lib.full((3,), 5.0),
    "other_shape": lambda lib: lib.ones(2),
    "broadcastable": lambda lib: lib.ones(1, 3),
    "zero_dim": lambda lib: lib.tensor(1.0),
    "float64": lambda lib: lib.ones(3, dtype=lib.float64),
    "int64": lambda lib: lib.ones(3, dtype=lib.int64),
    "float64_other_shape": lambda lib: lib.ones(2, dtype=lib.float64),
    "int": lambda lib: 1,
    "float": lambda lib: 2.0,
    "list": lambda lib: [lib.ones(3)],
    "expanded": lambda lib: lib.ones(1).expand(3),
    "none": lambda lib: None,
}


def _tensor_hook_program(where, result, dtype_name):
    def program(lib, note):
        dtype = getattr(lib, dtype_name)
        x = lib.ones(3, dtype=dtype, requires_grad=True)
        first = lib.ones(3, dtype=dtype, requires_grad=True)
        calls = []
        y = x * 2
        target = x if where == "leaf" else y
        if where == "nonleaf_retained":
            y.retain_grad()
        target.register_hook(lambda g: calls.append("before") and None)
        target.register_hook(lambda g: RESULTS[result](lib))
        note(lambda: (y * first).sum().backward())
        note(lambda: calls)
        note(lambda: None if x.grad is None else x.grad.tolist())
        note(lambda: None if first.grad is None else first.grad.tolist())
        if where == "nonleaf_retained":
            note(lambda: None if y.grad is None else y.grad.tolist())

    return program


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("result", sorted(RESULTS))
@pytest.mark.parametrize("where", ["leaf", "nonleaf", "nonleaf_retained"])
def test_tensor_hook_result(where, result, dtype_name):
    program = _tensor_hook_program(where, result, dtype_name)
    assert observe(program, leafgrad) == observe(program, torch)


# Node hooks: what the tuple holds, entry by entry (two inputs: x requires grad, c maybe not).
TUPLES = {
    "one_good": lambda lib: (lib.full((3,), 5.0),),
    "two_good": lambda lib: (lib.full((3,), 5.0), lib.full((3,), 7.0)),
    "other_shape": lambda lib: (lib.ones(2), lib.ones(3)),
    "float64": lambda lib: (lib.ones(3), lib.ones(3, dtype=lib.float64)),
    "int_entry": lambda lib: (lib.ones(3), 1),
    "none_entries": lambda lib: (None, None),
    "none_first": lambda lib: (None, lib.ones(3)),
    "bare_tensor": lambda lib: lib.ones(3),
    "bare_int": lambda lib: 1,
    "list": lambda lib: [lib.ones(3), lib.ones(3)],
    "empty": lambda lib: (),
    "three": lambda lib: (lib.ones(3),) * 3,
    "none": lambda lib: None,
}


def _node_hook_program(kind, result, other_requires_grad):
    def program(lib, note):
        x = lib.ones(3, requires_grad=True)
        c = lib.full((3,), 3.0, requires_grad=other_requires_grad)
        y = x * c
        if kind == "prehook":
            y.grad_fn.register_prehook(lambda grad_outputs: TUPLES[result](lib))
        else:
            y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: TUPLES[result](lib))
        note(lambda: y.sum().backward())
        note(lambda: None if x.grad is None else x.grad.tolist())
        note(lambda: None if c.grad is None else c.grad.tolist())

    return program


@pytest.mark.parametrize("other_requires_grad", [False, True])
@pytest.mark.parametrize("result", sorted(TUPLES))
@pytest.mark.parametrize("kind", ["prehook", "hook"])
def test_node_hook_result(kind, result, other_requires_grad):
    program = _node_hook_program(kind, result, other_requires_grad)
    assert observe(program, leafgrad) == observe(program, torch)


class _CallableHook:
    def __call__(self, grad):
        return grad.new_ones(2)


class _Holder:
    def method_hook(self, grad):
        return grad.new_ones(2)


def named_hook(grad):
    return grad.new_ones(2)


HOOKS = {
    "function": lambda: named_hook,
    "method": lambda: _Holder().method_hook,
    "callable_object": lambda: _CallableHook(),
    "partial": lambda: functools.partial(lambda unused, grad: grad.new_ones(2), 0),
}


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_hook_name_in_message(hook):
    def program(lib, note):
        x = lib.ones(3, requires_grad=True)
        x.register_hook(HOOKS[hook]())
        note(lambda: (x * 2).sum().backward())

    assert observe(program, leafgrad) == observe(program, torch)


def test_failed_check_leaves_existing_grad_unchanged():
    def program(lib, note):
        x = lib.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        handle = x.register_hook(lambda g: g.double())
        note(lambda: (x * 3).sum().backward())
        note(lambda: x.grad.tolist())
        handle.remove()
        note(lambda: (x * 3).sum().backward())
        note(lambda: x.grad.tolist())

    assert observe(program, leafgrad) == observe(program, torch)


def test_autograd_grad_checks_hooks_too():
    def program(lib, note):
        x = lib.ones(3, requires_grad=True)
        y = x * x
        y.register_hook(lambda g: g[:2])
        note(lambda: lib.autograd.grad(y.sum(), x))
        z = x * x
        z.register_hook(lambda g: g * 2)
        note(lambda: lib.autograd.grad(z.sum(), x)[0].tolist())

    assert observe(program, leafgrad) == observe(program, torch)
