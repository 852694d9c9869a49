"""Behaviours found by replaying PyTorch's own elementwise, foreach, tensor-method and linalg
test files (test_binary_ufuncs.py, test_unary_ufuncs.py, test_foreach.py, test_torch.py,
test_linalg.py) as programs run under torch and leafgrad; each program's observations (values
bit for bit, dtype, shape, strides, errors and warnings) must be identical."""

from __future__ import annotations

import math

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


# --- scalar forms and in-place broadcasting: lerp, addcmul, clamp, where with bfloat16 outs -----

def test_scalar_forms_inplace_broadcast_and_bfloat16_messages():
    """An in-place op whose operands would broadcast self larger is the shape error before
    the dtype's 'not implemented' (lerp_ and addcmul_ of integer/bool self); lerp's dtype
    checks name c10::BFloat16; out= with a bfloat16 result or out names BFloat16 (clamp,
    where, addcmul, add)."""
    cases = []
    for dtype in ("int64", "int32", "uint8", "bool", "float32", "bfloat16"):
        def tensor(m, values, dtype=dtype):
            return m.tensor(values, dtype=getattr(m, dtype))

        cases += [
            (f"lerp_ broadcast {dtype}",
             lambda m, t=tensor: t(m, [1, 2]).lerp_(t(m, [[3], [5]]), 0.5)),
            (f"lerp_ tensor weight broadcast {dtype}",
             lambda m, t=tensor: t(m, [1, 2]).lerp_(t(m, [3, 5]), t(m, [[1], [0]]))),
            (f"addcmul_ broadcast {dtype}",
             lambda m, t=tensor: t(m, [1, 2]).addcmul_(t(m, [[3], [5]]), t(m, [2, 2]))),
            (f"addcdiv_ broadcast {dtype}",
             lambda m, t=tensor: t(m, [1, 2]).addcdiv_(t(m, [[3], [5]]), t(m, [2, 2]))),
            (f"lerp end float64 {dtype}",
             lambda m, t=tensor: m.lerp(t(m, [1, 2]), m.tensor([3., 5.], dtype=m.float64), 0.5)),
            (f"lerp weight float64 {dtype}",
             lambda m, t=tensor: m.lerp(t(m, [1, 2]), t(m, [3, 5]),
                                        m.tensor([0.3, 0.7], dtype=m.float64))),
            (f"lerp end {dtype} of float32",
             lambda m, t=tensor: m.lerp(m.tensor([1., 2.]), t(m, [3, 5]), 0.5)),
        ]
        for out in ("int64", "float32", "bfloat16", "bool"):
            def out_tensor(m, out=out):
                return m.empty(2, dtype=getattr(m, out))

            cases += [
                (f"clamp {dtype} out={out}",
                 lambda m, t=tensor, o=out_tensor: m.clamp(t(m, [0, 5]), 0.5, out=o(m))),
                (f"where {dtype} out={out}",
                 lambda m, t=tensor, o=out_tensor: m.where(m.tensor([True, False]), t(m, [1, 2]),
                                                           t(m, [3, 4]), out=o(m))),
                (f"addcmul {dtype} out={out}",
                 lambda m, t=tensor, o=out_tensor: m.addcmul(t(m, [1, 2]), t(m, [3, 5]),
                                                             t(m, [2, 2]), out=o(m))),
                (f"add {dtype} out={out}",
                 lambda m, t=tensor, o=out_tensor: m.add(t(m, [1, 2]), t(m, [3, 5]), out=o(m))),
            ]
    _same(cases)


def test_isin_and_mvlgamma_refuse_their_dtypes():
    """isin refuses bool and complex elements or test elements, tensors or numbers (a Python
    complex is ComplexDouble), in that order; mvlgamma refuses a bool input before checking
    p, and mvlgamma_ of an integer tensor names self's dtype as the result type, after p."""
    cases = []
    for first in ("bool", "int64", "float32", "uint8", "complex64"):
        for second in ("bool", "int64", "float32", "complex128"):
            cases.append((f"isin({first}, {second})", lambda m, a=first, b=second: m.isin(
                m.tensor([1, 0], dtype=getattr(m, a)), m.tensor([1], dtype=getattr(m, b)))))
            cases.append((f"isin({first}, 0-d {second})", lambda m, a=first, b=second: m.isin(
                m.tensor([1, 0], dtype=getattr(m, a)), m.tensor(1, dtype=getattr(m, b)))))
        for number in (True, 1, 1.0, 1j):
            cases.append((f"isin({first}, {number!r})", lambda m, a=first, n=number: m.isin(
                m.tensor([1, 0], dtype=getattr(m, a)), n)))
            cases.append((f"isin({number!r}, {first})", lambda m, a=first, n=number: m.isin(
                n, m.tensor([1, 0], dtype=getattr(m, a)))))
    for dtype in ("bool", "int64", "int32", "uint8", "float32", "float64"):
        for p in (0, 1, 2):
            cases.append((f"mvlgamma({dtype}, {p})", lambda m, d=dtype, p=p: m.mvlgamma(
                m.tensor([2, 3], dtype=getattr(m, d)), p).dtype))
            cases.append((f"{dtype}.mvlgamma_({p})", lambda m, d=dtype, p=p: m.tensor(
                [2, 3], dtype=getattr(m, d)).mvlgamma_(p).dtype))
    _same(cases)


# --- digamma: ATen's calc_digamma step by step ---------------------------------------------------

def test_digamma_is_atens_calc_digamma_bit_for_bit():
    """digamma (and polygamma(0, x), special.psi) is ATen's calc_digamma in the input's own
    dtype (float16 in float32): the reflection pi / tan(pi r) in double rounded to the dtype,
    the recurrence up to 10, then ((result + log x) - 0.5 / x) - z polevl(z) with the C
    library's logf/log; before, 37% of float32 and 34% of float64 values were a last bit off.
    Arrays up to 1,024 elements (leafgrad's C-library logarithm; above it float64's rounded)."""
    import numpy as np

    rng = np.random.default_rng(8)
    values = np.concatenate([rng.uniform(-20, 20, 300), rng.uniform(0, 3, 300),
                             rng.uniform(0, 100, 300), rng.uniform(1e5, 1e20, 50),
                             [0., -0., 1., -1., 10., 9.5, -9.5, 1e-30, -1e-30, 1e-45, 2.5e17,
                              float("inf"), float("-inf"), float("nan")]]).tolist()
    cases = []
    for dtype in ("float32", "float64", "float16"):
        cases.append((f"digamma {dtype}", lambda m, d=dtype: m.digamma(
            m.tensor(values, dtype=getattr(m, d)))))
        cases.append((f"polygamma(0) {dtype}", lambda m, d=dtype: m.polygamma(
            0, m.tensor(values[:100], dtype=getattr(m, d)))))
        cases.append((f"special.psi {dtype} strided", lambda m, d=dtype: m.special.psi(
            m.tensor(values[:400], dtype=getattr(m, d)).reshape(20, 20).t())))
    cases.append(("lgamma backward", lambda m: m.autograd.grad(
        m.lgamma(v := m.tensor(values[:200], requires_grad=True)).sum(), [v])))
    _same(cases)


# --- special values through gradients: sinc, logit, logaddexp2 -------------------------------------

def test_special_values_through_sinc_logit_and_logaddexp2():
    """sinc's backward is 0 where x * x * pi is 0 (also where x * x underflows: float32's
    1e-30 gave NaN) and multiplies in torch's order; logit's backward is dy * inf at x == 0 or
    1 in the elements torch's scalar loop takes (+inf at x = -0., the tail of each run of 32
    float32 / 16 float64 elements), dy / (x (1 - x)) in its vectors; logaddexp2(x, x) is x plus
    the fused residual of ln2 * (1 / ln2) (-4.8e-17 at -1., where NumPy's gave 0.), and equal
    infinities are themselves. (NaN results are compared as NaN: their sign bit depends on
    whether torch's vectors or scalar loop made them.)"""
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, math.inf, -math.inf, math.nan, 1e-30, 3.0,
              -3.0, 100.0, 1e-20, -1e-25]
    cases = []
    for dtype in ("float32", "float64"):
        for size in (1, 7, 16, 17, 40, 70):
            for fill in (-0.0, 0.0, 1.0, 1e-30):
                for name, call in (("sinc", lambda m, x: m.sinc(x)),
                                   ("logit", lambda m, x: m.logit(x)),
                                   ("logit eps=0", lambda m, x: m.logit(x, eps=0.0))):
                    def program(m, d=dtype, n=size, f=fill, call=call):
                        x = m.full((n,), f, dtype=getattr(m, d)).requires_grad_()
                        return m.autograd.grad(call(m, x).sum(), x)
                    cases.append((f"{name} {dtype} {size} x {fill}", program))
        for name, call in (("sinc", lambda m, x: m.sinc(x)), ("logit", lambda m, x: m.logit(x))):
            def program(m, d=dtype, call=call):
                x = m.tensor(values * 3, dtype=getattr(m, d)).requires_grad_()
                y = call(m, x)
                grad, = m.autograd.grad(y.sum(), x)
                return y.detach().nan_to_num(7.0, math.inf, -math.inf), grad
            cases.append((f"{name} {dtype} specials", program))
        cases.append((f"logaddexp2 equal {dtype}", lambda m, d=dtype: m.logaddexp2(
            m.tensor(values * 3, dtype=getattr(m, d)), m.tensor(values * 3, dtype=getattr(m, d)))
            .nan_to_num(7.0, math.inf, -math.inf)))
        cases.append((f"logaddexp2 infinities {dtype}", lambda m, d=dtype: m.logaddexp2(
            m.tensor([math.inf, -math.inf, math.inf, -math.inf, math.nan] * 8,
                     dtype=getattr(m, d)),
            m.tensor([math.inf, -math.inf, -math.inf, 2.0, math.inf] * 8, dtype=getattr(m, d)))
            .nan_to_num(7.0, math.inf, -math.inf)))
    _same(cases)


# --- tensor methods (test_torch.py): __contains__, unflatten, masked_fill_ ------------------------

def test_contains_unflatten_and_masked_fill_shapes():
    """``x in t`` is (x == t).any() for tensors and numbers and torch's error for anything else
    (None, lists, strings); unflatten names the sizes as given (-1 kept), refuses two -1s and an
    ambiguous -1 over nothing with its wrapped infer_size message, and empty sizes; a mask that
    would grow masked_fill_'s self is the broadcast-shape error."""
    import numpy as np

    cases = []
    for size in (6, 0, 12):
        for dim in (0, -1):
            for sizes in ((4, -1), (4, 5), (0, -1), (-1, -1), (), (2, -1), (-1, 3), (2, 3),
                          (3, 2, -1), (6,), (-1,), (0,), (1, -1, 1)):
                cases.append((f"unflatten({size}, {dim}, {sizes})", lambda m, n=size, d=dim,
                              s=sizes: m.arange(n).unflatten(d, s).shape))
    for element in (None, [1], "a", 1.5, True, 2, 1j, (1,), np.float32(2.0), np.int64(3)):
        cases.append((f"{element!r} in", lambda m, e=element: e in m.arange(3)))
    cases += [
        ("row in", lambda m: m.tensor([1, 2]) in m.arange(4).reshape(2, 2)),
        ("bad row in", lambda m: m.tensor([1, 2, 3]) in m.arange(4).reshape(2, 2)),
        ("nan in", lambda m: math.nan in m.tensor([math.nan])),
        ("in 0-d", lambda m: 1 in m.tensor(1)),
    ]
    for shape, mask in (((2,), (1, 2)), ((2,), (3, 2)), ((2,), (3,)), ((1, 2), (2, 2)),
                        ((2, 1), (2, 3)), ((3,), (2, 1)), ((2, 3), (3,)), ((2, 3), (1, 3))):
        for value in (1, "tensor"):
            def program(m, s=shape, k=mask, v=value):
                target = m.zeros(s)
                fill = m.tensor(2.0) if v == "tensor" else v
                target.masked_fill_(m.ones(k, dtype=m.bool), fill)
                return target
            cases.append((f"masked_fill_ {shape} mask {mask} {value}", program))
    _same(cases)


def test_cumprod_and_scalar_base_pow_gradients_at_special_values():
    """cumprod's backward over an input with zeros is torch's O(n) algorithm when grad mode is
    off (before the first zero reversed_cumsum(out * grad) / x, at it the products up to the
    second zero, 0 after), so infinities and NaNs beyond a zero give torch's values (NaN
    everywhere before); number ** tensor with a negative real base has a NaN gradient (the
    Scalar's log), not log|base|."""
    rows = ([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, math.inf, -math.inf, math.nan, 3.0],
            [2.0, 0.0, 3.0, 4.0], [2.0, 0.0, 3.0, 0.0, 5.0], [2.0, math.inf, 3.0],
            [0.0, math.inf, 3.0], [2.0, 3.0, 0.0, math.nan], [0.0, 0.0], [5.0, 0.0])
    cases = []
    for row in rows:
        for dtype in ("float64", "float32"):
            for create_graph in (False, True):
                def program(m, r=row, d=dtype, c=create_graph):
                    x = m.tensor(r, dtype=getattr(m, d), requires_grad=True)
                    weights = m.arange(1.0, len(r) + 1, dtype=getattr(m, d))
                    grad, = m.autograd.grad(x.cumprod(0), x, weights, create_graph=c)
                    return grad.detach().nan_to_num(7.0)  # (a NaN's sign bit is not compared)
                cases.append((f"cumprod {row} {dtype} {create_graph}", program))
            cases.append((f"cumprod 2-d {row} {dtype}", lambda m, r=row, d=dtype: (
                lambda x: m.autograd.grad(x.t().cumprod(0).sum(), x))(
                m.tensor([r, r[::-1]], dtype=getattr(m, d), requires_grad=True))))
    for base in (-2.0, -0.5, -1, 2.0, 0.0):
        def program(m, b=base):
            x = m.tensor([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, math.inf, math.nan],
                         requires_grad=True)
            y = b ** x
            return y, m.autograd.grad(y.sum(), x)
        cases.append((f"{base} ** x", program))
    _same(cases)


def test_bfloat16_nan_to_num_and_nextafter():
    """nan_to_num of bfloat16 replaces infinities by bfloat16's own largest values (float32's
    rounded to inf), and nextafter steps bfloat16's own bits (c10's musl-style nextafter: a
    float32 step rounded back to the same value); torch.mvlgamma names p as argument 2."""
    import itertools

    values = [0.0, -0.0, 1.0, -1.0, 1e-40, -1e-40, 3.0e38, -3.3e38, math.inf, -math.inf,
              math.nan, 2.5, 1.0078125]
    pairs = list(itertools.product(values, values))
    cases = [
        ("nextafter", lambda m: m.nextafter(m.tensor([a for a, _ in pairs], dtype=m.bfloat16),
                                            m.tensor([b for _, b in pairs], dtype=m.bfloat16))),
        ("nextafter 0-d", lambda m: m.nextafter(m.tensor(1.0, dtype=m.bfloat16),
                                                m.tensor(2.0, dtype=m.bfloat16))),
        ("nextafter broadcast", lambda m: m.nextafter(m.tensor([[1.0], [2.0]], dtype=m.bfloat16),
                                                      m.tensor([0.0, 5.0], dtype=m.bfloat16))),
        ("nextafter with float32", lambda m: m.nextafter(m.tensor([1.0], dtype=m.bfloat16),
                                                         m.tensor([2.0]))),
        ("nextafter_", lambda m: m.tensor([1.0, -1.0], dtype=m.bfloat16).nextafter_(
            m.tensor([2.0, 2.0], dtype=m.bfloat16))),
        ("mvlgamma(x, 2.0)", lambda m: m.mvlgamma(m.tensor([3.0]), 2.0)),
        ("mvlgamma(x, True)", lambda m: m.mvlgamma(m.tensor([3.0]), True)),
    ]
    for given in ({}, {"nan": 1.5}, {"posinf": 1e10}, {"posinf": 1e39, "neginf": -5.0},
                  {"nan": 1.0078125 + 2 ** -9}):
        for dtype in ("bfloat16", "float16"):
            cases.append((f"nan_to_num {dtype} {given}", lambda m, g=given, d=dtype:
                          m.nan_to_num(m.tensor(values, dtype=getattr(m, d)), **g)))
            cases.append((f"nan_to_num_ {dtype} {given}", lambda m, g=given, d=dtype:
                          m.tensor(values, dtype=getattr(m, d)).nan_to_num_(**g)))
    _same(cases)


def test_trigamma_is_atens_in_the_dtype():
    """polygamma(1, x) (and so digamma's gradient) is ATen's trigamma in the input's dtype
    (float16 in float32): pi * pi taken in float for float32 (in double it put 21% of values a
    last bit off), the C library's sinf in the reflection, the series' multiply-adds fused."""
    import numpy as np

    rng = np.random.default_rng(9)
    values = np.concatenate([rng.uniform(-20, 20, 300), rng.uniform(0, 3, 300),
                             rng.uniform(0, 100, 300),
                             [0.0, -0.0, 1.0, -1.0, math.inf, 0.5, 1e-30, -2.5]]).tolist()
    cases = []
    for dtype in ("float32", "float64", "float16"):
        cases.append((f"polygamma(1) {dtype}", lambda m, d=dtype: m.polygamma(
            1, m.tensor(values, dtype=getattr(m, d)))))
        cases.append((f"digamma grad {dtype}", lambda m, d=dtype: (lambda x: m.autograd.grad(
            m.digamma(x).sum(), x))(m.tensor(values, dtype=getattr(m, d), requires_grad=True))))
    _same(cases)


def test_sinc_entr_xlog1py_are_torchs_scalar_kernels():
    """sinc, special.entr and special.xlog1py run torch's scalar kernels: sin(pi x) / (pi x)
    with pi as a float and the C library's sinf (float32, float16), -x * log(x) and
    x * log1p(y) with the C library's log/logf and log1pf/log1p (before: 13%, 9% and 5% of
    float32 values a last bit off; entr and xlog1py some float64 ones)."""
    import numpy as np

    rng = np.random.default_rng(10)
    xs = np.concatenate([rng.uniform(-20, 20, 300), rng.uniform(0, 3, 300),
                         rng.uniform(0, 100, 300),
                         [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 1e-30]]).tolist()
    ys = np.concatenate([rng.uniform(-0.99, 3, 450), rng.uniform(0, 100, 458)]).tolist()
    cases = []
    for dtype in ("float32", "float64", "float16"):
        def tensors(m, d=dtype):
            return m.tensor(xs, dtype=getattr(m, d)), m.tensor(ys, dtype=getattr(m, d))
        cases += [
            (f"sinc {dtype}", lambda m, t=tensors: m.sinc(t(m)[0])),
            (f"entr {dtype}", lambda m, t=tensors: m.special.entr(t(m)[0])),
            (f"xlog1py {dtype}", lambda m, t=tensors: m.special.xlog1py(*t(m))),
            (f"xlog1py(x, 2.5) {dtype}", lambda m, t=tensors: m.special.xlog1py(t(m)[0], 2.5)),
            (f"xlog1py(2, y) {dtype}", lambda m, t=tensors: m.special.xlog1py(2.0, t(m)[1])),
        ]
    _same(cases)


def test_log_ndtr_from_minus_one_up_is_torchs():
    """special.log_ndtr from x = -1 up is torch's log1p(-erfc(x * frac_sqrt_2) / 2) with the C
    library's erfc/erfcf and log1p/log1pf (82% of float32 values were a last bit off); its
    gradient follows from the result."""
    import numpy as np

    rng = np.random.default_rng(11)
    values = np.concatenate([rng.uniform(-1, 8, 600),
                             [0.0, -0.0, -1.0, 1.0, math.inf, math.nan, 40.0]]).tolist()
    cases = []
    for dtype in ("float32", "float64"):
        cases.append((f"log_ndtr {dtype}", lambda m, d=dtype: (lambda x: (
            m.special.log_ndtr(x), m.autograd.grad(m.special.log_ndtr(x).sum(), x)))(
            m.tensor(values, dtype=getattr(m, d), requires_grad=True))))
    cases.append(("log_ndtr float16", lambda m: m.special.log_ndtr(
        m.tensor(values, dtype=m.float16))))
    _same(cases)


def test_gcd_lcm_of_narrow_integers_wrap_as_atens():
    """gcd/lcm of int8/int16 follow ATen's C arithmetic: abs(x) wrapped into the type (abs(-128)
    stays -128), Euclid with the truncating %, and lcm's a / g * b and its abs computed in int
    then wrapped (lcm(7, 100) in int8 is -68; NumPy's gave 1 and 68)."""
    import itertools

    cases = []
    for dtype in ("int8", "int16", "uint8"):
        def operands(m, d=dtype):
            info = m.iinfo(getattr(m, d))
            base = sorted({info.min, info.min + 1, info.max, info.max - 1, 0, 1, 2, 3, 7, 12,
                           100} | ({-1, -2, -7, -12, -100} if info.min < 0 else set()))
            pairs = list(itertools.product(base, base))
            return (m.tensor([a for a, _ in pairs], dtype=getattr(m, d)),
                    m.tensor([b for _, b in pairs], dtype=getattr(m, d)))
        cases += [
            (f"gcd {dtype}", lambda m, o=operands: m.gcd(*o(m))),
            (f"lcm {dtype}", lambda m, o=operands: m.lcm(*o(m))),
            (f"gcd_ {dtype}", lambda m, o=operands: (lambda a, b: a.gcd_(b))(*o(m))),
            (f"lcm_ {dtype}", lambda m, o=operands: (lambda a, b: a.lcm_(b))(*o(m))),
        ]
    _same(cases)
