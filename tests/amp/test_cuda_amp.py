"""leafgrad.cuda.amp against torch.cuda.amp on a CPU-only build: the deprecated names warn as
torch's do (FutureWarning naming the torch.amp form) and disable themselves without CUDA."""

import warnings

import pytest

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def _caught(fn):
    """fn's result and the (category, message) of every warning it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("kwargs", [{}, {"enabled": False}, {"enabled": True},
                                    {"init_scale": 8.0, "growth_interval": 3}])
def test_grad_scaler(kwargs):
    outcomes = []
    for m in (torch, lg):
        scaler, messages = _caught(lambda: m.cuda.amp.GradScaler(**kwargs))
        assert isinstance(scaler, m.amp.GradScaler)
        loss = m.tensor([1.5, -2.0], requires_grad=True).sum()
        scaled = scaler.scale(loss)
        p = m.nn.Parameter(m.ones(2))
        opt = m.optim.SGD([p], lr=0.5)
        (p * 3).sum().backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        outcomes.append((messages, scaler.is_enabled(), scaled is loss, p.tolist(),
                         scaler.get_scale(), scaler.state_dict()))
    assert outcomes[0] == outcomes[1]


def test_grad_scaler_from_import():
    from leafgrad.cuda.amp import GradScaler

    assert issubclass(GradScaler, lg.amp.GradScaler)
    assert lg.cuda.amp.amp_definitely_not_available() == \
        torch.cuda.amp.amp_definitely_not_available()


@pytest.mark.parametrize("kwargs", [{}, {"enabled": False}, {"dtype": "float32"},
                                    {"cache_enabled": False}])
def test_autocast(kwargs):
    outcomes = []
    for m in (torch, lg):
        k = {key: getattr(m, v) if key == "dtype" else v for key, v in kwargs.items()}

        def run():
            with m.cuda.amp.autocast(**k) as region:
                y = m.ones(2, 3) @ m.ones(3, 2)
                return (region.device, str(region.fast_dtype).split(".")[1], region._enabled,
                        m.is_autocast_enabled("cuda"), str(y.dtype).split(".")[1])

        outcomes.append(_caught(run))
    assert outcomes[0] == outcomes[1]


def test_autocast_as_decorator():
    outcomes = []
    for m in (torch, lg):
        def build():
            @m.cuda.amp.autocast()
            def f(a):
                return a * 2

            return f(m.ones(2)).tolist()

        outcomes.append(_caught(build))
    assert outcomes[0] == outcomes[1]


def test_custom_fwd_bwd():
    outcomes = []
    for m in (torch, lg):
        def build():
            class Double(m.autograd.Function):
                @staticmethod
                @m.cuda.amp.custom_fwd
                def forward(ctx, x):
                    return x * 2

                @staticmethod
                @m.cuda.amp.custom_bwd
                def backward(ctx, g):
                    return g * 2

            class Cast(m.autograd.Function):
                @staticmethod
                @m.cuda.amp.custom_fwd(cast_inputs=m.float16)
                def forward(ctx, x):
                    return x + 1

                @staticmethod
                @m.cuda.amp.custom_bwd
                def backward(ctx, g):
                    return g

            x = m.tensor([1.0, 2.0], requires_grad=True)
            y = Double.apply(x) + Cast.apply(x)
            y.sum().backward()
            return y.tolist(), str(y.dtype).split(".")[1], x.grad.tolist()

        outcomes.append(_caught(build))
    assert outcomes[0] == outcomes[1]
