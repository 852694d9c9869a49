"""Behaviours found by replaying PyTorch's own elementwise, foreach, tensor-method and linalg
test files (test_binary_ufuncs.py, test_unary_ufuncs.py, test_foreach.py, test_torch.py,
test_linalg.py) as programs run under torch and leafgrad; each program's observations (values
bit for bit, dtype, shape, strides, errors and warnings) must be identical."""

from __future__ import annotations

from ._torch import require_torch
from .test_suite7_findings import _same

torch = require_torch()


# --- integer-only kernels: bitwise ops, shifts, gcd/lcm on floating and bfloat16 operands ------

def test_integer_kernels_refuse_floats_by_the_common_dtype():
    """bitwise_not/and/or/xor, the shifts, gcd and lcm have no floating kernels: torch's
    message names the operands' common dtype (BFloat16 when bfloat16 wins the promotion, Float
    when a float32 tensor does), for the function form as for the method (bitwise_not(float) is
    NotImplementedError, not the ~ operator's TypeError)."""
    cases = []
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm",
                 "bitwise_left_shift", "bitwise_right_shift"):
        for first, second in (("bfloat16", "float32"), ("float32", "bfloat16"),
                              ("bfloat16", "int64"), ("int64", "bfloat16"),
                              ("bfloat16", "bfloat16"), ("float16", "int8")):
            cases.append((f"{name}({first}, {second})", lambda m, name=name, a=first, b=second:
                          getattr(m, name)(m.ones(2, dtype=getattr(m, a)),
                                           m.ones(2, dtype=getattr(m, b)))))
            cases.append((f"{name}({first}, 0-d {second})", lambda m, name=name, a=first, b=second:
                          getattr(m, name)(m.ones(2, dtype=getattr(m, a)),
                                           m.tensor(1, dtype=getattr(m, b)))))
        cases.append((f"{name}(bfloat16, 1)",
                      lambda m, name=name: getattr(m, name)(m.ones(2, dtype=m.bfloat16), 1)))
    for dtype in ("float32", "float64", "float16", "bfloat16", "bool", "int8"):
        cases.append((f"bitwise_not({dtype})",
                      lambda m, d=dtype: m.bitwise_not(m.tensor([1, 0], dtype=getattr(m, d)))))
        cases.append((f"{dtype}.bitwise_not_()",
                      lambda m, d=dtype: m.tensor([1, 0], dtype=getattr(m, d)).bitwise_not_()))
        cases.append((f"~{dtype}", lambda m, d=dtype: ~m.tensor([1, 0], dtype=getattr(m, d))))
    _same(cases)


def test_out_dtype_and_resize_come_before_the_dtype_dispatch():
    """A TensorIterator kernel checks out's dtype against the common dtype (and resizes out,
    warning) before it looks for a kernel of that dtype: bitwise_and(float, float, out=long)
    is the cast error, frac(long, out=double) and bitwise_not(float, out=int) the 'Found
    dtype' one, and an out of another shape is resized with the warning before the 'not
    implemented' error."""
    cases = []
    for name, operands in (("bitwise_and", 2), ("bitwise_or", 2), ("gcd", 2), ("hypot", 2),
                           ("bitwise_left_shift", 2), ("frac", 1), ("bitwise_not", 1),
                           ("floor", 1), ("sign", 1)):
        for source in ("float32", "int64", "bool"):
            for target in ("float64", "int64", "int32", "bool", "float16"):
                def program(m, name=name, operands=operands, source=source, target=target):
                    inputs = [m.tensor([1, 2], dtype=getattr(m, source))] * operands
                    out = m.empty(2, dtype=getattr(m, target))
                    return getattr(m, name)(*inputs, out=out), out
                cases.append((f"{name}({source}, out={target})", program))
            for shape in ((3,), (0,), (2, 1), (2,)):
                def program(m, name=name, operands=operands, source=source, shape=shape):
                    inputs = [m.tensor([1, 2], dtype=getattr(m, source))] * operands
                    out = m.zeros(shape, dtype=getattr(m, source))
                    try:
                        getattr(m, name)(*inputs, out=out)
                        raised = None
                    except Exception as error:  # noqa: BLE001 - out's state after it is compared
                        raised = (type(error).__name__, str(error).split("\n")[0])
                    # (a resized out's elements are uninitialised memory)
                    kept = tuple(out.shape) == shape
                    return raised, tuple(out.shape), out.tolist() if kept else None
                cases.append((f"{name}({source}, out of shape {shape})", program))
    _same(cases)
