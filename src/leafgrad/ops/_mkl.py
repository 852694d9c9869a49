"""Intel MKL's vector math functions, where torch's CPU kernels call them (an optional extra).

Note: torch's MKL functions
torch 2.13's CPU build hands most float32 and float64 unary math on contiguous runs to MKL's
vector math library (ATen's vml.h: ``vms<Name>``/``vmd<Name>`` with the mode
``VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE``; a strided operand goes through a contiguous
buffer, so every element takes the same code). MKL's algorithms are not public, and its
high-accuracy results are not always the correctly rounded ones (sin, cos, tan, tanh, erf...
err by up to ~0.6 ulp), so only MKL itself gives torch's last bits. When the ``mkl`` package
is installed (``pip install leafgrad[mkl]``, which puts ``libmkl_rt`` under ``sys.prefix``),
leafgrad calls the same functions with the same mode; without it the NumPy kernels (float64
computations rounded once, ops/_float_kernels.py) give most of the bits.

Which functions: those whose MKL result equals torch's on a grid of 100,001 inputs
(docs/float32-bits.md, tests/ops/test_mkl_bits.py); where torch runs SLEEF or its own code
instead (expm1, log1p, sinh, cosh, asinh, acosh, atanh, exp2, lgamma), MKL's results
differ from torch's and are not used. float64 uses MKL only where NumPy's float64 kernel
differs from torch's (sin, cos, tanh, sqrt, the erf family); elsewhere both are the same
bits. The release matters: the mkl extra pins 2024.2.0, the MKL inside the torch 2.13 wheel
(``torch.__config__.show()``); MKL 2026.2 gave other bits for exp, log, asin and acos and for
small matrix products (ops/_blas.py).

Note: MKL's threads. torch's MKL runs on GNU OpenMP with ``torch.get_num_threads()`` threads,
and a threaded matrix product rounds differently from a sequential one (6x8 @ 8x24 with torch
on 2 threads: 32 of 144 float32 values differ from MKL's sequential layer). So MKL is put on
its GNU OpenMP layer (``MKL_Set_Threading_Layer(GNU)`` before any other call) with
``leafgrad.get_num_threads()`` threads, which ``set_num_threads`` updates; where libgomp cannot
be loaded it runs sequentially (one thread's bits). The VML mode is passed with every call, so
calls from several Python threads are independent. ``leafgrad.backends.cpu.mkl_vml = False``
switches MKL off.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading
import weakref

import numpy as np

from ..backends import cpu as _cpu

# ATen's mode for every vml call (vml.h): high accuracy, denormals kept, no error handling
_MODE = 0x2 | 0x140000 | 0x100  # VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE
_SEQUENTIAL = 1  # MKL_THREADING_SEQUENTIAL
_GNU = 3  # MKL_THREADING_GNU: libgomp, as torch's build (Note: MKL's threads)
_CHUNK = 1 << 30  # elements per call: MKL_INT is 32-bit in the LP64 interface

# (float32 names, float64 names): MKL's function name for each leafgrad kernel name
FLOAT32 = {"exp": "Exp", "log": "Ln", "sin": "Sin", "cos": "Cos", "tan": "Tan", "tanh": "Tanh",
           "sqrt": "Sqrt",
           "asin": "Asin", "acos": "Acos", "atan": "Atan", "erf": "Erf", "erfc": "Erfc",
           "erfinv": "ErfInv", "log10": "Log10", "log2": "Log2"}
FLOAT64 = {"sin": "Sin", "cos": "Cos", "tanh": "Tanh", "sqrt": "Sqrt", "erf": "Erf",
           "erfc": "Erfc", "erfinv": "ErfInv",
           # NumPy's float64 kernels give torch's (MKL's) bits for these on an AVX-512 machine
           # (its vectorised exp/log) but not without AVX-512 (glibc's: 91-99.98% on an AMD
           # EPYC with AVX2), where MKL's are torch's on every input measured
           "exp": "Exp", "log": "Ln", "tan": "Tan", "asin": "Asin", "acos": "Acos",
           "atan": "Atan", "log2": "Log2", "log10": "Log10"}

_BYTES = ctypes.c_char * 1
_void_p = ctypes.c_void_p
_MODE_ARGUMENT = ctypes.c_longlong(_MODE)
_lock = threading.Lock()
_library = None  # the loaded libmkl_rt, False once a search failed
_served: dict = {}  # (NumPy dtype char, leafgrad name) -> MKL's ctypes function, once loaded


def _candidates():
    explicit = os.environ.get("LEAFGRAD_MKL")
    if explicit:
        yield explicit
        return
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):
        for sub, names in (("lib", ("libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so",
                                    "libmkl_rt.3.dylib", "libmkl_rt.2.dylib", "libmkl_rt.dylib")),
                           (os.path.join("Library", "bin"), ("mkl_rt.3.dll", "mkl_rt.2.dll"))):
            for name in names:
                path = os.path.join(prefix, sub, name)
                if os.path.exists(path):
                    yield path
    found = ctypes.util.find_library("mkl_rt")
    if found:
        yield found


def _load():
    global _library
    with _lock:
        if _library is not None:
            return _library
        for path in _candidates():
            try:
                library = ctypes.CDLL(path)
                library.vmsSin  # noqa: B018 - a library without the vector math functions
            except (OSError, AttributeError):
                continue
            try:
                set_layer = library.MKL_Set_Threading_Layer
                set_layer.argtypes = [ctypes.c_int]
                set_layer(_GNU if _load_gomp() else _SEQUENTIAL)
            except AttributeError:
                pass
            _apply_threads(library)
            for char, prefix, table in (("f", "vms", FLOAT32), ("d", "vmd", FLOAT64)):
                for name, mkl_name in table.items():
                    function = getattr(library, prefix + mkl_name)
                    function.restype = None
                    _served[(char, name)] = function
            _library = library
            return library
        _library = False
        return False


def _load_gomp() -> bool:
    """Load GNU OpenMP's runtime for MKL's GNU layer (its symbols global, as MKL needs them);
    False where it cannot be found."""
    for name in (ctypes.util.find_library("gomp"), "libgomp.so.1"):
        if not name:
            continue
        try:
            ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        return True
    return False


def _apply_threads(library) -> None:
    from .._info import get_num_threads

    try:
        set_threads = library.MKL_Set_Num_Threads
    except AttributeError:
        return
    set_threads.argtypes = [ctypes.c_int]
    set_threads(int(get_num_threads()))


def set_threads(count: int) -> None:
    """MKL's thread count, kept equal to ``leafgrad.get_num_threads()`` (set_num_threads)."""
    if _library:
        _apply_threads(_library)


def library():
    """The loaded libmkl_rt, or False when it is not installed (searched once)."""
    return _library if _library is not None else _load()


def available() -> bool:
    """Whether MKL's vector math functions were found (and are switched on)."""
    return bool(_cpu.mkl_vml) and bool(_library if _library is not None else _load())


def _dense(array: np.ndarray) -> bool:
    """Whether ``array``'s elements fill one run of memory (any order of strides)."""
    flags = array.flags
    if flags.c_contiguous or flags.f_contiguous:
        return True
    pairs = sorted((abs(stride), size) for stride, size in zip(array.strides, array.shape)
                   if size != 1)
    expected = array.itemsize
    for stride, size in pairs:
        if stride != expected:
            return False
        expected *= size
    return all(stride > 0 for stride, size in zip(array.strides, array.shape) if size != 1)


def _first_element(array: np.ndarray) -> int:
    """The address of the lowest element of a dense array with non-negative strides."""
    return array.ctypes.data


_OUT_POINTERS: dict = {}  # id(array) -> (weak reference, c_void_p of its first element)


def _out_pointer(array: np.ndarray):
    """The address argument of an ``out=`` array, remembered for the array's life:
    leafgrad.compile's replay writes into the same buffers on every call, and finding an
    array's address costs more than MKL's work on a small one (about 6,000 instructions)."""
    entry = _OUT_POINTERS.get(id(array))
    if entry is not None and entry[0]() is array:
        return entry[1]
    if len(_OUT_POINTERS) > 4096:
        _OUT_POINTERS.clear()
    pointer = _void_p(_first_element(array))
    _OUT_POINTERS[id(array)] = (weakref.ref(array), pointer)
    return pointer


def kernel(name: str, a: np.ndarray, out: np.ndarray | None = None):
    """MKL's ``name`` of the float32/float64 array ``a`` as torch computes it, into ``out`` if
    given (same shape and dtype); None when MKL does not serve this function and dtype (the
    caller then runs its own kernel)."""
    function = _served.get((a.dtype.char, name))
    if function is None:
        if _library is not None or a.dtype.char not in "fd" or not _cpu.mkl_vml:
            return None
        _load()  # the first call: find MKL, then fill _served
        return kernel(name, a, out)
    if not _cpu.mkl_vml:
        return None
    # MKL computes in place (its functions allow the input and output to be one array): one
    # copy into the result, and one address to find
    # (the result keeps the operand's layout, as NumPy's and torch's unary kernels do: a dense
    # copy in the operand's order of strides, which MKL reads as one run of elements)
    if out is not None and out.dtype == a.dtype and _dense(out):
        target = out
        if out is not a:  # (a copy onto the same memory changes nothing, and costs less
            np.copyto(target, a)  # than finding out whether it is that memory)
    elif 0 in a.strides:
        # a broadcast operand: ordered as a ufunc's result (and torch's) orders it, where
        # copy(order="K") would put the stepping dims outermost ((0, 0, 1) gave (3, 1, 9))
        target = np.positive(a)
    else:
        target = a.copy(order="K")
        if target.__class__ is not np.ndarray:  # a NumPy scalar (0-d arithmetic gives one):
            target = np.array(target)  # its copy is no writable buffer for MKL
    size = target.size
    if size < _CHUNK:
        if size:
            # (no argtypes: the size goes as a C int, the array as a buffer, the mode as a
            # prebuilt 64-bit integer: the cheapest call ctypes makes)
            if target is out:
                pointer = _out_pointer(out)
            elif target.flags.c_contiguous:
                pointer = _BYTES.from_buffer(target)
            else:
                pointer = _void_p(_first_element(target))
            function(size, pointer, pointer, _MODE_ARGUMENT)
    else:
        address = _first_element(target)
        step = _CHUNK * a.dtype.itemsize
        for start in range(0, size, _CHUNK):
            pointer = address + (start // _CHUNK) * step
            function(min(_CHUNK, size - start), _void_p(pointer), _void_p(pointer),
                     _MODE_ARGUMENT)
    if out is not None and target is not out:
        out[...] = target
        return out
    return target
