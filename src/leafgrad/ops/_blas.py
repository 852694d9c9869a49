"""Matrix products through MKL's BLAS as torch calls it, when the optional ``mkl`` package is
installed (ops/_mkl.py loads it).

Note: torch's gemm call
torch 2.13's CPU build multiplies float32/float64 matrices with MKL's ``sgemm_``/``dgemm_``
(ATen's ``addmm_impl_cpu_`` and ``cpublas::gemm``; MKL 2024.2 inside the torch wheel). The
last bits of a product depend on how the BLAS is called: which operand goes first, whether
it is passed transposed, the leading dimensions, whether a bias is added inside the call
(``beta = 1``) or after it. NumPy's BLAS (OpenBLAS) sums in another order: on
``nn.Linear(784, 256)`` with a batch of 32 only 14% of NumPy's float32 results are torch's
(tests/ops/test_mkl_bits.py). This module makes torch's call:

- the result is a fresh row-major (C-contiguous) matrix; unless it has one column, torch
  computes its transpose ``C^T = m2^T m1^T`` in BLAS's column-major terms (the operands
  swap places);
- each operand is passed as it lies in memory when one of its strides is 1 and the other a
  valid leading dimension (``'N'`` or ``'T'``), else as a row-major copy;
- ``normalize_last_dims`` then fixes the leading dimensions of size-1 matrices;
- ``addmm`` copies the (broadcast) bias into the result and passes ``beta``; ``mm`` passes
  ``beta = 0``; a product over an empty dimension is ``beta * bias`` (or zeros), no call.

Only matrices whose sizes fit MKL's 32-bit integers, float32 and float64, and only when MKL
is present and ``leafgrad.backends.cpu.mkl_vml`` is on (one switch for all of MKL); callers
fall back to NumPy's ``matmul`` otherwise. Products with a single output element (a row
times a column) are left to NumPy: torch's result there comes from another kernel.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ..backends import cpu as _cpu
from . import _mkl

_INT_MAX = 2**31 - 1
_COLUMN_MAJOR, _N, _T = 102, 111, 112  # CBLAS_LAYOUT and CBLAS_TRANSPOSE values
_BYTES = ctypes.c_char * 1
_void_p = ctypes.c_void_p
_gemm: dict = {}  # dtype char -> (MKL's cblas_sgemm/cblas_dgemm, its scalar type)
_ONE_ZERO: dict = {}  # (scalar type, value) -> a ctypes scalar, for the common alpha and beta


def _function(char: str):
    """MKL's ``cblas_?gemm`` (its column-major form is the Fortran ``?gemm_`` call torch
    makes). Called without argtypes: integers go by value as C ints, the scalars as ctypes
    objects, the matrices as buffers (the cheapest call ctypes makes: about 17,000
    instructions with MKL's own 6,500, against 34,000 through argtypes conversions)."""
    entry = _gemm.get(char)
    if entry is None:
        library = _mkl.library()
        if not library:
            return None
        function = getattr(library, "cblas_sgemm" if char == "f" else "cblas_dgemm")
        function.restype = None
        kind = ctypes.c_float if char == "f" else ctypes.c_double
        entry = _gemm[char] = (function, kind, kind(1), kind(0))
    return entry


def _scalar(kind, value):
    """``value`` as a ctypes scalar of ``kind`` (1 and 0, the usual alpha and beta, cached)."""
    if value == 1 or value == 0:
        key = (kind, value == 1)
        cached = _ONE_ZERO.get(key)
        if cached is None:
            cached = _ONE_ZERO[key] = kind(1 if value == 1 else 0)
        return cached
    return kind(value)


def _pointer(array: np.ndarray):
    """A ctypes argument that passes ``array``'s first element's address."""
    flags = array.flags
    if flags.writeable:
        if flags.c_contiguous:
            return _BYTES.from_buffer(array)  # cheaper than .ctypes.data
        if flags.f_contiguous:
            return _BYTES.from_buffer(array.T)  # the same first element
    return _void_p(array.ctypes.data)


def _operand(t: np.ndarray, transpose_c: bool, rows: int, cols: int):
    """How torch passes ``t`` (the operand in the gemm's frame, ``rows x cols`` in BLAS's
    column-major terms): ``(array, transposed, leading dimension)``."""
    item = t.itemsize
    s0, s1 = t.strides
    if s0 % item or s1 % item:
        s0 = s1 = -item
    first, second = (s1 // item, s0 // item) if transpose_c else (s0 // item, s1 // item)
    if first == 1 and second >= (rows if rows > 1 else 1):
        return t, False, second
    if second == 1 and first >= (cols if cols > 1 else 1):
        return t, True, first
    copy = np.ascontiguousarray(t)  # torch clones the operand contiguous (row-major)
    transposed = not transpose_c
    return copy, transposed, copy.strides[1 if transposed == transpose_c else 0] // item


def off() -> bool:
    """Whether MKL is switched off or known to be missing (the callers' cheap first test)."""
    return not _cpu.mkl_vml or _mkl._library is False


def addmm(bias, m1: np.ndarray, m2: np.ndarray, beta=0, alpha=1, out=None):
    """``beta * bias + alpha * (m1 @ m2)`` computed by MKL as torch computes it, or None
    (the caller then uses NumPy). ``bias`` broadcasts to the result (None with beta 0);
    ``out``: a C-contiguous result array to write into (a new one otherwise)."""
    if not _cpu.mkl_vml or _mkl._library is False:
        return None
    dtype = m1.dtype
    entry = _gemm.get(dtype.char)
    if entry is None:
        if dtype.char not in "fd" or _function(dtype.char) is None:
            return None
        entry = _gemm[dtype.char]
    if m2.dtype != dtype or m1.ndim != 2 or m2.ndim != 2:
        return None
    m, k = m1.shape
    n = m2.shape[1]
    if m > _INT_MAX or n > _INT_MAX or k > _INT_MAX:
        return None
    if out is None or out.dtype != dtype or not out.flags.c_contiguous or out.shape != (m, n):
        out = np.empty((m, n), dtype)
    if beta != 0:
        np.copyto(out, bias, casting="unsafe")
    if m == 0 or n == 0:
        return out
    if k == 0:
        if beta == 0:
            out.fill(0)
        elif beta != 1:
            np.multiply(out, beta, out=out, casting="unsafe")
        return out
    # Note: torch's gemm call (the module doc); the result is row-major, so unless it has a
    # single column (strides (1, 1): torch takes it as column-major) the operands swap
    transpose_c = n != 1
    if transpose_c:
        m1, m2, m, n = m2, m1, n, m
        ldc = m  # the result's row stride
    else:
        ldc = 1  # its column stride
    a, transpose_a, lda = _operand(m1, transpose_c, m, k)
    b, transpose_b, ldb = _operand(m2, transpose_c, k, n)
    # cpublas::normalize_last_dims
    if n == 1:
        ldc = m
    if transpose_a:
        if m == 1:
            lda = k
    elif k == 1:
        lda = m
    if transpose_b:
        if k == 1:
            ldb = n
    elif n == 1:
        ldb = k
    function, kind, one, zero = entry
    function(_COLUMN_MAJOR, _T if transpose_a else _N, _T if transpose_b else _N, m, n, k,
             one if alpha == 1 else kind(alpha), _pointer(a), lda, _pointer(b), ldb,
             zero if beta == 0 else one if beta == 1 else kind(beta), _pointer(out), ldc)
    return out


_ROW_MAJOR = 101
_batch_functions: dict = {}  # dtype char -> (cblas ?gemm_batch, scalar type)


def _items_dense(t: np.ndarray) -> bool:
    """torch's batch_items_contiguous_or_transposed (strides in elements)."""
    item = t.itemsize
    if any(stride % item for stride in t.strides):
        return False
    _, s1, s2 = (stride // item for stride in t.strides)
    _, rows, cols = t.shape
    return (s2 == 1 and (rows == 1 or s1 >= cols)) or (s1 == 1 and (cols == 1 or s2 >= rows))


def gemm_batch(out: np.ndarray, a: np.ndarray, b: np.ndarray, beta=0, alpha=1):
    """torch's baddbmm/bmm MKL path (_baddbmm_mkl_): one ``cblas_?gemm_batch`` call in
    row-major terms over every matrix, ``out`` (C-contiguous, holding the bias when beta is
    not 0) written in place. MKL computes a batch with other kernels than a gemm per matrix
    (a single-column product differed on 1 in 2 elements). None where torch would not take
    this path (operand layouts, dtypes, no MKL): the caller then multiplies per matrix."""
    char = a.dtype.char
    if (not _cpu.mkl_vml or _mkl._library is False or char not in "fd" or b.dtype != a.dtype
            or out.dtype != a.dtype or not out.flags.c_contiguous or a.ndim != 3
            or b.ndim != 3 or not (_items_dense(a) and _items_dense(b))
            or min(a.strides[0], b.strides[0]) < 0 or max(a.shape + b.shape) > _INT_MAX):
        return None
    entry = _batch_functions.get(char)
    if entry is None:
        library = _mkl.library()
        if not library:
            return None
        function = getattr(library, "cblas_sgemm_batch" if char == "f" else "cblas_dgemm_batch")
        function.restype = None
        entry = _batch_functions[char] = (function,
                                          ctypes.c_float if char == "f" else ctypes.c_double)
    function, kind = entry
    batch, m, k = a.shape
    n = b.shape[2]
    if batch == 0 or m == 0 or n == 0 or k == 0:
        return None  # (torch handles these before the call)
    item = a.itemsize

    def operand(t, rows, cols):
        s0, s1 = t.strides[1] // item, t.strides[2] // item
        if s0 == 1 and s1 >= max(1, rows):  # torch's is_transposed(batch item)
            return _T, s1
        return _N, max(s0, cols, 1)  # (a size-1 dim's stride is free in NumPy)

    trans_a, lda = operand(a, m, k)
    trans_b, ldb = operand(b, k, n)
    ints = ctypes.c_int * 1
    pointers = ctypes.c_void_p * batch
    a_ptrs = pointers(*[a.ctypes.data + i * a.strides[0] for i in range(batch)])
    b_ptrs = pointers(*[b.ctypes.data + i * b.strides[0] for i in range(batch)])
    c_ptrs = pointers(*[out.ctypes.data + i * out.strides[0] for i in range(batch)])
    function(_ROW_MAJOR, ints(trans_a), ints(trans_b), ints(m), ints(n), ints(k),
             (kind * 1)(alpha), a_ptrs, ints(lda), b_ptrs, ints(ldb), (kind * 1)(beta), c_ptrs,
             ints(max(n, 1)), ctypes.c_int(1), ints(batch))
    return out


def mm(m1: np.ndarray, m2: np.ndarray, out=None):
    """``m1 @ m2`` as torch's ``mm`` computes it with MKL, or None (see ``addmm``)."""
    return addmm(None, m1, m2, 0, 1, out)


_vector_functions: dict = {}  # dtype char -> (cblas ?gemv, cblas ?dot, scalar type)


def _vector(char: str):
    entry = _vector_functions.get(char)
    if entry is None:
        library = _mkl.library()
        if not library:
            return None
        prefix = "cblas_s" if char == "f" else "cblas_d"
        scalar = ctypes.c_float if char == "f" else ctypes.c_double
        gemv = getattr(library, prefix + "gemv")
        gemv.restype = None
        dot = getattr(library, prefix + "dot")
        dot.restype = scalar
        entry = _vector_functions[char] = (gemv, dot, scalar, _scalar(scalar, 1),
                                           _scalar(scalar, 0))
    return entry


def _increment(v: np.ndarray):
    """``(array, step)``: a vector as torch hands it to BLAS (its own stride; NumPy's negative
    strides, which torch never has, as a copy)."""
    step, rest = divmod(v.strides[0], v.itemsize)
    if rest or step <= 0:
        v = np.ascontiguousarray(v)
        step = 1
    return v, step


def mv(mat: np.ndarray, vec: np.ndarray):
    """``mat @ vec`` as torch's ``mv`` computes it (ATen's addmv_impl_cpu: MKL's gemv, the
    matrix passed as it lies when a stride is 1, else a row-major copy), or None."""
    char = mat.dtype.char
    if (not _cpu.mkl_vml or char not in "fd" or vec.dtype != mat.dtype or mat.ndim != 2
            or vec.ndim != 1 or 0 in mat.shape or max(mat.shape) > _INT_MAX):
        return None
    entry = _vector(char)
    if entry is None:
        return None
    gemv, _, _, one, zero = entry
    rows, cols = mat.shape
    item = mat.itemsize
    s0, s1 = mat.strides[0] // item, mat.strides[1] // item
    if mat.strides[0] % item or mat.strides[1] % item:
        s0 = s1 = -1
    if s0 == 1 and (cols == 1 or s1 >= max(1, rows)):
        trans, m, n, lda = _N, rows, cols, s1
    elif s1 == 1 and (rows == 1 or s0 >= max(1, cols)):
        trans, m, n, lda = _T, cols, rows, s0
    else:
        mat = np.ascontiguousarray(mat)
        trans, m, n, lda = _T, cols, rows, cols
    if n == 1:
        lda = m
    vec, incx = _increment(vec)
    out = np.empty(rows, mat.dtype)
    gemv(_COLUMN_MAJOR, trans, m, n, one, _pointer(mat), lda, _pointer(vec), incx, zero,
         _BYTES.from_buffer(out), 1)  # (out: fresh, C-contiguous)
    return out


def dot(x: np.ndarray, y: np.ndarray, conjugate: bool = False):
    """``x . y`` (a 0-d array) as torch's ``dot`` computes it (MKL's sdot/ddot, or for complex
    vectors cdotu/zdotu, with the vectors' own strides), or None. ``conjugate``: torch's
    ``vdot`` of complex vectors (cdotc/zdotc: ``conj(x) . y``)."""
    char = x.dtype.char
    if (not _cpu.mkl_vml or char not in "fdFD" or y.dtype != x.dtype or x.ndim != 1
            or y.ndim != 1 or x.size != y.size or x.size > _INT_MAX):
        return None
    entry = _vector(char) if char in "fd" else _complex_dot(char, conjugate)
    if entry is None:
        return None
    n = x.size
    if n == 0:
        return np.zeros((), x.dtype)
    # (torch hands BLAS an expanded vector's stride 0 as it is)
    x, incx = _increment(x) if x.strides[0] else (x, 0)
    y, incy = _increment(y) if y.strides[0] else (y, 0)
    if n == 1:
        incx = incy = 1
    if char in "FD":
        out = np.zeros(1, x.dtype)
        entry(n, _pointer(x), incx, _pointer(y), incy, _pointer(out))
        return out.reshape(())
    value = entry[1](n, _pointer(x), incx, _pointer(y), incy)
    return np.asarray(value, dtype=x.dtype)


_complex_dot_functions: dict = {}  # (dtype char, conjugate) -> cblas ?dot?_sub


def _complex_dot(char: str, conjugate: bool):
    entry = _complex_dot_functions.get((char, conjugate))
    if entry is None:
        library = _mkl.library()
        if not library:
            return None
        name = f"cblas_{'c' if char == 'F' else 'z'}dot{'c' if conjugate else 'u'}_sub"
        entry = _complex_dot_functions[char, conjugate] = getattr(library, name)
        entry.restype = None
    return entry


_axpy_functions: dict = {}  # dtype char -> (cblas ?axpy, scalar type)


def axpy(alpha, x: np.ndarray, y: np.ndarray) -> bool:
    """``y += alpha * x`` in place with MKL's ``?axpy`` (one fused multiply-add per element:
    torch's add kernel, ``fmadd(b, alpha, a)``, gives the same bits), for C-contiguous ``x``
    and ``y`` of one float dtype and size; False (nothing done) where MKL does not serve it."""
    char = y.dtype.char
    if not _cpu.mkl_vml or char not in "fd" or x.dtype != y.dtype or x.size != y.size:
        return False
    entry = _axpy_functions.get(char)
    if entry is None:
        library = _mkl.library()
        if not library:
            return False
        function = getattr(library, "cblas_saxpy" if char == "f" else "cblas_daxpy")
        function.restype = None
        entry = _axpy_functions[char] = (function,
                                         ctypes.c_float if char == "f" else ctypes.c_double)
    if not (x.flags.c_contiguous and y.flags.c_contiguous and y.flags.writeable):
        return False
    size = y.size
    if size > _INT_MAX or not axpy_fuses(char):
        return False
    if size:
        entry[0](size, entry[1](alpha), _pointer(x), 1, _pointer(y), 1)
    return True


def axpy_serves(dtype) -> bool:
    """Whether ``axpy`` runs for contiguous operands of this dtype (MKL loaded and used, its
    ``?axpy`` fusing here)."""
    char = np.dtype(dtype).char
    if not _cpu.mkl_vml or char not in "fd" or not _mkl.library():
        return False
    if char not in _axpy_functions:  # (resolves the function; nothing is computed)
        axpy(1.0, np.zeros(0, dtype), np.zeros(0, dtype))
    return axpy_fuses(char)


_FUSES: dict = {}  # dtype char -> whether MKL's ?axpy rounds each update once here


def axpy_fuses(char: str) -> bool:
    """Whether MKL's ``?axpy`` computes ``y + alpha * x`` with one rounding on this machine, as
    torch's add kernel does (checked once per dtype on numbers where one and two roundings
    differ: MKL 2024.2 fuses on the Intel AVX-512 machines measured, and not on an AMD EPYC with
    AVX2, where it takes another code path). False also where MKL is not loaded."""
    known = _FUSES.get(char)
    if known is not None:
        return known
    entry = _axpy_functions.get(char)
    if entry is None:
        return False
    dtype = np.float32 if char == "f" else np.float64
    tiny = 2.0 ** (-13 if char == "f" else -30)
    # (1 + t) (1 - t) - 1 = -t**2 exactly; rounding the product first gives 0
    x = np.full(37, 1 + tiny, dtype)
    y = np.full(37, -1.0, dtype)
    entry[0](x.size, entry[1](1 - tiny), _pointer(x), 1, _pointer(y), 1)
    fuses = _FUSES[char] = bool((y == dtype(-tiny * tiny)).all())
    return fuses
