"""Behaviours found by replaying PyTorch's own interop test files (test_numpy_interop.py,
test_spectral_ops.py, test_stateless.py, test_overrides.py, test_subclass.py) as programs run
under torch and leafgrad; each program's observations (values bit for bit, dtype, shape,
strides, NumPy arrays' strides and flags, errors and warnings) must be identical."""

from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _seen(value):
    """A comparable picture of ``value``: tensors by class, dtype, shape, bytes, strides and
    autograd state; NumPy arrays by dtype, shape, bytes, strides and flags."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        data = value.detach()
        if data.dtype.itemsize == 2 and data.dtype.is_floating_point:
            data = data.view(torch.int16 if isinstance(data, torch.Tensor) else leafgrad.int16)
        raw = np.ascontiguousarray(data.resolve_conj().numpy()).tobytes()
        node = value.grad_fn
        return ("tensor", type(value).__name__, str(value.dtype).split(".")[-1],
                tuple(value.shape), raw, value.stride() if value.numel() else None,
                value.requires_grad, type(node).__name__ if node is not None else None)
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.shape, value.tobytes(), value.strides,
                value.flags.writeable, value.flags.c_contiguous)
    if isinstance(value, np.generic):
        return ("numpy scalar", type(value).__name__, value.tobytes())
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


@contextlib.contextmanager
def _warn_always():
    """Both libraries' warn-once warnings on every occurrence (set_warn_always)."""
    before = torch.is_warn_always_enabled(), leafgrad.is_warn_always_enabled()
    torch.set_warn_always(True)
    leafgrad.set_warn_always(True)
    try:
        yield
    finally:
        torch.set_warn_always(before[0])
        leafgrad.set_warn_always(before[1])


# --- NumPy arrays wrapped or copied: strides, byte order, dtypes, read-only arrays ----------------

def _read_only(array):
    array.flags.writeable = False
    return array


def test_arrays_are_checked_as_tensor_from_numpy_checks_them():
    """from_numpy, as_tensor, asarray, Tensor(array), tensor(array) and new_tensor: strides
    must be whole elements and none negative (a reversed view is refused, even by the copying
    constructors), native byte order, then a dtype torch has (longdouble is refused, not a
    KeyError); a read-only array warns when the tensor would alias it (not when copied, nor
    when asarray converts it)."""
    arrays = {
        "reversed": lambda: np.arange(6.)[::-1], "reversed 2-d": lambda: np.arange(6.).reshape(
            2, 3)[:, ::-1], "empty reversed": lambda: np.arange(6.)[::-1][:0],
        "longdouble": lambda: np.ones(2, np.longdouble),
        "clongdouble": lambda: np.ones(2, np.clongdouble), "big-endian": lambda: np.zeros(
            2, ">f4"), "read-only": lambda: _read_only(np.zeros(5)), "str": lambda: np.array(
            ["a"]), "object": lambda: np.array([1, None], dtype=object),
        "datetime": lambda: np.array(["2020-01-01"], dtype="datetime64[D]"),
        "broadcast": lambda: np.broadcast_to(np.arange(3.), (2, 3)),
        "odd strides": lambda: np.lib.stride_tricks.as_strided(
            np.zeros(4), shape=(3,), strides=(3,)),
        "transposed": lambda: np.arange(6.).reshape(2, 3).T, "plain": lambda: np.arange(4.),
    }
    makers = {
        "from_numpy": lambda m, a: m.from_numpy(a), "tensor": lambda m, a: m.tensor(a),
        "as_tensor": lambda m, a: m.as_tensor(a), "asarray": lambda m, a: m.asarray(a),
        "asarray copy": lambda m, a: m.asarray(a, copy=True),
        "asarray float32": lambda m, a: m.asarray(a, dtype=m.float32),
        "as_tensor float32": lambda m, a: m.as_tensor(a, dtype=m.float32),
        "Tensor": lambda m, a: m.Tensor(a), "FloatTensor": lambda m, a: m.FloatTensor(a),
        "new_tensor": lambda m, a: m.zeros(1).new_tensor(a), "new": lambda m, a: m.zeros(1).new(a),
    }
    cases = [(f"{maker} {name}", lambda m, make=make, array=array: make(m, array()))
             for maker, make in makers.items() for name, array in arrays.items()]
    with _warn_always():
        _same(cases)


def test_numpy_and_array_hand_out_torch_s_arrays():
    """numpy() and np.asarray/np.array of a tensor for every dtype and layout (strided,
    offset, transposed, 0-d): the same values, strides and flags; an empty tensor's array has
    zero strides; bfloat16 has no NumPy array (np.asarray refuses it as numpy() does); a tensor
    requiring grad, or with the conj bit set, needs force=True."""
    cases = []
    for dtype in ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                  "bool", "complex64", "complex128", "bfloat16"):
        views = {"contiguous": lambda x: x, "t": lambda x: x.t(), "narrow": lambda x: x.narrow(
            0, 1, 3), "holes": lambda x: x.narrow(0, 1, 3).narrow(1, 2, 3).t(),
            "step": lambda x: x[::2], "0-d": lambda x: x[0, 0], "empty": lambda x: x[:0],
            "empty 2-d": lambda x: x[:, :0].t()}
        # (not replayed: an expanded tensor's array, writeable in torch, read-only here)
        for view_name, view in views.items():
            def source(m, dtype=dtype, view=view):
                return view(m.arange(30).reshape(5, 6).to(getattr(m, dtype)))
            cases.append((f"numpy {dtype} {view_name}", lambda m, s=source: s(m).numpy()))
            cases.append((f"np.asarray {dtype} {view_name}",
                          lambda m, s=source: np.asarray(s(m))))
            cases.append((f"np.asarray float64 {dtype} {view_name}",
                          lambda m, s=source: np.asarray(s(m), dtype=np.float64)))
    for force in (False, True):
        for requires_grad in (False, True):
            for conj in (False, True):
                def program(m, force=force, requires_grad=requires_grad, conj=conj):
                    x = m.tensor([[1 + 2j, -2 + 3j]], requires_grad=requires_grad)
                    return (x.conj() if conj else x).numpy(force=force)
                cases.append((f"numpy(force={force}) {requires_grad} {conj}", program))
    _same(cases)


def test_numpy_integers_are_ints_to_the_argument_parser():
    """A NumPy integer (int64, int32, uint8, int16) is an int wherever torch takes one: dims
    of reductions, movedim, roll, flip, norm, logsumexp, count_nonzero, tensor_split's
    sections, tril's diagonal, chunk's count (no uint8 wrap-around), and as the list of one."""
    calls = {
        "sum": lambda m, x, i: x.sum(i), "torch.sum": lambda m, x, i: m.sum(x, i),
        "mean": lambda m, x, i: x.mean(i), "amax": lambda m, x, i: x.amax(i),
        "std": lambda m, x, i: x.std(i), "var": lambda m, x, i: m.var(x, i),
        "nansum": lambda m, x, i: x.nansum(i), "all": lambda m, x, i: x.all(i),
        "count_nonzero": lambda m, x, i: x.count_nonzero(i),
        "logsumexp": lambda m, x, i: x.logsumexp(i), "norm": lambda m, x, i: x.norm(dim=i),
        "normalize": lambda m, x, i: m.nn.functional.normalize(x, dim=i),
        "movedim": lambda m, x, i: x.movedim(i, 0), "roll": lambda m, x, i: x.roll(i, i),
        "flip": lambda m, x, i: x.flip(i), "tril": lambda m, x, i: x.tril(i),
        "triu": lambda m, x, i: x.triu(i), "chunk": lambda m, x, i: x.chunk(i * 2, i),
        "tensor_split": lambda m, x, i: x.tensor_split(i, i), "diag": lambda m, x, i: x.diag(i),
        "softmax": lambda m, x, i: x.softmax(i), "cumsum": lambda m, x, i: x.cumsum(i),
        "unsqueeze": lambda m, x, i: x.unsqueeze(i), "topk": lambda m, x, i: x.topk(i, i),
        "view": lambda m, x, i: x.view(i * 2, -1), "permute": lambda m, x, i: x.permute(i, 0),
        "repeat": lambda m, x, i: x.repeat(i, i), "zeros": lambda m, x, i: m.zeros(i, i),
        "select": lambda m, x, i: x.select(i, i), "cat": lambda m, x, i: m.cat([x, x], i),
    }
    cases = []
    for name, call in calls.items():
        for kind in (np.int64, np.int32, np.uint8, np.int16):
            cases.append((f"{name} {kind.__name__}", lambda m, call=call, kind=kind: call(
                m, m.arange(8.).reshape(2, 4), kind(1))))
    _same(cases)


def test_numpy_scalars_as_operands_and_fill_values():
    """A NumPy scalar operand is torch's Scalar: integers as int, np.complex128 (a Python
    complex) as complex, every other one as float, so np.complex64 loses its imaginary part
    with NumPy's ComplexWarning (in == and != too), np.bool_ is 1.0; arange and full read
    np.float32 and np.bool_ bounds and fill values as floats."""
    operators = {
        "*": lambda t, s: t * s, "r*": lambda t, s: s * t, "+": lambda t, s: t + s,
        "r-": lambda t, s: s - t, "/": lambda t, s: t / s, "r/": lambda t, s: s / t,
        "**": lambda t, s: t ** s, "==": lambda t, s: t == s, "r==": lambda t, s: s == t,
        "!=": lambda t, s: t != s, "<": lambda t, s: t < s, "add": lambda t, s: t.add(s),
        "add_": lambda t, s: t.clone().add_(s),
    }
    cases = []
    for kind in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.float16,
                 np.complex64, np.complex128):
        for dtype in ("float32", "float64", "int64", "bfloat16", "complex64", "bool"):
            if kind is np.complex128 and dtype == "float16":
                continue  # (complex32: not in leafgrad)
            for name, operator in operators.items():
                def program(m, kind=kind, dtype=dtype, operator=operator):
                    return operator(m.ones(2, dtype=getattr(m, dtype)), kind(2))
                cases.append((f"{dtype} {name} {kind.__name__}", program))
            cases.append((f"{dtype} requires grad * {kind.__name__}", lambda m, k=kind, d=dtype: (
                m.ones(2, dtype=getattr(m, d), requires_grad=True) * k(2)) if d in (
                "float32", "float64") else None))
        if kind is np.complex128:
            continue  # (torch: a complex bound is read as its real part; not replayed)
        cases.append((f"arange {kind.__name__}", lambda m, k=kind: m.arange(k(3))))
        cases.append((f"arange 0, x, {kind.__name__}", lambda m, k=kind: m.arange(0, 5, k(2))))
        cases.append((f"full {kind.__name__}", lambda m, k=kind: m.full((2,), k(3))))
    _same(cases)


def test_setitem_takes_a_tensor_or_a_python_number():
    """x[i] = v: torch reads v before the index and takes a tensor, a Python int, float, bool
    or complex (NumPy integers, np.float64, np.complex128); a list, tuple, ndarray, None, str,
    np.float32 or np.bool_ is "can't assign a ... to a torch.FloatTensor"; a complex with a zero
    imaginary part writes its real part into a real tensor (NaN not into an integer one)."""
    values = {
        "list": lambda: [1., 2., 3.], "tuple": lambda: (1., 2., 3.), "ndarray": lambda: np.ones(
            3), "0-d ndarray": lambda: np.array(2.), "None": lambda: None, "str": lambda: "a",
        "np.float32": lambda: np.float32(2), "np.bool_": lambda: np.bool_(True),
        "np.uint64": lambda: np.uint64(3), "np.int8": lambda: np.int8(3),
        "np.float64": lambda: np.float64(2), "np.complex128": lambda: np.complex128(1),
        "1+0j": lambda: 1 + 0j, "1+2j": lambda: 1 + 2j, "nan+0j": lambda: complex(math.nan, 0),
    }
    cases = []
    for dtype in ("float32", "bfloat16", "int64", "complex64", "bool", "float16"):
        for name, value in values.items():
            for index in (0, (slice(None),), "tensor", (5, "x")):
                def program(m, dtype=dtype, value=value, index=index):
                    x = m.zeros(3, dtype=getattr(m, dtype))
                    x[m.tensor([0, 2]) if index == "tensor" else index] = value()
                    return x
                cases.append((f"{dtype}[{index}] = {name}", program))
            cases.append((f"{dtype}.fill_({name})", lambda m, d=dtype, v=value: m.zeros(
                3, dtype=getattr(m, d)).fill_(v()) if not isinstance(v(), (
                    list, tuple, np.ndarray, str, type(None))) else None))
    _same(cases)


def test_lists_of_ndarrays():
    """torch.tensor of a list holding ndarrays walks them as nested sequences: it warns (once
    per process, every time under set_warn_always) as it stores each one; a ragged one is
    "expected sequence of length n at dim d" for the first dim that differs, a row that runs
    out of dims is "not a sequence", and an array where a number belongs is NumPy's own
    conversion error (float's, or the index one for integer and bool dtypes)."""
    datas = {
        "two rows": lambda: [np.array([0]), np.array([1])],
        "tuple": lambda: (np.array([0]),), "nested": lambda: [[np.zeros(2)]],
        "3x3 3x0": lambda: [np.zeros((3, 3)), np.zeros((3, 0))],
        "[[3x3 3x2]]": lambda: [[np.zeros((3, 3)), np.zeros((3, 2))]],
        "3 and a number": lambda: [[np.zeros(3), np.float64(0.5)]],
        "list then array": lambda: [[1, 2, 3], np.zeros(2)],
        "list then fitting array": lambda: [[1., 2.], np.zeros(2)],
        "number then array": lambda: [1., np.zeros(2)],
        "3 then 3x2": lambda: [np.zeros(3), np.zeros((3, 2))],
        "int 3 then 3x1": lambda: [np.zeros(3, np.int64), np.zeros((3, 1), np.int64)],
        "2x2 then 2x3": lambda: [np.zeros((2, 2)), np.zeros((2, 3))],
        "empty rows": lambda: [np.zeros((2, 0)), np.zeros((2, 0))],
        "mixed dtypes": lambda: [np.zeros(2, np.float32), np.zeros(2, np.int64)],
    }
    cases = []
    for name, data in datas.items():
        for dtype in (None, "int64", "complex64", "bool"):
            def program(m, data=data, dtype=dtype):
                return m.tensor(data(), dtype=getattr(m, dtype) if dtype else None)
            cases.append((f"tensor({name}, dtype={dtype})", program))
        cases.append((f"as_tensor({name})", lambda m, data=data: m.as_tensor(data())))
    with _warn_always():
        _same(cases)


def test_numpy_scalars_as_tensor_data():
    """torch.tensor of NumPy scalars keeps their dtype, but stores no NumPy scalar into a
    uint64 tensor ("an integer is required"), as torch unpacks only a Python int there."""
    cases = []
    for kind in (np.uint64, np.uint32, np.uint16, np.int8, np.float16, np.float32, np.bool_,
                 np.int64, np.complex128):
        cases.append((f"tensor({kind.__name__})", lambda m, k=kind: m.tensor(k(42))))
        cases.append((f"tensor([{kind.__name__}] * 2)", lambda m, k=kind: m.tensor([k(4), k(1)])))
        cases.append((f"as_tensor({kind.__name__})", lambda m, k=kind: m.as_tensor(k(42))))
        cases.append((f"asarray({kind.__name__})", lambda m, k=kind: m.asarray(k(42))))
        for dtype in ("uint64", "int64", "float32"):
            cases.append((f"tensor({kind.__name__}, {dtype})", lambda m, k=kind, d=dtype: m.tensor(
                k(42), dtype=getattr(m, d))))
    _same(cases)


def test_storages_shared_with_numpy_cannot_grow():
    """A storage NumPy shares (from_numpy, as_tensor or asarray of an array, or any tensor of
    it once numpy() or __array__ handed it out) is not resizable: resize_ may shrink or keep
    it, growing it is torch's "Trying to resize storage that is not resizable"."""
    def after(hand_out):
        def make(m):
            t = m.zeros(4)
            hand_out(t)
            return t
        return make
    makers = {
        "from_numpy": lambda m: m.from_numpy(np.zeros(4)),
        "from_numpy view": lambda m: m.from_numpy(np.zeros(8))[2:],
        "as_tensor": lambda m: m.as_tensor(np.zeros(4)), "asarray": lambda m: m.asarray(
            np.zeros(4)), "tensor": lambda m: m.tensor(np.zeros(4)),
        "as_tensor converted": lambda m: m.as_tensor(np.zeros(4), dtype=m.float32),
        "zeros": lambda m: m.zeros(4), "numpy()": after(lambda t: t.numpy()),
        "a view's numpy()": after(lambda t: t[1:].numpy()),
        "detach().numpy()": after(lambda t: t.detach().numpy()),
        "np.asarray": after(np.asarray),
    }
    cases = []
    for name, make in makers.items():
        for size in ((2,), (4,), (2, 2), (5,), (3, 3), (0,)):
            cases.append((f"{name} resize_{size}",
                          lambda m, make=make, size=size: make(m).resize_(size).shape))
    _same(cases)
