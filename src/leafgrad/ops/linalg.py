"""Matrix products. ``matmul`` is a composite that picks the same primitives torch does, so the
graph shows the same nodes (``MmBackward0``, ``MvBackward0``, ``UnsafeViewBackward0``...)."""

from __future__ import annotations

import numpy as np

from .. import _profiling
from ..amp._state import state as autocast_state
from ._forward import jvp_sum
from . import _batching_rules as batch, _blas, _isa
from .elementwise import Mul, _scale
from ..tensor import _wrap
from .registry import Op, on_arrays, plain_apply, register
from .shape import SqueezeLast
from ..autograd.graph import SavedTensor
from .complex import conj  # Note: torch's convention for complex gradients (ops/complex.py)
from .._dtype import from_numpy_dtype
from .shape import UnsafeView

_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double", "int64": "long int",
          "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
          "uint16": "short unsigned int", "uint32": "unsigned int",
          "uint64": "long unsigned int", "bool": "bool", "complex64": "c10::complex<float>",
          "complex128": "c10::complex<double>"}


def _same_dtype(a: np.ndarray, b: np.ndarray, first: str = "m1", second: str = "m2") -> None:
    # Note: matrix products do not promote in torch; mixed dtypes are an error.
    if a.dtype != b.dtype:
        left = _NAMES.get(a.dtype.name, a.dtype.name)
        right = _NAMES.get(b.dtype.name, b.dtype.name)
        raise RuntimeError(
            f"expected {first} and {second} to have the same dtype, but got: {left} != {right}"
        )


def _operand_sizes(index: int):
    return lambda node: node.input_shape(index)


def _operand_strides(index: int, name: str):
    """torch's ``_saved_<name>_sym_strides`` of a matrix product's operand: the saved tensor's
    strides, else those of its layout (row- or column-major), read when asked for, not kept by
    the forward."""

    def strides(node):
        if node._next_nodes[index] is None:  # kept for the operand's own gradient only
            return ()
        saved = node._saved.get(name) if node._saved else None
        if isinstance(saved, SavedTensor) and saved.tensor is not None:
            return saved.tensor.stride()
        rows, columns = node.input_shape(index)
        layouts = node._saved.get("layouts") if node._saved else None
        column_major = layouts is not None and layouts[index - (len(node.inputs) - 2)]
        return (1, max(rows, 1)) if column_major else (max(columns, 1), 1)

    return strides


@register
class Mm(Op):
    autocast = "lower_precision_fp"  # torch's CPU autocast list
    node = "MmBackward0"
    uint_same_dtype = True  # torch checks that the operands' dtypes agree first
    uint_kernel = "addmm_impl_cpu_"
    complex_ok = True
    vmap = batch.matmul_like
    inputs = ("self", "mat2")
    saves = {"self": ("mat2",), "mat2": ("self",), "layouts": ("self", "mat2")}
    saved_computed = {"self_sym_sizes": _operand_sizes(0), "mat2_sym_sizes": _operand_sizes(1),
                      "self_sym_strides": _operand_strides(0, "self"),
                      "mat2_sym_strides": _operand_strides(1, "mat2")}
    torch_names = ("mm", "matmul")
    bfloat16_native = "always"  # Note: half-precision gemm

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if b.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                f"{b.shape[0]}x{b.shape[1]})"
            )
        _same_dtype(a, b)
        if a.dtype.kind == "b":
            _refuse_bool(a, "addmm_impl_cpu_", a.shape[0] * b.shape[1], a.shape[1])
        if ctx is not None:
            ctx.keep("layouts", (_column_major(a), _column_major(b)))
        return _matmul(a, b)

    @staticmethod
    def capture_kernel(a, b, out):  # Note: capture kernels in registry.py
        # the same BLAS call as forward, written into the replay's buffer
        result = _blas.mm(a, b, out)
        return np.matmul(a, b, out=out) if result is None else result

    def backward(self, grad):
        if on_arrays():  # Note: array-level backwards (activation.py)
            grads = _mm_grads_on_arrays(self, grad, 0)
            if grads is not None:
                return grads
        grad_self = grad_mat2 = None  # Note: the order of an op's input gradients
        if self.needs_grad(1):
            grad_mat2 = _mat2_grad(grad, self.saved("self"), self.saved("layouts")[1])
        if self.needs_grad(0):
            grad_self = _mat1_grad(grad, self.saved("mat2"), self.saved("layouts")[0])
        return grad_self, grad_mat2

    def jvp(self, tangents, primals, result):
        a, b = primals  # torch: mm(self_t, mat2_p) + mm(self_p, mat2_t)
        return jvp_sum(tangents, lambda t: t.mm(b), lambda t: a.mm(t))


# Note: half-precision gemm
# torch 2.13 multiplies float16 and bfloat16 matrices on a CPU without AVX-512 with ATen's own
# loops (cpublas gemm_core_, BlasKernel.cpp) in float32, rounding each result to the dtype
# once. Which loop depends on how the operands lie (Note: torch's gemm call, ops/_blas.py: in
# BLAS's column-major frame the result is C^T = B^T A^T unless it has one column), and each
# adds the products of a dot product in its own order:
# - neither operand transposed, or both: four interleaved partial sums (term l into sum
#   l % 4, the terms past the last multiple of 4 into the first), added in order at the end;
# - only the frame's first operand transposed (``x @ w.T``, nn.Linear's layout): the
#   vectorised dot (fp16_dot_with_fp32_arith): blocks of 64 terms into 64 sums (8 registers
#   of 8 lanes), folded register by register (4 + 4, 2 + 2, 1 + 1), the 8 lanes folded as
#   AVX2's shuffles fold them ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)); then blocks
#   of 16 terms into 8 lanes (term 16c + q, then 16c + 8 + q), folded the same way and added;
#   then the last terms one by one;
# - only the second transposed (``x.T @ y``): a float32 accumulator per result starting at
#   ``beta * c``, to which each term ``l`` adds ``a * (b * alpha)`` in turn (one rounding).
# The others finish with ``alpha * dot`` or ``beta * c + alpha * dot`` in float32 (beta * c
# fused into the sum: one rounding). Products
# of two float16 or bfloat16 values are exact in float32, so a fused multiply-add changes
# nothing there. NumPy's float16 matmul and a float32 gemm of bfloat16 values sum in other
# orders: 1 in 15 float16 addmm results and 1 in 8 bfloat16 ones with a beta and alpha
# differed from torch's. This replays the loops vectorised over the result's elements (k / 4,
# k / 64 or k NumPy steps) up to _REPLAY_LIMIT multiply-adds (about 2 ms at most); larger
# products are one float32 gemm of the widened values, rounded once: as exact as torch's
# float32 sums but in MKL's order, so an occasional last bit differs (the replay of
# (32 x 784) @ (784 x 256) took 41-78 ms against torch's 1 ms; the gemm takes 0.4 ms, where
# NumPy's own float16 matmul took 108 ms).
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_REDUCED = ("float16", "bfloat16")
_REDUCED_CHARS = ("e", "E")  # the same as NumPy dtype chars (``name`` is a Python property)
_REPLAY_LIMIT = 1 << 16
_BLOCK_ELEMENTS = 1 << 21  # floats of one (lanes, rows, n) temporary


def _fold8(lanes: np.ndarray) -> np.ndarray:
    """AVX2's vec_reduce_all of 8 float32 lanes (axis 0): the 128-bit, 64-bit, 32-bit
    shuffles."""
    pairs = lanes[:4] + lanes[4:]
    return (pairs[0] + pairs[2]) + (pairs[1] + pairs[3])


def _dot_four_sums(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    m, k = left.shape
    n = right.shape[1]
    sums = np.zeros((4, m, n), _F32)
    full = k - k % 4
    if full:
        left4 = left[:, :full].T.reshape(full // 4, 4, m, 1)  # [j, q] = column 4j + q
        right4 = right[:full].reshape(full // 4, 4, 1, n)
        term = np.empty((4, m, n), _F32)
        for j in range(full // 4):
            np.multiply(left4[j], right4[j], out=term)
            sums += term
    for index in range(full, k):
        sums[0] += np.multiply.outer(left[:, index], right[index])
    return ((sums[0] + sums[1]) + sums[2]) + sums[3]


def _dot_vectorised(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    m, k = left.shape
    n = right.shape[1]
    main = k & ~63
    if main:
        sums = np.zeros((64, m, n), _F32)
        term = np.empty((64, m, n), _F32)
        for start in range(0, main, 64):
            np.multiply(left[:, start:start + 64].T[:, :, None], right[start:start + 64, None, :],
                        out=term)
            sums += term
        registers = sums.reshape(8, 8, m, n)  # [register, lane]
        registers = registers[:4] + registers[4:]
        registers = registers[:2] + registers[2:]
        total = _fold8(registers[0] + registers[1])
    else:
        total = np.zeros((m, n), _F32)
    vectors = k & ~15
    lanes = np.zeros((8, m, n), _F32)
    for start in range(main, vectors, 16):
        lanes += left[:, start:start + 8].T[:, :, None] * right[start:start + 8, None, :]
        lanes += left[:, start + 8:start + 16].T[:, :, None] * right[start + 8:start + 16, None, :]
    total = total + _fold8(lanes)
    for index in range(vectors, k):
        total += np.multiply.outer(left[:, index], right[index])
    return total


def _reduced_gemm(a: np.ndarray, b: np.ndarray, c=None, beta=0, alpha=1) -> np.ndarray:
    """``beta * c + alpha * (a @ b)`` for float16/bfloat16 matrices as torch computes it (see
    Note: half-precision gemm; past the replay limit, a float32 gemm rounded once); ``c``
    broadcasts to the result (unused when beta is 0)."""
    dtype = a.dtype
    m, k = a.shape
    n = b.shape[1]
    alpha32, beta32 = np.float32(alpha), np.float32(beta)
    bias = None if beta == 0 else np.broadcast_to(np.asarray(c).astype(_F32), (m, n))
    if m * n * k > _REPLAY_LIMIT or (dtype.name == "bfloat16" and _isa.ONEDNN_BF16
                                     and m * n * k > _isa.ONEDNN_MIN_PRODUCTS):
        # (past the replay limit; or oneDNN's bfloat16 gemm: one float32 sum rounded once)
        product = _matmul(a.astype(_F32), b.astype(_F32))
        scaled = product * alpha32 if alpha != 1 else product
        return (scaled if bias is None else bias * beta32 + scaled).astype(dtype)
    if m == 0 or n == 0 or k == 0:
        if bias is None:
            return np.zeros((m, n), dtype)
        # no product: torch scales the bias copy in place (mul_), beta rounded to the dtype
        return (bias * np.float32(np.float32(beta).astype(dtype))).astype(dtype)
    # how torch hands the operands to its loop (Note: torch's gemm call, ops/_blas.py)
    swap = n != 1
    first, second = (b, a) if swap else (a, b)
    rows, cols = (n, m) if swap else (m, n)
    transposed_first = _blas._operand(first, swap, rows, k)[1]
    transposed_second = _blas._operand(second, swap, k, cols)[1]
    left = np.ascontiguousarray(a, dtype=_F32)
    right = np.ascontiguousarray(b, dtype=_F32)
    if transposed_second and not transposed_first:
        # the frame's second operand (a when swapped) is scaled by alpha before each product
        if alpha != 1:
            if swap:
                left = left * alpha32
            else:
                right = right * alpha32
        total = np.zeros((m, n), _F32) if bias is None else (
            bias.copy() if beta == 1 else bias * beta32)
        for index in range(k):
            if alpha == 1:  # the product of two float16 values is exact in float32
                total += np.multiply.outer(left[:, index], right[index])
            else:  # a fused multiply-add: one rounding (the product is exact in float64)
                total = (total.astype(_F64) + np.multiply.outer(
                    left[:, index].astype(_F64), right[index].astype(_F64))).astype(_F32)
        return total.astype(dtype)
    dot = _dot_vectorised if transposed_first and not transposed_second else _dot_four_sums
    step = max(1, _BLOCK_ELEMENTS // (64 * n))
    parts = [dot(left[start:start + step], right) for start in range(0, m, step)]
    total = parts[0] if len(parts) == 1 else np.concatenate(parts)
    scaled = total * alpha32 if alpha != 1 else total
    if bias is None:
        return scaled.astype(dtype)
    if beta == 1:
        return (bias + scaled).astype(dtype)
    # the compiler fuses beta * c into the sum: fma(beta, c, alpha * dot), one rounding
    return (bias.astype(_F64) * float(beta32) + scaled).astype(_F32).astype(dtype)


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The product of two matrices: MKL's gemm called as torch calls it where the ``mkl``
    package is installed (Note: torch's gemm call, ops/_blas.py), NumPy's otherwise; float16
    and bfloat16 as torch's own loops compute them (Note: half-precision gemm)."""
    if a.dtype.char in _REDUCED_CHARS and a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype:
        return _reduced_gemm(a, b)
    if _blas.off():
        return a @ b
    result = _blas.mm(a, b)
    return a @ b if result is None else result


# Note: gradient layout
# torch's mm_mat1_backward / mm_mat2_backward return a column-major gradient for a column-major
# (transposed) input: grad.t().mm(mat1).t() instead of mat1.t().mm(grad). nn.Linear passes
# weight.t(), so its weight gradient arrives contiguous in the weight's own layout and the leaf
# can keep it without a copy (benchmarks/bench_train.py, mlp32). Same arithmetic as torch's.
def _column_major(a: np.ndarray) -> bool:
    return a.ndim == 2 and a.strides[0] == a.itemsize and a.strides[1] == a.shape[0] * a.itemsize


def _mat1_grad(grad, mat2, column_major: bool):
    if column_major:
        return conj(mat2).mm(grad.t()).t()
    return grad.mm(conj(mat2).t())


def _mat2_grad(grad, mat1, column_major: bool):
    if column_major:
        return grad.t().mm(conj(mat1)).t()
    return conj(mat1).t().mm(grad)


def _mm_grads_on_arrays(node, grad, first: int):
    """``_mat1_grad`` and ``_mat2_grad`` for a real product that records nothing: the same
    BLAS calls on the arrays (so the same bits), the transposes as NumPy views, one Tensor per
    gradient (benchmarks/bench_train.py, mlp32: an nn.Linear backward without the mm, t and
    view dispatches). ``first`` is the index of mat1 among the node's inputs. None (take the
    Tensor formulas) for complex products or a gradient of another dtype."""
    g = grad._data
    if g.dtype.kind == "c" or g.ndim != 2:
        return None
    children = node._next_nodes
    grad_a = grad_b = None
    if children[first] is not None:
        mat2 = node.saved("mat2")._data
        if mat2.dtype is not g.dtype:
            return None
        grad_a = _wrap(_matmul(mat2, g.T).T if node.saved("layouts")[0] else _matmul(g, mat2.T))
    if children[first + 1] is not None:
        mat1 = node.saved("mat1" if first else "self")._data
        if mat1.dtype is not g.dtype:
            return None
        grad_b = _wrap(_matmul(g.T, mat1).T if node.saved("layouts")[1] else _matmul(mat1.T, g))
    return grad_a, grad_b


@register
class Mv(Op):
    node = "MvBackward0"
    uint_kernel = "addmv_impl_cpu"
    complex_ok = True
    vmap = batch.matmul_like
    inputs = ("self", "vec")
    saves = {"self": ("vec",), "vec": ("self",)}
    torch_names = ("mv", "matmul")

    @staticmethod
    def forward(ctx, a, v):
        if a.ndim != 2 or v.ndim != 1:
            raise RuntimeError(
                f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}"
            )
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                f"vec ({v.shape[0]})"
            )
        if a.dtype != v.dtype:  # torch's mv is addmv into a vec-typed result

            names = [from_numpy_dtype(d)._legacy for d in (v.dtype, a.dtype, v.dtype)]
            raise RuntimeError("addmv input tensors must have the same dtype, but got "
                               f"{names[0]}, {names[1]}, and {names[2]}")
        if a.dtype.kind == "b":
            _refuse_bool(a, "addmv_impl_cpu", a.shape[0], a.shape[1])
        result = _blas.mv(a, v)  # MKL's gemv as torch calls it, where installed
        return a @ v if result is None else result

    def backward(self, grad):
        grad_self = grad_vec = None
        if on_arrays():  # Note: array-level backwards (activation.py): the same calls, unwrapped
            g = grad._data
            children = self._next_nodes
            if g.dtype.kind == "f":
                if children[0] is not None:
                    vec = self.saved("vec")._data
                    if vec.dtype is g.dtype:
                        grad_self = plain_apply(Mul, g.reshape(g.shape[0], 1), vec)
                if children[1] is not None:
                    mat = self.saved("self")._data
                    if mat.dtype is g.dtype:
                        # Mv.forward's BLAS call without its checks (the shapes are the
                        # forward's), or that forward where BLAS does not serve it
                        out = _blas.mv(mat.T, g) if g.ndim == 1 else None
                        grad_vec = _wrap(out) if out is not None else plain_apply(Mv, mat.T, g)
                if (grad_self is not None or children[0] is None) \
                        and (grad_vec is not None or children[1] is None):
                    return grad_self, grad_vec
        if self.needs_grad(0):
            # torch: grad.ger(vec.conj()), and ger is outer: reshape(n, 1) * vec (ViewBackward0)
            grad_self = grad.reshape(grad.shape[0], 1) * conj(self.saved("vec"))
        if self.needs_grad(1):
            grad_vec = conj(self.saved("self")).t().mv(grad)
        return grad_self, grad_vec

    def jvp(self, tangents, primals, result):
        a, v = primals  # torch: mv(self_t, vec_p) + mv(self_p, vec_t)
        return jvp_sum(tangents, lambda t: t.mv(v), lambda t: a.mv(t))


def _vectors_error(a, b, name: str):
    """torch's checks for dot/vdot, in its order (dims, dtypes, sizes) and words; None if the
    operands pass."""
    if a.ndim != 1 or b.ndim != 1:
        return RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        return RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                            f"{_legacy(a)} and {_legacy(b)}")
    if a.shape[0] != b.shape[0]:
        return RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
            f"to have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
            "elements respectively"
        )
    return None


def _check_vectors(a, b, name: str) -> None:
    error = _vectors_error(a, b, name)
    if error is not None:
        raise error


@register
class Dot(Op):
    node = "DotBackward0"
    uint_same_dtype = True  # torch checks that the operands' dtypes agree first
    uint_kernel = "dot"
    complex_ok = True
    vmap = batch.matmul_like
    inputs = ("self", "tensor")
    saves = {"self": ("tensor",), "tensor": ("self",)}
    torch_names = ("dot", "matmul")
    # (the checks on the bfloat16 operands, before they are widened: Note: opmath for bfloat16)
    bfloat16_kernel = staticmethod(lambda arrays, params: _vectors_error(*arrays[:2], "dot"))

    @staticmethod
    def forward(ctx, a, b):
        _check_vectors(a, b, "dot")
        if a.dtype.kind == "b":
            _refuse_bool(a, "dot", 1, 1)  # (dot dispatches before looking at the sizes)
        result = _blas.dot(a, b)  # MKL's dot as torch calls it, where installed
        return np.asarray(np.dot(a, b)) if result is None else result

    def backward(self, grad):
        grad_self = grad_other = None
        if self.needs_grad(0):
            grad_self = grad * conj(self.saved("tensor"))
        if self.needs_grad(1):
            grad_other = grad * conj(self.saved("self"))
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        a, b = primals  # torch: dot(self_t, tensor_p) + dot(self_p, tensor_t)
        return jvp_sum(tangents, lambda t: t.dot(b), lambda t: a.dot(t))


@register
class Vdot(Op):
    """``vdot(a, b)`` = sum(conj(a) * b); ``dot`` for real vectors."""

    node = "VdotBackward0"
    uint_kernel = "dot"
    complex_ok = True
    vmap = batch.matmul_like
    inputs = ("self", "other")
    saves = {"self": ("other",), "other": ("self",)}
    torch_names = ("vdot",)
    bfloat16_kernel = staticmethod(lambda arrays, params: _vectors_error(*arrays[:2], "dot"))

    @staticmethod
    def forward(ctx, a, b):
        # (torch's vdot of a real self is at::dot, whose checks name "dot")
        _check_vectors(a, b, "vdot" if a.dtype.kind == "c" else "dot")
        if a.dtype.kind == "b":
            _refuse_bool(a, "dot", 1, 1)
        result = _blas.dot(a, b, conjugate=True)  # MKL's dot/dotc as torch calls it
        return np.asarray(np.vdot(a, b)) if result is None else result

    def backward(self, grad):
        # derivatives.yaml: self: grad.conj() * other, other: grad * self
        grad_self = grad_other = None
        if self.needs_grad(0):
            grad_self = conj(grad) * self.saved("other")
        if self.needs_grad(1):
            grad_other = grad * self.saved("self")
        return grad_self, grad_other

    def jvp(self, tangents, primals, result):
        a, b = primals
        return jvp_sum(tangents, lambda t: Vdot.apply(t, b), lambda t: Vdot.apply(a, t))


def _refuse_bool(a: np.ndarray, kernel: str, out_size: int, inner: int) -> None:
    """torch's product kernels have no bool version; they return before dispatching when the
    result is empty or the inner dimension is (a result of zeros)."""
    if a.dtype.kind == "b" and out_size and inner:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


_C_TYPES = {"float64": "double", "float32": "float", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "int64": "int64_t", "int32": "int", "int16": "int16_t",
            "int8": "int8_t", "uint8": "uint8_t"}


def real_scalars(dtype: np.dtype, opmath: bool, *scalars, kernel: str | None = None):
    """The add*mm family's ``beta``/``alpha`` for a kernel of ``dtype``: complex numbers stay
    for complex kernels; a real kernel converts them to its scalar type, where torch's checked
    conversion calls a nonzero imaginary part an overflow (naming the C type: ``float`` for the
    float16 kernels computing in float, ``opmath``) and drops a zero one; integer kernels
    truncate floats. A bool kernel is refused with ``kernel``'s NotImplementedError, where given
    (torch has none for addmv and baddbmm)."""
    if dtype.kind == "c":
        return scalars
    if dtype.kind == "b":
        if kernel is not None:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
        return scalars
    converted = []
    for value in scalars:
        if isinstance(value, complex):
            if value.imag != 0:
                name = np.dtype(dtype).name
                kind = "float" if opmath and name in ("float16", "bfloat16") else _C_TYPES.get(
                    name, name)
                raise RuntimeError(f"value cannot be converted to type {kind} without overflow")
            value = value.real
        if dtype.kind in "iu" and not isinstance(value, bool):
            value = int(value)
        converted.append(value)
    return tuple(converted)


@register
class Addmm(Op):
    """``beta * self + alpha * (mat1 @ mat2)``; ``nn.functional.linear`` uses it with a bias."""
    autocast = "lower_precision_fp"  # torch's CPU autocast list

    node = "AddmmBackward0"
    uint_kernel = "addmm_impl_cpu_"
    complex_ok = True
    vmap = batch.addmm
    inputs = ("self", "mat1", "mat2")
    saves = {"mat1": ("mat2",), "mat2": ("mat1",), "layouts": ("mat1", "mat2")}
    saved_computed = {"mat1_sym_sizes": _operand_sizes(1), "mat2_sym_sizes": _operand_sizes(2),
                      "mat1_sym_strides": _operand_strides(1, "mat1"),
                      "mat2_sym_strides": _operand_strides(2, "mat2")}
    broadcasts = True
    torch_names = ("addmm", "nn.functional.linear")
    bfloat16_native = "always"  # Note: half-precision gemm

    @staticmethod
    def forward(ctx, bias, a, b, beta=1, alpha=1):
        if ctx is not None:
            ctx.keep("layouts", (_column_major(a), _column_major(b)))
        if isinstance(beta, complex) or isinstance(alpha, complex) or a.dtype.kind in "biu":
            beta, alpha = real_scalars(np.result_type(a, b), True, beta, alpha,
                                       kernel="addmm_impl_cpu_")
        fused = _addmm_mkl(bias, a, b, beta, alpha)
        if fused is not None:
            return fused
        if a.dtype.char in _REDUCED_CHARS and a.ndim == 2 and b.ndim == 2 \
                and a.dtype == b.dtype == bias.dtype and a.shape[1] == b.shape[0] \
                and np.broadcast_shapes(bias.shape, (a.shape[0], b.shape[1])) \
                == (a.shape[0], b.shape[1]):
            return _reduced_gemm(a, b, bias, beta, alpha)  # Note: half-precision gemm
        product = Mm.forward(None, a, b)
        if alpha != 1:
            product = product * alpha
        if beta == 0:
            return np.broadcast_to(product, np.broadcast_shapes(bias.shape, product.shape)).copy()
        shape = bias.shape
        if (shape != product.shape and shape != product.shape[1:]  # nn.Linear's bias: no call
                and np.broadcast_shapes(shape, product.shape) != product.shape):
            raise RuntimeError(
                f"The expanded size of the tensor ({product.shape[-1]}) must match the existing "
                f"size ({bias.shape[-1]}) at non-singleton dimension {bias.ndim - 1}.  Target "
                f"sizes: {list(product.shape)}.  Tensor sizes: {list(bias.shape)}"
            )
        addend = bias * beta if beta != 1 else bias
        if getattr(addend, "dtype", None) == product.dtype:
            # the product is a fresh array nothing else holds: add in place, saving a
            # batch x out temporary (benchmarks/bench_train.py, mlp512)
            return np.add(product, addend, out=product)
        return product + addend

    @staticmethod
    def capture_kernel(bias, a, b, out):
        # beta = alpha = 1 (the replay checks): as forward computes it, into the buffer
        if bias.dtype == a.dtype and bias.ndim <= 2:
            fused = _blas.addmm(bias, a, b, 1, 1, out)
            if fused is not None:
                return fused
        product = np.matmul(a, b, out=out)
        return np.add(product, bias, out=product)

    def backward(self, grad):
        p = self._params
        alpha, beta = p.get("alpha", 1), p.get("beta", 1)
        if alpha == 1 and beta == 1 and on_arrays():  # Note: array-level backwards
            grads = _mm_grads_on_arrays(self, grad, 1)
            if grads is not None:
                # the bias gradient is ``grad``, summed to the bias's shape by Op._apply
                return (grad if self.needs_grad(0) else None,) + grads
        grad_bias = grad_a = grad_b = None
        if self.needs_grad(0):
            # torch: maybe_multiply(grad, beta.conj()), a Scalar product (MulBackward1)
            grad_bias = grad if beta == 1 else _scale(grad, conj(beta))
        if self.needs_grad(1):
            grad_a = _mat1_grad(grad, self.saved("mat2"), self.saved("layouts")[0])
            grad_a = grad_a if alpha == 1 else _scale(grad_a, conj(alpha))
        if self.needs_grad(2):
            grad_b = _mat2_grad(grad, self.saved("mat1"), self.saved("layouts")[1])
            grad_b = grad_b if alpha == 1 else _scale(grad_b, conj(alpha))
        return grad_bias, grad_a, grad_b

    def jvp(self, tangents, primals, result):
        # torch: beta * self_t + alpha * mat1_t.mm(mat2_p) + alpha * mat1_p.mm(mat2_t)
        _, a, b = primals
        alpha, beta = self._params.get("alpha", 1), self._params.get("beta", 1)
        return jvp_sum(tangents, lambda t: t if beta == 1 else t * beta,
                       lambda t: t.mm(b) if alpha == 1 else t.mm(b) * alpha,
                       lambda t: a.mm(t) if alpha == 1 else a.mm(t) * alpha)


def _addmm_mkl(bias, a, b, beta, alpha):
    """Addmm's forward as torch's kernel computes it, the bias inside MKL's gemm call
    (Note: torch's gemm call, ops/_blas.py), after Mm's and the bias's checks; None where
    MKL does not serve it (no mkl package, other dtypes, complex or non-number scalars)."""
    if _blas.off():
        return None
    if (not isinstance(bias, np.ndarray) or bias.dtype != a.dtype or a.ndim != 2 or b.ndim != 2
            or a.dtype.char not in "fd" or a.shape[1] != b.shape[0] or b.dtype != a.dtype
            or bias.ndim > 2 or type(beta) not in (int, float) or type(alpha) not in (int, float)):
        return None
    shape = (a.shape[0], b.shape[1])
    if bias.shape != shape and bias.shape != shape[1:]:
        try:
            if np.broadcast_shapes(bias.shape, shape) != shape:
                return None  # the NumPy path raises torch's error
        except ValueError:
            return None
    return _blas.addmm(bias, a, b, beta, alpha)


def _legacy(a: np.ndarray) -> str:
    return from_numpy_dtype(a.dtype)._legacy


@register
class Bmm(Op):
    autocast = "lower_precision_fp"  # torch's CPU autocast list
    node = "BmmBackward0"
    uint_kernel = "bmm"
    complex_ok = True
    vmap = batch.matmul_like
    inputs = ("self", "mat2")
    saves = {"self": ("mat2",), "mat2": ("self",)}
    torch_names = ("bmm", "matmul")
    bfloat16_native = "always"  # Note: half-precision gemm

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if b.ndim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
            raise RuntimeError(
                "Expected size for first two dimensions of batch2 tensor to be: "
                f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."
            )
        if a.dtype != b.dtype:
            raise RuntimeError(f"expected scalar type {from_numpy_dtype(a.dtype)._legacy} but "
                               f"found {from_numpy_dtype(b.dtype)._legacy}")
        if a.dtype.kind == "b":
            _refuse_bool(a, "bmm", a.shape[0] * a.shape[1] * b.shape[2], a.shape[2])
        if a.shape[2] == 1:
            # a batch of outer products (per-example weight gradients under vmap): one product
            # per element, the same values as matmul's, ~1.5x faster than its k=1 GEMMs
            # (benchmarks/bench_func.py); torch's sums start at +0., so no element is -0.
            # (row-major: NumPy's result follows a transposed operand's layout, torch's bmm
            # result is a fresh row-major tensor, and a dropout after it draws in memory
            # order: generated-program seed 162366)
            out = np.multiply(a, b, order="C")
            if out.dtype.kind in "fc":
                out += 0.0
            return out
        return _bmm(a, b)

    def backward(self, grad):
        grad_self = grad_mat2 = None
        if self.needs_grad(0):
            grad_self = grad.bmm(conj(self.saved("mat2")).transpose(1, 2))
        if self.needs_grad(1):
            grad_mat2 = conj(self.saved("self")).transpose(1, 2).bmm(grad)
        return grad_self, grad_mat2

    def jvp(self, tangents, primals, result):
        a, b = primals  # torch: self_t.bmm(mat2_p) + self_p.bmm(mat2_t)
        return jvp_sum(tangents, lambda t: t.bmm(b), lambda t: a.bmm(t))


def _bmm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's bmm kernel for real floats (ATen's bmm_out_or_baddbmm_): when
    ``k * m * n < 400`` its own loop, each element ``sum += a[i, k] * b[k, j]`` in order with
    the product rounded (NumPy's add.accumulate over the products is that sum); larger ones
    one gemm per matrix, made as torch makes it (ops/_blas.py) where MKL is installed."""
    batch, m, k = a.shape
    n = b.shape[2]
    if a.dtype.char in _REDUCED_CHARS and b.dtype == a.dtype:
        return _reduced_bmm(a, b)
    if a.dtype.kind != "f" or b.dtype != a.dtype or a.dtype.itemsize < 4:
        return np.matmul(a, b)
    if k * m * n < 400:
        if not (batch and m and n and k):
            return np.matmul(a, b)  # zeros (k == 0) or an empty result
        products = np.multiply(a[:, :, :, None], b[:, None, :, :])
        # (a copy, not ascontiguousarray: NumPy calls a slice with size-1 dims contiguous
        # whatever its strides there, and torch's fresh (1, 1, n) result has strides (n, n, 1)
        # where the slice had (k * n, k * n, 1): generated-program seeds 142170, 152286, 158940
        # (a later 1-d @ 3-d product folds to mv on torch's strides))
        out = np.add.accumulate(products, axis=2)[:, :, -1, :].copy()
        out += 0.0  # torch's sum starts at +0.: a sum of zeros is +0. even if they are all -0.
        return out
    if batch:
        out = np.empty((batch, m, n), a.dtype)
        if _blas.gemm_batch(out, a, b) is not None:  # torch's MKL batch (Note: add*bmm)
            return out
    if batch and _blas.mm(a[0], b[0]) is not None:
        out = np.empty((batch, m, n), a.dtype)
        for index in range(batch):
            _blas.mm(a[index], b[index], out[index])
        return out
    return np.matmul(a, b)


def _reduced_bmm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float16/bfloat16 bmm as torch's kernel: below 400 multiply-adds per matrix its own loop,
    each element's products added in order to a float32 sum from +0. and rounded once; larger
    ones one gemm per matrix (Note: half-precision gemm)."""
    batch, m, k = a.shape
    n = b.shape[2]
    dtype = a.dtype
    if not (batch and m and n and k):
        return np.zeros((batch, m, n), dtype)
    if k * m * n < 400:
        left, right = a.astype(_F32), b.astype(_F32)
        total = np.zeros((batch, m, n), _F32)
        for index in range(k):
            total += left[:, :, index, None] * right[:, None, index, :]
        return total.astype(dtype)
    return np.stack([_reduced_gemm(a[index], b[index]) for index in range(batch)])


# Note: the add*bmm kernels
# torch's baddbmm (bmm_out_or_baddbmm_) fills the result with self expanded, then: with an
# empty inner dim, scales it in place (``mul_(beta)``: the dtype's multiply by the number, zeros
# for beta 0); below 400 multiply-adds per matrix, its own loop: each element's products added
# in order from +0. in opmath (float32 for float16/bfloat16), then ``r * beta + alpha * sum``
# (separate roundings: that file is built without FMA), ``alpha * sum`` for beta 0; larger,
# one gemm per matrix with beta inside the call (MKL's gemm_batch or addmm_, the same call per
# matrix as Addmm's). addbmm (addbmm_impl_) copies self expanded to (n, p), then runs
# ``addmm_`` once per matrix into it, beta on the first only: rounding after each matrix. A
# batched matmul added to a scaled bias afterwards (as before) matched torch's bits on 4 in 5
# float32 elements.
def _scaled_copy(bias: np.ndarray, beta) -> np.ndarray:
    """torch's result for an empty product: self copied row-major, then ``mul_(beta)`` (the
    dtype's product with the number) or ``zero_()`` for beta 0."""
    result = np.array(bias, order="C")
    if beta == 0:
        result[...] = 0
    elif beta != 1:
        np.multiply(result, beta, out=result, casting="unsafe")
    return result


def baddbmm_float(bias: np.ndarray, a: np.ndarray, b: np.ndarray, beta, alpha) -> np.ndarray:
    """torch's baddbmm for real floating (and float16/bfloat16) operands of one dtype; ``bias``
    already broadcastable to the result (Note: the add*bmm kernels)."""
    batch, m, k = a.shape
    n = b.shape[2]
    dtype = a.dtype
    shape = (batch, m, n)
    if not (batch and m and n):
        return np.empty(shape, dtype)
    if k == 0:
        return _scaled_copy(np.broadcast_to(bias, shape), beta)
    if k * m * n < 400:
        wide = dtype.char in _REDUCED_CHARS
        work = _F32 if wide else dtype
        left, right = (a.astype(_F32), b.astype(_F32)) if wide else (a, b)
        products = np.multiply(left[:, :, :, None], right[:, None, :, :])
        total = np.add.accumulate(products, axis=2)[:, :, -1, :] + work.type(0)
        scale = work.type(alpha)
        if beta == 0:
            result = total * scale
        else:
            result = np.broadcast_to(bias, shape).astype(work) * work.type(beta) + total * scale
        return np.ascontiguousarray(result, dtype=dtype)  # (torch's result: a fresh row-major)
    whole = np.broadcast_to(bias, shape)
    if dtype.kind == "f" and not _blas.off():
        # one result array written in place, beta inside the calls: MKL's batched gemm where
        # torch calls it, else one gemm per matrix into its slice (as torch's addmm_)
        out = np.empty(shape, dtype)
        if beta != 0:
            np.copyto(out, whole)
        if _blas.gemm_batch(out, a, b, beta, alpha) is not None:
            return out
        for index in range(batch):
            if _blas.addmm(out[index], a[index], b[index], beta, alpha, out[index]) is None:
                break
        else:
            return out
    return np.stack([Addmm.forward(None, whole[index], a[index], b[index], beta=beta,
                                   alpha=alpha) for index in range(batch)])


def addbmm_float(bias: np.ndarray, a: np.ndarray, b: np.ndarray, beta, alpha) -> np.ndarray:
    """torch's addbmm for real floating operands of one dtype; ``bias`` broadcastable to the
    (n, p) result (Note: the add*bmm kernels)."""
    bias = np.broadcast_to(bias, (a.shape[1], b.shape[2]))
    if a.shape[0] == 0:
        return _scaled_copy(bias, beta)
    result = np.array(bias, order="C")  # a fresh row-major copy, written in place below
    scale = beta
    for index in range(a.shape[0]):
        done = None
        if result.dtype.kind == "f" and not _blas.off():
            done = _blas.addmm(result, a[index], b[index], scale, alpha, result)
        result = done if done is not None else Addmm.forward(
            None, result, a[index], b[index], beta=scale, alpha=alpha)
        scale = 1
    return result


def matmul(a, b):
    """torch.matmul: dispatch on dimensions the way ATen does, so node names match."""
    if _profiling.active:  # (torch's profiler shows aten::matmul around its kernel)
        return _profiling.scoped("aten::matmul", _matmul_dims, (a, b))
    return _matmul_dims(a, b)


def _matmul_dims(a, b):
    if autocast_state.active:  # torch's CPU autocast casts at matmul, before its reshapes
        a, b = autocast_state.cast_args("lower_precision_fp", (a, b))

    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return Dot.apply(a, b)
    if da == 2 and db == 1:
        return Mv.apply(a, b)
    if da == 1 and db == 2:
        out = SqueezeLast.apply(Mm.apply(a.unsqueeze(0), b), dim=0)
        out._bump_version()  # torch squeezes in place (squeeze_), which counts as a write
        return out
    if da == 2 and db == 2:
        return Mm.apply(a, b)
    if da == 3 and db == 3:
        # A batch of one that requires grad is squeezed to a matrix so that the fold below
        # applies (observed in torch 2.13: SqueezeBackward1 under MmBackward0).
        if b.shape[0] == 1 and a.shape[0] != 1 and b._may_require_grad():
            return _matmul_dims(a, b.squeeze(0))
        if a.shape[0] == 1 and b.shape[0] != 1 and a._may_require_grad():
            return _matmul_dims(a.squeeze(0), b)
    if _should_fold(a, b):
        return _folded(a, b)
    return _batched(a, b)


def _should_fold(a, b) -> bool:
    """ATen's should_fold: fold the larger operand's batch into rows and call mm/mv when that
    needs no copy, or when the smaller operand requires grad (a smaller backward)."""
    larger_first = a.ndim >= b.ndim
    big = a if larger_first else b
    small = b if larger_first else a
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small._may_require_grad():
        return True
    if a.ndim == 2:
        return False  # folding would need a transposed, then copied, result
    shape = list(big.shape)
    strides = list(big.stride())
    if not larger_first:  # big is b.mT
        shape[-1], shape[-2] = shape[-2], shape[-1]
        strides[-1], strides[-2] = strides[-2], strides[-1]
    if 0 in shape:
        return True
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _folded(a, b):
    transpose = b.ndim > a.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    output_shape = tuple(t1.shape[:-1])
    rows = int(np.prod(output_shape)) if output_shape else 1
    folded = t1.reshape(rows, t1.shape[-1])
    if t2.ndim == 2:
        output = UnsafeView.apply(Mm.apply(folded, t2), shape=output_shape + (t2.shape[1],))
        return output.mT.contiguous() if transpose else output
    return UnsafeView.apply(Mv.apply(folded, t2), shape=output_shape)


def _batched(a, b):
    """Broadcast the batch dims, flatten them into one and call bmm (ATen's general case)."""
    da, db = a.ndim, b.ndim
    n = a.shape[-2] if da > 1 else 1
    m1 = a.shape[-1]
    batch1 = tuple(a.shape[:max(da - 2, 0)])
    m2 = b.shape[-2] if db > 1 else b.shape[0]
    p = b.shape[-1] if db > 1 else 1
    batch2 = tuple(b.shape[:max(db - 2, 0)])
    try:
        batch = tuple(np.broadcast_shapes(batch1, batch2))
    except ValueError:
        raise RuntimeError(_batch_mismatch(batch1, batch2)) from None
    count = int(np.prod(batch)) if batch else 1
    left = a.expand(*batch, n, m1).reshape(count, n, m1)
    output_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    if db == 1:
        right = b.expand(*batch, m2).reshape(count, m2, 1)
        return UnsafeView.apply(Bmm.apply(left, right).squeeze(-1), shape=output_shape)
    right = b.expand(*batch, m2, p).reshape(count, m2, p)
    return UnsafeView.apply(Bmm.apply(left, right), shape=output_shape)


def _batch_mismatch(sa, sb) -> str:
    sa, sb = list(sa), list(sb)
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            return (
                f"The size of tensor a ({sa[-i]}) must match the size of tensor b ({sb[-i]}) at "
                f"non-singleton dimension {max(len(sa), len(sb)) - i}"
            )
    return "batch dimensions mismatch"
