"""Differences found by the generated-program comparison (tests/differential: the wide op set's
seeds from 10_021_900 and 10_030_000, the second wide set's from 20_000_000 and 20_007_100, the
classic generator's from 400000), each fixed and checked here against torch 2.13 as a class
(not the one seed). Each test sweeps its class of inputs in one loop (the suite's time budget)."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad
from tests._torch import require_torch

torch = require_torch()

LIBS = (torch, leafgrad)

# the comparisons test_fuzz14_findings.py defined (every bit of a tensor's values, NaN payloads
# aside; a result or an exception's type and first line) and test_fuzz15's graph walk
from tests.test_fuzz14_findings import _bits, _outcome  # noqa: E402
from tests.test_fuzz15_findings import _graph  # noqa: E402


def _fbits(t):
    """_bits of a tensor of any floating dtype (bfloat16 has no NumPy form in torch)."""
    if t.dtype in (torch.bfloat16, leafgrad.bfloat16):
        t = t.float()
    return _bits(t)


# -- scans with a bfloat16 dtype accumulate in float, and start at +0. --------------------------
# (generated-program seed 10022992: cumsum(bf16 [-0.], out=bf16 buffer) printed -0. where torch
# prints 0.: torch's running sum starts at +0. and carries bfloat16 in float (acc_type), which
# leafgrad did for float32/float16 only, so cumsum/cumprod with dtype=bfloat16 also rounded every
# partial sum to bfloat16 (275 of 300 elements differed). logcumsumexp's first element kept -0.
# where torch's x + log1p(exp(-inf - x)) is +0.)

_SCANS = [
    "x.cumsum(0)", "x.cumsum(-1, dtype=lib.bfloat16)", "lib.cumsum(x, 0, dtype=lib.bfloat16)",
    "lib.cumsum(x, 0, out=lib.zeros(5, dtype=lib.bfloat16))",
    "lib.cumsum(x, 0, out=lib.zeros(0, dtype=lib.bfloat16))",
    "x.cumprod(0, dtype=lib.bfloat16)", "lib.cumprod(x, 0, out=lib.zeros(1, dtype=lib.bfloat16))",
    "x.cumsum(0, dtype=lib.float16)", "x.cumprod(0, dtype=lib.float32)", "x.logcumsumexp(0)",
    "lib.logcumsumexp(x, 0, out=lib.empty(0, dtype=x.dtype))", "x.cumsum(0, dtype=lib.float64)",
]


def test_scans_accumulate_bfloat16_in_float_from_plus_zero():
    failures = []
    rng = np.random.RandomState(0)
    values = {"zeros": np.array([-0.0, -0.0, 0.5, -0.0], np.float32),
              "long": (rng.randn(300) * 3).astype(np.float32),
              "one": np.array([-0.0], np.float32)}
    dtypes = ["bfloat16", "float32", "float16", "float64"]
    for form, (name, data), dtype, layout in itertools.product(
            _SCANS, values.items(), dtypes, ["plain", "strided"]):
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor(np.repeat(data, 2) if layout == "strided" else data)
                x = x.to(getattr(lib, dtype))
                if layout == "strided":
                    x = x[::2]
                return _fbits(eval(form, {"x": x, "lib": lib}))
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, name, dtype, layout))
    assert not failures, (len(failures), failures[:4])


# -- a resized view is its base's memory at its new geometry ----------------------------------
# (generated-program seeds 10021905, 10023138: lib.mul(x, 2, out=view) with view =
# zeros(4, 3, 2).mT (shape (4, 2, 3), a view) resized it to (2, 3, 4) in fresh memory, and an
# in-place op on it later with an operand requiring grad regenerated its grad_fn from the steps
# that made the old view: backward failed with 'Mismatch in shape'. torch keeps the storage when
# it holds the new elements (the base sees the result) and regenerates the view's grad_fn with
# as_strided at its current sizes, strides and offset; resize_ likewise.)

_VIEWS = ["b.mT", "b[1:]", "b.transpose(0, 2)", "b.view(-1)[2:20]", "b[:, :, 0]",
          "b.view(-1)[::2]"]
_RESIZES = [
    "lib.mul(y, 2, out=v)", "lib.exp(y, out=v)", "lib.add(y, y.t().t(), out=v)",
    "lib.cumsum(y, 0, out=v)", "lib.neg(y.mT, out=v)", "v.resize_(2, 3, 2)", "v.resize_(3, 2)",
    "v.resize_(4)",
]


def test_resized_views_keep_their_base_memory_and_regenerate_as_strided():
    failures = []
    for view, resize, dtype, grads in itertools.product(
            _VIEWS, _RESIZES, ["float32", "float64"], [(True, True), (True, False),
                                                      (False, True)]):
        results = []
        for lib in LIBS:
            def run():
                dt = getattr(lib, dtype)
                b = (lib.arange(24, dtype=dt) * 0.25 - 2).reshape(4, 3, 2)
                v = eval(view, {"b": b})
                y = (lib.arange(12, dtype=dt) * 0.5 - 1.5).reshape(2, 3, 2)
                r = eval(resize, {"lib": lib, "y": y, "v": v})
                w = lib.linspace(-1, 1, v.shape[-1], dtype=dt).requires_grad_(grads[0])
                s = lib.tensor(1.5, dtype=dt).requires_grad_(grads[1])
                v.mul_(w).add_(s)
                observed = [r is v, tuple(v.shape), v.stride(), v._base is b,
                            _graph(v.grad_fn, 3), _bits(v), _bits(b), v._version]
                leaves = [t for t in (w, s) if t.requires_grad]
                gs = lib.autograd.grad((v * v).sum(), leaves, create_graph=True)
                observed += [(_bits(g), _graph(g.grad_fn, 3)) for g in gs]
                observed += [_bits(t) for t in lib.autograd.grad(
                    sum(g.sum() for g in gs), leaves, allow_unused=True) if t is not None]
                return observed
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((view, resize, dtype, grads, results))
    assert not failures, (len(failures), failures[:2])


# -- operands contiguous but for their size-1 dims' strides take the fast setup --------------
# (generated-program seed 401228: x9 + x10 with x9 (2, 1, 4) strided (4, 1, 1), from a matmul,
# and x10 row-major: torch's operands are all contiguous (a size-1 dim's stride is ignored), so
# TensorIterator's fast setup makes the result row-major, (4, 4, 1); leafgrad ordered the dims
# and kept (4, 1, 1), so a later matmul with a matrix could not fold the result into mm and
# recorded BmmBackward0 where torch records MmBackward0)

_ODD = {
    "transposed": lambda lib, dt: (lib.arange(8, dtype=dt) * 0.5 - 1).reshape(2, 4, 1)
    .transpose(1, 2),
    "strided": lambda lib, dt: (lib.arange(8, dtype=dt) * 0.5 - 1).as_strided((2, 1, 4),
                                                                               (4, 7, 1)),
    "unsqueezed": lambda lib, dt: (lib.arange(8, dtype=dt) * 0.5 - 1).reshape(2, 4)
    .unsqueeze(1),
    "plain": lambda lib, dt: (lib.arange(8, dtype=dt) * 0.5 - 1).reshape(2, 1, 4),
    "row": lambda lib, dt: (lib.arange(4, dtype=dt) * 0.5 - 1).reshape(1, 1, 4),
}
_ELEMENTWISE = ["a + b", "b + a", "a * b", "lib.add(a, b, alpha=2)", "lib.maximum(a, b)",
                "lib.where(a > 0, a, b)", "a.atan2(b)", "lib.lerp(a, b, 0.5)",
                "lib.addcmul(a, a, b)"]


def test_operands_contiguous_but_for_size_one_strides_give_row_major_results():
    failures = []
    for form, (na, make_a), (nb, make_b), dtype in itertools.product(
            _ELEMENTWISE, _ODD.items(), _ODD.items(), ["float32", "float64"]):
        results = []
        for lib in LIBS:
            def run():
                dt = getattr(lib, dtype)
                a = make_a(lib, dt).requires_grad_()
                b = make_b(lib, dt) * 1
                y = eval(form, {"a": a, "b": b, "lib": lib})
                m = lib.matmul(y, lib.ones(4, 2, dtype=dt))
                g, = lib.autograd.grad(m.sum(), a)
                return y.stride(), _graph(m.grad_fn, 3), _bits(m), _bits(g)
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, na, nb, dtype, results))
    assert not failures, (len(failures), failures[:2])


# -- advanced indexing orders its result's dims as torch's index kernel ---------------------
# (generated-program seed 20005270: x3 = x2.transpose(0, -1) and x3[[3, -1, -4]] was row-major
# here; torch's TensorIterator over the restrided source and the index tensors keeps the
# source's order of the dims it does not index, (6, 1, 3), so a later reshape(-1, 9) copied
# (UnsafeViewBackward0 <- CloneBackward0) where leafgrad's was a view)

_INDEX_LAYOUTS = {"plain": "b", "t": "b.transpose(0, 2)", "perm": "b.permute(1, 2, 0)",
                  "slice": "b[:, ::2]", "mT": "b.mT", "flip": "b.flip(0)",
                  "expand": "b[:1].expand(3, -1, -1)"}
_INDEX_FORMS = [
    "x[[1, 0]]", "x[:, [2, 0, 1]]", "x[..., [1, 0]]", "x[[0, 1], :, [1, 0]]",
    "x[:, [[0, 1], [1, 0]]]", "x[[[1], [0]], [[0, 1]]]", "x[x > 0]", "x[:, x[0] > 0]",
    "x[[1, 0], [0, 1]]", "x[lib.tensor([[1, 0], [0, 1]]).t()]",
    "x[:, lib.tensor([[1, 0, 2], [0, 1, 1]]).t()]", "x[None, [1, 0]]", "x[:, None, [1, 0]]",
    "x[1:, [0, 1], 1:]", "x[[0], :, [1]]", "x[:, :, [1]]", "x[:, [0, 1], [1, 1]]",
    "x[[1, 0]][:, [1, 0]]", "x[0, [1, 0]]", "x[lib.tensor([1, 0]), 1:3]",
]


def test_advanced_indexing_orders_result_dims_as_torch():
    failures = []
    for form, (name, layout), dtype in itertools.product(
            _INDEX_FORMS, _INDEX_LAYOUTS.items(), ["float32", "float64"]):
        results = []
        for lib in LIBS:
            def run():
                shape = (3, 5, 4) if name == "mT" else (3, 4, 5)
                b = (lib.arange(60, dtype=getattr(lib, dtype)) - 30).reshape(shape)
                x = eval(layout, {"b": b}).requires_grad_()
                y = eval(form, {"x": x, "lib": lib})
                r = y.reshape(-1)
                g, = lib.autograd.grad((r * r).sum(), x)
                return y.stride(), y.is_contiguous(), _graph(r.grad_fn, 3), _bits(y), _bits(g)
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, name, dtype, results))
    assert not failures, (len(failures), failures[:2])


# -- diff makes its lower slice first ---------------------------------------------------------
# (generated-program seed 20004688: the create_graph gradient of x.diff(n=2) summed its two
# slices' gradients in the other order: AddBackward0's edges were (SliceBackwardBackward0 <-
# NegBackward0, SliceBackwardBackward0 <- AddBackward0), torch's the reverse. torch's
# diff_helper writes narrow(1) - narrow(0) as C++ call arguments, evaluated right to left, so
# narrow(0) is the older node and the engine runs the newer one's backward first)

_DIFFS = ["x.diff()", "x.diff(n=2)", "lib.diff(x, 3, 0)", "x.diff(dim=0)",
          "x.diff(prepend=x[:, :1].detach())", "lib.diff(x, 2, -1, append=x[:, -2:])",
          "x.diff(n=5)"]


def test_diff_slices_in_torchs_order():
    failures = []
    for form, dtype, layout in itertools.product(_DIFFS, ["float32", "float64"],
                                                 ["plain", "transposed"]):
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor([[1.5, -0.5, 2.25, 0.75], [0.5, 1.25, -1.5, 3.0],
                                [2.0, -1.0, 0.25, 1.0], [0.0, 1.0, 2.5, -2.0]],
                               dtype=getattr(lib, dtype))
                if layout == "transposed":
                    x = x.t()
                x.requires_grad_()
                y = eval(form, {"x": x, "lib": lib})
                g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
                gg, = lib.autograd.grad((g * g).sum(), x)
                return _graph(y.grad_fn, 4), _graph(g.grad_fn, 5), _bits(g), _bits(gg)
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, dtype, layout, results))
    assert not failures, (len(failures), failures[:2])


# -- a pointwise loss's backward node returns its first operand's dtype, bfloat16 too ---------
# (generated-program seed 20005448: mse_loss(float64 input, bfloat16 target) under
# create_graph: the target's gradient came out of MseLossBackwardBackward0 in float64 and was
# cast (ToCopyBackward0); torch's kernel writes into zeros_like(target), so the node itself
# returns bfloat16 (the other float dtypes were right: bfloat16 operands are widened to float32
# for the forward, which the node did not round back for its self operand, the second))

_LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"]


def test_pointwise_loss_backward_nodes_return_bfloat16_themselves():
    failures = []
    dtypes = ["float64", "float32", "bfloat16", "float16"]
    for loss, a_dtype, b_dtype, reduction, grads in itertools.product(
            _LOSSES, dtypes, dtypes, ["none", "mean"], [(True, True), (False, True)]):
        if a_dtype == b_dtype:
            continue
        results = []
        for lib in LIBS:
            def run():
                x = lib.tensor([0.5, -1.25, 2.0], dtype=getattr(lib, a_dtype))
                t = lib.tensor(1.375, dtype=getattr(lib, b_dtype))
                x.requires_grad_(grads[0])
                t.requires_grad_(grads[1])
                y = getattr(lib.nn.functional, loss)(x, t, reduction=reduction)
                leaves = [v for v in (x, t) if v.requires_grad]
                gs = lib.autograd.grad(y.sum(), leaves, create_graph=True)
                return [(str(g.dtype).split(".")[-1], _graph(g.grad_fn, 3), _fbits(g)) for g in gs]
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((loss, a_dtype, b_dtype, reduction, grads, results))
    assert not failures, (len(failures), failures[:2])


# -- a norm without a weight ignores its parameter gradients' own gradients ------------------
# (generated-program seed 20006051: g = grad(batch_norm(x, bias=b).tanh().sum(), b,
# create_graph=True), then g.sum().backward(): torch's batchnorm_double_backward (and
# layer_norm's) reads ggG and ggB only when a weight is given, so x.grad and b.grad stay None;
# leafgrad differentiated the bias gradient's formula and gave both; with the input's gradient
# too, batch norm's adds an undefined term: C++'s 'Expected a proper Tensor but got None'.
# group_norm with a bias alone fails in torch there (shape '[0]' is invalid...): left out)

_NORMS = {
    "batch": lambda F, lib, x, w, b: F.batch_norm(x, None, None, weight=w, bias=b,
                                                  training=True),
    "batch_eval": lambda F, lib, x, w, b: F.batch_norm(
        x, lib.zeros(3, dtype=x.dtype), lib.ones(3, dtype=x.dtype), weight=w, bias=b),
    "layer": lambda F, lib, x, w, b: F.layer_norm(x, (3,), weight=w, bias=b),
    "instance": lambda F, lib, x, w, b: F.instance_norm(x.mT.contiguous(), weight=w, bias=b),
}


def test_norms_without_a_weight_ignore_parameter_gradients_gradients():
    failures = []
    for (name, norm), params, wanted, dtype in itertools.product(
            _NORMS.items(), ["bias", "weight", "both"], ["param", "param+x"],
            ["float32", "float64"]):
        results = []
        for lib in LIBS:
            def run():
                dt = getattr(lib, dtype)
                x = (lib.arange(24, dtype=dt).reshape(2, 4, 3) * 0.37).sin().mT.requires_grad_()
                w = lib.tensor([1.5, 0.5, -1.0], dtype=dt, requires_grad=True)
                b = lib.tensor([0.25, -0.5, 1.0], dtype=dt, requires_grad=True)
                y = norm(lib.nn.functional, lib, x, w if params != "bias" else None,
                         b if params != "weight" else None)
                leaves = [b if params != "weight" else w] + ([x] if wanted == "param+x" else [])
                gs = lib.autograd.grad(y.tanh().sum(), leaves, create_graph=True)
                sum(g.sum() for g in gs).backward()
                # (which gradients exist, and their values: the double backward's last bits
                # are not torch's, an older open item)
                return [None if t.grad is None else np.round(t.grad.numpy(), 4).tolist()
                        for t in (x, w, b)]
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((name, params, wanted, dtype, results))
    assert not failures, (len(failures), failures[:2])


# -- a resized out= takes the result's size-1 strides too -------------------------------------
# (generated-program seed 10023138: lib.mul(x0.t().detach(), 2, out=zeros(5)) with x0 (3, 1):
# torch gives out the strides of the result, (1, 1); leafgrad's NumPy flag called the result
# row-major (size-1 dims ignored) and made out (3, 1)-strided)

_OUT_INPUTS = {
    "t": lambda lib: lib.tensor([[1.5], [-0.5], [2.0]]).t(),
    "t3": lambda lib: lib.tensor([[[1.5, -0.5, 2.0]], [[0.5, 1.0, -1.0]]]).transpose(0, 1),
    "strided": lambda lib: lib.arange(6.0).as_strided((2, 1, 3), (3, 7, 1)),
    "plain": lambda lib: lib.tensor([[1.5, -0.5, 2.0]]),
}
_OUT_CALLS = ["lib.mul(x, 2, out=o)", "lib.exp(x, out=o)", "lib.neg(x, out=o)",
              "lib.add(x, x, out=o)", "lib.sigmoid(x, out=o)", "lib.clamp(x, 0, 1, out=o)",
              "lib.pow(x, 2, out=o)"]


def test_resized_out_takes_the_results_size_one_strides():
    failures = []
    for call, (name, make), size in itertools.product(_OUT_CALLS, _OUT_INPUTS.items(),
                                                      [0, 1, 5, 6]):
        results = []
        for lib in LIBS:
            def run():
                x = make(lib)
                o = lib.zeros(size)
                r = eval(call, {"lib": lib, "x": x, "o": o})
                return r is o, o.stride(), _bits(o)
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((call, name, size, results))
    assert not failures, (len(failures), failures[:2])


# -- cummax/cummin's and trace's gradients are written as torch's ------------------------------
# (generated-program seed 20005124: the gradient of cummax(x.t(), -1) had _version 0, torch's 2:
# cummaxmin_backward is at::zeros then scatter_add_; trace_backward is zeros(rows * cols)
# .index_fill_(0, positions, grad).view(rows, cols): _version 2, and ViewBackward0 <-
# IndexFillBackward1 under create_graph, where leafgrad recorded DiagonalBackwardBackward0)

_SCAN_GRADS = ["lib.trace(x)", "x.trace() * 2", "lib.cummax(x, 1)[0]", "x.cummin(0).values",
               "lib.cummax(x.t(), -1)[0]", "x.cummin(-1)[0].exp()"]


def test_cummax_and_trace_gradients_are_written_as_torch():
    failures = []
    for form, shape, dtype, mode in itertools.product(
            _SCAN_GRADS, [(3, 4), (4, 3), (1, 1), (0, 3), (2, 2)], ["float32", "float64"],
            ["grad", "create_graph", "backward"]):
        if mode == "backward" and (0 in shape or ".t()" in form):
            # (left: .grad of an empty leaf keeps _version 0 here; a gradient not in the
            # leaf's layout is copied by torch's AccumulateGrad, _version 1: fuzz15's item)
            continue
        results = []
        for lib in LIBS:
            def run():
                n = int(np.prod(shape))
                x = (lib.arange(n, dtype=getattr(lib, dtype)) * 0.7 - 2).sin().reshape(shape)
                x.requires_grad_()
                y = eval(form, {"x": x, "lib": lib})
                loss = (y * y).sum()
                if mode == "backward":
                    loss.backward()
                    g = x.grad
                    return g._version, _bits(g)
                g, = lib.autograd.grad(loss, x, create_graph=mode == "create_graph")
                out = [g._version, g.stride(), _graph(g.grad_fn, 3), _bits(g)]
                if g.requires_grad:
                    gg, = lib.autograd.grad((g * g).sum(), x, allow_unused=True)
                    out.append(None if gg is None else _bits(gg))
                return out
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((form, shape, dtype, mode, results))
    assert not failures, (len(failures), failures[:2])


# -- fill_ of one float16/bfloat16 element names double in its complex error -------------------
# (generated-program seed 20011637: x8[0].fill_(1+2j) of a float16 x8: torch's one-element
# scalar_fill reads the value as a double, 'value cannot be converted to type double without
# overflow'; leafgrad named c10::Half, the message of the many-element kernel)


def test_fill_of_one_half_element_names_double():
    failures = []
    dtypes = ["float16", "bfloat16", "float32", "float64", "int32", "uint8", "bool",
              "complex64"]
    for dtype, shape, value, form in itertools.product(
            dtypes, [(), (1,), (1, 1), (2,), (2, 3)], [1 + 2j, 2j, 1e300, 3.0 + 0j],
            ["t.fill_(v)", "lib.fill(t, v)", "t[0].fill_(v) if t.ndim else t.fill_(v)"]):
        results = []
        for lib in LIBS:
            def run():
                t = lib.zeros(shape, dtype=getattr(lib, dtype))
                r = eval(form, {"t": t, "v": value, "lib": lib})
                return _fbits(r) if r.dtype.is_floating_point else _bits(r), t._version
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((dtype, shape, value, form, results))
    assert not failures, (len(failures), failures[:2])


# -- relu of a 0-d zero whose dtype NumPy's maximum does not keep the sign of -----------------
# (generated-program seed 20011372: where(x != 0, 0, x).relu() of a 0-d float16 x raised
# 'TypeError: return arrays must be of ArrayType': NumPy's maximum returned a scalar, which the
# sign fix-up then wrote into)


def test_relu_of_zero_dim_zeros_keeps_their_sign():
    failures = []
    for dtype, value, form, shape in itertools.product(
            ["float16", "bfloat16", "float32", "float64"], [-0.0, 0.0, -1.5, 2.0],
            ["x.relu()", "lib.relu(x)", "lib.nn.functional.relu(x)", "x.clone().relu_()",
             "lib.nn.functional.relu6(x)"], [(), (1,), (3,)]):
        results = []
        for lib in LIBS:
            def run():
                x = lib.full(shape, value, dtype=getattr(lib, dtype))
                return _fbits(eval(form, {"x": x, "lib": lib}))
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((dtype, value, form, shape, results))
    assert not failures, (len(failures), failures[:2])


# -- torch.func transforms take inference tensors ----------------------------------------------
# (generated-program seed 20010067: jacrev(f)(x) of an x made under inference_mode raised
# 'Setting requires_grad=True on inference tensor outside InferenceMode'; torch's transforms
# wrap it as any tensor)

_FUNC_CALLS = [
    "lib.func.jacrev(f)(x)", "lib.func.grad(lambda a: f(a).sum())(x)",
    "lib.func.vjp(f, x)[1](lib.ones_like(x))[0]", "lib.func.jacfwd(f)(x)",
    "lib.func.vmap(lib.func.grad(lambda a: f(a).sum()))(x[:, None])",
    "lib.func.grad_and_value(lambda a: f(a).sum())(x)[1]",
]  # (left: hessian, jacrev inside jacfwd, of an inference tensor still raises here)


def test_func_transforms_take_inference_tensors():
    failures = []
    for call, dtype, made in itertools.product(_FUNC_CALLS, ["float32", "float64"],
                                               ["inference", "plain"]):
        results = []
        for lib in LIBS:
            def run():
                x = lib.linspace(-1, 1, 3, dtype=getattr(lib, dtype))
                if made == "inference":
                    with lib.inference_mode():
                        x = x * 2
                f = lambda a: (a * 1.5).sin() * a  # noqa: E731
                r = eval(call, {"lib": lib, "x": x, "f": f})
                return _bits(r), r.is_inference(), r.requires_grad, x.is_inference()
            results.append(_outcome(run))
        if results[0] != results[1]:
            failures.append((call, dtype, made, results))
    assert not failures, (len(failures), failures[:2])
