"""torch dtypes as objects over NumPy dtypes, the default dtype, and torch's type promotion."""

from __future__ import annotations

import builtins
import threading

import numpy as np

__all__ = [
    "dtype",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "complex64",
    "complex128",
    "complex32",
    "bfloat16",
    "get_default_dtype",
    "set_default_dtype",
    "promote_types",
    "result_type",
]


class dtype:
    """A tensor element type, printed as ``leafgrad.float32`` (torch prints ``torch.float32``)."""

    __module__ = "leafgrad"  # as torch shows it: <class 'torch.dtype'>

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_legacy")

    def __init__(self, name: str, np_dtype, legacy: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "fic"
        self.itemsize = self.np.itemsize
        self._legacy = legacy  # "Float" as in torch.FloatTensor and in error messages

    def __repr__(self) -> str:
        return "leafgrad." + self.name

    def __reduce__(self):
        return self.name

    def to_real(self) -> "dtype":
        """The real counterpart of a complex dtype (complex64 -> float32); others unchanged."""
        return _TO_REAL.get(self, self)

    def to_complex(self) -> "dtype":
        """The complex counterpart of a floating dtype (float32 -> complex64), as torch."""
        if self.is_complex:
            return self
        found = _TO_COMPLEX.get(self)
        if found is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {self._legacy}")
        return found


float16 = dtype("float16", np.float16, "Half")
float32 = dtype("float32", np.float32, "Float")
float64 = dtype("float64", np.float64, "Double")
int8 = dtype("int8", np.int8, "Char")
int16 = dtype("int16", np.int16, "Short")
int32 = dtype("int32", np.int32, "Int")
int64 = dtype("int64", np.int64, "Long")
uint8 = dtype("uint8", np.uint8, "Byte")
bool = dtype("bool", np.bool_, "Bool")  # noqa: A001 - torch.bool


class _WideUnsignedDtype(dtype):
    """uint16/uint32/uint64, which torch 2.13 supports only partly ("limited support"): most
    kernels raise "not implemented for 'UInt16'" and they promote with no other dtype but
    floating ones. Asking for the NumPy type (which every way of making a tensor of them does)
    tells ``on_first_wide_unsigned``'s listener once (see ops/_uint.py), so that programs
    without them pay nothing for the per-op check."""

    __slots__ = ()

    @property
    def np(self):
        if _first_wide_unsigned:
            _first_wide_unsigned.pop()()
        return dtype.np.__get__(self)

    @np.setter
    def np(self, value):
        dtype.np.__set__(self, value)


_first_wide_unsigned: list = []


def on_first_wide_unsigned(listener) -> None:
    """Call ``listener()`` once, when the process first makes a uint16/32/64 tensor."""
    _first_wide_unsigned.append(listener)


uint16 = _WideUnsignedDtype("uint16", np.uint16, "UInt16")
uint32 = _WideUnsignedDtype("uint32", np.uint32, "UInt32")
uint64 = _WideUnsignedDtype("uint64", np.uint64, "UInt64")
WIDE_UNSIGNED = (uint16, uint32, uint64)
class _ComplexDtype(dtype):
    """A complex dtype. Asking for its NumPy type (which every way of making a tensor of it
    does) tells ``on_first_complex``'s listener once (see ops/complex.py)."""

    __slots__ = ()

    @property
    def np(self):
        if _first_complex:
            _first_complex.pop()()
        if self.name == "complex32":
            check_storable(self)
        return dtype.np.__get__(self)

    @np.setter
    def np(self, value):
        dtype.np.__set__(self, value)


# torch has one dtype type: ``type(torch.uint16)`` and ``type(torch.complex64)`` print as
# ``<class 'torch.dtype'>`` too
_WideUnsignedDtype.__name__ = _ComplexDtype.__name__ = "dtype"
_WideUnsignedDtype.__qualname__ = _ComplexDtype.__qualname__ = "dtype"
_WideUnsignedDtype.__module__ = _ComplexDtype.__module__ = "leafgrad"


_first_complex: list = []


def on_first_complex(listener) -> None:
    """Call ``listener()`` once, when the process first makes a complex tensor."""
    _first_complex.append(listener)


complex64 = _ComplexDtype("complex64", np.complex64, "ComplexFloat")
complex128 = _ComplexDtype("complex128", np.complex128, "ComplexDouble")
# Note: complex32. torch's ComplexHalf has no NumPy counterpart: the name exists (and float16
# promotes to it with a complex number, as in torch), but no leafgrad tensor holds it; making one
# raises (see _check_storable). Its ``np`` is complex64 only so that the object is well formed.
complex32 = _ComplexDtype.__new__(_ComplexDtype)
for _name, _value in (("name", "complex32"), ("np", np.dtype(np.complex64)),
                      ("is_floating_point", False), ("is_complex", True), ("is_signed", True),
                      ("itemsize", 4), ("_legacy", "ComplexHalf")):
    dtype.__dict__[_name].__set__(complex32, _value)

# Note: bfloat16. NumPy has no bfloat16; the optional ``ml_dtypes`` package (the ``bfloat16``
# extra) provides one. ``leafgrad.bfloat16`` always exists (its repr, itemsize, finfo and
# promotion need no NumPy type); asking for its NumPy type, which every way of making a
# bfloat16 tensor does, imports ml_dtypes (a RuntimeError naming the extra without it) and,
# the first time, tells ``on_first_bfloat16``'s listener (ops/_bfloat16.py installs torch's
# compute-in-float32-and-round-once path for ops then, so that programs without bfloat16 pay
# nothing for it).
_BFLOAT16_MISSING = ("bfloat16 tensors need the ml_dtypes package (NumPy has no bfloat16 "
                     "type): pip install 'leafgrad[bfloat16]'")
_first_bfloat16: list = []


def on_first_bfloat16(listener) -> None:
    """Call ``listener()`` once, when the process first makes a bfloat16 tensor."""
    _first_bfloat16.append(listener)


def bfloat16_numpy():
    """ml_dtypes' NumPy bfloat16 dtype, or None when ml_dtypes is not installed."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


class _BFloat16Dtype(dtype):
    """torch.bfloat16 (see Note: bfloat16)."""

    __slots__ = ()

    @property
    def np(self):
        found = _bfloat16_np
        if found is None:
            found = _load_bfloat16()
        if _first_bfloat16:
            _first_bfloat16.pop()()
        return found

    @np.setter
    def np(self, value):
        dtype.np.__set__(self, value)


_bfloat16_np = None


def _load_bfloat16():
    global _bfloat16_np
    found = bfloat16_numpy()
    if found is None:
        raise RuntimeError(_BFLOAT16_MISSING)
    _BY_NP[found] = bfloat16
    _BY_NP_TYPE[found.type] = bfloat16
    _bfloat16_np = found
    return found


bfloat16 = _BFloat16Dtype.__new__(_BFloat16Dtype)
for _name, _value in (("name", "bfloat16"), ("np", None), ("is_floating_point", True),
                      ("is_complex", False), ("is_signed", True), ("itemsize", 2),
                      ("_legacy", "BFloat16")):
    dtype.__dict__[_name].__set__(bfloat16, _value)


def is_bfloat16_array(array) -> builtins.bool:
    """Whether ``array`` (an ndarray) holds bfloat16 (without importing ml_dtypes)."""
    return _bfloat16_np is not None and array.dtype == _bfloat16_np


half, float, double = float16, float32, float64  # noqa: A001 - torch's aliases
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble, chalf = complex64, complex128, complex32

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool, complex64, complex128,
       uint16, uint32, uint64)
_TO_REAL = {complex64: float32, complex128: float64, complex32: float16}
_TO_COMPLEX = {float32: complex64, float64: complex128, float16: complex32}
# (bfloat16 has no complex counterpart: torch's bfloat16 * 1j is complex64, as float32's)


# Note: casts to float16
# c10::Half is built from a float: torch converts a double (or a 64-bit integer) to float16
# through float32, rounding twice, where NumPy rounds once. The two differ where the float32
# value lands on a float16 midpoint (1 + 2**-11 + 2**-30 is 1.0 in torch, 1.0009765625 in
# NumPy): about one float64 value in 8,192. Casts into float16 from wider types go through
# float32 here (``half_cast``; Python numbers written into float16 tensors: _construct.py).
_EXACT_IN_FLOAT32 = frozenset("e f ? b B h H".split())


def half_cast(array: np.ndarray) -> np.ndarray:
    """``array`` cast to float16 as torch casts: through float32 unless exact there."""
    if array.dtype.char in _EXACT_IN_FLOAT32:
        return array.astype(np.float16)
    if array.dtype.kind == "c":
        array = array.real
    with np.errstate(over="ignore", invalid="ignore"):
        return array.astype(np.float32).astype(np.float16)


def check_storable(d: dtype) -> None:
    """Raise for complex32, the one torch dtype leafgrad names but cannot hold (NumPy has no
    complex half type)."""
    if d.name == "complex32":
        raise TypeError("leafgrad has no complex32 (ComplexHalf) tensors: NumPy has no such type")
_BY_NP = {d.np: d for d in ALL}
_BY_NP_TYPE = {d.np.type: d for d in ALL}


def from_numpy_dtype(np_dtype) -> dtype:
    """The leafgrad dtype of a NumPy dtype; TypeError for ones torch has no counterpart of."""
    found = _BY_NP.get(np_dtype)
    if found is None:
        found = _BY_NP.get(np.dtype(np_dtype))
    if found is None:
        raise _unconvertible(np_dtype)
    if found.is_complex or found in WIDE_UNSIGNED:
        found.np  # noqa: B018 - see _ComplexDtype and _WideUnsignedDtype
    return found


def from_user_numpy_dtype(np_dtype) -> dtype:
    """``from_numpy_dtype`` for arrays handed in by the user (``from_numpy``, ``tensor``,
    ``as_tensor``): torch refuses ml_dtypes' bfloat16 arrays, as it has no NumPy bfloat16."""
    if np.dtype(np_dtype).kind == "V":
        raise _unconvertible(np_dtype)
    return from_numpy_dtype(np_dtype)


def _unconvertible(np_dtype) -> TypeError:
    kind = np.dtype(np_dtype).type
    module = "numpy" if kind.__module__.startswith("numpy") else kind.__module__
    return TypeError(
        f"can't convert np.ndarray of type {module}.{kind.__name__}. The only supported types "
        "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
        "uint64, uint32, uint16, uint8, and bool."
    )


# Note: default dtype
# torch's default floating dtype is per process (not per thread); float32 unless changed.
_default = {"dtype": float32}
_lock = threading.Lock()


# Note: Python types as dtypes
# torch takes ``int``, ``float``, ``bool`` and ``complex`` wherever it takes a dtype and reads
# them as int64, float64 (not the default dtype), bool and complex128. Entry points that take
# a dtype pass it through ``as_dtype`` once; the ops below them see leafgrad dtypes only.
_PYTHON_TYPES = {builtins.int: int64, builtins.float: float64, builtins.bool: bool,
                 builtins.complex: complex128}


def as_dtype(value):
    """``value`` with Python's int/float/bool/complex read as torch's dtypes; anything else
    unchanged (callers raise their own errors for what is not a dtype)."""
    if value.__class__ is type:
        return _PYTHON_TYPES.get(value, value)
    return value


def get_default_dtype() -> dtype:
    """The dtype of floating tensors made from Python floats (float32 unless changed)."""
    return _default["dtype"]


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype; only float16/float32/float64 are accepted, as in torch."""
    if not isinstance(d, dtype):  # torch takes no Python type here
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    with _lock:
        _default["dtype"] = d


def default_complex_dtype() -> dtype:
    """complex128 when the default dtype is float64, else complex64 (torch's pairing)."""
    return complex128 if _default["dtype"] is float64 else complex64


# Categories for promotion: bool < integer < floating < complex.
def _category(d: dtype) -> builtins.int:
    if d is bool:
        return 0
    if d.is_floating_point:
        return 2
    if d.is_complex:
        return 3
    return 1


_INT_ORDER = {uint8: 0, int8: 1, int16: 2, int32: 3, int64: 4}


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest dtype both can be cast to without leaving their category.

    Differs from NumPy where floats meet integers: torch keeps the float (int64 + float16 is
    float16, NumPy says float64).
    """
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca == 3 or cb == 3:
        if a in WIDE_UNSIGNED or b in WIDE_UNSIGNED:  # uint16/32/64 promote with floats only
            raise _wide_unsigned_promotion(a, b)
        # complex with anything: the complex type of the wider real part (float64 + complex64
        # is complex128, int64 + complex64 is complex64)
        real_a = a.to_real() if ca == 3 else (a if ca == 2 else None)
        real_b = b.to_real() if cb == 3 else (b if cb == 2 else None)
        if real_a is None or real_b is None:
            return a if ca == 3 else b
        return promote_types(real_a, real_b).to_complex()
    if ca != cb:
        if ca + cb == 1 and (a in WIDE_UNSIGNED or b in WIDE_UNSIGNED):  # bool with uint16/32/64
            raise _wide_unsigned_promotion(a, b)
        return a if ca > cb else b
    if ca == 2:
        if a.itemsize == b.itemsize == 2:  # float16 with bfloat16: neither holds the other
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a in WIDE_UNSIGNED or b in WIDE_UNSIGNED:
        raise _wide_unsigned_promotion(a, b)
    # integers: uint8 with a signed type needs the next wider signed type
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if _INT_ORDER[a] >= _INT_ORDER[b] else b


def _wide_unsigned_promotion(a: dtype, b: dtype) -> RuntimeError:
    """torch 2.13 promotes uint16/uint32/uint64 with floating dtypes only."""
    return RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted "
                        f"to promote {a._legacy} and {b._legacy}")


def _scalar_dtype(value) -> dtype:
    if isinstance(value, (builtins.bool, np.bool_)):
        return bool
    if isinstance(value, (builtins.int, np.integer)):
        return int64
    if isinstance(value, (builtins.complex, np.complexfloating)):
        result = default_complex_dtype()
        result.np  # noqa: B018 - a complex operand: see _ComplexDtype
        return result
    return get_default_dtype()


def _combine(higher, lower):
    """torch's combine_categories: a higher-priority operand wins unless a lower one is of a
    higher category (then they promote)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    category_higher, category_lower = _category(higher), _category(lower)
    if category_higher >= category_lower:
        return higher
    if category_lower == 3 and category_higher == 2:
        if higher is bfloat16:  # no complex bfloat16: torch gives complex64
            return complex64
        # a float tensor with a complex scalar keeps the tensor's precision (float64 * 1j is
        # complex128, float16 * 1j complex32)
        return higher.to_complex()
    return promote_types(higher, lower)


def result_type(*operands) -> dtype:
    """torch.result_type over tensors and Python scalars.

    Dimensioned tensors outrank 0-d tensors, which outrank Python scalars; an operand of a
    lower rank only matters when it is of a higher category (bool < integer < floating).
    """
    dim_result = zero_result = scalar_result = None
    for op in operands:
        d = getattr(op, "dtype", None)
        if d is None or not isinstance(d, dtype):
            sd = _scalar_dtype(op)
            scalar_result = sd if scalar_result is None else promote_types(scalar_result, sd)
        elif op.ndim == 0:
            zero_result = d if zero_result is None else promote_types(zero_result, d)
        else:
            dim_result = d if dim_result is None else promote_types(dim_result, d)
    return _combine(dim_result, _combine(zero_result, scalar_result))


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """torch.can_cast: same-kind casting (no float to int, no int to bool)."""
    return _category(from_) <= _category(to)


def kind(array) -> str:
    """``array.dtype.kind``, with "f" for bfloat16 (ml_dtypes' kind is "V": Note: bfloat16)."""
    found = array.dtype.kind
    if found == "V" and is_bfloat16_array(array):
        return "f"
    return found


def is_inexact(array) -> builtins.bool:
    """Whether ``array`` (an ndarray) holds floating or complex values, bfloat16 included
    (``dtype.kind in "fc"`` misses it: ml_dtypes' kind is "V", Note: bfloat16)."""
    found = array.dtype.kind
    return found in "fc" or (found == "V" and is_bfloat16_array(array))


def is_floating(array) -> builtins.bool:
    """Whether ``array`` (an ndarray) holds real floating values, bfloat16 included."""
    found = array.dtype.kind
    return found == "f" or (found == "V" and is_bfloat16_array(array))


def np_finfo(np_dtype):
    """``np.finfo`` that also knows ml_dtypes' bfloat16 (Note: bfloat16)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind == "V" and np_dtype.name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.finfo(np_dtype)
    return np.finfo(np_dtype)


def _public_pair(function: str, names: tuple, values: tuple) -> tuple:
    """The two dtype arguments of torch.promote_types / torch.can_cast: Python types read as
    dtypes (Note: Python types as dtypes), anything else torch's parser error."""
    resolved = []
    for position, (name, value) in enumerate(zip(names, values), 1):
        value = as_dtype(value)
        if not isinstance(value, dtype):
            raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                            f"torch.dtype, not {type(value).__name__}")
        resolved.append(value)
    return tuple(resolved)


def public_promote_types(type1, type2) -> dtype:
    """torch.promote_types as called by users (the ops call ``promote_types`` directly)."""
    return promote_types(*_public_pair("promote_types", ("type1", "type2"), (type1, type2)))


def public_can_cast(from_, to) -> builtins.bool:
    """torch.can_cast as called by users."""
    return can_cast(*_public_pair("can_cast", ("from_", "to"), (from_, to)))


public_promote_types.__name__ = public_promote_types.__qualname__ = "promote_types"
public_can_cast.__name__ = public_can_cast.__qualname__ = "can_cast"
