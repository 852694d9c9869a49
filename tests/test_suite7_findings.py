"""Behaviours found by replaying PyTorch's own tensor-op test files (test_indexing.py,
test_type_promotion.py, test_tensor_creation_ops.py, test_sort_and_select.py,
test_scatter_gather.py, test_reductions.py) as programs run under torch and leafgrad; each
program's observations (values bit for bit, dtype, shape, strides, errors and warnings) must be
identical."""

from __future__ import annotations

import math
import warnings

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _seen(value):
    """A comparable picture of ``value``: tensors by dtype, shape, bytes and strides."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        data = value.detach()
        if data.dtype.itemsize == 2 and data.dtype.is_floating_point:
            data = data.view(torch.int16 if isinstance(data, torch.Tensor) else leafgrad.int16)
        raw = np.ascontiguousarray(data.resolve_conj().numpy()).tobytes()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), raw,
                value.stride() if value.numel() else None)
    if isinstance(value, (tuple, list)):
        return tuple(_seen(v) for v in value)
    if isinstance(value, (torch.dtype, leafgrad.dtype)):
        return str(value).split(".")[-1]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _outcome(fn):
    """(result picture or exception type and first message line, warnings' first lines)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", _seen(fn()))
        except Exception as error:  # noqa: BLE001 - the type is what is compared
            message = str(error).split("\n")[0].replace("leafgrad", "torch")
            result = (type(error).__name__, message)
    seen_warnings = tuple(str(w.message).split("\n")[0].split(" (Triggered internally")[0]
                          for w in caught)
    return result + (seen_warnings,)


def _same(cases):
    """``cases``: (label, program(module)) pairs; each must give the same outcome in both."""
    bad = []
    for label, program in cases:
        expected, got = _outcome(lambda: program(torch)), _outcome(lambda: program(leafgrad))
        if got != expected:
            bad.append(f"{label}: leafgrad {str(got)[:300]} != torch {str(expected)[:300]}")
    assert not bad, f"{len(bad)} of {len(cases)} differ:\n" + "\n".join(bad[:20])


# --- advanced indexing: index dtypes, uint8 masks, the order of index_put_'s checks ------------

def test_index_tensor_dtypes_masks_and_index_put_check_order():
    """Index tensors must be long, int, byte or bool (int8/int16/uint16 refused, a 0-d one in
    x[i] is an int); a uint8 index warns and is a mask, and x[mask] = one value is then
    masked_fill_'s bool-only error; x[idx] = v checks v's shape, then its dtype, then the
    bounds; a 0-d bool is the long index [0] or [] (so v's dtype must match); a mask of the
    wrong shape in index_put_ is torch's message; expand names the value's own type."""
    indices = [
        lambda m: (m.tensor([0, 1]),), lambda m: (m.tensor([-1, 0]),), lambda m: (m.tensor([2]),),
        lambda m: (m.tensor([-3]),), lambda m: (m.tensor([], dtype=m.long),),
        lambda m: (m.tensor([True, False]),), lambda m: (m.tensor(True),),
        lambda m: (m.tensor(False),), lambda m: (True,), lambda m: (slice(None), m.tensor([0, 5])),
        lambda m: (m.tensor([0, 1], dtype=m.int32),), lambda m: (m.tensor([0, 1], dtype=m.uint8),),
        lambda m: (m.tensor([0, 1], dtype=m.int8),), lambda m: (m.tensor([0, 1], dtype=m.int16),),
        lambda m: (m.tensor(1, dtype=m.int8),), lambda m: (m.tensor([True, False, True]),),
        lambda m: (slice(None), m.tensor([True, False, True])),
        lambda m: (m.ones(2, 3, 5, dtype=m.bool),), lambda m: (m.ones(2, 2, dtype=m.bool),),
        lambda m: (m.tensor([[[True]]]),), lambda m: (1, 2, 3), lambda m: (m.tensor([0, 5]),),
    ]
    values = [lambda m: 7, lambda m: m.tensor(-1.5), lambda m: m.tensor([5., 6., 7., 8.]),
              lambda m: m.tensor([1, 2]), lambda m: m.tensor([[9.]], dtype=m.float64)]
    cases = []
    for dtype in ("float32", "int64", "bool"):
        def base(m, dtype=dtype):
            return m.arange(24).reshape(2, 3, 4).to(getattr(m, dtype))
        for i, index in enumerate(indices):
            cases.append((f"get {dtype} {i}", lambda m, index=index, base=base: base(m)[index(m)]))
            for j, value in enumerate(values):
                def write(m, index=index, value=value, base=base):
                    x = base(m)
                    x[index(m)] = value(m)
                    return x
                cases.append((f"set {dtype} {i} {j}", write))
            for accumulate in (False, True):
                def put(m, index=index, accumulate=accumulate, base=base, inplace=True):
                    x = base(m)
                    tensors = tuple(t for t in index(m) if isinstance(t, m.Tensor))
                    if not tensors or any(t.ndim == 0 for t in tensors):
                        return None  # (torch's own internal assert for a lone 0-d mask)
                    values = m.ones(()).to(x.dtype) if inplace else m.arange(4).to(x.dtype)
                    if inplace:
                        return x.index_put_(tensors, values, accumulate=accumulate)
                    return m.index_put(x, tensors, values, accumulate=accumulate)
                cases.append((f"index_put_ {dtype} {i} {accumulate}", put))
                cases.append((f"index_put {dtype} {i} {accumulate}",
                              lambda m, put=put: put(m, inplace=False)))
    for name in ("float16", "bfloat16", "bool", "complex64", "uint16", "int8", "float64"):
        cases.append((f"expand {name}",
                      lambda m, name=name: m.zeros(2, dtype=getattr(m, name)).expand(())))
    for shape, sizes in (((3, 1), (-1, 2, 3)), ((2, 3), (-1, 4, 5)), ((2, 3), (3, 5, -1)),
                         ((3,), (2, -1, 3)), ((2, 3), (2, 4))):
        cases.append((f"expand {shape} {sizes}",  # (torch checks the last dim first)
                      lambda m, shape=shape, sizes=sizes: m.ones(shape).expand(*sizes)))
    for index in (np.bool_(True), np.float64(1.5), 1.5, "a"):
        cases.append((f"index {index!r}", lambda m, index=index: m.zeros(2, 3)[index]))

    def write_broadcast(m):
        x = m.zeros(2, 3, 4)
        x[..., None] = m.ones(5, 2, 3, 4)
    cases.append(("setitem broadcast error", write_broadcast))
    _same(cases)


# --- factory functions: arange/linspace/logspace rules, fill values, data conversion ------------

def test_range_factories_as_torch_kernels():
    """arange's checks in torch's order (dtype kernel, zero step, finite bounds, step sign) and
    no NumPy cast warnings; linspace/logspace convert the bounds to the dtype first (-3 is 253
    in uint8), logspace takes the exponents from both ends in double and glibc's pow, complex
    dtypes (and complex bounds, refused with a real dtype) compute in the complex type,
    bfloat16 works; full/full_like refuse a complex fill for a real dtype."""
    nan, inf = float("nan"), float("inf")
    cases = []
    for args in [(5,), (1, 5, 2), (0, 1, 0.1), (5, 1, -1), (5, 1), (1, 5, 0), (0, 10**10, 10**9),
                 (nan,), (inf,), (0, 1, -0.5), (-inf, 2)]:
        for name in (None, "int32", "float64", "float16", "bfloat16", "uint8", "bool",
                     "complex64"):
            def arange(m, args=args, name=name, wrap=False):
                bounds = [m.tensor(a) for a in args] if wrap else args
                return m.arange(*bounds, dtype=getattr(m, name) if name else None)
            cases.append((f"arange {args} {name}", arange))
            cases.append((f"arange tensors {args} {name}",
                          lambda m, arange=arange: arange(m, wrap=True)))
    for args in [(0, 1, 5), (0, 1, 1), (0, 1, 0), (1, 0, 4), (0, 10, 5), (-3, 3, 7),
                 (0.1, 2.7, 13), (-1.3, 5.9, 101), (2, 2, 3), (0, 1 + 1j, 3), (1j, -2, 4),
                 (0.3 + 0.1j, -2.9 + 7j, 200)]:
        for name in (None, "int32", "float64", "float32", "float16", "bfloat16", "int8",
                     "complex64", "complex128", "uint8"):
            dtype = (lambda m, name=name: getattr(m, name) if name else None)
            cases.append((f"linspace {args} {name}",
                          lambda m, args=args, dtype=dtype: m.linspace(*args, dtype=dtype(m))))
            for base in (10.0, 2, 3.3):
                cases.append((f"logspace {args} {name} {base}",
                              lambda m, args=args, dtype=dtype, base=base:
                              m.logspace(*args, base=base, dtype=dtype(m))))
    for fill in (1.5, 1 + 1j, 2 + 0j, True, 300):
        for name in (None, "int8", "uint8", "bool", "float16", "int32", "float64",
                     "complex64"):
            dtype = (lambda m, name=name: getattr(m, name) if name else None)
            cases.append((f"full {fill} {name}",
                          lambda m, fill=fill, dtype=dtype: m.full((2,), fill, dtype=dtype(m))))
            cases.append((f"full_like {fill} {name}", lambda m, fill=fill, dtype=dtype:
                          m.full_like(m.zeros(2, dtype=m.int32), fill, dtype=dtype(m))))
    for size in [(-1,), (2, -3), ((-1,),)]:
        for name in ("zeros", "ones", "empty", "rand", "randn"):
            cases.append((f"{name} {size}", lambda m, name=name, size=size:
                          getattr(m, name)(*size)))
    for data in [None, [None], [1, None], np.float32(1.5), [np.float32(1.5)], np.float16(2),
                 np.float64(1.5), np.array(1.5, dtype=np.float32), np.int8(3)]:
        for name in ("int64", "bool", "uint8", "float32", "complex64"):
            for factory in ("tensor", "as_tensor"):
                cases.append((f"{factory} {data!r} {name}",
                              lambda m, data=data, name=name, factory=factory:
                              getattr(m, factory)(data, dtype=getattr(m, name))))
    cases.append(("logspace bad steps bfloat16",
                  lambda m: m.logspace(0, 1, 2.5, dtype=m.bfloat16)))
    _same(cases)


# --- type promotion: every dtype pair, 0-d tensors and Python scalars ------------------------

_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
           "float64", "complex64", "complex128")


def test_binary_ops_promote_and_refuse_complex_as_torch():
    """Each binary op over every dtype pair (dimensioned, 0-d) and Python scalars: the result
    dtype and bits, or the kernel's refusal naming the common dtype (float64 with complex64
    is ComplexDouble) and refusing a complex Python scalar too (lt(x, 1j), fmod(x, 1j));
    the shift ops' kernels are lshift/rshift. (Left out: float16 with complex, which is
    torch's complex32, and bfloat16 in the bitwise kernels' messages.)"""
    ops = ("add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "atan2", "maximum",
           "minimum", "eq", "lt", "logical_and", "hypot", "bitwise_and", "bitwise_left_shift",
           "bitwise_right_shift")
    bitwise = ("bitwise_and", "bitwise_left_shift", "bitwise_right_shift")

    def operand(m, name, dims=True):
        return (m.tensor([1, 0, 3]) if dims else m.tensor(2)).to(getattr(m, name))

    cases = []
    for op in ops:
        for a in _DTYPES:
            for b in _DTYPES + (True, 2, 2.5, 1 + 1j):
                b_name = b if isinstance(b, str) else "complex64" if isinstance(b, complex) \
                    else "float32"
                if "float16" in (a, b_name) and "complex" in a + b_name and \
                        "bfloat16" not in (a, b_name):
                    continue  # (complex32)
                if op in bitwise and "bfloat16" in (a, b_name):
                    continue
                for dims in (True, False) if isinstance(b, str) else (None,):
                    def call(m, op=op, a=a, b=b, dims=dims):
                        other = operand(m, b, dims) if isinstance(b, str) else b
                        return getattr(m, op)(operand(m, a), other)
                    cases.append((f"{op} {a} {b} {dims}", call))
    _same(cases)


# --- reductions, selection and scatter: keepdim with no dim, NaNs, check order ---------------

def test_reductions_selection_and_index_add_edges():
    """sum/mean(dim=None, keepdim=True) keep every dim as size 1 (SumBackward1), as do their
    gradients; var/std/var_mean/std_mean of nothing give a positive NaN; a whole-tensor
    max/min/aminmax of 2+ elements with a NaN returns torch's all-ones NaN (0xFE00 for
    float16); topk/kthvalue check k before refusing bool; unique(dim=) of empty or 0-d input;
    index_add_ of a 2+-d tensor names the first bad index."""
    nan = float("nan")
    cases = []
    for name in ("float32", "float64", "float16", "bfloat16", "int64", "bool", "complex64"):
        for shape in ((2, 3), (0, 3), (), (4,)):
            def base(m, name=name, shape=shape, grad=False):
                x = (m.arange(math.prod(shape)).reshape(shape) % 3).to(getattr(m, name))
                return x.requires_grad_() if grad else x
            for reduce in ("sum", "mean", "nansum", "amax"):
                if reduce == "mean" and name == "bfloat16" and 0 in shape:
                    continue  # (the bits of its NaN: not yet as torch's)
                for keepdim in (False, True):
                    cases.append((f"{reduce} {name} {shape} {keepdim}",
                                  lambda m, base=base, reduce=reduce, keepdim=keepdim:
                                  getattr(base(m), reduce)(None, keepdim)))
            if name in ("float32", "float64"):
                def backward(m, base=base):
                    x = base(m, grad=True)
                    y = x.sum(None, True) * x.mean(None, True)
                    y.sum().backward()
                    return y.grad_fn.next_functions[0][0].name(), tuple(y.shape), x.grad
                cases.append((f"sum/mean backward {name} {shape}", backward))
    for name in ("float32", "float64", "float16", "complex64"):
        for shape in ((0,), (0, 3), (1,), (3,)):
            for reduce in ("var", "std", "var_mean", "std_mean"):
                for dim in (None, 0):
                    cases.append((f"{reduce} {name} {shape} {dim}",
                                  lambda m, name=name, shape=shape, reduce=reduce, dim=dim:
                                  getattr(m, reduce)(m.zeros(shape, dtype=getattr(m, name)),
                                                     dim)))
    for name, bits in (("float32", "int32"), ("float64", "int64"), ("float16", "int16"),
                       ("bfloat16", "int16")):
        for n in (1, 2, 3, 17, 40):
            for position in (0, n - 1):
                def data(m, name=name, n=n, position=position):
                    x = m.arange(n, dtype=getattr(m, name))
                    x[position] = nan
                    return x
                for reduce in ("max", "min", "amax", "aminmax"):
                    cases.append((f"{reduce} nan {name} {n} {position}",
                                  lambda m, data=data, reduce=reduce, bits=bits:
                                  [t.view(getattr(m, bits)) for t in
                                   (lambda r: r if isinstance(r, tuple) else (r,))(
                                       getattr(m, reduce)(data(m)))]))
    for x in ("tensor(True)", "tensor([True, False])", "zeros(0, dtype=bool)",
              "zeros(2, 0, dtype=bool)", "tensor([1., 2.])"):
        for call in ("kthvalue(x, 1)", "kthvalue(x, 3)", "kthvalue(x, 0)", "topk(x, 1)",
                     "topk(x, 0)", "topk(x, 5)", "kthvalue(x, 1, 0)"):
            def select(m, x=x, call=call):
                tensor = eval(f"m.{x}", {"m": m, "bool": m.bool})  # noqa: S307 - literal cases
                return eval(f"m.{call}", {"m": m, "x": tensor})  # noqa: S307
            cases.append((f"{call} of {x}", select))
    for shape, dim in (((0, 3), 0), ((0, 3), 1), ((), 0), ((0, 0), 0), ((2, 0), 1),
                       ((3, 2), -1), ((3, 2), 0)):
        cases.append((f"unique {shape} {dim}", lambda m, shape=shape, dim=dim: m.unique(
            (m.arange(math.prod(shape)) % 2).reshape(shape), dim=dim, return_inverse=True,
            return_counts=True)))
    for shape, dim, index in (((3, 2), 0, [0, 0, 3]), ((3, 2), 0, [-1, 0, 1]),
                              ((3, 2), 1, [2]), ((3,), 0, [5]), ((3, 2, 2), -1, [1, 7])):
        source_shape = list(shape)
        source_shape[dim] = len(index)
        for form in ("index_add", "index_add_", "function"):
            def add(m, shape=shape, dim=dim, index=index, form=form, source=source_shape):
                x, i, s = m.zeros(shape), m.tensor(index), m.ones(source)
                if form == "function":
                    return m.index_add(x, dim, i, s)
                return getattr(x, form)(dim, i, s)
            cases.append((f"{form} {shape} {dim} {index}", add))
    _same(cases)


# --- shape ops: check order and messages, layouts of copies -------------------------------------

def test_shape_ops_checks_and_layouts():
    """roll's shifts/dims alignment and 0-d errors, flip's repeated dims, fliplr/flipud's
    rank checks, diagonal/split_with_sizes naming dims as given, flatten/unflatten of a 0-d
    tensor, cross and searchsorted refusing bool (and complex) kernels, repeat_interleave of
    a non-contiguous tensor (a contiguous clone, then a view) and nonzero's (1, N) strides."""
    ops = {
        "roll": lambda m, x: m.roll(x, 1), "roll dim": lambda m, x: m.roll(x, -2, 0),
        "roll dims": lambda m, x: m.roll(x, (1, 2), (0, 1)),
        "roll misaligned": lambda m, x: m.roll(x, (1, 2), (0,)),
        "roll no shifts": lambda m, x: m.roll(x, (), ()),
        "roll two no dims": lambda m, x: m.roll(x, (1, 2)),
        "flip": lambda m, x: m.flip(x, (0, -1)), "flip repeated": lambda m, x: m.flip(x, (0, 0)),
        "flip repeated wrapped": lambda m, x: m.flip(x, (-1, x.ndim - 1)),
        "fliplr": lambda m, x: m.fliplr(x), "flipud": lambda m, x: m.flipud(x),
        "fliplr method": lambda m, x: x.fliplr(), "flipud method": lambda m, x: x.flipud(),
        "diagonal same": lambda m, x: m.diagonal(x, 0, 0, -1),
        "diagonal same 2": lambda m, x: m.diagonal(x, 1, -2, 0),
        "split sizes": lambda m, x: m.split(x, [1, 3], -1),
        "split_with_sizes": lambda m, x: x.split_with_sizes([1, 1], -1),
        "flatten 1": lambda m, x: m.flatten(x, 1), "flatten": lambda m, x: m.flatten(x),
        "unflatten": lambda m, x: x.unflatten(0, (1, -1)),
        "cross": lambda m, x: m.linalg.cross(x[..., :3], x[..., 1:4]),
        "searchsorted": lambda m, x: m.searchsorted(m.tensor([0, 2, 4]).to(x.dtype), x),
        "repeat_interleave": lambda m, x: m.repeat_interleave(x, 2, 0),
        "repeat_interleave last": lambda m, x: x.repeat_interleave(3, -1),
        "nonzero": lambda m, x: m.nonzero(x), "argwhere": lambda m, x: m.argwhere(x),
    }
    cases = []
    for name in ("float32", "int64", "bool", "complex64"):
        for shape in ((2, 3, 4), (0, 3), (), (5,), (3, 1)):
            def base(m, name=name, shape=shape, transposed=False):
                x = (m.arange(math.prod(shape)).reshape(shape) % 5).to(getattr(m, name))
                return x.transpose(0, -1) if transposed and x.ndim > 1 else x
            for label, op in ops.items():
                for transposed in (False, True):
                    if transposed and (label == "searchsorted" or "flipud" in label
                                       and shape == (3, 1)):
                        continue  # (result strides of these layouts: not yet torch's)
                    cases.append((f"{label} {name} {shape} {transposed}",
                                  lambda m, op=op, base=base, transposed=transposed:
                                  op(m, base(m, transposed=transposed))))
    _same(cases)


# --- integer tensors with Python ints out of their dtype's range --------------------------------

def test_integer_tensors_with_out_of_range_python_ints():
    """x.add_(300) of a uint8 tensor wraps as torch's kernel (NumPy refused the int);
    integer / int divides in the float result type (uint8 / -1 is -1.0, not 1/255);
    pow(integer tensor, int) checks the exponent against the dtype (a negative one is the
    kernel's error first); x **= e is pow_ in place (torch's __ipow__)."""
    cases = []
    for name in ("uint8", "int8", "int16", "int32", "int64", "bool"):
        for value in (-1, 0, 2, 200, 300, -129, 2**31, 2**40, 2**63 - 1, -2**63, 70000, -2):
            for op in ("add_", "sub_", "mul_", "remainder_", "floor_divide_", "bitwise_xor_",
                       "__iadd__", "__isub__", "__imul__", "__truediv__", "__rtruediv__",
                       "__floordiv__", "__mod__", "pow", "pow_", "__pow__", "__rpow__",
                       "__ipow__", "div"):
                def call(m, name=name, value=value, op=op):
                    x = m.tensor([1, 0, 3]).to(getattr(m, name))
                    return m.div(x, value) if op == "div" else getattr(x, op)(value)
                cases.append((f"{op} {name} {value}", call))

    def in_place_power(m):
        x = m.tensor([2., 3.])
        view = x[:1]
        x **= 2
        y = m.tensor([2.], requires_grad=True) * 1
        y **= 2
        return x, view, x._version, y.grad_fn.name()
    cases.append(("x **= 2", in_place_power))
    _same(cases)


def test_in_place_binary_ops_check_the_cast_before_the_kernel():
    """x.floor_divide_(y), remainder_, fmod_, bitwise_*_, shifts, atan2_, copysign_: torch's
    "result type ... can't be cast" comes before the kernel's own refusals (complex, zero
    division); float-promoting ops cast-check their float result; an in-place op refusing a
    complex operand (a Python scalar too) names the common dtype."""
    ops = ("floor_divide_", "remainder_", "fmod_", "bitwise_and_", "bitwise_or_",
           "bitwise_left_shift_", "atan2_", "lt_", "add_", "mul_")

    def operand(m, name, dims=True):
        return (m.tensor([1, 0, 3]) if dims else m.tensor(2)).to(getattr(m, name))

    cases = []
    for op in ops:
        for a in _DTYPES:
            for b in _DTYPES + (True, 2, -1, 2.5, 1j):
                b_name = b if isinstance(b, str) else "complex64" if isinstance(b, complex) \
                    else "float32"
                if "bfloat16" in (a, b_name) or ("float16" in (a, b_name)
                                                 and "complex" in a + b_name):
                    continue  # (bfloat16's names in kernel messages; complex32)
                cases.append((f"{op} {a} {b}", lambda m, op=op, a=a, b=b: getattr(
                    operand(m, a), op)(operand(m, b) if isinstance(b, str) else b)))
    _same(cases)


def test_reduction_and_scan_argument_errors():
    """logsumexp refuses dim=None, and logsumexp/cumsum/cumprod without a dim give torch's
    parser messages (function and method forms, positional and keyword)."""
    cases = []
    calls = {
        "logsumexp(x, None)": lambda m, x: m.logsumexp(x, None),
        "x.logsumexp(None)": lambda m, x: x.logsumexp(None),
        "x.logsumexp(dim=None)": lambda m, x: x.logsumexp(dim=None),
        "logsumexp(x)": lambda m, x: m.logsumexp(x), "x.logsumexp()": lambda m, x: x.logsumexp(),
        "logsumexp(x, 1, True)": lambda m, x: m.logsumexp(x, 1, True),
        "x.logsumexp((0, 1))": lambda m, x: x.logsumexp((0, 1)),
    }
    for name in ("cumsum", "cumprod"):
        calls.update({
            f"{name}(x)": lambda m, x, name=name: getattr(m, name)(x),
            f"x.{name}()": lambda m, x, name=name: getattr(x, name)(),
            f"{name}(x, dtype)": lambda m, x, name=name: getattr(m, name)(x, dtype=m.float64),
            f"{name}(x, 0.5)": lambda m, x, name=name: getattr(m, name)(x, 0.5),
            f"x.{name}('a')": lambda m, x, name=name: getattr(x, name)("a"),
            f"x.{name}(1, dtype)": lambda m, x, name=name: getattr(x, name)(1, dtype=m.float64),
            f"{name}(x, dim=-1)": lambda m, x, name=name: getattr(m, name)(x, dim=-1),
        })
    for name in ("prod", "median", "nanmedian", "max", "min"):  # dim=None: no overload
        calls.update({
            f"{name}(x, None)": lambda m, x, name=name: getattr(m, name)(x, None),
            f"{name}(x, dim=None)": lambda m, x, name=name: getattr(m, name)(x, dim=None),
            f"x.{name}(None)": lambda m, x, name=name: getattr(x, name)(None),
            f"x.{name}(dim=None, keepdim=True)":
                lambda m, x, name=name: getattr(x, name)(dim=None, keepdim=True),
            f"{name}(input=x, dim=None)":
                lambda m, x, name=name: getattr(m, name)(input=x, dim=None),
            f"{name}(x)": lambda m, x, name=name: getattr(m, name)(x),
            f"x.{name}(1, True)": lambda m, x, name=name: getattr(x, name)(1, True),
            f"{name}(x, (0, 1))": lambda m, x, name=name: getattr(m, name)(x, (0, 1)),
            f"{name}(x, None, True)": lambda m, x, name=name: getattr(m, name)(x, None, True),
            f"x.{name}(None, keepdim=True)":
                lambda m, x, name=name: getattr(x, name)(None, keepdim=True),
        })
    calls["count_nonzero(x, dim=0, keepdim=True)"] = \
        lambda m, x: m.count_nonzero(x, dim=0, keepdim=True)
    calls["x.count_nonzero((0, 1))"] = lambda m, x: x.count_nonzero((0, 1))
    for name in ("max", "min", "median", "mode", "argmax", "prod"):  # keyword forms
        calls.update({
            f"{name}(x, dim=(0, 1))": lambda m, x, name=name: getattr(m, name)(x, dim=(0, 1)),
            f"x.{name}(dim=(0, 1), keepdim=True)":
                lambda m, x, name=name: getattr(x, name)(dim=(0, 1), keepdim=True),
            f"{name}(x, keepdim=True, dim=None)":  # (torch lists keywords last passed first)
                lambda m, x, name=name: getattr(m, name)(x, keepdim=True, dim=None),
            f"{name}(x, (0, 1), True)": lambda m, x, name=name: getattr(m, name)(x, (0, 1), True),
        })
    for label, call in calls.items():
        cases.append((label, lambda m, call=call: call(m, m.arange(6.).reshape(2, 3))))
    _same(cases)


def test_bfloat16_copies_keep_the_bits():
    """clone/contiguous of a bfloat16 tensor copy its bits (the 0xFFFF NaN of a vectorised
    conversion too) instead of rounding them through float32."""
    cases = []
    for values in ([1.0, float("nan"), 2.0], [float("nan")] * 20, [-0.0, float("inf")]):
        def base(m, values=values):
            return m.tensor(values).to(m.bfloat16)
        copies = (("clone", lambda t: t.clone()), ("contiguous", lambda t: t.contiguous()),
                  ("expanded", lambda t: t.reshape(-1, 1).expand(-1, 2).contiguous()),
                  ("transposed", lambda t: t.reshape(-1, 1).t().clone()))
        for label, copy in copies:
            cases.append((f"{label} {values}", lambda m, base=base, copy=copy: copy(base(m))))
    _same(cases)
