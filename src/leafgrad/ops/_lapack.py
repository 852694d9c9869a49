"""LU solves through MKL's LAPACK as torch calls it, when the optional ``mkl`` package is
installed (ops/_mkl.py loads it).

Note: torch's LU solve
torch 2.13's ``linalg.solve(A, B)`` on the CPU factors a column-major copy of each A with
MKL's ``?getrf`` and solves with ``?getrs`` on a column-major copy of B (``trans='N'``);
``left=False`` (``X A = B``) solves ``A^T X^T = B^T`` with the same factors and
``trans='T'``. Its backward (without create_graph) reuses the factors: ``A^T Y = G`` is
``trans='T'`` (``left=False``: ``'N'`` on ``G^T``). NumPy's LAPACK (OpenBLAS) rounds its solutions otherwise: 60-100% of a
float32 3x3 solve's elements differed (tests/test_tutorials4_findings.py). Batches of
matrices larger than 32x32 are left to NumPy: torch's results there differ from a per-matrix
getrf/getrs (measured, not replayed).
"""

from __future__ import annotations

import ctypes

import numpy as np

from ..backends import cpu as _cpu
from . import _mkl

_functions: dict = {}  # dtype char -> (MKL's ?getrf_, ?getrs_)
_BATCHED_LIMIT = 32  # the largest batched matrix replayed (see the module's note)
# Note: batches of LAPACK calls. torch loops over a batch calling the routine per matrix (MKL's
# batch routines round otherwise: 5% of a 1000 x 3x3 batch's solutions differed); from Python
# each call costs a few microseconds, so batches of more than _MAX_BATCH matrices keep NumPy's
# batched routines (1000 3x3 solves: 0.5 ms with NumPy, 8.5 ms replayed; torch 0.2 ms).
_MAX_BATCH = 64
_INT_MAX = 2**31 - 1


def _addresses(array: np.ndarray) -> list:
    """Each leading-dim item's address (C-contiguous ``array``), as ctypes pointers: cheaper
    per call than ``.ctypes.data_as``."""
    base, step = array.ctypes.data, array.strides[0]
    return [ctypes.c_void_p(base + i * step) for i in range(array.shape[0])]


def _entry(char: str):
    entry = _functions.get(char)
    if entry is None:
        library = _mkl.library()
        if not library:
            return None
        prefix = "s" if char == "f" else "d"
        getrf, getrs = getattr(library, prefix + "getrf_"), getattr(library, prefix + "getrs_")
        getrf.restype = getrs.restype = None
        entry = _functions[char] = (getrf, getrs)
    return entry


def solve(a: np.ndarray, b: np.ndarray, left: bool = True, adjoint: bool = False):
    """The solutions of ``A X = B`` (``left``) or ``X A = B`` (``A^T`` for A with
    ``adjoint``: torch's lu_solve on A's factors, as its backward calls it) for (batches of,
    broadcast already) float32/float64 matrices, as torch's getrf/getrs calls give them, with
    a flag per matrix that is set when getrf met an exactly zero pivot; None where torch's
    calls are not replayed (no MKL, another dtype, large batched matrices, empty ones)."""
    if not _cpu.mkl_vml or _mkl._library is False or a.dtype != b.dtype:
        return None
    if a.dtype.char not in "fd" or a.size == 0 or b.size == 0:
        return None
    n = a.shape[-1]
    batch = a.shape[:-2]
    if (batch and n > _BATCHED_LIMIT) or max(b.shape[-2:]) > _INT_MAX or n > _INT_MAX:
        return None
    entry = _entry(a.dtype.char)
    if entry is None:
        return None
    getrf, getrs = entry
    count = int(np.prod(batch))
    if count > _MAX_BATCH:  # Note: batches of LAPACK calls
        return None
    factors = a.reshape(count, n, n)
    if left:
        rhs = b.reshape(count, *b.shape[-2:])
    else:
        rhs = np.swapaxes(b.reshape(count, *b.shape[-2:]), -1, -2)
    columns = rhs.shape[-1]
    # column-major copies (each matrix's transpose, row-major), always fresh: LAPACK writes
    # the factors and the solutions over them
    lu = np.array(np.swapaxes(factors, -1, -2), order="C", copy=True)
    out = np.array(np.swapaxes(rhs, -1, -2), order="C", copy=True)
    pivots = np.empty(n, np.int32)
    info = ctypes.c_int(0)
    size, width = ctypes.c_int(n), ctypes.c_int(columns)
    # X A = B is A^T X^T = B^T: the transposed system on the same factors
    trans = ctypes.c_char_p(b"T" if adjoint == left else b"N")
    singular = np.zeros(count, bool)
    n_ref, width_ref, info_ref = ctypes.byref(size), ctypes.byref(width), ctypes.byref(info)
    pivots_pointer = ctypes.c_void_p(pivots.ctypes.data)
    for i, (matrix, solution) in enumerate(zip(_addresses(lu), _addresses(out))):
        getrf(n_ref, n_ref, matrix, n_ref, pivots_pointer, info_ref)
        if info.value > 0:
            singular[i] = True
            continue
        getrs(trans, n_ref, width_ref, matrix, n_ref, pivots_pointer, solution, n_ref,
              info_ref)
    solutions = np.swapaxes(out, -1, -2)  # (count, rows, columns) of the solved system
    if not left:
        solutions = np.swapaxes(solutions, -1, -2)
    return solutions.reshape(b.shape), singular


def getrf(a: np.ndarray):
    """``?getrf`` of each matrix of a batch as torch calls it (on a column-major copy):
    ``(LU, pivots, info)``, the packed factors as an (..., m, n) array, LAPACK's 1-based int32
    pivots and each matrix's first zero pivot (0 when none); None where not replayed (no MKL,
    another dtype, an empty matrix). torch's det and slogdet factor a contiguous A's
    transpose (the same memory read column-major): the caller passes ``a.mT`` then."""
    if not _cpu.mkl_vml or _mkl._library is False or a.dtype.char not in "fd" or a.size == 0:
        return None
    m, n = a.shape[-2:]
    if max(m, n) > _INT_MAX:
        return None
    entry = _entry(a.dtype.char)
    if entry is None:
        return None
    getrf_function = entry[0]
    batch = a.shape[:-2]
    count = int(np.prod(batch))
    if count > _MAX_BATCH:  # Note: batches of LAPACK calls
        return None
    lu = np.array(np.swapaxes(a.reshape(count, m, n), -1, -2), order="C", copy=True)
    pivots = np.zeros((count, min(m, n)), np.int32)
    info = np.zeros(count, np.int32)
    rows, columns, status = ctypes.c_int(m), ctypes.c_int(n), ctypes.c_int(0)
    rows_ref, columns_ref, status_ref = (ctypes.byref(rows), ctypes.byref(columns),
                                         ctypes.byref(status))
    for i, (matrix, pivot) in enumerate(zip(_addresses(lu), _addresses(pivots))):
        getrf_function(rows_ref, columns_ref, matrix, rows_ref, pivot, status_ref)
        info[i] = max(status.value, 0)
    packed = np.swapaxes(lu, -1, -2).reshape(batch + (m, n))
    return packed, pivots.reshape(batch + (min(m, n),)), info.reshape(batch)


def getrs(packed: np.ndarray, pivots: np.ndarray, b: np.ndarray, transpose: bool):
    """``?getrs`` on given factors as torch's linalg.lu_solve calls it: each (broadcast) batch
    item's packed LU (read column-major) and 1-based pivots solve ``A X = B`` (``A^T X = B``
    with ``transpose``) for a column-major copy of B; the solutions as an (..., n, k) array, or
    None where not replayed (no MKL, another dtype, empty or large batches)."""
    if not _cpu.mkl_vml or _mkl._library is False or packed.dtype != b.dtype:
        return None
    if packed.dtype.char not in "fd" or packed.size == 0 or b.size == 0:
        return None
    n, columns = b.shape[-2:]
    batch = np.broadcast_shapes(packed.shape[:-2], pivots.shape[:-1], b.shape[:-2])
    count = int(np.prod(batch))
    if count > _MAX_BATCH or max(n, columns) > _INT_MAX:
        return None
    entry = _entry(packed.dtype.char)
    if entry is None:
        return None
    getrs_function = entry[1]
    factors = np.broadcast_to(packed, batch + (n, n)).reshape(count, n, n)
    lu = np.array(np.swapaxes(factors, -1, -2), order="C", copy=True)
    rows = np.ascontiguousarray(np.broadcast_to(pivots, batch + (n,)).reshape(count, n),
                                dtype=np.int32)
    rhs = np.broadcast_to(b, batch + (n, columns)).reshape(count, n, columns)
    out = np.array(np.swapaxes(rhs, -1, -2), order="C", copy=True)
    size, width, info = ctypes.c_int(n), ctypes.c_int(columns), ctypes.c_int(0)
    trans = ctypes.c_char_p(b"T" if transpose else b"N")
    n_ref, width_ref, info_ref = ctypes.byref(size), ctypes.byref(width), ctypes.byref(info)
    for matrix, pivot, solution in zip(_addresses(lu), _addresses(rows), _addresses(out)):
        getrs_function(trans, n_ref, width_ref, matrix, n_ref, pivot, solution, n_ref, info_ref)
    return np.swapaxes(out, -1, -2).reshape(batch + (n, columns))


def permutation_sign(pivots: np.ndarray, dtype) -> np.ndarray:
    """torch's lu_det_P: -1 where an odd number of pivots moved a row, else 1."""
    moved = np.count_nonzero(pivots != np.arange(1, pivots.shape[-1] + 1, dtype=np.int32), -1)
    return np.where(moved % 2 == 1, -1, 1).astype(dtype)


def potrf(a: np.ndarray, upper: bool):
    """``?potrf`` of each matrix as torch's linalg.cholesky calls it: on a column-major copy,
    reading and writing the lower (``upper``: upper) triangle, the other one zeroed after. The
    factor (an (..., n, n) array) and a flag per matrix that is set when it is not positive
    definite; None where not replayed (no MKL, another dtype, an empty matrix)."""
    if not _cpu.mkl_vml or _mkl._library is False or a.dtype.char not in "fd" or a.size == 0:
        return None
    n = a.shape[-1]
    if n > _INT_MAX:
        return None
    library = _mkl.library()
    if not library:
        return None
    function = getattr(library, ("s" if a.dtype.char == "f" else "d") + "potrf_")
    function.restype = None
    batch = a.shape[:-2]
    count = int(np.prod(batch))
    if count > _MAX_BATCH:  # Note: batches of LAPACK calls
        return None
    factors = np.array(np.swapaxes(a.reshape(count, n, n), -1, -2), order="C", copy=True)
    failed = np.zeros(count, bool)
    uplo = ctypes.c_char_p(b"U" if upper else b"L")
    size, status = ctypes.c_int(n), ctypes.c_int(0)
    size_ref, status_ref = ctypes.byref(size), ctypes.byref(status)
    for i, matrix in enumerate(_addresses(factors)):
        function(uplo, size_ref, matrix, size_ref, status_ref)
        failed[i] = status.value > 0
    factor = np.swapaxes(factors, -1, -2).reshape(batch + (n, n))
    return (np.triu(factor) if upper else np.tril(factor)), failed


def potrs(factor: np.ndarray, b: np.ndarray, upper: bool):
    """``?potrs`` as torch's cholesky_solve calls it, on column-major copies of each
    (broadcast already) factor and right-hand side: the solutions of ``(L L^T) X = B``
    (``U^T U`` with ``upper``), or None where not replayed."""
    if not _cpu.mkl_vml or _mkl._library is False or factor.dtype != b.dtype:
        return None
    if b.dtype.char not in "fd" or factor.size == 0 or b.size == 0:
        return None
    n, columns = b.shape[-2:]
    if max(n, columns) > _INT_MAX:
        return None
    library = _mkl.library()
    if not library:
        return None
    function = getattr(library, ("s" if b.dtype.char == "f" else "d") + "potrs_")
    function.restype = None
    batch = b.shape[:-2]
    count = int(np.prod(batch))
    if count > _MAX_BATCH:  # Note: batches of LAPACK calls
        return None
    factors = np.array(np.swapaxes(factor.reshape(count, n, n), -1, -2), order="C", copy=True)
    out = np.array(np.swapaxes(b.reshape(count, n, columns), -1, -2), order="C", copy=True)
    uplo = ctypes.c_char_p(b"U" if upper else b"L")
    size, width, status = ctypes.c_int(n), ctypes.c_int(columns), ctypes.c_int(0)
    size_ref, width_ref, status_ref = ctypes.byref(size), ctypes.byref(width), \
        ctypes.byref(status)
    for matrix, solution in zip(_addresses(factors), _addresses(out)):
        function(uplo, size_ref, width_ref, matrix, size_ref, solution, size_ref, status_ref)
    return np.swapaxes(out, -1, -2).reshape(b.shape)


def potri(factor: np.ndarray, upper: bool):
    """``?potri`` as torch's cholesky_inverse calls it (a column-major copy of each factor),
    the triangle it computes mirrored onto the other: ``(L L^T)^{-1}`` (``(U^T U)^{-1}``),
    or None where not replayed."""
    if not _cpu.mkl_vml or _mkl._library is False or factor.dtype.char not in "fd":
        return None
    if factor.size == 0 or factor.shape[-1] > _INT_MAX:
        return None
    library = _mkl.library()
    if not library:
        return None
    function = getattr(library, ("s" if factor.dtype.char == "f" else "d") + "potri_")
    function.restype = None
    n = factor.shape[-1]
    batch = factor.shape[:-2]
    count = int(np.prod(batch))
    if count > _MAX_BATCH:  # Note: batches of LAPACK calls
        return None
    out = np.array(np.swapaxes(factor.reshape(count, n, n), -1, -2), order="C", copy=True)
    uplo = ctypes.c_char_p(b"U" if upper else b"L")
    size, status = ctypes.c_int(n), ctypes.c_int(0)
    size_ref, status_ref = ctypes.byref(size), ctypes.byref(status)
    for matrix in _addresses(out):
        function(uplo, size_ref, matrix, size_ref, status_ref)
    result = np.swapaxes(out, -1, -2).reshape(batch + (n, n))
    if upper:
        return np.triu(result) + np.swapaxes(np.triu(result, 1), -1, -2)
    return np.tril(result) + np.swapaxes(np.tril(result, -1), -1, -2)


def trsm(a: np.ndarray, b: np.ndarray, upper: bool, left: bool, unitriangular: bool):
    """linalg.solve_triangular as torch calls BLAS's ``?trsm`` on (broadcast already)
    matrices: the solution in a column-major copy of B; A passed as it lies when the whole
    batch is column-major (``'N'``) or row-major (``'T'``, the other triangle of the stored
    transpose), else (a broadcast A too) as a column-major copy. Only A's triangle (and with ``unitriangular``
    not its diagonal) is read. None where not replayed."""
    if not _cpu.mkl_vml or _mkl._library is False or a.dtype != b.dtype:
        return None
    if b.dtype.char not in "fd" or a.size == 0 or b.size == 0:
        return None
    rows, columns = b.shape[-2:]
    n = a.shape[-1]
    if max(rows, columns) > _INT_MAX:
        return None
    library = _mkl.library()
    if not library:
        return None
    char = "s" if b.dtype.char == "f" else "d"
    function = getattr(library, f"cblas_{char}trsm")
    function.restype = None
    kind = ctypes.c_float if char == "s" else ctypes.c_double
    batch = b.shape[:-2]
    count = int(np.prod(batch))
    if count > _MAX_BATCH:  # Note: batches of LAPACK calls
        return None
    out = np.array(np.swapaxes(b.reshape(count, rows, columns), -1, -2), order="C", copy=True)
    # torch's "F-ready" A, judged on the whole (broadcast) batch: row-major is read as its
    # transpose, column-major as it is, anything else (a broadcast A too) copied column-major
    transposed = a.flags.c_contiguous
    if transposed:
        matrices = a.reshape(count, n, n)
    else:
        matrices = np.swapaxes(a, -1, -2).reshape(count, n, n)  # row-major A^T: a copy if
        matrices = np.ascontiguousarray(matrices)  # A was not column-major already
    uplo = 121 if upper != transposed else 122  # CblasUpper, CblasLower of the stored matrix
    side, trans, diag, one = (141 if left else 142, 112 if transposed else 111,
                              132 if unitriangular else 131, kind(1))
    for matrix, solution in zip(_addresses(matrices), _addresses(out)):
        function(102, side, uplo, trans, diag, rows, columns, one, matrix, n, solution, rows)
    return np.swapaxes(out, -1, -2).reshape(b.shape)


def _workspace(function, arguments: list, kind) -> int:
    """LAPACK's optimal workspace size: the routine called with ``lwork = -1``."""
    size = kind(0)
    status = ctypes.c_int(0)
    function(*arguments, ctypes.byref(size), ctypes.byref(ctypes.c_int(-1)),
             ctypes.byref(status))
    return int(size.value)


def qr(a: np.ndarray, mode: str):
    """linalg.qr as torch calls LAPACK (BatchLinearAlgebra.cpp's linalg_qr_out): ``?geqrf`` on a
    column-major copy of each (m, n) matrix, R the upper triangle of its first rows (k = min(m,
    n) rows, m with ``mode='complete'``), then ``?orgqr`` on Q's columns (k, or m), the first
    of them the factored matrix's. Each call's workspace is the size LAPACK's query gives
    (geqrf's at least n, as torch clamps it). ``(Q, R)`` (Q None with ``mode='r'``), or None
    where not replayed (no MKL, another dtype, an empty matrix, large batches). NumPy's qr
    works in float64 for float32 matrices and through another LAPACK: 3x3 float32 Q's and
    float64 R's differed in their last bits (nn.init.orthogonal_, tests/test_tutorials6_findings.py)."""
    if not _cpu.mkl_vml or _mkl._library is False or a.dtype.char not in "fd" or a.size == 0:
        return None
    m, n = a.shape[-2:]
    if max(m, n) > _INT_MAX:
        return None
    batch = a.shape[:-2]
    count = int(np.prod(batch))
    if count > _MAX_BATCH:  # Note: batches of LAPACK calls
        return None
    library = _mkl.library()
    if not library:
        return None
    char = "s" if a.dtype.char == "f" else "d"
    kind = ctypes.c_float if char == "s" else ctypes.c_double
    geqrf, orgqr = getattr(library, char + "geqrf_"), getattr(library, char + "orgqr_")
    geqrf.restype = orgqr.restype = None
    k = min(m, n)
    # (count, n, m) C-ordered: each matrix column-major, as torch's copy
    factored = np.array(np.swapaxes(a.reshape(count, m, n), -1, -2), order="C", copy=True)
    tau = np.zeros((count, max(k, 1)), a.dtype)
    rows, columns = ctypes.c_int(m), ctypes.c_int(n)
    lda = ctypes.c_int(max(1, m))
    status = ctypes.c_int(0)
    lwork = max(n, _workspace(geqrf, [ctypes.byref(rows), ctypes.byref(columns),
                                      ctypes.c_void_p(factored.ctypes.data), ctypes.byref(lda),
                                      ctypes.c_void_p(tau.ctypes.data)], kind))
    work = np.zeros(max(lwork, 1), a.dtype)
    work_pointer, work_size = ctypes.c_void_p(work.ctypes.data), ctypes.c_int(lwork)
    for matrix, factor in zip(_addresses(factored), _addresses(tau)):
        geqrf(ctypes.byref(rows), ctypes.byref(columns), matrix, ctypes.byref(lda), factor,
              work_pointer, ctypes.byref(work_size), ctypes.byref(status))
    column_major = np.swapaxes(factored, -1, -2)  # (count, m, n) views
    r_rows = m if mode == "complete" else k
    r = np.triu(column_major[:, :r_rows, :])
    r = r.reshape(batch + (r_rows, n))
    if mode == "r":
        return None, r
    q_columns = m if mode == "complete" else k
    q = np.zeros((count, q_columns, m), a.dtype)  # column-major (count, m, q_columns)
    q[:, :min(n, q_columns), :] = factored[:, :min(n, q_columns), :]
    q_width = ctypes.c_int(q_columns)
    reflectors = ctypes.c_int(k)
    lwork = _workspace(orgqr, [ctypes.byref(rows), ctypes.byref(q_width),
                               ctypes.byref(reflectors), ctypes.c_void_p(q.ctypes.data),
                               ctypes.byref(lda), ctypes.c_void_p(tau.ctypes.data)], kind)
    work = np.zeros(max(lwork, 1), a.dtype)
    work_pointer, work_size = ctypes.c_void_p(work.ctypes.data), ctypes.c_int(lwork)
    for matrix, factor in zip(_addresses(q), _addresses(tau)):
        orgqr(ctypes.byref(rows), ctypes.byref(q_width), ctypes.byref(reflectors), matrix,
              ctypes.byref(lda), factor, work_pointer, ctypes.byref(work_size),
              ctypes.byref(status))
    return np.swapaxes(q, -1, -2).reshape(batch + (m, q_columns)), r


def _prepared(a: np.ndarray):
    """(library, LAPACK prefix, ctypes scalar, count, batch) for replaying a real float32 /
    float64 routine on ``a``'s matrices, or None where not replayed (no MKL, another dtype, an
    empty matrix, large batches; Note: batches of LAPACK calls)."""
    if not _cpu.mkl_vml or _mkl._library is False or a.dtype.char not in "fd" or a.size == 0:
        return None
    if max(a.shape[-2:]) > _INT_MAX:
        return None
    batch = a.shape[:-2]
    count = int(np.prod(batch))
    if count > _MAX_BATCH:
        return None
    library = _mkl.library()
    if not library:
        return None
    char = "s" if a.dtype.char == "f" else "d"
    return library, char, (ctypes.c_float if char == "s" else ctypes.c_double), count, batch


def _int_ref(value: int):
    return ctypes.byref(ctypes.c_int(value))


def svd(a: np.ndarray, full_matrices: bool, compute_uv: bool):
    """linalg.svd as torch calls LAPACK (apply_svd): ``?gesdd`` on a column-major copy of each
    matrix, ``jobz`` 'A' (full_matrices), 'S' or 'N' (no U, Vh), U and Vh column-major, the
    workspace LAPACK's query gives and an ``8 min(m, n)`` integer workspace. ``(U, S, Vh)``
    (U and Vh None without ``compute_uv``), or None where not replayed. NumPy's svd works in
    float64 for float32 and through another LAPACK: float32's U, S, Vh and float64's U, Vh
    differed in their last bits (tests/test_tutorials6_findings.py)."""
    prepared = _prepared(a)
    if prepared is None:
        return None
    library, char, kind, count, batch = prepared
    gesdd = getattr(library, char + "gesdd_")
    gesdd.restype = None
    m, n = a.shape[-2:]
    k = min(m, n)
    jobz = b"A" if compute_uv and full_matrices else b"S" if compute_uv else b"N"
    u_columns, vh_rows = (m, n) if full_matrices else (k, k)
    matrices = np.array(np.swapaxes(a.reshape(count, m, n), -1, -2), order="C", copy=True)
    values = np.zeros((count, k), a.dtype)
    # column-major U (count, u_columns, m) and Vh (count, n, vh_rows), as torch allocates them
    u = np.zeros((count, u_columns, m) if compute_uv else (count, 1), a.dtype)
    vh = np.zeros((count, n, vh_rows) if compute_uv else (count, 1), a.dtype)
    ldu, ldvh = (m, vh_rows) if compute_uv else (1, 1)
    iwork = np.zeros(max(8 * k, 1), np.int32)
    status = ctypes.c_int(0)
    size = kind(0)
    common = [ctypes.c_char_p(jobz), _int_ref(m), _int_ref(n)]
    gesdd(*common, ctypes.c_void_p(matrices.ctypes.data), _int_ref(max(1, m)),
          ctypes.c_void_p(values.ctypes.data), ctypes.c_void_p(u.ctypes.data), _int_ref(ldu),
          ctypes.c_void_p(vh.ctypes.data), _int_ref(ldvh), ctypes.byref(size), _int_ref(-1),
          ctypes.c_void_p(iwork.ctypes.data), ctypes.byref(status))
    lwork = int(size.value)
    work = np.zeros(max(lwork, 1), a.dtype)
    work_pointer, iwork_pointer = ctypes.c_void_p(work.ctypes.data), \
        ctypes.c_void_p(iwork.ctypes.data)
    for matrix, value, left, right in zip(_addresses(matrices), _addresses(values),
                                          _addresses(u), _addresses(vh)):
        gesdd(*common, matrix, _int_ref(max(1, m)), value, left, _int_ref(ldu), right,
              _int_ref(ldvh), work_pointer, _int_ref(lwork), iwork_pointer,
              ctypes.byref(status))
    values = values.reshape(batch + (k,))
    if not compute_uv:
        return None, values, None
    return (np.swapaxes(u, -1, -2).reshape(batch + (m, u_columns)), values,
            np.swapaxes(vh, -1, -2).reshape(batch + (vh_rows, n)))


def eigh(a: np.ndarray, upper: bool, compute_v: bool):
    """linalg.eigh as torch calls LAPACK (apply_lapack_eigh): ``?syevd`` on a column-major copy
    of each matrix, reading its lower (``upper``: upper) triangle, with the workspace sizes
    LAPACK's query gives. ``(eigenvalues, eigenvectors)`` (vectors None without ``compute_v``),
    or None where not replayed. NumPy's eigh works in float64 for float32 and through another
    LAPACK: float32 values and vectors differed in their last bits."""
    prepared = _prepared(a)
    if prepared is None:
        return None
    library, char, kind, count, batch = prepared
    syevd = getattr(library, char + "syevd_")
    syevd.restype = None
    n = a.shape[-1]
    vectors = np.array(np.swapaxes(a.reshape(count, n, n), -1, -2), order="C", copy=True)
    values = np.zeros((count, n), a.dtype)
    jobz, uplo = ctypes.c_char_p(b"V" if compute_v else b"N"), ctypes.c_char_p(
        b"U" if upper else b"L")
    status = ctypes.c_int(0)
    size, integer_size = kind(0), ctypes.c_int(0)
    syevd(jobz, uplo, _int_ref(n), ctypes.c_void_p(vectors.ctypes.data), _int_ref(max(1, n)),
          ctypes.c_void_p(values.ctypes.data), ctypes.byref(size), _int_ref(-1),
          ctypes.byref(integer_size), _int_ref(-1), ctypes.byref(status))
    lwork, liwork = max(1, int(size.value)), max(1, integer_size.value)
    work, iwork = np.zeros(lwork, a.dtype), np.zeros(liwork, np.int32)
    for matrix, value in zip(_addresses(vectors), _addresses(values)):
        syevd(jobz, uplo, _int_ref(n), matrix, _int_ref(max(1, n)), value,
              ctypes.c_void_p(work.ctypes.data), _int_ref(lwork),
              ctypes.c_void_p(iwork.ctypes.data), _int_ref(liwork), ctypes.byref(status))
    values = values.reshape(batch + (n,))
    if not compute_v:
        return values, None
    return values, np.swapaxes(vectors, -1, -2).reshape(batch + (n, n))
