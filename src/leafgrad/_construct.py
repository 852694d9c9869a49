"""``tensor(data)`` from Python data, the way torch's tensor_new.cpp does it.

Three passes over the data, each with torch's errors:

1. infer the dtype (``infer_scalar_type``): every leaf gives a dtype (float -> the default,
   int -> int64, bool -> bool, a NumPy scalar or array or a tensor -> its own) and they promote;
   a str/bytes leaf is ``TypeError: new(): invalid data type 'str'``, anything else that is not
   a sequence ``RuntimeError: Could not infer dtype of NoneType``; a list that contains itself
   is torch's ``self-referential lists`` TypeError (the walk is bounded by the input's size);
2. the shape from the first element of each level (``compute_sizes``);
3. check every level against that shape (``expected sequence of length 2 at dim 1 (got 1)``)
   and every leaf against the dtype (a list where a number belongs, a tensor of several
   elements, an int that overflows), then let NumPy build the array.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _dtype

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _tensor_cls():
    from .tensor import Tensor

    return Tensor


def _typename(value) -> str:
    from ._argparse import typename

    return typename(value)


def _is_sequence(value) -> bool:
    """PySequence_Check as torch uses it: lists, tuples, ranges, NumPy arrays (not str)."""
    return isinstance(value, (list, tuple, range, np.ndarray))


def _other_sequence(value) -> bool:
    """A sequence to torch (``PySequence_Check``) other than those ``_is_sequence`` walks:
    deques, array.array, memoryviews, bytearrays, other classes with ``__getitem__`` and
    ``__len__`` that are not mappings (torch.tensor reads their elements)."""
    if isinstance(value, (list, tuple, range, np.ndarray, np.generic, str, bytes, dict,
                          int, float, complex)) or isinstance(value, _tensor_cls()):
        return False
    kind = type(value)
    if not (hasattr(kind, "__getitem__") and hasattr(kind, "__len__")):
        return False
    import collections.abc

    return not isinstance(value, collections.abc.Mapping)


def _leaf_dtype(value):
    cls = value.__class__
    if cls is float:
        return _dtype.get_default_dtype()
    if cls is int:
        return _dtype.int64
    if cls is bool:
        return _dtype.bool
    if isinstance(value, _tensor_cls()):
        return value.dtype
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biufcV":
        return _dtype.from_user_numpy_dtype(value.dtype)  # V: ml_dtypes' (torch refuses)
    if isinstance(value, complex):
        return _dtype.default_complex_dtype()
    if isinstance(value, (np.datetime64, np.timedelta64, np.bytes_)):
        raise _dtype._unconvertible(value.dtype)  # (torch reads them as NumPy arrays)
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        raise TypeError(f"new(): invalid data type '{_typename(value)}'")
    if isinstance(value, (bool, int, np.bool_)):  # subclasses of int
        return _dtype.bool if isinstance(value, (bool, np.bool_)) else _dtype.int64
    if isinstance(value, float):
        return _dtype.get_default_dtype()
    raise RuntimeError(f"Could not infer dtype of {_typename(value)}")


_PLAIN = {float, int, bool}
_PLAIN_DTYPE = {float: _dtype.get_default_dtype, int: lambda: _dtype.int64,
                bool: lambda: _dtype.bool}


def infer_dtype(data):
    """torch's infer_scalar_type over nested sequences (iterative; see module docstring)."""
    result = None
    stack = [iter((data,))]
    open_ids: list = []
    open_set: set = set()
    while stack:
        try:
            item = next(stack[-1])
        except StopIteration:
            stack.pop()
            if open_ids:
                open_set.discard(open_ids.pop())
            continue
        if isinstance(item, (list, tuple, range)):
            if id(item) in open_set:
                raise TypeError("new(): self-referential lists are incompatible")
            classes = set(map(type, item))
            if not classes:  # an empty sequence infers the default dtype (torch)
                leaf = _dtype.get_default_dtype()
                result = leaf if result is None else _dtype.promote_types(result, leaf)
                continue
            if classes <= _PLAIN:  # the common innermost level: Python numbers only
                for cls in classes:
                    leaf = _PLAIN_DTYPE[cls]()
                    result = leaf if result is None else _dtype.promote_types(result, leaf)
                continue
            open_ids.append(id(item))
            open_set.add(id(item))
            stack.append(iter(item))
            continue
        leaf = _leaf_dtype(item)
        result = leaf if result is None else _dtype.promote_types(result, leaf)
    return result if result is not None else _dtype.get_default_dtype()


def compute_sizes(data) -> list:
    sizes = []
    value = data
    while _is_sequence(value) or isinstance(value, str):
        if isinstance(value, str):  # a str is a sequence to torch, of too many dims
            raise ValueError("too many dimensions 'str'")
        if isinstance(value, np.ndarray) and value.ndim == 0:
            raise TypeError("len() of unsized object")
        length = len(value)
        sizes.append(length)
        if length == 0:
            break
        value = value[0]
    return sizes


_NDARRAYS_WARNED = [False]  # torch's TORCH_WARN_ONCE: once per process


def _warn_ndarray_item() -> bool:
    """torch's warning as it stores an ndarray found inside a list (its recursive_store), once
    per process; returns whether it warns every time (set_warn_always)."""
    from ._info import is_warn_always_enabled

    always = is_warn_always_enabled()
    if not _NDARRAYS_WARNED[0] or always:
        from . import _warn

        if not always:  # (torch's warn-always path leaves the once-flag alone)
            _NDARRAYS_WARNED[0] = True
        _warn.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                   "consider converting the list to a single numpy.ndarray with numpy.array() "
                   "before converting to a tensor.")
    return always


def _check_leaf(value, target) -> None:
    kind = target.np.kind
    if isinstance(value, np.generic) and target.np.type is np.uint64:
        raise TypeError("an integer is required")  # (torch unpacks a Python int only)
    if isinstance(value, np.ndarray):
        _warn_ndarray_item()
        if value.ndim:  # torch unpacks it as a number: NumPy's own error
            (operator.index if kind in "iub" else complex if kind == "c" else float)(value)
    if kind in "iub" and isinstance(value, np.floating) and not isinstance(value, float):
        # (torch unpacks an integer or bool leaf with __index__: a NumPy float32/float16
        # scalar has none; np.float64, a Python float, is truncated)
        raise TypeError(f"'numpy.{type(value).__name__}' object cannot be interpreted as an "
                        "integer")
    if _is_sequence(value):
        if kind in "iub":
            raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
        raise TypeError(f"must be real number, not {type(value).__name__}")
    if isinstance(value, _tensor_cls()):
        # torch stores a tensor leaf through Python's number protocol for the target: __index__
        # for an integer or bool dtype (a floating tensor is refused, an int checked as one),
        # __float__ or __complex__ otherwise (their warning for a tensor requiring grad, their
        # error for a complex one into a real dtype)
        if target.np.type is np.uint64:
            raise TypeError("an integer is required")  # (an unsigned long long: no __index__)
        if kind in "iub":
            number = operator.index(value)
            if kind != "b":
                _check_int(number, target)
        else:
            (complex if kind == "c" else float)(value)
        return
    if value.__class__ is int and kind in "iu":
        _check_int(value, target)
    if kind in "iu" and isinstance(value, (np.bool_, np.complexfloating)):
        # (no __index__: torch's integer unpacking refuses them, naming NumPy's type)
        raise TypeError(f"'numpy.{type(value).__name__}' object cannot be interpreted as an "
                        "integer")
    if kind in "iuf" and isinstance(value, complex) and not isinstance(value, np.generic):
        if kind in "iu":
            raise TypeError("'complex' object cannot be interpreted as an integer")
        raise TypeError("must be real number, not complex")
    # (a NumPy complex into a real dtype is its __float__: the real part, NumPy's warning)


def _check_int(value: int, target) -> None:
    """An int leaf stored into an integer dtype: torch's checked conversion (int64 unpacks
    a C long long; narrower types refuse what they cannot hold, except that an unsigned type
    wraps negatives down to -max; uint64 unpacks an unsigned long long: no negatives)."""
    if target.np.type is np.uint64:
        if value < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if value >= 1 << 64:
            raise OverflowError("int too big to convert")
        return
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    info = np.iinfo(target.np)
    if target.np.kind == "u":
        if value > info.max or value < -info.max:
            raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")
    elif not info.min <= value <= info.max:
        raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")


def unsigned_fill(value, np_dtype: np.dtype, wrap: bool = True):
    """A Python number filled into a uint16/32/64 tensor (``full``, ``fill_``), converted as
    torch does: ints from -max to max wrap (-1 is the maximum), floats from 0 to max
    truncate; anything else raises torch's overflow error. ``wrap=False`` (``F.pad``'s
    value): only 0 to max. Other dtypes: ``value`` as is."""
    if np_dtype.kind != "u" or np_dtype.itemsize == 1 or isinstance(value, bool):
        return value
    info = np.iinfo(np_dtype)
    if not wrap and isinstance(value, (int, float, np.integer, np.floating)):
        if 0 <= value <= int(info.max):
            return np_dtype.type(value)
    elif isinstance(value, (int, np.integer)):
        value = int(value)
        if value >= 1 << 64:
            raise OverflowError("int too big to convert")
        if value < _INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
        if -int(info.max) <= value <= int(info.max):
            return np_dtype.type(value % (1 << (8 * np_dtype.itemsize)))
    elif isinstance(value, (float, np.floating)) and 0 <= value <= float(info.max):
        return np_dtype.type(value)
    elif not isinstance(value, (float, np.floating)):
        return value
    raise RuntimeError(f"value cannot be converted to type {np_dtype.name}_t without overflow")


def check_structure(data, sizes: list, target) -> bool:
    """Walk ``data`` against ``sizes`` raising torch's errors. Returns whether it holds a
    tensor leaf (the caller replaces those by their values)."""
    ndim = len(sizes)
    has_tensor = False
    tensor_cls = _tensor_cls()
    stack = [(data, 0)]
    while stack:
        value, dim = stack.pop()
        if dim == ndim:
            _check_leaf(value, target)
            has_tensor = has_tensor or isinstance(value, tensor_cls)
            continue
        if not _is_sequence(value):
            raise TypeError("not a sequence")
        if isinstance(value, np.ndarray) and _warn_ndarray_item():
            # torch walks it as nested sequences, warning again at each row that is an array
            # (under set_warn_always): walk its rows too
            value = list(value)
        elif isinstance(value, np.ndarray):
            # the same walk's outcome from the shape: the first dim that differs is reported;
            # a row that runs out of dims is a NumPy scalar, "not a sequence"
            for offset, want in enumerate(sizes[dim:]):
                if offset == value.ndim:
                    raise TypeError("not a sequence")
                if value.shape[offset] != want:
                    raise ValueError(f"expected sequence of length {want} at dim "
                                     f"{dim + offset} (got {value.shape[offset]})")
            if value.ndim > ndim - dim and value.size:  # its leaves are arrays
                _check_leaf(value[(0,) * (ndim - dim)], target)
            continue
        if len(value) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                             f"(got {len(value)})")
        if dim == ndim - 1:
            classes = set(map(type, value))
            if classes <= _PLAIN:  # numbers only: only ints can fail, at their extremes
                if int in classes and target.np.kind in "iu":
                    ints = value if float not in classes else [
                        v for v in value if v.__class__ is int]
                    _check_int(max(ints), target)
                    _check_int(min(ints), target)
                continue
            for item in value:
                _check_leaf(item, target)
                has_tensor = has_tensor or isinstance(item, tensor_cls)
            continue
        stack.extend((item, dim + 1) for item in reversed(value))
    return has_tensor


def _given_dtype_leaves(data, target):
    """With ``dtype=`` torch infers nothing: each leaf is converted to the target, and one that
    is not a number fails as the conversion does. Returns the dtype the leaves would infer to
    (for the float -> int conversion rules of array_from_data)."""
    try:
        return infer_dtype(data)
    except RuntimeError:
        pass
    except TypeError as error:
        if "self-referential" in str(error):
            raise
    for leaf in _leaves(data):
        try:
            _leaf_dtype(leaf)
        except (RuntimeError, TypeError):
            kind = type(leaf).__name__
            if target.np.kind in "iub":  # (a bool leaf is unpacked as an integer too)
                raise TypeError(f"'{kind}' object cannot be interpreted as an integer") from None
            raise TypeError(f"must be real number, not {kind}") from None
    return target


def _leaves(data):
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, (list, tuple, range)):
            stack.extend(reversed(value))
        else:
            yield value


def _replace_tensors(data):
    tensor_cls = _tensor_cls()
    if isinstance(data, tensor_cls):
        return data._data.reshape(()).item()
    if isinstance(data, (list, tuple, range)):
        return [_replace_tensors(x) for x in data]
    return data


def _plain_numbers(data):
    """The dtype torch infers for a list (or tuple) of Python floats/ints/bools, or of equally
    long such rows, in one pass over it; None for anything else (the general path decides)."""
    first = data[0]
    kind = first.__class__
    if kind in _PLAIN:
        kinds = set(map(type, data))
    elif kind is list or kind is tuple:
        width = len(first)
        if not width:
            return None
        kinds = set()
        for row in data:
            if (row.__class__ is not list and row.__class__ is not tuple) or len(row) != width:
                return None
            kinds.update(map(type, row))
    else:
        return None
    if not kinds <= _PLAIN:
        return None
    if float in kinds:
        return _dtype.get_default_dtype()
    return _dtype.int64 if int in kinds else _dtype.bool


def array_from_data(data, target=None) -> np.ndarray:
    """A new array holding ``data`` (nested sequences of numbers, arrays or one-element
    tensors) in ``target`` or in the inferred dtype."""
    if target is None and (data.__class__ is list or data.__class__ is tuple) and data:
        inferred = _plain_numbers(data)  # the common case: numbers, one or two levels deep
        if inferred is not None:
            try:
                return np.array(data, dtype=inferred.np)
            except OverflowError:  # an int past int64: the general path raises torch's error
                pass
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_typename(data)}'")
    if _other_sequence(data):  # a deque, array.array, memoryview, ...: its elements
        data = [data[i] for i in range(len(data))]
    if not _is_sequence(data) and not isinstance(data, (int, float, bool, np.generic,
                                                        _tensor_cls())):
        if target is not None:  # converted to the dtype as a leaf is (see _given_dtype_leaves)
            _given_dtype_leaves([data], target)
        _leaf_dtype(data)  # raises torch's error for None, dict, set, generators...
    sizes = compute_sizes(data)
    if target is None:
        inferred = target = infer_dtype(data)
    else:
        inferred = _given_dtype_leaves(data, target)
    if 0 in sizes:  # torch stores nothing into an empty tensor, so checks nothing further
        return np.zeros(sizes, target.np)
    if check_structure(data, sizes, target):
        data = _replace_tensors(data)
    if target.np.kind in "iu" and inferred.is_floating_point:
        if target.np.type is np.uint64:  # torch unpacks an unsigned long long: no floats
            raise TypeError("an integer is required")
        array = np.array(data, dtype=np.float64)
        info = np.iinfo(target.np)
        # a float into an unsigned type must lie in [0, max] (torch refuses -0.5 and 255.5
        # for uint8); into a signed one in [min - 1, -min)
        if not np.isfinite(array).all():
            bad = True
        elif not array.size:
            bad = False
        elif target.np.kind == "u":
            bad = array.max() > float(info.max) or array.min() < 0
        else:
            bad = array.max() >= -float(info.min) or array.min() < float(info.min) - 1
        if bad:
            raise RuntimeError(f"value cannot be converted to type {target.name} without "
                               "overflow")
        return array.astype(target.np)
    if target.np.kind == "u" and inferred.np.kind in "iu":
        if target.np.type is np.uint64:  # no negatives (checked by _check_int), up to 2**64-1
            return np.array(data, dtype=np.uint64)
        # negative ints wrap into an unsigned dtype (checked by _check_int)
        return np.array(data, dtype=np.int64).astype(target.np)
    if target.name == "bfloat16":  # torch converts each value on its scalar path (NaN 0x7FC0)
        from .ops._bfloat16 import to_bfloat16

        return to_bfloat16(np.array(data, dtype=np.float64), vector=False)
    with np.errstate(over="ignore", invalid="ignore"):  # torch rounds 1e8 to a float16 inf silently
        if target.name == "float16":  # through float32 (Note: casts to float16, _dtype.py)
            return np.array(data, dtype=np.float32).astype(np.float16)
        return np.array(data, dtype=target.np)


# Note: checked scalar writes
# torch converts a Python number written into a tensor (fill_, full, masked_fill, index_fill,
# ``t[i] = v``) with c10's checked_convert: a value outside the target type's range is refused
# ("value cannot be converted to type ... without overflow") instead of wrapping or becoming
# inf. A float is checked against the type's range as a double (NaN and inf fit only floating
# types); an int must fit, except that an unsigned type takes -max..-1 (they wrap). Python ints
# become int64 (uint64 from 2**63 on) for fill-like calls; ``t[i] = v`` unpacks a long long,
# and writes float16/bfloat16 without the check (through a float tensor), as fill_ does into a
# one-element tensor (its scalar fast path).
_C_SCALAR_NAMES = {"complex64": "c10::complex<float>", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                   "float64": "double", "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t",
                   "uint16": "uint16_t", "int32": "int", "uint32": "uint32_t", "int64": "int64_t",
                   "uint64": "uint64_t"}
_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
              "float32": 3.4028234663852886e38, "complex64": 3.4028234663852886e38}


def checked_operand(value, np_dtype: np.dtype, floats: bool = False):
    """A Python-number operand (clamp's bounds, where's branch) of an op computing in the
    integer ``np_dtype`` (with ``floats``, float16 too) as torch converts it: an int out of
    the type's range is torch's overflow error, a negative one in an unsigned type wraps."""
    kind = np_dtype.kind
    if value.__class__ is bool or not (kind in "iu" or floats and np_dtype.char == "e"):
        return value
    if value.__class__ is int or value.__class__ is float:
        from ._dtype import from_numpy_dtype

        return check_scalar_write(value, from_numpy_dtype(np_dtype))
    return value


def check_scalar_write(value, target, setitem: bool = False, half: bool = True):
    """``value`` as written into a tensor of leafgrad dtype ``target`` (see
    ``_check_scalar_write``); a float into float16 rounded to float32 first, as c10::Half
    takes it (Note: casts to float16, _dtype.py)."""
    value = _check_scalar_write(value, target, setitem, half)
    if value.__class__ is float and target.name == "float16":
        with np.errstate(over="ignore"):
            return float(np.float32(value))
    return value


def _check_scalar_write(value, target, setitem: bool = False, half: bool = True):
    """``value`` as written into a tensor of leafgrad dtype ``target``, or torch's error if it
    cannot be (Note: checked scalar writes). ``setitem``: ``t[i] = v``; ``half=False``:
    float16/bfloat16 take any value (full_like, new_full). An int written as a float or a bool
    is converted here (NumPy refuses ints beyond a C long), a negative one into an unsigned
    type wraps, as torch's."""
    kind = value.__class__
    name = target.name
    half = half and not setitem
    if kind is int:
        _check_int_scalar(value, setitem)
        if name == "bool":
            return bool(value)
        if name in ("complex64", "complex128"):
            return value
        if target.is_floating_point:
            if not half or name != "float16" or abs(value) <= 65504:
                return float(value)
        else:
            low, high = _int_bounds(target)
            if low == 0 and -high <= value < 0:
                return value + high + 1  # unsigned: -1 is the maximum
            if low <= value <= high:
                return value
    elif kind is float:
        if name in ("bool", "complex128", "float64"):
            return value
        if target.is_floating_point or name == "complex64":
            if (not half and name in ("float16", "bfloat16")) or value != value or abs(
                    value) == float("inf") or abs(value) <= _FLOAT_MAX[name]:
                return value
        elif value == value:
            low, high = _int_bounds(target)
            if float(low) <= value <= float(high):
                # C's cast: truncated; max as a double is 2**bits: that one wraps around
                bits = 8 * target.np.itemsize
                whole = int(value) % (1 << bits)
                return whole - (1 << bits) if low and whole > high else whole
    elif kind is complex and name not in ("bool", "complex64", "complex128"):
        # c10's checked conversion: a complex fits a real type only with no imaginary part
        if value.imag == 0:
            return _check_scalar_write(value.real, target, setitem, half)
    else:
        return value
    raise RuntimeError(f"value cannot be converted to type {_C_SCALAR_NAMES[name]} "
                       "without overflow")


_BOUNDS: dict = {}


def _int_bounds(target) -> tuple:
    """An integer dtype's (min, max) as Python ints (np.iinfo costs microseconds a call)."""
    bounds = _BOUNDS.get(target.name)
    if bounds is None:
        info = np.iinfo(target.np)
        bounds = _BOUNDS[target.name] = (int(info.min), int(info.max))
    return bounds


def _check_int_scalar(value: int, setitem: bool) -> None:
    if setitem:
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError("Overflow when unpacking long long")
    elif value >= 1 << 64:
        raise OverflowError("int too big to convert")
    elif value < _INT64_MIN:
        raise OverflowError("can't convert negative int to unsigned")
