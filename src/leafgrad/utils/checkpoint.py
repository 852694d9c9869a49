"""``leafgrad.utils.checkpoint``: trade compute for memory, as ``torch.utils.checkpoint``.

A checkpointed function keeps none of the tensors its ops save for backward; the backward runs
the function again to get them. Gradients are those of the plain function, and random ops draw
the same numbers on recomputation (the generator's state is saved and restored).

>>> import leafgrad
>>> from leafgrad.utils.checkpoint import checkpoint
>>> x = leafgrad.ones(3, requires_grad=True)
>>> y = checkpoint(lambda t: (t.sin() * 2).sum(), x, use_reentrant=False)
>>> y.backward()
>>> x.grad
tensor([1.0806, 1.0806, 1.0806])

Two variants, as torch's:
- non-reentrant (``use_reentrant=False``, recommended): built on ``saved_tensors_hooks``. The
  forward records the graph as usual but every saved tensor is replaced by a placeholder; the
  first unpack in a backward recomputes the function under hooks that collect the saved
  tensors in order (stopping as soon as all are there, unless early stop is off), checks them
  against what the forward saved, and hands each out once.
- reentrant (``use_reentrant=True``, the default when it is not given, with torch's warning):
  an ``autograd.Function`` that runs the function under ``no_grad`` and, in its backward, runs
  it again with grad enabled and calls ``autograd.backward`` inside the outer backward.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Callable, Iterable

from .. import _rng as _random
from ..autograd import engine as _engine
from ..autograd.function import Function
from ..autograd.graph_hooks import saved_tensors_hooks
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..tensor import Tensor

__all__ = [
    "checkpoint",
    "checkpoint_sequential",
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "detach_variable",
    "get_device_states",
    "set_device_states",
    "noop_context_fn",
    "set_checkpoint_early_stop",
    "DefaultDeviceType",
    "set_checkpoint_debug_enabled",
]

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.
"""

_early_stop_override: bool | None = None
_debug_override: bool | None = None


class CheckpointError(RuntimeError):
    """A recomputation did not save what the original forward saved."""


def noop_context_fn():
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Whether non-reentrant checkpoints made inside stop recomputing once every saved tensor
    is recomputed (default True); applies to their backward even if it runs outside."""
    global _early_stop_override
    previous = _early_stop_override
    _early_stop_override = enable
    try:
        yield
    finally:
        _early_stop_override = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Override every checkpoint's ``debug`` argument inside (None: no override)."""
    global _debug_override
    previous = _debug_override
    _debug_override = enabled
    try:
        yield
    finally:
        _debug_override = previous


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad``; others unchanged."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    detached = []
    for item in inputs:
        if isinstance(item, Tensor):
            copy = item.detach()
            copy.requires_grad = item.requires_grad
            item = copy
        detached.append(item)
    return tuple(detached)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(item.requires_grad for item in inputs if isinstance(item, Tensor)):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )


def get_device_states(*args) -> tuple[list, list]:
    """Accelerator RNG states of the arguments' devices: none, leafgrad runs on the CPU."""
    return [], []


def set_device_states(devices, states, *, device_type=None) -> None:
    if list(devices) or list(states):
        raise RuntimeError("leafgrad has no accelerator devices")


class DefaultDeviceType:
    """The device type whose RNG state checkpoint saves besides the CPU's ('cpu' here)."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        return DefaultDeviceType._default_device_type or "cpu"


@contextlib.contextmanager
def _rng_as_at_forward(state, enabled: bool):
    """Run with the generator state the forward started from; restore the caller's after."""
    if not enabled:
        yield
        return
    callers = _random.get_rng_state()
    _random.set_rng_state(state)
    try:
        yield
    finally:
        _random.set_rng_state(callers)


def _autocast_kwargs() -> dict:
    """The CPU autocast state a recomputation runs under: the one the forward ran under."""
    from ..amp import autocast_mode

    return {"enabled": autocast_mode.is_autocast_enabled("cpu"),
            "dtype": autocast_mode.get_autocast_dtype("cpu"),
            "cache_enabled": autocast_mode.is_autocast_cache_enabled()}


def _autocast_as_at_forward(kwargs: dict):
    from ..amp import autocast_mode

    return autocast_mode.autocast("cpu", **kwargs)


# -- reentrant ------------------------------------------------------------------------------------
class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _random.get_rng_state()
        ctx.cpu_autocast_kwargs = _autocast_kwargs()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for index, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors.append(arg)
                ctx.tensor_indices.append(index)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        task = _engine.current_task()
        if task is not None and task.partial:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with _rng_as_at_forward(getattr(ctx, "fwd_cpu_state", None), ctx.preserve_rng_state):
            detached = detach_variable(tuple(inputs))
            with enable_grad(), _autocast_as_at_forward(ctx.cpu_autocast_kwargs):
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        with_grad = []
        their_grads = []
        for output, grad in zip(outputs, grads):
            if isinstance(output, Tensor) and output.requires_grad:
                with_grad.append(output)
                their_grads.append(grad)
        if not with_grad:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        from ..autograd import backward

        backward(with_grad, their_grads)
        return (None, None) + tuple(
            item.grad if isinstance(item, Tensor) else None for item in detached
        )


# -- non-reentrant --------------------------------------------------------------------------------
class _StopRecomputation(Exception):
    """Raised from the recomputation's pack hook once every saved tensor is back."""


class _Placeholder:
    """What the forward keeps instead of a saved tensor: its position among the saves."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def _metadata(tensor) -> dict:
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


class _Frame:
    """One checkpointed call: what its forward saved and, per backward, the recomputed values."""

    def __init__(self, recompute: Callable, early_stop: bool, check: bool):
        self.recompute = recompute
        self.early_stop = early_stop
        self.check = check
        self.metadata: list = []  # per saved tensor, in save order
        self.recomputed: dict = {}  # backward id -> {index: tensor or None once handed out}
        # False while the checkpointed forward runs: a backward inside it (autograd.grad in
        # the function) recomputes a forward that saves more than was saved so far (torch
        # keeps the extra values out and skips the count check then)
        self.forward_completed = False

    # the forward's hooks
    def pack(self, tensor) -> _Placeholder:
        self.metadata.append(_metadata(tensor) if self.check else None)
        return _Placeholder(len(self.metadata) - 1)

    def unpack(self, placeholder: _Placeholder):
        task = _engine.current_task()
        key = -1 if task is None else task.id
        values = self.recomputed.get(key)
        if values is None:
            values = self.recomputed[key] = self._run_again()
        index = placeholder.index
        value = values.get(index)
        if value is None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                "unpacked once. If you are calling ctx.saved_tensors in backward, make sure to do "
                "so only once. Otherwise please open an issue with details on your use case."
            )
        values[index] = None
        return value

    # the recomputation
    def _run_again(self) -> dict:
        values: dict = {}
        expected = len(self.metadata)

        extra = []

        def collect(tensor):
            if len(values) >= expected:
                if not self.forward_completed:
                    extra.append(True)
                    return tensor.detach() if tensor.requires_grad else tensor
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    f"than during the original forward pass.\n{_DEBUG_TIP}"
                )
            value = tensor.detach() if tensor.requires_grad else tensor
            values[len(values)] = value
            if self.early_stop and len(values) == expected:
                raise _StopRecomputation
            # kept by the recomputed graph too: a backward inside the recomputed function
            # (torch.autograd.grad in a checkpointed region, nested checkpoints) runs it
            return value

        try:
            with saved_tensors_hooks(collect, _as_packed), enable_grad():
                self.recompute()
        except _StopRecomputation:
            pass
        if len(values) != expected and not extra:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {expected}\n"
                f"Number of tensors saved during recomputation: {len(values)}.\n{_DEBUG_TIP}"
            )
        if self.check:
            different = ""
            for index, saved in enumerate(self.metadata):
                now = _metadata(values[index])
                if now != saved:
                    different += (
                        f"tensor at position {index}:\nsaved metadata: {saved}\n"
                        f"recomputed metadata: {now}\n"
                    )
            if different:
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have "
                    f"different metadata than during the forward pass.\n{different}.\n{_DEBUG_TIP}"
                )
        return values


def _as_packed(packed):
    return packed


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check,
                                  debug, early_stop, args, kwargs):
    if _debug_override if _debug_override is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in ("default", "none"):
        raise ValueError(
            "determinism_check should be one of ['default', 'none'], but got "
            f"{determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    if not is_grad_enabled():
        with forward_context:
            return function(*args, **kwargs)
    state = _random.get_rng_state() if preserve_rng_state else None
    autocast_kwargs = _autocast_kwargs()

    def recompute():
        with _rng_as_at_forward(state, preserve_rng_state), \
                _autocast_as_at_forward(autocast_kwargs), recompute_context:
            function(*args, **kwargs)

    frame = _Frame(
        recompute,
        _early_stop_override if _early_stop_override is not None else early_stop,
        determinism_check == "default",
    )
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        result = function(*args, **kwargs)
    frame.forward_completed = True
    return result


def checkpoint(function, *args, use_reentrant: bool | None = None,
               context_fn: Callable = noop_context_fn, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, **kwargs):
    """``function(*args, **kwargs)`` without keeping what its ops save for backward; the
    backward recomputes it. Pass ``use_reentrant=False`` (recommended) or ``True``."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         debug, early_stop, args, kwargs)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None,
                          **kwargs):
    """Run ``functions`` (a list or ``nn.Sequential``) in ``segments`` chunks, checkpointing
    all but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start: int, end: int):
        def forward(value):
            for index in range(start, end + 1):
                value = functions[index](value)
            return value

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
