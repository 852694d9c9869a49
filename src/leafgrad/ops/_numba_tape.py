"""One compiled loop that runs a replay's run of small elementwise kernels (Note: fused
elementwise runs, _compile/fuse.py), imported only where numba is installed.

A run is a list of instructions ``(opcode, destination, a, b)`` over the rows of a workspace
(``ws``, one row per value, every row the same number of elements of one dtype); ``b`` names a
row, an entry of ``consts`` (the ``_C`` forms: a Python number operand as a 0-d array of the
row dtype, on the right or, ``C_``, on the left) or, for ``VML``, an entry of ``functions``:
the address of MKL's vector function, called as ``_mkl.kernel`` calls it (the operand copied
into the destination, then computed in place, in ATen's mode). Each instruction is the NumPy
call the replay would make (one IEEE operation per element, in the same order, without
fastmath: the same bits), or the NumPy steps of ``_float_kernels.tanh_backward``."""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._float_kernels import _SPLIT
from ._mkl import _MODE

_F32 = np.float32
_F64 = np.float64

_jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")

# opcodes (the instruction's first column)
ADD, SUB, MUL, DIV = 0, 1, 2, 3
ADD_C, SUB_C, MUL_C, DIV_C = 4, 5, 6, 7  # row op consts[b]
C_ADD, C_SUB, C_MUL, C_DIV = 8, 9, 10, 11  # consts[b] op row
NEG = 12
VML = 13  # MKL's function functions[b] of row a
TANH_BACKWARD = 14  # tanh_backward(grad=row a, y=row b)

BINARY = {np.add: ADD, np.subtract: SUB, np.multiply: MUL, np.true_divide: DIV}
UNARY = {np.negative: NEG}

_MODE_VALUE = np.int64(_MODE)


@intrinsic
def _call_vml(typingctx, address, count, pointer, mode):
    """``function(count, pointer, pointer, mode)`` for the C function at ``address``:
    ``void f(int n, const T *a, T *y, int64 mode)``, MKL's vm?<Name> calls."""
    signature = types.void(types.int64, types.int64, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        address_value, count_value, pointer_value, mode_value = args
        bytes_pointer = ir.IntType(8).as_pointer()
        function_type = ir.FunctionType(ir.VoidType(), [ir.IntType(32), bytes_pointer,
                                                        bytes_pointer, ir.IntType(64)])
        function = builder.inttoptr(address_value, function_type.as_pointer())
        data = builder.inttoptr(pointer_value, bytes_pointer)
        builder.call(function, [builder.trunc(count_value, ir.IntType(32)), data, data,
                                mode_value])
        return context.get_dummy_value()

    return signature, codegen


@_jit
def run(code, ws, consts, functions, wide):
    """Execute ``code`` over ``ws`` (see the module docstring); ``wide``: ws is float64."""
    n = ws.shape[1]
    row_bytes = n * ws.itemsize
    base = ws.ctypes.data
    for k in range(code.shape[0]):
        op = code[k, 0]
        d = code[k, 1]
        a = code[k, 2]
        b = code[k, 3]
        if op == MUL:
            for i in range(n):
                ws[d, i] = ws[a, i] * ws[b, i]
        elif op == ADD:
            for i in range(n):
                ws[d, i] = ws[a, i] + ws[b, i]
        elif op == MUL_C:
            c = consts[b]
            for i in range(n):
                ws[d, i] = ws[a, i] * c
        elif op == VML:
            if d != a:
                for i in range(n):
                    ws[d, i] = ws[a, i]
            _call_vml(functions[b], n, base + d * row_bytes, _MODE_VALUE)
        elif op == TANH_BACKWARD:
            if wide:  # the Dekker steps of _float_kernels.tanh_backward's float64 path
                for i in range(n):
                    y = _F64(ws[b, i])
                    p = y * y
                    scaled = y * _SPLIT
                    high = scaled - (scaled - y)
                    low = y - high
                    tail = high * high - p
                    tail += 2 * high * low
                    tail += low * low
                    head = 1.0 - p
                    tail = ((1.0 - head) - p) - tail
                    head += tail
                    ws[d, i] = _F64(ws[a, i]) * head
            else:  # 1 - y * y in float64 (y * y exact), rounded once to float32
                for i in range(n):
                    y = _F64(ws[b, i])
                    ws[d, i] = ws[a, i] * _F32(1.0 - y * y)
        elif op == SUB:
            for i in range(n):
                ws[d, i] = ws[a, i] - ws[b, i]
        elif op == DIV:
            for i in range(n):
                ws[d, i] = ws[a, i] / ws[b, i]
        elif op == ADD_C:
            c = consts[b]
            for i in range(n):
                ws[d, i] = ws[a, i] + c
        elif op == SUB_C:
            c = consts[b]
            for i in range(n):
                ws[d, i] = ws[a, i] - c
        elif op == DIV_C:
            c = consts[b]
            for i in range(n):
                ws[d, i] = ws[a, i] / c
        elif op == C_ADD:
            c = consts[b]
            for i in range(n):
                ws[d, i] = c + ws[a, i]
        elif op == C_SUB:
            c = consts[b]
            for i in range(n):
                ws[d, i] = c - ws[a, i]
        elif op == C_MUL:
            c = consts[b]
            for i in range(n):
                ws[d, i] = c * ws[a, i]
        elif op == C_DIV:
            c = consts[b]
            for i in range(n):
                ws[d, i] = c / ws[a, i]
        elif op == NEG:
            for i in range(n):
                ws[d, i] = -ws[a, i]
