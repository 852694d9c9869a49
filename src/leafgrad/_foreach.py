"""``torch._foreach_*``: an op over lists of tensors (what foreach optimizers and gradient
clipping call), with torch's CPU semantics.

On the CPU torch runs every foreach op by its slow path: the per-tensor op for each element of
the list (``_foreach_add(xs, 2)`` is ``[add(x, 2) for x in xs]``: each result has that op's
dtype and values, its promotions and errors). What the foreach form adds is checked here:

- the lists: a first argument that is no list of tensors is the parser's error; an empty list
  "Tensor list must have at least one tensor."; lists (and scalar lists) of other lengths
  torch's messages;
- autograd: the out-of-place forms record ONE node for the whole call (``ForeachMulBackward1
  Scalar``, torch's generated name, listed in ``_NODES``) with an edge per input tensor, every
  list's tensors in order, and every result requires grad when any input does; its backward
  is the per-tensor op's own backward (computed by replaying the op, so the gradients are the
  per-tensor op's bits and ``create_graph`` works);
- the in-place forms (``_foreach_add_``) apply the per-tensor in-place op to each tensor in
  turn (each records its own node, as torch's slow path) and return the list given.
"""

from __future__ import annotations

from . import _argparse
from .autograd.grad_mode import enable_grad, is_grad_enabled
from .tensor import Tensor

__all__: list = []  # filled by _define below


# (name, form) -> torch's node for the out-of-place op (torch 2.13's generated names)
_NODES = {
    ("add", "Scalar"): "ForeachAddBackward1Scalar",
    ("add", "Tensor"): "ForeachAddBackward1Scalar",
    ("add", "ScalarList"): "ForeachAddBackward1ScalarList",
    ("add", "List"): "ForeachAddBackward0List",
    ("sub", "Scalar"): "ForeachSubBackward1Scalar",
    ("sub", "Tensor"): "ForeachSubBackward1Scalar",
    ("sub", "ScalarList"): "ForeachSubBackward1ScalarList",
    ("sub", "List"): "ForeachSubBackward0List",
    ("mul", "Scalar"): "ForeachMulBackward1Scalar",
    ("mul", "Tensor"): "ForeachMulBackward0Tensor",
    ("mul", "ScalarList"): "ForeachMulBackward1ScalarList",
    ("mul", "List"): "ForeachMulBackward0List",
    ("div", "Scalar"): "ForeachDivBackward1Scalar",
    ("div", "Tensor"): "ForeachDivBackward0Tensor",
    ("div", "ScalarList"): "ForeachDivBackward1ScalarList",
    ("div", "List"): "ForeachDivBackward0",
    ("clamp_min", "Scalar"): "ForeachClampMinBackward0Scalar",
    ("clamp_min", "Tensor"): "ForeachClampMinBackward0Scalar",
    ("clamp_min", "ScalarList"): "ForeachClampMinBackward0ScalarList",
    ("clamp_min", "List"): "ForeachClampMinBackward1List",
    ("clamp_max", "Scalar"): "ForeachClampMaxBackward0Scalar",
    ("clamp_max", "Tensor"): "ForeachClampMaxBackward0Scalar",
    ("clamp_max", "ScalarList"): "ForeachClampMaxBackward0ScalarList",
    ("clamp_max", "List"): "ForeachClampMaxBackward1List",
    ("maximum", "Scalar"): "ForeachMaximumBackward0",
    ("maximum", "Tensor"): "ForeachMaximumBackward0",
    ("maximum", "ScalarList"): "ForeachMaximumBackward1",
    ("maximum", "List"): "ForeachMaximumBackward0List",
    ("minimum", "Scalar"): "ForeachMinimumBackward0",
    ("minimum", "Tensor"): "ForeachMinimumBackward0",
    ("minimum", "ScalarList"): "ForeachMinimumBackward1",
    ("minimum", "List"): "ForeachMinimumBackward0List",
    ("pow", "Scalar"): "ForeachPowBackward0Scalar",
    ("pow", "Tensor"): "ForeachPowBackward0Scalar",
    ("pow", "ScalarList"): "ForeachPowBackward1",
    ("pow", "List"): "ForeachPowBackward0",
    ("pow", "ScalarBase"): "ForeachPowBackward2",
    ("addcmul", "Scalar"): "ForeachAddcmulBackward0Scalar",
    ("addcmul", "ScalarList"): "ForeachAddcmulBackward0ScalarList",
    ("addcdiv", "Scalar"): "ForeachAddcdivBackward0Scalar",
    ("addcdiv", "ScalarList"): "ForeachAddcdivBackward0ScalarList",
    ("lerp", "Scalar"): "ForeachLerpBackward0Scalar",
    ("lerp", "List"): "ForeachLerpBackward1List",
    ("lerp", "ScalarList"): "ForeachLerpBackward0ScalarList",
    ("norm", "Scalar"): "ForeachNormBackward0",
    ("max", "Unary"): "ForeachMaxBackward1",
}
_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
          "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")
_UNARY_NODES = {"log1p": "ForeachLog1PBackward0", "clone": "ForeachCloneBackward0"}


# -- argument checks ----------------------------------------------------------------------------

def _tensor_list(name: str, value, position: int, args: tuple, kwargs: dict) -> list:
    if type(value) not in (list, tuple):
        raise _argparse.invalid_combination(name, args, kwargs)
    for index, item in enumerate(value):
        if not isinstance(item, Tensor):
            raise TypeError(f"expected Tensor as element {index} in argument {position}, but "
                            f"got {_argparse.typename(item)}")
    return list(value)


def _check_lists(first: list, *others) -> None:
    if not first:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in others:
        if len(other) != len(first):
            raise RuntimeError("Tensor lists must have the same number of tensors, got "
                               f"{len(first)} and {len(other)}")


def _check_scalars(tensors: list, scalars) -> list:
    if len(scalars) != len(tensors):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    return list(scalars)


# -- one node for the whole call ---------------------------------------------------------------

_FUNCTIONS: dict = {}


def _function(node: str):
    """A custom Function named ``node`` whose forward computes every result and whose backward
    replays the per-tensor ops to differentiate them."""
    function = _FUNCTIONS.get(node)
    if function is not None:
        return function
    from .autograd import Function, grad

    class Foreach(Function):
        @staticmethod
        def forward(ctx, compute, count, *tensors):
            ctx.compute, ctx.count = compute, count
            ctx.set_materialize_grads(False)  # an unused result gives its inputs no grad
            # a tensor given twice (addcmul(xs, ys, xs)) is one input of the replay
            places = {}
            ctx.places = tuple(places.setdefault(id(t), len(places)) for t in tensors)
            unique = {id(t): t for t in tensors}
            ctx.save_for_backward(*unique.values())
            return tuple(compute(tensors, index) for index in range(count))

        @staticmethod
        def backward(ctx, *grads):
            unique = ctx.saved_tensors
            create_graph = is_grad_enabled()
            if not create_graph:
                unique = tuple(t.detach().requires_grad_(t.requires_grad) for t in unique)
            tensors = tuple(unique[place] for place in ctx.places)
            with enable_grad():
                outputs = [ctx.compute(tensors, index) for index in range(ctx.count)]
            pairs = [(out, g) for out, g in zip(outputs, grads)
                     if g is not None and out.requires_grad]
            wanted = [t for t in unique if t.requires_grad]
            found = grad([out for out, _ in pairs], wanted, [g for _, g in pairs],
                         create_graph=create_graph, allow_unused=True) if pairs and wanted else (
                [None] * len(wanted))
            by_place = dict(zip((i for i, t in enumerate(unique) if t.requires_grad), found))
            seen = set()
            result = []
            for place in ctx.places:  # the whole grad at a tensor's first place
                result.append(None if place in seen else by_place.get(place))
                seen.add(place)
            return (None, None) + tuple(result)

    backward_cls = Foreach._backward_cls
    backward_cls.__name__ = backward_cls.__qualname__ = node
    backward_cls.__module__ = "builtins"  # a C++ class in torch
    _FUNCTIONS[node] = Foreach
    return Foreach


def _out_of_place(node: str, count: int, tensors: tuple, compute) -> tuple:
    """``compute(tensors, i)`` for each i; recorded as one ``node`` when an input needs grad."""
    if is_grad_enabled() and any(t.requires_grad for t in tensors):
        return _function(node).apply(compute, count, *tensors)
    return tuple(compute(tensors, index) for index in range(count))


# -- the forms ------------------------------------------------------------------------------------

def _is_number(value) -> bool:
    return value.__class__ in (bool, int, float, complex)


# How a foreach op takes one tensor as ``other``: mul/div have a Tensor overload (a 0-d
# tensor operand, with an edge); add's takes its value as a number; the others only accept a
# 0-d tensor where their parser reads a Number.
_TENSOR_OTHER = {"mul": "tensor", "div": "tensor", "add": "value"}


def _binary(name: str, per_tensor, inplace: bool = False):
    """``_foreach_<name>(self, other)`` with other a number, a list of numbers, a tensor list
    or one tensor (``_TENSOR_OTHER``); ``per_tensor(x, other, **kwargs)``."""

    def forms(self, other, kwargs, call_args):
        foreach = f"_foreach_{name}" + ("_" if inplace else "")
        tensors = _tensor_list(foreach, self, 0, call_args, kwargs)
        count = len(tensors)
        if isinstance(other, Tensor):
            kind = _TENSOR_OTHER.get(name)
            if kind is None and other.ndim:
                raise _argparse.invalid_combination(foreach, call_args, kwargs)
            if kind is not None and other.ndim:
                raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.ndim} "
                                   f"dimensions and {other.numel()} elements.")
            _check_lists(tensors)
            if kind == "tensor":
                return "Tensor", tensors + [other], lambda ts, i: per_tensor(ts[i], ts[count],
                                                                              **kwargs)
            other = other.item()
        tensor_list = type(other) in (list, tuple) and other and isinstance(other[0], Tensor)
        if kwargs and not tensor_list:  # alpha= goes with a tensor list only
            raise _argparse.invalid_combination(foreach, call_args, kwargs)
        if _is_number(other):
            _check_lists(tensors)
            return "Scalar", tensors, lambda ts, i: per_tensor(ts[i], other, **kwargs)
        if type(other) in (list, tuple) and other and all(_is_number(v) for v in other):
            _check_lists(tensors)
            scalars = _check_scalars(tensors, other)
            return "ScalarList", tensors, lambda ts, i: per_tensor(ts[i], scalars[i], **kwargs)
        others = _tensor_list(foreach, other, 1, call_args, kwargs)
        _check_lists(tensors, others)
        return "List", tensors + others, lambda ts, i: per_tensor(ts[i], ts[count + i],
                                                                  **kwargs)

    return forms


def _define(name: str, forms, inplace):
    """Define ``_foreach_<name>`` and, where ``inplace`` names the per-tensor method,
    ``_foreach_<name>_``."""

    def function(self, *args, **kwargs):
        form, tensors, compute = forms(self, *args, kwargs=kwargs,
                                       call_args=(self,) + args)
        node = _NODES.get((name, form)) or _UNARY_NODES.get(name) or (
            "Foreach" + name.title().replace("_", "") + "Backward0")
        count = len(self) if type(self) in (list, tuple) else len(args[-1])
        return _out_of_place(node, count, tuple(tensors), compute)

    function.__name__ = function.__qualname__ = f"_foreach_{name}"
    globals()[function.__name__] = function
    __all__.append(function.__name__)
    if inplace is None:
        return

    def function_(self, *args, **kwargs):
        form, tensors, compute = forms(self, *args, kwargs=kwargs,
                                       call_args=(self,) + args, inplace=True)
        for index in range(len(self)):
            compute(tensors, index)
        return self

    function_.__name__ = function_.__qualname__ = f"_foreach_{name}_"
    globals()[function_.__name__] = function_
    __all__.append(function_.__name__)


def _binary_pair(name: str, out_fn, inplace_fn, keywords=()):
    def forms(self, other=None, *rest, kwargs, call_args, inplace=False):
        if rest or any(key not in keywords for key in kwargs) or other is None:
            raise _argparse.invalid_combination(f"_foreach_{name}" + ("_" if inplace else ""),
                                                call_args, kwargs)
        return _binary(name, inplace_fn if inplace else out_fn, inplace)(self, other, kwargs,
                                                                          call_args)

    _define(name, forms, inplace_fn)


def _unary(name: str, out_fn, inplace_fn):
    def forms(self, *rest, kwargs, call_args, inplace=False):
        foreach = f"_foreach_{name}" + ("_" if inplace else "")
        if rest or kwargs:
            raise _argparse.invalid_combination(foreach, call_args, kwargs)
        tensors = _tensor_list(foreach, self, 0, call_args, kwargs)
        _check_lists(tensors)
        fn = inplace_fn if inplace else out_fn
        return "Unary", tensors, lambda ts, i: fn(ts[i])

    _define(name, forms, inplace_fn)


for _name in _UNARY:
    _unary(_name, (lambda n: lambda x: getattr(x, n)())(_name),
           (lambda n: lambda x: getattr(x, n + "_")())(_name))
_unary("clone", lambda x: x.clone(), None)

for _name in ("add", "sub"):
    _binary_pair(_name, (lambda n: lambda x, y, alpha=1: getattr(x, n)(y, alpha=alpha))(_name),
                 (lambda n: lambda x, y, alpha=1: getattr(x, n + "_")(y, alpha=alpha))(_name),
                 ("alpha",))
for _name in ("mul", "div", "clamp_min", "clamp_max"):
    _binary_pair(_name, (lambda n: lambda x, y: getattr(x, n)(y))(_name),
                 (lambda n: lambda x, y: getattr(x, n + "_")(y))(_name))
# maximum/minimum with a number are clamp_min/clamp_max; with a tensor, the elementwise op
def _written_back(x: Tensor, result: Tensor) -> Tensor:
    """``x.copy_(result)`` with an in-place op's cast check (maximum_ has no Tensor method)."""
    from ._dtype import can_cast

    if not can_cast(result.dtype, x.dtype):
        raise RuntimeError(f"result type {result.dtype._legacy} can't be cast to the desired "
                           f"output type {x.dtype._legacy}")
    return x.copy_(result)


_binary_pair("maximum", lambda x, y: x.maximum(y) if isinstance(y, Tensor) else x.clamp_min(y),
             lambda x, y: _written_back(x, x.maximum(y)) if isinstance(y, Tensor)
             else x.clamp_min_(y))
_binary_pair("minimum", lambda x, y: x.minimum(y) if isinstance(y, Tensor) else x.clamp_max(y),
             lambda x, y: _written_back(x, x.minimum(y)) if isinstance(y, Tensor)
             else x.clamp_max_(y))


def _pow_forms(self, other=None, *rest, kwargs, call_args, inplace=False):
    name = "_foreach_pow" + ("_" if inplace else "")
    if rest or kwargs or other is None:
        raise _argparse.invalid_combination(name, call_args, kwargs)
    if _is_number(self) and not inplace:  # pow(Scalar self, TensorList exponent)
        exponents = _tensor_list(name, other, 1, call_args, kwargs)
        _check_lists(exponents)
        base = self
        return "ScalarBase", exponents, lambda ts, i: _pow_base(base, ts[i])
    per_tensor = (lambda x, y: x.pow_(y)) if inplace else (lambda x, y: x.pow(y))
    return _binary("pow", per_tensor, inplace)(self, other, kwargs, call_args)


def _pow_base(base, exponent):
    from . import pow as pow_function

    return pow_function(base, exponent)


_define("pow", _pow_forms, True)


def _pointwise(name: str):
    def forms(self, tensor1=None, tensor2=None, *rest, kwargs, call_args, inplace=False):
        foreach = f"_foreach_{name}" + ("_" if inplace else "")
        value = kwargs.pop("value", 1) if "value" in kwargs else (rest[0] if rest else 1)
        if len(rest) > 1 or kwargs or tensor1 is None or tensor2 is None:
            raise _argparse.invalid_combination(foreach, call_args, kwargs)
        tensors = _tensor_list(foreach, self, 0, call_args, kwargs)
        first = _tensor_list(foreach, tensor1, 1, call_args, kwargs)
        second = _tensor_list(foreach, tensor2, 2, call_args, kwargs)
        _check_lists(tensors, first, second)
        count = len(tensors)
        method = name + ("_" if inplace else "")
        if isinstance(value, Tensor):
            scalars = value.tolist() if value.ndim else [value.item()]
            if len(scalars) != count:
                raise RuntimeError(f"Expected length of scalars to match input of length {count} "
                                   f"but got {len(scalars)} instead.")
            form = "Tensor"
        elif type(value) in (list, tuple):
            scalars, form = _check_scalars(tensors, value), "ScalarList"
        else:
            scalars, form = [value] * count, "Scalar"
        return form, tensors + first + second, lambda ts, i: getattr(ts[i], method)(
            ts[count + i], ts[2 * count + i], value=scalars[i])

    _define(name, forms, True)


_pointwise("addcmul")
_pointwise("addcdiv")


def _lerp_forms(self, tensors1=None, weight=None, *rest, kwargs, call_args, inplace=False):
    foreach = "_foreach_lerp" + ("_" if inplace else "")
    if rest or kwargs or tensors1 is None or weight is None:
        raise _argparse.invalid_combination(foreach, call_args, kwargs)
    tensors = _tensor_list(foreach, self, 0, call_args, kwargs)
    ends = _tensor_list(foreach, tensors1, 1, call_args, kwargs)
    count = len(tensors)
    method = "lerp_" if inplace else "lerp"
    if _is_number(weight):
        _check_lists(tensors, ends)
        return "Scalar", tensors + ends, lambda ts, i: getattr(ts[i], method)(ts[count + i],
                                                                             weight)
    if type(weight) in (list, tuple) and weight and all(_is_number(v) for v in weight):
        _check_lists(tensors, ends)
        weights = _check_scalars(tensors, weight)
        return "ScalarList", tensors + ends, lambda ts, i: getattr(ts[i], method)(
            ts[count + i], weights[i])
    weights = _tensor_list(foreach, weight, 2, call_args, kwargs)
    _check_lists(tensors, ends, weights)
    return "List", tensors + ends + weights, lambda ts, i: getattr(ts[i], method)(
        ts[count + i], ts[2 * count + i])


_define("lerp", _lerp_forms, True)


def _norm_forms(self, ord=2, dtype=None, *rest, kwargs, call_args, inplace=False):  # noqa: A002
    ord = kwargs.pop("ord", ord)  # noqa: A001 - torch's name
    dtype = kwargs.pop("dtype", dtype)
    if rest or kwargs:
        raise _argparse.invalid_combination("_foreach_norm", call_args, kwargs)
    tensors = _tensor_list("_foreach_norm", self, 0, call_args, {})
    _check_lists(tensors)
    from .linalg import vector_norm

    return "Scalar", tensors, lambda ts, i: vector_norm(ts[i], ord, dtype=dtype)


_define("norm", _norm_forms, None)


def _max_of(x):
    if not x.numel():
        raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; max "
                           "over zero elements is undefined.")
    return x.max()


_unary("max", _max_of, None)


def _foreach_zero_(self):
    """``torch._foreach_zero_``: zero every tensor of the list in place."""
    tensors = _tensor_list("_foreach_zero_", self, 0, (self,), {})
    _check_lists(tensors)
    for tensor in tensors:
        tensor.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    """``torch._foreach_copy_``: copy each tensor of ``src`` into the one of ``self``."""
    tensors = _tensor_list("_foreach_copy_", self, 0, (self, src), {})
    sources = _tensor_list("_foreach_copy_", src, 1, (self, src), {})
    _check_lists(tensors, sources)
    for tensor, source in zip(tensors, sources):
        tensor.copy_(source, non_blocking)
    return self


__all__ += ["_foreach_zero_", "_foreach_copy_"]
del _name
