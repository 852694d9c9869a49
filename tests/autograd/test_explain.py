"""explain_grad: the right reason, and the user's line, for each way a .grad ends up None or zero.

Each scenario also runs under torch (when installed) to check its premise: torch leaves the
same .grad None (or zero), so the explanation is about behaviour a torch user sees too.
"""

from __future__ import annotations

import inspect

import pytest

import leafgrad as torch
from leafgrad.autograd import _record, explain_grad

from .._torch import require_torch


def _line(marker: str) -> int:
    """The line of the calling test's source that contains ``marker``."""
    frame = inspect.currentframe().f_back
    lines, start = inspect.getsourcelines(frame.f_code)
    for offset, text in enumerate(lines):
        if marker in text and "_line(" not in text:
            return start + offset
    raise AssertionError(marker)


def _torch_grad(program):
    """Run ``program(torch_module)`` under real torch; return the .grad it returns."""
    real = require_torch()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return program(real)


def test_non_leaf_without_retain_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    a = w * 2  # the non-leaf
    a.sum().backward()
    answer = explain_grad(a)
    assert answer.reason == "non_leaf"
    assert answer.line == _line("# the non-leaf")
    assert "retain_grad()" in answer.message and "w" in answer.message
    assert "MulBackward0" in answer.message

    def program(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        a = w * 2
        a.sum().backward()
        return a.grad

    assert _torch_grad(program) is None


def test_copy_of_a_leaf():
    x = torch.tensor([1.0, 2.0], requires_grad=True).double()  # a copy
    (x * x).sum().backward()
    answer = explain_grad(x)
    assert answer.reason == "copy_of_leaf"
    assert "ToCopyBackward0" in answer.message
    assert answer.line == _line("# a copy")


def test_created_under_no_grad():
    w = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        y = w * 2  # inside no_grad
    answer = explain_grad(y)
    assert answer.reason == "no_grad"
    assert answer.line == _line("# inside no_grad")
    assert "no_grad" in answer.message

    def program(t):
        w = t.tensor([1.0], requires_grad=True)
        with t.no_grad():
            y = w * 2
        return (y.requires_grad, y.grad_fn)

    assert _torch_grad(program) == (False, None)


def test_created_under_inference_mode():
    w = torch.tensor([1.0], requires_grad=True)
    with torch.inference_mode():
        y = w.exp()  # inside inference_mode
    answer = explain_grad(y)
    assert answer.reason == "inference_mode"
    assert answer.line == _line("# inside inference_mode")


def test_made_by_a_function_decorated_with_no_grad():
    @torch.no_grad()
    def scale(t):
        return t * 3

    w = torch.tensor([1.0], requires_grad=True)
    y = scale(w)  # decorated
    answer = explain_grad(y)
    assert answer.reason == "no_grad"
    assert "scale" in answer.message
    assert answer.line == _line("# decorated")


def test_result_of_detach():
    w = torch.tensor([1.0], requires_grad=True)
    z = w.detach()  # the cut
    answer = explain_grad(z)
    assert answer.reason == "detached"
    assert answer.line == _line("# the cut")
    assert "`w`.detach()" in answer.message


def test_result_of_data():
    w = torch.tensor([1.0], requires_grad=True)
    z = w.data  # the cut
    answer = explain_grad(z)
    assert answer.reason == "data"
    assert answer.line == _line("# the cut")


def test_leaf_cut_off_by_detach_on_the_path():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor([3.0, 4.0], requires_grad=True)
    h = (w * 2).detach()  # where the path is cut
    loss = (h * v).sum()
    loss.backward()
    answer = explain_grad(w)
    assert answer.reason == "detached"
    assert answer.line == _line("# where the path is cut")
    assert "backward() never reached `w`" in answer.message

    def program(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        v = t.tensor([3.0, 4.0], requires_grad=True)
        h = (w * 2).detach()
        (h * v).sum().backward()
        return w.grad

    assert _torch_grad(program) is None


def test_leaf_cut_off_by_data_on_the_path():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor([3.0, 4.0], requires_grad=True)
    h = w.data * 2  # cut by .data
    (h * v).sum().backward()
    answer = explain_grad(w)
    assert answer.reason == "data"
    assert answer.line == _line("# cut by .data")


def test_leaf_used_only_under_no_grad():
    w = torch.tensor([1.0], requires_grad=True)
    v = torch.tensor([2.0], requires_grad=True)
    with torch.no_grad():
        h = w * 2  # w used here
    (h * v).sum().backward()
    answer = explain_grad(w)
    assert answer.reason == "no_grad"
    assert answer.line == _line("# w used here")


def test_integer_dtype():
    n = torch.tensor([1, 2, 3])
    answer = explain_grad(n)
    assert answer.reason == "integer_dtype"
    assert "int64" in answer.message
    with pytest.raises(RuntimeError):
        n.requires_grad_()
    flags = torch.tensor([True, False])
    assert explain_grad(flags).reason == "integer_dtype"


def test_every_leaf_without_requires_grad():
    a = torch.ones(2)
    b = torch.full((2,), 3.0)
    c = a * b  # from a and b
    answer = explain_grad(c)
    assert answer.reason == "leaves_no_requires_grad"
    assert answer.line == _line("# from a and b")
    assert "a, b" in answer.message


def test_created_without_requires_grad():
    x = torch.randn(3)  # no requires_grad
    answer = explain_grad(x)
    assert answer.reason == "requires_grad_false"
    assert answer.line == _line("# no requires_grad")


def test_not_on_the_path_of_backward():
    w = torch.tensor([1.0], requires_grad=True)
    unused = torch.tensor([2.0], requires_grad=True)
    (w * 3).sum().backward()  # backward
    answer = explain_grad(unused)
    assert answer.reason == "not_on_path"
    assert answer.line == _line("# backward")

    def program(t):
        w = t.tensor([1.0], requires_grad=True)
        unused = t.tensor([2.0], requires_grad=True)
        (w * 3).sum().backward()
        return unused.grad

    assert _torch_grad(program) is None


def test_set_to_none_by_zero_grad():
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(1, 2)).sum().backward()
    optimizer.zero_grad()  # resets
    weight = model.weight
    answer = explain_grad(weight)
    assert answer.reason == "zero_grad"
    assert answer.line == _line("# resets")


def test_zeroed_in_place_by_zero_grad_set_to_none_false():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    optimizer.zero_grad(set_to_none=False)  # zeroes
    answer = explain_grad(w)
    assert answer.reason == "zeroed"
    assert answer.line == _line("# zeroes")


def test_backward_not_run_yet(monkeypatch):
    monkeypatch.setattr(_record, "last_backward", {})
    w = torch.tensor([1.0], requires_grad=True)
    (w * 2).sum()
    answer = explain_grad(w)
    assert answer.reason == "backward_not_run"


def test_graph_built_after_the_last_backward():
    old = torch.tensor([1.0], requires_grad=True)
    (old * 2).sum().backward()
    w = torch.tensor([1.0], requires_grad=True)
    loss = (w * 5).sum()
    answer = explain_grad(w)
    assert answer.reason == "backward_not_run"
    assert "`loss`" in answer.message


def test_autograd_grad_does_not_write_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (dw,) = torch.autograd.grad((w * w).sum(), w)  # returns it
    answer = explain_grad(w)
    assert answer.reason == "autograd_grad"
    assert answer.line == _line("# returns it")
    assert w.grad is None and dw is not None


def test_excluded_by_backward_inputs():
    w = torch.tensor([1.0], requires_grad=True)
    v = torch.tensor([2.0], requires_grad=True)
    (w * v).sum().backward(inputs=[v])  # only v
    answer = explain_grad(w)
    assert answer.reason == "inputs_excluded"
    assert answer.line == _line("# only v")

    def program(t):
        w = t.tensor([1.0], requires_grad=True)
        v = t.tensor([2.0], requires_grad=True)
        (w * v).sum().backward(inputs=[v])
        return w.grad

    assert _torch_grad(program) is None


def test_hook_returning_zeros():
    w = torch.tensor([1.0, 2.0], requires_grad=True)

    def silence(grad):
        return grad * 0

    w.register_hook(silence)
    (w * 3).sum().backward()
    answer = explain_grad(w)
    assert answer.reason == "hook_zero"
    assert "silence" in answer.message

    def program(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        w.register_hook(lambda g: g * 0)
        (w * 3).sum().backward()
        return w.grad.tolist()

    assert _torch_grad(program) == [0.0, 0.0]


def test_zero_gradient_through_relu():
    w = torch.tensor([-1.0, -2.0], requires_grad=True)
    out = torch.relu(w).sum()
    out.backward()
    answer = explain_grad(w)
    assert answer.reason == "zero_values"
    assert "ReluBackward0" in answer.message


def test_a_grad_that_is_set():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * 3).sum().backward()  # fills it
    answer = explain_grad(w)
    assert answer.reason == "has_grad"
    assert "tensor([3., 3.])" in answer.message
    assert answer.line == _line("# fills it")
    assert str(answer) == answer.message == repr(answer)


def test_bad_argument():
    with pytest.raises(TypeError, match="expects a Tensor"):
        explain_grad([1.0])
