"""``out=`` arguments, with torch's rules in one place.

A function that takes ``out=`` is decorated with :func:`takes_out` and a :class:`Out` spec
saying how torch treats its out tensor(s):

- Not differentiable: when grad mode is on and an input (or the out tensor) requires grad,
  torch raises ``"<aten name>(): functions with out=... arguments don't support automatic
  differentiation, but one of the arguments requires grad."`` before computing anything.
  Functions torch implements by composition (``tensordot``, ``softmax``, comparisons...)
  skip that check, and their out tensor never requires grad.
- dtype: each kernel family checks the out dtype against the result dtype its own way
  (:class:`Rule`: castable, identical, bool only...) with its own message.
- shape: an out of another shape is resized; torch warns when it had elements
  (``"An output with one or more elements was resized..."``). Factories resize silently.
- The result is written into ``out`` (its version counter moves) and ``out`` is returned
  (a ``return_types.<name>_out`` for several outputs).

Note: out= and failures. Every check runs before the first write, so a call that raises leaves
``out`` (values, shape, version) as it was.
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings

import numpy as np

from . import _argparse, _dtype
from . import overrides as _overrides
from ._alloc import alloc_error
from .ops._layout import size_one_strides as _size_one_strides
from .autograd.forward_ad import state as _dual_state
from .autograd.grad_mode import state as _grad_state
from .autograd._vmap_state import state as _vmap_state
from .tensor import LEAF_INPLACE, Tensor, check_inplace_allowed, restride_view

__all__ = ["Out", "Rule", "takes_out"]

RESIZE_WARNING = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future PyTorch "
    "release outputs will not be resized unless they have zero elements. You can explicitly "
    "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0)."
)
RESIZE_GRAD = "cannot resize variables that require grad"
INTERNAL_OVERLAP_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
OVERLAP_ERROR = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)
_C10 = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double", "int8": "signed char",
        "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
        "bool": "bool", "uint16": "short unsigned int", "uint32": "unsigned int",
        "uint64": "long unsigned int", "complex64": "c10::complex<float>",
        "complex128": "c10::complex<double>"}


class Rule:
    """How a kernel checks an out tensor's dtype against the result's.

    ``allowed(result, out)`` decides; ``message`` is formatted with ``R``/``O`` (torch's scalar
    type names, ``Float``), ``r``/``o`` (c10's, ``float``) and ``T`` (the legacy tensor type,
    ``torch.FloatTensor``, and ``TR`` for the result's) of the result and the out tensor.
    """

    __slots__ = ("allowed", "message", "error")

    def __init__(self, message, allowed, error=RuntimeError):
        self.message = message
        self.allowed = allowed
        self.error = error

    def check(self, result: _dtype.dtype, out: _dtype.dtype) -> None:
        if not self.allowed(result, out):
            raise self.error(self.message.format(
                R=result._legacy, O=out._legacy, r=_C10[result.name], o=_C10[out.name],
                T=_tensor_type(out), TR=_tensor_type(result)))


def _tensor_type(dtype: _dtype.dtype) -> str:
    # torch names a bool tensor's type by its dispatch key in these messages
    return "CPUBoolType" if dtype is _dtype.bool else f"torch.{dtype._legacy}Tensor"


def _same(result, out):
    return result is out


CAST = Rule("result type {R} can't be cast to the desired output type {O}", _dtype.can_cast)
FOUND = Rule("Found dtype {O} but expected {R}", _same)
EXPECT = Rule("Expected out tensor to have dtype {r}, but got {o} instead", _same)
ANY = Rule("", lambda result, out: True)
CAT = Rule("torch.cat(): input types can't be cast to the desired output type {O}",
           _dtype.can_cast, TypeError)


class Rules(Rule):
    """Several checks in torch's order (``matrix_power``: castable, then matmul's exact dtype)."""

    __slots__ = ("rules",)

    def __init__(self, *rules: Rule):
        self.rules = rules

    def check(self, result: _dtype.dtype, out: _dtype.dtype) -> None:
        for rule in self.rules:
            rule.check(result, out)


def same_as(message: str, error=RuntimeError) -> Rule:
    """A rule requiring the result's dtype exactly, with the kernel's own message."""
    return Rule(message, _same, error)


def bool_only(message: str, uint8: bool = False) -> Rule:
    """Bool outputs only (``isposinf``), or bool and uint8 (``all``/``any``)."""
    kinds = (_dtype.bool, _dtype.uint8) if uint8 else (_dtype.bool,)
    return Rule(message, lambda result, out: out in kinds)


def castable(message: str) -> Rule:
    return Rule(message, _dtype.can_cast)


def floating(message: str, error=RuntimeError, complex_ok: bool = False) -> Rule:
    """Floating-point outs only (``nansum``, ``rand``), or complex ones too (``logsumexp``)."""
    if complex_ok:
        return Rule(message, lambda result, out: out.is_floating_point or out.is_complex, error)
    return Rule(message, lambda result, out: out.is_floating_point, error)


def not_bool(message: str) -> Rule:
    """Any dtype but bool: kernels with no bool version (``cumsum``, ``arange``)."""
    return Rule(message, lambda result, out: out is not _dtype.bool, NotImplementedError)


class Out:
    """How one function treats ``out=`` (see the module docstring).

    - ``name``: the aten name in the requires-grad error, or None where torch does not check.
    - ``rules``: one :class:`Rule` per output (one tensor, or a tuple of them).
    - ``overlap``: True: the kernel rejects an out that partly overlaps an input (torch's
      assert_no_partial_overlap: TensorIterator kernels, addmm, cumsum...); ``"full"``: any
      shared memory, the input itself included (assert_no_overlap: gather, index_select, cat,
      cross...); ``"self"``: scatter-like kernels, whose out may be their self but not part of
      it, and may share nothing with their other inputs (index, src).
    - ``returns``: the structseq class of a tuple result (``return_types.max_out``).
    - ``out_name``: for kernels torch does not differentiate, the aten name in the error for an
      out tensor that requires grad (their inputs may require grad).
    - ``prepare``: rewrites the arguments for kernels that compute in out's dtype.
    - ``resize``: how a kernel with several outputs resizes them, where torch's differs from
      resizing each in turn to the result's shape and layout (a :class:`Resize`).
    - ``mode``: ``"result"`` computes and casts into out; ``"dtype"`` computes in out's dtype
      (``sum``, ``cumsum``: their ``dtype=`` argument, given, must equal out's); ``"factory"``
      builds in out's dtype, resizes silently and sets ``requires_grad`` on out; ``"copy"``
      (torch's composites ``tensordot``, ``linalg.norm``) computes with autograd and copies into
      out with ``copy_``, so out joins the graph (CopyBackwards) when an input requires grad.
    """

    __slots__ = ("name", "rules", "overlap", "returns", "mode", "grad_error", "resize_warning",
                 "prepare", "out_error", "order", "resize", "internal_overlap")

    def __init__(self, name=None, rules=CAST, *, overlap=False, returns=None, mode="result",
                 grad_error=None, resize_warning=None, prepare=None, out_name=None, order=None,
                 resize=None, internal_overlap=None):
        self.name = name
        # Note: expanded outs. torch's out= kernels refuse an out with internal overlap
        # (assert_no_internal_overlap, in resize_output and TensorIterator) before computing;
        # factories and a few kernels (mm-based matmul, mv, bmm, tril/triu, most reductions:
        # amax, argmax, all, nansum, var, vector_norm...; cummax/cummin) do not, and write
        # into it (tests/opinfo/test_opinfo_errors.py::test_out_with_internal_overlap)
        self.internal_overlap = mode != "factory" if internal_overlap is None else internal_overlap
        self.resize = resize
        self.rules = rules if type(rules) is tuple else (rules,)
        self.order = order or tuple(range(len(self.rules)))  # which out torch checks first
        self.overlap = overlap
        self.returns = returns
        self.mode = mode
        self.grad_error = grad_error or (
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
        # factories resize silently, except where a kernel warns its own way (arange)
        self.resize_warning = resize_warning
        # (args, kwargs, outs) -> (args, kwargs): a kernel that computes in out's dtype
        self.prepare = prepare
        # kernels without a derivative still refuse an out that requires grad (aten::bitwise_and)
        self.out_error = out_name and (
            f"{out_name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")


def takes_out(spec):
    """Give ``fn`` torch's ``out=`` keyword; ``spec`` is an :class:`Out` or a function of the
    call's ``(args, kwargs)`` returning one (for overloads such as ``max(x)``/``max(x, dim)``)."""

    def decorate(fn):
        @functools.wraps(fn)
        def with_out(*args, out=None, **kwargs):
            if out is None:
                try:
                    return fn(*args, **kwargs)
                except MemoryError as error:  # factories allocate outside the ops
                    raise alloc_error(error) from None
                except Exception as error:  # (a tensor-like argument: overrides.py)
                    result = _overrides.dispatch_after_failure(with_out, args, kwargs)
                    if result is _overrides.NOT_DISPATCHED:
                        if error.__class__ is TypeError and parsed_name is not None:
                            # a function declared in torch's signatures: the parser's error for
                            # the call as given (its body raised the method's: sum, mean)
                            problem = _argparse.error(parsed_name, args, kwargs)
                            if problem is not None:
                                raise problem from None
                        if error.__class__ is AttributeError and takes_input:
                            # not a Tensor where torch's parser wants one ({}, "a", a list):
                            # its TypeError, where the body failed on a method call
                            problem = _argparse.not_a_tensor(fn, args, kwargs)
                            if problem is not None:
                                raise problem from None
                        raise
                    return result
            chosen = spec if type(spec) is Out else spec(args, kwargs)
            try:
                return _call(fn, chosen, args, kwargs, out)
            except TypeError:
                # a function declared in torch's signatures (@parsed): the parser's error for
                # the call as given, out= too (torch lists it: "got (Tensor, out=Tensor, ...)")
                parsed = getattr(fn, "parsed_name", None)
                problem = parsed and _argparse.error(parsed, args, dict(kwargs, out=out))
                if problem is None:
                    raise
                raise problem from None

        parsed_name = getattr(fn, "parsed_name", None)
        signature = inspect.signature(fn)
        parameters = list(signature.parameters.values())
        takes_input = bool(parameters) and parameters[0].name == "input"
        place = len(parameters)
        if parameters and parameters[-1].kind is inspect.Parameter.VAR_KEYWORD:
            place -= 1
        parameters.insert(place, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY,
                                                   default=None))
        with_out.__signature__ = signature.replace(parameters=parameters)
        return with_out

    return decorate


def _tensors(args, kwargs):
    for value in (*args, *kwargs.values()):
        if isinstance(value, Tensor):
            yield value
        elif type(value) in (list, tuple):
            for item in value:
                if isinstance(item, Tensor):
                    yield item


def _refuse_batched(fn, spec: Out, args, kwargs, outs) -> None:
    """torch's vmap has no rule for out= variants (its fallback refuses them)."""
    from .ops._batching import BatchedTensor

    if any(type(t) is BatchedTensor for t in (*_tensors(args, kwargs), *outs)):
        name = spec.name if spec.name is not None else fn.__name__
        raise RuntimeError(f"Batching rule not implemented for aten::{name}.out; the fallback "
                           "path doesn't work on out= or view ops.")


def _outs(fn, spec: Out, out) -> tuple:
    count = len(spec.rules)
    if count == 1:
        if not isinstance(out, Tensor):
            raise TypeError(f"{fn.__name__}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        return (out,)
    if type(out) not in (list, tuple) or not all(isinstance(o, Tensor) for o in out):
        raise TypeError(f"{fn.__name__}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    if len(out) != count:
        raise TypeError(f"expected tuple of {count} elements but got {len(out)}")
    return tuple(out)


def _call(fn, spec: Out, args, kwargs, out):
    outs = _outs(fn, spec, out)
    if _vmap_state.active:
        _refuse_batched(fn, spec, args, kwargs, outs)
    if spec.out_error is not None and _grad_state.grad_enabled:
        if any(t._requires_grad for t in outs):
            raise RuntimeError(spec.out_error)
    if spec.name is not None and _grad_state.grad_enabled:
        inputs = outs if spec.mode == "factory" else (*_tensors(args, kwargs), *outs)
        if any(t._requires_grad for t in inputs):
            raise RuntimeError(spec.grad_error)
    for target in outs:  # (after the autograd checks, as torch: an inference out= tensor)
        check_inplace_allowed(target)
    if spec.internal_overlap:
        for target in outs:
            check_internal_overlap(target)
    if spec.name is not None and _dual_state.active:
        from .autograd.forward_ad import get_tangent

        if any(get_tangent(t) is not None for t in (*_tensors(args, kwargs), *outs)):
            raise NotImplementedError(
                f"Trying to use forward AD with {spec.name}_out that does not support it "
                "because it is an out= function")
    if spec.mode == "factory":
        return _factory(fn, spec, args, kwargs, outs[0])
    if spec.mode == "copy":
        result = fn(*args, **kwargs)
        target = outs[0]
        spec.rules[0].check(result.dtype, target.dtype)
        resized = target._data.shape != result._data.shape
        if target._requires_grad and _grad_state.grad_enabled:
            # torch's composite copies into out: a leaf that requires grad refuses (tensordot
            # says so itself when out would also need resizing)
            own = spec.grad_error.startswith(fn.__name__)
            raise RuntimeError(spec.grad_error if own and resized else LEAF_INPLACE)
        if resized:
            _warn_resize(target._data.shape, result._data.shape)
            resize(target, result._data.shape)
        return target.copy_(result)
    if spec.mode == "dtype":
        wanted = kwargs.get("dtype")
        if wanted is None:
            kwargs = dict(kwargs, dtype=outs[0].dtype)
        else:
            if wanted.__class__ is type:  # Note: Python types as dtypes (_dtype.py)
                wanted = _dtype.as_dtype(wanted)
                kwargs = dict(kwargs, dtype=wanted)
            EXPECT.check(wanted, outs[0].dtype)
        spec.rules[0].check(kwargs["dtype"], outs[0].dtype)  # the kernel's own dtype support
    if spec.prepare is not None:
        args, kwargs = spec.prepare(args, kwargs, outs)
    try:
        results = fn(*args, **kwargs)
    except NotImplementedError as error:
        if "not implemented for '" in str(error):
            _before_dispatch(spec, args, kwargs, outs[0] if len(outs) == 1 else None)
        raise
    if len(outs) == 1:
        results = (results,)
    for index in spec.order:
        spec.rules[index].check(results[index].dtype, outs[index].dtype)
    if spec.overlap:
        inputs = list(_tensors(args, kwargs))
        for target in outs:
            if spec.overlap == "full":
                check_no_overlap(target, *inputs)
                continue
            if spec.overlap == "self" and inputs:
                _check_overlap(inputs[0]._data, target._data)
                check_no_overlap(target, *inputs[1:])
                continue
            for tensor in inputs:
                _check_overlap(tensor._data, target._data)
    plan = spec.resize or _PLAIN_RESIZE
    for index in plan.order or range(len(outs)):
        target, value = outs[index], results[index]._data
        shapes = plan.shapes(args, kwargs, target._data.shape, value.shape)
        if shapes is not None and tuple(shapes[0]) != tuple(shapes[1]):
            _warn_resize(*shapes, stacklevel=4)
        _store(target, value, warn=False, layout=plan.layout(index, target._data.size))
    if len(outs) == 1:
        return outs[0]
    return spec.returns(outs) if spec.returns is not None else tuple(outs)


def _before_dispatch(spec: Out, args, kwargs, out: Tensor | None) -> None:
    """Note: TensorIterator checks out before the dtype dispatch. A TensorIterator kernel
    checks out's dtype against the operands' common dtype and resizes out (warning) before
    it looks for a version for that dtype, so ``bitwise_and(float, float, out=long)`` is the
    cast error and ``frac(long, out=double)`` the 'Found dtype' one, not 'not implemented'."""
    if out is None or spec.overlap is not True or spec.mode != "result":
        return
    operands = [value for value in (*args, *kwargs.values())
                if isinstance(value, Tensor) or value.__class__ in (bool, int, float, complex)]
    tensors = [value._data.shape for value in operands if isinstance(value, Tensor)]
    if not tensors:
        return
    spec.rules[0].check(_dtype.result_type(*operands), out.dtype)
    shape = np.broadcast_shapes(*tensors)
    if out._data.shape != shape:
        _warn_resize(out._data.shape, shape, stacklevel=4)
        resize(out, shape)


def _factory(fn, spec: Out, args, kwargs, out: Tensor) -> Tensor:
    if spec.grad_error == RESIZE_GRAD and out._requires_grad:
        raise RuntimeError(RESIZE_GRAD)  # empty/randn resize out first, whatever the grad mode
    wanted = kwargs.get("dtype")
    if wanted is not None and wanted is not out.dtype:
        raise RuntimeError(f"dtype {wanted._legacy} does not match dtype of out parameter "
                           f"({out.dtype._legacy})")
    spec.rules[0].check(out.dtype, out.dtype)  # whether the kernel exists for out's dtype
    requires_grad = kwargs.pop("requires_grad", False)
    kwargs = dict(kwargs, dtype=out.dtype)
    result = fn(*args, **kwargs)
    old, new = out._data.shape, result._data.shape
    value = result._data
    if spec.resize_warning is not None and old != new and out._data.size:
        message = spec.resize_warning(old, new)
        if message:
            warnings.warn(message, UserWarning, stacklevel=3)
        else:  # the same count: arange fills out in its own shape
            value = value.reshape(old)
    _store(out, value, warn=False)
    out._set_requires_grad(requires_grad)  # the factory's requires_grad=, False by default
    return out


class Resize:
    """A kernel's own way of resizing its outputs (torch's structured kernels resize each output
    in turn to the result's shape and strides, warning for one that had elements):

    - ``order``: the outputs' indices in the order the kernel resizes them (histogram: the
      bin edges first), so the warnings come in torch's order.
    - ``shapes(args, kwargs, old, new)``: the (old, new) shapes the warning names, or None
      for no warning (kthvalue and mode resize a keepdim-shaped view of out first).
    - ``layout(index, had_elements)``: whether the resized output takes the result's layout
      (False: row-major, as linalg.eig's eigenvectors when out had elements).
    """

    __slots__ = ("order", "shapes", "layout")

    def __init__(self, order=None, shapes=None, layout=None):
        self.order = order
        self.shapes = shapes or (lambda args, kwargs, old, new: (old, new))
        self.layout = layout or (lambda index, had_elements: True)


_PLAIN_RESIZE = Resize()


def keepdim_shapes(unsqueeze_any_rank: bool):
    """The warning's shapes for kthvalue (``unsqueeze_any_rank`` False) and mode (True): torch
    resizes out to the keepdim shape, first unsqueezing ``dim`` of an out of the result's rank
    (kthvalue) or of any rank where ``dim`` is valid (mode), then squeezes it again."""

    def shapes(args, kwargs, old, new):
        names = ("input", "k", "dim", "keepdim") if not unsqueeze_any_rank else \
            ("input", "dim", "keepdim")
        given = dict(zip(names, args), **kwargs)
        if given.get("keepdim", False):
            return old, new
        source = given["input"]
        dim = given.get("dim", -1)
        dim = dim + source.ndim if dim < 0 else dim
        if not source.ndim:
            return old, new
        kept = new[:dim] + (1,) + new[dim:]
        if dim <= len(old) if unsqueeze_any_rank else len(old) == source.ndim - 1:
            old = old[:dim] + (1,) + old[dim:]
        return old, kept

    return shapes


def _warn_resize(old: tuple, new: tuple, stacklevel: int = 5) -> None:
    if math.prod(old):
        warnings.warn(RESIZE_WARNING.format(old=list(old), new=list(new)), UserWarning,
                      stacklevel=stacklevel)


def _store(out: Tensor, value: np.ndarray, warn: bool, layout: bool = True) -> None:
    data = out._data
    if data.shape != value.shape:
        if warn:
            _warn_resize(data.shape, value.shape)
        resize(out, value.shape, like=value if layout else None, exact=layout == "exact")
        data = out._data
    if not data.flags.writeable:
        # an out whose elements share memory (expanded, or a stride-0 empty_strided/as_strided),
        # for the kernels torch lets write into it (Note: expanded outs): a writable alias of
        # the same memory, the last element written to a location keeping it, as torch's loop
        from .ops.inplace import writable_alias

        alias = writable_alias(data)
        if alias is not None:
            data = alias
    np.copyto(data, value, casting="unsafe")
    out._bump_version()


def resize(tensor: Tensor, shape: tuple, like: np.ndarray | None = None,
           exact: bool = False) -> None:
    """torch's resize_: same memory when the element count is kept on a contiguous tensor
    (views of it see later writes), fresh memory otherwise.

    Note: strides of a resized out
    torch resizes an out tensor to the result's shape and then gives it the strides the kernel
    computed for the result (TensorIterator: the inputs' layout, ``exp(x.t(), out=empty)`` is
    transposed; linalg kernels: column-major), the strides the call without out= returns.
    ``like``, the computed result, lends its layout when it is dense, else out is row-major;
    ``exact``: its strides as they are, also along dims of size 1 or 0 (a kernel that sets them
    itself, as nonzero's)."""
    data = tensor._data
    size = 1
    for n in shape:
        size *= n
    if like is None:
        strides = None
    elif exact:
        strides = tuple(s // like.itemsize for s in like.strides)
    else:
        strides = _dense_layout(like)
    if data.size == size and data.flags.c_contiguous:
        flat = data.reshape(-1)
    else:
        # torch keeps the storage when it holds the new elements from the tensor's offset on
        # (a transposed view of a larger base writes into the base)
        storage = _storage_from_offset(data) if size else None
        if storage is not None and storage.size >= size and data.flags.writeable:
            flat = storage[:size]
        elif strides is not None:
            flat = np.zeros(size, dtype=data.dtype)
        else:
            tensor._data = np.zeros(shape, dtype=data.dtype)
            return
    if strides is None:
        tensor._data = flat.reshape(shape)
    else:
        tensor._data = np.lib.stride_tricks.as_strided(
            flat, shape, tuple(s * flat.itemsize for s in strides))
    if tensor._base is not None:
        restride_view(tensor)


def _storage_from_offset(array: np.ndarray):
    from .methods.legacy import _storage_from_offset as storage

    return storage(array)


def _dense_layout(array: np.ndarray):
    """The element strides of a non-overlapping dense array with none negative, or None (also
    for a plain row-major one, which needs no work)."""
    if array.size == 0:
        return None
    if array.flags.c_contiguous:
        # (NumPy's flag ignores size-1 dims, whose strides torch's iterator sets from its
        # order of dims: exp(x.t(), out=empty) of a (3, 1) x is (1, 1)-strided, generated-
        # program seed 10023138)
        if 1 not in array.shape or array.ndim < 2 or min(array.strides) < 0 \
                or not _size_one_strides(array):
            return None
        return tuple(s // array.itemsize for s in array.strides)
    if any(s < 0 for s in array.strides) or _dense_span(array) is None:
        return None
    return tuple(s // array.itemsize for s in array.strides)


def _dense_span(array: np.ndarray):
    """(start, end) bytes of a non-overlapping dense array, or None (torch: too hard to tell)."""
    if array.size == 0:
        return None
    strides = sorted((abs(s), n) for s, n in zip(array.strides, array.shape) if n != 1)
    expected = array.itemsize
    for stride, n in strides:
        if stride != expected:
            return None
        expected *= n
    low = high = array.__array_interface__["data"][0]
    for stride, n in zip(array.strides, array.shape):
        if stride < 0:
            low += stride * (n - 1)
        else:
            high += stride * (n - 1)
    return low, high + array.itemsize


def _check_overlap(source: np.ndarray, target: np.ndarray) -> None:
    """torch's assert_no_partial_overlap: an input may be the out tensor itself, not part of it."""
    if source is target:
        return
    a, b = _dense_span(source), _dense_span(target)
    if a is None or b is None or a[1] <= b[0] or b[1] <= a[0]:
        return
    if a == b and _dims_that_matter(source) == _dims_that_matter(target):
        return
    raise RuntimeError(OVERLAP_ERROR)


def check_internal_overlap(target: Tensor) -> None:
    """torch's assert_no_internal_overlap on an out tensor (Note: expanded outs): a stride 0
    over more than one element is refused, even when out would be resized (other strided
    layouts are too hard to tell, and pass). An empty out has none, whatever its strides (as
    ops/inplace.py's has_internal_overlap: nonzero's own (0, 2) result has strides (1, 0))."""
    data = target._data
    if data.size and any(step == 0 and size > 1 for size, step in zip(data.shape, data.strides)):
        raise RuntimeError(INTERNAL_OVERLAP_ERROR)


def check_partial_overlap(target: Tensor, operand) -> None:
    """torch's assert_no_partial_overlap on tensors (masked_fill_'s mask): all of ``target`` is
    fine, part of it is not."""
    if operand is not target and np.may_share_memory(operand._data, target._data):
        _check_overlap(operand._data, target._data)


def check_no_overlap(target: Tensor, *operands) -> None:
    """torch's assert_no_overlap, for kernels that read an operand while writing ``target``
    (index_put_, index_copy_, index_add_, scatter_, put_, index_fill_'s index...): an operand
    may share no memory with the target, not even all of it (``x.index_put_((i,), x)``).

    As torch decides: the same tensor always overlaps (even empty); else both must be dense
    and non-empty (a strided or expanded one is too hard to tell, and passes) with
    intersecting byte ranges. Operands that are not tensors (None, lists, numbers) pass.
    torch checks this in the kernel, after autograd's refusal to write into a leaf that
    requires grad, which therefore comes first."""
    check_inplace_allowed(target)
    data = target._data
    span = None
    for operand in operands:
        if operand is target:
            raise RuntimeError(OVERLAP_ERROR)
        if not isinstance(operand, Tensor) or not np.may_share_memory(operand._data, data):
            continue
        if span is None:
            span = _dense_span(data) or (0, 0)
        other = _dense_span(operand._data)
        if other is not None and other[0] < span[1] and span[0] < other[1]:
            raise RuntimeError(OVERLAP_ERROR)


def _dims_that_matter(array: np.ndarray) -> tuple:
    """The (size, stride) of the dims longer than 1. torch compares the operand as expanded to
    the target (setitem strips a value's leading 1s, then expands it back, and a size-1 dim's
    stride is canonical there), where NumPy gives size-1 dims any stride: ``w[:] -= x`` of a
    (1, 2) ``w`` (d2l's ``conv2d.weight.data[:] -= lr * grad``) raised where torch sees a full
    overlap and copies."""
    return tuple((size, step) for step, size in zip(array.strides, array.shape) if size != 1)
