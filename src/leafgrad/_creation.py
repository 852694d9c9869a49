"""Tensor factories: ``tensor``, ``zeros``, ``arange``, ``rand``... with torch's dtype rules."""

from __future__ import annotations

import functools

import builtins
import math
import warnings

import numpy as np

from . import _argparse, _construct, _dtype, _layouts, _warn
from ._compile.state import state as _capture
from ._device import default as _device_default, use as _device_use
from . import _meta
from .ops import _layout
from ._alloc import check_storage, share_with_numpy
from ._out import ANY, RESIZE_GRAD, Out, floating, not_bool, takes_out
from .tensor import Tensor, _wrap
from . import _memory_format
from . import _rng as _random
from .autograd._vmap_state import batched_draw, random_levels, state as _vmap_state
from .ops._float_kernels import fma
from .ops.registry import array_kernel
from ._info import is_warn_always_enabled

__all__ = [
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "zeros_like",
    "ones_like", "full_like", "empty_like", "arange", "linspace", "eye", "rand", "randn",
    "randint", "rand_like", "randn_like", "randint_like", "randperm", "normal",
]

INT_REQUIRES_GRAD = "Only Tensors of floating point and complex dtype can require gradients"


def _pinned(function: str, pin_memory) -> None:
    """A factory's ``pin_memory`` (a bool or None): True asks for pinned memory, which needs an
    accelerator, as torch says on a CPU-only build."""
    if pin_memory is None:
        return
    _argparse.bool_arg(function, "pin_memory", pin_memory)
    if pin_memory:
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                           "pinned memory allocator is available on this system.")


def _finish(data: np.ndarray, requires_grad: bool, device=None, shares: bool = False) -> Tensor:
    """The factory's result around ``data``; ``shares``: ``data`` is memory of an object from
    outside (``as_tensor`` of a NumPy array), which leafgrad.compile reads live."""
    if requires_grad.__class__ is not bool and requires_grad is not None:  # (bool? in torch)
        # the factory calling is named as torch's function (zeros, full_like, eye...): read
        # its name from its frame, on this error path only
        import sys

        _argparse.bool_arg(sys._getframe(1).f_code.co_name, "requires_grad", requires_grad)
    target = _device_use(device) if device is not None else _device_default()
    if requires_grad and data.dtype.kind not in "fc" and not _dtype.is_bfloat16_array(data):
        raise RuntimeError(INT_REQUIRES_GRAD)
    if target is not None and target.type == "meta":  # Note: meta tensors (_meta.py)
        data = _meta.like(data)
    result = _wrap(data, bool(requires_grad))
    if _capture.active:  # a constant of the graph leafgrad.compile is capturing
        _capture.tracer.created_tensor(result, shares)
    return result


_NOT_WRITEABLE_WARNED = [False]  # torch's TORCH_WARN_ONCE: once per process


def numpy_source(array: np.ndarray, aliased: bool = True) -> np.ndarray:
    """``array`` checked as torch's tensor_from_numpy checks an array it wraps (``from_numpy``,
    ``as_tensor``, ``asarray``, ``Tensor(array)``; ``tensor`` and ``new_tensor`` copy it, so
    ``aliased=False`` skips the not-writable warning): strides in whole elements, none
    negative, native byte order, then a dtype torch has."""
    if aliased and not array.flags.writeable:
        if is_warn_always_enabled() or not _NOT_WRITEABLE_WARNED[0]:
            if not is_warn_always_enabled():  # (warn-always leaves the once-flag alone)
                _NOT_WRITEABLE_WARNED[0] = True
            _warn.warn(
                "The given NumPy array is not writable, and PyTorch does not support "
                "non-writable tensors. This means writing to this tensor will result in "
                "undefined behavior. You may want to copy the array to protect its data or make "
                "it writable before converting it to a tensor. This type of warning will be "
                "suppressed for the rest of this program.")
    itemsize = array.dtype.itemsize
    strides = array.strides
    if any(stride % itemsize for stride in strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if any(stride < 0 for stride in strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around this "
            "by making a copy of your array  with array.copy().) ")
    if not array.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    if array.dtype.kind not in "biuf" or itemsize > 8:
        _dtype.from_user_numpy_dtype(array.dtype)  # torch's "can't convert np.ndarray" error
    return array


def _infer_array(data) -> np.ndarray:
    """An array from Python data, with torch's inference: floats -> default dtype, ints ->
    int64, bools -> bool (NumPy arrays and scalars keep their dtype); see _construct."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        return numpy_source(data, aliased=False)
    return _construct.array_from_data(data)


@_argparse.parsed("tensor")
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new tensor that owns a copy of ``data`` (a number, nested list, array or tensor).

    >>> leafgrad.tensor([1., 2.], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    if not isinstance(dtype, _dtype.dtype):
        dtype = _argparse.dtype_arg("tensor", dtype)
    if requires_grad.__class__ is not bool:
        requires_grad = _argparse.bool_arg("tensor", "requires_grad", requires_grad)
    if isinstance(data, Tensor):
        _warn.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).")
    if dtype is not None and not isinstance(data, (Tensor, np.ndarray)):
        # Convert straight to the requested dtype: going through the inferred default dtype
        # first would round 0.3 to float32 before widening it.
        array = _construct.array_from_data(data, dtype)
    elif data.__class__ is list or data.__class__ is tuple:
        array = _construct.array_from_data(data)  # (a new array already: no second copy)
    else:
        array = copied(_infer_array(data), dtype.np if dtype is not None else None,
                       isinstance(data, np.ndarray))
    return _finish(array, requires_grad, device)


def copied(array: np.ndarray, np_dtype=None, outside: bool = True) -> np.ndarray:
    """A copy of ``array`` (in ``np_dtype``) for a copying factory. ``outside``: ``array`` is
    the caller's NumPy array, which leafgrad.compile reads live on every replay instead of
    baking the capture's values (_compile/sources.py)."""
    if outside and _capture.active:
        return _capture.tracer.copied_array(array, np_dtype)
    if np_dtype is not None and np.dtype(np_dtype).char == "e" and array.dtype.char != "e":
        return _layout.numpy_copy(_dtype.half_cast(array), array)  # Note: casts to float16
    return _layout.numpy_copy(np.array(array, dtype=np_dtype, copy=True), array)


@_argparse.parsed("as_tensor")
def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or tensor when it can."""
    if isinstance(data, Tensor):
        if dtype is None or dtype is data.dtype:
            return data
        return data.to(dtype)
    dtype = _argparse.dtype_arg("as_tensor", dtype)
    if isinstance(data, np.ndarray):
        numpy_source(data)
        if dtype is not None and dtype.np.char == "e" and data.dtype.char != "e":
            array = _dtype.half_cast(data)  # Note: casts to float16 (_dtype.py)
        else:
            array = data if dtype is None else data.astype(dtype.np, copy=False)
        if array is not data:  # a converted copy: torch's keeps the strides (_layout)
            array = _layout.numpy_copy(array, data)
        array = _infer_array(array) if array.dtype.kind not in "fiub" else array
        shares = np.may_share_memory(array, data)
        if shares:
            share_with_numpy(array)
        if not shares and _capture.active:  # a converted copy: read live by a replay
            array = copied(data, array.dtype)
        return _finish(array, False, device, shares=shares)
    return _finish(_construct.array_from_data(data, dtype), False, device)


def _one_argument(fn):
    """torch's from_numpy is a C function of one argument (METH_O): a wrong count raises
    CPython's message."""

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        if len(args) != 1 or kwargs:
            if kwargs:
                raise TypeError("torch._VariableFunctionsClass.from_numpy() takes no keyword "
                                "arguments")
            raise TypeError("torch._VariableFunctionsClass.from_numpy() takes exactly one "
                            f"argument ({len(args)} given)")
        return fn(*args)

    return checked


@_one_argument
def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (changes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    numpy_source(array)
    share_with_numpy(array)
    result = _wrap(array)
    if _capture.active:  # shares the caller's array: leafgrad.compile reads it live
        _capture.tracer.created_tensor(result, True)
    return result


_LARGEST_SIZE = 2**63 - 1


def _size(size, name: str = "zeros") -> tuple:
    """A size given as ``2, 3`` or ``(2, 3)``, checked with torch's argument-parser messages
    (its IntArrayRef parsing) and its negative-dimension errors (``zeros`` says
    "Dimension size must be non-negative", the other factories "Trying to create tensor with
    negative dimension")."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size, packed = tuple(size[0]), True
    else:
        packed = False
    for s in size:  # the common case: non-negative Python ints
        if s.__class__ is not int or s < 0 or s > _LARGEST_SIZE:
            break
    else:
        check_storage(size, 1)
        return size
    for position, s in enumerate(size):
        if s.__class__ is int:
            continue
        if isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)):
            continue
        if isinstance(s, Tensor) and s.ndim == 0 and s.dtype.np.kind in "iu":
            continue
        kind = _argparse.typename(s)
        if position == 0 and (packed or len(size) == 1):
            if packed:
                raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, "
                                f"but found element of type {kind} at pos 0")
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {kind}")
        if position == 0:
            raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
        raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                        f"{position + 1} with error \"type must be tuple of ints,but got {kind}\"")
    size = tuple(int(s) for s in size)
    for position, s in enumerate(size):
        if s < 0:
            if name == "zeros":  # (torch 2.13: ones says "Trying to create ...")
                raise RuntimeError(f"{name}: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        if s > 2**63 - 1:
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                            f"{position + 1} with error \"Overflow when unpacking long long")
    check_storage(size, 1)
    return size


def _np_dtype(dtype, default=None, function: str = "zeros") -> np.dtype:
    if dtype is None:
        return (default or _dtype.get_default_dtype()).np
    if not isinstance(dtype, _dtype.dtype):
        dtype = _argparse.dtype_arg(function, dtype)
    return dtype.np


def _sizes(positional: tuple, keyword, name: str = "zeros") -> tuple:
    """``zeros(2, 3)``, ``zeros((2, 3))`` or torch's keyword form ``zeros(size=(2, 3))``."""
    if keyword is None:
        if not positional:  # zeros(): torch's parser wants the size (a 0-d tensor is zeros(()))
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        return positional
    if positional:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    return (keyword,)


def _arange_resized(old: tuple, new: tuple) -> str | None:
    count = math.prod(old)
    if count == math.prod(new):
        return None
    return (f"The number of elements in the out tensor of shape {list(old)} is {count} which does "
            f"not match the computed number of elements {math.prod(new)}. Note that this may "
            f"occur as a result of rounding error. The out tensor will be resized to a tensor of "
            f"shape {tuple(new)}.")


# Factories with out=: built in out's dtype, out resized silently (see _out.py).
_FACTORY_OUT = {
    "zeros": Out("aten::zeros", ANY, mode="factory"),
    "ones": Out("aten::ones", ANY, mode="factory"),
    "empty": Out("aten::empty", ANY, mode="factory", grad_error=RESIZE_GRAD),
    "full": Out("aten::full", ANY, mode="factory"),
    "eye": Out("aten::eye", ANY, mode="factory"),
    "arange": Out("aten::arange", not_bool("\"arange_cpu\" not implemented for '{O}'"),
                  mode="factory", resize_warning=_arange_resized, internal_overlap=True),
    "linspace": Out("aten::linspace", not_bool("\"linspace_cpu\" not implemented for '{O}'"),
                    mode="factory", internal_overlap=True),
    "rand": Out("aten::rand", floating("\"check_uniform_bounds\" not implemented for '{O}'",
                                       NotImplementedError), mode="factory",
                 internal_overlap=True),
    "randn": Out("aten::randn", floating("\"normal_kernel_cpu\" not implemented for '{O}'",
                                         NotImplementedError), mode="factory",
                 grad_error=RESIZE_GRAD, internal_overlap=True),
    "randint": Out("aten::randint", ANY, mode="factory", internal_overlap=True),
    # (zeros, ones, empty, full, eye: torch writes into an expanded out; Note: expanded outs)
}


@takes_out(_FACTORY_OUT["zeros"])
def zeros(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False) -> Tensor:
    if pin_memory is not False:
        _pinned("zeros", pin_memory)
    return _finish(np.zeros(_size(_sizes(sizes, size, "zeros")), _np_dtype(dtype)),
                   requires_grad, device)


@takes_out(_FACTORY_OUT["ones"])
def ones(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False) -> Tensor:
    if pin_memory is not False:
        _pinned("ones", pin_memory)
    return _finish(np.ones(_size(_sizes(sizes, size, "ones"), "ones"), _np_dtype(dtype, function="ones")), requires_grad,
                   device)


@takes_out(_FACTORY_OUT["empty"])
def empty(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False,
          memory_format=None) -> Tensor:
    if pin_memory is not False:
        _pinned("empty", pin_memory)
    # NumPy's empty may hold anything; zeros keeps printing deterministic at the same cost.
    array = np.zeros(_size(_sizes(sizes, size, "empty"), "empty"), _np_dtype(dtype, function="empty"))
    if memory_format is not None:
        array = _in_memory_format(array, memory_format)
    return _finish(array, requires_grad, device)


def _in_memory_format(array: np.ndarray, memory_format) -> np.ndarray:
    """A new tensor's layout for ``memory_format=`` (torch.empty): contiguous, or channels-last
    for rank 4 (channels_last) or rank 5 (channels_last_3d); preserve_format has nothing to
    preserve."""
    if memory_format is _memory_format.contiguous_format:
        return array
    if memory_format is _memory_format.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    rank, name = (4, "channels_last") if memory_format is _memory_format.channels_last else (
        5, "channels_last_3d")
    if array.ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {name} format")
    return _layout.to_channels_last(array)


def _fill_dtype(value):
    if isinstance(value, Tensor):
        return value.dtype
    return _dtype._scalar_dtype(value)


@takes_out(_FACTORY_OUT["full"])
@_argparse.parsed("full")
def full(size, fill_value, *, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    if pin_memory is not False:
        _pinned("full", pin_memory)
    if fill_value.__class__ not in _argparse.NUMBERS or size.__class__ not in (tuple, list):
        _argparse.check("full", (size, fill_value), {"dtype": dtype})
    if fill_value.__class__ not in _argparse.NUMBERS:  # (a NumPy scalar as torch reads it:
        fill_value = _argparse.number("full", "fill_value", fill_value, 2)  # np.bool_ a float)
    dtype = _argparse.dtype_arg("full", dtype) or _fill_dtype(fill_value)
    shape = _size((size,), "full")
    # (Note: checked scalar writes, _construct.py: one element of float16/bfloat16 is not)
    fill_value = _construct.check_scalar_write(fill_value, dtype, half=math.prod(shape) != 1)
    if dtype in _dtype.WIDE_UNSIGNED:
        fill_value = _construct.unsigned_fill(fill_value, dtype.np)
    return _finish(np.full(shape, fill_value, dtype.np), requires_grad, device)


def _vmapped_random(draw, shape):
    """Inside vmap(randomness='different'): one draw per example, as a batched tensor."""
    if not _vmap_state.active:
        return None
    levels, sizes = random_levels()
    if not levels:
        return None
    from .ops._batching import wrap

    with batched_draw():
        return wrap(_wrap(draw(tuple(sizes) + tuple(shape))), levels)


def _batched_like(input, physical):
    from .ops._batching import wrap

    return wrap(physical, input._levels)


def _like(input: Tensor, dtype, name: str = "zeros_like"):
    if not isinstance(input, Tensor):  # torch's parser, before anything is made
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_argparse.typename(input)}")
    if dtype is None:
        return input._data.shape, input._data.dtype
    return input._data.shape, _argparse.dtype_arg(name, dtype).np


def _laid_out(array: np.ndarray, input: Tensor, memory_format, constant: bool = True) -> np.ndarray:
    """``array`` in the layout torch's ``*_like(input, memory_format=...)`` allocates:
    ``preserve_format`` (the default) follows ``input``'s strides as ``empty_like`` does."""
    source = input._data
    if memory_format is None and source.size and source.flags.c_contiguous and (
            source.ndim < 2 or 1 not in source.shape):
        return array  # a plain row-major source (its strides are NumPy's own): row-major

    if memory_format is None or memory_format is _memory_format.preserve_format:
        return _layout.like(array, input._data, constant)
    if memory_format is _memory_format.channels_last and array.ndim == 4:
        return _layout.to_channels_last(array)
    return array


@_argparse.parsed("zeros_like")
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               pin_memory=False,
               memory_format=None) -> Tensor:
    if pin_memory is not False:
        _pinned("zeros_like", pin_memory)
    if input.__class__ is not Tensor and getattr(input, "is_sparse", False) and \
            layout is not _layouts.strided:
        from .sparse._ops import empty_like_sparse  # (leafgrad.sparse: an empty sparse one)

        return empty_like_sparse(input, dtype, requires_grad)
    shape, np_dtype = _like(input, dtype, "zeros_like")
    if device is None and type(input._data) is _meta.MetaArray:
        device = "meta"  # a meta tensor's likes are meta (Note: meta tensors, _meta.py)
    if type(input).__name__ == "BatchedTensor":  # inside vmap: one per example
        shape = input._value._data.shape
        return _batched_like(input, _finish(np.zeros(shape, np_dtype), requires_grad, device))
    return _finish(_laid_out(np.zeros(shape, np_dtype), input, memory_format), requires_grad,
                   device)


@_argparse.parsed("ones_like")
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
              memory_format=None) -> Tensor:
    if pin_memory is not False:
        _pinned("ones_like", pin_memory)
    if input.__class__ is not Tensor and getattr(input, "is_sparse", False) and \
            layout is not _layouts.strided:
        from .sparse._tensor import backend_error

        raise backend_error("aten::fill_.Scalar", "fill")
    shape, np_dtype = _like(input, dtype, "ones_like")
    if device is None and type(input._data) is _meta.MetaArray:
        device = "meta"  # a meta tensor's likes are meta (Note: meta tensors, _meta.py)
    if type(input).__name__ == "BatchedTensor":  # inside vmap: one per example
        shape = input._value._data.shape
        return _batched_like(input, _finish(np.ones(shape, np_dtype), requires_grad, device))
    return _finish(_laid_out(np.ones(shape, np_dtype), input, memory_format), requires_grad,
                   device)


@_argparse.parsed("empty_like")
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               pin_memory=False,
               memory_format=None) -> Tensor:
    if pin_memory is not False:
        _pinned("empty_like", pin_memory)
    shape, np_dtype = _like(input, dtype, "empty_like")
    if device is None and type(input._data) is _meta.MetaArray:
        device = "meta"  # a meta tensor's likes are meta (Note: meta tensors, _meta.py)
    if type(input).__name__ == "BatchedTensor":  # inside vmap: one per example
        shape = input._value._data.shape
        return _batched_like(input, _finish(np.zeros(shape, np_dtype), requires_grad, device))
    return _finish(_laid_out(np.zeros(shape, np_dtype), input, memory_format), requires_grad,
                   device)


@_argparse.parsed("full_like")
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              pin_memory=False,
              memory_format=None) -> Tensor:
    if pin_memory is not False:
        _pinned("full_like", pin_memory)
    shape, np_dtype = _like(input, dtype, "full_like")
    if device is None and type(input._data) is _meta.MetaArray:
        device = "meta"  # a meta tensor's likes are meta (Note: meta tensors, _meta.py)
    if fill_value.__class__ not in _argparse.NUMBERS:
        fill_value = _argparse.number("full_like", "fill_value", fill_value, 2)
    fill_value = _construct.check_scalar_write(fill_value,
                                               _dtype.as_dtype(dtype) or input.dtype,
                                               half=math.prod(shape) != 1)
    if np_dtype.kind == "u":  # uint16/32/64 convert the value as torch does (full)
        fill_value = _construct.unsigned_fill(fill_value, np_dtype)
    if type(input).__name__ == "BatchedTensor":  # inside vmap: one per example
        shape = input._value._data.shape
        return _batched_like(input, _finish(np.full(shape, fill_value, np_dtype), requires_grad, device))
    return _finish(_laid_out(np.full(shape, fill_value, np_dtype), input, memory_format),
                   requires_grad, device)


@takes_out(_FACTORY_OUT["arange"])
@_argparse.parsed("arange")
def arange(start=_argparse.NOT_GIVEN, end=_argparse.NOT_GIVEN, step=1, *, dtype=None,
           layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """Values from ``start`` up to (not including) ``end``; int64 unless a bound is a float."""
    if pin_memory is not False:
        _pinned("arange", pin_memory)
    _refuse_wide_unsigned(dtype, "arange_cpu")
    if end is _argparse.NOT_GIVEN:  # arange(end)
        start, end = 0, start
    elif start is _argparse.NOT_GIVEN:  # arange(end=...)
        start = 0
    for bound in (start, end, step):
        # each a Number: a Python or NumPy number, a 0-d tensor not requiring grad (an array,
        # a list, None: the parser's error, which @parsed raises; arange(0, None) made [])
        if bound.__class__ not in _argparse.NUMBERS and not _argparse._is_number(bound):
            raise TypeError("arange's bounds are Numbers")
    # (NumPy scalars as torch's Scalar reads them: np.float32 is a float, np.bool_ too)
    values = [v.item() if isinstance(v, Tensor) else _argparse.numpy_operand(v)
              for v in (start, end, step)]
    # a complex bound: the kernel reads it as a double (c10's checked conversion: its real
    # part when it has no imaginary part, else the overflow error), a float for the dtype
    values = [_argparse.real_scalar(v, _dtype.float64, _argparse.DOUBLE_T)
              if v.__class__ is complex else v for v in values]
    start, end, step = values
    # torch's order (RangeFactories.cpp): the dtype's kernel, a zero step, finite bounds, the
    # step's sign
    dtype = _argparse.dtype_arg("arange", dtype)
    if dtype is _dtype.bool or dtype is not None and dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype._legacy}'")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_range_bound(start)} -> {_range_bound(end)}")
    if (end - start) * step < 0:
        raise RuntimeError(
            "upper bound and lower bound inconsistent with step sign"
        )
    if dtype is None:
        is_float = any(isinstance(v, float) for v in values)
        dtype = _dtype.get_default_dtype() if is_float else _dtype.int64
    count = math.ceil((end - start) / step)
    if dtype is _dtype.int64:
        # torch's int64 kernel works in int64: the bounds and step truncated, a step that
        # truncates to 0 refused (ValueError), the length (end - start + step - sign) / step
        # in C's truncating division
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
        span = end - start + step - (1 if step > 0 else -1)
        count = abs(span) // abs(step) * (1 if (span < 0) == (step < 0) else -1)
    if dtype.np.kind in "iu":
        data = (np.arange(count, dtype=np.int64) * int(step) + int(start)).astype(dtype.np)
    else:
        with np.errstate(over="ignore"):  # (a float16 past 65504 is inf, as torch's)
            data = _arange_float(float(start), float(step), count, dtype.np)
    return _finish(data, requires_grad, device)


def _range_bound(value) -> str:
    """A bound as torch's message prints it (C++'s stream: 0, 1.5, inf, nan)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _arange_float(start: float, step: float, count: int, np_dtype) -> np.ndarray:
    """torch's CPU arange kernel (RangeFactoriesKernel.cpp) for floating dtypes.

    It computes in double and runs its vectorised loop with 32-byte vectors (8 float32 or 4
    float64 lanes; the AVX2 kernel, also used on AVX-512 machines), two vectors per step: a
    vector's first element is ``start + step * i`` in double, cast to the dtype, and lane k
    adds ``k * step`` to that cast value in double before its own cast. The compiler fuses
    each ``a + b * c`` into one fused multiply-add (rounded once, in double). The elements after
    the last full pair of vectors are ``start + step * i`` cast directly. (One thread: past
    32768 elements torch splits the range among its threads, and each thread's share starts
    its own vectors.) bfloat16 computes in float: vectors of 16 lanes, lane k is the vector's
    base (cast) plus ``k * step`` in float, cast. float16 takes ``start + step * i`` throughout.
    """
    index = np.arange(count, dtype=np.float64)
    if np_dtype.kind == "V":  # bfloat16
        return _arange_bfloat16(start, step, count, np_dtype)
    if np_dtype not in (np.float32, np.float64):
        return (start + index * step).astype(np_dtype)
    if start.is_integer() and step.is_integer() and abs(start) + abs(step) * count <= (
            2.0 ** 24 if np_dtype == np.float32 else 2.0 ** 53):
        # integral bounds and step, every value an integer the dtype holds exactly: what the
        # kernel computes (start + step * i, or a vector's cast base plus k * step, in double)
        # is that integer on both paths (arange(5.): 17.6 -> 4.9 us)
        return (index * step + start).astype(np_dtype)
    direct = _fma(index, step, start, _DOUBLE).astype(np_dtype)
    lanes = 32 // np.dtype(np_dtype).itemsize
    vector = count - count % (2 * lanes)
    if vector:
        first = direct[:vector:lanes].astype(np.float64)  # each vector's base, cast
        lane = np.arange(lanes, dtype=np.float64)
        blocks = np.broadcast_shapes(first[:, None].shape, lane.shape)
        direct[:vector] = _fma(np.broadcast_to(lane, blocks), step,
                               np.broadcast_to(first[:, None], blocks), _DOUBLE
                               ).astype(np_dtype).reshape(-1)
    return direct


_DOUBLE = np.dtype(np.float64)


def _arange_bfloat16(start: float, step: float, count: int, bf16) -> np.ndarray:
    """torch's arange for bfloat16 (see _arange_float): float arithmetic, 16-lane vectors."""
    start32, step32 = np.float32(start), np.float32(step)
    index = np.arange(count, dtype=np.float64)
    direct = (index * np.float64(step32) + np.float64(start32)).astype(np.float32).astype(bf16)
    vector = count - count % 32
    if vector:
        base = direct[:vector:16].astype(np.float32)
        lane = np.arange(16, dtype=np.float32) * step32
        direct[:vector] = (base[:, None] + lane).astype(bf16).reshape(-1)
    return direct


def _fma(a: np.ndarray, b, c, dtype) -> np.ndarray:
    """``a * b + c`` (a: float64 integers) rounded once in ``dtype``, as a fused multiply-add.

    float32: the product is exact in float64 and the sum is rounded to float64 and then to
    float32 (a second rounding that is almost never visible). float64: ops/_float_kernels.fma
    (Veltkamp/Dekker's exact product, Knuth's two-sum).
    """
    if dtype.itemsize < 8:
        return (a * np.float64(b) + np.float64(c)).astype(dtype)

    with np.errstate(over="ignore", invalid="ignore"):
        return fma(a, np.float64(b), np.float64(c))


def _check_bound_dims(name: str, start, end) -> None:
    """linspace/logspace's tensor overloads take 0-d start and end tensors only."""
    dims = [(label, value.ndim) for label, value in (("start", start), ("end", end))
            if isinstance(value, Tensor)]
    if any(ndim for _, ndim in dims):
        got = " and ".join(f"{label} with {ndim} dimension(s)" for label, ndim in dims)
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got "
                           f"{got}.")


@takes_out(_FACTORY_OUT["linspace"])
@_argparse.parsed("linspace")
def linspace(start, end, steps, *, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:
    if pin_memory is not False:
        _pinned("linspace", pin_memory)
    _check_bound_dims("linspace", start, end)
    _refuse_wide_unsigned(dtype, "linspace_cpu")
    from ._functions_composites import complex_bounds_dtype

    start, end = (value.item() if isinstance(value, Tensor) and value.ndim == 0 else value
                  for value in (start, end))
    if isinstance(start, complex) or isinstance(end, complex):
        dtype = complex_bounds_dtype("linspace", start, end, dtype)
    np_dtype = _np_dtype(dtype, function="linspace")
    if np_dtype.kind == "b":
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if steps.__class__ is not int:
        _argparse.check("linspace", (start, end, steps))
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    # torch computes in the output dtype and fills the first half from start and the second half
    # from end, symmetrically: start + step * i and end - step * (steps - 1 - i), each one fused
    # multiply-add (its compiler contracts them), so they are rounded once, as here.
    if np_dtype.kind == "V":  # bfloat16
        return _finish(_linspace_bfloat16(start, end, steps, np_dtype), requires_grad, device)
    if np_dtype.kind == "c":
        return _finish(_linspace_complex(start, end, steps, np_dtype), requires_grad, device)
    if np_dtype.kind in "iu":  # the bounds in the dtype first (c10's checked conversion: the
        # int -3 is 253 in uint8, the float -1.3 overflows it)
        target = _dtype.from_numpy_dtype(np_dtype)
        start, end = (_construct.check_scalar_write(value, target) for value in (start, end))
    work = np_dtype if np_dtype.kind == "f" else np.dtype(np.float64)
    if work == np.float16 and max(abs(float(start)), abs(float(end))) > 65504:
        raise RuntimeError("value cannot be converted to type c10::Half without overflow")
    return _finish(_linspace_real(start, end, steps, work).astype(np_dtype), requires_grad,
                   device)


def _linspace_real(start, end, steps: int, work) -> np.ndarray:
    """linspace in the float type ``work`` (float64 for integer dtypes)."""
    start_w, end_w = work.type(start), work.type(end)
    step = (end_w - start_w) / work.type(steps - 1) if steps > 1 else work.type(0)
    half = steps // 2
    if work == np.float16:  # Half arithmetic, op by op (closer to torch than a fused form)
        index = np.arange(steps, dtype=work)
        data = np.where(index < half, start_w + step * index, end_w - step * (steps - index - 1))
    else:
        index = np.arange(steps, dtype=np.float64)
        data = np.where(index < half, _fma(index, step, start_w, work),
                        _fma(np.float64(steps - 1) - index, -step, end_w, work))
    if steps == 1:
        data = np.array([start_w], dtype=work)
    return data


def _linspace_complex(start, end, steps: int, np_dtype) -> np.ndarray:
    """torch's linspace for complex dtypes: the real and imaginary parts are each the real
    linspace in the component type (its kernel's arithmetic never mixes them)."""
    start, end = complex(start), complex(end)
    part = np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)
    data = np.empty(steps, np_dtype)
    data.real = _linspace_real(start.real, end.real, steps, part)
    data.imag = _linspace_real(start.imag, end.imag, steps, part)
    return data


def _linspace_bfloat16(start, end, steps: int, bf16) -> np.ndarray:
    """linspace in c10::BFloat16 arithmetic: each operation in float, rounded to bfloat16."""

    def rounded(value):
        return np.asarray(value, dtype=np.float32).astype(bf16).astype(np.float32)

    start_w, end_w = rounded(float(start)), rounded(float(end))
    if steps == 1:
        return start_w.reshape(1).astype(bf16)
    step = rounded(rounded(end_w - start_w) / rounded(steps - 1)) if steps > 1 else \
        np.float32(0)
    index = np.arange(steps, dtype=np.float32)
    low = rounded(start_w + rounded(step * rounded(index)))
    high = rounded(end_w - rounded(step * rounded(steps - index - 1)))
    return np.where(index < steps // 2, low, high).astype(bf16)


def _refuse_wide_unsigned(dtype, kernel: str) -> None:
    """torch 2.13 has no arange/linspace/eye kernel for uint16/32/64 (Note: wide unsigned
    support, ops/_uint.py)."""
    if dtype in _dtype.WIDE_UNSIGNED:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._legacy}'")


@takes_out(_FACTORY_OUT["eye"])
@_argparse.parsed("eye")
def eye(n, m=None, *, dtype=None, layout=None, device=None,
        requires_grad=False, pin_memory=False) -> Tensor:
    if pin_memory is not False:
        _pinned("eye", pin_memory)
    if n.__class__ is not int or m.__class__ not in (int, type(None)):
        _argparse.check("eye", (n,) if m is None else (n, m))
    m = n if m is None else m
    for name, value in (("n", n), ("m", m)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    check_storage((int(n), int(m)), 1)
    _refuse_wide_unsigned(dtype, "eye")
    return _finish(np.eye(int(n), int(m), dtype=_np_dtype(dtype, function="eye")),
                   requires_grad, device)


# -- random ---------------------------------------------------------------------------------------


def _random_overloads(name: str, sizes: tuple, size, dtype, keywords: bool = False) -> None:
    """rand and randn have several overloads in torch (generator=, names=), so a size given
    twice or a bad dtype is the "invalid combination" message there, not a named argument's."""
    bad_dtype = dtype is not None and not isinstance(dtype, _dtype.dtype) and not any(
        dtype is kind for kind in (int, float, bool, complex))
    if size is None and not sizes and keywords and not bad_dtype:  # (torch: only keywords)
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if bad_dtype or (size is not None and sizes) or (size is None and not sizes):
        given = {key: value for key, value in (("size", size), ("dtype", dtype))
                 if value is not None}
        raise _argparse.invalid_combination(name, sizes, given)


def _draw(fn, *args, **kwargs):
    """A random draw ``fn(*args, **kwargs)`` of ``_rng``: under leafgrad.compile one node of
    the captured graph (registry.array_kernel) that a replay draws again, so that the
    generator (the default one or ``generator=``) advances on every call as in eager mode."""
    return array_kernel(fn, *args, **kwargs)


def _scaled_normal(means, stds, shape, np_dtype, generator):
    """``normal(mean, std)`` with tensor arguments: torch draws normal_(0, 1) into the
    broadcast shape, then scales and shifts (so the stream matches torch's)."""
    draws = _random.normal(shape, np_dtype, 0.0, 1.0, generator=generator)
    return (draws * stds + means).astype(np_dtype)


_scaled_normal.draws_random = True  # leafgrad.compile: replayed, never dropped or merged


@takes_out(_FACTORY_OUT["rand"])
def rand(*sizes, size=None, generator=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    """Uniform on [0, 1); the same stream as torch for the same seed."""
    if pin_memory is not False:
        _pinned("rand", pin_memory)
    _random_overloads("rand", sizes, size, dtype, keywords=any(
        value is not None for value in (generator, dtype, layout, device)) or requires_grad)
    shape = _size(_sizes(sizes, size, "rand"), "rand")
    np_dtype = _np_dtype(dtype, function="rand")
    batched = _vmapped_random(lambda s: _random.uniform(s, np_dtype, generator=generator), shape)
    if batched is not None:
        return batched
    data = _draw(_random.uniform, shape, np_dtype, generator=generator)
    return _finish(data, requires_grad, device)


@takes_out(_FACTORY_OUT["randn"])
def randn(*sizes, size=None, generator=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False) -> Tensor:
    """Standard normal; the same stream as torch for the same seed."""
    if pin_memory is not False:
        _pinned("randn", pin_memory)
    _random_overloads("randn", sizes, size, dtype, keywords=any(
        value is not None for value in (generator, dtype, layout, device)) or requires_grad)
    shape = _size(_sizes(sizes, size, "randn"), "randn")
    np_dtype = _np_dtype(dtype, function="randn")
    batched = _vmapped_random(lambda s: _random.normal(s, np_dtype, generator=generator), shape)
    if batched is not None:
        return batched
    data = _draw(_random.normal, shape, np_dtype, generator=generator)
    return _finish(data, requires_grad, device)


@takes_out(_FACTORY_OUT["randint"])
@_argparse.parsed("randint")
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, layout=None,
            device=None, requires_grad=False, pin_memory=False) -> Tensor:
    if pin_memory is not False:
        _pinned("randint", pin_memory)
    if low.__class__ is not int or high.__class__ not in (int, tuple, list):
        # (None is no valid value of these: the arguments given are the others, in order)
        _argparse.check("randint", tuple(a for a in (low, high, size) if a is not None),
                        {"generator": generator} if generator is not None else {})
    if size is None:
        low, high, size = 0, low, high
    if high is None and size is not None and isinstance(size, (tuple, list)):
        low, high = 0, low
    data = _draw(_random.randint, low, high, _size((size,), "randint"),
                 _np_dtype(dtype, _dtype.int64, "randint"), generator=generator)
    return _finish(data, requires_grad, device)


@_argparse.parsed("rand_like")
def rand_like(input, *, dtype=None, generator=None, **kwargs) -> Tensor:
    _like(input, None, "rand_like")  # torch's parser's check of input
    return rand(input.shape, dtype=dtype or input.dtype, generator=generator, **kwargs)


@_argparse.parsed("randn_like")
def randn_like(input, *, dtype=None, generator=None, **kwargs) -> Tensor:
    _like(input, None, "randn_like")  # torch's parser's check of input
    return randn(input.shape, dtype=dtype or input.dtype, generator=generator, **kwargs)


@_argparse.parsed("randint_like")
def randint_like(input, low, high=None, *, dtype=None, generator=None, **kwargs) -> Tensor:
    if not isinstance(input, Tensor):  # several overloads in torch: the combination message
        raise _argparse.invalid_combination("randint_like", _argparse.given(input, low, high),
                                            {})
    if high is None:  # randint_like(input, high)
        low, high = 0, low
    return randint(low, high, input.shape, dtype=dtype or input.dtype, generator=generator,
                   **kwargs)


@_argparse.parsed("randperm")
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False,
             pin_memory=False) -> Tensor:
    if pin_memory is not False:
        _pinned("randperm", pin_memory)
    if n.__class__ is not int:
        _argparse.check("randperm", (n,), {"generator": generator} if generator is not None
                        else {})
    data = _draw(_random.randperm, n, _np_dtype(dtype, _dtype.int64, "randperm"),
                 generator=generator)
    return _finish(data, requires_grad, device)


@_argparse.parsed("normal")
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, requires_grad=False):
    if size is None:
        # tensor mean and/or std: torch draws normal_(0, 1) into the broadcast shape, then
        # scales and shifts (so the stream matches torch's)
        means = mean._data if isinstance(mean, Tensor) else np.asarray(mean)
        stds = std._data if isinstance(std, Tensor) else np.asarray(std)
        shape = np.broadcast_shapes(means.shape, stds.shape)
        np_dtype = np.result_type(*(t._data.dtype for t in (mean, std) if isinstance(t, Tensor)))
        data = _draw(_scaled_normal, means, stds, shape=shape, np_dtype=np_dtype,
                     generator=generator)
        tensor_mean, tensor_std = isinstance(mean, Tensor), isinstance(std, Tensor)
        if requires_grad or not (tensor_mean and mean.requires_grad
                                 or tensor_std and std.requires_grad):
            return _finish(data, requires_grad)
        # a graph node with zero gradients, as torch's NormalBackward1/2/3 (ops/sampling.py)
        from .ops import sampling

        if tensor_mean and tensor_std:
            return sampling.NormalTensorTensor.apply(mean, std, samples=data)
        if tensor_mean:
            return sampling.NormalTensorFloat.apply(mean, samples=data)
        return sampling.NormalFloatTensor.apply(std, samples=data)
    # float mean and std (a tensor only 0-d, not requiring grad): one the parser refuses raises
    # a TypeError, replaced by its message for the call as given
    mean, std = _argparse.fill_doubles("normal", mean, std)
    data = _draw(_random.normal, _size((size,), "normal"), _np_dtype(dtype, function="normal"),
                 mean, std, generator=generator)
    return _finish(data, requires_grad)


# -- legacy constructor and pickling ----------------------------------------------------------------


def _legacy_new(cls, *args, **kwargs):
    """``torch.Tensor(2, 3)`` (uninitialised, here zeros, default dtype), ``torch.Tensor([1, 2])``
    (values) and ``torch.Tensor(t)`` (an alias of t, any dtype): see leafgrad._legacy."""
    from ._legacy import construct

    result = construct(_dtype.get_default_dtype(), args, kwargs, check_dtype=False)
    if cls is not Tensor and type(result) is not cls:
        # a user's subclass constructed the legacy way (MyTensor([1., 2.]), MyTensor(2, 3)):
        # torch wraps the new tensor in the subclass
        result = Tensor._make_subclass(cls, result, result.requires_grad) \
            if result.grad_fn is None else result.as_subclass(cls)
    return result


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    return _wrap(data, requires_grad)


_ = builtins
