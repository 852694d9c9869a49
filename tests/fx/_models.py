"""Models written once against a torch-like module ``t`` (real torch or leafgrad), for the
fx tests: each returns (module or function, example inputs as NumPy arrays)."""

import numpy as np


def mlp(t):
    class MLP(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = t.nn.Linear(6, 8)
            self.act = t.nn.ReLU()
            self.fc2 = t.nn.Linear(8, 3)

        def forward(self, x):
            return t.nn.functional.log_softmax(self.fc2(self.act(self.fc1(x))), dim=-1)

    return MLP(), [np.random.RandomState(0).randn(4, 6).astype(np.float32)]


def cnn(t):
    class CNN(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = t.nn.Conv2d(3, 4, 3, padding=1)
            self.bn = t.nn.BatchNorm2d(4)
            self.pool = t.nn.MaxPool2d(2)
            self.gap = t.nn.AdaptiveAvgPool2d((1, 1))
            self.fc = t.nn.Linear(4, 5)

        def forward(self, x):
            x = self.pool(t.relu(self.bn(self.conv(x))))
            x = self.gap(x)
            x = t.flatten(x, 1)
            return self.fc(x)

    model = CNN()
    model.eval()
    return model, [np.random.RandomState(1).randn(2, 3, 8, 8).astype(np.float32)]


def residual(t):
    class Block(t.nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1 = t.nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn1 = t.nn.BatchNorm2d(c)
            self.conv2 = t.nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn2 = t.nn.BatchNorm2d(c)

        def forward(self, x):
            identity = x
            out = t.nn.functional.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += identity
            return t.nn.functional.relu(out)

    class Net(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = t.nn.Sequential(t.nn.Conv2d(2, 4, 1), t.nn.ReLU())
            self.layer1 = t.nn.Sequential(Block(4), Block(4))

        def forward(self, x):
            return self.layer1(self.stem(x)).mean(dim=(2, 3))

    model = Net()
    model.eval()
    return model, [np.random.RandomState(2).randn(1, 2, 5, 5).astype(np.float32)]


def control_flow(t):
    class Gate(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = t.nn.Linear(4, 4)

        def forward(self, x, mode="sum", times=2):
            for _ in range(times):
                x = self.lin(x)
            if mode == "sum":
                return x.sum(1)
            return x.max(dim=1)[0]

    return Gate(), [np.random.RandomState(3).randn(3, 4).astype(np.float32)]


def functions(t):
    F = t.nn.functional

    class Funcs(t.nn.Module):
        def forward(self, x, y):
            a = t.cat([x, y], dim=1)
            b = t.stack((x, y))
            c = F.softmax(a, dim=-1) + F.gelu(a) * F.sigmoid(a)
            d = t.matmul(x, y.transpose(0, 1))
            e = t.exp(b).sum() - t.tanh(d).mean()
            f = F.dropout(c, p=0.5, training=False)
            g = t.where(x > 0, x, y)
            return f * e, d @ g, -g, abs(x) / 2, 3 - x, x ** 2, x // 1, t.clamp(y, min=-0.5)

    rng = np.random.RandomState(4)
    return Funcs(), [rng.randn(3, 2).astype(np.float32), rng.randn(3, 2).astype(np.float32)]


def methods(t):
    class Methods(t.nn.Module):
        def forward(self, x):
            n = x.size(0)
            h = x.view(n, -1)
            h = h.flatten(1).reshape(x.shape[0], 2, -1)
            h = h.permute(2, 0, 1).contiguous().transpose(0, 1)
            h = h.mean(dim=-1, keepdim=True).unsqueeze(0).squeeze(0)
            return h.float() * x.dim(), x.new_zeros(2), x[:, 0, ...], x[0]

    return Methods(), [np.random.RandomState(5).randn(2, 3, 4).astype(np.float32)]


def attributes(t):
    class Attrs(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = t.nn.Parameter(t.ones(4, 3) * 0.5)
            self.register_buffer("offset", t.arange(3.0))
            self.scale = t.tensor([2.0, 3.0, 4.0])
            self.inner = t.nn.Linear(3, 3)

        def forward(self, x):
            y = x @ self.weight + self.offset
            y = y * self.scale + self.inner.bias
            return t.addmm(self.inner.bias, y, self.inner.weight.t()), self.weight.shape

    return Attrs(), [np.random.RandomState(6).randn(2, 4).astype(np.float32)]


def module_list(t):
    class Stack(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = t.nn.ModuleList([t.nn.Linear(3, 3) for _ in range(3)])
            self.norms = t.nn.ModuleDict({"a": t.nn.LayerNorm(3), "b": t.nn.Identity()})

        def forward(self, x):
            outs = []
            for i, layer in enumerate(self.layers):
                x = layer(x) + i
                outs.append(x)
            return {"last": self.norms["a"](x), "all": t.stack(outs), "id": self.norms["b"](x)}

    return Stack(), [np.random.RandomState(7).randn(2, 3).astype(np.float32)]


def keywords(t):
    F = t.nn.functional

    class Kw(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = t.nn.Conv1d(2, 2, 3)

        def forward(self, x, *, scale=2.0, bias=None):
            y = self.conv(input=x)
            y = F.pad(y, (1, 1), mode="constant", value=0.5)
            y = F.interpolate(y, scale_factor=scale, mode="nearest")
            y = t.sum(y, dim=2, keepdim=False)
            return F.normalize(y, p=2.0, dim=1), F.layer_norm(y, (2,)), F.max_pool1d(x, 2)

    return Kw(), [np.random.RandomState(8).randn(1, 2, 6).astype(np.float32)]


def plain_function(t):
    def my_fn(x, y):
        z = t.add(x, y, alpha=2)
        z = t.nn.functional.relu(z) * t.sin(y)
        return z.sum(0), t.max(z, 1)

    rng = np.random.RandomState(9)
    return my_fn, [rng.randn(2, 3).astype(np.float32), rng.randn(2, 3).astype(np.float32)]


def nested(t):
    class Inner(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = t.nn.Linear(3, 3)
            self.p = t.nn.Parameter(t.zeros(3))

        def forward(self, x):
            return t.sigmoid(self.lin(x)) + self.p

    class Outer(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Inner()
            self.head = t.nn.Sequential(t.nn.Linear(3, 2), t.nn.ReLU())

        def forward(self, x):
            return self.head(self.block(x) * self.block.p)

    return Outer(), [np.random.RandomState(10).randn(2, 3).astype(np.float32)]


def tricky(t):
    F = t.nn.functional

    class Tricky(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.c = t.tensor([1.0, 2.0])
            self.w = t.nn.Parameter(t.ones(2, 2, 1, 1))
            self.register_buffer("buf", t.zeros(2))

        def forward(self, x):
            b, c, h, w = x.shape
            y = self.c.view(1, 2, 1, 1) + x
            y = F.relu(y.add(1), inplace=True)
            y.add_(1)
            y += 1
            y = y.float() * x.ndim
            y = F.conv2d(y, self.w, padding=(0, 0))
            q = y.transpose(-1, -2)
            return (y + self.buf.view(1, 2, 1, 1) + b, q.new_ones(2), F.softmax(y, 1),
                    y.max(1).values, y[..., None, 0:1:2], t.zeros(x.size(0)))

    return Tricky(), [np.random.RandomState(11).randn(1, 2, 3, 3).astype(np.float32)]


def dtypes(t):
    class Dtypes(t.nn.Module):
        def forward(self, x):
            z = t.zeros(x.size(0), dtype=t.float64)
            return x.to(t.float64) + z[:, None], x.to(memory_format=t.contiguous_format)

    return Dtypes(), [np.random.RandomState(12).randn(2, 3).astype(np.float32)]


MODELS = [tricky, mlp, cnn, residual, functions, methods, attributes, module_list,
          keywords, plain_function, nested]


def annotated(t):
    import typing

    class Annotated(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = t.nn.Linear(3, 3)

        def forward(self, x: t.Tensor, y: typing.Optional[t.Tensor] = None, n: int = 2,
                    *args, **kwargs) -> t.Tensor:
            return self.lin(x) * n

    return Annotated(), [np.random.RandomState(13).randn(2, 3).astype(np.float32)]


def returns(t):
    import typing

    class Returns(t.nn.Module):
        def forward(self, x: t.Tensor, y: typing.List[int] = (1,)) -> t.Tensor:
            return x.relu()

    return Returns(), [np.random.RandomState(14).randn(2, 3).astype(np.float32)]


EXTRA = [annotated, returns]


def functional_calls(torch):
    """nn.functional calls of (x, t), one per function (tests/fx/test_fx_tools.py)."""
    F = torch.nn.functional
    return {
        "relu6": lambda x, t: F.relu6(x),
        "elu": lambda x, t: F.elu(x),
        "selu": lambda x, t: F.selu(x),
        "celu": lambda x, t: F.celu(x),
        "leaky_relu": lambda x, t: F.leaky_relu(x, 0.2),
        "hardtanh": lambda x, t: F.hardtanh(x),
        "silu": lambda x, t: F.silu(x),
        "mish": lambda x, t: F.mish(x),
        "hardswish": lambda x, t: F.hardswish(x),
        "hardsigmoid": lambda x, t: F.hardsigmoid(x),
        "softplus": lambda x, t: F.softplus(x),
        "softsign": lambda x, t: F.softsign(x),
        "tanhshrink": lambda x, t: F.tanhshrink(x),
        "logsigmoid": lambda x, t: F.logsigmoid(x),
        "softmin": lambda x, t: F.softmin(x, 1),
        "log_softmax": lambda x, t: F.log_softmax(x, dim=1),
        "dropout2d": lambda x, t: F.dropout2d(x),
        "alpha_dropout": lambda x, t: F.alpha_dropout(x),
        "feature_alpha_dropout": lambda x, t: F.feature_alpha_dropout(x),
        "adaptive_avg_pool2d": lambda x, t: F.adaptive_avg_pool2d(x, 1),
        "adaptive_max_pool2d": lambda x, t: F.adaptive_max_pool2d(x, 1),
        "avg_pool2d": lambda x, t: F.avg_pool2d(x, 2),
        "lp_pool2d": lambda x, t: F.lp_pool2d(x, 2, 2),
        "group_norm": lambda x, t: F.group_norm(x, 1),
        "instance_norm": lambda x, t: F.instance_norm(x),
        "batch_norm": lambda x, t: F.batch_norm(x, None, None, training=True),
        "local_response_norm": lambda x, t: F.local_response_norm(x, 2),
        "glu": lambda x, t: F.glu(x, 1),
        "threshold": lambda x, t: F.threshold(x, 0.1, 0.0),
        "hardshrink": lambda x, t: F.hardshrink(x),
        "softshrink": lambda x, t: F.softshrink(x),
        "pixel_shuffle": lambda x, t: F.pixel_shuffle(x, 1),
        "unfold": lambda x, t: F.unfold(x, 2),
        "mse_loss": lambda x, t: F.mse_loss(x, t),
        "l1_loss": lambda x, t: F.l1_loss(x, t),
        "smooth_l1_loss": lambda x, t: F.smooth_l1_loss(x, t),
        "huber_loss": lambda x, t: F.huber_loss(x, t),
        "bce": lambda x, t: F.binary_cross_entropy(torch.sigmoid(x), torch.sigmoid(t)),
        "bce_logits": lambda x, t: F.binary_cross_entropy_with_logits(x, t),
        "kl_div": lambda x, t: F.kl_div(x, t, reduction="batchmean"),
        "cosine_similarity": lambda x, t: F.cosine_similarity(x, t),
        "pairwise_distance": lambda x, t: F.pairwise_distance(x, t),
        "gelu": lambda x, t: F.gelu(x, approximate="tanh"),
        "rrelu": lambda x, t: F.rrelu(x),
        "prelu": lambda x, t: F.prelu(x, t.mean().reshape(1)),
        "embedding": lambda x, t: F.embedding(x.long().abs(), t[0, 0]),
        "cross_entropy": lambda x, t: F.cross_entropy(x, t.softmax(1)),
        "nll_loss": lambda x, t: F.nll_loss(x[:, :, 0, 0], x[:, 0, 0, 0].long().abs()),
        "one_hot": lambda x, t: F.one_hot(x.long().abs()),
        "upsample_nearest": lambda x, t: F.interpolate(x, scale_factor=2),
        "pad": lambda x, t: F.pad(x, (1, 1)),
        "normalize": lambda x, t: F.normalize(x),
        "max_pool2d_idx": lambda x, t: F.max_pool2d(x, 2, return_indices=True),
        "max_pool1d_idx": lambda x, t: F.max_pool1d(x[0], 2, 1, 0, 1, False, True),
        "adaptive_idx": lambda x, t: F.adaptive_max_pool2d(x, 1, return_indices=True),
        "max_pool2d_noidx": lambda x, t: F.max_pool2d(x, 2, return_indices=False),
        "adaptive_avg_pool1d": lambda x, t: F.adaptive_avg_pool1d(x[0], 2),
        "conv2d": lambda x, t: F.conv2d(x, t),
        "linear": lambda x, t: F.linear(x, t[0, 0]),
        "affine_grid":
            lambda x, t: F.affine_grid(x[0, :1, :2, :3], [1, 1, 2, 2], align_corners=False),
        "grid_sample":
            lambda x, t: F.grid_sample(x, x[:, :2].permute(0, 2, 3, 1), align_corners=False),
        "triplet": lambda x, t: F.triplet_margin_loss(x, t, x),
        "margin_ranking": lambda x, t: F.margin_ranking_loss(x, t, t),
        "hinge": lambda x, t: F.hinge_embedding_loss(x, t),
        "soft_margin": lambda x, t: F.soft_margin_loss(x, t),
        "poisson": lambda x, t: F.poisson_nll_loss(x, t),
        "gaussian": lambda x, t: F.gaussian_nll_loss(x, t, t.abs()),
        "multilabel_soft": lambda x, t: F.multilabel_soft_margin_loss(x, t),
        "channel_shuffle": lambda x, t: F.channel_shuffle(x, 1),
        "scaled_dot": lambda x, t: F.scaled_dot_product_attention(x, t, t),
    }


def torch_calls(torch):
    """torch.* calls of (x, y): Python and C functions, linalg/fft/special, methods."""
    return {
        "norm": lambda x, y: torch.norm(x),
        "unique": lambda x, y: torch.unique(x),
        "meshgrid": lambda x, y: torch.meshgrid(x[0], y[0], indexing="ij"),
        "tensordot": lambda x, y: torch.tensordot(x, y, dims=2),
        "cdist": lambda x, y: torch.cdist(x, y),
        "broadcast_tensors": lambda x, y: torch.broadcast_tensors(x, y),
        "atleast_2d": lambda x, y: torch.atleast_2d(x),
        "block_diag": lambda x, y: torch.block_diag(x, y),
        "cartesian_prod": lambda x, y: torch.cartesian_prod(x[0], y[0]),
        "chain_matmul": lambda x, y: torch.linalg.multi_dot([x, y.t()]),
        "std_mean": lambda x, y: torch.std_mean(x, 0),
        "lerp": lambda x, y: torch.lerp(x, y, 0.5),
        "where1": lambda x, y: torch.where(x > y),
        "split_sizes": lambda x, y: x.split([1, 1]),
        "fft": lambda x, y: torch.fft.fft(x),
        "linalg_norm": lambda x, y: torch.linalg.norm(x),
        "special": lambda x, y: torch.special.expit(x),
        "isclose": lambda x, y: torch.isclose(x, y),
        "stft": lambda x, y: torch.stft(x[0].repeat(8), 4, return_complex=True),
        "sum_dim": lambda x, y: torch.sum(x, (0, 1)),
        "max_dim": lambda x, y: torch.max(x, 1, keepdim=True),
        "addcmul": lambda x, y: torch.addcmul(x, x, y, value=2),
        "full_like": lambda x, y: torch.full_like(x, 3),
        "zeros_like": lambda x, y: torch.zeros_like(x),
        "arange_size": lambda x, y: torch.arange(x.size(0)),
        "ones_shape": lambda x, y: torch.ones(x.shape),
        "randn_like": lambda x, y: torch.randn_like(x).shape,
        "tensor_method_kw": lambda x, y: x.clamp(min=0, max=1),
        "topk": lambda x, y: torch.topk(x, 1).indices,
        "sort": lambda x, y: x.sort(dim=0, descending=True)[0],
        "chunk": lambda x, y: torch.chunk(x, 2),
    }
