"""torch's argument-parser errors, derived from declared signatures.

torch checks every call against the signatures of its native functions (``pow(Tensor input,
Number exponent)``...) and raises a TypeError whose first line depends on how many overloads
the function has:

- one overload: ``add(): argument 'alpha' must be Number, not str``, with ``(position N)``
  when the argument was given positionally;
- several: ``pow() received an invalid combination of arguments - got (Tensor, NoneType), but
  expected one of:`` followed by the overloads;
- wrong arity: ``mul() missing 1 required positional arguments: "other"``, ``mul() takes 2
  positional arguments but 3 were given``.

Functions declare their signatures once, in ``SIGNATURES``, and keep their own fast type test
(``type(x) in NUMBERS or isinstance(x, Tensor)``); only when it fails do they call
``check(name, args, kwargs)``, which returns quietly when an overload accepts the call (a NumPy
scalar, a 0-d tensor for a Number) and raises torch's error otherwise. The per-op hot path
therefore never runs this module.

Note: numbers as tensors
torch accepts a Python number for a ``Tensor`` parameter of a few binary ops (add, sub, mul,
div and their in-place forms: "allow_numbers_as_tensors" in torch's parser), so
``torch.add(a, 2)`` works while ``torch.atan2(a, 2)`` raises. Those signatures spell the
parameter ``Tensor~``; the message still says ``Tensor``.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from . import _dtype

NUMBERS = frozenset((int, float, bool))  # for the callers' fast tests


def typename(value) -> str:
    """The type name torch prints (CPython's ``tp_name``: dotted for C extension types)."""
    cls = type(value)
    module = cls.__module__
    if module.startswith("leafgrad") and cls.__name__ in ("dtype", "device", "layout"):
        return f"torch.{cls.__name__}"
    if module.startswith("leafgrad") and isinstance(value, _dtype_class()):
        return "torch.dtype"  # (bfloat16's own subclass of dtype)
    if module in ("leafgrad._C", "leafgrad._rng") and cls.__name__ == "Generator":
        return "torch._C.Generator"  # (torch's Generator is the C type; subclasses keep theirs)
    if cls.__name__ in ("Tensor", "Parameter") or module == "builtins":
        return cls.__name__
    if module == "numpy":
        return f"numpy.{cls.__name__}"
    if module == "decimal":
        return f"decimal.{cls.__name__}"
    return cls.__name__


def require_tensors(function: str, *arguments) -> None:
    """torch's parser error for the first of ``arguments`` ((name, value, position, optional)
    tuples, in the order torch reads them) that is not a Tensor (None allowed where optional):
    what an nn.functional function whose torch form is a C binding raises for a non-Tensor
    argument. Called where such a call failed, so valid calls pay nothing."""
    from .tensor import Tensor

    for name, value, position, optional in arguments:
        if not isinstance(value, Tensor) and not (optional and value is None):
            raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {typename(value)}")


def require_tensor(function: str, value) -> None:
    """``require_tensors`` for a function's one tensor argument, ``input``."""
    require_tensors(function, ("input", value, 1, False))


def _dtype_float64():
    from ._dtype import float64

    return float64


def _dtype_class():
    from ._dtype import dtype

    return dtype


tensor_class: type = None  # leafgrad.Tensor, set by tensor.py (which imports this module first)


def _is_tensor(value) -> bool:
    return isinstance(value, tensor_class)


def _is_number(value) -> bool:
    if isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        return True
    # a 0-d tensor that does not require grad stands for a Number (torch's Scalar parsing)
    return _is_tensor(value) and value.ndim == 0 and not value.requires_grad


def _is_int(value, symint: bool = False) -> bool:
    """What torch's parser takes for an int: Python and NumPy integers, integer 0-d tensors;
    for a SymInt (tril's diagonal, topk's k) also what has an integer ``__index__``: a 0-d
    NumPy integer array, a one-element integer tensor."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return True
    if symint and isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "iu"
    return _is_tensor(value) and (value.ndim == 0 or symint and value.numel() == 1) and \
        value.dtype.name.startswith(("int", "uint"))


def is_int_item(value) -> bool:
    """What torch's parser takes for an element of an ``int[]`` (a dims list, roll's shifts),
    or for the whole list: a SymInt (``_is_int``), or a one-element tensor of an integral type
    including bool (``x.sum(torch.tensor(True))`` sums dim 1, where an ``int`` refuses it)."""
    return _is_int(value, True) or _is_tensor(value) and value.dtype.name == "bool" and \
        value.numel() == 1


def _is_int_list(value) -> bool:
    if is_int_item(value):
        return True
    return isinstance(value, (tuple, list)) and all(is_int_item(v) for v in value)


# Note: int lists as torch's parser reads them
# An ``int[]`` parameter (flip's dims, movedim's source) matches a tuple or list whose first
# element is an int (torch's is_int_or_symint_list looks at that one only), and a lone int only
# when the list has a size (``int[1]``: roll's dims, sum's dim). The other elements are read
# after the overload is chosen, and one that is not an int (bools and one-element integer
# tensors are) is "failed to unpack the object at pos N" (N counted from 1). Signatures spell
# these parameters ``int[]`` and ``int[1]``; messages say "tuple of ints".
def _first_is_int(value) -> bool:
    """Whether a tuple or list matches an int-list parameter: empty, or its first item an int
    (Python or NumPy integer, one-element integer tensor)."""
    return isinstance(value, (tuple, list)) and (not value or _is_int(value[0], symint=True))


def _unpacks_as_int(item) -> bool:
    """Whether torch's int-list unpacking takes ``item`` (bools too, and one-element bool
    tensors: ``is_int_item``)."""
    return isinstance(item, (int, np.integer)) or is_int_item(item)


def _unpack_error(function: str, name: str, value) -> TypeError | None:
    """torch's error for the first item of the list ``value`` it cannot read as an int."""
    for index, item in enumerate(value):
        if not _unpacks_as_int(item):
            return TypeError(f"{function}(): argument '{name}' failed to unpack the object at "
                             f"pos {index + 1} with error \"type must be tuple of ints,but got "
                             f"{typename(item)}\"")
    return None


def _as_int(value) -> int:
    return int(value.item()) if _is_tensor(value) else int(value)


def _is_dtype(value) -> bool:
    from ._dtype import dtype

    return isinstance(value, dtype) or any(value is kind for kind in (int, float, bool, complex))


_ACCEPTS = {
    "Tensor": _is_tensor,
    "Tensor~": lambda v: _is_tensor(v) or _is_number(v),
    "Number": _is_number,
    "bool": lambda v: v.__class__ is bool,  # (not np.bool_: torch 2.13 refuses it)
    "int": _is_int,
    # (torch's double: NumPy bools and complex numbers too, read by their real part)
    "float": lambda v: isinstance(v, (float, int, np.floating, np.integer, np.bool_,
                                      np.complexfloating))
    or _is_tensor(v) and v.ndim == 0 and not v.requires_grad,  # (as ``number`` reads it)
    "str": lambda v: isinstance(v, str),
    "str~": lambda v: v is None or isinstance(v, str),  # (required, None allowed: str?)
    "bool~": lambda v: v is None or v.__class__ is bool,  # (torch prints sort's bool? "bool")
    "tuple of Tensors": lambda v: isinstance(v, (tuple, list)) and all(
        _is_tensor(x) for x in v),
    "tuple of ints": _is_int_list,
    # (a list of anything: Signature.bind reads its items next, "expected Tensor as element 0
    # in argument 0, but got str")
    "Tensor[]": lambda v: isinstance(v, (tuple, list)),
    "int[]": _first_is_int,  # (Note: int lists as torch's parser reads them)
    "int[1]": lambda v: _is_int(v, symint=True) or _first_is_int(v),
    # a reduction's dim list (int[1]): what its items may be (a one-element bool or integer
    # tensor too), or a list whose first item is an int (the others read after the overload is
    # chosen: "failed to unpack the object at pos N")
    "dims": lambda v: _is_int_list(v) or _first_is_int(v),
    "dims~": lambda v: v is None or _is_int_list(v) or _first_is_int(v),  # (required, None
    # allowed: sum's dim, printed without "?")
    "float[]": lambda v: isinstance(v, (list, tuple)) and all(
        isinstance(x, (float, int, np.floating, np.integer)) for x in v),
    "torch.dtype": _is_dtype,
    "torch.layout": lambda v: type(v).__name__ == "layout",
    "torch.device": lambda v: isinstance(v, (str, int, np.integer))
    and not isinstance(v, (bool, np.bool_)) or type(v).__name__ == "device",
    "torch.Generator": lambda v: v is None or type(v).__name__ == "Generator",
    "torch.memory_format": lambda v: type(v).__name__ == "memory_format",
    "PyObject*": lambda v: True,
}


_SPELLED = {"int[]": "tuple of ints", "int[1]": "tuple of ints", "dims": "tuple of ints",
            "dims~": "tuple of ints", "Tensor[]": "tuple of Tensors"}


# torch's parser also takes NumPy's names for four parameters, by keyword
# (numpy_compatibility_arg_names): special.bessel_j0(x=t), sum(t, axis=0, keepdims=True)
NUMPY_NAMES = {"input": ("x", "a", "x1"), "other": ("x2",), "dim": ("axis",),
               "keepdim": ("keepdims",)}


def keyword(name: str, kwargs: dict) -> str | None:
    """The key of ``kwargs`` giving the parameter ``name`` (its own or a NumPy name), or None."""
    if name in kwargs:
        return name
    for alias in NUMPY_NAMES.get(name, ()):
        if alias in kwargs:
            return alias
    return None


class _Param:
    __slots__ = ("type", "name", "optional", "default", "keyword_only")

    def __init__(self, text: str, keyword_only: bool):
        declared, _, default = text.partition("=")
        kind, name = declared.strip().rsplit(" ", 1)
        self.optional = kind.endswith("?")
        self.type = kind.rstrip("?")
        self.name = name
        self.default = default.strip() or None
        self.keyword_only = keyword_only

    def accepts(self, value) -> bool:
        if value is None and (self.optional or self.default == "None"):
            return True
        return _ACCEPTS[self.type](value)

    def __str__(self) -> str:
        kind = _SPELLED.get(self.type, self.type).rstrip("~") + ("?" if self.optional else "")
        text = f"{kind} {self.name}"
        return f"{text} = {self.default}" if self.default is not None else text


class Signature:
    """One overload: ``"pow(Tensor input, Number exponent, *, Tensor? out=None)"``."""

    def __init__(self, text: str):
        name, _, rest = text.partition("(")
        self.name = name
        self.params: list[_Param] = []
        keyword_only = False
        # commas inside a default's brackets (``dim=(-2, -1)``) do not separate parameters
        for part in re.split(r",(?![^()\[\]]*[)\]])", rest[:-1] if rest.endswith(")") else rest):
            part = part.strip()
            if part == "*":
                keyword_only = True
            elif part:
                self.params.append(_Param(part, keyword_only))

    @property
    def positional(self) -> list[_Param]:
        return [p for p in self.params if not p.keyword_only]

    def bind(self, args: tuple, kwargs: dict):
        """``None`` when the call fits, else ``(kind, details)`` describing the first misfit,
        found in torch's order: too many positional arguments, then each parameter in turn
        (given twice, missing, wrong type), then unknown keywords."""
        positional = self.positional
        if len(args) > len(positional):
            return "too_many", len(args)
        for index, param in enumerate(self.params):
            key = keyword(param.name, kwargs)
            if index < len(args) and not param.keyword_only:
                value, position = args[index], index + 1
            elif key is not None:
                value, position = kwargs[key], None
            else:
                if param.default is None and not param.optional:
                    return "missing", [p.name for p in self.params[index:]
                                       if p.default is None and not p.optional]
                continue
            if not param.accepts(value):
                return "type", (param, value, position)
            if param.type == "Tensor[]":  # (its items, read as the parser reaches it)
                for item_index, item in enumerate(value):
                    if not _is_tensor(item):
                        return "element", (item_index, index, item)
            if position is not None and key is not None:  # (after its type: torch's order)
                return "twice", param.name
        real = {p.name for p in self.params}
        names = real | {alias for p in self.params for alias in NUMPY_NAMES.get(p.name, ())}
        for key in kwargs:
            if key not in names:
                # (torch names the first keyword that is not a parameter's own name)
                return "unknown", next(k for k in kwargs if k not in real)
        return None

    @property
    def min_args(self) -> int:
        return sum(1 for p in self.params if p.default is None and not p.optional)

    def __str__(self) -> str:
        params, starred = [], False
        for param in self.params:
            if param.keyword_only and not starred:
                params.append("*")
                starred = True
            params.append(str(param))
        return f"({', '.join(params)})"


def _overloads(*texts: str) -> tuple[Signature, ...]:
    return tuple(Signature(text) for text in texts)


def _binary(name: str, number_self: bool = False, method: bool = False):
    """The Tensor/Number overloads of a comparison or remainder-like binary function."""
    if method:
        return _overloads(f"{name}(Tensor other)", f"{name}(Number other)")
    texts = [f"{name}(Tensor input, Tensor other, *, Tensor? out=None)"]
    if number_self:
        texts.append(f"{name}(Number self, Tensor other)")
    texts.append(f"{name}(Tensor input, Number other, *, Tensor? out=None)")
    return _overloads(*texts)


def _tensor_pair(name: str, method: bool = False):
    if method:
        return _overloads(f"{name}(Tensor other)")
    return _overloads(f"{name}(Tensor input, Tensor other, *, Tensor? out=None)")


def _arith(name: str, method: bool = False, alpha: bool = True):
    alpha_param = ", Number alpha=1" if alpha else ""
    if method:
        return _overloads(f"{name}(Tensor~ other, *{alpha_param})")
    return _overloads(f"{name}(Tensor~ input, Tensor~ other, *{alpha_param}, Tensor? out=None)")


SIGNATURES: dict[str, tuple[Signature, ...]] = {
    "pow": _overloads("pow(Tensor input, Tensor exponent, *, Tensor? out=None)",
                      "pow(Number self, Tensor exponent, *, Tensor? out=None)",
                      "pow(Tensor input, Number exponent, *, Tensor? out=None)"),
    "Tensor.pow": _overloads("pow(Tensor exponent)", "pow(Number exponent)"),
    "Tensor.pow_": _overloads("pow_(Tensor exponent)", "pow_(Number exponent)"),
    "clamp": _overloads(
        "clamp(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor? out=None)",
        "clamp(Tensor input, Number? min=None, Number? max=None, *, Tensor? out=None)"),
    "clip": _overloads(
        "clip(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor? out=None)",
        "clip(Tensor input, Number? min=None, Number? max=None, *, Tensor? out=None)"),
    "Tensor.clamp": _overloads("clamp(Tensor? min=None, Tensor? max=None)",
                               "clamp(Number? min=None, Number? max=None)"),
    "Tensor.clamp_": _overloads("clamp_(Tensor? min=None, Tensor? max=None)",
                                "clamp_(Number? min=None, Number? max=None)"),
    "where": _overloads("where(Tensor condition)",
                        "where(Tensor condition, Tensor input, Tensor other, *, Tensor? out=None)",
                        "where(Tensor condition, Number self, Tensor other)",
                        "where(Tensor condition, Tensor input, Number other)",
                        "where(Tensor condition, Number self, Number other)"),
    "Tensor.where": _overloads("where(Tensor condition, Tensor other)",
                               "where(Tensor condition, Number other)"),
    "Tensor.requires_grad_": _overloads("requires_grad_(bool requires_grad=True)"),
    "kron": _tensor_pair("kron"),
    "Tensor.kron": _tensor_pair("kron", method=True),
}
SIGNATURES["logsumexp"] = _overloads(  # _functions_reductions.py
    "logsumexp(Tensor input, dims dim, bool keepdim=False, *, Tensor? out=None)")
SIGNATURES["Tensor.logsumexp"] = _overloads("logsumexp(dims dim, bool keepdim=False)")
SIGNATURES["prod"] = _overloads(  # _functions_reductions.py
    "prod(Tensor input, *, torch.dtype? dtype=None)",
    "prod(Tensor input, int dim, bool keepdim=False, *, torch.dtype? dtype=None, Tensor? out=None)")
SIGNATURES["Tensor.prod"] = _overloads(
    "prod(*, torch.dtype? dtype=None)",
    "prod(int dim, bool keepdim=False, *, torch.dtype? dtype=None)")
for _name in ("max", "min"):
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input, *, Tensor? out=None)",
        f"{_name}(Tensor input, Tensor other, *, Tensor? out=None)",
        f"{_name}(Tensor input, int dim, bool keepdim=False, *, Tensor? out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(
        f"{_name}()", f"{_name}(Tensor other)", f"{_name}(int dim, bool keepdim=False)")
for _name in ("median", "nanmedian"):
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input)",
        f"{_name}(Tensor input, int dim, bool keepdim=False, *, Tensor? out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(f"{_name}()",
                                               f"{_name}(int dim, bool keepdim=False)")
for _name in ("argmax", "argmin"):
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input, int? dim=None, bool keepdim=False, *, Tensor? out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(f"{_name}(int? dim=None, bool keepdim=False)")
for _name in ("var", "std", "var_mean", "std_mean"):  # ops/reductions_stats.py
    _out = ", *, Tensor? out=None" if _name in ("var", "std") else ""
    _out_kw = ", Tensor? out=None" if _name in ("var", "std") else ""
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input, dims? dim, bool unbiased=True, bool keepdim=False{_out})",
        f"{_name}(Tensor input, dims? dim=None, *, Number? correction=None, "
        f"bool keepdim=False{_out_kw})",
        f"{_name}(Tensor input, bool unbiased=True)")
    if _out:  # (no var_mean/std_mean methods)
        SIGNATURES[f"Tensor.{_name}"] = _overloads(
            f"{_name}(dims? dim, bool unbiased=True, bool keepdim=False)",
            f"{_name}(dims? dim=None, *, Number? correction=None, "
            "bool keepdim=False)",
            f"{_name}(bool unbiased=True)")
SIGNATURES["round"] = _overloads("round(Tensor input, *, Tensor? out=None)",  # _functions_math
                                 "round(Tensor input, *, int decimals, Tensor? out=None)")
for _name, _dx in (("trapezoid", "Number"), ("trapz", "float"),  # _functions_composites
                   ("cumulative_trapezoid", "Number")):
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor y, Tensor x, *, int dim=-1)",
                                   f"{_name}(Tensor y, *, {_dx} dx=1, int dim=-1)")
_TO_FLAGS = ("bool non_blocking=False, bool copy=False, *, "  # Tensor.to (ops/__init__.py)
             "torch.memory_format? memory_format=None")
SIGNATURES["Tensor.to"] = _overloads(
    f"to(torch.device? device=None, torch.dtype? dtype=None, {_TO_FLAGS})",
    f"to(torch.dtype dtype, {_TO_FLAGS})", f"to(Tensor~ tensor, {_TO_FLAGS})")
SIGNATURES.update({  # nn.functional's C functions (nn/_functional_*.py)
    "softplus": _overloads("softplus(Tensor input, Number beta=1, Number threshold=20)"),
    "hardshrink": _overloads("hardshrink(Tensor input, Number lambd=0.5)"),
    "softshrink": _overloads("softshrink(Tensor input, Number lambd=0.5)"),
    "pairwise_distance": _overloads("pairwise_distance(Tensor x1, Tensor x2, float p=2, "
                                    "float eps=1e-06, bool keepdim=False)"),
    "cosine_similarity": _overloads("cosine_similarity(Tensor x1, Tensor x2, int dim=1, "
                                    "float eps=1e-08)"),
    "one_hot": _overloads("one_hot(Tensor input, int num_classes=-1)"),
    "gelu": _overloads('gelu(Tensor input, *, str approximate="none")'),
    "avg_pool1d": _overloads("avg_pool1d(Tensor input, tuple of ints kernel_size, tuple of ints "
                             "stride=None, tuple of ints padding=0, bool ceil_mode=False, "
                             "bool count_include_pad=True)"),
})
for _name in ("conv1d", "conv2d", "conv3d"):  # nn/functional.py
    SIGNATURES[_name] = _overloads(*(
        f"{_name}(Tensor input, Tensor weight, Tensor? bias=None, tuple of ints stride=1, "
        f"{padding}, tuple of ints dilation=1, int groups=1)"
        for padding in ("tuple of ints padding=0", 'str padding="valid"')))
SIGNATURES["avg_pool2d"] = _overloads(  # nn/functional.py
    "avg_pool2d(Tensor input, tuple of ints kernel_size, tuple of ints stride=None, "
    "tuple of ints padding=0, bool ceil_mode=False, bool count_include_pad=True, "
    "int? divisor_override=None)")
SIGNATURES["pdist"] = _overloads("pdist(Tensor input, float p=2)")  # ops/distance.py
SIGNATURES["kthvalue"] = _overloads(  # _functions_reductions.py
    "kthvalue(Tensor input, int k, int dim=-1, bool keepdim=False, *, Tensor? out=None)")
SIGNATURES["Tensor.kthvalue"] = _overloads("kthvalue(int k, int dim=-1, bool keepdim=False)")
SIGNATURES["flip"] = _overloads("flip(Tensor input, int[] dims)")  # _functions_shape.py
SIGNATURES["tile"] = _overloads("tile(Tensor input, int[] dims)")
SIGNATURES["reshape"] = _overloads("reshape(Tensor input, int[] shape)")  # _functions.py
SIGNATURES["permute"] = _overloads("permute(Tensor input, int[] dims)")
SIGNATURES["rot90"] = _overloads("rot90(Tensor input, int k=1, int[] dims=[0,1])")
SIGNATURES["Tensor.rot90"] = _overloads("rot90(int k=1, int[] dims=[0,1])")
for _name in ("movedim", "moveaxis"):  # _functions_shape.py, methods/shape.py
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor input, int[] source, int[] destination)",
                                   f"{_name}(Tensor input, int source, int destination)")
    SIGNATURES["Tensor." + _name] = _overloads(f"{_name}(int[] source, int[] destination)",
                                               f"{_name}(int source, int destination)")
# sort and argsort: stable only by keyword (its overload first); _functions_reductions.py and
# methods/reductions.py
SIGNATURES["sort"] = _overloads(
    "sort(Tensor input, *, bool~ stable, int dim=-1, bool descending=False, "
    "tuple of Tensors out=None)",
    "sort(Tensor input, int dim=-1, bool descending=False, *, tuple of Tensors out=None)")
SIGNATURES["Tensor.sort"] = _overloads(
    "sort(*, bool~ stable, int dim=-1, bool descending=False)",
    "sort(int dim=-1, bool descending=False)")
SIGNATURES["argsort"] = _overloads(
    "argsort(Tensor input, *, bool stable, int dim=-1, bool descending=False, Tensor out=None)",
    "argsort(Tensor input, int dim=-1, bool descending=False)")
SIGNATURES["Tensor.argsort"] = _overloads(
    "argsort(*, bool stable, int dim=-1, bool descending=False)",
    "argsort(int dim=-1, bool descending=False)")
for _name in ("amax", "amin"):  # _functions_reductions.py, methods/reductions.py
    # (torch's parser takes None for this int[1] dim=[]: every dim)
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input, dims? dim=[], bool keepdim=False, *, Tensor? out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(f"{_name}(dims? dim=[], bool keepdim=False)")
for _name in ("nansum", "nanmean"):  # _functions_reductions.py, methods/reductions.py
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input, dims? dim=None, bool keepdim=False, *, "
        "torch.dtype? dtype=None, Tensor? out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(
        f"{_name}(dims? dim=None, bool keepdim=False, *, torch.dtype? dtype=None)")
for _name in ("sum", "mean"):  # _functions.py, tensor.py (Note: positional and keyword dims)
    # (torch's dim_DimnameList overloads are hidden: they never print; dim=None is every dim)
    _out = ", Tensor out=None" if _name == "mean" else ""  # (torch.sum's has no out)
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input, *, torch.dtype dtype=None{_out})",
        f"{_name}(Tensor input, dims~ dim, bool keepdim=False, *, torch.dtype dtype=None, "
        "Tensor out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(
        f"{_name}(*, torch.dtype dtype=None)",
        f"{_name}(dims~ dim, bool keepdim=False, *, torch.dtype dtype=None)")
for _name in ("all", "any"):  # _functions_reductions.py, methods/reductions.py
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input, *, Tensor out=None)",
        f"{_name}(Tensor input, dims dim=None, bool keepdim=False, *, Tensor out=None)",
        f"{_name}(Tensor input, int dim, bool keepdim=False, *, Tensor out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(
        f"{_name}()", f"{_name}(dims dim=None, bool keepdim=False)",
        f"{_name}(int dim, bool keepdim=False)")
# functions and methods taking one int dim (Note: parsed through the aliases' wrapper,
# _numpy_aliases.py; torch's Dimname overloads are hidden: they never print)
for _name, _params in (("softmax", "int dim, torch.dtype dtype=None"),
                       ("log_softmax", "int dim, torch.dtype dtype=None"),
                       ("unbind", "int dim=0"), ("unsqueeze", "int dim"),
                       ("chunk", "int chunks, int dim=0"),
                       ("flatten", "int start_dim=0, int end_dim=-1"),
                       ("transpose", "int dim0, int dim1"), ("swapdims", "int dim0, int dim1"),
                       ("swapaxes", "int axis0, int axis1"), ("select", "int dim, int index")):
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor input, {_params})")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(f"{_name}({_params})")
for _name, _params in (
        ("topk", "int k, int dim=-1, bool largest=True, bool sorted=True"),
        ("diff", "int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None"),
        ("index_select", "int dim, Tensor index"),
        ("gather", "int dim, Tensor index, *, bool sparse_grad=False")):
    _out = ", *, Tensor out=None" if "*" not in _params else ", Tensor out=None"
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor input, {_params}{_out})")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(f"{_name}({_params})")
# torch's Tensor.split (Python) calls its C split with every argument by position
SIGNATURES["split"] = _overloads("split(Tensor input, int split_size, int dim=0)",
                                 "split(Tensor input, int[] split_size, int dim=0)")
_SECTIONS = ("int[] indices", "Tensor tensor_indices_or_sections", "int sections")
SIGNATURES["tensor_split"] = _overloads(*(f"tensor_split(Tensor input, {first}, int dim=0)"
                                          for first in _SECTIONS))
SIGNATURES["Tensor.tensor_split"] = _overloads(*(f"tensor_split({first}, int dim=0)"
                                                 for first in _SECTIONS))
SIGNATURES["squeeze"] = _overloads("squeeze(Tensor input)", "squeeze(Tensor input, int dim)",
                                   "squeeze(Tensor input, int[] dim)")
SIGNATURES["Tensor.squeeze"] = _overloads("squeeze()", "squeeze(int dim)", "squeeze(int[] dim)")
for _name in ("cat", "stack"):
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor[] tensors, int dim=0, *, "
                                   "Tensor out=None)")
SIGNATURES["mode"] = _overloads(
    "mode(Tensor input, int dim=-1, bool keepdim=False, *, Tensor? out=None)")
SIGNATURES["Tensor.mode"] = _overloads("mode(int dim=-1, bool keepdim=False)")
SIGNATURES["count_nonzero"] = _overloads("count_nonzero(Tensor input, int? dim=None)",
                                          "count_nonzero(Tensor input, dims dim)")
SIGNATURES["Tensor.count_nonzero"] = _overloads("count_nonzero(int? dim=None)",
                                                "count_nonzero(dims dim)")
for _name in ("cumsum", "cumprod"):  # _functions_reductions.py
    SIGNATURES[_name] = _overloads(
        f"{_name}(Tensor input, int dim, *, torch.dtype? dtype=None, Tensor? out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(f"{_name}(int dim, *, torch.dtype? dtype=None)")
for _name in ("cummax", "cummin", "logcumsumexp"):  # ops/scans_extra.py
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor input, int dim, *, Tensor? out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(f"{_name}(int dim)")
SIGNATURES["aminmax"] = _overloads(  # ops/stats_extra.py
    "aminmax(Tensor input, *, int? dim=None, bool keepdim=False, Tensor? out=None)")
SIGNATURES["Tensor.aminmax"] = _overloads("aminmax(*, int? dim=None, bool keepdim=False)")
SIGNATURES["cov"] = _overloads(  # ops/stats_composite.py
    "cov(Tensor input, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None)")
SIGNATURES["Tensor.cov"] = _overloads(
    "cov(*, int correction=1, Tensor? fweights=None, Tensor? aweights=None)")
SIGNATURES["renorm"] = _overloads(  # ops/stats_extra.py
    "renorm(Tensor input, Number p, int dim, Number maxnorm, *, Tensor? out=None)")
SIGNATURES["Tensor.renorm"] = _overloads("renorm(Number p, int dim, Number maxnorm)")
SIGNATURES["Tensor.renorm_"] = _overloads("renorm_(Number p, int dim, Number maxnorm)")
SIGNATURES["histogram"] = _overloads(  # ops/histogram.py
    "histogram(Tensor input, Tensor bins, *, Tensor? weight=None, bool density=False, "
    "Tensor? out=None)",
    "histogram(Tensor input, int bins=100, *, float[]? range=None, Tensor? weight=None, "
    "bool density=False, Tensor? out=None)")
SIGNATURES["Tensor.histogram"] = _overloads(
    "histogram(Tensor bins, *, Tensor? weight=None, bool density=False)",
    "histogram(int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False)")
for _name in ("quantile", "nanquantile"):  # ops/stats_composite.py
    SIGNATURES[_name] = _overloads(*(
        f"{_name}(Tensor input, {q} q, int? dim=None, bool keepdim=False, *, "
        "str interpolation=\"linear\", Tensor? out=None)" for q in ("Tensor", "float")))
    SIGNATURES[f"Tensor.{_name}"] = _overloads(*(
        f"{_name}({q} q, int? dim=None, bool keepdim=False, *, str interpolation=\"linear\")"
        for q in ("Tensor", "float")))
for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):  # leafgrad/fft.py
    SIGNATURES[f"fft_{_name}"] = _overloads(
        f"fft_{_name}(Tensor input, int? n=None, int dim=-1, str? norm=None, *, "
        "Tensor? out=None)")
for _name in ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"):
    SIGNATURES[f"fft_{_name}"] = _overloads(
        f"fft_{_name}(Tensor input, tuple of ints? s=None, tuple of ints? dim=None, "
        "str? norm=None, *, Tensor? out=None)")
for _name in ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"):
    SIGNATURES[f"fft_{_name}"] = _overloads(
        f"fft_{_name}(Tensor input, tuple of ints? s=None, tuple of ints dim=(-2, -1), "
        "str? norm=None, *, Tensor? out=None)")
for _name in ("fftshift", "ifftshift"):
    SIGNATURES[f"fft_{_name}"] = _overloads(f"fft_{_name}(Tensor input, tuple of ints? dim=None)")
for _name in ("eq", "ne", "lt", "le", "gt", "ge", "fmod"):
    SIGNATURES[_name] = _binary(_name)
    SIGNATURES[f"Tensor.{_name}"] = _binary(_name, method=True)
    SIGNATURES[f"Tensor.{_name}_"] = _binary(f"{_name}_", method=True)
for _name in ("greater", "greater_equal", "less", "less_equal", "not_equal"):
    SIGNATURES[f"Tensor.{_name}_"] = _binary(f"{_name}_", method=True)
SIGNATURES["remainder"] = _binary("remainder", number_self=True)
SIGNATURES["Tensor.remainder"] = _binary("remainder", method=True)
SIGNATURES["Tensor.remainder_"] = _binary("remainder_", method=True)
for _name in ("add", "sub", "subtract"):
    SIGNATURES[_name] = _arith(_name)
    SIGNATURES[f"Tensor.{_name}"] = _arith(_name, method=True)
    SIGNATURES[f"Tensor.{_name}_"] = _arith(f"{_name}_", method=True)
for _name in ("addcmul", "addcdiv"):
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor input, Tensor tensor1, Tensor tensor2, *, "
                                   "Number value=1, Tensor? out=None)")
    SIGNATURES[f"Tensor.{_name}"] = _overloads(
        f"{_name}(Tensor tensor1, Tensor tensor2, *, Number value=1)")
    SIGNATURES[f"Tensor.{_name}_"] = _overloads(
        f"{_name}_(Tensor tensor1, Tensor tensor2, *, Number value=1)")
for _name in ("mul", "multiply", "div", "divide", "true_divide", "floor_divide"):
    SIGNATURES[_name] = _arith(_name, alpha=False)
    SIGNATURES[f"Tensor.{_name}"] = _arith(_name, method=True, alpha=False)
    SIGNATURES[f"Tensor.{_name}_"] = _arith(f"{_name}_", method=True, alpha=False)
for _name in ("maximum", "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "logaddexp",
              "logaddexp2", "logical_and", "logical_or", "logical_xor"):
    SIGNATURES[_name] = _tensor_pair(_name)
    SIGNATURES[f"Tensor.{_name}"] = _tensor_pair(_name, method=True)
    SIGNATURES[f"Tensor.{_name}_"] = _tensor_pair(f"{_name}_", method=True)

# -- factories (torch's python_torch_functions signatures; leafgrad's functions call ``parsed``)
_OPTIONS = ("torch.dtype dtype=None, torch.layout layout=None, torch.device device=None, "
            "bool pin_memory=False, bool requires_grad=False")
_MADE = f"Tensor out=None, {_OPTIONS}"
_LIKE = f"torch.memory_format memory_format=None, {_OPTIONS}"
SIGNATURES.update({
    "full": _overloads(f"full(tuple of ints size, Number fill_value, *, {_MADE})"),
    "eye": _overloads(f"eye(int n, *, {_MADE})", f"eye(int n, int m, *, {_MADE})"),
    "arange": _overloads(f"arange(Number end, *, {_MADE})",
                         f"arange(Number start, Number end, *, {_OPTIONS})",
                         f"arange(Number start, Number end, Number step=1, *, {_MADE})"),
    "range": _overloads(f"range(Number start, Number end, Number step=1, *, {_MADE})"),
    "randint": _overloads(
        f"randint(int high, tuple of ints size, *, torch.Generator generator, {_MADE})",
        f"randint(int high, tuple of ints size, *, {_MADE})",
        f"randint(int low, int high, tuple of ints size, *, torch.Generator generator, {_MADE})",
        f"randint(int low, int high, tuple of ints size, *, {_MADE})"),
    "randperm": _overloads(f"randperm(int n, *, torch.Generator generator, {_MADE})",
                           f"randperm(int n, *, {_MADE})"),
    "linspace": _overloads(*(f"linspace({start} start, {end} end, int steps, *, {_MADE})"
                             for start, end in (("Tensor", "Tensor"), ("Number", "Tensor"),
                                                ("Tensor", "Number"), ("Number", "Number")))),
    "logspace": _overloads(*(f"logspace({start} start, {end} end, int steps, float base=10.0, "
                             f"*, {_MADE})"
                             for start, end in (("Tensor", "Tensor"), ("Number", "Tensor"),
                                                ("Tensor", "Number"), ("Number", "Number")))),
    "normal": _overloads(
        "normal(Tensor mean, Tensor std, *, torch.Generator generator=None, Tensor out=None)",
        "normal(Tensor mean, float std=1, *, torch.Generator generator=None, Tensor out=None)",
        "normal(float mean, Tensor std, *, torch.Generator generator=None, Tensor out=None)",
        "normal(float mean, float std, tuple of ints size, *, torch.Generator generator=None, "
        f"{_MADE})"),
    "empty_strided": _overloads(
        f"empty_strided(tuple of ints size, tuple of ints stride, *, {_OPTIONS})"),
    "tensor": _overloads("tensor(PyObject* data, *, torch.dtype dtype=None, "
                         "torch.device device=None, bool pin_memory=False, "
                         "bool requires_grad=False)"),
    "as_tensor": _overloads("as_tensor(PyObject* data, *, torch.dtype dtype=None, "
                            "torch.device device=None)"),
    "full_like": _overloads(f"full_like(Tensor input, Number fill_value, *, {_LIKE})"),
    "randint_like": _overloads(*(
        f"randint_like(Tensor input, {params}, *, {generator}{_LIKE})"
        for params in ("int low, int high", "Tensor high", "int high")
        for generator in ("torch.Generator generator, ", ""))),
    "tril_indices": _overloads(
        "tril_indices(int row, int col, int offset=0, *, torch.dtype dtype=None, "
        "torch.layout layout=None, torch.device device=None, bool pin_memory=False, "
        "bool requires_grad=False)"),
    "complex": _overloads("complex(Tensor real, Tensor imag, *, Tensor out=None)"),
    "polar": _overloads("polar(Tensor abs, Tensor angle, *, Tensor out=None)"),
})
SIGNATURES["triu_indices"] = _overloads(
    str(SIGNATURES["tril_indices"][0].name).replace("tril", "triu")
    + str(SIGNATURES["tril_indices"][0]))
SIGNATURES["Tensor.as_subclass"] = _overloads("as_subclass(PyObject* cls)")
SIGNATURES["conv_tbc"] = _overloads("conv_tbc(Tensor input, Tensor weight, Tensor bias, int pad=0)")
for _name in ("zeros_like", "ones_like", "empty_like"):
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor input, *, {_LIKE})")
for _name in ("rand_like", "randn_like"):
    SIGNATURES[_name] = _overloads(f"{_name}(Tensor input, *, torch.Generator generator, {_LIKE})",
                                   f"{_name}(Tensor input, *, {_LIKE})")

# torch's overloads of div, divide, subtract and multiply (the aliases have more than the names
# they alias): which of them are plausible for the count of arguments given decides between
# naming the misfit and listing them (torch.div(t, 3, alpha=2) lists, torch.multiply(t, 3,
# alpha=2) names alpha)
_DIV_MODE = "str~ rounding_mode"
SIGNATURES["div"] = _overloads(
    "div(Tensor~ input, Tensor~ other, *, Tensor? out=None)",
    f"div(Tensor~ input, Tensor~ other, *, {_DIV_MODE}, Tensor? out=None)",
    f"div(Tensor~ input, Number other, *, {_DIV_MODE})")
SIGNATURES["divide"] = _overloads(
    "divide(Tensor~ input, Tensor~ other, *, Tensor? out=None)",
    f"divide(Tensor~ input, Tensor~ other, *, {_DIV_MODE}, Tensor? out=None)",
    "divide(Tensor~ input, Number other)",
    f"divide(Tensor~ input, Number other, *, {_DIV_MODE})")
for _name in ("div", "div_"):
    SIGNATURES[f"Tensor.{_name}"] = _overloads(
        f"{_name}(Tensor~ other)", f"{_name}(Tensor~ other, *, {_DIV_MODE})",
        f"{_name}(Number other, *, {_DIV_MODE})")
for _name in ("divide", "divide_"):
    SIGNATURES[f"Tensor.{_name}"] = _overloads(
        f"{_name}(Tensor~ other)", f"{_name}(Tensor~ other, *, {_DIV_MODE})",
        f"{_name}(Number other)", f"{_name}(Number other, *, {_DIV_MODE})")
SIGNATURES["subtract"] = _overloads(
    "subtract(Tensor~ input, Tensor~ other, *, Number alpha=1, Tensor? out=None)",
    "subtract(Tensor~ input, Number other, Number alpha=1)")
SIGNATURES["Tensor.subtract"] = _overloads("subtract(Tensor~ other, *, Number alpha=1)",
                                           "subtract(Number other, Number alpha=1)")
SIGNATURES["multiply"] = _overloads("multiply(Tensor~ input, Tensor~ other, *, Tensor? out=None)",
                                    "multiply(Tensor~ input, Number other)")
SIGNATURES["Tensor.multiply"] = _overloads("multiply(Tensor~ other)", "multiply(Number other)")
SIGNATURES["true_divide"] = _overloads(
    "true_divide(Tensor~ input, Tensor~ other, *, Tensor? out=None)",
    "true_divide(Tensor~ input, Number other)")

# the random in-place fills: their parameters are C doubles (a 0-d tensor only when it does not
# require grad; no str, None or complex)
for _name, _params in (("uniform_", "float from=0, float to=1"),
                       ("normal_", "float mean=0, float std=1"),
                       ("exponential_", "float lambd=1"), ("geometric_", "float p"),
                       ("log_normal_", "float mean=1, float std=2"),
                       ("cauchy_", "float median=0, float sigma=1")):
    SIGNATURES[f"Tensor.{_name}"] = _overloads(
        f"{_name}({_params}, *, torch.Generator generator=None)")
SIGNATURES["bernoulli"] = _overloads(
    "bernoulli(Tensor input, *, torch.Generator generator=None, Tensor out=None)",
    "bernoulli(Tensor input, float p, *, torch.Generator generator=None)")
SIGNATURES["Tensor.bernoulli"] = _overloads("bernoulli(*, torch.Generator generator=None)",
                                            "bernoulli(float p, *, torch.Generator generator=None)")


class _NotGiven:
    """The default of a parameter whose explicit None torch's parser refuses (bernoulli's p)."""

    def __repr__(self) -> str:
        return "<not given>"


NOT_GIVEN = _NotGiven()


def fill_doubles(function: str, *values) -> list:
    """A random fill's float parameters (``uniform_``'s from and to...) as torch's parser
    reads C doubles; one it refuses raises a TypeError, which ``parsed`` (on the method)
    replaces by torch's message for the call as given (positional or keyword)."""
    for value in values:
        if value.__class__ is not float and value.__class__ is not int:
            break
    else:
        return values
    return doubles(function, *((f"#{i}", v, None, "float") for i, v in enumerate(values)))


# torch's Tensor.multiply_ and subtract_ have a Number overload of their own (mul_/sub_ do not)
SIGNATURES["Tensor.multiply_"] = _overloads("multiply_(Tensor other)", "multiply_(Number other)")
SIGNATURES["Tensor.subtract_"] = _overloads("subtract_(Tensor other, *, Number alpha=1)",
                                            "subtract_(Number other, Number alpha=1)")


def given(*args) -> tuple:
    """``args`` without its trailing Nones: the arguments a call gave when its optional
    parameters default to None (torch lists only those in "got (...)")."""
    end = len(args)
    while end and args[end - 1] is None:
        end -= 1
    return args[:end]


def _got(args: tuple, kwargs: dict) -> str:
    parts = [typename(a) for a in args]
    # torch lists the keywords in the reverse of the order they were passed, and ends a
    # keywords-only list with a separator: "(dim=NoneType, input=Tensor, )" for input=, dim=
    parts += [f"{key}={typename(value)}" for key, value in reversed(list(kwargs.items()))]
    return ", ".join(parts) + (", " if kwargs and not args else "")


def error(name: str, args: tuple, kwargs: dict | None = None) -> TypeError | None:
    """torch's TypeError for calling ``name`` (a key of SIGNATURES) with ``args``/``kwargs``,
    or None when one of its overloads accepts them."""
    kwargs = {k: v for k, v in (kwargs or {}).items() if not (k == "out" and v is None)}
    overloads = SIGNATURES[name]
    misfits = []
    for signature in overloads:
        misfit = signature.bind(args, kwargs)
        if misfit is None:
            return _unpacked(signature, args, kwargs)
        misfits.append(misfit)
    function = overloads[0].name
    # torch names the failing argument when only one overload is "plausible": the count of
    # arguments given (positional and keyword) lies between its required and its total count
    # of parameters (PythonArgParser::print_error); it lists the overloads otherwise
    count = len(args) + len(kwargs)
    plausible = [i for i, signature in enumerate(overloads)
                 if signature.min_args <= count <= len(signature.params)]
    if len(overloads) > 1 and len(plausible) == 1:
        overloads, misfits = (overloads[plausible[0]],), [misfits[plausible[0]]]
    if len(overloads) > 1:
        listing = "\n".join(f" * {signature}" for signature in overloads)
        return TypeError(
            f"{function}() received an invalid combination of arguments - got "
            f"({_got(args, kwargs)}), but expected one of:\n{listing}\n")
    kind, details = misfits[0]
    signature = overloads[0]
    if kind == "type":
        param, value, position = details
        where = f" (position {position})" if position is not None else ""
        expected = _SPELLED.get(param.type, param.type).rstrip("~")
        if param.type in _SPELLED and isinstance(value, (tuple, list)) and where:
            # (its first item; given by keyword, torch names the sequence's type instead)
            return TypeError(f"{function}(): argument '{param.name}'{where} must be {expected}, "
                             f"but found element of type {typename(value[0])} at pos 0")
        if expected == "tuple of ints" and isinstance(value, (tuple, list)) \
                and param.name in ("size", "stride"):  # SymInt[] parameters name the element
            position_in = next(i for i, item in enumerate(value) if not _is_int(item))
            return TypeError(f"{function}(): argument '{param.name}'{where} must be {expected}, "
                             f"but found element of type {typename(value[position_in])} at pos "
                             f"{position_in}")
        return TypeError(f"{function}(): argument '{param.name}'{where} must be {expected}, "
                         f"not {typename(value)}")
    if kind == "element":
        item_index, argument, item = details
        return TypeError(f"expected Tensor as element {item_index} in argument {argument}, but "
                         f"got {typename(item)}")
    if kind == "missing":
        names = ", ".join(f'"{n}"' for n in details)
        # torch's plural is the wrong way round: "1 ... arguments", "2 ... argument"
        plural = "s" if len(details) == 1 else ""
        return TypeError(f"{function}() missing {len(details)} required positional "
                         f"argument{plural}: {names}")
    if kind == "twice":
        return TypeError(f"{function}() got multiple values for argument '{details}'")
    if kind == "unknown":
        return TypeError(f"{function}() got an unexpected keyword argument '{details}'")
    # torch's extra_args: the signature's min_args (its required keyword-only parameters
    # too: sort's stable) against its max_pos_args
    count = len(signature.positional)
    required = signature.min_args
    if required != count:
        return TypeError(f"{function}() takes from {required} to {count} positional arguments "
                         f"but {details} were given")
    plural = "argument" if count == 1 else "arguments"
    verb = "was" if details == 1 else "were"  # torch: "takes 0 positional arguments but 1 was given"
    return TypeError(f"{function}() takes {count} positional {plural} but {details} {verb} given")


def _unpacked(signature: Signature, args: tuple, kwargs: dict) -> TypeError | None:
    """After ``signature`` matched a call: the error for an item of one of its int lists that
    torch cannot read as an int (Note: int lists as torch's parser reads them), or None."""
    for index, param in enumerate(signature.params):
        if param.type not in _SPELLED or param.type == "Tensor[]":
            continue
        if index < len(args) and not param.keyword_only:
            value = args[index]
        else:
            value = kwargs.get(param.name)
        if isinstance(value, (tuple, list)):
            problem = _unpack_error(signature.name, param.name, value)
            if problem is not None:
                return problem
    return None


def parsed(name: str, method: bool = False, keywords: tuple = ()):
    """Decorate a function declared in SIGNATURES whose body checks only the cheap cases:
    when the call raises (Python's own "missing 1 required positional argument", a NumPy
    error from an argument of the wrong type...) and no overload of ``name`` accepts it, raise
    torch's parser error instead, as torch raises it before doing anything. A valid call pays
    for one wrapper frame only (measured in test_left2_findings' report: ~0.1 us).
    ``keywords``: parameters whose meaning depends on being given by keyword, which the body
    cannot see (var's ``dim``: positionally a bool is the legacy ``unbiased``, by keyword it
    is refused): a call giving one of them by keyword is checked first."""

    def decorate(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            if kwargs and keywords and any(key in kwargs for key in keywords):
                problem = error(name, args[1:] if method else args, kwargs)
                if problem is not None:
                    raise problem
            try:
                return fn(*args, **kwargs)
            except Exception:
                if not method:  # (a tensor-like argument: overrides.py)
                    from . import overrides

                    result = overrides.dispatch_after_failure(checked, args, kwargs)
                    if result is not overrides.NOT_DISPATCHED:
                        return result
                problem = error(name, args[1:] if method else args, kwargs)
                if problem is None:
                    raise
                raise problem from None

        checked.parsed_name = name  # (takes_out: the error of a call with out=, _out.py)
        return checked

    return decorate


def declared(name: str):
    """Mark a function (``Tensor.<name>``: a method) declared in SIGNATURES under ``name``
    whose wrapper already catches its failures (``_out.takes_out``, the wrapper of every
    function taking a dim: Note: parsed through the aliases' wrapper, _numpy_aliases.py): there
    the parser's error for the call as given replaces a TypeError of its body, and a valid call
    pays nothing more."""

    def decorate(fn):
        fn.parsed_name = name
        return fn

    return decorate


def refuse_none(name: str, parameter: str, position: int, method: bool = False):
    """Decorate a function whose ``parameter`` (at ``position`` among the arguments as torch
    counts them) defaults to None for "not given": torch's overloads take no None there, so an
    explicit None is its parser's error (declared in SIGNATURES). The parameter is an int
    (a dim): given by keyword, it selects the overload with it, so a tensor there is read as
    an int (``max(x, dim=tensor(1))``, which positionally is ``max(x, other)``) or refused;
    and the overloads without it take no ``keepdim`` (``median(x, keepdim=True)``)."""

    def decorate(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            given = args[1:] if method else args
            if kwargs:
                value = kwargs.get(parameter, 0)
                if value is None or _is_tensor(value) or \
                        "keepdim" in kwargs and parameter not in kwargs and len(given) <= position:
                    problem = error(name, given, kwargs)
                    if problem is not None:
                        raise problem
                    if value is not None and _is_tensor(value):
                        kwargs[parameter] = int(value.item())
            if len(given) > position and given[position] is None:
                raise error(name, given, kwargs)
            return fn(*args, **kwargs)

        return checked

    return decorate


def check_alias(name: str, args: tuple, kwargs: dict) -> None:
    """Raise torch's parser error for calling the alias ``name`` (multiply, subtract, divide and
    their methods) with ``args`` and the keywords of ``kwargs`` that were given (not NO_MODE),
    if its overloads refuse them (Note: aliases' errors, _functions.py)."""
    other = args[1] if not name.startswith("Tensor.") and len(args) > 1 else args[0]
    given = {key: value for key, value in kwargs.items() if value is not NO_MODE}
    if given or len(args) > (1 if name.startswith("Tensor.") else 2) \
            or other.__class__ not in NUMBERS and not _is_tensor(other):
        refused = error(name, args, given)
        if refused is not None:
            raise refused


# torch functions taking a Tensor ``input`` first whose parser has several overloads (its
# error for a non-Tensor lists them); the others name the argument
_SEVERAL_OVERLOADS = frozenset(("all", "any", "clamp", "clamp_", "clamp_max_", "clamp_min_",
                                "clip", "clip_", "fill_", "xlogy_"))


def not_a_tensor(fn, args: tuple, kwargs: dict) -> TypeError | None:
    """torch's parser error for a function whose Tensor ``input`` (first) was given something
    else (``torch.exp({})``, ``torch.sum("a")``, a list, an ndarray), which leafgrad's body
    failed on with an AttributeError; None when ``input`` is a Tensor (the error is another)."""
    given = args[0] if args else kwargs.get("input")
    if given is None and not args and "input" not in kwargs or _is_tensor(given):
        return None
    parsed = getattr(fn, "parsed_name", None)
    if parsed is not None:
        return error(parsed, args, kwargs)
    name = fn.__name__
    if name in _SEVERAL_OVERLOADS:
        return invalid_combination(name, args, kwargs)
    where = " (position 1)" if args else ""
    return TypeError(f"{name}(): argument 'input'{where} must be Tensor, not {typename(given)}")


def invalid_combination(name: str, args: tuple, kwargs: dict) -> TypeError:
    """torch's multi-overload message for a function whose overloads are not declared here
    (the factories' name/generator overloads): the first line, which names what was given."""
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({_got(args, kwargs)}), but expected one of:")


def varargs_keyword(positional: tuple, keyword, method: str, argument: str) -> tuple:
    """The varargs of a method taking sizes or dims as ``*args`` (``x.permute(1, 0)``), called
    by torch's keyword instead (``x.permute(dims=(1, 0))``): there the value is one sequence,
    and positional values may not come with it."""
    if positional:
        raise TypeError(f"{method}() got multiple values for argument '{argument}'")
    if not isinstance(keyword, (tuple, list)):
        raise TypeError(f"{method}(): argument '{argument}' must be tuple of ints, not "
                        f"{type(keyword).__name__}")
    return (tuple(keyword),)


def scalar(value):
    """A Number argument as a Python number (NumPy scalars and 0-d tensors accepted by the
    checker become plain numbers, which stay weak in type promotion)."""
    if isinstance(value, np.generic):
        return numpy_scalar(value)
    if isinstance(value, np.ndarray) or _is_tensor(value):
        return value.item()
    return value


def number(function: str, name: str, value, position: int | None = None, kind: str = "Number",
           overloads: tuple | None = None, into=None, names: dict | None = None):
    """A Scalar argument as torch's parser takes it: a Python number, a NumPy number (read as
    ``numpy_scalar``), a 0-d tensor that does not require grad (its item). Anything else is
    torch's TypeError: "<function>(): argument '<name>' (position <n>) must be Number, not
    <type>", or for a function of several overloads (``overloads``: the call's positional
    arguments and keywords as given) its "received an invalid combination" line. ``kind``
    "float": torch's ``double`` arguments (no complex). ``into``: the tensor whose kernel
    converts the number (``real_scalar`` with ``names``)."""
    cls = value.__class__
    if cls is float or cls is int or cls is bool:
        return value
    if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
        return value  # (np.float64 is a Python float: read below, as a weak Python number)
    if kind == "Number" and isinstance(value, complex) and not isinstance(value, np.generic):
        complex_seen()
        value = complex(value)  # (np.complex128 too)
        return value if into is None else real_scalar(value, into.dtype, names or SCALAR_T)
    if kind == "float" and isinstance(value, np.complexfloating):
        return float(value)  # (read by its __float__, as torch's parser reads it: NumPy warns)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        value = numpy_scalar(value)
        if value.__class__ is complex:
            if kind == "float":
                return value.real
            complex_seen()
            return value if into is None else real_scalar(value, into.dtype, names or SCALAR_T)
        return value
    if _is_tensor(value) and value.ndim == 0 and not value.requires_grad:
        value = value.item()
        if kind == "float" and value.__class__ is complex:  # (a double: c10's conversion)
            return real_scalar(value, _dtype_float64(), DOUBLE_T)
        return value if into is None else real_scalar(value, into.dtype, names or SCALAR_T)
    if overloads is not None:
        raise invalid_combination(function, *overloads)
    where = f" (position {position})" if position is not None else ""
    raise TypeError(f"{function}(): argument '{name}'{where} must be {kind}, not "
                    f"{typename(value)}")


def doubles(function: str, *given) -> list:
    """Arguments torch's parser reads as C doubles or bools (eps, momentum, training...), given
    as ``(name, value, position, kind)`` with kind "float" ("float?": None allowed), "bool",
    "Number", "int" or "SymInt": their values, a float one as ``number`` reads it (NumPy
    numbers, 0-d tensors), or its TypeError ("layer_norm(): argument 'eps' (position 5) must
    be float, not list"). Callers test the common classes first."""
    values = []
    for name, value, position, kind in given:
        if kind == "bool":
            values.append(value if value.__class__ is bool else bool_arg(
                function, name, value, position))
        elif kind == "int" or kind == "SymInt":
            values.append(value if value.__class__ is int else int_arg(
                function, name, value, position, symint=kind == "SymInt"))
        elif kind == "float?" and value is None:
            values.append(None)
        elif value.__class__ is float or value.__class__ is int:
            values.append(value)
        elif kind == "Number":  # (a bool as the kernel's scalar_t reads it: 0 or 1)
            value = number(function, name, value, position)
            values.append(int(value) if value.__class__ is bool else value)
        else:  # a double: a bool is its value as a number
            value = number(function, name, value, position, kind="float")
            values.append(float(value) if value.__class__ is bool else value)
    return values


def operand(function: str, value, args: tuple, kwargs: dict | None = None):
    """A ``Tensor``-or-``Number`` argument (xlogy's ``other``, a bitwise op's...): a tensor as
    it is, a Python number, a NumPy number read as ``numpy_scalar``; anything else (None, a
    list, an array, a string) is torch's "received an invalid combination" line naming
    ``args``/``kwargs``, the call as given."""
    cls = value.__class__
    if cls is float or cls is int or cls is bool or _is_tensor(value):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        value = numpy_scalar(value)  # (first: np.float64 is a Python float, but not weak)
    elif isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, complex):
        complex_seen()
        return complex(value)  # (np.complex128 too)
    if isinstance(value, (int, float)):
        return value
    raise invalid_combination(function, args, kwargs or {})


def complex_seen() -> None:
    """A complex Python number reached an op: install the check refusing complex operands in
    ops without complex support (Note: complex support, ops/registry.py), which otherwise
    waits for the first complex tensor."""
    while _dtype._first_complex:
        _dtype._first_complex.pop()()


# Note: complex Scalars into real kernels
# A kernel converts a Scalar argument to its C type with c10's checked conversion: a complex
# number without an imaginary part becomes its real part, one with an imaginary part is
# "value cannot be converted to type float without overflow", naming the type, which depends
# on the kernel: its scalar_t (index_add), its opmath type (float for float16: threshold),
# either for floating dtypes only (activations, whose integer dtypes their kernel refuses
# first), double (softshrink) or double/int64_t (clamp, hardtanh). Each table maps a dtype's name to that type;
# a dtype missing from it gets the real part (and the kernel its own error).
_INT_T = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t",
          "uint8": "uint8_t"}
FLOAT_SCALAR_T = {"float32": "float", "float64": "double", "float16": "c10::Half",
                  "bfloat16": "c10::BFloat16"}
SCALAR_T = {**FLOAT_SCALAR_T, **_INT_T}
FLOAT_OPMATH_T = {"float32": "float", "float64": "double", "float16": "float",
                  "bfloat16": "float"}
OPMATH_T = {**FLOAT_OPMATH_T, **_INT_T}
DOUBLE_T = dict.fromkeys(FLOAT_SCALAR_T, "double")
WIDE_T = {**DOUBLE_T, **dict.fromkeys(_INT_T, "int64_t")}


def real_scalar(value, dtype, names: dict = SCALAR_T):
    """A Scalar as the kernel for a tensor of ``dtype`` converts it (Note: complex Scalars into
    real kernels): a complex number into a real kernel by its real part, or torch's conversion
    error naming ``names[dtype]``."""
    if value.__class__ is not complex or dtype.is_complex:
        return value
    name = names.get(dtype.name)
    if name is not None and value.imag != 0:
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value.real


def beta_alpha(function: str, args: tuple, beta, alpha, several: bool = False) -> tuple:
    """addmm/baddbmm/addbmm's ``beta`` and ``alpha`` (Numbers); ``several``: torch's function
    has several overloads, and its error lists the call's arguments."""
    given = {key: value for key, value in (("beta", beta), ("alpha", alpha)) if
             not (value.__class__ is int and value == 1)}
    overloads = (args, given) if several else None
    beta = number(function, "beta", beta, overloads=overloads)
    alpha = number(function, "alpha", alpha, overloads=overloads)
    return beta, alpha


def numpy_scalar(value):
    """A NumPy scalar as torch reads it for a Scalar argument (python_arg_parser's
    scalar_slow): NumPy integers as int, complex128 (a Python complex) as complex, every
    other (np.bool_ too) as float, so complex64 loses its imaginary part with NumPy's
    ComplexWarning; then it is weak in type promotion like the Python number."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, complex):  # (np.complex128 is a Python complex)
        return complex(value)
    return float(value)


def numpy_operand(value):
    """A NumPy scalar operand as torch reads it (numpy_scalar); anything else as it is."""
    return numpy_scalar(value) if isinstance(value, np.generic) else value


def check(name: str, args: tuple, kwargs: dict | None = None) -> None:
    """Raise torch's TypeError unless an overload of ``name`` accepts the call."""
    problem = error(name, args, kwargs)
    if problem is not None:
        raise problem


class _NoMode:
    """``rounding_mode``'s default: not given (Note: an explicit rounding_mode=None,
    ops/math_binary.py); shown as None, which it means."""

    def __repr__(self) -> str:
        return "None"


NO_MODE = _NoMode()


class _NotGiven:
    """The default of a reduction's ``dim`` and ``keepdim`` (sum, mean, prod): torch's
    overload without ``dim`` takes no ``keepdim``, so ``x.sum(keepdim=True)`` is its
    invalid-combination error while ``x.sum(None, True)`` is not; shown as the value it
    stands for."""

    __slots__ = ("shown",)

    def __init__(self, shown):
        self.shown = shown

    def __repr__(self) -> str:
        return repr(self.shown)


DIM_NOT_GIVEN = NOT_GIVEN = _NotGiven(None)  # (NOT_GIVEN: other parameters shown as None)
KEEPDIM_NOT_GIVEN = _NotGiven(False)


def reduction_flags(function: str, args: tuple, dim, keepdim, dtype=None,
                    missing: bool = True) -> tuple:
    """sum/mean/prod's ``(dim, keepdim)`` from their not-given defaults: ``keepdim`` without
    ``dim`` is torch's TypeError (``args``: the positional arguments before ``dim``, for its
    message). With ``dtype`` too, torch's parser finds the overload with ``dim`` plausible
    and says ``dim`` is missing (``missing=False``: torch.mean, whose three overloads all stay
    plausible, lists them)."""
    if dim is DIM_NOT_GIVEN:
        if keepdim is not KEEPDIM_NOT_GIVEN:
            name = function.rpartition(".")[2]
            if dtype is not None and missing:
                raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
            given = {"keepdim": keepdim} if dtype is None else {"keepdim": keepdim,
                                                               "dtype": dtype}
            problem = error(function, args, given) if function in SIGNATURES else None
            raise problem or invalid_combination(name, args, given)
        return None, False
    return dim, (False if keepdim is KEEPDIM_NOT_GIVEN else keepdim)


def dtype_arg(function: str, value, position: int | None = None, overloads: tuple | None = None):
    """A ``dtype=`` argument as a leafgrad dtype: torch's dtypes, or Python's ``int``/
    ``float``/``bool`` (torch maps them to int64/float64/bool); anything else is torch's
    ``zeros(): argument 'dtype' must be torch.dtype, not str`` (or, for a function of several
    overloads, ``overloads``: its "invalid combination" line). None stays None."""
    if value is None or isinstance(value, _dtype.dtype):
        return value
    python_types = {int: _dtype.int64, float: _dtype.float64, bool: _dtype.bool,
                    complex: _dtype.complex128}
    for kind, resolved in python_types.items():
        if value is kind:
            return resolved
    if overloads is not None:
        raise invalid_combination(function, *overloads)
    where = f" (position {position})" if position is not None else ""
    raise TypeError(f"{function}(): argument 'dtype'{where} must be torch.dtype, not "
                    f"{typename(value)}")


def bool_arg(function: str, name: str, value, position: int | None = None,
             overloads: tuple | None = None) -> bool:
    """A ``bool`` argument (``keepdim``, ``requires_grad=``...): torch's parser takes a Python
    bool only (not 1, None, a NumPy or tensor bool); anything else is its TypeError, or for a
    function of several overloads (``overloads``) its "invalid combination" line."""
    if value.__class__ is bool:
        return value
    if overloads is not None:
        raise invalid_combination(function, *overloads)
    where = f" (position {position})" if position is not None else ""
    raise TypeError(f"{function}(): argument '{name}'{where} must be bool, not {typename(value)}")


def flags(function: str, args: tuple, **given) -> None:
    """Keyword-only bool flags of a function whose overloads all take them (isin's invert,
    searchsorted's right...): anything but a Python bool is torch's "invalid combination"
    line, listing ``args`` and the flag."""
    for name, value in given.items():
        if value.__class__ is not bool:
            raise invalid_combination(function, args, {name: value})


def keepdim(function: str, value, several: tuple | None = None) -> bool:
    """A reduction's ``keepdim`` (callers test ``value.__class__ is bool`` first): anything but
    a Python bool is torch's TypeError, spelled for the keyword form (``sum(x, 0,
    keepdim=1)``), as the position it was given in is not known here; ``several``: the
    function's overloads all take the call (mean, all, any), and its error lists these
    positional arguments."""
    if several is not None and value.__class__ is not bool:
        raise invalid_combination(function, several, {"keepdim": value})
    return bool_arg(function, "keepdim", value)


def factory_flags(function: str, requires_grad=False) -> bool:
    """A factory's ``requires_grad``: a bool, or None (torch's ``bool?``); anything else is
    torch's TypeError. The flag, as a bool."""
    if requires_grad.__class__ is not bool and requires_grad is not None:
        bool_arg(function, "requires_grad", requires_grad)
    return bool(requires_grad)


def int_list(function: str, name: str, value, position: int | None = None,
             sized: bool = True) -> tuple:
    """An int-list argument as a tuple of Python ints, read as torch's parser reads it (Note:
    int lists as torch's parser reads them): a tuple or list whose first item is an int and
    whose others unpack as ints, or, where the list has a size (``sized``: roll's ``int[1]``
    shifts), a lone int (NumPy integers and one-element integer tensors too). Anything else (a
    float, a bool, a tensor of several elements, None) is torch's TypeError."""
    if value.__class__ is int and sized:
        return (value,)
    where = f" (position {position})" if position is not None else ""
    if sized and is_int_item(value):
        return (_as_int(value),)
    if isinstance(value, (tuple, list)):
        if not value or is_int_item(value[0]):
            problem = _unpack_error(function, name, value)
            if problem is not None:
                raise problem
            return tuple(_as_int(item) for item in value)
        if position is not None:  # (by keyword, torch names the sequence's type instead)
            raise TypeError(f"{function}(): argument '{name}'{where} must be tuple of ints, "
                            f"but found element of type {typename(value[0])} at pos 0")
    raise TypeError(f"{function}(): argument '{name}'{where} must be tuple of ints, not "
                    f"{typename(value)}")


def _plain_ints(value) -> bool:
    cls = value.__class__
    return cls is int or (cls is tuple or cls is list) and all(v.__class__ is int for v in value)


def pool_options(function: str, kernel_size, stride, padding, dilation, ceil_mode) -> tuple:
    """A max pool's options as torch's F passes them, positionally, to its C function
    (``max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)``): int[] (NumPy
    integers and integer 0-d tensors read as ints; stride None: not given) and a bool, or that
    function's TypeError ("max_pool2d(): argument 'stride' (position 3) must be tuple of ints,
    not bool"). Plain ints pay one test each."""
    if _plain_ints(kernel_size) and (stride is None or _plain_ints(stride)) and \
            _plain_ints(padding) and _plain_ints(dilation) and ceil_mode.__class__ is bool:
        return kernel_size, stride, padding, dilation, ceil_mode
    kernel_size = int_list(function, "kernel_size", kernel_size, 2)
    if stride is not None:
        stride = int_list(function, "stride", stride, 3)
    padding = int_list(function, "padding", padding, 4)
    dilation = int_list(function, "dilation", dilation, 5)
    return kernel_size, stride, padding, dilation, bool_arg(function, "ceil_mode", ceil_mode, 6)


def movedim_dims(function: str, source, destination) -> tuple:
    """movedim's (moveaxis's) source and destination as torch's two overloads take them: both
    ints, or both int lists, as Python ints. Anything else raises a TypeError, which the
    caller's ``parsed`` wrapper replaces by torch's message for the call as given."""
    if _is_int(source) and _is_int(destination):
        return _as_int(source), _as_int(destination)
    return (int_list(function, "source", source, sized=False),
            int_list(function, "destination", destination, sized=False))


def plain_ints(value) -> bool:
    """A tuple or list of Python ints only: an int list that needs no parsing."""
    return (value.__class__ is tuple or value.__class__ is list) and \
        all(item.__class__ is int for item in value)


def varargs_int_list(function: str, name: str, args: tuple, keyword) -> tuple:
    """The int list of a method whose one positional parameter it is (``x.flip(0, 1)``,
    ``x.flip((0, 1))``, ``x.flip(dims=(0, 1))``; ``keyword`` is NOT_GIVEN when not given):
    torch reads the positional arguments themselves as the list when the first is an int, the
    one argument otherwise; its errors as torch's parser gives them."""
    if keyword is not NOT_GIVEN:
        if args:
            raise TypeError(f"{function}() got multiple values for argument '{name}'")
        return int_list(function, name, keyword, sized=False)
    if not args:
        raise TypeError(f'{function}() missing 1 required positional arguments: "{name}"')
    if _is_int(args[0], symint=True):
        return int_list(function, name, args, 1, sized=False)
    if len(args) > 1:
        raise TypeError(f"{function}() takes 1 positional argument but {len(args)} were given")
    return int_list(function, name, args[0], 1, sized=False)


def int_arg(function: str, name: str, value, position: int | None = None,
            overloads: tuple | None = None, symint: bool = False) -> int:
    """An ``int`` argument (a dim, a count): a Python int, a NumPy integer or an integer 0-d
    tensor (torch's parser reads both as the int); a bool, a float, None... is its TypeError
    ("must be int, not float"), or for a function of several overloads (``overloads``) its
    "invalid combination" line."""
    if value.__class__ is int:
        return value
    if _is_int(value, symint):
        return int(value) if not _is_tensor(value) else int(value.item())
    if overloads is not None:
        raise invalid_combination(function, *overloads)
    where = f" (position {position})" if position is not None else ""
    raise TypeError(f"{function}(): argument '{name}'{where} must be int, not {typename(value)}")


# Note: deprecated overloads
# torch still takes the pre-1.0 forms with the scalar first, add(alpha, other) and
# addcmul(value, tensor1, tensor2) (tools/autograd/deprecated.yaml; old optimizers wrote
# p.data.add_(-lr, grad)), and warns once per process, for whichever is used first, naming it.
_TENSOR_FIRST = "Tensor input, "
_DEPRECATED = {
    "add": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "sub": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "addcmul": ("Number value, Tensor tensor1, Tensor tensor2",
                "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
    "addcdiv": ("Number value, Tensor tensor1, Tensor tensor2",
                "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
}
_deprecation_warned = False


def scalar_first(name: str, method: bool, scalar, tensors: tuple, keyword: str, value,
                 input=None):  # noqa: A002
    """``(tensors, scalar)`` for a call of ``name`` in its deprecated scalar-first form
    (Note: deprecated overloads), warning the first time; for any other call with an extra
    positional argument, the TypeError torch's parser gives from the current signature."""
    global _deprecation_warned

    base = name.rstrip("_")
    count = 2 if base in ("addcmul", "addcdiv") else 1
    keyword_given = value.__class__ is not int or value != 1
    if not (_is_number(scalar) and len(tensors) == count and all(map(_is_tensor, tensors))
            and not keyword_given):  # torch's error for its current signature (it hides the
        # deprecated one): the signature's own when the count of arguments fits it
        args = (scalar,) + tensors if method else (input,) + (scalar,) + tensors
        kwargs = {keyword: value} if keyword_given else {}
        signature = SIGNATURES[("Tensor." if method else "") + name][0]
        positional = [param for param in signature.params if not param.keyword_only]
        if len(args) + len(kwargs) <= len(signature.params):  # plausible: its own error
            check(("Tensor." if method else "") + name, args, kwargs)
            count = len(positional)
            raise TypeError(f"{name}() takes {count} positional argument"
                            f"{'' if count == 1 else 's'} but {len(args)} were given")
        if kwargs:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"unrecognized keyword arguments: {keyword}")
        marked = [typename(arg) if index < len(positional) and (
                      _is_tensor(arg) if positional[index].type.startswith("Tensor")
                      else positional[index].accepts(arg))
                  else f"!{typename(arg)}!" for index, arg in enumerate(args)]
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({', '.join(marked)}), but expected {signature}")
    if not _deprecation_warned:
        _deprecation_warned = True
        import warnings

        old, new = _DEPRECATED[base]
        if not method:
            old = _TENSOR_FIRST + old + ("" if "*" in old else ", *") + ", Tensor out = None"
            new = _TENSOR_FIRST + new + ", Tensor out = None"
        warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider "
                      f"using one of the following signatures instead:\n\t{name}({new})",
                      UserWarning, stacklevel=3)
    return tensors, scalar
