"""torch's legacy constructors: ``torch.FloatTensor(2, 3)``, ``torch.LongTensor([1, 2])``,
``Tensor.new(...)``, and ``set_default_tensor_type``.

Old tutorials build tensors this way. The rules, from torch's ``legacy_tensor_ctor``:

- no argument: an empty 1-d tensor; integers or a ``torch.Size``: an uninitialised tensor of
  those sizes (leafgrad fills it with zeros); any other sequence (a list, a tuple, an array):
  a tensor of its values, converted to the type's dtype;
- a tensor: an alias of it (``AliasBackward0`` when it has history), which must already have
  the type's dtype;
- only ``device=`` is accepted as a keyword.

``isinstance(t, torch.FloatTensor)`` is true for a float32 tensor (a Parameter included), as in
torch; the types are not subclasses of ``Tensor`` and ``type(FloatTensor([1]))`` is ``Tensor``.
"""

from __future__ import annotations

from . import _argparse

import builtins
import warnings

import numpy as np

from . import _dtype

__all__ = [
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "BoolTensor", "set_default_tensor_type", "empty_strided",
    "resize_as_",
]

# the C++ names torch's TensorOptions message prints for each dtype
_OPTION_NAMES = {
    "float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
    "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
    "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int",
    "bool": "bool",
}


def _options(d: _dtype.dtype) -> str:
    return (f"TensorOptions(dtype={_OPTION_NAMES.get(d.name, d.name)}, device=cpu, "
            "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _typename(value) -> str:
    from ._argparse import typename

    return typename(value)


def _invalid(args: tuple, kwargs: dict) -> TypeError:
    parts = [_typename(a) for a in args] + [f"{k}={_typename(v)}" for k, v in kwargs.items()]
    got = ", ".join(parts) + (", " if kwargs and not args else "")
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                     "expected one of:")


def _is_int(value) -> builtins.bool:
    from .tensor import Tensor

    if isinstance(value, (builtins.bool, np.bool_)):
        return False
    if isinstance(value, (builtins.int, np.integer)):
        return True
    return isinstance(value, Tensor) and value.ndim == 0 and not value.dtype.is_floating_point \
        and value.dtype is not _dtype.bool


def _float_tensor_inside(data) -> builtins.bool:
    from .tensor import Tensor

    if isinstance(data, Tensor):
        return data.dtype.is_floating_point
    if isinstance(data, (list, tuple)):
        return builtins.any(_float_tensor_inside(item) for item in data)
    return False


def construct(d: _dtype.dtype, args: tuple, kwargs: dict, *, check_dtype: builtins.bool = True,
              method: builtins.bool = False):
    """A legacy constructor call for dtype ``d`` (``Tensor(...)`` passes check_dtype=False;
    ``t.new(...)`` passes method=True)."""
    from ._creation import numpy_source, tensor as _tensor
    from .tensor import Size, Tensor, _wrap

    device = kwargs.get("device")
    if set(kwargs) - {"device", "size"}:
        raise _invalid(args, kwargs)
    if "size" in kwargs:
        size = kwargs["size"]
        if args or not isinstance(size, (tuple, list)) or \
                not builtins.all(_is_int(s) for s in size):
            raise _invalid(args, kwargs)
        args = (Size(size),)
    if device is not None:
        from ._device import device as _device_type

        _device_type(device)  # a bad device string raises torch's error
    if not args:
        return _wrap(np.empty((0,), d.np))
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if device is not None and method:
            raise RuntimeError("Legacy tensor new of the form tensor.new(tensor, device=device) "
                               "is not supported.  Use torch.as_tensor(...) instead.")
        if device is not None:
            raise RuntimeError("Legacy tensor constructor of the form torch.Tensor(tensor, "
                               "device=device) is not supported.  Use torch.tensor(...) or "
                               "torch.as_tensor(...) instead.")
        if check_dtype and first.dtype is not d:
            raise TypeError(f"expected {_options(d)} (got {_options(first.dtype)})")
        from .ops import Alias

        return Alias.apply(first)
    if len(args) == 1 and isinstance(first, Size):
        sizes = tuple(first)
    elif all(_is_int(a) for a in args):
        sizes = tuple(builtins.int(a) for a in args)
    elif len(args) == 1:
        if isinstance(first, (builtins.float, builtins.bool, builtins.complex, np.generic)):
            raise TypeError(f"new(): data must be a sequence (got {_typename(first)})")
        if isinstance(first, (str, bytes)) or not hasattr(first, "__len__") and \
                not hasattr(first, "__iter__"):
            raise TypeError(f"new(): invalid data type '{_typename(first)}'")
        if isinstance(first, np.ndarray):  # wrapped, then copied into d (torch warns as
            numpy_source(first)             # for an alias of a read-only array)
        if not d.is_floating_point and _float_tensor_inside(first):
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return _tensor(first, dtype=d)
    else:
        bad = next((i, a) for i, a in enumerate(args) if not _is_int(a))
        if isinstance(bad[1], (Tensor, list, tuple)):
            raise _invalid(args, kwargs)
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {bad[0] + 1} "
                        f"with error \"type must be tuple of ints,but got "
                        f"{_typename(bad[1])}\"")
    negative = [s for s in sizes if s < 0]
    if negative:
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: "
                           f"{list(sizes)}")
    return _wrap(np.zeros(sizes, d.np))


class _LegacyType(type):
    """The metaclass of ``FloatTensor`` and friends: calling one constructs a tensor, and
    ``isinstance`` asks the tensor's dtype."""

    def __call__(cls, *args, **kwargs):
        return construct(cls.dtype, args, kwargs)

    def __instancecheck__(cls, instance) -> builtins.bool:
        from .tensor import Tensor

        return isinstance(instance, Tensor) and instance.dtype is cls.dtype

    def __subclasscheck__(cls, subclass) -> builtins.bool:
        return type.__subclasscheck__(cls, subclass)


def _legacy_type(d: _dtype.dtype):
    name = f"{d._legacy}Tensor"
    cls = _LegacyType(name, (), {"dtype": d, "is_cuda": False, "is_sparse": False,
                                 "__module__": "leafgrad",
                                 "__doc__": f"torch.{name}: legacy constructor of {d.name} "
                                            "tensors."})
    return cls


FloatTensor = _legacy_type(_dtype.float32)
DoubleTensor = _legacy_type(_dtype.float64)
HalfTensor = _legacy_type(_dtype.float16)
LongTensor = _legacy_type(_dtype.int64)
IntTensor = _legacy_type(_dtype.int32)
ShortTensor = _legacy_type(_dtype.int16)
CharTensor = _legacy_type(_dtype.int8)
ByteTensor = _legacy_type(_dtype.uint8)
BoolTensor = _legacy_type(_dtype.bool)

BY_NAME = {f"torch.{cls.__name__}": cls for cls in (
    FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor,
    ByteTensor, BoolTensor)}


_warned = []


def set_default_tensor_type(t) -> None:
    """Deprecated in torch 2.1: sets the default dtype from ``torch.DoubleTensor`` or
    ``"torch.DoubleTensor"`` (with torch's deprecation warning, once per process unless
    ``set_warn_always(True)``)."""
    if isinstance(t, str):  # the name is resolved (as an import) before torch warns
        if t not in BY_NAME and not t.startswith("torch.cuda."):
            module, _, name = t.rpartition(".")
            if module != "torch":
                raise ModuleNotFoundError(f"No module named '{module or t}'")
            raise AttributeError(f"module 'torch' has no attribute '{name}'")
    from ._info import is_warn_always_enabled

    if not _warned or is_warn_always_enabled():
        _warned.append(True)
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use torch.set_default_dtype() and torch.set_default_device() as "
                      "alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str) and t.startswith("torch.cuda."):
        raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
    t = BY_NAME.get(t, t) if isinstance(t, str) else t
    if not isinstance(t, _LegacyType):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(t.dtype)


@_argparse.parsed("empty_strided")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor (zeros here) with the given sizes and strides, viewing a buffer
    just large enough, as torch allocates it."""
    from ._creation import _np_dtype
    from .tensor import _wrap

    for name, position, value in (("size", 1, size), ("stride", 2, stride)):
        if not isinstance(value, (tuple, list)) or not builtins.all(_is_int(v) for v in value):
            raise TypeError(f"empty_strided(): argument '{name}' (position {position}) must be "
                            f"tuple of ints, not {_typename(value)}")
    size = tuple(builtins.int(s) for s in size)
    stride = tuple(builtins.int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of "
                           f"strides ({len(stride)})")
    negative = [s for s in size if s < 0]
    if negative:
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: "
                           f"{list(size)}")
    if builtins.any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    np_dtype = _np_dtype(dtype, None, "empty_strided")
    if builtins.any(s == 0 for s in size):
        extent = 0
    else:
        extent = 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride))
    from ._device import default, use

    target = use(device) if device is not None else default()
    if target is not None and target.type == "meta":  # Note: meta tensors (_meta.py)
        from . import _meta

        data = _meta.new(size, np_dtype, stride)
    else:
        buffer = np.zeros(builtins.max(extent, 1), np_dtype)
        item = buffer.itemsize
        # read-only where elements share memory, as an expanded view (Note: writes through
        # expanded tensors, ops/inplace.py): copy_ and the other writes refuse as torch's
        overlapping = builtins.any(st == 0 and s > 1 for s, st in zip(size, stride))
        data = np.lib.stride_tricks.as_strided(buffer, size, tuple(st * item for st in stride),
                                               writeable=not overlapping)
    result = _wrap(data, requires_grad)
    from ._compile.state import state as capture

    if capture.active:  # a constant of the graph leafgrad.compile is capturing
        capture.tracer.created_tensor(result)
    return result


def resize_as_(input, the_template, *, memory_format=None):
    """torch.resize_as_: ``input.resize_as_(the_template)``."""
    return input.resize_as_(the_template)
