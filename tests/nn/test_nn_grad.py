"""torch.nn.grad's convolution input/weight gradients against torch (values, grad_fn names,
their own gradients, errors)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()

CASES = [
    (1, (2, 4, 9), (6, 4, 3), {}),
    (1, (2, 4, 9), (4, 2, 2), dict(stride=2, padding=1, dilation=2, groups=2)),
    (2, (2, 3, 6, 5), (4, 3, 3, 2), {}),
    (2, (1, 4, 7, 7), (6, 2, 3, 3), dict(stride=(2, 1), padding=(1, 0), groups=2)),
    (2, (2, 2, 8, 8), (3, 2, 2, 2), dict(stride=3, dilation=2)),
    (3, (1, 2, 5, 4, 4), (3, 2, 2, 2, 2), dict(stride=(1, 2, 1), padding=1)),
]


def _run(m, spatial, x_shape, w_shape, kwargs, dtype):
    rng = np.random.default_rng(spatial)
    conv = getattr(m.nn.functional, f"conv{spatial}d")
    x = m.tensor(rng.standard_normal(x_shape), dtype=dtype, requires_grad=True)
    w = m.tensor(rng.standard_normal(w_shape), dtype=dtype, requires_grad=True)
    out_shape = conv(x, w, **kwargs).shape
    g = m.tensor(rng.standard_normal(tuple(out_shape)), dtype=dtype, requires_grad=True)
    grad = m.nn.grad
    gx = getattr(grad, f"conv{spatial}d_input")(x.shape, w, g, **kwargs)
    gw = getattr(grad, f"conv{spatial}d_weight")(x, w.shape, g, **kwargs)
    second = m.autograd.grad((gx * gx).sum() + (gw * gw).sum(), (x, w, g), allow_unused=True)
    return gx, gw, second


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("index", range(len(CASES)))
def test_conv_gradients_match_torch(index, dtype):
    got = _run(lg, *CASES[index], getattr(lg, dtype))
    want = _run(torch, *CASES[index], getattr(torch, dtype))
    def close(ours, theirs):
        # float32: the second derivatives are sums of products of terms up to ~60 whose
        # results cancel; their rounding follows each library's summation order (torch's
        # depends on its threads and kernels), so the bound scales with the largest value
        if dtype == "float32":
            scale = max(1.0, float(np.abs(theirs).max(initial=0.0)))
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6 * scale)
        else:
            np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)

    for a, b in zip(got[:2], want[:2]):
        assert a.grad_fn.name() == b.grad_fn.name() == "ConvolutionBackwardBackward0"
        close(a.detach().numpy(), b.detach().numpy())
    for a, b in zip(got[2], want[2]):
        assert (a is None) == (b is None)
        if a is not None:
            close(a.numpy(), b.numpy())


def test_matches_the_convolutions_own_backward():
    x = lg.randn(2, 3, 6, 6, dtype=lg.float64, requires_grad=True)
    w = lg.randn(4, 3, 3, 3, dtype=lg.float64, requires_grad=True)
    out = lg.nn.functional.conv2d(x, w, stride=2, padding=1)
    g = lg.randn(*out.shape, dtype=lg.float64)
    out.backward(g)
    gx = lg.nn.grad.conv2d_input(x.shape, w, g, stride=2, padding=1)
    gw = lg.nn.grad.conv2d_weight(x, w.shape, g, stride=2, padding=1)
    np.testing.assert_allclose(gx.detach().numpy(), x.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gw.detach().numpy(), w.grad.numpy(), rtol=1e-12)


def test_unbatched_input_size_is_refused_like_torch():
    def run(m):
        w = m.randn(4, 3, 3, 3)
        try:
            m.nn.grad.conv2d_input((3, 5, 5), w, m.randn(4, 3, 3))
        except RuntimeError as error:
            return str(error)
        return None

    assert run(lg) == run(torch) is not None
