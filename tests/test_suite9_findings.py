"""Behaviours found by replaying PyTorch's own interop test files (test_numpy_interop.py,
test_spectral_ops.py, test_stateless.py, test_overrides.py, test_subclass.py) as programs run
under torch and leafgrad; each program's observations (values bit for bit, dtype, shape,
strides, NumPy arrays' strides and flags, errors and warnings) must be identical."""

from __future__ import annotations

import contextlib
import copy
import io
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


# --- functional_call / nn.utils.stateless: tied weights, buffers, strict, errors -----------------

class _NonTensor:
    def __repr__(self) -> str:
        return "<NonTensor>"


def _mock_module(m, tied: bool):
    """test_stateless.py's MockModule (or MockTiedModule: l1.bias and buffer also held under a
    second name), with fixed weights."""
    class MockModule(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = m.nn.Linear(1, 1)
            if tied:
                self.tied_bias = self.l1.bias
            self.buffer = m.nn.Buffer(m.ones(1))
            if tied:
                self.tied_buffer = self.buffer
            self.foo = 0.0

        def forward(self, x):
            out = self.l1(x) + self.buffer
            return out + self.tied_bias + self.tied_buffer if tied else out

    module = MockModule()
    with m.no_grad():
        module.l1.weight.fill_(0.5)
        module.l1.bias.fill_(0.25)
    return module


def _functional_call(m, name):
    return m.func.functional_call if name == "func" else m.nn.utils.stateless.functional_call


def test_functional_call_reparametrizes_as_torch_does():
    """torch.func.functional_call and nn.utils.stateless.functional_call (deprecated, one
    dict only): given tensors swap in for parameters, buffers and plain attributes and back
    (the module unchanged, gradients only on the given tensors); with tie_weights a value for
    one name of a tied tensor goes to all (nn.Buffer marks the registered tensor, so assigning
    it again ties a buffer), different values are an error, and strict checks the untied keys;
    None removes a tensor; a non-tensor value, a non-tensor attribute and a missing submodule
    are torch's TypeErrors and AttributeError."""
    given = {
        "all": lambda m: {"l1.weight": m.tensor([[2.0]]), "l1.bias": m.tensor([5.0]),
                          "buffer": m.tensor([3.0])},
        "some": lambda m: {"l1.weight": m.tensor([[2.0]])},
        "extra": lambda m: {"l1.weight": m.tensor([[2.0]]), "l1.bias": m.tensor([5.0]),
                            "buffer": m.tensor([3.0]), "extra": m.tensor([1.0])},
        "some and extra": lambda m: {"l1.weight": m.tensor([[2.0]]), "extra": m.tensor([1.0])},
        "None bias": lambda m: {"l1.weight": m.tensor([[2.0]]), "l1.bias": None,
                                "buffer": m.tensor([3.0])},
        "not a tensor": lambda m: {"l1.weight": _NonTensor()},
        "plain attribute": lambda m: {"l1.weight": m.tensor([[2.0]]), "foo": m.tensor([1.0])},
        "missing submodule": lambda m: {"l1.weight": m.tensor([[2.0]]), "l2.bias": m.tensor(
            [5.0])},
        "requiring grad": lambda m: {"l1.weight": m.tensor([[1.0]], requires_grad=True),
                                     "l1.bias": m.tensor([0.0], requires_grad=True),
                                     "buffer": m.tensor([0.0])},
        "tied, same values": lambda m: (lambda b, f: {
            "l1.weight": m.tensor([[1.0]]), "l1.bias": b, "buffer": f, "tied_bias": b,
            "tied_buffer": f})(m.tensor([0.0]), m.tensor([0.0])),
        "tied, two biases": lambda m: {"l1.weight": m.tensor([[1.0]]), "l1.bias": m.tensor(
            [0.0]), "buffer": m.tensor([0.0]), "tied_bias": m.tensor([5.0])},
        "tied, two buffers": lambda m: {"l1.weight": m.tensor([[1.0]]), "l1.bias": m.tensor(
            [0.0]), "buffer": m.tensor([0.0]), "tied_buffer": m.tensor([5.0])},
        "weight and buffer": lambda m: {"l1.weight": m.tensor([[2.0]]), "buffer": m.tensor(
            [3.0])},
        "a Parameter": lambda m: {"l1.weight": m.nn.Parameter(m.tensor([[2.0]]))},
        "empty": lambda m: {},
        "three dicts": lambda m: ({"l1.weight": m.ones(1, 1)}, {"l1.bias": m.ones(1)},
                                  {"buffer": m.zeros(1)}),
        "repeated key": lambda m: ({"l1.weight": m.zeros(1, 1)}, {"l1.weight": m.ones(1, 1)}),
        "no dicts": lambda m: (),
        "wrong shape": lambda m: {"l1.weight": m.tensor([[2.0, 3.0]])},
    }
    cases = []
    for tied in (False, True):
        for name in ("func", "stateless"):
            for label, values in given.items():
                for options in ({}, {"strict": True}, {"tie_weights": False},
                                {"tie_weights": False, "strict": True}):
                    def program(m, tied=tied, name=name, values=values, options=options):
                        module = _mock_module(m, tied)
                        try:
                            out = _functional_call(m, name)(module, values(m),
                                                            m.tensor([[0.5]]), **options)
                            if out.requires_grad:
                                out.sum().backward()
                            outcome = ("ok", _seen(out))
                        except Exception as error:  # noqa: BLE001 - compared
                            outcome = (type(error).__name__, str(error).split("\n")[0])
                        state = [(key, _seen(value)) for key, value in
                                 module.state_dict().items()]
                        return (outcome, state, [n for n, _ in module.named_parameters()],
                                [n for n, _ in module.named_buffers()],
                                [_seen(p.grad) for p in module.parameters()])
                    cases.append((f"tied={tied} {name} {label} {options}", program))
    _same(cases)


def test_functional_call_writes_back_and_passes_arguments():
    """After the call the given dict holds the module's final tensors (a forward that
    reassigns a buffer leaves the new one there, an in-place one the same tensor); a name the
    module lacks is set for the call only (strict refuses it); args and kwargs as torch passes
    them; running statistics go to the given buffers; a parametrization's original can be
    given; members seen during the call are the given tensors; func.functional_call's
    argument errors."""
    def foo_module(m, in_place):
        class Foo(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.foo = m.nn.Buffer(m.tensor([0.0]))

            def forward(self, x):
                if in_place:
                    self.foo.add_(1)
                else:
                    self.foo = self.foo + 1
                return x + self.foo
        return Foo()

    cases = []
    for name in ("func", "stateless"):
        for in_place in (False, True):
            def program(m, name=name, in_place=in_place):
                foo = m.tensor([2.0])
                given = {"foo": foo}
                module = foo_module(m, in_place)
                out = _functional_call(m, name)(module, given, m.tensor([1.0]))
                return out, module.foo, given["foo"], foo, given["foo"] is foo
            cases.append((f"{name} reassigning forward in_place={in_place}", program))

        def unknown_name(m, name=name):
            class Bar(m.nn.Module):
                def forward(self, x):
                    return x + self.extra
            module, seen = Bar(), []
            for given, options in (({"extra": m.zeros(())}, {}),
                                   ({"extra": m.zeros(())}, {"strict": True}), ({}, {}),
                                   ({}, {"strict": True})):
                try:
                    seen.append(_functional_call(m, name)(module, given, m.ones(()), **options))
                except Exception as error:  # noqa: BLE001 - compared
                    seen.append((type(error).__name__, str(error).split("\n")[0]))
                seen.append(hasattr(module, "extra"))
            return seen
        cases.append((f"{name} a name the module lacks", unknown_name))

        def keywords(m, name=name):
            class Foo(m.nn.Module):
                def __init__(self, x):
                    super().__init__()
                    self.x = x

                def forward(self, inp, *, other_inp):
                    return inp * self.x + other_inp
            given, module = {"x": m.zeros(2, 3)}, Foo(m.ones(2, 3))
            inp, other = m.full((2, 3), 2.), m.full((2, 3), 3.)
            call, seen = _functional_call(m, name), []
            for run in (lambda: call(module, given, inp),
                        lambda: call(module, given, inp, {"other_inp": other}),
                        lambda: call(module, given, (), {"inp": inp, "other_inp": other}),
                        lambda: call(module, given, kwargs={"inp": inp, "other_inp": other}),
                        lambda: call(module, given, [inp], {"other_inp": other})):
                try:
                    seen.append(run())
                except Exception as error:  # noqa: BLE001 - compared
                    seen.append((type(error).__name__, str(error).split("\n")[0]))
            return seen
        cases.append((f"{name} args and kwargs", keywords))

        def batch_norm(m, name=name):
            module = m.nn.BatchNorm1d(10)
            x, running_mean = m.full((20, 10), 128.0), m.zeros(10)
            _functional_call(m, name)(module, {"running_mean": running_mean}, x)
            kept = module.running_mean.clone()
            _functional_call(m, name)(module, {}, x)
            return kept, running_mean, module.running_mean, module.num_batches_tracked
        cases.append((f"{name} batch norm statistics", batch_norm))

        def members(m, name=name):
            class Module(m.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l1 = m.nn.Linear(1, 1)
                    self.buffer = m.nn.Buffer(m.ones(1))

                def forward(self, x):
                    return (self.l1(x) + self.buffer, tuple(self.parameters()),
                            tuple(self.buffers()))
            module = Module()
            with m.no_grad():
                module.l1.weight.fill_(0.5)
                module.l1.bias.fill_(0.25)
            weight, extra, seen = m.tensor([[2.0]]), m.tensor([1.0]), []
            for given in ({"l1.weight": weight, "l1.bias": m.tensor([5.0]),
                           "buffer": m.tensor([3.0])}, {"l1.weight": weight},
                          {"l1.weight": weight, "extra": extra},
                          {"l1.weight": weight, "extra": m.nn.Parameter(extra)},
                          {"l1.weight": weight, "extra": m.nn.Buffer(extra)}):
                out, parameters, buffers = _functional_call(m, name)(module, given,
                                                                     m.tensor([[1.0]]))
                seen.append((out, [type(t).__name__ for t in parameters], list(parameters),
                             list(buffers), [t is weight for t in parameters]))
            return seen
        cases.append((f"{name} members during the call", members))

        def spectral_norm(m, name=name):
            module = _mock_module(m, False)
            m.nn.utils.parametrizations.spectral_norm(module.l1)
            given = {"l1.parametrizations.weight.original": m.nn.Parameter(m.tensor([[1.0]])),
                     "l1.bias": m.tensor([0.0]), "buffer": m.tensor([0.0])}
            out = _functional_call(m, name)(module, given, m.tensor([[0.75]]))
            try:
                _functional_call(m, name)(module, given, m.ones(4, 5))
                error = None
            except Exception as raised:  # noqa: BLE001 - compared
                error = (type(raised).__name__, str(raised).split("\n")[0])
            return out, error, [n for n, _ in module.named_parameters()], module.l1.weight
        cases.append((f"{name} a parametrization's original", spectral_norm))

    def bad_dicts(m):
        module, seen = _mock_module(m, False), []
        for given in ([{"l1.weight": m.ones(1, 1)}, 3], "abc", 3, None, [{}]):
            try:
                seen.append(m.func.functional_call(module, given, m.ones(1, 1)))
            except Exception as error:  # noqa: BLE001 - compared
                seen.append((type(error).__name__, str(error).split("\n")[0]))
        return seen
    cases.append(("func.functional_call's argument errors", bad_dicts))

    def circular(m):
        module = _mock_module(m, False)
        module.l1.m = module
        return m.func.functional_call(module, {"l1.m.l1.weight": m.tensor([[1.0]]),
                                               "l1.bias": m.tensor([0.0]),
                                               "l1.m.buffer": m.tensor([0.0])},
                                      m.tensor([[0.5]]), tie_weights=False)
    cases.append(("a circular reference", circular))
    _same(cases)


def test_buffer_is_a_marked_plain_tensor():
    """nn.Buffer(t) is a plain Tensor (t detached) marked persistent and _is_buffer, so
    isinstance(x, nn.Buffer) holds for it and for the registered tensor; register_buffer
    takes persistent from its argument only."""
    def program(m):
        data = m.ones(2, requires_grad=True)
        buffer = m.nn.Buffer(data, persistent=False)
        module = m.nn.Module()
        module.a = buffer
        module.b = module.a
        module.register_buffer("c", m.nn.Buffer(m.zeros(1), persistent=False))
        module.d = m.zeros(1)
        return (type(buffer).__name__, buffer.requires_grad, buffer.grad_fn is None,
                isinstance(buffer, m.nn.Buffer), isinstance(data, m.nn.Buffer),
                isinstance(module.a, m.nn.Buffer), module.a is buffer,
                [n for n, _ in module.named_buffers(remove_duplicate=False)],
                list(module.state_dict()), isinstance(m.nn.Buffer(), m.Tensor))
    _same([("buffers", program)])


# --- Tensor subclasses: nn.Parameter of a subclass, deepcopy, serialization, propagation ----------

def _non_wrapper_tensor(m):
    """common_subclass.py's NonWrapperTensor: a _make_subclass subclass whose
    __torch_function__ records the last function in ``extra_state``."""
    class NonWrapperTensor(m.Tensor):
        def __new__(cls, data):
            t = m.Tensor._make_subclass(cls, data)
            t.extra_state = {"last_func_called": None}
            return t

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            result = super().__torch_function__(func, types, args, kwargs)
            if isinstance(result, cls):
                if func is m.Tensor.__deepcopy__:
                    result.extra_state = copy.deepcopy(args[0].extra_state)
                else:
                    result.extra_state = {"last_func_called": func.__name__}
            return result

        def new_empty(self, shape):
            return type(self)(m.empty(shape))
    return NonWrapperTensor


def _define_subclasses() -> None:
    """Make the classes as each test starts (defining one switches leafgrad's dispatch on,
    which other test files switch off when they end), as module globals that pickle finds."""
    for name, m in (("TorchNonWrapperTensor", torch), ("LeafgradNonWrapperTensor", leafgrad)):
        cls = _non_wrapper_tensor(m)
        cls.__qualname__ = name
        globals()[name] = cls


def _subclass_instance(m, kind):
    data = m.arange(3.) + 0.5
    if kind == "Tensor":
        return data
    return globals()["TorchNonWrapperTensor" if m is torch else "LeafgradNonWrapperTensor"](data)


def _saved_and_loaded(m, value):
    buffer = io.BytesIO()
    m.save(value, buffer)
    buffer.seek(0)
    return m.load(buffer, weights_only=False)


def test_subclass_instances_as_parameters_copies_and_checkpoints():
    """test_subclass.py for a plain Tensor and a __torch_function__ subclass: nn.Parameter of
    a subclass instance is that subclass marked as a parameter (isinstance Parameter, repr
    Parameter(NonWrapperTensor(...)), the argument untouched); deepcopy makes the copy with
    the subclass's new_empty and copies __dict__ (a leaf, the marks kept); save/load pickles
    the subclass by reference and rebuilds it with as_subclass and its attributes; ops
    propagate the subclass but not parameter-ness; a module of subclass parameters trains and
    a parametrization keeps the subclass."""
    _define_subclasses()
    cases = []
    for kind in ("Tensor", "NonWrapperTensor"):
        for requires_grad in (False, True):
            def parameter(m, kind=kind, requires_grad=requires_grad):
                x = _subclass_instance(m, kind).requires_grad_(requires_grad)
                p = m.nn.Parameter(x, requires_grad=not requires_grad)
                return (type(p).__name__, isinstance(p, m.nn.Parameter), p, type(x).__name__,
                        isinstance(x, m.nn.Parameter), x.requires_grad,
                        getattr(p, "extra_state", None))
            cases.append((f"Parameter({kind}) {requires_grad}", parameter))
            for as_param in (False, True):
                def saved(m, kind=kind, requires_grad=requires_grad, as_param=as_param):
                    x = _subclass_instance(m, kind).requires_grad_(requires_grad)
                    if as_param:
                        x = m.nn.Parameter(x)
                    y = _saved_and_loaded(m, {"x": x, "again": [x]})
                    return (type(y["x"]).__name__, y["x"], isinstance(y["x"], m.nn.Parameter),
                            getattr(y["x"], "extra_state", None), sorted(y["x"].__dict__),
                            y["again"][0] is y["x"])
                cases.append((f"save/load {kind} {requires_grad} {as_param}", saved))
        for as_param in (False, True):
            def copied(m, kind=kind, as_param=as_param):
                x = _subclass_instance(m, kind)
                if as_param:
                    x = m.nn.Parameter(x)
                y = copy.deepcopy(x)
                return (type(y).__name__, y is x, y, isinstance(y, m.nn.Parameter),
                        getattr(y, "extra_state", None))
            cases.append((f"deepcopy {kind} {as_param}", copied))

            def printed(m, kind=kind, as_param=as_param):
                x = _subclass_instance(m, kind)
                if as_param:
                    x = m.nn.Parameter(x)
                return repr(x).replace("leafgrad", "torch"), str(x).replace("leafgrad", "torch")
            cases.append((f"repr {kind} {as_param}", printed))

            def propagated(m, kind=kind, as_param=as_param):
                x = _subclass_instance(m, kind)
                if as_param:
                    x = m.nn.Parameter(x)
                outs = [x + _subclass_instance(m, "Tensor"), x * 2, x.sum(), x[0], x.view(3),
                        m.add(x, 1), x.detach(), x.clone(), m.cat([x, x]), x.split(1),
                        x.max(0), m.nn.functional.relu(x), x.to(m.float64), x.data]
                return [(type(o).__name__, getattr(o, "extra_state", None), o,
                         isinstance(o, m.nn.Parameter)) if not isinstance(o, tuple) else
                        [(type(p).__name__, p) for p in o] for o in outs]
            cases.append((f"ops on {kind} {as_param}", propagated))

        def trained(m, kind=kind):
            class MyModule(m.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.p1 = m.nn.Parameter(_subclass_instance(m, kind))
                    self.p_list = m.nn.ParameterList([_subclass_instance(m, kind)
                                                      for _ in range(3)])
                    self.p_list.append(_subclass_instance(m, kind))
                    self.p_dict = m.nn.ParameterDict({"foo": _subclass_instance(m, kind)})
                    self.p_dict["baz"] = _subclass_instance(m, kind)

                def forward(self, x):
                    out = self.p1 + x
                    for p in self.p_list:
                        out = p + out
                    for v in self.p_dict.values():
                        out = v + out
                    return out
            module = MyModule()
            optimizer = m.optim.SGD(module.parameters(), lr=0.1)
            out = module(_subclass_instance(m, kind))
            out.sum().backward(m.tensor(1))
            optimizer.step()
            return (len(module.state_dict()), out,
                    [(n, type(p).__name__, p) for n, p in module.named_parameters()])
        cases.append((f"training {kind}", trained))
        for leave in (False, True):
            def parametrized(m, kind=kind, leave=leave):
                class MyModule(m.nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.weight = m.nn.Parameter(_subclass_instance(m, kind))

                    def forward(self, x):
                        return self.weight + x

                class Negated(m.nn.Module):
                    def forward(self, X):
                        return -X
                module = MyModule()
                m.nn.utils.parametrize.register_parametrization(module, "weight", Negated())
                weight = module.weight
                out = module(_subclass_instance(m, "Tensor"))
                m.nn.utils.parametrize.remove_parametrizations(module, "weight",
                                                               leave_parametrized=leave)
                return type(weight).__name__, weight, type(out).__name__, out, module.weight
            cases.append((f"parametrization {kind} {leave}", parametrized))
    _same(cases)


# --- __torch_function__: operators, factories and autograd.grad under modes ----------------------

def _dispatch_classes(m):
    """test_overrides.py's DiagonalTensor (a tensor-like, not a Tensor), SubDiagonalTensor and
    SubTensor (a Tensor subclass), each with a table of handled functions; a Python function
    ``foo`` that dispatches as torch.functional's do."""
    def foo(a, b, c=None):
        if any(type(t) is not m.Tensor for t in (a, b, c)) and \
                m.overrides.has_torch_function((a, b, c)):
            return m.overrides.handle_torch_function(foo, (a, b, c), a, b, c=c)
        return a + b + c if c else a + b

    diagonal, sub, sub_diagonal = {}, {}, {}

    class DiagonalTensor:
        handled_functions = diagonal

        def __init__(self, n, value):
            self._N, self._i = n, value

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func not in cls.handled_functions:
                return NotImplemented
            return cls.handled_functions[func](*args, **(kwargs or {}))

    class SubDiagonalTensor(DiagonalTensor):
        handled_functions = sub_diagonal

    class SubTensor(m.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func not in sub:
                return NotImplemented
            return sub[func](*args, **(kwargs or {}))

    diagonal.update({m.mean: lambda mat: float(mat._i) / mat._N, m.mm: lambda a, b: 0,
                     m.div: lambda input, other, out=None: -1, foo: lambda a, b, c=None: -1})
    sub.update({m.mean: lambda mat: 0, m.mm: lambda a, b: -1,
                m.div: lambda input, other, out=None: NotImplemented})
    sub_diagonal.update({m.mean: lambda mat: 10 * float(mat._i) / mat._N, m.mm: lambda a, b: 1,
                         m.div: lambda input, other, out=None: NotImplemented,
                         foo: lambda a, b, c=None: NotImplemented})
    return {"D": lambda: DiagonalTensor(5, 2), "SD": lambda: SubDiagonalTensor(5, 2),
            "S": lambda: m.tensor([[1., 2.], [1., 2.]]).as_subclass(SubTensor),
            "T": lambda: m.eye(5) * 2, "foo": foo}


def test_dispatch_precedence_and_operators_that_find_no_handler():
    """Dispatch order (subclasses before their bases, then left to right) for torch functions
    and a Python function; when every handler returns NotImplemented a torch function is a
    TypeError, but an operator (x * y, x @ y, x + y) returns NotImplemented, so Python tries
    the reflected one and raises "unsupported operand type(s)" as torch's do."""
    cases = []
    kinds = ("D", "SD", "S", "T")
    for a in kinds:
        cases.append((f"mean({a})", lambda m, a=a: m.mean(_dispatch_classes(m)[a]())))
        for b in kinds:
            def call(m, a=a, b=b, how=None):
                made = _dispatch_classes(m)
                x, y = made[a](), made[b]()
                return how(m, made, x, y)
            for label, how in (("mm", lambda m, made, x, y: m.mm(x, y)),
                               ("div", lambda m, made, x, y: m.div(x, y)),
                               ("mul", lambda m, made, x, y: m.mul(x, y)),
                               ("foo", lambda m, made, x, y: made["foo"](x, y)),
                               ("*", lambda m, made, x, y: x * y),
                               ("@", lambda m, made, x, y: x @ y),
                               ("+", lambda m, made, x, y: x + y),
                               ("==", lambda m, made, x, y: x == y),
                               ("-=", lambda m, made, x, y: x.__isub__(y)),
                               ("stack", lambda m, made, x, y: m.stack([x, y]))):
                cases.append((f"{label}({a}, {b})", lambda m, call=call, how=how: call(m, how=how)))
    for first, second in (("S2", "S3"), ("S3", "S2"), ("S2", "S2"), ("S2", "T")):
        def mixed(m, first=first, second=second):
            class SubTensor2(m.Tensor):
                pass

            class SubTensor3(m.Tensor):
                pass
            make = {"S2": lambda: m.ones(2).as_subclass(SubTensor2),
                    "S3": lambda: m.ones(2).as_subclass(SubTensor3), "T": lambda: m.ones(2)}
            x, y = make[first](), make[second]()
            return [(type(out).__name__, out) for out in (x + y, m.add(x, y), m.cat([x, y]))]
        cases.append((f"{first} + {second}", mixed))
    _same(cases)


def test_modes_see_factories_and_autograd_grad_as_one_call():
    """A TorchFunctionMode sees the factories torch's argument parser reads (ones, tensor,
    arange, randn, windows, promote_types...; not from_numpy, get_default_dtype or
    is_tensor), which stay out of get_overridable_functions; autograd.grad reaches it as one
    call (with the plain Tensor type), not as the calls grad makes; a mode returning
    NotImplemented makes every call it sees a TypeError; a plain-method __torch_function__
    warns (every time under set_warn_always)."""
    def factories(m):
        seen = []

        class Log(m.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append((func.__name__, [t.__name__ for t in types]))
                return func(*args, **(kwargs or {}))
        with Log():
            m.ones(2), m.zeros(2), m.tensor([1.]), m.arange(3), m.empty(2), m.full((2,), 1.)
            m.eye(2), m.linspace(0, 1, 3), m.as_tensor([1.]), m.asarray([1.]), m.randn(2)
            m.from_numpy(np.ones(1)), m.zeros_like(m.ones(1)), m.hann_window(3)
            m.promote_types(m.float32, m.int64), m.get_default_dtype(), m.is_tensor(1)
            m.nn.functional.relu(m.ones(1)), m.tril_indices(2, 2), m.randint(3, (2,))
        listed = m.overrides.get_overridable_functions()[m]
        return seen, m.ones in listed, m.ones in m.overrides.get_ignored_functions()

    def gradient(m):
        seen = []

        class Log(m.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append((func.__name__, [t.__name__ for t in types]))
                return func(*args, **(kwargs or {}))
        x = m.ones(2, requires_grad=True)
        with Log():
            y = (x * 2).sum()
            result = m.autograd.grad(y, x, create_graph=True)
            second = m.autograd.grad(result[0].sum(), [x], allow_unused=True)
        return [entry for entry in seen if entry[0] != "exp"], result, second

    def refusing(m):
        class Refuse(m.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return "add seen" if func.__name__ == "add" else NotImplemented
        outcomes = []
        x = m.ones(1)
        with Refuse():
            for run in (lambda: m.ones(1), lambda: m.add(x, 1), lambda: m.mul(x, 2),
                        lambda: x.sum(), lambda: m.tensor(1.)):
                try:
                    outcomes.append(run())
                except TypeError as error:
                    outcomes.append(("TypeError", str(error).split("\n")[0]))
        return outcomes

    def plain_method(m):
        class Old(m.Tensor):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return super().__torch_function__(func, types, args, kwargs)
        x = m.ones(2).as_subclass(Old)
        return [type(out).__name__ for out in (x + 1, m.add(x, 1), x + 1)]
    with _warn_always():
        _same([("factories under a mode", factories), ("autograd.grad under a mode", gradient),
               ("a mode returning NotImplemented", refusing),
               ("a plain-method __torch_function__", plain_method)])


# --- torch.fft helpers and windows (test_spectral_ops.py) ----------------------------------------

def test_fft_frequencies_windows_and_istft_without_window():
    """fftfreq/rfftfreq in every floating dtype bit for bit (float16 and bfloat16 multiply by
    the scale rounded to the dtype first, as torch's kernel does), with d and out=; window
    functions of 0 or 1 point in a complex dtype are torch's early returns (longer ones its
    arange error); istft without a window warns (once per process: set_warn_always here)."""
    cases = []
    for name in ("fftfreq", "rfftfreq"):
        for n in (1, 2, 5, 10, 19, 33):
            for d in (None, 10.0, 0.5, 3):
                for dtype in (None, "float32", "float64", "float16", "bfloat16"):
                    def program(m, name=name, n=n, d=d, dtype=dtype):
                        return getattr(m.fft, name)(n, *(() if d is None else (d,)),
                                                    dtype=getattr(m, dtype) if dtype else None)
                    cases.append((f"{name}({n}, {d}, {dtype})", program))
        cases.append((f"{name} out=", lambda m, name=name: (lambda out: (getattr(m.fft, name)(
            n=100, d=.5, out=out), out))(m.empty((), dtype=m.float16))))
    for window in ("hann_window", "hamming_window", "bartlett_window", "blackman_window",
                   "kaiser_window"):
        for n in (0, 1, 2, -1):
            for dtype in ("complex64", "complex128", "int64"):
                def program(m, window=window, n=n, dtype=dtype):
                    return getattr(m, window)(n, dtype=getattr(m, dtype))
                cases.append((f"{window}({n}, {dtype})", program))

    def istft(m):
        spectrum = m.ones(5, 3, dtype=m.complex64)
        out = m.istft(spectrum, 8)
        return out.shape, out.dtype, m.istft(spectrum, 8, window=m.ones(8)).shape
    cases.append(("istft without a window", istft))

    def istft_real(m):
        return m.istft(m.ones(5, 3), 8)
    cases.append(("istft of a real tensor without a window", istft_real))
    with _warn_always():
        _same(cases)


def test_operators_between_tensors_and_numpy_operands():
    """With NumPy arrays and scalars on either side: tensor op ndarray lets NumPy compute and
    wraps the result (float64), ndarray / tensor is torch's reciprocal() * ndarray (its other
    reflected operators are "unsupported operand"), and @ takes tensors only (a number or a
    NumPy scalar on either side is "unsupported operand"; tensor @ ndarray is NumPy's); a
    tensor requiring grad refuses to become an array."""
    operands = {
        "ndarray": lambda m: np.array([[1., 2.], [3., 4.]]), "0-d ndarray": lambda m: np.array(
            2.), "np.float64": lambda m: np.float64(2.), "np.float32": lambda m: np.float32(2.),
        "np.int64": lambda m: np.int64(2), "int": lambda m: 2, "bool": lambda m: True,
        "list": lambda m: [[1., 2.], [3., 4.]],
    }
    cases = []
    for dtype in ("float32", "float64", "int64", "bool"):
        for name, operand in operands.items():
            for op in ("+", "-", "*", "/", "//", "%", "**", "@", "==", "<", "&"):
                for order in ("tensor first", "operand first"):
                    def program(m, dtype=dtype, operand=operand, op=op, order=order):
                        x = m.tensor([[1, 2], [3, 4]]).to(getattr(m, dtype))
                        a, b = (x, operand(m)) if order == "tensor first" else (operand(m), x)
                        with warnings.catch_warnings():  # (NumPy 2's deprecation of torch's
                            warnings.simplefilter("ignore", DeprecationWarning)  # __array_wrap__)
                            return eval(f"a {op} b")  # noqa: S307 - the operator under test
                    cases.append((f"{dtype} {order} {op} {name}", program))
        cases.append((f"ndarray / {dtype} requiring grad", lambda m, d=dtype: np.ones(2) / m.ones(
            2, dtype=getattr(m, d)).requires_grad_() if d.startswith("float") else None))
    _same(cases)


def test_user_subclasses_constructed_and_used():
    """A user's Tensor subclass (plain, or with a __torch_function__ that defers to the
    default) built the legacy way (MyTensor(data), MyTensor([1., 2.])) is an instance of it,
    as torch's Tensor.__new__ makes it; as_subclass and _make_subclass (grad flags, their
    errors), ops, in-place ops, setitem, backward through it, nn layers and attributes."""
    def plain(m):
        class MyTensor(m.Tensor):
            pass
        return MyTensor

    def deferring(m):
        class Logged(m.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return super().__torch_function__(func, types, args, kwargs)
        return Logged

    programs = {
        "MyTensor(data)": lambda m, cls, x: cls(x.detach()),
        "MyTensor(list)": lambda m, cls, x: cls([1., 2.]),
        "MyTensor(2, 3).shape": lambda m, cls, x: (type(cls(2, 3)).__name__, cls(2, 3).shape),
        "as_subclass": lambda m, cls, x: x.as_subclass(cls),
        "as_subclass of a result": lambda m, cls, x: (x * 1).as_subclass(cls),
        "_make_subclass": lambda m, cls, x: m.Tensor._make_subclass(cls, x.detach()),
        "_make_subclass requiring grad": lambda m, cls, x: m.Tensor._make_subclass(
            cls, x.detach(), True),
        "_make_subclass(int)": lambda m, cls, x: m.Tensor._make_subclass(int, x.detach()),
        "as_subclass(int)": lambda m, cls, x: x.as_subclass(int),
        "ops": lambda m, cls, x: (lambda y: [y + 1, y * y, y.sum(), y[0], y.view(2, 1),
                                             y.detach(), y.clone(), y.to(m.float64),
                                             m.stack([y, y]), y.unbind(), y.new_zeros(2),
                                             m.zeros_like(y), y.data, y.is_leaf])(
            x.as_subclass(cls)),
        "backward": lambda m, cls, x: (lambda y: ((y * 3).sum().backward(), x.grad))(
            x.as_subclass(cls)) if x.requires_grad else None,
        "a leaf's backward": lambda m, cls, x: (lambda y: ((y * 3).sum().backward(), y.grad))(
            m.Tensor._make_subclass(cls, x.detach(), True)),
        "setitem": lambda m, cls, x: (lambda y: (y.__setitem__(0, 5.), y))(
            x.detach().clone().as_subclass(cls)),
        "in place": lambda m, cls, x: (lambda y: (y.add_(1), y))(
            x.detach().clone().as_subclass(cls)),
        "F.linear": lambda m, cls, x: m.nn.functional.linear(x.as_subclass(cls), m.ones(3, 2)),
        "plain + subclass": lambda m, cls, x: m.ones(2) + x.as_subclass(cls),
        "Tensor.add(subclass)": lambda m, cls, x: m.Tensor.add(x.as_subclass(cls), 1),
        "attributes": lambda m, cls, x: (lambda y: (setattr(y, "tag", 1), getattr(
            y + 1, "tag", None), y.tag))(x.as_subclass(cls)),
    }
    cases = []
    for kind, make in (("plain", plain), ("deferring", deferring)):
        for requires_grad in (False, True):
            for label, program in programs.items():
                def run(m, make=make, requires_grad=requires_grad, program=program):
                    return program(m, make(m), m.tensor([1., 2.], requires_grad=requires_grad))
                cases.append((f"{kind} requires_grad={requires_grad} {label}", run))
    _same(cases)


def test_legacy_storage_classes():
    """torch.FloatStorage and friends (torch.Storage is FloatStorage) build a TypedStorage of
    their dtype from a size (a NumPy integer too), a sequence or nothing, and isinstance asks
    the storage's dtype."""
    cases = []
    for name in ("Storage", "FloatStorage", "DoubleStorage", "LongStorage", "IntStorage",
                 "ByteStorage", "BoolStorage", "HalfStorage"):
        for args in ((), ([1, 0, 2],), (np.int64(3),), (np.uint8(2),)):
            def program(m, name=name, args=args):
                storage = getattr(m, name)(*args)
                values = storage.tolist() if not args or not isinstance(args[0], np.generic) \
                    else None  # (a sized storage's elements are uninitialised in torch)
                return (type(storage).__name__, str(storage.dtype).split(".")[-1],
                        storage.size(), values)
            cases.append((f"{name}{args}", program))
        for dtype in ("float32", "int64", "uint8"):
            cases.append((f"isinstance({dtype} storage, {name})", lambda m, n=name, d=dtype: (
                isinstance(m.ones(1, dtype=getattr(m, d)).storage(), getattr(m, n)))))
    with warnings.catch_warnings():  # TypedStorage's deprecation is once per process in both:
        warnings.simplefilter("ignore", UserWarning)  # given here, whatever ran before
        torch.ones(1).storage()
        leafgrad.ones(1).storage()
    _same(cases)


def test_types_a_mode_sees_for_plain_tensor_methods():
    """A TorchFunctionMode's ``types`` holds the plain Tensor class for the methods torch
    dispatches on self alone (C methods of no argument like exp, t, item, numel; -x and
    abs(x); new_tensor; the methods and dunders torch writes in Python: norm, split, unique,
    backward, __repr__...) and leaves it out for the others (sum, view, x + 1, torch.exp);
    torch._C's flags for disabled dispatch."""
    calls = {
        "exp": lambda m, t: t.exp(), "-x": lambda m, t: -t, "abs(x)": lambda m, t: abs(t),
        "sum": lambda m, t: t.sum(), "sum(0)": lambda m, t: t.sum(0), "x + 1": lambda m, t: t + 1,
        "t": lambda m, t: t.t(), "item": lambda m, t: t[0, 0].item(), "norm": lambda m, t: t.norm(),
        "split": lambda m, t: t.split(1), "unique": lambda m, t: t.unique(),
        "numel": lambda m, t: t.numel(), "dim": lambda m, t: t.dim(),
        "tolist": lambda m, t: t.tolist(), "detach": lambda m, t: t.detach(),
        "view": lambda m, t: t.view(4), "backward": lambda m, t: t.sum().backward(),
        "x[0]": lambda m, t: t[0], "repr": lambda m, t: repr(t), "torch.exp": lambda m, t: m.exp(
            t), "relu": lambda m, t: m.nn.functional.relu(t), "new_tensor": lambda m, t:
            t.new_tensor([1.]), "isnan": lambda m, t: t.isnan(),
        "2 - x": lambda m, t: 2 - t, "len": lambda m, t: len(t),
    }
    cases = []
    for label, call in calls.items():
        def program(m, call=call):
            seen = []

            class Log(m.overrides.TorchFunctionMode):
                def __torch_function__(self, func, types, args=(), kwargs=None):
                    seen.append([t.__name__ for t in types])
                    return func(*args, **(kwargs or {}))
            t = m.ones(2, 2, requires_grad=True)
            with Log():
                call(m, t)
            return seen[:1]
        cases.append((label, program))

    def flags(m):
        seen = [(m._C._is_torch_function_enabled(), m._C._is_torch_function_all_disabled())]
        with m._C.DisableTorchFunctionSubclass():
            seen.append((m._C._is_torch_function_enabled(),
                         m._C._is_torch_function_all_disabled()))
        with m._C.DisableTorchFunction():
            seen.append((m._C._is_torch_function_enabled(),
                         m._C._is_torch_function_all_disabled()))
        return seen
    cases.append(("torch._C flags", flags))
    _same(cases)
