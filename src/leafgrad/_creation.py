"""Tensor factories: ``tensor``, ``zeros``, ``arange``, ``rand``... with torch's dtype rules."""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from . import _dtype
from ._compile.state import state as _capture
from ._device import use as _device_use
from ._alloc import check_storage
from ._out import ANY, RESIZE_GRAD, Out, floating, not_bool, takes_out
from .tensor import Tensor, _wrap

__all__ = [
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "zeros_like",
    "ones_like", "full_like", "empty_like", "arange", "linspace", "eye", "rand", "randn",
    "randint", "rand_like", "randn_like", "randint_like", "randperm", "normal",
]

INT_REQUIRES_GRAD = "Only Tensors of floating point and complex dtype can require gradients"


def _finish(data: np.ndarray, requires_grad: bool, device=None) -> Tensor:
    if device is not None:
        _device_use(device)
    if requires_grad and data.dtype.kind != "f":
        raise RuntimeError(INT_REQUIRES_GRAD)
    result = _wrap(data, bool(requires_grad))
    if _capture.active:  # a constant of the graph leafgrad.compile is capturing
        _capture.tracer.created_tensor(result)
    return result


def _infer_array(data) -> np.ndarray:
    """An array from Python data, with torch's inference: floats -> default dtype, ints ->
    int64, bools -> bool."""
    if isinstance(data, Tensor):
        return data._data
    leaves = None
    if isinstance(data, (list, tuple)):
        leaves = _flat(data)
        if any(isinstance(x, Tensor) for x in leaves):
            data = _replace_tensors(data)
    _check_int64(data if leaves is None else leaves)
    array = np.array(data)
    kind = array.dtype.kind
    if kind == "f":
        if not isinstance(data, np.ndarray) and not isinstance(data, np.generic):
            array = array.astype(_dtype.get_default_dtype().np)
    elif kind in "iu":
        if not isinstance(data, (np.ndarray, np.generic)):
            array = array.astype(np.int64)
    elif kind == "b":
        pass
    elif kind == "U" or kind == "S":
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    elif kind == "O":
        raise TypeError("Could not infer dtype of " + type(_flat(data)[0]).__name__)
    if array.size == 0 and kind == "f" and not isinstance(data, np.ndarray):
        array = array.astype(_dtype.get_default_dtype().np)
    if array.dtype.name not in ("float16", "float32", "float64", "int8", "int16", "int32",
                                "int64", "uint8", "bool"):
        array = array.astype(_dtype.from_numpy_dtype(array.dtype).np)
    return array


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _check_int64(data) -> None:
    """torch infers int64 for Python ints; one that does not fit raises torch's ValueError
    (NumPy would quietly wrap it or turn the whole list into floats)."""
    values = data if isinstance(data, list) else [data]
    if not all(isinstance(x, (int, bool, np.integer)) for x in values):
        return  # a float or another type makes the result floating (or an error elsewhere)
    for value in values:
        if type(value) is int and not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError("Overflow when unpacking long long")


def _flat(data):
    """The leaves of nested lists/tuples, depth first. A list that contains itself raises
    torch's TypeError instead of expanding forever (the walk is bounded by the input's size)."""
    out = []
    stack = [iter((data,))]
    open_containers: list = []  # the containers whose items are being walked
    open_ids: set = set()
    while stack:
        try:
            item = next(stack[-1])
        except StopIteration:
            stack.pop()
            if open_containers:  # the exhausted iterator was this container's
                open_ids.discard(id(open_containers.pop()))
            continue
        if isinstance(item, (list, tuple)):
            if id(item) in open_ids:
                raise TypeError("new(): self-referential lists are incompatible")
            open_ids.add(id(item))
            open_containers.append(item)
            stack.append(iter(item))
        else:
            out.append(item)
    return out


def _replace_tensors(data):
    if isinstance(data, Tensor):
        return data._data if data.ndim else data.item()
    if isinstance(data, (list, tuple)):
        return [_replace_tensors(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new tensor that owns a copy of ``data`` (a number, nested list, array or tensor).

    >>> leafgrad.tensor([1., 2.], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    if dtype is not None and not isinstance(data, (Tensor, np.ndarray)):
        # Convert straight to the requested dtype: going through the inferred default dtype
        # first would round 0.3 to float32 before widening it.
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat(data)):
            data = _replace_tensors(data)
        array = np.array(data, dtype=dtype.np)
    else:
        array = np.array(_infer_array(data), dtype=dtype.np if dtype is not None else None,
                         copy=True)
    return _finish(array, requires_grad, device)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or tensor when it can."""
    if isinstance(data, Tensor):
        if dtype is None or dtype is data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray):
        array = data if dtype is None else data.astype(dtype.np, copy=False)
        return _finish(_infer_array(array) if array.dtype.kind not in "fiub" else array, False,
                       device)
    array = _infer_array(data)
    if dtype is not None:
        array = array.astype(dtype.np)
    return _finish(array, False, device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (changes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    return _wrap(array)


def _size(size, name: str = "zeros") -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for position, s in enumerate(size):
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(
                f"{name}(): argument 'size' (position 1) must be tuple of ints, but found element "
                f"of type {type(s).__name__} at pos {position}"
            )
        if s < 0:
            raise RuntimeError(f"{name}: Dimension size must be non-negative.")
        if s > 2**63 - 1:
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                            f"{position + 1} with error \"Overflow when unpacking long long")
    size = tuple(int(s) for s in size)
    check_storage(size, 1)
    return size


def _np_dtype(dtype, default=None) -> np.dtype:
    if dtype is None:
        return (default or _dtype.get_default_dtype()).np
    return dtype.np


def _sizes(positional: tuple, keyword) -> tuple:
    """``zeros(2, 3)``, ``zeros((2, 3))`` or torch's keyword form ``zeros(size=(2, 3))``."""
    if keyword is None:
        return positional
    if positional:
        raise TypeError("argument 'size' given by name ('size') and position")
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
                  mode="factory", resize_warning=_arange_resized),
    "linspace": Out("aten::linspace", not_bool("\"linspace_cpu\" not implemented for '{O}'"),
                    mode="factory"),
    "rand": Out("aten::rand", floating("\"check_uniform_bounds\" not implemented for '{O}'",
                                       NotImplementedError), mode="factory"),
    "randn": Out("aten::randn", floating("\"normal_kernel_cpu\" not implemented for '{O}'",
                                         NotImplementedError), mode="factory",
                 grad_error=RESIZE_GRAD),
    "randint": Out("aten::randint", ANY, mode="factory"),
}


@takes_out(_FACTORY_OUT["zeros"])
def zeros(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    return _finish(np.zeros(_size(_sizes(sizes, size)), _np_dtype(dtype)), requires_grad, device)


@takes_out(_FACTORY_OUT["ones"])
def ones(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    return _finish(np.ones(_size(_sizes(sizes, size), "ones"), _np_dtype(dtype)), requires_grad,
                   device)


@takes_out(_FACTORY_OUT["empty"])
def empty(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=None) -> Tensor:
    # NumPy's empty may hold anything; zeros keeps printing deterministic at the same cost.
    return _finish(np.zeros(_size(_sizes(sizes, size), "empty"), _np_dtype(dtype)),
                   requires_grad, device)


def _fill_dtype(value):
    if isinstance(value, Tensor):
        return value.dtype
    return _dtype._scalar_dtype(value)


@takes_out(_FACTORY_OUT["full"])
def full(size, fill_value, *, dtype=None, layout=None, device=None,
         requires_grad=False) -> Tensor:
    dtype = dtype or _fill_dtype(fill_value)
    return _finish(np.full(_size((size,)), fill_value, dtype.np), requires_grad, device)


def _vmapped_random(draw, shape):
    """Inside vmap(randomness='different'): one draw per example, as a batched tensor."""
    from .autograd._vmap_state import random_levels, state

    if not state.active:
        return None
    levels, sizes = random_levels()
    if not levels:
        return None
    from .autograd._vmap_state import batched_draw
    from .ops._batching import wrap

    with batched_draw():
        return wrap(_wrap(draw(tuple(sizes) + tuple(shape))), levels)


def _batched_like(input, physical):
    from .ops._batching import wrap

    return wrap(physical, input._levels)


def _like(input: Tensor, dtype):
    return input._data.shape, (dtype or input.dtype).np


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    shape, np_dtype = _like(input, dtype)
    if type(input).__name__ == "BatchedTensor":  # inside vmap: one per example
        shape = input._value._data.shape
        return _batched_like(input, _finish(np.zeros(shape, np_dtype), requires_grad, device))
    return _finish(np.zeros(shape, np_dtype), requires_grad, device)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    shape, np_dtype = _like(input, dtype)
    if type(input).__name__ == "BatchedTensor":  # inside vmap: one per example
        shape = input._value._data.shape
        return _batched_like(input, _finish(np.ones(shape, np_dtype), requires_grad, device))
    return _finish(np.ones(shape, np_dtype), requires_grad, device)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    shape, np_dtype = _like(input, dtype)
    if type(input).__name__ == "BatchedTensor":  # inside vmap: one per example
        shape = input._value._data.shape
        return _batched_like(input, _finish(np.zeros(shape, np_dtype), requires_grad, device))
    return _finish(np.zeros(shape, np_dtype), requires_grad, device)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    shape, np_dtype = _like(input, dtype)
    if type(input).__name__ == "BatchedTensor":  # inside vmap: one per example
        shape = input._value._data.shape
        return _batched_like(input, _finish(np.full(shape, fill_value, np_dtype), requires_grad, device))
    return _finish(np.full(shape, fill_value, np_dtype), requires_grad, device)


@takes_out(_FACTORY_OUT["arange"])
def arange(start, end=None, step=1, *, dtype=None, layout=None, device=None,
           requires_grad=False) -> Tensor:
    """Values from ``start`` up to (not including) ``end``; int64 unless a bound is a float."""
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(
            "upper bound and lower bound inconsistent with step sign"
        )
    if dtype is None:
        is_float = any(isinstance(v, float) for v in values)
        dtype = _dtype.get_default_dtype() if is_float else _dtype.int64
    count = math.ceil((end - start) / step)
    # Computed as start + i * step in double precision, then cast (as torch does).
    data = (start + np.arange(count, dtype=np.float64) * step).astype(dtype.np)
    if dtype.np.kind in "iu":
        data = (np.arange(count, dtype=np.int64) * int(step) + int(start)).astype(dtype.np)
    return _finish(data, requires_grad, device)


def _fma(a: np.ndarray, b, c, dtype) -> np.ndarray:
    """``a * b + c`` (a: float64 integers) rounded once in ``dtype``, as a fused multiply-add.

    float32: the product is exact in float64 and the sum is rounded to float64 and then to
    float32 (a second rounding that is almost never visible). float64: the product is split
    exactly into p + e (Veltkamp/Dekker), p + c is summed with its rounding error (Knuth's
    two-sum), and the error terms are added last.
    """
    if dtype.itemsize < 8:
        return (a * np.float64(b) + np.float64(c)).astype(dtype)
    b = np.float64(b)
    p = a * b
    split = 134217729.0  # 2**27 + 1
    with np.errstate(over="ignore", invalid="ignore"):
        ah = a * split
        ah = ah - (ah - a)
        al = a - ah
        bh = b * split
        bh = bh - (bh - b)
        bl = b - bh
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        out = s + (err + e)
    return np.where(np.isfinite(out), out, p + c)


@takes_out(_FACTORY_OUT["linspace"])
def linspace(start, end, steps, *, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    np_dtype = _np_dtype(dtype)
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    # torch computes in the output dtype and fills the first half from start and the second half
    # from end, symmetrically: start + step * i and end - step * (steps - 1 - i), each one fused
    # multiply-add (its compiler contracts them), so they are rounded once, as here.
    work = np_dtype if np_dtype.kind == "f" else np.dtype(np.float64)
    if work == np.float16 and max(abs(float(start)), abs(float(end))) > 65504:
        raise RuntimeError("value cannot be converted to type c10::Half without overflow")
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
    return _finish(data.astype(np_dtype), requires_grad, device)


@takes_out(_FACTORY_OUT["eye"])
def eye(n, m=None, *, dtype=None, layout=None, device=None,
        requires_grad=False) -> Tensor:
    return _finish(np.eye(n, n if m is None else m, dtype=_np_dtype(dtype)), requires_grad, device)


# -- random ---------------------------------------------------------------------------------------


@takes_out(_FACTORY_OUT["rand"])
def rand(*sizes, size=None, generator=None, dtype=None, layout=None, device=None,
         requires_grad=False) -> Tensor:
    """Uniform on [0, 1); the same stream as torch for the same seed."""
    from . import _random

    shape, np_dtype = _size(_sizes(sizes, size)), _np_dtype(dtype)
    batched = _vmapped_random(lambda s: _random.uniform(s, np_dtype, generator=generator), shape)
    if batched is not None:
        return batched
    data = _random.uniform(shape, np_dtype, generator=generator)
    return _finish(data, requires_grad, device)


@takes_out(_FACTORY_OUT["randn"])
def randn(*sizes, size=None, generator=None, dtype=None, layout=None, device=None,
          requires_grad=False) -> Tensor:
    """Standard normal; the same stream as torch for the same seed."""
    from . import _random

    shape, np_dtype = _size(_sizes(sizes, size)), _np_dtype(dtype)
    batched = _vmapped_random(lambda s: _random.normal(s, np_dtype, generator=generator), shape)
    if batched is not None:
        return batched
    data = _random.normal(shape, np_dtype, generator=generator)
    return _finish(data, requires_grad, device)


@takes_out(_FACTORY_OUT["randint"])
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, layout=None,
            device=None, requires_grad=False) -> Tensor:
    if size is None:
        low, high, size = 0, low, high
    if high is None and size is not None and isinstance(size, (tuple, list)):
        low, high = 0, low
    from . import _random

    data = _random.randint(low, high, _size((size,)), _np_dtype(dtype, _dtype.int64),
                           generator=generator)
    return _finish(data, requires_grad, device)


def rand_like(input, *, dtype=None, generator=None, **kwargs) -> Tensor:
    return rand(input.shape, dtype=dtype or input.dtype, generator=generator, **kwargs)


def randn_like(input, *, dtype=None, generator=None, **kwargs) -> Tensor:
    return randn(input.shape, dtype=dtype or input.dtype, generator=generator, **kwargs)


def randint_like(input, low, high=None, *, dtype=None, generator=None, **kwargs) -> Tensor:
    return randint(low, high, input.shape, dtype=dtype or input.dtype, generator=generator,
                   **kwargs)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    from . import _random

    data = _random.randperm(n, _np_dtype(dtype, _dtype.int64), generator=generator)
    return _finish(data, requires_grad, device)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, requires_grad=False):
    if size is None:
        # tensor mean and/or std: torch draws normal_(0, 1) into the broadcast shape, then
        # scales and shifts (so the stream matches torch's)
        from . import _random

        means = mean._data if isinstance(mean, Tensor) else np.asarray(mean)
        stds = std._data if isinstance(std, Tensor) else np.asarray(std)
        shape = np.broadcast_shapes(means.shape, stds.shape)
        np_dtype = np.result_type(*(t._data.dtype for t in (mean, std) if isinstance(t, Tensor)))
        draws = _random.normal(shape, np_dtype, 0.0, 1.0, generator=generator)
        return _finish((draws * stds + means).astype(np_dtype), requires_grad)
    from . import _random

    data = _random.normal(_size((size,)), _np_dtype(dtype), mean, std, generator=generator)
    return _finish(data, requires_grad)


# -- legacy constructor and pickling ----------------------------------------------------------------


def _legacy_new(cls, *args, **kwargs):
    """``torch.Tensor(2, 3)`` (uninitialised float32) and ``torch.Tensor([1, 2])`` (values)."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        data = args[0]
        if isinstance(data, Tensor):
            return data
        array = np.array(_infer_array(data), dtype=_dtype.get_default_dtype().np)
        return _wrap(array)
    return _wrap(np.zeros(_size(args), _dtype.get_default_dtype().np))


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    return _wrap(data, requires_grad)


_ = builtins
