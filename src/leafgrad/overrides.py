"""``torch.overrides``: the ``__torch_function__`` protocol.

A class that defines ``__torch_function__`` (a Tensor subclass, or any "tensor-like" class)
takes over every public leafgrad function and Tensor method it is passed to, as in torch:
``leafgrad.mean(d)`` calls ``type(d).__torch_function__(leafgrad.mean, types, (d,), {})``.
``Tensor.__torch_function__`` (the default every subclass inherits) runs the function with
subclass dispatch off and returns its tensors as instances of the subclass; ``Parameter`` and
leafgrad's own subclasses opt out with ``_disabled_torch_function_impl``.

How leafgrad pays for it: nothing until the protocol is switched on, which defining a Tensor
subclass that takes part, entering a ``TorchFunctionMode`` or calling one of this module's
functions does (``_activate``). Then the namespaces' functions (``leafgrad.*``,
``nn.functional``, ``linalg``, ``fft``, ``special``, ``functional``) and Tensor's methods,
operators and properties are wrapped, once: a wrapper looks at its arguments' types (a set
lookup each for tensors and numbers) and calls the function directly unless one overrides.

Where leafgrad differs from torch: a tensor-like class that is not a Tensor subclass (the
docs' ``ScalarTensor``) is dispatched to once the protocol is on, or when a function it is
passed to fails and goes through one of leafgrad's argument wrappers
(``dispatch_after_failure``: most of the namespace's functions; the protocol is then on).
torch checks every call in C++; a Python wrapper around every function would cost every
program a frame per call and move the line its warnings point at. Functions bound before that (``from leafgrad import
add``) keep the unwrapped function. Once on, a warning raised inside a wrapped function with a
fixed ``stacklevel`` may point at this module's frame instead of the caller's line.
"""

from __future__ import annotations

import functools
import threading
import types as _types
import warnings

__all__ = ["BaseTorchFunctionMode", "TorchFunctionMode", "enable_reentrant_dispatch",
           "get_default_nowrap_functions", "get_ignored_functions", "get_overridable_functions",
           "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property",
           "resolve_name", "wrap_torch_function"]


class _State(threading.local):
    """Per thread, as torch's: the disabling contexts' depths and the mode stack. (Whether
    the functions are wrapped is the process's: ``_wrapped``.)"""

    def __init__(self):
        self.subclass_disabled = 0  # DisableTorchFunctionSubclass depth
        self.all_disabled = 0  # DisableTorchFunction depth
        self.modes: list = []  # the TorchFunctionMode stack, innermost last


class _Wrapped:
    methods_wrapped = False


_state = _State()
_wrapped = _Wrapped()


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The ``__torch_function__`` of classes that opt out (``Parameter``): their instances are
    dispatched as plain tensors; called directly, it runs ``func`` with subclass dispatch off."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


class DisableTorchFunctionSubclass:
    """``torch._C.DisableTorchFunctionSubclass``: Tensor subclasses' ``__torch_function__`` is
    not called inside (modes and other tensor-likes still are)."""

    def __enter__(self):
        _state.subclass_disabled += 1
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _state.subclass_disabled -= 1
        return False


class DisableTorchFunction:
    """``torch._C.DisableTorchFunction``: no ``__torch_function__`` and no mode is called."""

    def __enter__(self):
        _state.all_disabled += 1
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _state.all_disabled -= 1
        return False


def _tensor_class():
    from .tensor import Tensor

    return Tensor


_PLAIN: set = set()  # types that never override: numbers, None, strings, dtypes, plain Tensor


def _plain_types() -> set:
    from . import _dtype, _device
    from .nn.parameter import Buffer, Parameter

    return {_tensor_class(), Parameter, Buffer, int, float, bool, complex, str, type(None),
            _dtype.dtype, _device.device, slice, type(Ellipsis)}


def _overrides(obj) -> bool:
    """Whether ``obj`` takes part in dispatch now (its type's ``__torch_function__`` is not
    the disabled one, and subclass dispatch is on if it is a Tensor)."""
    if not _PLAIN:
        _PLAIN.update(_plain_types())
    kind = type(obj)
    if kind in _PLAIN:
        return False
    method = getattr(kind, "__torch_function__", None)
    if method is None or getattr(method, "__func__", method) is _disabled_torch_function_impl:
        return False
    if _state.subclass_disabled and isinstance(obj, _tensor_class()):
        return False
    return not _foreign_tensor(kind)


def _foreign_tensor(kind) -> bool:
    """A torch tensor (or a subclass of one) handed to leafgrad, as in ``from_dlpack``: its
    ``__torch_function__`` would call the leafgrad function again (torch's own guard is not
    leafgrad's), so it takes no part here."""
    return any(klass.__name__ in ("Tensor", "TensorBase") and klass.__module__ in (
        "torch", "torch._C") for klass in kind.__mro__)


def _relevant(args, kwargs) -> list:
    """The arguments (and the elements of list and tuple arguments) that override."""
    found = []
    for value in args:
        kind = type(value)
        if kind in _PLAIN:
            continue
        if kind is list or kind is tuple:
            found.extend(item for item in value if _overrides(item))
        elif _overrides(value):
            found.append(value)
    if kwargs:
        for value in kwargs.values():
            kind = type(value)
            if kind in _PLAIN:
                continue
            if kind is list or kind is tuple:
                found.extend(item for item in value if _overrides(item))
            elif _overrides(value):
                found.append(value)
    return found


def _get_overloaded_args(relevant_args, plain_tensors: bool = False) -> list:
    """One argument per overriding type, subclasses before their superclasses, else in order.
    ``plain_tensors``: plain Tensors count too (torch's Python-level dispatch: a mode then sees
    ``types == (Tensor,)``; its C++ functions leave them out)."""
    overloaded_types: set = set()
    overloaded_args: list = []
    flat = []
    for arg in relevant_args:
        if type(arg) is list or type(arg) is tuple:
            flat.extend(arg)
        else:
            flat.append(arg)
    Tensor = _tensor_class()
    for arg in flat:
        kind = type(arg)
        if kind in overloaded_types or not (_overrides(arg) or plain_tensors and kind is Tensor):
            continue
        overloaded_types.add(kind)
        index = len(overloaded_args)
        for i, old in enumerate(overloaded_args):
            if issubclass(kind, type(old)):
                index = i
                break
        overloaded_args.insert(index, arg)
    return overloaded_args


def _convert(result, cls):
    """``Tensor.__torch_function__``'s results as ``cls`` (tuples and lists element-wise)."""
    Tensor = _tensor_class()
    if cls is Tensor:
        return result
    if isinstance(result, Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)):
        items = [_convert(item, cls) for item in result]
        make = getattr(type(result), "_make", None)  # (a named tuple of results)
        return make(items) if make is not None else type(result)(items)
    return result


def has_torch_function(relevant_args) -> bool:
    """Whether any of ``relevant_args`` overrides, or a mode is active."""
    _activate()
    if _state.all_disabled:
        return False
    return bool(_state.modes) or any(_overrides(arg) for arg in relevant_args)


def has_torch_function_unary(obj) -> bool:
    return has_torch_function((obj,))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def is_tensor_like(inp) -> bool:
    """A Tensor, or an object whose type defines ``__torch_function__``."""
    return type(inp) is _tensor_class() or hasattr(inp, "__torch_function__")


class TorchFunctionMode:
    """Intercepts every leafgrad function and Tensor method called inside ``with mode:``
    (innermost mode first; while it runs, the mode is off)."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _activate()
        _state.modes.append(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _state.modes.remove(self)
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just "
                      "`with Mode()`", stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def enable_reentrant_dispatch():
    """A context manager that changes nothing here (torch's re-entrant dispatch guard)."""
    import contextlib

    return contextlib.nullcontext()


def _api_name(public_api) -> str:
    name = getattr(public_api, "_torch_function_name", None)
    if name is not None:
        return name
    return f"{getattr(public_api, '__module__', '')}.{getattr(public_api, '__name__', '')}"


_PLAIN_METHOD_WARNED = [False]


def _plain_method_warns(builtin: bool) -> bool:
    """torch's C++ dispatch warns of a plain-method __torch_function__ once per process
    (TORCH_WARN_ONCE, every time under set_warn_always); its Python one every time."""
    if not builtin:
        return True
    from ._info import is_warn_always_enabled

    if is_warn_always_enabled():  # (torch's warn-always path leaves the once-flag alone)
        return True
    if _PLAIN_METHOD_WARNED[0]:
        return False
    _PLAIN_METHOD_WARNED[0] = True
    return True


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the innermost mode, then each overriding argument's ``__torch_function__``, until
    one returns something other than ``NotImplemented``; torch's TypeError if none does."""
    return _dispatch(public_api, relevant_args, args, kwargs)


def _dispatch(public_api, relevant_args, args, kwargs, plain=None):
    """handle_torch_function's work; ``plain``: whether plain Tensors count in ``types``
    (Note: types for plain-tensor methods), when not ``public_api``'s own (an operator torch
    writes in Python dispatching as a C method: ``x ** 2`` as Tensor.pow, with Tensor in
    types)."""
    _activate()
    builtin = getattr(public_api, "_torch_function_builtin", False)
    if plain is None:
        plain = not builtin or getattr(public_api, "_torch_function_plain_types", False)
    overloaded_args = _get_overloaded_args(relevant_args, plain_tensors=plain)
    types = tuple(map(type, overloaded_args))
    if _state.modes and not _state.all_disabled:
        mode = _state.modes.pop()
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            _state.modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded_args:
        method = arg.__torch_function__
        if getattr(method, "__self__", None) is arg and _plain_method_warns(builtin):
            warnings.warn("Defining your `__torch_function__` as a plain method is deprecated "
                          "and will be an error in future, please define it as a classmethod.",
                          UserWarning if builtin else DeprecationWarning, stacklevel=3)
        result = method(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = _api_name(public_api)
    if builtin:
        raise TypeError(
            f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
            "NotImplemented:\n\n" + "".join(
                f"  - tensor subclass {type(arg)}\n" for arg in overloaded_args)
            + "\nFor more information, try re-running with TORCH_LOGS=not_implemented")
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {[type(arg) for arg in overloaded_args]}")


class _Dispatcher:
    """A namespace function behind a check of its arguments (see the module doc). It compares
    and hashes equal to the function it wraps, so a table keyed by ``torch.mean`` before the
    protocol was switched on (the docs' HANDLED_FUNCTIONS) still finds the ``func`` a handler
    receives; it pickles by its published name and binds as a method as a function does."""

    def __init__(self, function, name: str, builtin: bool):
        functools.update_wrapper(self, function)
        self._torch_function_wrapped = function
        self._torch_function_name = name
        self._torch_function_builtin = builtin

    _torch_function_mode_only = False  # (a factory: seen by modes, overridden by no argument)

    def __call__(self, *args, **kwargs):
        if _state.modes or not self._torch_function_mode_only and _relevant(args, kwargs):
            if not _state.all_disabled:
                public = self
                if not self._torch_function_builtin:
                    args, kwargs = self._python_call_form(args, kwargs)
                    if self._with_indices is not None and kwargs.get("return_indices"):
                        public = self._with_indices  # (torch's boolean_dispatch)
                return handle_torch_function(public, args + tuple(kwargs.values()), *args,
                                             **kwargs)
        return self._torch_function_wrapped(*args, **kwargs)

    _signature = None
    _with_indices = None  # F.max_pool2d & co.: what dispatches when return_indices=True

    def _python_call_form(self, args: tuple, kwargs: dict):
        """The arguments as torch's Python functions hand them to handle_torch_function: the
        parameters without a default positional, every parameter with one by keyword, in the
        signature's order (``F.relu(x)`` dispatches as ``relu(x, inplace=False)``,
        ``F.max_pool2d(x, 2)`` with stride=None ... return_indices=False). Unchanged when
        the call does not bind or the signature takes ``*args``/``**kwargs``."""
        import inspect

        signature = self._signature
        if signature is None:
            try:
                signature = inspect.signature(self._torch_function_wrapped)
            except (TypeError, ValueError):
                signature = False
            if signature and any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                                 for p in signature.parameters.values()):
                signature = False
            self._signature = signature
        if not signature:
            return args, kwargs
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return args, kwargs
        bound.apply_defaults()
        positional, keywords = [], {}
        for name, param in signature.parameters.items():
            if param.kind is param.POSITIONAL_ONLY or param.default is param.empty and \
                    param.kind is not param.KEYWORD_ONLY:
                positional.append(bound.arguments[name])
            else:
                keywords[name] = bound.arguments[name]
        return tuple(positional), keywords

    def __eq__(self, other):
        return other is self or other is self._torch_function_wrapped

    def __hash__(self):
        return hash(self._torch_function_wrapped)

    def __reduce__(self):
        return self.__qualname__

    def __get__(self, instance, owner=None):
        return self if instance is None else _types.MethodType(self, instance)

    def __repr__(self):
        return repr(self._torch_function_wrapped)


def _dispatch_wrapper(function, name: str, builtin: bool):
    return _Dispatcher(function, name, builtin)


NOT_DISPATCHED = object()


def dispatch_after_failure(public, args, kwargs):
    """Called by leafgrad's argument wrappers (``_out``, ``_numpy_aliases``, ``_argparse``)
    when a namespace function raised: if an argument is a tensor-like object (not a Tensor)
    that overrides, switch the protocol on and dispatch the call to it, as torch would have
    before running anything; else ``NOT_DISPATCHED`` (the error stands). This is how a
    tensor-like class alone (the docs' ScalarTensor) reaches its ``__torch_function__``
    without every call paying for a check (see the module doc)."""
    Tensor = _tensor_class()
    found = False
    for value in (*args, *kwargs.values()):
        items = value if type(value) is list or type(value) is tuple else (value,)
        if any(not isinstance(item, Tensor) and _overrides(item) for item in items):
            found = True
            break
    if not found:
        return NOT_DISPATCHED
    _activate()
    wrapper = _WRAPPER_OF.get(id(public))
    if wrapper is None or wrapper._torch_function_wrapped is not public:
        return NOT_DISPATCHED  # (an inner layer: the namespace's function dispatches)
    return handle_torch_function(wrapper, args + tuple(kwargs.values()), *args, **kwargs)


# torch.nn.functional's functions that are C++ builtins in torch 2.13 (their dispatch error is
# the C++ one, named torch.nn.<name>); the rest are Python functions
_F_BUILTINS = frozenset({
    "adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "bilinear", "celu_",
    "channel_shuffle", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "cosine_similarity", "elu_", "gelu", "hardshrink",
    "hardtanh_", "leaky_relu_", "linear", "logsigmoid", "native_channel_shuffle", "one_hot",
    "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_",
    "rrelu_", "scaled_dot_product_attention", "selu_", "softplus", "softshrink",
    "threshold_"})

# nn.functional's functions that torch writes without a dispatch of their own: their body's
# Tensor method dispatches (F.sigmoid(x) reaches a mode, or fx, as Tensor.sigmoid)
_F_NOT_DISPATCHED = frozenset({"sigmoid", "tanh"})

# functions that take no part (as torch's get_ignored_functions: factories without tensor
# arguments, global state, the protocol itself)
_IGNORED_NAMES = frozenset({
    "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "get_default_dtype",
    "set_default_dtype", "get_default_device", "set_default_device", "set_default_tensor_type",
    "set_printoptions", "set_grad_enabled", "is_grad_enabled", "no_grad", "enable_grad",
    "inference_mode", "is_inference_mode_enabled", "set_num_threads", "get_num_threads",
    "set_num_interop_threads", "get_num_interop_threads", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "set_warn_always", "is_warn_always_enabled",
    "compile", "load", "save", "from_numpy", "frombuffer", "tensor", "as_tensor", "asarray",
    "zeros", "ones", "empty", "full", "eye", "arange", "range", "linspace", "logspace", "rand",
    "randn", "randint", "randperm", "empty_strided", "tril_indices", "triu_indices",
    "is_tensor", "is_storage", "typename", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "has_torch_function", "has_torch_function_unary",
    "has_torch_function_variadic", "handle_torch_function", "is_tensor_like",
    "get_device_module", "is_anomaly_enabled", "set_anomaly_enabled",
    "hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window",
    "sym_int", "sym_float", "vmap", "cond", "promote_types", "result_type", "can_cast",
    "set_flush_denormal", "is_nonzero", "stack_trace", "finfo", "iinfo"})

# of those, the ones torch's argument parser reads: no argument overrides them, but an active
# TorchFunctionMode sees the call (``torch.ones(2)`` under a mode reaches it as ``ones``)
_MODE_ONLY_NAMES = frozenset({
    "tensor", "as_tensor", "asarray", "zeros", "ones", "empty", "full", "eye", "arange",
    "linspace", "logspace", "rand", "randn", "randint", "randperm", "empty_strided",
    "tril_indices", "triu_indices", "hann_window", "hamming_window", "bartlett_window",
    "blackman_window", "kaiser_window", "promote_types", "result_type", "can_cast",
    "is_nonzero", "sym_int", "sym_float"})

# torch's top-level functions written in Python (torch.functional's, torch._lowrank's): they
# dispatch with their call form filled in and are named in their module (torch.functional.split)
_TORCH_PYTHON_FUNCTIONS = {name: "functional" for name in (
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
    "broadcast_tensors", "cartesian_prod", "cdist", "chain_matmul", "einsum", "lu", "meshgrid",
    "norm", "split", "stft", "tensordot", "unique", "unique_consecutive", "unravel_index")}
_TORCH_PYTHON_FUNCTIONS.update(pca_lowrank="_lowrank", svd_lowrank="_lowrank")

_WRAPPED_MODULES = {}  # module -> (prefix for messages, builtin rule)
_WRAPPER_OF: dict = {}  # id(a namespace function) -> its dispatch wrapper (once switched on)


def _install_functions() -> None:
    """Wrap the public functions of leafgrad's namespaces (once, at import)."""
    import leafgrad
    import leafgrad.functional

    namespaces = [(leafgrad, "torch", lambda name: True),
                  (leafgrad.nn.functional, "torch.nn.functional", None),
                  (leafgrad.linalg, "torch.linalg", lambda name: True),
                  (leafgrad.fft, "torch.fft", lambda name: True),
                  (leafgrad.special, "torch.special", lambda name: True),
                  (leafgrad.functional, "torch.functional", lambda name: False)]
    wrappers = _WRAPPER_OF  # id(function) -> its wrapper: one per function, in every namespace
    for module, prefix, builtin_rule in namespaces:
        namespace = vars(module)
        for name, value in list(namespace.items()):
            mode_only = module is leafgrad and name in _MODE_ONLY_NAMES
            if name.startswith("_") or name in _IGNORED_NAMES and not mode_only or \
                    builtin_rule is None and name in _F_NOT_DISPATCHED or \
                    type(value) is not _types.FunctionType or \
                    getattr(value, "_torch_function_wrapped", None) is not None:
                continue
            known = wrappers.get(id(value))
            if known is not None and known._torch_function_wrapped is value and not (
                    builtin_rule is None and name not in _F_BUILTINS):
                namespace[name] = known
                continue
            python_home = _TORCH_PYTHON_FUNCTIONS.get(name) if module is leafgrad else None
            if python_home is not None:
                builtin, message_name = False, f"torch.{python_home}.{name}"
            elif builtin_rule is None:
                builtin = name in _F_BUILTINS
                message_name = f"torch.nn.{name}" if builtin else f"{prefix}.{name}"
            elif not builtin_rule(name):
                builtin, message_name = False, f"{prefix}.{name}"
            else:
                builtin = True
                short = {"torch.linalg": "linalg_", "torch.fft": "fft_",
                         "torch.special": "special_"}.get(prefix, "")
                message_name = f"{prefix}.{short}{name}"
            wrapper = _dispatch_wrapper(value, message_name, builtin)
            wrapper._torch_function_mode_only = mode_only
            # found where it is published (pickle looks a function up by these)
            wrapper.__module__, wrapper.__qualname__ = module.__name__, name
            if python_home == "functional":  # (published there too: pickle finds it)
                wrapper.__module__ = "leafgrad.functional"
            namespace[name] = wrapper
            # (nn.functional's Python functions get wrappers of their own, named there, as
            # torch's are other objects than torch.max_pool2d & co.; the first one found is
            # the function's wrapper for dispatch_after_failure)
            wrappers.setdefault(id(value), wrapper)
        if builtin_rule is None:  # (torch's boolean_dispatch: F.max_pool2d(return_indices=
            # True) dispatches as F.max_pool2d_with_indices)
            for name, value in namespace.items():
                paired = namespace.get(name + "_with_indices")
                if type(value) is _Dispatcher and type(paired) is _Dispatcher:
                    value._with_indices = paired
        _WRAPPED_MODULES[module] = prefix


# -- Tensor's methods, operators and properties -------------------------------------------------

_METHOD_DUNDERS = frozenset({
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
    "__imul__", "__matmul__", "__rmatmul__", "__imatmul__", "__truediv__", "__rtruediv__",
    "__itruediv__", "__floordiv__", "__rfloordiv__", "__ifloordiv__", "__mod__", "__rmod__",
    "__imod__", "__pow__", "__rpow__", "__ipow__", "__and__", "__rand__", "__iand__", "__or__",
    "__ror__", "__ior__", "__xor__", "__rxor__", "__ixor__", "__lshift__", "__rlshift__",
    "__ilshift__", "__rshift__", "__rrshift__", "__irshift__", "__eq__", "__ne__", "__lt__",
    "__le__", "__gt__", "__ge__", "__neg__", "__pos__", "__abs__", "__invert__", "__getitem__",
    "__setitem__", "__len__", "__reversed__", "__contains__", "__bool__", "__float__",
    "__int__", "__index__", "__complex__", "__repr__", "__format__", "__deepcopy__",
    "__reduce_ex__", "__array__", "__dlpack__", "__dlpack_device__"})
# (__iter__ and __hash__ take no part: torch's iterates with dim() and unbind(), and hashes by
# identity)

# operators torch dispatches as the method they call (``x + 1`` as Tensor.add)
_DUNDER_AS = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
              "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
              "__truediv__": "div", "__itruediv__": "div_", "__mod__": "remainder",
              "__pow__": "pow", "__ipow__": "pow_", "__matmul__": "matmul", "__neg__": "neg",
              "__abs__": "abs", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
              "__ne__": "ne", "__ifloordiv__": "floor_divide_", "__imod__": "remainder_",
              "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor",
              "__pos__": "positive"}

_IGNORED_METHODS = frozenset({"as_subclass", "__torch_function__", "data_ptr"})

# binary operators whose dispatch turns a TypeError into NotImplemented (torch's
# TypeError_to_NotImplemented_ and _handle_torch_function_and_wrap_type_error_to_not_implemented),
# so that Python tries the reflected operator and then raises "unsupported operand type(s)"
_BINARY_DUNDERS = frozenset(
    f"__{prefix}{operator}__" for prefix in ("", "r", "i") for operator in (
        "add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
        "lshift", "rshift")) | {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}


# Note: types for plain-tensor methods
# torch passes ``types`` with the plain Tensor class in it (where it is otherwise left out) for
# the methods it dispatches on ``self`` alone: its C methods of no argument (exp, neg, t,
# item...; and the operators calling them, -x, abs(x)), new/new_tensor, and the methods written
# in Python (backward, norm, split, unique, stft, register_hook, storage...). Measured on torch
# 2.13 under a TorchFunctionMode.
_PLAIN_TYPED_METHODS = frozenset("""
    abs abs_ absolute absolute_ acos acos_ acosh acosh_ adjoint angle arccos arccos_ arccosh
    arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan_ arctanh arctanh_ argwhere asin
    asin_ asinh asinh_ atan atan_ atanh atanh_ backward bitwise_not bitwise_not_ ccol_indices
    ceil ceil_ coalesce col_indices conj conj_physical conj_physical_ const_data_ptr corrcoef
    cos cos_ cosh cosh_ crow_indices data_ptr deg2rad deg2rad_ dense_dim dequantize det detach
    detach_ digamma digamma_ dim dim_order element_size erf erf_ erfc erfc_ erfinv erfinv_ exp
    exp2 exp2_ exp_ expm1 expm1_ fix fix_ fliplr flipud floor floor_ frac frac_ frexp geqrf
    get_device i0 i0_ indices int_repr inverse is_coalesced is_complex is_conj is_distributed
    is_floating_point is_inference is_neg is_nonzero is_shared is_signed isfinite isinf isnan
    isneginf isposinf isreal istft item lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_
    log_ logdet logical_not logical_not_ matrix_exp module_load msort ndimension neg neg_
    negative negative_ nelement new new_tensor norm numel positive q_per_channel_axis
    q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qscheme rad2deg
    rad2deg_ ravel reciprocal reciprocal_ register_hook register_post_accumulate_grad_hook relu
    relu_ resize resize_as resolve_conj resolve_neg retain_grad row_indices rsqrt rsqrt_ sgn
    sgn_ share_memory_ sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_
    slogdet sparse_dim split sqrt sqrt_ square square_ stft storage storage_offset storage_type
    t t_ tan tan_ tanh tanh_ tolist trace trunc trunc_ unflatten unique unique_consecutive
    untyped_storage values zero_
""".split()) | frozenset({
    "__array__", "__contains__", "__deepcopy__", "__dlpack__", "__dlpack_device__",
    "__floordiv__", "__format__", "__invert__", "__ipow__", "__len__", "__pow__", "__rdiv__", "__rtruediv__",
    "__reduce_ex__", "__repr__", "__reversed__", "__rfloordiv__", "__rlshift__", "__rmatmul__",
    "__rmod__", "__rpow__", "__rrshift__", "__rsub__"})  # (torch's dunders written in Python)

def _method_wrapper(function, name: str, public=None):
    """``function`` (a Tensor method) behind the dispatch check; ``public``: the method torch
    names as the function for an operator (``Tensor.add`` for ``__add__``)."""

    binary = name in _BINARY_DUNDERS
    public_name = name if public is None else _DUNDER_AS[name]
    plain = name in _PLAIN_TYPED_METHODS or public_name in _PLAIN_TYPED_METHODS

    @functools.wraps(function)
    def method(self, *args, **kwargs):
        if _state.modes or _overrides(self) or _relevant(args, kwargs):
            if not _state.all_disabled:
                try:
                    return _dispatch(method if public is None else public,
                                     (self,) + args + tuple(kwargs.values()),
                                     (self,) + args, kwargs, plain)
                except TypeError:
                    if binary:
                        return NotImplemented
                    raise
        return function(self, *args, **kwargs)

    method._torch_function_name = f"torch.Tensor.{name}"
    method._torch_function_builtin = True
    method._torch_function_plain_types = plain
    method._torch_function_wrapped = function
    return method


class _DispatchedProperty(property):
    """A Tensor property whose getter and setter take part in dispatch (torch passes
    ``Tensor.grad.__get__`` / ``__set__`` as the function)."""

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if (_state.modes or _overrides(instance)) and not _state.all_disabled:
            return handle_torch_function(self.__get__, (instance,), instance)
        return property.__get__(self, instance, owner)

    def __set__(self, instance, value):
        if (_state.modes or _overrides(instance) or _overrides(value)) and \
                not _state.all_disabled:
            return handle_torch_function(self.__set__, (instance, value), instance, value)
        return property.__set__(self, instance, value)


def _activate() -> None:
    """Wrap the namespaces' functions and Tensor's methods, operators and properties (once:
    see the module doc)."""
    if _wrapped.methods_wrapped:
        return
    _wrapped.methods_wrapped = True
    _install_functions()
    Tensor = _tensor_class()
    operators = []
    for klass in Tensor.__mro__:
        if klass is object:
            continue
        for name, value in list(vars(klass).items()):
            if name in _IGNORED_METHODS or name.startswith("_") and name not in _METHOD_DUNDERS:
                continue
            current = getattr(Tensor, name, None)
            if current is not value and name in vars(Tensor):
                continue  # (overridden further down the MRO: that one is wrapped)
            if type(value) is _types.FunctionType:
                if name not in _DUNDER_AS:
                    setattr(Tensor, name, _method_wrapper(value, name))
                else:
                    operators.append((name, value))
            elif type(value) is property:
                replacement = _DispatchedProperty(value.fget, value.fset, value.fdel,
                                                  value.__doc__)
                replacement._torch_function_wrapped = value
                setattr(Tensor, name, replacement)
    for name, value in operators:  # (after the methods they dispatch as)
        setattr(Tensor, name, _method_wrapper(value, name, getattr(Tensor, _DUNDER_AS[name])))
    if "__rtruediv__" in vars(Tensor):
        Tensor.__rtruediv__.__name__ = "__rdiv__"  # (the name torch's function has)
    Tensor.__str__ = Tensor.__repr__  # (print dispatches as __repr__)


def _deactivate() -> None:
    """Undo ``_activate`` (for tests, which must not leave the protocol on for the next)."""
    if not _wrapped.methods_wrapped:
        return
    Tensor = _tensor_class()
    for name, value in list(vars(Tensor).items()):
        original = getattr(value, "_torch_function_wrapped", None)
        if original is not None:
            setattr(Tensor, name, original)
    Tensor.__str__ = Tensor.__repr__
    for module in _WRAPPED_MODULES:
        namespace = vars(module)
        for name, value in list(namespace.items()):
            original = getattr(value, "_torch_function_wrapped", None)
            if original is not None and type(value) is _Dispatcher:
                namespace[name] = original
    _WRAPPED_MODULES.clear()
    _WRAPPER_OF.clear()
    _wrapped.methods_wrapped = False


def _on_subclass(cls) -> None:
    """Tensor.__init_subclass__: a subclass that takes part switches method dispatch on."""
    method = getattr(cls, "__torch_function__", None)
    if cls.__module__ == "leafgrad" or cls.__module__.startswith("leafgrad."):
        return  # (leafgrad's own: sparse, batched, parameters; they are dispatched as tensors)
    if method is not None and getattr(method, "__func__", method) is not \
            _disabled_torch_function_impl:
        _activate()


# -- introspection -------------------------------------------------------------------------------

def get_default_nowrap_functions() -> set:
    """Functions whose results ``Tensor.__torch_function__`` returns unconverted."""
    Tensor = _tensor_class()
    return {Tensor.grad.__get__, Tensor._base.__get__} if hasattr(Tensor, "_base") else {
        Tensor.grad.__get__}


def get_ignored_functions() -> set:
    import leafgrad

    return {getattr(leafgrad, name) for name in _IGNORED_NAMES if hasattr(leafgrad, name)}


def get_overridable_functions() -> dict:
    """``{namespace: [function, ...]}`` of the functions that take part."""
    _activate()
    out: dict = {}
    for module in _WRAPPED_MODULES:
        out[module] = [value for value in vars(module).values()
                       if getattr(value, "_torch_function_wrapped", None) is not None
                       and not getattr(value, "_torch_function_mode_only", False)]
    Tensor = _tensor_class()
    out[Tensor] = [value for name, value in vars(Tensor).items()
                   if callable(value) and not name.startswith("_")]
    return out


def is_tensor_method_or_property(func) -> bool:
    Tensor = _tensor_class()
    name = getattr(func, "__name__", None)
    return name is not None and (getattr(Tensor, name, None) is func or
                                 name == "__get__")


def resolve_name(f):
    """``torch.add`` for leafgrad.add, ``torch.Tensor.add`` for a method, else None."""
    name = getattr(f, "_torch_function_name", None)
    if name is not None:
        return name.replace("torch.nn.", "torch.nn.functional.") if name.startswith(
            "torch.nn.") and not name.startswith("torch.nn.functional.") else name.replace(
            "linalg.linalg_", "linalg.").replace("fft.fft_", "fft.").replace(
            "special.special_", "special.")
    return None


def wrap_torch_function(dispatcher):
    """A decorator making a Python function take part in dispatch: ``dispatcher(*args,
    **kwargs)`` returns its relevant arguments."""

    _activate()

    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner
