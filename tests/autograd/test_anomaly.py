"""Anomaly detection against torch 2.13: the same programs under both libraries, compared.

Observed: the mode's flags, the warnings (category, text; the forward tracebacks compared frame
by frame over the user's frames, since torch also lists its own Python frames and appends
"(Triggered internally at ...)"), node metadata, and errors (type, first line). Then leafgrad's
addition: the in-place error names the line that modified the saved tensor.
"""

from __future__ import annotations

import re
import threading
import warnings

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

PROGRAMS = {}


def program(function):
    PROGRAMS[function.__name__] = function
    return function


def _clean_text(text: str) -> str:
    """A warning's text without library frames, without the frames above the program (the
    runner and pytest, which differ between the two runs) and without torch's C++ suffix."""
    text = re.sub(r" \(Triggered internally at [^)]*\)$", "", text.rstrip())
    header, frames = [], []  # frames: [File line, source lines...]
    for line in text.split("\n"):
        if line.startswith('  File "'):
            frames.append([line])
        elif frames and (line.startswith("    ") or not line.strip()):
            frames[-1].append(line)  # (torch's traces hold blank lines from pytest's frames)
        else:
            header.append(line)
    for index, frame in enumerate(frames):
        if any(line.strip() == "prog(lib, note)" for line in frame[1:]):
            frames = frames[index + 1:]
            break
    kept = [
        line for frame in frames
        if "site-packages/torch/" not in frame[0] and "/src/leafgrad/" not in frame[0]
        for line in frame
    ]
    return "\n".join(header + kept).replace("torch.", "leafgrad.").rstrip()


def _clean_traceback(frames):
    return _clean_text("".join(frames)) if frames is not None else None


def _observe(prog, lib):
    seen = []

    def note(thunk):
        try:
            value = thunk()
        except Exception as error:  # noqa: BLE001 - the exception is the observation
            first = str(error).splitlines()[0] if str(error) else ""
            seen.append(("raised", type(error).__name__, first.replace("torch.", "leafgrad.")))
            return None
        seen.append(value)
        return value

    previous = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            prog(lib, note)
    finally:
        lib.set_anomaly_enabled(*previous)
    for warning in caught:
        if issubclass(warning.category, DeprecationWarning):
            continue
        seen.append(("warning", warning.category.__name__, _clean_text(str(warning.message))))
    return seen


# -- switching the mode ----------------------------------------------------------------------------


@program
def flags(lib, note):
    ad = lib.autograd
    note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    lib.set_anomaly_enabled(True)
    note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    lib.set_anomaly_enabled(False, False)
    note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    lib.set_anomaly_enabled(enabled=True, check_nan=False)
    note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    note(lambda: lib.set_anomaly_enabled())
    note(lambda: lib.set_anomaly_enabled(1))
    note(lambda: lib.set_anomaly_enabled("yes"))
    note(lambda: lib.set_anomaly_enabled(True, 1))
    note(lambda: lib.set_anomaly_enabled(None))
    lib.set_anomaly_enabled(False)
    setter = ad.set_detect_anomaly(True)  # a function call that sets the mode
    note(lambda: (type(setter).__name__, lib.is_anomaly_enabled()))
    with ad.set_detect_anomaly(False, check_nan=False):  # and a context manager that restores
        note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    note(lambda: ad.set_detect_anomaly(0))
    lib.set_anomaly_enabled(False)
    with ad.detect_anomaly(check_nan=False) as entered:
        note(lambda: (entered, lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        with ad.detect_anomaly():
            note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    note(lambda: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))


@program
def warning_when_made_not_when_entered(lib, note):
    manager = lib.autograd.detect_anomaly()  # the warning is emitted here
    note(lambda: lib.is_anomaly_enabled())
    with manager:
        note(lambda: lib.is_anomaly_enabled())


@program
def not_a_decorator(lib, note):
    # torch 2.13's detect_anomaly object is not callable, so it cannot decorate a function
    note(lambda: lib.autograd.detect_anomaly()(lambda: None))


@program
def metadata_holds_the_forward_traceback(lib, note):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    before = x.exp()
    note(lambda: before.grad_fn.metadata)
    with lib.autograd.detect_anomaly():
        y = x.exp()
        z = y * 2
    note(lambda: sorted(y.grad_fn.metadata))
    note(lambda: _clean_traceback(y.grad_fn.metadata["traceback_"]))
    note(lambda: _clean_traceback(z.grad_fn.metadata["traceback_"]))


# -- errors in backward ----------------------------------------------------------------------------


def _raising_function(lib):
    class Boom(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("boom")

    return Boom


def _run_boom(lib, x):
    return _raising_function(lib).apply(x)


@program
def error_in_backward(lib, note):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.autograd.detect_anomaly():
        out = _run_boom(lib, x * 3)
        note(lambda: out.sum().backward())
    note(lambda: x.grad)


@program
def error_in_backward_without_anomaly(lib, note):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out = _run_boom(lib, x * 3)
    note(lambda: out.sum().backward())


@program
def error_in_a_hook(lib, note):
    with lib.autograd.detect_anomaly(check_nan=False):
        x = lib.tensor([1.0, 1.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: 1 / 0)
        note(lambda: y.sum().backward())


@program
def node_made_before_anomaly_mode(lib, note):
    x = lib.tensor([-1.0, 1.0], requires_grad=True)
    y = x.sqrt()
    with lib.autograd.detect_anomaly():
        note(lambda: y.sum().backward())


# -- nan checks ------------------------------------------------------------------------------------


@program
def nan_in_output_0(lib, note):
    with lib.autograd.detect_anomaly():
        x = lib.tensor([-1.0, 1.0], requires_grad=True)
        note(lambda: x.sqrt().sum().backward())
        note(lambda: x.grad)
        y = x.abs().sqrt()
        note(lambda: lib.autograd.grad(y, x, lib.tensor([float("nan"), 1.0])))


@program
def nan_in_output_1(lib, note):
    with lib.autograd.detect_anomaly():
        a = lib.tensor([1.0, 0.0], requires_grad=True)
        b = lib.tensor([0.0, 0.0], requires_grad=True)
        note(lambda: (a / b).sum().backward())


@program
def nan_float64_and_autograd_grad(lib, note):
    with lib.autograd.detect_anomaly():
        a = lib.tensor([1.0, 0.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.0, 0.0], dtype=lib.float64)
        note(lambda: lib.autograd.grad((b * a.log()).sum(), a))


@program
def nan_not_checked_when_off(lib, note):
    with lib.autograd.detect_anomaly(check_nan=False):
        x = lib.tensor([-1.0, 1.0], requires_grad=True)
        x.sqrt().sum().backward()
        note(lambda: [str(v) for v in x.grad.tolist()])
    x = lib.tensor([-1.0, 1.0], requires_grad=True)
    lib.autograd.set_detect_anomaly(True, check_nan=False)
    x.sqrt().sum().backward()
    note(lambda: [str(v) for v in x.grad.tolist()])
    lib.autograd.set_detect_anomaly(False)
    x.grad = None
    x.sqrt().sum().backward()  # anomaly mode off: no check at all
    note(lambda: [str(v) for v in x.grad.tolist()])


@program
def nan_from_a_custom_function(lib, note):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return grad * float("nan")

    with lib.autograd.detect_anomaly():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = Bad.apply(x ** 2)
        note(lambda: z.sum().backward())


@program
def double_backward_names_the_parent(lib, note):
    with lib.autograd.detect_anomaly():
        x = lib.tensor([0.0], requires_grad=True)
        y = x.sqrt()
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        note(lambda: sorted(g.grad_fn.metadata))
        note(lambda: g.grad_fn.metadata["parent_"] is y.grad_fn)
        note(lambda: _clean_traceback(g.grad_fn.metadata["traceback_"]))
        note(lambda: (g * 0).sum().backward())


@program
def error_in_a_backward_run_inside_a_backward(lib, note):
    """A Function's backward runs its own backward, which fails: both nodes are reported, and
    the inner graph's node names the outer node as the one that induced it."""
    class Outer(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            with lib.enable_grad():
                inner = x.detach().requires_grad_()
                (g,) = lib.autograd.grad((inner - 2).sqrt().sum(), inner)
            return grad * g

    with lib.autograd.detect_anomaly():
        x = lib.tensor([1.0], requires_grad=True)
        out = Outer.apply(x)
        note(lambda: out.sum().backward())


# -- in-place modification -------------------------------------------------------------------------


@program
def modified_in_place(lib, note):
    with lib.autograd.detect_anomaly():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        note(lambda: y.sum().backward())
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    note(lambda: y.sum().backward())  # outside the mode: torch's other hint


def test_inplace_error_names_the_modifying_line():
    """Beyond torch: the error's second line is the user line that bumped the version."""
    with pytest.warns(UserWarning):
        with leafgrad.autograd.detect_anomaly():
            x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
            w = leafgrad.tensor([3.0, 4.0], requires_grad=True)
            y = x * w
            w.data.mul_(1)  # .data writes do not bump the version: not the culprit
            x.detach().add_(1)  # marker: the write
            with pytest.raises(RuntimeError) as info:
                y.sum().backward()
    lines = str(info.value).splitlines()
    assert lines[0].startswith("one of the variables needed for gradient computation")
    assert "Good luck!" in lines[0]
    assert len(lines) == 2
    assert __file__ in lines[1] and "x.detach().add_(1)  # marker: the write" in lines[1]
    assert "moved it to version 1" in lines[1]


def test_inplace_error_without_a_noted_write_keeps_torchs_message():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)  # written while the mode was off: nothing noted
    with pytest.warns(UserWarning):
        with leafgrad.autograd.detect_anomaly():
            with pytest.raises(RuntimeError) as info:
                y.sum().backward()
    assert len(str(info.value).splitlines()) == 1


# -- cost when off, threads ------------------------------------------------------------------------


def test_off_records_nothing():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    assert y.grad_fn._hookset is None  # no metadata made per node
    assert len(y._vc) == 1  # no write noted


def test_errors_warn_on_the_thread_that_runs_backward():
    """The mode is process-wide (as torch's); a backward on another thread warns there too."""
    caught = []

    def work():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            x = leafgrad.tensor([-1.0], requires_grad=True)
            try:
                x.sqrt().sum().backward()
            except RuntimeError as error:
                caught.append(str(error))
            caught.extend(str(w.message).splitlines()[0] for w in seen)

    with pytest.warns(UserWarning):
        with leafgrad.autograd.detect_anomaly():
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()
    assert caught == [
        "Function 'SqrtBackward0' returned nan values in its 0th output.",
        "Error detected in SqrtBackward0. Traceback of forward call that caused the error:",
    ]


def test_namespace():
    for name in ("is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled"):
        assert callable(getattr(leafgrad, name))
    for name in ("detect_anomaly", "set_detect_anomaly"):
        assert getattr(leafgrad.autograd, name) is getattr(leafgrad.autograd.anomaly_mode, name)
    assert leafgrad.autograd.anomaly_mode.__all__ == torch.autograd.anomaly_mode.__all__


# Last: the parametrisation reads PROGRAMS, filled by the definitions above.
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_torch(name):
    ours = _observe(PROGRAMS[name], leafgrad)
    theirs = _observe(PROGRAMS[name], torch)
    assert ours == theirs
