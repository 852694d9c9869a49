"""``torch.library``: Python custom operators, as torch's custom-ops tutorial writes them.

>>> @leafgrad.library.custom_op("mylib::numpy_sin", mutates_args=())
... def numpy_sin(x: leafgrad.Tensor) -> leafgrad.Tensor:
...     return leafgrad.from_numpy(np.sin(x.numpy()))
>>> numpy_sin.register_autograd(backward, setup_context=setup_context)
>>> leafgrad.ops.mylib.numpy_sin(x)          # the same op, by its qualified name

The schema is inferred from the type annotations by torch's rules (``infer_schema``); the
function is the op's kernel and runs with gradients off. With an input that requires grad the
outputs hang from one ``GeneratedBackwardFor_<ns>_<name>_defaultBackward`` node whose backward
is the registered formula (without one, backward raises torch's error). Arguments named in
``mutates_args`` have their version counters bumped, as torch's dispatcher does. A fake
implementation (``register_fake``) is what the op runs on meta tensors. ``opcheck`` runs
leafgrad's versions of torch's checks: the schema's mutations and aliasing, the autograd
registration, the fake implementation against the kernel, and the gradients against finite
differences.

The older API declares an operator by a schema string and gives it kernels per dispatch key:
``Library(ns, "DEF").define("f(Tensor x, float k=2.0) -> Tensor")``, ``lib.impl("f", fn,
"CPU")`` (or ``torch.library.define``/``impl``). A "CompositeImplicitAutograd" kernel is
differentiated through; a "CPU" kernel without a registered formula gives outputs whose node
(torch's ``CppFunction``) warns at backward and passes no gradient, as torch's autograd
fallback does. Calls are checked against the schema with torch's messages.
"""

from __future__ import annotations

import collections.abc
import contextlib
import inspect
import sys
import typing
from types import GenericAlias

from . import _dtype
from .autograd.function import Function
from .autograd.grad_mode import is_grad_enabled, no_grad

__all__ = ["custom_op", "CustomOpDef", "infer_schema", "register_autograd", "register_fake",
           "register_kernel", "opcheck", "get_ctx"]

_UNKNOWN = "unknown"
_namespaces: dict = {}  # namespace -> _OpNamespace (leafgrad.ops.<namespace>)


# -- schema inference, by torch's rules ----------------------------------------------------------
def _parameter_types() -> dict:
    from .tensor import Tensor
    from ._device import device as device_type

    table: dict = {}

    def add(base, name: str, listed: bool, optional_items: bool, optional_list: bool):
        table[base] = name
        table[typing.Optional[base]] = f"{name}?"  # noqa: UP045 - the form torch accepts
        sequences = (lambda item: (typing.Sequence[item], typing.List[item],  # noqa: UP006
                                   GenericAlias(collections.abc.Sequence, (item,)),
                                   GenericAlias(list, (item,))))
        if listed:
            for kind in sequences(base):
                table[kind] = f"{name}[]"
        if optional_items:
            for kind in sequences(typing.Optional[base]):  # noqa: UP045
                table[kind] = f"{name}?[]"
        if optional_list:
            for kind in sequences(base):
                table[typing.Optional[kind]] = f"{name}[]?"  # noqa: UP045

    import numbers

    add(Tensor, "Tensor", True, True, False)
    add(int, "SymInt", True, False, True)
    add(float, "float", True, False, True)
    add(bool, "bool", True, False, True)
    add(str, "str", False, False, False)
    add(numbers.Number, "Scalar", True, False, False)
    add(_dtype.dtype, "ScalarType", False, False, False)
    add(device_type, "Device", False, False, False)
    return table


def _return_types() -> dict:
    import numbers

    from .tensor import Tensor

    return {Tensor: "Tensor", typing.List[Tensor]: "Tensor[]",  # noqa: UP006
            list[Tensor]: "Tensor[]", int: "SymInt", float: "float", bool: "bool",
            numbers.Number: "Scalar"}


def _resolve(annotation, function, fail):
    """An annotation given as a string (``from __future__ import annotations``) evaluated in
    the function's module, inside generics too."""
    if isinstance(annotation, str):
        try:
            return eval(annotation, getattr(function, "__globals__", {}))  # noqa: S307
        except NameError as error:
            fail(f"Unsupported type annotation {annotation}. It is not a type. ({error}). "
                 "If you are using 'from __future__ import annotations', note that annotations "
                 "are evaluated lazily as strings; make sure all types referenced in "
                 "annotations are importable at module scope, not only inside a local "
                 "function.")
        except Exception as error:  # noqa: BLE001 - reported as torch reports it
            fail(f"Unsupported type annotation {annotation}. It is not a type. "
                 f"({type(error).__name__}: {error})")
    origin = typing.get_origin(annotation)
    if origin is not None:
        arguments = typing.get_args(annotation)
        resolved = tuple(_resolve(a, function, fail) for a in arguments)
        if resolved != arguments:
            return GenericAlias(origin, resolved)
    return annotation


def _format_default(value, fail, name) -> str:
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)
    from ._device import device as device_type

    if isinstance(value, (str, device_type)):
        return f'"{value}"'
    if isinstance(value, _dtype.dtype):
        return str(value).split(".", 1)[1]
    fail(f"Parameter {name} has an unsupported default value type {type(value)}. Please file "
         "an issue on GitHub so we can prioritize this.")
    return ""


def infer_schema(prototype_function, /, *, mutates_args, op_name: str | None = None,
                 tags=None) -> str:
    """The operator schema torch infers from a function's annotations:
    ``"(Tensor x, *, float alpha=1.0) -> Tensor"``; mutated Tensor arguments are written
    ``Tensor(a<i>!)``."""
    signature = inspect.signature(prototype_function)
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def fail(what: str):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {signature})")

    supported = _parameter_types()
    params: list[str] = []
    seen = set()
    keyword_only_seen = False
    for index, (name, parameter) in enumerate(signature.parameters.items()):
        if parameter.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                  inspect.Parameter.KEYWORD_ONLY):
            fail("We do not support positional-only args, varargs, or varkwargs.")
        if parameter.kind == inspect.Parameter.KEYWORD_ONLY and not keyword_only_seen:
            params.append("*")
            keyword_only_seen = True
        if parameter.annotation is inspect.Parameter.empty:
            fail(f"Parameter {name} must have a type annotation.")
        annotation = _resolve(parameter.annotation, prototype_function, fail)
        schema_type = supported.get(annotation) if _hashable(annotation) else None
        if schema_type is None:
            if typing.get_origin(annotation) is tuple:
                listed = _tuple_as_list(annotation)
                example = (f"For example, {listed}.\n\n" if _hashable(listed)
                           and listed in supported else "\n\n")
                fail(f"Parameter {name} has unsupported type {parameter.annotation}. We do not "
                     "support Tuple inputs in schema. As a workaround, please try to use List "
                     f"instead. {example}The valid types are: {supported.keys()}.")
            fail(f"Parameter {name} has unsupported type {parameter.annotation}. The valid "
                 f"types are: {supported.keys()}.")
        if type(mutates_args) is str:
            if mutates_args != _UNKNOWN:
                raise ValueError("mutates_args must either be a sequence of the names of the "
                                 "arguments that are mutated or the string 'unknown'. ")
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{index}!){schema_type[len('Tensor'):]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                fail(f"Parameter {name} is in mutable_args but only Tensors or collections of "
                     "Tensors can be mutated")
            schema_type = f"Tensor(a{index}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        if parameter.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            params.append(f"{schema_type} {name}="
                          f"{_format_default(parameter.default, fail, name)}")
    if mutates_args != _UNKNOWN:
        missing = set(mutates_args) - seen
        if missing:
            fail(f"{missing} in mutates_args were not found in the custom op's signature. "
                 "mutates_args should contain the names of all args that the custom op "
                 "mutates, or just the string 'unknown' if you don't know.")
    returns = _parse_return(_resolve(signature.return_annotation, prototype_function, fail),
                            fail)
    text = f"({', '.join(params)}) -> {returns}"
    return text if op_name is None else op_name + text


def _tuple_as_list(annotation):
    """The list type torch suggests for a tuple annotation (tuple[int, int]: list[int])."""
    arguments = typing.get_args(annotation)
    if not arguments:
        return list
    if len(arguments) == 1 or (len(arguments) == 2 and arguments[1] is Ellipsis):
        return list[arguments[0]]
    return list[typing.Union[tuple(arguments)]]  # noqa: UP007


def _hashable(annotation) -> bool:
    try:
        hash(annotation)
    except TypeError:
        return False
    return True


def _parse_return(annotation, fail) -> str:
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        fail("No return type annotation was provided. Please add one.")
    supported = _return_types()
    if typing.get_origin(annotation) is not tuple:
        if not _hashable(annotation) or annotation not in supported:
            fail(f"Return has unsupported type {annotation}. The valid types are: {supported}.")
        return supported[annotation]
    arguments = typing.get_args(annotation)
    for argument in arguments:
        if argument not in supported:
            fail(f"Return has unsupported type {annotation}. The valid types are: "
                 f"{supported}.")
    inner = ", ".join(supported[a] for a in arguments)
    if len(arguments) == 1:
        inner = f"({inner})"
    return f"({inner})"


def _cpp_schema(text: str) -> str:
    """The schema as torch's C++ FunctionSchema prints it (float defaults ``1.`` for 1.0)."""
    import re

    return re.sub(r"(=-?\d+)\.0(?=[,)])", r"\1.", text)


# -- the operator ----------------------------------------------------------------------------------
class _Ctx:
    """What ``get_ctx()`` returns inside a fake implementation (sizes it cannot know)."""

    def new_dynamic_size(self, *, min: int = 0, max: int | None = None):  # noqa: A002
        raise RuntimeError("leafgrad runs fake implementations on meta tensors with concrete "
                           "sizes: a data-dependent output size cannot be made symbolic")


def get_ctx() -> _Ctx:
    return _Ctx()


class CustomOpDef:
    """An operator made by ``custom_op``: call it like the function it wraps."""

    def __init__(self, namespace: str, name: str, schema: str, fn, mutates_args):
        self._registrations(namespace, name, schema, fn)
        self._signature = inspect.signature(fn)
        if mutates_args == _UNKNOWN:
            self._mutated = tuple(name for name, p in self._signature.parameters.items()
                                  if "Tensor" in str(p.annotation))
        else:
            self._mutated = tuple(mutates_args)
        self._function = self._make_function()
        self.__doc__ = fn.__doc__

    def _registrations(self, namespace: str, name: str, schema: str, fn) -> None:
        """The name, schema and kernel, and no fake, formula or vmap rule yet."""
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._init_fn = fn
        self._kernel = fn
        self._kernels: dict = {}
        self._fake = None
        self._backward = None
        self._setup_context = None

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    @property
    def _opoverload(self):
        return _namespace(self._namespace).__getattr__(self._name).default

    # -- registrations --------------------------------------------------------------------------
    def register_autograd(self, backward, /, *, setup_context=None) -> None:
        """The op's derivative: ``setup_context(ctx, inputs, output)`` saves what
        ``backward(ctx, *grads)`` needs; backward returns one gradient per input."""
        self._backward = backward
        self._setup_context = setup_context

    def register_fake(self, fn, /):
        """What the op returns on meta tensors (shapes, dtypes; no data)."""
        self._fake = fn
        return fn

    def register_kernel(self, device_types, fn=None, /):
        """A kernel for ``device_types`` ("cpu", or a list); leafgrad runs the CPU one."""
        def register(function):
            kinds = (device_types,) if isinstance(device_types, str) or device_types is None \
                else tuple(device_types)
            for kind in kinds:
                self._kernels[kind] = function
            if any(kind in (None, "cpu") for kind in kinds):
                self._kernel = function
            return function

        return register if fn is None else register(fn)

    def register_vmap(self, func=None, /):
        raise NotImplementedError(
            f"{self._qualname}: register_vmap is not supported by leafgrad (its vmap runs a "
            "custom operator's kernel on the batched tensors as they are)")

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        raise NotImplementedError(
            f"{self._qualname}: register_torch_dispatch is not supported by leafgrad (it has no "
            "__torch_dispatch__ layer)")

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type: str, enabled: bool = True):
        """Within the block, the kernel registered for ``device_type`` is switched off (the
        op's own function runs) or back on, as torch's context manager does."""
        registered = self._kernels.get(device_type)
        previous = self._kernel
        if registered is not None and device_type in ("cpu", None):
            self._kernel = registered if enabled else self._init_fn
        try:
            yield
        finally:
            self._kernel = previous

    # -- calling --------------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        positional, keyword_only = [], {}
        for name, parameter in self._signature.parameters.items():
            if parameter.kind == inspect.Parameter.KEYWORD_ONLY:
                keyword_only[name] = bound.arguments[name]
            else:
                positional.append(bound.arguments[name])
        return tuple(positional), keyword_only

    def _run_kernel(self, positional, keyword_only):
        from .tensor import Tensor

        tensors = [a for a in _flat(positional) + _flat(tuple(keyword_only.values()))
                   if isinstance(a, Tensor)]
        if self._fake is not None and tensors and all(t.device.type == "meta" for t in tensors):
            return self._fake(*positional, **keyword_only)
        with no_grad():
            result = self._kernel(*positional, **keyword_only)
        inputs = {id(t) for t in tensors}
        for output in _flat(result if isinstance(result, (tuple, list)) else (result,)):
            if isinstance(output, Tensor) and id(output) in inputs:
                raise RuntimeError(
                    f"{self._name} (with implementation in {sys.modules[__name__]!r}): The "
                    "output of this custom operator (1) must not also be an input to this "
                    "custom operator and (2) may not alias any inputs to this custom operator "
                    "or other returns. The most common way to trigger this error is if we have "
                    "y = custom_op(x) and y and x are the same Tensor. Please instead return a "
                    "clone of the offending output tensor(s) (e.g. return x.clone()) or "
                    "refactor the custom operator to not return y.")
        return result

    def __call__(self, *args, **kwargs):
        from .tensor import Tensor

        positional, keyword_only = self._bind(args, kwargs)
        needs_grad = is_grad_enabled() and any(
            isinstance(a, Tensor) and a.requires_grad
            for a in _flat(positional) + _flat(tuple(keyword_only.values())))
        if needs_grad:
            result = self._function.apply(self, keyword_only, *positional)
        else:
            result = self._run_kernel(positional, keyword_only)
        self._bump_mutated(positional, keyword_only)
        return result

    def _bump_mutated(self, positional, keyword_only) -> None:
        from .tensor import Tensor

        if not self._mutated:
            return
        names = list(self._signature.parameters)
        values = dict(zip([n for n in names if n not in keyword_only], positional))
        values.update(keyword_only)
        for name in self._mutated:
            for item in _flat((values.get(name),)):
                if isinstance(item, Tensor):
                    item._bump_version()

    def _make_function(self):
        opdef = self
        display = f"{self._namespace}.{self._name}.default"

        def forward(op, keyword_only, *positional):
            return op._run_kernel(positional, keyword_only)

        def setup_context(ctx, inputs, output):
            op, keyword_only, positional = inputs[0], inputs[1], inputs[2:]
            ctx._positional_count = len(positional)
            if op._setup_context is not None:
                parameters = inspect.signature(op._setup_context).parameters
                if "keyword_only_inputs" in parameters:
                    op._setup_context(ctx, positional, output,
                                      keyword_only_inputs=keyword_only)
                else:
                    op._setup_context(ctx, positional, output)

        def backward(ctx, *grads):
            if opdef._backward is None:
                raise RuntimeError(f"Trying to backward through {display} but no autograd "
                                   "formula was registered. Please use register_autograd to "
                                   "add one.")
            result = opdef._backward(ctx, *grads)
            if not isinstance(result, tuple):
                result = (result,)
            expected = ctx._positional_count
            if len(result) != expected:
                raise RuntimeError(
                    f"function {generated.__name__}Backward returned an incorrect number of "
                    f"gradients (expected {expected + 1}, got {len(result) + 1})")
            return (None, None, *result)

        name = f"GeneratedBackwardFor_{self._namespace}_{self._name}_default"
        generated = type(name, (Function,), {
            "forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
            "backward": staticmethod(backward), "__module__": "leafgrad.autograd.function"})
        return generated


def _flat(values: tuple) -> list:
    out = []
    for value in values:
        if isinstance(value, (list, tuple)):
            out.extend(value)
        else:
            out.append(value)
    return out


def _split_name(qualname: str) -> tuple[str, str]:
    namespace, name = qualname.split("::")  # (torch's own unpacking, and its error)
    return namespace, name


def custom_op(name: str, fn=None, /, *, mutates_args, device_types=None, schema=None,
              tags=None):
    """Make ``fn`` (or the decorated function) the operator ``name`` ("namespace::op_name")."""
    def make(function):
        schema_text = schema
        if schema_text is None:
            schema_text = infer_schema(function, mutates_args=mutates_args)
        namespace, op_name = _split_name(name)
        opdef = CustomOpDef(namespace, op_name, schema_text, function, mutates_args)
        if device_types is not None:
            opdef._kernels.update({kind: function for kind in (
                (device_types,) if isinstance(device_types, str) else device_types)})
        _namespace(namespace)._define(op_name, opdef)
        return opdef

    return make if fn is None else make(fn)


def _lookup(op) -> CustomOpDef:
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, _OpOverload):
        return op._opdef
    if isinstance(op, str):
        namespace, name = _split_name(op)
        found = _namespaces.get(namespace)
        if found is not None and name in found._ops:
            return found._ops[name]
    raise ValueError(f"register: {op} is not an operator made with torch.library.custom_op")


def register_autograd(op, backward, /, *, setup_context=None, lib=None) -> None:
    _lookup(op).register_autograd(backward, setup_context=setup_context)


def register_fake(op, func=None, /, *, lib=None, _stacklevel: int = 1, allow_override=False):
    opdef = _lookup(op)
    return opdef.register_fake if func is None else opdef.register_fake(func)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    return _lookup(op).register_kernel(device_types, func)


# -- leafgrad.ops.<namespace>.<op>[.default] ----------------------------------------------------
class _OpOverload:
    def __init__(self, opdef: CustomOpDef):
        self._opdef = opdef
        self.__name__ = f"{opdef._name}.default"
        self._overloadname = "default"

    @property
    def _schema(self) -> str:
        return _cpp_schema(self._opdef._qualname + self._opdef._schema)

    def name(self) -> str:
        return self._opdef._qualname

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self._opdef._namespace}.{self._opdef._name}', " \
               "overload='default')>"

    def __str__(self) -> str:
        return f"{self._opdef._namespace}.{self._opdef._name}.default"

    def __call__(self, *args, **kwargs):
        return self._opdef(*args, **kwargs)


class _OpOverloadPacket:
    def __init__(self, opdef: CustomOpDef):
        self._opdef = opdef
        self.__name__ = opdef._name
        self._qualified_op_name = opdef._qualname
        self.default = _OpOverload(opdef)

    def overloads(self) -> list:
        return ["default"]

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._opdef._namespace}.{self._opdef._name}')>"

    def __str__(self) -> str:
        return f"{self._opdef._namespace}.{self._opdef._name}"

    def __call__(self, *args, **kwargs):
        return self._opdef(*args, **kwargs)


class _OpNamespace:
    """``leafgrad.ops.<namespace>``: the custom operators defined in it."""

    def __init__(self, name: str):
        self.name = name
        self._ops: dict = {}
        self._packets: dict = {}

    def _define(self, name: str, opdef: CustomOpDef) -> None:
        self._ops[name] = opdef
        self._packets[name] = _OpOverloadPacket(opdef)

    def __getattr__(self, op: str):
        packets = self.__dict__.get("_packets", {})
        if op in packets:
            return packets[op]
        raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op}'")

    def __repr__(self) -> str:
        return f"<module 'torch.ops.{self.name}'>"


def _namespace(name: str) -> _OpNamespace:
    found = _namespaces.get(name)
    if found is None:
        found = _namespaces[name] = _OpNamespace(name)
    return found


# -- opcheck -------------------------------------------------------------------------------------
_TESTS = ("test_schema", "test_autograd_registration", "test_faketensor",
          "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    pass


def opcheck(op, args, kwargs=None, *, test_utils=_TESTS, raise_exception: bool = True,
            rtol=None, atol=None) -> dict:
    """Check a custom op as torch's opcheck does, with leafgrad's means: ``test_schema`` (only
    the arguments in mutates_args change; no output aliases an input), ``test_autograd_
    registration`` (an op some of whose inputs require grad has a formula),
    ``test_faketensor`` (the fake implementation gives the kernel's shapes and dtypes on meta
    tensors), ``test_aot_dispatch_dynamic`` (the formula's gradients against central finite
    differences in float64). Returns ``{test: "SUCCESS" | error}``."""
    opdef = _lookup(op)
    kwargs = {} if kwargs is None else dict(kwargs)
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    results = {}
    for test in test_utils:
        if test not in _TESTS:
            raise ValueError(f"test_utils={test} is not one of {_TESTS}")
        try:
            getattr(_Checks, test)(opdef, args, kwargs, rtol, atol)
            results[test] = "SUCCESS"
        except Exception as error:  # noqa: BLE001 - reported per test, as torch's
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {test} failed with {error} (scroll up "
                                   "for stack trace)") from error
            results[test] = error
    return results


def _clone(value):
    from .tensor import Tensor

    if isinstance(value, Tensor):
        copy = value.detach().clone()
        return copy.requires_grad_(value.requires_grad) if value.is_leaf else copy
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    return value


class _Checks:
    @staticmethod
    def test_schema(opdef, args, kwargs, rtol, atol):
        from .tensor import Tensor

        args, kwargs = _clone(args), _clone(kwargs)
        positional, keyword_only = opdef._bind(args, kwargs)
        names = [n for n in opdef._signature.parameters if n not in keyword_only]
        values = dict(zip(names, positional))
        values.update(keyword_only)
        before = {name: [t.detach().clone() for t in _flat((value,)) if isinstance(t, Tensor)]
                  for name, value in values.items()}
        with no_grad():
            opdef(*args, **kwargs)
        for name, value in values.items():
            after = [t.detach() for t in _flat((value,)) if isinstance(t, Tensor)]
            changed = any(a.shape != b.shape or not bool(((a == b) | (a.isnan() & b.isnan()))
                                                          .all())
                          for a, b in zip(before[name], after))
            if changed and name not in opdef._mutated:
                raise RuntimeError(f"{opdef._qualname}: the argument {name} was mutated but is "
                                   "not in mutates_args")

    @staticmethod
    def test_autograd_registration(opdef, args, kwargs, rtol, atol):
        from .tensor import Tensor

        # (as torch's: every custom op has an autograd kernel, the generated node, so the
        # outputs of a call with inputs that require grad must be attached to the graph)
        args, kwargs = _clone(args), _clone(kwargs)
        positional, keyword_only = opdef._bind(args, kwargs)
        wants = any(isinstance(t, Tensor) and t.requires_grad
                    for t in _flat(positional) + _flat(tuple(keyword_only.values())))
        if not wants:
            return
        result = opdef(*args, **kwargs)
        for output in _flat(result if isinstance(result, (tuple, list)) else (result,)):
            if isinstance(output, Tensor) and (output.dtype.is_floating_point
                                               or output.dtype.is_complex) \
                    and not output.requires_grad:
                raise AssertionError(f"{opdef._qualname}: an output of a call whose inputs "
                                     "require grad is not attached to the autograd graph")

    @staticmethod
    def test_faketensor(opdef, args, kwargs, rtol, atol):
        from .tensor import Tensor

        if opdef._fake is None:
            raise RuntimeError(f"There was no fake impl registered for {opdef._qualname}. "
                               "Please use register_fake to add one.")

        def meta(value):
            if isinstance(value, Tensor):
                return value.detach().to("meta")
            if isinstance(value, (list, tuple)):
                return type(value)(meta(v) for v in value)
            return value

        with no_grad():
            real = opdef(*_clone(args), **_clone(kwargs))
            fake = opdef._fake(*meta(tuple(args)), **{k: meta(v) for k, v in kwargs.items()})
        for a, b in zip(_flat(real if isinstance(real, (tuple, list)) else (real,)),
                        _flat(fake if isinstance(fake, (tuple, list)) else (fake,))):
            if isinstance(a, Tensor) and (not isinstance(b, Tensor) or a.shape != b.shape
                                          or a.dtype != b.dtype):
                raise RuntimeError(f"{opdef._qualname}: the fake implementation gave "
                                   f"{getattr(b, 'shape', b)} {getattr(b, 'dtype', '')}, the "
                                   f"kernel {a.shape} {a.dtype}")

    @staticmethod
    def test_aot_dispatch_dynamic(opdef, args, kwargs, rtol, atol):
        from .autograd.gradcheck import gradcheck
        from .tensor import Tensor

        positional, keyword_only = opdef._bind(_clone(args), _clone(kwargs))
        differentiable = [i for i, a in enumerate(positional)
                          if isinstance(a, Tensor) and a.requires_grad
                          and a.dtype.is_floating_point]
        if not differentiable or opdef._backward is None:
            return
        inputs = [positional[i].detach().double().requires_grad_() for i in differentiable]

        def run(*values):
            call = list(positional)
            for index, value in zip(differentiable, values):
                call[index] = value
            return opdef(*call, **keyword_only)

        gradcheck(run, tuple(inputs), atol=atol or 1e-5, rtol=rtol or 1e-3)


# -- the older API: Library, define, impl (operators from schema strings) ---------------------------
_KINDS = ("DEF", "IMPL", "FRAGMENT")
_SCALAR_TYPES = {"Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType",
                 "Device", "Layout", "MemoryFormat", "Generator", "Storage", "Dimname", "Any"}
_NOT_DIFFERENTIABLE = (
    "{name}: an autograd kernel was not registered to the Autograd key(s) but we are trying to "
    "backprop through it. This may lead to silently incorrect behavior. This behavior is "
    "deprecated and will be removed in a future version of PyTorch. If your operator is "
    "differentiable, please ensure you have registered an autograd kernel to the correct "
    "Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If your "
    "operator is not differentiable, or to squash this warning and use the previous behavior, "
    "please register torch::CppFunction::makeFallthrough() to DispatchKey::Autograd.")


def _tokens(text: str) -> list:
    import re

    pattern = re.compile(r'\s*(?:(->)|("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|'
                         r'(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\S))')
    out, position = [], 0
    while position < len(text):
        match = pattern.match(text, position)
        if match is None or match.end() == position:
            break
        position = match.end()
        arrow, string, number, ident, symbol = match.groups()
        if arrow:
            out.append(("->", arrow))
        elif string:
            out.append(("string", string[1:-1]))
        elif number:
            out.append(("number", number))
        elif ident:
            out.append(("ident", ident))
        elif symbol:
            out.append((symbol, symbol))
    out.append(("eof", ""))
    return out


class _Parser:
    """torch's operator schema grammar, the part Python operators use."""

    def __init__(self, text: str):
        self.tokens = _tokens(text)
        self.index = 0

    def peek(self) -> str:
        return self.tokens[self.index][0]

    def take(self, kind: str) -> str:
        found, value = self.tokens[self.index]
        if found != kind:
            raise RuntimeError(f"expected {kind} but found '{found}' here:")
        self.index += 1
        return value

    def declaration(self):
        name = self.take("ident")
        overload = ""
        if self.peek() == ".":
            self.take(".")
            overload = self.take("ident")
        if self.peek() != "(":
            self.take("eof")
            return name, overload, None, None
        self.take("(")
        params, keyword_only = [], False
        while self.peek() != ")":
            if self.peek() == "*":
                self.take("*")
                keyword_only = True
            else:
                kind, mutated = self.type_()
                arg = self.take("ident")
                default = inspect.Parameter.empty
                if self.peek() == "=":
                    self.take("=")
                    default = self.default()
                params.append((arg, kind, default, keyword_only, mutated))
            if self.peek() == ",":
                self.take(",")
            elif self.peek() != ")":
                self.take(")")
        self.take(")")
        self.take("->")
        returns = self.returns()
        self.take("eof")
        return name, overload, params, returns

    def type_(self):
        base = self.take("ident")
        if base not in _SCALAR_TYPES:
            raise RuntimeError(f"\nUnknown type name '{base}':")
        mutated = False
        if self.peek() == "(":  # an alias annotation: Tensor(a) or Tensor(a!)
            self.take("(")
            self.take("ident")
            if self.peek() == "!":
                self.take("!")
                mutated = True
            self.take(")")
        text = base
        while self.peek() in ("[", "?"):
            if self.peek() == "?":
                self.take("?")
                text += "?"
            else:
                self.take("[")
                size = self.take("number") if self.peek() == "number" else ""
                self.take("]")
                text += f"[{size}]"
        return text, mutated

    def default(self):
        kind, value = self.tokens[self.index]
        self.index += 1
        if kind == "number":
            return float(value) if any(c in value for c in ".eE") else int(value)
        if kind == "string":
            return value
        if kind == "ident":
            return {"None": None, "True": True, "False": False}.get(value, value)
        if kind == "[":
            items = []
            while self.peek() != "]":
                items.append(self.default())
                if self.peek() == ",":
                    self.take(",")
            self.take("]")
            return items
        raise RuntimeError(f"expected a default value but found '{kind}' here:")

    def returns(self) -> list:
        if self.peek() == "(":
            self.take("(")
            out = []
            while self.peek() != ")":
                out.append(self.type_()[0])
                if self.peek() == "ident":  # (a named return)
                    self.take("ident")
                if self.peek() == ",":
                    self.take(",")
            self.take(")")
            return out
        return [self.type_()[0]]


def _python_type_name(kind: str) -> str:
    """A schema type as torch's argument errors name it (``int[]``: ``List[int]``)."""
    if kind.endswith("?"):
        return f"Optional[{_python_type_name(kind[:-1])}]"
    if kind.endswith("]"):
        return f"List[{_python_type_name(kind[:kind.index('[')])}]"
    return {"SymInt": "int", "Scalar": "number"}.get(kind, kind)


def _type_matches(kind: str, value) -> bool:
    from .tensor import Tensor

    if value is None and kind.endswith("?"):
        return True
    kind = kind.rstrip("?")
    if "[" in kind:
        item = kind[:kind.index("[")]
        return isinstance(value, (list, tuple)) and all(_type_matches(item, v) for v in value)
    if kind == "Tensor":
        return isinstance(value, Tensor)
    if kind in ("int", "SymInt"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "Scalar":
        return isinstance(value, (int, float, complex, bool))
    return True


class _DefinedOp(CustomOpDef):
    """An operator declared by a schema string (``Library.define``) with kernels per dispatch
    key (``Library.impl``)."""

    def __init__(self, namespace: str, name: str, schema: str, params, returns):
        self._registrations(namespace, name, schema, None)
        self._params = params
        self._returns = returns
        self._impls: dict = {}
        parameters = []
        for arg, _, default, keyword_only, _ in params:
            kind = (inspect.Parameter.KEYWORD_ONLY if keyword_only
                    else inspect.Parameter.POSITIONAL_OR_KEYWORD)
            parameters.append(inspect.Parameter(arg, kind, default=default))
        self._signature = inspect.Signature(parameters)
        self._mutated = tuple(arg for arg, _, _, _, mutated in params if mutated)
        self._function = self._make_function()
        self._not_differentiable = self._make_cpp_function()

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self._namespace}.{self._name}', overload='default')>"

    def _declaration(self) -> str:
        return f"{self._qualname}{_cpp_schema(self._schema)}"

    def _check_call(self, args, kwargs) -> None:
        positional = [p for p in self._params if not p[3]]
        if len(args) > len(positional) or len(args) + len(kwargs) > len(self._params):
            raise RuntimeError(f"{self._qualname}() expected at most {len(self._params)} "
                               f"argument(s) but received {len(args) + len(kwargs)} argument(s). "
                               f"Declaration: {self._declaration()}")
        known = {p[0] for p in self._params}
        for key in kwargs:
            if key not in known:
                raise RuntimeError(f"Unknown keyword argument '{key}' for operator "
                                   f"'{self._qualname}'. Schema: {self._declaration()}")
        given = dict(zip([p[0] for p in positional], args))
        given.update(kwargs)
        for index, (arg, kind, default, _, _) in enumerate(self._params):
            if arg not in given:
                if default is inspect.Parameter.empty:
                    raise RuntimeError(f"{self._qualname}() is missing value for argument "
                                       f"'{arg}'. Declaration: {self._declaration()}")
                continue
            if not _type_matches(kind, given[arg]):
                raise RuntimeError(f"{self._qualname}() Expected a value of type "
                                   f"'{_python_type_name(kind)}' for argument '{arg}' but "
                                   f"instead found type '{type(given[arg]).__name__}'.")

    def __call__(self, *args, **kwargs):
        from .tensor import Tensor

        self._check_call(args, kwargs)
        positional, keyword_only = self._bind(args, kwargs)
        values = _flat(positional) + _flat(tuple(keyword_only.values()))
        tensors = [a for a in values if isinstance(a, Tensor)]
        if self._fake is not None and tensors and all(t.device.type == "meta" for t in tensors):
            return self._fake(*positional, **keyword_only)
        needs_grad = is_grad_enabled() and any(t.requires_grad for t in tensors)
        composite = self._impls.get("CompositeImplicitAutograd")
        if self._backward is not None and needs_grad:
            result = self._function.apply(self, keyword_only, *positional)
        elif composite is not None:
            result = composite(*positional, **keyword_only)
        else:
            kernel = self._cpu_kernel()
            if kernel is None:
                keys = sorted(set(self._impls) | ({"Meta"} if self._fake else set()))
                raise NotImplementedError(
                    f"Could not run '{self._qualname}' with arguments from the 'CPU' backend. "
                    "This could be because the operator doesn't exist for this backend, or was "
                    "omitted during the selective/custom build process (if using custom build). "
                    "If you are a Facebook employee using PyTorch on mobile, please visit "
                    "https://fburl.com/ptmfixes for possible resolutions. "
                    f"'{self._qualname}' is only available for these backends: "
                    f"[{', '.join(keys)}].")
            if needs_grad:  # (torch's autograd fallback: the outputs' node has no formula)
                result = self._not_differentiable.apply(self, kernel, keyword_only, *positional)
            else:
                result = kernel(*positional, **keyword_only)
        if self._returns == [] and result is not None:
            raise RuntimeError(f"Expected PythonKernelHolder for {self._qualname} to return None "
                               "but it returned something else instead.")
        return result  # (a kernel's own in-place ops count its writes: no extra bump)

    def _cpu_kernel(self):
        for key in ("AutogradCPU", "Autograd", "CPU", "CompositeExplicitAutograd", ""):
            if key in self._impls:
                return self._impls[key]
        return None

    def _run_kernel(self, positional, keyword_only):
        kernel = self._impls.get("CompositeImplicitAutograd") or self._cpu_kernel()
        with no_grad():
            return kernel(*positional, **keyword_only)

    def _make_cpp_function(self):
        import warnings

        from .autograd.grad_mode import enable_grad

        def forward(op, kernel, keyword_only, *positional):
            # the kernel sees its inputs as they are, grad mode on (numpy() on an input that
            # requires grad refuses, as in torch)
            with enable_grad():
                return kernel(*positional, **keyword_only)

        def backward(ctx, *grads):
            warnings.warn(_NOT_DIFFERENTIABLE.format(name=op_name), UserWarning, stacklevel=2)
            return (None,) * (3 + ctx.count)

        def setup_context(ctx, inputs, output):
            ctx.count = len(inputs) - 3

        op_name = self._qualname
        made = type("CppFunction", (Function,), {
            "forward": staticmethod(forward), "backward": staticmethod(backward),
            "setup_context": staticmethod(setup_context), "__module__": "builtins"})
        made._backward_cls.__name__ = made._backward_cls.__qualname__ = "CppFunction"
        made._backward_cls.__module__ = "builtins"
        return made


class Library:
    """A namespace's operators: ``define`` declares one from a schema string, ``impl``
    gives it a kernel for a dispatch key ("CPU", "CompositeImplicitAutograd" for a kernel
    autograd differentiates through, "CompositeExplicitAutograd", "Meta")."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._defined: list = []
        caller = sys._getframe(1)
        self._where = f"{caller.f_code.co_filename}:{caller.f_lineno}"  # (torch's messages)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        name, overload, params, returns = _Parser(schema).declaration()
        if params is None:
            raise RuntimeError(f"{self.ns}::{name}: a schema needs its arguments and returns")
        namespace = _namespace(self.ns)
        existing = namespace._ops.get(name)
        text = schema[schema.index("("):]
        if isinstance(existing, _DefinedOp) or (existing is not None and overload == ""):
            raise RuntimeError(f"Tried to register an operator ({self.ns}::{name}{text}) with "
                               "the same name and overload name multiple times. Each overload's "
                               "schema should only be registered with a single call to def(). "
                               f"Duplicate registration: registered at {self._where}. Original "
                               f"registration: registered at {getattr(existing, '_where', '')}")
        op = _DefinedOp(self.ns, name, text, params, returns)
        op._where = self._where
        namespace._define(name, op)
        self._defined.append(name)
        return name

    def impl(self, op_name, fn, dispatch_key: str = "", *, with_keyset: bool = False,
             allow_override: bool = False) -> None:
        name = op_name if isinstance(op_name, str) else getattr(op_name, "__name__", "")
        name = name.split("::")[-1].split(".")[0]
        op = _namespace(self.ns)._ops.get(name)
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if op is None:  # (torch accepts a kernel for an operator not defined yet)
            _pending.setdefault((self.ns, name), {})[key] = fn
            return
        _register_impl(op, key, fn)

    def fallback(self, fn, dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        raise NotImplementedError("leafgrad has no dispatcher fallbacks")

    def _destroy(self) -> None:
        namespace = _namespace(self.ns)
        for name in self._defined:
            namespace._ops.pop(name, None)
            namespace._packets.pop(name, None)
        self._defined = []

    def __del__(self) -> None:
        # as torch's: a Library's definitions last as long as the Library object
        try:
            self._destroy()
        except Exception:  # noqa: BLE001 - (at interpreter exit the modules may be gone)
            pass


_keep_alive: list = []  # the Libraries made by define() without one: they live on


_pending: dict = {}  # (namespace, name) -> {dispatch key: kernel} given before the definition


def _register_impl(op, key: str, fn) -> None:
    key = {"cpu": "CPU", "default": "CompositeExplicitAutograd", "meta": "Meta"}.get(key, key)
    if key == "Meta":
        op._fake = fn
        return
    if isinstance(op, _DefinedOp):
        op._impls[key] = fn
    else:
        op.register_kernel("cpu", fn)


def define(qualname: str, schema: str, *, lib=None, tags=()) -> None:
    """``torch.library.define("ns::name", "(Tensor x) -> Tensor")``."""
    namespace, name = _split_name(qualname)
    if lib is None:
        lib = Library(namespace, "FRAGMENT")
        _keep_alive.append(lib)
    lib.define(name + schema, tags=tags)
    for key, kernel in _pending.pop((namespace, name), {}).items():
        _register_impl(_namespace(namespace)._ops[name], key, kernel)


def impl(qualname: str, types, func=None, *, lib=None):
    """``@torch.library.impl("ns::name", "cpu")``: a kernel for a declared operator; device
    types ("cpu") or dispatch keys ("CompositeImplicitAutograd")."""
    def register(function):
        namespace, name = _split_name(qualname)
        name = name.split(".")[0]
        keys = (types,) if isinstance(types, str) else tuple(types)
        op = _namespace(namespace)._ops.get(name)
        for key in keys:
            if op is None:
                _pending.setdefault((namespace, name), {})[key] = function
            else:
                _register_impl(op, key, function)
        return function

    return register if func is None else register(func)


__all__ += ["Library", "define", "impl"]
