"""Differences from torch 2.13 found by replaying op_db beyond the first samples
(tests/opinfo/sweep_deep.py), each checked against torch itself over its whole class.

1. A Python number as the first argument of add, sub, mul, div (and their aliases),
   true_divide and floor_divide is torch's wrapped number: a double that promotes as a scalar.
   leafgrad made it a default-dtype (float32) tensor first, so ``torch.add(0.1, x)`` of a
   float64 ``x`` added 0.1 rounded to float32; floor_divide refused the number altogether.
   div's complex refusal names the rounding mode's kernel (div_trunc_cpu for 'trunc'), and a
   complex Python number meets that refusal even before the process made a complex tensor.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import leafgrad
from tests._torch import require_torch
from tests.opinfo import _harness as H

torch = require_torch()

_NUMBERS = (5.576059452216908, 0.1, -1e-300, 3, 2**40 + 1, True, 2 + 1.5j)
_FUNCTIONS = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
              "floor_divide")
_DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "uint8",
           "bool", "complex128", "complex64")
_KWARGS = ({}, {"alpha": 0.5}, {"rounding_mode": "trunc"})


def _compare(theirs, ours, tt, tl):
    """Result or error, then (for float results requiring grad) grad_fn and the input's .grad."""
    a, b = H.attempt(theirs), H.attempt(ours)
    if a[0] != b[0]:
        return [f"torch {a[:3] if a[0] == 'raised' else 'ok'}, leafgrad "
                f"{b[:3] if b[0] == 'raised' else 'ok'}"]
    if a[0] == "raised":
        return [] if a[1:] == b[1:] else [f"{a[1:]} vs {b[1:]}"]
    diffs = H.differences(a[1], b[1], torch)
    if diffs or not isinstance(a[1], torch.Tensor) or not a[1].requires_grad or \
            a[1].is_complex():
        # (a complex result's backward multiplies complex numbers: torch's vectorised complex
        # product has other last bits whatever self is, a class of its own)
        return diffs
    if type(a[1].grad_fn).__name__ != type(b[1].grad_fn).__name__:
        return [f"grad_fn {type(a[1].grad_fn).__name__} vs {type(b[1].grad_fn).__name__}"]
    torch.manual_seed(0)
    grad = torch.randn(a[1].shape, dtype=a[1].dtype)
    back = (H.attempt(lambda: a[1].backward(grad)),
            H.attempt(lambda: b[1].backward(H.to_leafgrad(grad, torch))))
    if back[0][0] != back[1][0] or back[0][1:] != back[1][1:] and back[0][0] == "raised":
        return [f"backward {back[0][1:]} vs {back[1][1:]}"]
    if (tt.grad is None) != (tl.grad is None):
        return ["grad None on one side"]
    return [] if tt.grad is None else H.differences(tt.grad, tl.grad, torch, "grad")


def test_number_as_self_is_a_wrapped_double():
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    found, checked = [], 0
    for dtype in _DTYPES:
        base = (torch.randn(3, 4, dtype=torch.float64) * 3).to(getattr(torch, dtype))
        shapes = (base.t(), base[:, :1].expand(3, 4), base[0, 0].clone(), base[:0])
        for source in shapes:
            for grad in (False, True) if (source.is_floating_point() or source.is_complex()) \
                    else (False,):
                for name in _FUNCTIONS:
                    for number in _NUMBERS:
                        if dtype in ("float16", "bfloat16") and isinstance(number, complex):
                            continue  # torch's complex32: leafgrad has no such dtype
                        for kwargs in _KWARGS:
                            tt = source.detach().clone() if source.is_contiguous() else \
                                source.detach()
                            tt.requires_grad_(grad)
                            tl = H.to_leafgrad(tt, torch)
                            diffs = _compare(
                                lambda: getattr(torch, name)(number, tt, **kwargs),
                                lambda: getattr(leafgrad, name)(number, tl, **kwargs), tt, tl)
                            checked += 1
                            found += [f"{name}({number!r}, {dtype}{tuple(tt.shape)}, "
                                      f"{kwargs}) grad={grad}: {d}" for d in diffs
                                      # a keyword the function does not take: torch's
                                      # overloaded sub/div say "invalid combination", and
                                      # the aliases name themselves (not this class)
                                      if "keyword argument" not in d]
    assert checked > 3000
    assert not found, "\n".join(found[:20])


def test_a_complex_number_before_any_complex_tensor_is_refused_as_torch():
    """A fresh process (the complex check of Op.apply is installed lazily)."""
    script = (
        "import {lib} as t\n"
        "x = t.tensor([1.5, -2.5])\n"
        "for call in (lambda: t.floor_divide(1j, x), lambda: x.floor_divide(1j),\n"
        "             lambda: t.div(x, 2j, rounding_mode='trunc'), lambda: x.remainder(1j),\n"
        "             lambda: t.div(x.to(t.complex64), 2, rounding_mode='trunc'),\n"
        "             lambda: t.div(2j, x, rounding_mode='floor')):\n"
        "    try:\n"
        "        print(call())\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, str(e).splitlines()[0])\n")
    outputs = [subprocess.run([sys.executable, "-c", script.format(lib=lib)], capture_output=True,
                              text=True, check=True).stdout for lib in ("torch", "leafgrad")]
    assert outputs[0].count("NotImplementedError") == 6
    assert outputs[0] == outputs[1]


def test_true_division_of_integers_casts_each_operand_to_float():
    """2. div of integer (or bool) operands: each goes from its own dtype to the float result
    type (a 0-d int64 tensor or a Python int beyond the other's range is not wrapped into it
    first, as leafgrad did)."""
    found, checked = [], 0
    values = {"int64": [2**40 + 1, -7, 3], "int32": [2**31 - 1, -2, 5], "int16": [-32768, 3, 9],
              "int8": [-128, 7, 2], "uint8": [255, 0, 4], "bool": [True, False, True]}
    for name_a, name_b in ((x, y) for x in values for y in values):
        for shape_a, shape_b in (((3,), (3,)), ((), (3,)), ((3,), ()), ((), ())):
            a = torch.tensor(values[name_a], dtype=getattr(torch, name_a))
            b = torch.tensor(values[name_b], dtype=getattr(torch, name_b)).flip(0)
            a, b = (a[0] if not shape_a else a), (b[0] if not shape_b else b)
            for call in (lambda lib, x, y: lib.div(x, y), lambda lib, x, y: x / y,
                         lambda lib, x, y: lib.true_divide(x, y),
                         lambda lib, x, y: lib.div(x.tolist() if x.dim() == 0 else x, y)):
                ours = (H.to_leafgrad(a, torch), H.to_leafgrad(b, torch))
                checked += 1
                found += [f"{name_a}{shape_a} / {name_b}{shape_b}: {d}" for d in _compare(
                    lambda: call(torch, a, b), lambda: call(leafgrad, *ours), None, None)]
    assert checked > 500
    assert not found, "\n".join(found[:20])


def test_half_gradient_by_a_number_is_computed_in_float():
    """3. A float16/bfloat16 gradient times a Python number (mul's backward, of x * number and
    number * x; a number's scale in other ops' backwards): torch multiplies in float and rounds
    once, leafgrad's array-level backward rounded the number to the half type first."""
    found, checked = [], 0
    torch.manual_seed(0)
    for dtype in (torch.float16, torch.bfloat16):
        x = (torch.randn(5, 7, dtype=torch.float64) * 4).to(dtype)
        for number in (5.576059452216908, 0.1, -3.3, 1e-3, 7):
            for source in (x, x.t(), x[:, 1:2].expand(5, 7)):
                for call in (lambda lib, t: t * number, lambda lib, t: number * t,
                             lambda lib, t: lib.mul(number, t), lambda lib, t: t / number,
                             lambda lib, t: lib.div(number, t), lambda lib, t: t.mul(number)):
                    tt = source.detach().requires_grad_(True)
                    tl = H.to_leafgrad(tt, torch)
                    checked += 1
                    found += [f"{dtype} {number}: {d}" for d in _compare(
                        lambda: call(torch, tt), lambda: call(leafgrad, tl), tt, tl)]
    assert checked > 150
    assert not found, "\n".join(found[:20])


def test_floor_divide_has_no_derivative():
    """4. floor_divide (and //, floor_divide_, a number // tensor) records torch's node named
    NotImplemented, with edges to the operands requiring grad only, whose backward and forward
    AD raise; leafgrad recorded DivBackward2 and gave a zero gradient."""
    import torch.autograd.forward_ad as fw_t

    import leafgrad.autograd.forward_ad as fw_l

    def run(lib, fw):
        out = []
        for grads in ((True, False), (False, True), (True, True), (True, None), (None, True)):
            a = lib.tensor([7.5, -3.0, 2.0], dtype=lib.float64, requires_grad=bool(grads[0]))
            b = lib.tensor([2.0, 2.0, -1.5], dtype=lib.float64, requires_grad=bool(grads[1]))
            a = 3.5 if grads[0] is None else a
            b = 2 if grads[1] is None else b
            calls = [lambda: a // b, lambda: lib.floor_divide(a, b)]
            if grads[0] is not None:
                calls += [lambda: a.floor_divide(b), lambda: (a * 1).floor_divide_(b)]
            for call in calls:
                try:
                    r = call()
                    row = [r.tolist(), str(r.dtype), r.requires_grad, r.grad_fn.name(),
                           [None if n is None else n.name() for n, _ in r.grad_fn.next_functions]]
                    try:
                        r.sum().backward()
                    except RuntimeError as error:
                        row.append(str(error))
                except Exception as error:  # noqa: BLE001
                    row = [type(error).__name__, str(error)]
                out.append(str(row).replace("torch", "").replace("leafgrad", ""))
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.5, 2.0], dtype=lib.float64),
                             lib.ones(2, dtype=lib.float64))
            for call in (lambda: d // 3, lambda: d.clone().floor_divide_(3), lambda: 3 // d):
                try:
                    out.append(str(fw.unpack_dual(call()).tangent))
                except NotImplementedError as error:
                    out.append(str(error))
        return out

    theirs, ours = run(torch, fw_t), run(leafgrad, fw_l)
    assert len(theirs) == 21
    # one known difference: in place into a self that does not require grad, from an other
    # that does: torch's node has the one edge, leafgrad's a None edge first
    differ = [(a, b) for a, b in zip(theirs, ours) if a != b]
    assert len(differ) == 1 and differ[0][1].replace("[None, ", "[") == differ[0][0], differ


def test_scalar_factors_in_backwards_are_mulbackward1():
    """5. The backwards of addmm/addmv/addr/addbmm/baddbmm (alpha, beta) and exp2 (ln 2)
    multiply by a number as torch's C++ formulas do (maybe_multiply: a Scalar product,
    MulBackward1, seen by create_graph); that product of a float16 gradient is computed in
    float (add's alpha too: it rounded the number to float16)."""
    found, checked = [], 0
    torch.manual_seed(0)
    calls = {
        "addmm": ((3, 4), (3, 2), (2, 4)), "addmv": ((3,), (3, 2), (2,)),
        "addr": ((3, 2), (3,), (2,)), "addbmm": ((3, 4), (2, 3, 5), (2, 5, 4)),
        "baddbmm": ((2, 3, 4), (2, 3, 5), (2, 5, 4))}
    for dtype in (torch.float64, torch.float32):
        for name, shapes in calls.items():
            for alpha, beta in ((1, 1), (0.5, 1), (1, -2.0), (2, 3), (0.1, 0)):
                inputs_t = [torch.randn(s, dtype=dtype, requires_grad=True) for s in shapes]
                inputs_l = [H.to_leafgrad(t, torch) for t in inputs_t]
                grads = []
                for lib, inputs in ((torch, inputs_t), (leafgrad, inputs_l)):
                    out = getattr(lib, name)(*inputs, alpha=alpha, beta=beta)
                    seed = H.to_leafgrad(torch.ones(out.shape, dtype=dtype), torch) \
                        if lib is leafgrad else torch.ones(out.shape, dtype=dtype)
                    first = lib.autograd.grad(out, inputs, seed, create_graph=True)
                    grads.append(first)
                checked += 1
                names = [[None if g.grad_fn is None else type(g.grad_fn).__name__ for g in row]
                         for row in grads]
                if names[0] != names[1]:
                    found.append(f"{name} {dtype} alpha={alpha} beta={beta}: {names}")
                for a, b in zip(*grads):
                    found += [f"{name} {dtype}: {d}" for d in
                              H.differences(a, b, torch, strides=False)]
        x_t = torch.randn(7, dtype=dtype, requires_grad=True)
        x_l = H.to_leafgrad(x_t, torch)
        first = [lib.autograd.grad(x.exp2().sum(), x, create_graph=True)[0]
                 for lib, x in ((torch, x_t), (leafgrad, x_l))]
        if type(first[0].grad_fn).__name__ != type(first[1].grad_fn).__name__:
            found.append(f"exp2 {dtype}: {first}")
    for dtype in (torch.float16, torch.bfloat16):
        x = torch.randn(64, dtype=torch.float64).to(dtype)
        y = torch.randn(64, dtype=torch.float64).to(dtype).requires_grad_(True)
        g = torch.randn(64, dtype=torch.float64).to(dtype)
        for alpha in (0.1, -3.7, 1e-3):
            y.grad = None
            y_l = H.to_leafgrad(y, torch)
            x.add(y, alpha=alpha).backward(g)
            H.to_leafgrad(x, torch).add(y_l, alpha=alpha).backward(H.to_leafgrad(g, torch))
            checked += 1
            found += [f"add alpha={alpha} {dtype}: {d}"
                      for d in H.differences(y.grad, y_l.grad, torch)]
    assert checked > 50
    assert not found, "\n".join(found[:20])


def test_softshrink_dead_zone_zero_sign_follows_torchs_loops():
    """6. softshrink's dead zone: torch's scalar op gives x * 0 (-0. for a negative x), its
    vector op +0.: which elements each computes follows the layout (leafgrad gave -0. always)."""
    found, checked = [], 0
    torch.manual_seed(0)
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        for n in (1, 7, 8, 15, 16, 17, 31, 32, 33, 40, 100):
            base = (torch.rand(n, 3, dtype=torch.float64) - 0.5).to(dtype)
            base[0, 0] = -0.0
            for x in (base, base.t(), base[:, 0], base[:, :2], base[::2], base.t().contiguous()):
                for lambd in (0.5, 0.25, 0.0):
                    checked += 1
                    found += [f"{dtype} {tuple(x.shape)} {x.stride()} {lambd}: {d}" for d in
                              H.differences(torch.nn.functional.softshrink(x, lambd),
                                            leafgrad.nn.functional.softshrink(
                                                H.to_leafgrad(x, torch), lambd), torch)]
    assert checked > 700
    assert not found, "\n".join(found[:20])


def test_remainder_of_a_number_has_no_derivative():
    """7. ``number % tensor`` (torch.remainder(number, t), Tensor.__rmod__): torch's
    remainder.Scalar_Tensor has no derivative, a NotImplemented node with one edge whose
    backward and forward AD raise; leafgrad recorded RemainderBackward1 with a gradient."""
    import torch.autograd.forward_ad as fw_t

    import leafgrad.autograd.forward_ad as fw_l

    def run(lib, fw):
        out = []
        for dtype in ("float64", "float32", "float16", "bfloat16", "int64", "uint8"):
            t = lib.tensor([1.5, -2.5, 3.0, 0.0]).to(getattr(lib, dtype))
            t.requires_grad_(t.is_floating_point())
            for call in (lambda: lib.remainder(5.0, t), lambda: 5 % t, lambda: -7.5 % t,
                         lambda: t.__rmod__(2), lambda: lib.remainder(True, t),
                         lambda: t.detach() % t, lambda: t % 2.5):
                try:
                    r = call()
                    row = [r.tolist(), str(r.dtype), r.grad_fn and r.grad_fn.name(),
                           r.grad_fn and [n and n.name() for n, _ in r.grad_fn.next_functions]]
                    try:
                        r.sum().backward()
                        row.append(t.grad.tolist())
                        t.grad = None
                    except RuntimeError as error:
                        row.append(str(error))
                except Exception as error:  # noqa: BLE001
                    row = [type(error).__name__, str(error)]
                out.append(str(row).replace("torch", "").replace("leafgrad", ""))
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.5, 4.0]), lib.ones(2))
            try:
                out.append(str(fw.unpack_dual(5.0 % d).tangent))
            except NotImplementedError as error:
                out.append(str(error))
        return out

    theirs, ours = run(torch, fw_t), run(leafgrad, fw_l)
    assert len(theirs) == 43 and sum("not implemented" in row for row in theirs) > 10
    assert theirs == ours, [(a, b) for a, b in zip(theirs, ours) if a != b][:5]


def test_in_place_refusals_in_torchs_order():
    """8. In place: abs_ (absolute_, torch.abs_) of a complex tensor is refused (its result is
    real), and a binary op whose result type cannot be written back into self checks the shapes
    first, as TensorIterator does (a self the other broadcasts beyond: 'output with shape')."""
    rows = {}
    for lib in (torch, leafgrad):
        out = []
        for dtype in ("complex64", "complex128", "float32", "int64"):
            x = lib.tensor([-1.5, 2.0]).to(getattr(lib, dtype))
            for call in (lambda: x.clone().abs_(), lambda: lib.abs_(x.clone()),
                         lambda: x.clone().absolute_()):
                try:
                    out.append(str(call().tolist()))
                except RuntimeError as error:
                    out.append(str(error))
        for dtype in ("int64", "int8", "uint8", "bool", "float32"):
            for name in ("atan2_", "copysign_", "remainder_", "fmod_", "floor_divide_", "div_"):
                for shape_a, shape_b in (((5, 1), (5, 5)), ((5, 5), (5, 1)), ((3,), (4,)),
                                         ((1,), (2, 3)), ((2, 3), (3,))):
                    a = lib.ones(shape_a, dtype=getattr(lib, dtype))
                    try:
                        getattr(a, name)(lib.full(shape_b, 1.5))
                        out.append("ok")
                    except Exception as error:  # noqa: BLE001
                        out.append(f"{type(error).__name__}: {str(error).splitlines()[0]}")
        rows[lib] = out
    assert len(rows[torch]) == 162 and rows[torch].count("ok") > 10
    assert rows[torch] == rows[leafgrad], [
        (a, b) for a, b in zip(rows[torch], rows[leafgrad]) if a != b][:5]


def test_index_add_alpha_in_an_integer_or_bool_dtype():
    """9. index_add's alpha is cast to an integer or bool self's dtype as torch's kernel casts
    it (uint8 alpha=-1 wraps to 255, a float alpha truncates), and a 0-d bool self stays bool
    (leafgrad raised NumPy's OverflowError, scaled by the float, gave int64)."""
    found, checked = [], 0
    torch.manual_seed(0)
    for dtype in ("uint8", "int8", "int16", "int64", "bool"):
        for shape in ((), (3,), (4, 2)):
            for alpha in (1, -1, 2, True, False, 0.5, -3, 2.7, 300):
                for count in (1, 2) if shape else (1,):
                    self_t = (torch.randn(shape) * 5).to(getattr(torch, dtype))
                    source = (torch.randn(shape if not shape else (count,) + shape[1:]) * 5).to(
                        getattr(torch, dtype))
                    index = torch.tensor([0, 2][:count] if shape and shape[0] > 2 else
                                         [0, 1][:count])[:max(count, 1)]
                    if not shape:
                        index = torch.tensor([0])
                    ours = H.to_leafgrad((self_t, index, source), torch)
                    checked += 1
                    found += [f"{dtype} {shape} alpha={alpha}: {d}" for d in _compare(
                        lambda: torch.index_add(self_t, 0, index, source, alpha=alpha),
                        lambda: leafgrad.index_add(ours[0], 0, ours[1], ours[2], alpha=alpha),
                        None, None)]
    assert checked > 200
    assert not found, "\n".join(found[:20])


def test_unsafe_split_pieces_keep_the_inputs_strides_in_every_dtype():
    """10. unsafe_split/unsafe_chunk/unsafe_split_with_sizes of a bfloat16 tensor: pieces with
    the input's strides, as for the other dtypes (bfloat16's opmath copied each piece)."""
    found, checked = [], 0
    for dtype in ("bfloat16", "float16", "float32", "int64", "bool", "complex64"):
        base = torch.arange(60.).reshape(3, 4, 5).to(getattr(torch, dtype))
        for x in (base, base.transpose(0, 2), base[:, ::2]):
            for call in (lambda lib, t: lib.unsafe_chunk(t, 2, 1),
                         lambda lib, t: lib.unsafe_split(t, 2, 2),
                         lambda lib, t: t.unsafe_split_with_sizes([1, 2], 0),
                         lambda lib, t: t.unsafe_chunk(3, -1)):
                checked += 1
                found += [f"{dtype} {x.stride()}: {d}" for d in _compare(
                    lambda: call(torch, x), lambda: call(leafgrad, H.to_leafgrad(x, torch)),
                    None, None)]
    assert checked == 72
    assert not found, "\n".join(found[:20])
