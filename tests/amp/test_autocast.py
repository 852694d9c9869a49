"""leafgrad.autocast / leafgrad.amp against torch (CPU, float16 and the default bfloat16): dtypes,
values, graphs."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _graph(t):
    """grad_fn names, depth-first, as a nested tuple (four levels).

    Trailing ``None`` edges are dropped: leafgrad's loss nodes list one for the target where
    torch's do not (a difference outside autocast, reported separately)."""
    def walk(node, depth):
        if node is None or depth > 3:
            return None
        edges = [walk(n, depth + 1) for n, _ in node.next_functions]
        while edges and edges[-1] is None:
            edges.pop()
        return (node.name(), tuple(edges))
    return walk(t.grad_fn, 0)


OPS = {
    "mm": lambda m, a, b, v, F: m.mm(a, b),
    "matmul": lambda m, a, b, v, F: a @ b,
    "matmul3": lambda m, a, b, v, F: a.unsqueeze(0).expand(2, 3, 3) @ b,
    "bmm": lambda m, a, b, v, F: m.bmm(a.unsqueeze(0), b.unsqueeze(0)),
    "addmm": lambda m, a, b, v, F: m.addmm(v, a, b),
    "baddbmm": lambda m, a, b, v, F: m.baddbmm(a.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0)),
    "linear": lambda m, a, b, v, F: F.linear(a, b),
    "linear_bias": lambda m, a, b, v, F: F.linear(a, b, v),
    "conv1d": lambda m, a, b, v, F: F.conv1d(a.unsqueeze(0), b.unsqueeze(-1)),
    "conv2d": lambda m, a, b, v, F: F.conv2d(a.reshape(1, 1, 3, 3), b[:2, :2].reshape(1, 1, 2, 2)),
    "conv_transpose2d": lambda m, a, b, v, F: F.conv_transpose2d(a.reshape(1, 1, 3, 3),
                                                                 b[:2, :2].reshape(1, 1, 2, 2)),
    "prelu": lambda m, a, b, v, F: F.prelu(a, v[:1]),
    "add": lambda m, a, b, v, F: a + b,
    "softmax": lambda m, a, b, v, F: (a @ b).softmax(-1),
    "mse": lambda m, a, b, v, F: F.mse_loss(a @ b, b),
    "l1": lambda m, a, b, v, F: F.l1_loss(a @ b, b),
    "smooth_l1": lambda m, a, b, v, F: F.smooth_l1_loss(a @ b, b),
    "huber": lambda m, a, b, v, F: F.huber_loss(a @ b, b),
    "cross_entropy": lambda m, a, b, v, F: F.cross_entropy(a @ b, m.tensor([0, 2, 1])),
    "nll": lambda m, a, b, v, F: F.nll_loss((a @ b).log_softmax(-1), m.tensor([0, 2, 1])),
    "bce_logits": lambda m, a, b, v, F: F.binary_cross_entropy_with_logits(a @ b, b.sigmoid()),
    "bce": lambda m, a, b, v, F: F.binary_cross_entropy((a @ b).sigmoid(), b.sigmoid()),
    "soft_margin": lambda m, a, b, v, F: F.soft_margin_loss(a @ b, b.sign().detach()),
    "float64": lambda m, a, b, v, F: a.double() @ b.double(),
    "cat": lambda m, a, b, v, F: m.cat([a @ b, b]),
    "matmul_mv": lambda m, a, b, v, F: a @ v,
    "matmul_dot": lambda m, a, b, v, F: v @ v,
    "matmul_vm": lambda m, a, b, v, F: v @ a,
    "mv_stays": lambda m, a, b, v, F: m.mv(a, v),
    "dot_stays": lambda m, a, b, v, F: m.dot(v, v),
    "mixed_mm": lambda m, a, b, v, F: m.mm(a.half(), b),
}


# Graph differences that exist without autocast too (reported, outside this area): leafgrad's
# prelu does not view its weight (torch: ViewBackward0), and Tensor.to on an expanded tensor
# keeps a strided layout where torch makes it contiguous (so matmul folds with a clone).
_GRAPH_DIFFERS_ANYWAY = {"prelu", "matmul3"}


# torch's own test suite compares bfloat16 results with rtol 1.6e-2 (8 significant bits)
_TOLERANCE = {"float16": (2e-3, 5e-3), "bfloat16": (1.6e-2, 3e-2)}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", None])
@pytest.mark.parametrize("name", list(OPS))
def test_cpu_float16_ops(name, dtype):
    """dtype None: autocast("cpu") without dtype=, torch's bfloat16 default."""
    pytest.importorskip("ml_dtypes") if dtype != "float16" else None
    results = []
    for m in (torch, lg):
        m.manual_seed(0)
        a = m.randn(3, 3, requires_grad=True)
        b = m.randn(3, 3, requires_grad=True)
        v = m.randn(3, requires_grad=True)
        region = (m.autocast("cpu") if dtype is None
                  else m.autocast("cpu", dtype=getattr(m, dtype)))
        with region:
            assert m.get_autocast_dtype("cpu") is getattr(m, dtype or "bfloat16")
            out = OPS[name](m, a, b, v, m.nn.functional)
        out.float().sum().backward()
        results.append((str(out.dtype).split(".")[1], tuple(out.shape), _graph(out),
                        out.detach().float().numpy(), [t.grad.numpy() for t in (a, b, v)
                                                      if t.grad is not None]))
    (td, ts, tg, tv, tgrads), (ld, ls, lgr, lv, lgrads) = results
    if name in _GRAPH_DIFFERS_ANYWAY:
        lgr, tg = lgr[0], tg[0]
    assert (ld, ls, lgr) == (td, ts, tg)
    value_tol, grad_tol = _TOLERANCE[dtype or "bfloat16"]
    np.testing.assert_allclose(lv, tv, rtol=value_tol, atol=value_tol)
    assert len(lgrads) == len(tgrads)
    for x, y in zip(lgrads, tgrads):
        np.testing.assert_allclose(x, y, rtol=grad_tol, atol=grad_tol)


def test_state_functions_and_nesting():
    for m in (torch, lg):
        assert not m.is_autocast_enabled("cpu")
        with m.autocast("cpu", dtype=m.float16) as region:
            assert m.is_autocast_enabled("cpu") and not m.is_autocast_enabled()
            assert m.get_autocast_dtype("cpu") is m.float16
            assert region.fast_dtype is m.float16
            with m.autocast("cpu", enabled=False):
                assert not m.is_autocast_enabled("cpu")
                assert (m.ones(2, 2) @ m.ones(2, 2)).dtype is m.float32
                assert m.get_autocast_dtype("cpu") is m.float16
            assert m.is_autocast_enabled("cpu")
        assert not m.is_autocast_enabled("cpu")
        assert m.is_autocast_cache_enabled()


def test_decorator():
    for m in (torch, lg):
        @m.autocast("cpu", dtype=m.float16)
        def f(x):
            return x @ x, m.is_autocast_enabled("cpu")

        out, on = f(m.ones(2, 2))
        assert out.dtype is m.float16 and on and not m.is_autocast_enabled("cpu")


def _warned(m, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with m.autocast(*args, **kwargs):
            enabled = m.is_autocast_enabled(args[0])
            dtype = (m.ones(2, 2) @ m.ones(2, 2)).dtype
    return enabled, dtype, [str(w.message).split("\n")[0] for w in caught]


def test_unsupported_dtype_and_cuda_warn_and_disable():
    for args, kwargs in ((("cpu",), {"dtype": "float32"}), (("cuda",), {})):
        outcomes = []
        for m in (torch, lg):
            k = {key: getattr(m, v) for key, v in kwargs.items()}
            enabled, dtype, messages = _warned(m, *args, **k)
            outcomes.append((enabled, str(dtype).split(".")[1], messages))
        assert outcomes[0] == outcomes[1]


def test_default_cpu_dtype_is_bfloat16():
    pytest.importorskip("ml_dtypes")
    outcomes = []
    for m in (torch, lg):
        enabled, dtype, messages = _warned(m, "cpu")
        outcomes.append((enabled, str(dtype).split(".")[1], messages,
                         str(m.get_autocast_dtype("cpu")).split(".")[1]))
    assert outcomes[0] == outcomes[1] == (True, "bfloat16", [], "bfloat16")


def test_default_cpu_dtype_without_ml_dtypes():
    """Without the optional ml_dtypes, a bfloat16 region warns (torch's first line, then how to
    get bfloat16) and runs in float32."""
    import subprocess
    import sys

    code = (
        "import sys, warnings\n"
        "sys.modules['ml_dtypes'] = None  # hides it: import raises ImportError\n"
        "import leafgrad as lg\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    with lg.autocast('cpu'):\n"
        "        on = lg.is_autocast_enabled('cpu')\n"
        "        dtype = (lg.ones(2, 2) @ lg.ones(2, 2)).dtype\n"
        "print(on, dtype, lg.get_autocast_dtype('cpu'))\n"
        "print(str(caught[0].message))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "False leafgrad.float32 leafgrad.bfloat16"
    assert lines[1] == "In CPU autocast, but the target dtype is not supported. Disabling autocast."
    assert lines[2].startswith("CPU Autocast only supports dtypes of leafgrad.bfloat16, "
                               "leafgrad.float16 currently. (bfloat16 tensors need the "
                               "ml_dtypes package")


@pytest.mark.parametrize("args", [(1,), ("gpu",), ("cpux",)])
def test_bad_device_type(args):
    outcomes = []
    for m in (torch, lg):
        with pytest.raises(Exception) as info:
            m.autocast(*args)
        outcomes.append((info.type, str(info.value).split("\n")[0]))
    assert outcomes[0] == outcomes[1]


def test_weight_cast_is_cached_inside_a_region():
    for m in (torch, lg):
        w = m.randn(3, 3, requires_grad=True)
        with m.autocast("cpu", dtype=m.float16):
            y1, y2 = m.mm(w, w), m.mm(w, w)
        # one cast of w serves both products: the same ToCopyBackward0 node
        assert y1.grad_fn.next_functions[0][0] is y2.grad_fn.next_functions[0][0]


def test_custom_fwd_bwd():
    seen = {}
    for m in (torch, lg):
        class Square(m.autograd.Function):
            @staticmethod
            @m.amp.custom_fwd(device_type="cpu", cast_inputs=m.float32)
            def forward(ctx, x):
                ctx.save_for_backward(x)
                seen[m.__name__, "fwd"] = (str(x.dtype).split(".")[1],
                                           m.is_autocast_enabled("cpu"))
                return x @ x

            @staticmethod
            @m.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                seen[m.__name__, "bwd"] = m.is_autocast_enabled("cpu")
                return g @ x.t() + x.t() @ g

        x = m.ones(2, 2, dtype=m.float16, requires_grad=True)
        with m.autocast("cpu", dtype=m.float16):
            y = Square.apply(x)
        y.sum().backward()
        seen[m.__name__, "out"] = (str(y.dtype).split(".")[1], str(x.grad.dtype).split(".")[1])
    for key in ("fwd", "bwd", "out"):
        assert seen["leafgrad", key] == seen["torch", key]
    with pytest.raises(TypeError):
        lg.amp.custom_fwd(lambda ctx, x: x)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("shape", [(1, 1, 5), (1, 1, 4, 4), (1, 1, 3, 3, 3)])
def test_padding_policies(mode, shape):
    """Reflection (1-d, 2-d) and replication padding are on torch's CPU float32 list, so a
    float16 input is padded in float32 inside autocast; reflection_pad3d, circular and
    constant padding keep float16."""
    pad = [1, 1] * (len(shape) - 2)
    results = []
    for m in (torch, lg):
        x = m.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape)).half()
        x.requires_grad_()
        with m.autocast("cpu", dtype=m.float16):
            out = m.nn.functional.pad(x, pad, mode)
        grad, = m.autograd.grad(out.float().sum(), x)
        results.append((str(out.dtype).split(".")[1], out.grad_fn.name(),
                        out.detach().float().numpy(), str(grad.dtype).split(".")[1],
                        grad.float().numpy()))
    (td, tn, tv, tgd, tg), (ld, ln, lv, lgd, lgr) = results
    assert (ld, ln, lgd) == (td, tn, tgd)
    np.testing.assert_array_equal(lv, tv)
    np.testing.assert_array_equal(lgr, tg)
