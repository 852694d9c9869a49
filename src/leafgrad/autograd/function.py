"""User-defined ops with torch's ``autograd.Function`` shape (``ctx``, ``save_for_backward``).

>>> class Cube(leafgrad.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, grad):
...         (x,) = ctx.saved_tensors
...         return 3 * x ** 2 * grad
>>> y = Cube.apply(leafgrad.tensor(2., requires_grad=True))
>>> y.grad_fn
<leafgrad.autograd.function.CubeBackward object at 0x...>

Both of torch's styles work: ``forward(ctx, *args)``, or ``forward(*args)`` with
``setup_context(ctx, inputs, output)``. ``jvp(ctx, *tangents)`` gives forward mode
(``ctx.save_for_forward``). The rules torch applies to the outputs (inputs returned as views,
``mark_dirty``, ``mark_non_differentiable``) are in ``_function_outputs.py``.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any

from .grad_mode import is_grad_enabled, no_grad
from .graph import Node, SavedTensor

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


from ._vmap_state import state as _vmap_state


class FunctionCtx:
    """What ``forward`` (or ``setup_context``), ``backward`` and ``jvp`` share; also the node in
    the graph (as in torch)."""

    def save_for_backward(self, *tensors) -> None:
        """Tensors (or None) for ``backward``, read back as ``ctx.saved_tensors``."""
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Tensors (or None) for ``jvp``, read back there as ``ctx.saved_tensors``."""
        from ..tensor import Tensor

        for tensor in tensors:
            assert isinstance(tensor, Tensor) or tensor is None, (
                "save_for_forward expects all arguments to be tensors; you should save "
                "non-tensors as attributes on ctx."
            )
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare inputs ``forward`` modified in place (they must be returned)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs that never require grad (their gradient in backward is zero)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """False: ``backward`` gets None, not zeros, for outputs without a gradient."""
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function; one subclass per Function, named ``<Function>Backward``."""

    _forward_cls: Any = None
    _in_jvp = False

    # torch's PyNode calls ``backward`` even when no gradient arrived (a Function returned
    # None, a hook replaced one with None): zeros for them, or None without materialize_grads
    runs_without_grads = True

    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp:  # inside jvp: what save_for_forward kept
            return tuple(getattr(self, "saved_for_forward", ()))
        saved = self._saved
        if saved is None:
            from .graph import FREED_MESSAGE

            raise RuntimeError(FREED_MESSAGE)
        once = getattr(self._forward_cls, "clear_saved_tensors_on_access", False)
        if once and "tensors" in saved and saved["tensors"] is None:
            raise RuntimeError(
                "saved_tensors can only be accessed once when clear_saved_tensors_on_access="
                "True is set on the autograd.Function. Either access saved_tensors only once, "
                "or set clear_saved_tensors_on_access=False.")
        tensors = tuple(
            item.unpack(self) if isinstance(item, SavedTensor) else item
            for item in saved.get("tensors", ())
        )
        if once and "tensors" in saved:  # torch's option: the node lets go of them here
            saved["tensors"] = None
        batched = getattr(self, "_vmap_saved", None)
        if batched is not None:  # saved by a Function's generated vmap rule: batched again
            from ..ops._batching import wrap

            tensors = tuple(wrap(t, levels) if levels else t
                            for t, levels in zip(tensors, batched))
        return tensors

    @property
    def _raw_saved_tensors(self) -> tuple:
        """torch's SavedTensor objects of ``save_for_backward``, one per value saved."""
        from .graph import FREED_MESSAGE
        from .graph_hooks import raw_saved

        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        return tuple(raw_saved(self, ("tensors", index))
                     for index in range(len(saved.get("tensors") or ())))

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    @property
    def needs_input_grad(self) -> tuple:
        return self._needs_input_grad

    def __repr__(self) -> str:
        # a Python class in torch too: the default repr, with its module (none for the built-in
        # nodes leafgrad writes as Functions: LinalgMatrixExpBackward0, GeqrfBackward0, ...)
        cls = type(self)
        if cls.__module__ == "builtins":
            return f"<{cls.__qualname__} object at {id(self):#x}>"
        return f"<{cls.__module__}.{cls.__qualname__} object at {id(self):#x}>"

    def _apply(self, grads: list) -> tuple:
        from ._function_outputs import materialized, checked_input_grads

        grads = list(grads) + [None] * (len(self._output_meta) - len(grads))
        if getattr(self, "materialize_grads", True):
            grads = materialized(grads, self._output_meta)
        results = self._user_backward()(self, *grads)
        if not isinstance(results, tuple):
            results = (results,)
        return checked_input_grads(self, results)

    def _user_backward(self):
        cls = self._forward_cls
        backward, vjp = cls.backward, cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        return vjp if vjp is not Function.vjp else backward


class FunctionMeta(type):
    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})


class Function(metaclass=FunctionMeta):
    """Subclass with static ``forward`` and ``backward`` (and optionally ``setup_context`` and
    ``jvp``); call ``apply``."""

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward  # torch's alias: a Function defines one of the two

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        from . import forward_ad
        from ._function_outputs import forward_mode, wrap_outputs

        uses_setup_context = cls.setup_context is not Function.setup_context
        backward_cls = cls._backward_cls
        if _vmap_state.stack and not cls.__module__.startswith("leafgrad."):
            backward_cls = _under_transforms(cls, uses_setup_context, kwargs)
        if uses_setup_context:
            # torch binds keyword and default arguments to forward's positional ones
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            # (keyword-only arguments are dropped, as torch's bind_default_args does, except
            # under torch.func transforms, where a Function's vmap rule gets them)
            args, kwargs = bound.args, bound.kwargs if _vmap_state.stack else {}
        if _vmap_state.active and _has_batched(args):
            from ..ops._batching_function import function_apply

            return function_apply(cls, args, uses_setup_context, kwargs)
        node = backward_cls.__new__(backward_cls)
        Node.__init__(node)
        node._needs_input_grad = tuple(_requires_grad(a) for a in args)
        dual = forward_ad.state.active
        forward_ad.state.active = False  # forward and setup_context see plain values
        try:
            with no_grad():
                if uses_setup_context:
                    outputs = cls.forward(*args)
                    cls.setup_context(node, args, outputs)
                    _check_saved_returned_inputs(node, args, outputs)
                else:
                    outputs = cls.forward(node, *args, **kwargs)
            result = wrap_outputs(cls, node, args, outputs)
            if dual:
                forward_mode(cls, node, args, result)
        finally:
            forward_ad.state.active = dual
        return result


def _has_batched(args) -> bool:
    """Whether an argument, or an item of a list or tuple argument, is batched (vmap)."""
    for arg in args:
        if type(arg) in (list, tuple):
            if _has_batched(arg):
                return True
        elif type(arg).__name__ == "BatchedTensor":
            return True
    return False


def _under_transforms(cls, uses_setup_context: bool, kwargs: dict):
    """The node class of ``cls.apply`` inside torch.func transforms, after torch's checks: torch
    runs there a Function it generates from ``cls``, ``<Name>Generated``, whose node is
    ``<Name>GeneratedBackward``."""
    from ..tensor import Tensor

    if not uses_setup_context:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. For more details, "
            "please see https://pytorch.org/docs/main/notes/extending.func.html")
    if _vmap_state.levels:
        from ..ops._batching_function import check_vmap_support

        check_vmap_support(cls)  # (before any argument is known to be batched, as torch)
    if _vmap_state.levels and any(isinstance(value, Tensor) for value in kwargs.values()):
        raise NotImplementedError(
            "Run vmap on autograd.Function with kwarg-only Tensor args. Please do not pass "
            f"kwarg-only Tensors to autograd.Function. Got: {kwargs}")
    generated = cls.__dict__.get("_generated_cls")
    if generated is None:  # (a subclass: its node class is made by FunctionMeta)
        generated = type(cls.__name__ + "Generated", (cls,), {"__module__": cls.__module__})
        type.__setattr__(cls, "_generated_cls", generated)
    return generated._backward_cls


def _check_saved_returned_inputs(node, args: tuple, outputs) -> None:
    """torch refuses, when setup_context is overridden, to save an input that forward returned
    as is (unless marked dirty): saved, it would be the output, whose history is the node."""
    from ..tensor import Tensor

    returned = {id(out) for out in (outputs if isinstance(outputs, tuple) else (outputs,))
                if isinstance(out, Tensor)}
    inputs = {id(arg) for arg in args if isinstance(arg, Tensor)}
    dirty = {id(t) for t in getattr(node, "dirty_tensors", ()) or ()}
    saved = tuple(getattr(node, "to_save", ()) or ()) + tuple(
        getattr(node, "saved_for_forward", ()) or ())
    for tensor in saved:
        if isinstance(tensor, Tensor) and id(tensor) in inputs and id(tensor) in returned \
                and id(tensor) not in dirty:
            raise RuntimeError(
                "An input that has been returned as-is as output is being saved for backward. "
                "This is not supported if you override setup_context. You should return and "
                "save a view of the input instead, e.g. with x.view_as(x) or setup ctx inside "
                "the forward function itself.")


def _requires_grad(value) -> bool:
    from ..tensor import Tensor

    return isinstance(value, Tensor) and value._requires_grad


def once_differentiable(fn):
    """Run ``backward`` without recording; differentiating its result again raises torch's
    error, when (and only when) that is attempted."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from ._function_outputs import delayed_error

        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled() or not any(_requires_grad(arg) for arg in args):
            return outputs
        return delayed_error(outputs, "trying to differentiate twice a function that was marked "
                                      "with @once_differentiable")

    return wrapper
