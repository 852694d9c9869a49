"""Grad mode: whether ops record the graph. Thread-local, as in torch.

Each switch is a context manager and a decorator::

    with leafgrad.no_grad():
        w -= 0.1 * w.grad

    @leafgrad.no_grad()
    def step(): ...
"""

from __future__ import annotations

import functools
import inspect
import threading

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "set_multithreading_enabled",
]


class _State(threading.local):
    # Class attributes are the defaults each new thread sees.
    grad_enabled = True
    inference = False
    grad_layout_enforced = True  # enforce_grad_layout_policy (Note: gradient layout contract)
    multithreading = True  # set_multithreading_enabled
    # an op's backward formula is running under create_graph: Tensor operators with a Python
    # number are C++'s there (ops/_cpp_operators.py)
    cpp_formula = False


state = _State()


def is_grad_enabled() -> bool:
    """True when ops record the graph (the default)."""
    return state.grad_enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return state.inference


class _Switch:
    """A context manager that is also a decorator (and works on generator functions)."""

    def __call__(self, func):
        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def generator(*args, **kwargs):
                # The mode holds while the generator's body runs, not while its caller
                # handles a yielded value (torch's behaviour).
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as error:
                            with self.clone():
                                response = gen.throw(error)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value

            return generator

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return type(self)()


class _NoParamSwitch(_Switch):
    """A switch without arguments, which torch also lets decorate bare: ``@no_grad``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamSwitch):
    """Ops inside record nothing: their results do not require grad."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = state.grad_enabled
        state.grad_enabled = False

    def __exit__(self, *exc) -> None:
        state.grad_enabled = self.prev


class enable_grad(_NoParamSwitch):
    """Turn recording back on inside a ``no_grad`` block."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = state.grad_enabled
        state.grad_enabled = True

    def __exit__(self, *exc) -> None:
        state.grad_enabled = self.prev


class set_grad_enabled(_Switch):
    """Set grad mode: takes effect at once when called, and is restored on leaving a ``with``."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(
                "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                f"{type(mode).__name__}"
            )
        self.prev = state.grad_enabled
        self.mode = mode
        state.grad_enabled = self.mode

    def __repr__(self) -> str:
        return f"{type(self).__module__}.{type(self).__qualname__}(mode={self.mode})"

    def __call__(self, func):
        # As a decorator, torch restores the mode set before the decorator was built.
        state.grad_enabled = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.grad_enabled = self.prev

    def clone(self):
        return type(self)(self.mode)


def is_multithreading_enabled() -> bool:
    """Whether multithreaded backwards are enabled in this thread (``set_multithreading_enabled``;
    torch's flag is thread-local too)."""
    return state.multithreading


class set_multithreading_enabled(_Switch):
    """Whether backward may run on per-device worker threads (torch's engine uses them only for
    accelerators; leafgrad's backward always runs on the calling thread, so the switch changes
    nothing but the thread-local flag ``torch._C._is_multithreading_enabled()`` reports). Takes
    effect when made, as ``set_grad_enabled``; restored on leaving a ``with``."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError("set_multithreading_enabled(): argument 'enabled' (position 1) must "
                            f"be bool, not {type(mode).__name__}")
        self.prev = state.multithreading
        self.mode = mode
        state.multithreading = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.multithreading = self.prev

    def clone(self):
        return type(self)(self.mode)


class enforce_grad_layout_policy(_Switch):
    """Whether AccumulateGrad keeps a leaf's first gradient only when its layout is the leaf's
    (Note: gradient layout contract, tensor.py); ``False`` lets it keep any gradient nobody
    else holds. Takes effect when made, as ``set_grad_enabled``; thread-local.

    >>> p = leafgrad.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
    >>> with leafgrad.autograd.enforce_grad_layout_policy(False):
    ...     (p * 2).sum().backward()
    >>> p.grad.stride()
    (6, 3, 1)
    """

    __module__ = "leafgrad.autograd.grad_mode"

    def __init__(self, enable: bool = True) -> None:
        self.prev = state.grad_layout_enforced
        state.grad_layout_enforced = bool(enable)
        self.mode = enable

    def __call__(self, func):
        state.grad_layout_enforced = self.prev  # as a decorator: restored, as torch
        return super().__call__(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.grad_layout_enforced = self.prev

    def clone(self):
        return type(self)(self.mode)


# How many inference_mode(True) blocks are open in all threads: tensor creation reads the
# thread-local flag only while this is non-zero, so tensors made outside any inference block
# pay one list lookup for the feature.
inference_blocks = [0]
# Whether an inference_mode(True) block was ever entered (inference tensors may exist): ops
# read it before looking for inference operands (Note: kernels' writes on inference operands,
# ops/registry.py).
inference_seen = [False]


class inference_mode(_Switch):
    """Like ``no_grad``; tensors made inside are inference tensors (``is_inference()``)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self.prev = (True, False)

    def __new__(cls, mode=True):
        # torch allows the bare decorator form ``@inference_mode``.
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self) -> None:
        self.prev = (state.grad_enabled, state.inference)
        if self.mode:
            state.grad_enabled = False
            state.inference = True
            inference_blocks[0] += 1
            inference_seen[0] = True
        else:
            state.inference = False

    def __exit__(self, *exc) -> None:
        state.grad_enabled, state.inference = self.prev
        if self.mode:
            inference_blocks[0] -= 1

    def clone(self):
        return type(self)(self.mode)
