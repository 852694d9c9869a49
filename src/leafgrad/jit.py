"""``torch.jit`` for code written against it: scripting and tracing that run as Python.

leafgrad has no TorchScript compiler. ``script`` and ``trace`` return objects that behave as
torch's do when called (same results, same parameters shared with the original module, torch's
printed form ``RecursiveScriptModule(original_name=Linear)`` / ``Linear(original_name=Linear)``,
``.save()``), but they run the original Python: data-dependent control flow keeps working
in a trace (torch freezes the branch it saw), and ``.code`` shows the Python source rather than
TorchScript. For a static graph of a training step see ``leafgrad.compile``.

``save``/``load`` store the module with pickle, as ``leafgrad.save(..., weights_only=False)``
would: load only files you trust. TorchScript archives written by torch cannot be run and are
refused with an error that says so.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import textwrap
import typing
import warnings
import zipfile

from .nn.modules.module import Module

__all__ = [
    "Attribute", "Error", "Final", "Future", "RecursiveScriptModule", "ScriptFunction",
    "ScriptModule", "ScriptWarning", "TopLevelTracedModule", "TracedModule", "TracerWarning",
    "annotate", "enable_onednn_fusion", "export", "fork", "freeze", "fuser", "ignore",
    "interface", "is_scripting", "is_tracing", "isinstance", "load", "onednn_fusion_enabled",
    "optimize_for_inference", "optimized_execution", "save", "script", "script_if_tracing",
    "script_method", "set_fusion_strategy", "strict_fusion", "trace", "trace_module", "unused",
    "wait",
]

Final = typing.Final


class Error(RuntimeError):
    """torch.jit.Error (TorchScript's raise): a RuntimeError."""


class TracerWarning(Warning):
    pass


class ScriptWarning(Warning):
    pass


def _deprecated(name: str, instead: str = "Please switch to `torch.compile` or `torch.export`.",
                level: int = 2) -> None:
    """torch 2.13 deprecates TorchScript: each entry point warns (its message, word for
    word), from inside the library, so Python's default filters hide it as they hide
    torch's."""
    warnings.warn(f"`torch.jit.{name}` is deprecated. {instead}", DeprecationWarning,
                  stacklevel=level)


_USE_COMPILE = "Please use `torch.compile` instead."
_USE_EXPORT = "Please switch to `torch.export`."


# -- functions ---------------------------------------------------------------------------------


class ScriptFunction:
    """What ``script(fn)`` and ``trace(fn, inputs)`` return for a function: calls ``fn``."""

    def __init__(self, fn):
        self._fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    @property
    def code(self) -> str:
        """The function's Python source (torch shows its TorchScript translation)."""
        return textwrap.dedent(inspect.getsource(self._fn))

    def save(self, f, **kwargs) -> None:
        _save_object(self, f)

    def save_to_buffer(self, _extra_files=None) -> bytes:
        return _to_buffer(self)

    def __reduce__(self):  # (by a function: the class's printed name is not its path)
        return _script_function, (self._fn,)


def _script_function(fn) -> ScriptFunction:
    return ScriptFunction(fn)


# torch's objects print as "<torch.jit.torch.jit.ScriptFunction object at ...>" (the class's
# qualified name repeats its module); leafgrad's do the same with its own name.
ScriptFunction.__qualname__ = "leafgrad.jit.ScriptFunction"


# -- modules -----------------------------------------------------------------------------------


class ScriptModule(Module):
    """The base of scripted and traced modules (``isinstance(m, torch.jit.ScriptModule)``)."""


class _Converted:
    """Mixed into a copy of a module's class: torch's printed form and ``save``. The copy
    shares the original's parameters, buffers and submodules' tensors (as torch's does)."""

    _jit_kind = "script"
    _jit_original = ""

    def _get_name(self) -> str:
        return "RecursiveScriptModule" if self._jit_kind == "script" else self._jit_original

    def extra_repr(self) -> str:
        return f"original_name={self._jit_original}"

    @property
    def original_name(self) -> str:
        return self._jit_original

    @property
    def code(self) -> str:
        """``forward``'s Python source (torch shows its TorchScript translation)."""
        return textwrap.dedent(inspect.getsource(_ORIGINAL[type(self)].forward))

    def save(self, f, **kwargs) -> None:
        _save_object(self, f)

    def save_to_buffer(self, _extra_files=None) -> bytes:
        return _to_buffer(self)

    def __reduce_ex__(self, protocol):
        plain = _ORIGINAL[type(self)].__new__(_ORIGINAL[type(self)])
        plain.__dict__.update(self.__dict__)
        return _rebuild, (self._jit_kind, plain)


_CLASSES: dict = {}
_ORIGINAL: dict = {}


def _converted_class(cls, kind: str):
    key = (cls, kind)
    made = _CLASSES.get(key)
    if made is None:
        base = RecursiveScriptModule if kind == "script" else TopLevelTracedModule
        name = base.__name__
        made = type(name, (_Converted, base, cls), {
            "_jit_kind": kind, "_jit_original": cls.__name__, "__module__": __name__})
        _CLASSES[key] = made
        _ORIGINAL[made] = cls
    return made


def _convert(module: Module, kind: str) -> Module:
    if builtins.isinstance(module, _Converted):
        return module
    converted = _converted_class(type(module), kind).__new__(_converted_class(type(module), kind))
    state = dict(module.__dict__)
    for store in ("_parameters", "_buffers", "_non_persistent_buffers_set"):
        if store in state:
            state[store] = type(state[store])(state[store])
    if "_modules" in state:
        state["_modules"] = {name: None if child is None else _convert(child, kind)
                             for name, child in state["_modules"].items()}
    converted.__dict__.update(state)
    return converted


def _rebuild(kind: str, plain: Module) -> Module:
    return _convert(plain, kind)


class RecursiveScriptModule(ScriptModule):
    pass


class TracedModule(ScriptModule):
    pass


class TopLevelTracedModule(TracedModule):
    pass


# -- script and trace --------------------------------------------------------------------------


def _check_module_initialized(module: Module) -> None:
    """torch's check before scripting a module (and each submodule, outermost first): a lazy
    parameter or buffer that no forward has materialized yet is an error naming it."""
    from ._info import typename
    from .nn.parameter import UninitializedTensorMixin

    for kind, store in (("parameters", module._parameters), ("buffers", module._buffers)):
        for name, value in store.items():
            if builtins.isinstance(value, UninitializedTensorMixin):
                raise RuntimeError(f"'{typename(type(module))}' has uninitialized {kind} {name}. "
                                   "Did you forget to run a forward pass?")


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """``torch.jit.script``: a module becomes a ``RecursiveScriptModule`` sharing its
    parameters, a function a ``ScriptFunction``; a class is returned as it is. All run as
    Python (see the module docstring)."""
    _deprecated("script")
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with "
                      "torch.jit.optimized_execution()` instead", FutureWarning, stacklevel=2)
    if builtins.isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if builtins.isinstance(obj, Module):
        for module in obj.modules():
            _check_module_initialized(module)
        return _convert(obj, "script")
    if inspect.isclass(obj):
        return obj
    if callable(obj):
        return ScriptFunction(obj)
    raise RuntimeError(f"Type '{type(obj)}' cannot be compiled since it inherits from "
                       "nn.Module, pass in an instance instead")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """``torch.jit.trace``: runs ``func`` once on the example inputs (so bad inputs raise
    here, as in torch), then returns a module sharing its parameters (printed as torch's
    ``TopLevelTracedModule``) or a ``ScriptFunction``. The result keeps running the Python,
    branches included."""
    _deprecated("trace")
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs or example_inputs must be provided")
    if example_kwarg_inputs is not None:
        func(**example_kwarg_inputs)
    else:
        inputs = (example_inputs if builtins.isinstance(example_inputs, tuple)
                  else (example_inputs,))
        func(*inputs)
    if builtins.isinstance(func, Module):
        _deprecated("trace_method")  # (torch's trace goes through trace_module, which warns
        _deprecated("trace_method")  # twice; a function's trace warns twice as "trace")
        return _convert(func, "trace")
    _deprecated("trace")
    return ScriptFunction(func)


def trace_module(mod, inputs, **kwargs):
    """``torch.jit.trace_module``: ``inputs`` maps method names to example inputs."""
    _deprecated("trace_method")
    for name, example in inputs.items():
        args = example if builtins.isinstance(example, tuple) else (example,)
        getattr(mod, name)(*args)
    return _convert(mod, "trace")


def script_if_tracing(fn):
    return fn


def is_scripting() -> bool:
    """False: leafgrad's scripted code runs as Python."""
    return False


def is_tracing() -> bool:
    return False


def annotate(the_type, the_value):
    return the_value


def isinstance(obj, target_type) -> bool:  # noqa: A001 - torch.jit.isinstance
    origin = typing.get_origin(target_type)
    return builtins.isinstance(obj, origin if origin is not None else target_type)


def Attribute(value, type):  # noqa: A002,N802 - torch's name and signature
    """Outside TorchScript, torch.jit.Attribute gives back the value."""
    return value


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` / ``@torch.jit.ignore(drop=True)``: nothing to leave out here."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def script_method(fn):
    return fn


def interface(obj):
    _deprecated("interface", _USE_COMPILE)
    return obj


# -- futures -----------------------------------------------------------------------------------


class Future:
    """``torch.jit.fork``'s result: here the call has already run."""

    def __init__(self, value=None, error=None):
        self._value, self._error = value, error

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        return self.wait()

    def done(self) -> bool:
        return True


def fork(func, *args, **kwargs) -> Future:
    _deprecated("fork", _USE_COMPILE)
    try:
        return Future(func(*args, **kwargs))
    except Exception as error:  # raised by wait(), as torch's future does
        return Future(error=error)


def wait(future: Future):
    _deprecated("wait", _USE_COMPILE)
    return future.wait()


# -- optimisation switches (nothing to switch) -------------------------------------------------


def freeze(mod, preserved_attrs=None, optimize_numerics: bool = True):
    _deprecated("freeze", _USE_COMPILE)
    if not builtins.isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use "
                           "torch.jit.script or torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    _deprecated("optimize_for_inference", _USE_COMPILE)
    if not builtins.isinstance(mod, ScriptModule):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please use "
                           "torch.jit.script or torch.jit.trace to script your 'nn.Module'.")
    return freeze(mod.eval()) if mod.training else mod


@contextlib.contextmanager
def optimized_execution(should_optimize: bool):
    yield


@contextlib.contextmanager
def fuser(name: str):
    yield


@contextlib.contextmanager
def strict_fusion():
    yield


_FUSION_STRATEGY = [("STATIC", 2), ("DYNAMIC", 10)]


def set_fusion_strategy(strategy):
    global _FUSION_STRATEGY
    previous, _FUSION_STRATEGY = _FUSION_STRATEGY, list(strategy)
    return previous


_ONEDNN = [False]


def enable_onednn_fusion(enabled: bool) -> None:
    _ONEDNN[0] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    return _ONEDNN[0]


# -- save and load -----------------------------------------------------------------------------

_MARK = "leafgrad.jit"


def _save_object(obj, f) -> None:
    from .serialization import save as _save

    _save({_MARK: obj}, f)


def save(m, f, _extra_files=None) -> None:
    """``torch.jit.save``: ``m.save(f)`` for a path, ``m.save_to_buffer()`` written to a file
    object (a plain module has neither: AttributeError, as in torch). The file is a pickle of
    the module: load it with ``leafgrad.jit.load``."""
    import os

    _deprecated("save", _USE_EXPORT)
    if builtins.isinstance(f, (str, os.PathLike)):
        m.save(f)
    else:
        f.write(m.save_to_buffer())


def _to_buffer(obj) -> bytes:
    import io

    buffer = io.BytesIO()
    _save_object(obj, buffer)
    return buffer.getvalue()


def load(f, map_location=None, _extra_files=None, _restore_shapes=False, **kwargs):
    """Loads what ``leafgrad.jit.save`` wrote (a pickled module: only files you trust)."""
    from .serialization import load as _load

    _deprecated("load", _USE_EXPORT)
    kind = _archive_kind(f)
    if kind == "torchscript":
        raise RuntimeError("this file is a TorchScript archive written by torch.jit.save: "
                           "leafgrad cannot run TorchScript code; save the model's "
                           "state_dict() with torch.save and load it into the Python module")
    if kind != "leafgrad":  # (nothing else is unpickled: it could run any code)
        raise RuntimeError("PytorchStreamReader failed locating file constants.pkl: file not "
                           "found")
    return _load(f, map_location=map_location, weights_only=False)[_MARK]


def _archive_kind(f) -> str:
    """"torchscript" (torch.jit.save's archive), "leafgrad" (this module's save) or "other"."""
    position = f.tell() if hasattr(f, "tell") else None
    try:
        with zipfile.ZipFile(f) as archive:
            names = archive.namelist()
            if any(name.split("/", 2)[1:2] == ["code"] or name.endswith("/constants.pkl")
                   for name in names):
                return "torchscript"
            pickles = [name for name in names if name.endswith("/data.pkl")]
            if len(pickles) == 1 and _MARK.encode() in archive.read(pickles[0]):
                return "leafgrad"
            return "other"
    except (zipfile.BadZipFile, OSError, ValueError, TypeError):
        return "other"
    finally:
        if position is not None:
            f.seek(position)
