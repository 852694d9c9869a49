"""Behaviours found by replaying PyTorch's own tests (test_autograd.py's last part) and the
open items of earlier suite helpers (saved-tensor objects, dir() of a node, detach_() of a saved
tensor, true_divide's parameters) as programs run under torch and leafgrad; each program's
observations must be identical."""

from __future__ import annotations

import math

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _seen(value):
    """A comparable picture of ``value``: tensors by dtype name, shape, values and grad state."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        data = value.detach()
        array = np.asarray(data.tolist(), dtype=complex if data.is_complex() else None)
        text = np.array2string(array, precision=10, floatmode="maxprec", threshold=10**6)
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), text,
                value.requires_grad, value.grad_fn is not None)
    if isinstance(value, (tuple, list)):
        return tuple(_seen(v) for v in value)
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _outcome(fn):
    """What a call gives: ("ok", picture) or (exception type, first line of its message)."""
    try:
        return ("ok", _seen(fn()))
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return (type(error).__name__, str(error).split("\n")[0].replace("leafgrad.", "torch."))


def _same(program):
    """Run ``program(module)`` under both libraries; the observation lists must be equal."""
    expected, got = program(torch), program(leafgrad)
    assert len(got) == len(expected)
    for index, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"observation {index}: leafgrad {g} != torch {e}"


def _leaf(m, dtype="float32", shape=(3,), requires_grad=True):
    values = np.linspace(-1.2, 1.7, int(np.prod(shape))).reshape(shape)
    return m.tensor(values, dtype=getattr(m, dtype), requires_grad=requires_grad)


# --- grad_fn._raw_saved_<name>: torch's SavedTensor objects --------------------------------------

def test_raw_saved_tensor_objects_as_torch():
    def program(m):
        seen = []
        for dtype in ("float32", "float64"):
            a = _leaf(m, dtype)
            y = a.exp()
            raw = y.grad_fn._raw_saved_result
            seen.append(type(raw).__name__)
            seen.append(type(raw).__module__.replace("leafgrad", "torch"))
            seen.append([n for n in dir(raw) if not n.startswith("_")])
            seen.append(raw is y.grad_fn._raw_saved_result)  # one object per saved value
            seen.append(_outcome(lambda: raw.data))
            seen.append(raw.unpack_hook is None)
            # an output unpacked without its node: torch takes it for one detached in place
            seen.append(_outcome(raw.unpack))
            seen.append(_outcome(lambda: raw.unpack(y.grad_fn)))
            seen.append(_outcome(lambda: type(raw)()))
            s = a.sin()
            raw_input = s.grad_fn._raw_saved_self
            seen.append(raw_input.unpack() is a)
            seen.append(raw_input.data is a)
            for args in [(lambda t: t,), (1, lambda t: t), (lambda t: t, None)]:
                seen.append(_outcome(lambda: raw_input.register_hooks(*args)))
            seen.append(_outcome(
                lambda: raw_input.register_hooks(pack_hook=lambda t: t, unpack_hook=lambda t: t)))
            events = []

            def pack(t):
                events.append(("pack", _seen(t)))
                return 5

            def unpack(p):
                events.append(("unpack", p))
                return a * 1

            raw_input.register_hooks(pack, unpack)
            seen.append(raw_input.data)  # what the pack hook returned
            seen.append(raw_input.unpack_hook is unpack)
            seen.append(s.grad_fn._raw_saved_self.unpack_hook is unpack)
            seen.append(_outcome(raw_input.unpack))
            seen.append(_outcome(lambda: raw_input.register_hooks(pack, unpack)))
            s.sum().backward()
            seen.append(events)
            seen.append(_seen(a.grad))
            # after the backward the objects stay, unusable
            seen.append(type(s.grad_fn._raw_saved_self).__name__)
            seen.append(raw_input.data)
            seen.append(_outcome(raw_input.unpack))
            seen.append(_outcome(lambda: raw_input.register_hooks(pack, unpack)))
            y.sum().backward()
            seen.append(_outcome(lambda: y.grad_fn._raw_saved_result.data))
            seen.append(_outcome(lambda: y.grad_fn._raw_saved_foo))
            seen.append(_outcome(lambda: s.grad_fn._raw_saved_tensors))
        return seen

    _same(program)


def test_raw_saved_of_undefined_and_number_values_as_torch():
    """A tensor the op did not need (x * 2 keeps no self) is an object whose data is None; a
    Python number given for a tensor is saved as torch's wrapped 0-d tensor."""

    def program(m):
        seen = []
        a = _leaf(m)
        b = _leaf(m, requires_grad=False)
        for y in [a * 2, a * 2.5, a * True, 2 * a, a / 3, a / 3.5, 3 / a, a.mul(2),
                  a.div(2, rounding_mode=None), a * (1 + 2j), a * b, b * a]:
            node = y.grad_fn
            names = [n for n in dir(node) if "saved" in n]
            seen.append((node.name(), names))
            seen.append(_outcome(lambda: [getattr(node, n) for n in names
                                          if n.startswith("_saved")]))
            seen.append(_outcome(lambda: [(getattr(node, n).data, getattr(node, n).unpack())
                                          for n in names if n.startswith("_raw")]))
        y = a * 2
        seen.append(_outcome(lambda: y.grad_fn._raw_saved_self.register_hooks(
            lambda t: t, lambda t: t)))
        y = a * 2.5
        y.grad_fn._raw_saved_other.register_hooks(lambda t: t * 2, lambda t: t)
        y.sum().backward()
        seen.append(_seen(a.grad))  # the unpacked 0-d float64 keeps the gradient float32
        return seen

    _same(program)


def test_function_raw_saved_tensors_as_torch():
    def program(m):
        class Scale(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, z):
                ctx.save_for_backward(x, None, z)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                x, _, _ = ctx.saved_tensors
                return grad * x, None

        seen = []
        a = _leaf(m)
        y = Scale.apply(a, m.ones(2))
        raws = y.grad_fn._raw_saved_tensors
        seen.append((type(raws).__name__, [type(r).__name__ for r in raws]))
        seen.append([_seen(r.data) for r in raws])
        seen.append([_seen(r.unpack()) for r in raws])
        seen.append(raws[0].unpack() is a)
        seen.append("_raw_saved_tensors" in dir(y.grad_fn))
        events = []
        raws[0].register_hooks(lambda t: events.append("pack") or t,
                               lambda t: events.append("unpack") or t)
        y.sum().backward()
        seen.append(events)
        seen.append(_seen(a.grad))
        seen.append(_outcome(lambda: y.grad_fn._raw_saved_tensors))
        return seen

    _same(program)


# --- dir(grad_fn) ----------------------------------------------------------------------------------

def _common_nodes(m, dtype, need):
    """Outputs of common ops; ``need`` says which of the two inputs require grad."""
    a = _leaf(m, dtype, (2, 3), requires_grad=need[0])
    b = _leaf(m, dtype, (2, 3), requires_grad=need[1])
    if not (need[0] or need[1]):
        return []
    w = _leaf(m, dtype, (3, 2), requires_grad=need[1])
    return [a * b, a + b, a - b, a.add(b, alpha=2), a / b, a.exp() + b, (a + b).sin(),
            (a + b).sum(1), (a + b).sum(), (a + b).mean(), (a + b).mean(0), (a + b).pow(2),
            m.cat([a, b]), (a + b).view(6), (a + b)[1:], (a + b)[:, 0], (a + b).t(), a.matmul(w),
            m.tanh(a + b), m.sigmoid(a + b), m.relu(a + b), (a + b).transpose(0, 1),
            (a + b).reshape(3, 2), (a + b).unsqueeze(0), (a + b).squeeze(), (a + b).log_softmax(1),
            (a + b).softmax(1), (a + b).abs(), (a + b).clamp(0, 1), m.where(a > 0, a, b),
            m.stack([a, b]), (a + b).max(), (a + b).neg(), (a + b).sqrt(), (a + b) ** b,
            (a + b).expand(2, 2, 3)]


def test_dir_of_common_nodes_lists_torchs_saved_accessors():
    def program(m):
        seen = []
        for dtype in ("float32", "float64"):
            for need in [(True, True), (True, False), (False, True)]:
                for y in _common_nodes(m, dtype, need):
                    node = y.grad_fn
                    seen.append((node.name(), [n for n in dir(node) if "saved" in n]))
                    seen.append(all(n.startswith("__") or n in {
                        "_input_metadata", "_register_hook_dict", "_set_sequence_nr",
                        "requires_grad", "metadata", "name", "next_functions", "register_hook",
                        "register_prehook", "_sequence_nr"} or "saved" in n for n in dir(node)))
                    if node.name() == "SliceBackward0":
                        # (left out: torch keeps start/end as the indexing gave them, an open
                        # end as INT64_MAX, a negative one printed as unsigned; leafgrad keeps
                        # them resolved against the size)
                        continue
                    seen.append(_outcome(lambda: [getattr(node, n) for n in dir(node)
                                                  if n.startswith("_saved_")]))
        return seen

    _same(program)


# --- detach_() of a tensor a node saved -----------------------------------------------------------

def test_detach_in_place_of_a_saved_input_as_torch():
    def program(m):
        seen = []
        for dtype in ("float32", "float64"):
            # saved by sin (an input), detached, then the backward: refused
            a = _leaf(m, dtype)
            b = a * 1
            c, d = b.exp(), b.sin()  # exp keeps its result, sin its input
            b.detach_()
            seen.append((b.requires_grad, b.grad_fn, b.is_leaf))
            seen.append(_outcome(lambda: c.sum().backward(retain_graph=True)))
            seen.append(_seen(a.grad))
            seen.append(_outcome(lambda: d.sum().backward()))
            seen.append(_outcome(lambda: d.grad_fn._saved_self))  # read through the node: fine
            seen.append(_outcome(lambda: d.grad_fn._raw_saved_self.unpack()))
            seen.append(_outcome(lambda: d.grad_fn._raw_saved_self.data))
            # saved after the detach_(): an ordinary constant
            e = b.sin() * a
            e.sum().backward()
            seen.append(_seen(a.grad))
            # autograd.grad and a product saving the tensor twice
            a = _leaf(m, dtype)
            b = a * 2
            y = (b * b).sum()
            b.detach_()
            seen.append(_outcome(lambda: m.autograd.grad(y, a)))
            # a leaf that required grad is no saved non-leaf: its detach_() is allowed
            a = _leaf(m, dtype)
            y = a.sin()
            a.detach_()
            y.sum().backward()
            seen.append((_seen(a.grad), a.requires_grad))
            # a view cannot be detached in place
            a = _leaf(m, dtype)
            seen.append(_outcome(lambda: (a * 1)[:2].detach_()))
            # the node's own output (exp's result) detached: that node rebuilds it
            a = _leaf(m, dtype)
            y = a.exp()
            y.detach_()
            seen.append((y.requires_grad, y.grad_fn))
        return seen

    _same(program)


# --- true_divide takes no rounding_mode ------------------------------------------------------------

def test_true_divide_has_no_rounding_mode_as_torch():
    def program(m):
        seen = []
        for dtype in ("float32", "float64", "int64"):
            a = m.tensor([5, 7, -3], dtype=getattr(m, dtype))
            t = m.tensor([2, 2, 2], dtype=getattr(m, dtype))
            for other in (2, t):
                for kwargs in [{}, {"rounding_mode": "floor"}, {"rounding_mode": None},
                               {"rounding_mode": "trunc"}, {"foo": 1}]:
                    seen.append(_outcome(lambda: m.true_divide(a, other, **kwargs)))
                    seen.append(_outcome(lambda: a.true_divide(other, **kwargs)))
                    seen.append(_outcome(lambda: a.double().true_divide_(other, **kwargs)))
                seen.append(_outcome(lambda: m.true_divide(a, other=other)))
                seen.append(_outcome(lambda: a.true_divide(other=other)))
                seen.append(_outcome(lambda: m.true_divide(a, other, out=m.empty(3))))
                seen.append(_outcome(lambda: m.true_divide(
                    a, other, out=m.empty(3), rounding_mode=None)))
            seen.append(_outcome(lambda: a.true_divide("x")))
            seen.append(_outcome(lambda: a.true_divide()))
        x = _leaf(m)
        y = x.true_divide(2)
        y.sum().backward()
        seen.append((y.grad_fn.name(), _seen(x.grad)))
        return seen

    _same(program)


# --- forward AD: make_dual's tangent layout, detach_(), out=, empty gradcheck ----------------------

def test_make_dual_keeps_a_tangent_only_with_the_primals_layout():
    """torch stores the given tangent itself only when it has the primal's storage size,
    storage offset and strides (a size-1 dim's stride and an empty tensor's layout aside);
    otherwise a copy with the primal's layout."""

    def program(m):
        fw = m.autograd.forward_ad
        seen = []
        for dtype in ("float32", "float64"):
            kind = getattr(m, dtype)

            def full(n):
                return m.arange(float(n), dtype=kind)

            cases = [
                (full(5)[:4], full(4)),  # primal over a larger storage
                (full(4), full(5)[:4]),
                (full(5)[1:], full(5)[1:]),  # same storage size and offset
                (full(5)[1:], full(5)[:4]),  # other offset
                (full(6).view(2, 3).t(), full(6).view(3, 2)),  # strides differ
                (full(6).view(2, 3).t(), full(6).view(2, 3).t()),
                (full(4), full(4)),
                (m.tensor([1.0], dtype=kind).as_strided((0,), (1,), 1),
                 m.tensor([1.0], dtype=kind).as_strided((0,), (1,), 2)),  # empty: offsets aside
                (m.tensor([1.0], dtype=kind).as_strided((1,), (2,), 0),
                 m.tensor([1.0], dtype=kind).as_strided((1,), (1,), 0)),  # size-1 dim's stride
                (full(3), full(3).double()),  # another dtype is kept as is
                (m.ones(0).as_strided((0, 1), (1, 1), 0).to(kind),
                 m.ones(0).as_strided((0, 1), (1, 0), 0).to(kind)),
            ]
            for primal, tangent in cases:
                with fw.dual_level():
                    dual = fw.make_dual(primal, tangent)
                    got = fw.unpack_dual(dual).tangent
                    seen.append((got is tangent, got.stride(), _seen(got)))
                    got.mul_(2)  # a copy leaves the caller's tangent alone
                    seen.append(_seen(tangent))
        return seen

    _same(program)


def test_detach_in_place_drops_the_forward_gradient():
    def program(m):
        fw = m.autograd.forward_ad
        seen = []
        for requires_grad in (False, True):
            foo = _leaf(m, requires_grad=requires_grad)
            with fw.dual_level():
                dual = fw.make_dual(foo, m.ones(3)).clone()
                seen.append(_seen(fw.unpack_dual(dual * 2).tangent))
                dual.detach_()
                out = dual * 2
                seen.append((_seen(out), fw.unpack_dual(out).tangent))
                seen.append(fw.unpack_dual(dual).tangent)
        return seen

    _same(program)


def test_out_functions_refuse_dual_tensors():
    def program(m):
        fw = m.autograd.forward_ad
        seen = []
        with fw.dual_level():
            foo = fw.make_dual(m.rand(2), m.rand(2))
            bar = m.rand(2)
            calls = [lambda: m.add(bar, bar, out=foo), lambda: m.add(foo, bar, out=bar),
                     lambda: m.mul(foo, bar, out=m.empty(2)), lambda: m.sin(foo, out=m.empty(2)),
                     lambda: m.sum(foo, 0, out=m.empty(())),
                     lambda: m.cat([foo, bar], out=m.empty(4)),
                     lambda: m.add(bar, 1, out=m.empty(2)).shape,
                     lambda: m.add(bar, foo, alpha=2, out=m.empty(2))]
            for call in calls:
                # (torch writes out before raising; leafgrad refuses first, leaving it as it was)
                seen.append(_outcome(call)[0:2] if _outcome(call)[0] != "ok" else "ok")
        return seen

    _same(program)


def test_forward_gradcheck_of_an_empty_input():
    def program(m):
        seen = []
        for dtype in ("float64", "complex128"):
            x = m.rand([0, 1], dtype=getattr(m, dtype), requires_grad=True)
            seen.append(_outcome(lambda: m.autograd.gradcheck(
                lambda t: m.diagonal(t, offset=0), (x,), check_forward_ad=True)))
            y = m.rand([0, 3], dtype=getattr(m, dtype), requires_grad=True)
            seen.append(_outcome(lambda: m.autograd.gradcheck(
                lambda t: (t.sin(), t.sum(0)), (y,), check_forward_ad=True)))
        return seen

    _same(program)


def test_scatter_and_index_reduce_prod_double_backward_with_two_zeros():
    """Two zeros reduced into one slot: the first derivative is torch's, the second raises."""

    def program(m):
        seen = []
        for fn in (m.scatter_reduce, m.index_reduce):
            for src_values in ([0.0, 0.0], [0.0, 2.0], [3.0, 2.0]):
                inp = m.tensor([1.5], dtype=m.float64, requires_grad=True)
                src = m.tensor(src_values, dtype=m.float64, requires_grad=True)
                idx = m.tensor([0, 0])
                seen.append(_outcome(lambda: m.autograd.gradcheck(
                    fn, (inp, 0, idx, src, "prod"), check_batched_grad=False)))
                seen.append(_outcome(lambda: m.autograd.gradgradcheck(
                    fn, (inp, 0, idx, src, "prod"))))
                y = fn(inp, 0, idx, src, "prod")
                grads = m.autograd.grad(y.sum(), (inp, src), create_graph=True)
                # (index_reduce's formula gathers with IndexSelect in torch, Gather here)
                seen.append([(_seen(g), g.grad_fn.name(),
                              [type(n).__name__ for n, _ in g.grad_fn.next_functions]
                              if fn is m.scatter_reduce else None)
                             for g in grads])
                seen.append(_outcome(lambda: m.autograd.grad(grads[1].sum(), src)))
                with m.no_grad():  # no graph: no Error node
                    seen.append(_seen(fn(inp, 0, idx, src, "prod")))
        return seen

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # index_reduce's beta warning
        _same(program)


# --- tensor attributes and conversions (test_autograd.py's device-generic tests) ------------------

def test_grad_assignment_refuses_the_tensor_itself():
    def program(m):
        seen = []
        for dtype in ("float32", "float64"):
            x = _leaf(m, dtype, (2, 3), requires_grad=False)
            for value in (0, [1], x, m.zeros(3, 2, dtype=getattr(m, dtype)),
                          m.ones(2, 3, dtype=m.int64), x.detach(), x.clone()):
                seen.append(_outcome(lambda: setattr(x, "grad", value)))
                seen.append(x.grad is value)
            y = _leaf(m, dtype, (2, 3))
            seen.append(_outcome(lambda: setattr(y, "grad", y)))
            seen.append(y.grad)
        return seen

    _same(program)


def test_to_memory_format_as_torch():
    """to(memory_format=...) copies (ToCopyBackward0) into that layout unless the tensor has it
    already; the gradient comes back in the leaf's own layout."""

    def program(m):
        seen = []
        formats = [m.channels_last, m.contiguous_format, m.preserve_format, m.channels_last_3d]
        for dtype in ("float32", "float64"):
            for source in ("contiguous", "channels_last", "transposed"):
                x = _leaf(m, dtype, (2, 3, 4, 5))
                if source == "channels_last":
                    x = x.detach().contiguous(memory_format=m.channels_last).requires_grad_()
                elif source == "transposed":
                    x = x.detach().transpose(1, 2).requires_grad_()
                for fmt in formats:
                    for extra in ({}, {"dtype": m.float64}, {"copy": True}, {"device": "cpu"}):
                        def call():
                            y = x.to(memory_format=fmt, **extra)
                            return (y is x, y.stride(), str(y.dtype).split(".")[-1],
                                    None if y.grad_fn is None else y.grad_fn.name())
                        seen.append(_outcome(call))
                    seen.append(_outcome(lambda: x.to(m.float64, memory_format=fmt).stride()))
                    seen.append(_outcome(lambda: x.to(x, memory_format=fmt).stride()))
                y = x.to(memory_format=m.channels_last)
                (y * y).sum().backward()
                seen.append((x.grad.stride(), _seen(x.grad)))
        seen.append(_outcome(lambda: m.ones(3).to(memory_format=m.channels_last)))
        seen.append(_outcome(lambda: m.ones(1, 2, 3, 4, 5).to(memory_format=m.channels_last_3d)
                             .stride()))
        return seen

    _same(program)


def test_resize_bumps_the_version_unless_a_no_op():
    def program(m):
        seen = []
        for dtype in ("float32", "float64", "int64"):
            x = m.zeros(1, dtype=getattr(m, dtype))
            y = m.zeros(3)
            for step in [lambda: x.resize_((1, 2)), lambda: x.resize_as_(y),
                         lambda: x.resize_((3,)), lambda: x.resize_as_(y), lambda: x.resize_(2),
                         lambda: x.resize_(2, 1), lambda: x.resize_(0), lambda: x.resize_(0)]:
                step()
                seen.append((x._version, tuple(x.shape)))
            # a tensor saved for backward and resized since: the backward refuses it
            a = m.ones(3, dtype=m.float64, requires_grad=True)
            b = m.ones(3, dtype=m.float64)
            out = a * b
            b.resize_(4)
            seen.append(_outcome(lambda: out.sum().backward()))
        with m.inference_mode():  # no autograd there: a tensor requiring grad may be resized
            for requires_grad in (True, False):
                c = m.ones(1, 2, 3, requires_grad=requires_grad)
                seen.append(_outcome(lambda: tuple(c.resize_(1, 2).shape)))
                seen.append(_outcome(lambda: tuple(c.resize_as_(m.ones(2, 1)).shape)))
                seen.append((m.is_inference(c), c.requires_grad))
        x = m.ones(2, requires_grad=True)
        seen.append(_outcome(lambda: x.resize_(3)))
        return seen

    _same(program)


# --- inference tensors ---------------------------------------------------------------------------

def _inference_state(t):
    return (t.__class__.__name__, bool(t.is_inference()), t.requires_grad, t._is_view(), t.is_leaf,
            None if t.grad_fn is None else t.grad_fn.name())


def test_views_of_inference_tensors_are_plain_inference_tensors():
    """torch: a view of an inference tensor (made in inference mode or out) has no base, no
    history and does not require grad; it shares the memory."""

    def program(m):
        seen = []
        views = [lambda c: c.view(-1), lambda c: c[0], lambda c: c.transpose(0, 1),
                 lambda c: c.unsqueeze(0), lambda c: c.expand(2, 2, 3), lambda c: c.view_as(c),
                 lambda c: c.narrow(2, 0, 2), lambda c: c.unbind(1)[0], lambda c: c.split(1, 2)[0],
                 lambda c: c.detach(), lambda c: c.reshape(6), lambda c: c.flatten()]
        for dtype in ("float32", "float64"):
            for requires_grad in (True, False):
                with m.inference_mode():
                    c = m.ones(1, 2, 3, dtype=getattr(m, dtype), requires_grad=requires_grad)
                    for view in views:
                        seen.append(_outcome(lambda: _inference_state(view(c))))
                    v = c.view(-1)
                    v.add_(1)  # shares the memory
                    seen.append(_seen(c))
                for view in views:
                    seen.append(_outcome(lambda: _inference_state(view(c))))
                    seen.append(_outcome(lambda: _inference_state(view(c) * 2)))
                s = m.ones(1, 2, 3, dtype=getattr(m, dtype), requires_grad=requires_grad)
                seen.append(_outcome(lambda: _inference_state(c.view_as(s))))
                seen.append(_outcome(lambda: _inference_state(s.view_as(c))))
        return seen

    _same(program)


def test_inplace_on_inference_tensors_checks_in_torchs_order():
    """An inference leaf requiring grad, updated outside inference mode: add_/sub_/mul_/div_/
    copy_ report the leaf first, the other in-place ops the inference tensor; out= reports its
    autograd error before the inference tensor."""

    def program(m):
        seen = []
        with m.inference_mode():
            c = m.ones(2, requires_grad=True)
            d = m.ones(2)
        s, n = m.ones(2, requires_grad=True), m.ones(2)
        calls = [lambda: c.add_(2), lambda: c.add_(m.ones(2)), lambda: c.sub_(1),
                 lambda: c.sub_(m.ones(2), alpha=2), lambda: c.mul_(3), lambda: c.mul_(n),
                 lambda: c.div_(2), lambda: c.div_(2, rounding_mode="floor"),
                 lambda: c.div_(2, rounding_mode=None), lambda: c.copy_(n), lambda: c.fill_(2),
                 lambda: c.zero_(), lambda: c.clamp_(0, 1), lambda: c.sin_(), lambda: c.exp_(),
                 lambda: c.t_(), lambda: c.__setitem__(0, 1.0), lambda: c.relu_(),
                 lambda: c.pow_(2), lambda: c.unsqueeze_(0), lambda: c.__iadd__(1),
                 lambda: c.__imul__(2), lambda: c.__itruediv__(2), lambda: d.add_(1),
                 lambda: d.add_(s), lambda: m.mul(n, n, out=s), lambda: m.mul(s, s, out=d),
                 lambda: m.mul(n, n, out=d), lambda: m.mul(n, n, out=c),
                 lambda: m.sin(n, out=s[:1])]
        for call in calls:
            seen.append(_outcome(call))
        with m.no_grad():
            for call in calls[:6]:
                seen.append(_outcome(call))
        return seen

    _same(program)


# --- checkpoint within differentiation, multithreading switch ------------------------------------

def test_nested_non_reentrant_checkpoints_and_higher_order_grads():
    """A checkpointed function differentiated with create_graph, checkpoints inside checkpoints
    and autograd.grad inside a checkpointed function: torch's values (the recomputed graph is
    run by a backward inside the recomputation)."""

    def program(m):
        def grad(fn):
            def wrapper(x):
                with m.enable_grad():
                    out = fn(x)
                    (gi,) = m.autograd.grad(out, inputs=(x,), create_graph=True)
                return gi
            return wrapper

        def c(fn):
            return lambda *a: m.utils.checkpoint.checkpoint(fn, *a, use_reentrant=False)

        def f(x):
            return x.sin().exp().sin()

        def g(x):
            a = x.sin().exp().sin()
            b = x.sin().exp().sin()
            m.autograd.grad(a, x)
            m.autograd.grad(b, x)
            return x.sin()

        seen = []
        for early in (True, False):
            with m.utils.checkpoint.set_checkpoint_early_stop(early):
                for fn in (f, g):
                    for dtype in ("float32", "float64"):
                        x = m.tensor(0.7, dtype=getattr(m, dtype), requires_grad=True)
                        cases = [c(fn), c(c(fn)), grad(c(fn)), grad(c(c(fn))),
                                 grad(c(grad(fn))), c(grad(grad(c(fn)))),
                                 grad(c(grad(c(fn)))), grad(c(grad(grad(c(fn))))),
                                 grad(c(grad(c(grad(c(fn))))))]
                        for case in cases:
                            seen.append(_outcome(lambda: case(x)))
                        y = c(grad(fn))(x)
                        seen.append(_outcome(lambda: m.autograd.grad(y, x)))
        return seen

    _same(program)


def test_set_multithreading_enabled_as_torch():
    def program(m):
        ag = m.autograd
        seen = [ag.is_multithreading_enabled()]
        with ag.set_multithreading_enabled(False):
            seen.append(ag.is_multithreading_enabled())
            ag.set_multithreading_enabled(True)
            seen.append(ag.is_multithreading_enabled())
        seen.append(ag.is_multithreading_enabled())
        ag.set_multithreading_enabled(False)
        seen.append(ag.is_multithreading_enabled())
        seen.append(_outcome(lambda: ag.set_multithreading_enabled(1)))

        @ag.set_multithreading_enabled(True)
        def inside():
            return ag.is_multithreading_enabled()

        seen.append((ag.is_multithreading_enabled(), inside(), ag.is_multithreading_enabled()))
        ag.set_multithreading_enabled(True)
        x = m.ones(2, requires_grad=True)
        with ag.set_multithreading_enabled(False):
            (x * 2).sum().backward()
        seen.append((_seen(x.grad), ag.is_multithreading_enabled()))
        seen.append(type(ag.set_multithreading_enabled(True)).__name__)
        return seen

    _same(program)


def test_set_sequence_nr_orders_the_backward_as_torch():
    def program(m):
        seen = []
        for numbers in [(100, 99, 98), (1, 2, 3), (5, 5, 5), (0, 10, 5)]:
            x, y, z = (_leaf(m, "float32", (4,)) for _ in range(3))
            a, b = x + y, y * z
            c = a + b
            for node, number in zip((a.grad_fn, b.grad_fn, c.grad_fn), numbers):
                node._set_sequence_nr(number)
            seen.append([n.grad_fn._sequence_nr() for n in (a, b, c)])
            order = []
            for name, t in (("a", a), ("b", b), ("c", c)):
                t.register_hook(lambda g, name=name: order.append(name))
            c.sum().backward()
            seen.append((order, _seen(x.grad), _seen(y.grad), _seen(z.grad)))
        for bad in (1.5, True, -1, 2**64, "3"):
            node = (x * 2).grad_fn
            seen.append((_outcome(lambda: node._set_sequence_nr(bad)), node._sequence_nr() == 1))
        seen.append("_set_sequence_nr" in dir((x * 2).grad_fn))
        return seen

    _same(program)


def test_setup_context_may_not_save_an_input_returned_as_is():
    def program(m):
        fw = m.autograd.forward_ad
        seen = []
        for requires_grad in (True, False):
            for save_for in ("jvp", "vjp"):
                for save_tensors in ("input", "output", "neither", "view"):
                    for mark_dirty in (True, False):
                        class A(m.autograd.Function):
                            @staticmethod
                            def forward(x):
                                return x

                            @staticmethod
                            def setup_context(ctx, inputs, output):
                                save = (ctx.save_for_forward if save_for == "jvp"
                                        else ctx.save_for_backward)
                                if mark_dirty:
                                    ctx.mark_dirty(inputs[0])
                                if save_tensors == "input":
                                    save(inputs[0])
                                elif save_tensors == "output":
                                    save(output)
                                elif save_tensors == "view":
                                    save(inputs[0].view_as(inputs[0]))

                            @staticmethod
                            def backward(ctx, grad):
                                return grad

                            @staticmethod
                            def jvp(ctx, tangent):
                                return tangent.add_(0) if mark_dirty else tangent.view_as(tangent)

                        a = m.tensor(2.0, requires_grad=requires_grad).clone()
                        t = m.tensor(2.0, requires_grad=requires_grad).clone()
                        seen.append(_outcome(lambda: A.apply(a) is a))
                        seen.append(_outcome(lambda: m.func.grad(lambda x: A.apply(x.clone()))(a)))

                        def dual():
                            with fw.dual_level():
                                d = fw.make_dual(a.detach().clone(), t)
                                return _seen(fw.unpack_dual(A.apply(d)).tangent)
                        if not (mark_dirty and save_for == "vjp"):
                            seen.append(_outcome(dual))
        return seen

    _same(program)
