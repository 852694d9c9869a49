"""nn and distributions behaviours left open by the first nnsuite session: each program runs
under torch and leafgrad, and what it shows (values, exceptions' type and first line) must be
identical."""

from __future__ import annotations

import warnings

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _outcome(call):
    try:
        return ("ok", call())
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        return ("raised", type(error).__name__, str(error).split("\n")[0])


# --- distributions: messages print torch.Size([...]) and dtype=torch.float64 -----------------

def _distribution_programs(lib):
    """Validation messages of every distribution: a value of the wrong event shape, one that
    does not broadcast with the batch shape, one outside the support, invalid parameters."""
    D = lib.distributions

    def t(*shape, lo=0.2, hi=0.8):
        count = 1
        for size in shape:
            count *= size
        return lib.arange(count, dtype=lib.float64).reshape(shape) % 7 / 7 * (hi - lo) + lo

    def eye(n, batch=2):
        return lib.eye(n, dtype=lib.float64).expand(batch, n, n).clone()

    builds = {
        "Normal": lambda: D.Normal(t(2), t(2)),
        "Bernoulli": lambda: D.Bernoulli(t(2)),
        "Beta": lambda: D.Beta(t(2), t(2)),
        "Binomial": lambda: D.Binomial(5, t(2)),
        "Categorical": lambda: D.Categorical(t(2, 3)),
        "Cauchy": lambda: D.Cauchy(t(2), t(2)),
        "Chi2": lambda: D.Chi2(t(2)),
        "ContinuousBernoulli": lambda: D.ContinuousBernoulli(t(2)),
        "Dirichlet": lambda: D.Dirichlet(t(2, 3)),
        "Exponential": lambda: D.Exponential(t(2)),
        "FisherSnedecor": lambda: D.FisherSnedecor(t(2), t(2)),
        "Gamma": lambda: D.Gamma(t(2), t(2)),
        "GeneralizedPareto": lambda: D.GeneralizedPareto(t(2), t(2), t(2)),
        "Geometric": lambda: D.Geometric(t(2)),
        "Gumbel": lambda: D.Gumbel(t(2), t(2)),
        "HalfCauchy": lambda: D.HalfCauchy(t(2)),
        "HalfNormal": lambda: D.HalfNormal(t(2)),
        "InverseGamma": lambda: D.InverseGamma(t(2), t(2)),
        "Kumaraswamy": lambda: D.Kumaraswamy(t(2), t(2)),
        "Laplace": lambda: D.Laplace(t(2), t(2)),
        "LKJCholesky": lambda: D.LKJCholesky(3, t(2)),
        "LogNormal": lambda: D.LogNormal(t(2), t(2)),
        "LogisticNormal": lambda: D.LogisticNormal(t(2, 3), t(2, 3)),
        "LowRankMultivariateNormal": lambda: D.LowRankMultivariateNormal(t(2, 3), t(2, 3, 1),
                                                                         t(2, 3)),
        "Multinomial": lambda: D.Multinomial(4, t(2, 3)),
        "MultivariateNormal": lambda: D.MultivariateNormal(t(2, 3), eye(3)),
        "NegativeBinomial": lambda: D.NegativeBinomial(t(2), t(2)),
        "OneHotCategorical": lambda: D.OneHotCategorical(t(2, 3)),
        "Pareto": lambda: D.Pareto(t(2), t(2)),
        "Poisson": lambda: D.Poisson(t(2)),
        "RelaxedBernoulli": lambda: D.RelaxedBernoulli(t(()), t(2)),
        "RelaxedOneHotCategorical": lambda: D.RelaxedOneHotCategorical(t(()), t(2, 3)),
        "StudentT": lambda: D.StudentT(t(2), t(2), t(2)),
        "Uniform": lambda: D.Uniform(t(2), t(2) + 1),
        "VonMises": lambda: D.VonMises(t(2), t(2)),
        "Weibull": lambda: D.Weibull(t(2), t(2)),
        "Wishart": lambda: D.Wishart(lib.tensor([4.0, 5.0], dtype=lib.float64), eye(3)),
        "Independent": lambda: D.Independent(D.Normal(t(2, 3), t(2, 3)), 1),
        "MixtureSameFamily": lambda: D.MixtureSameFamily(D.Categorical(t(2, 3)),
                                                         D.Normal(t(2, 3), t(2, 3))),
    }
    programs = {}
    for name, build in builds.items():
        def wrong_event(build=build):
            d = build()
            shape = (tuple(d.batch_shape) + (7,) * len(d.event_shape) if d.event_shape
                     else (5, 7))
            return d.log_prob(lib.zeros(shape, dtype=lib.float64))

        def wrong_batch(build=build):
            d = build()
            return d.log_prob(lib.zeros((5,) + tuple(d.event_shape), dtype=lib.float64))

        def outside_support(build=build):
            d = build()
            return d.log_prob(lib.full(tuple(d.batch_shape) + tuple(d.event_shape), -3.5,
                                       dtype=lib.float64))

        programs[name + " wrong event"] = wrong_event
        programs[name + " wrong batch"] = wrong_batch
        programs[name + " outside support"] = outside_support
        programs[name + " expand"] = lambda build=build: build().expand((5,))
    nan_first = lambda: lib.tensor([float("nan"), 0.5], dtype=lib.float64)  # noqa: E731
    transforms = D.transforms
    programs.update({
        "Normal nan loc": lambda: D.Normal(nan_first(), t(2)),
        "Bernoulli nan probs": lambda: D.Bernoulli(nan_first()),
        "Dirichlet negative": lambda: D.Dirichlet(-t(2, 3)),
        "MultivariateNormal negative": lambda: D.MultivariateNormal(t(2, 3), -eye(3)),
        "Geometric zero": lambda: D.Geometric(lib.tensor([0.0, 0.5], dtype=lib.float64)),
        "Uniform reversed": lambda: D.Uniform(t(2) + 1, t(2)),
        "LowRank factor": lambda: D.LowRankMultivariateNormal(t(2, 3), t(2, 4, 1), t(2, 3)),
        "LowRank diag": lambda: D.LowRankMultivariateNormal(t(2, 3), t(2, 3, 1), t(2, 4)),
        "LowRank batch": lambda: D.LowRankMultivariateNormal(t(5, 3), t(2, 3, 1), t(2, 3)),
        "Mixture batch": lambda: D.MixtureSameFamily(D.Categorical(t(5, 3)),
                                                     D.Normal(t(2, 3), t(2, 3))),
        "Wishart df": lambda: D.Wishart(lib.tensor([1.0, 5.0], dtype=lib.float64), eye(3)),
        "Transformed too small": lambda: D.TransformedDistribution(
            D.Normal(lib.tensor(0.0), lib.tensor(1.0)), [transforms.StickBreakingTransform()]),
        "Reshape forward": lambda: transforms.ReshapeTransform((2, 3), (6,)).forward_shape(
            (4, 5)),
        "Reshape inverse": lambda: transforms.ReshapeTransform((2, 3), (6,)).inverse_shape(
            (4, 5)),
    })
    return programs


def test_distribution_messages_print_torch_sizes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _distribution_programs(leafgrad), _distribution_programs(torch)
        raised = 0
        for name in theirs:
            expected = _outcome(theirs[name])
            got = _outcome(ours[name])
            if expected[0] == "ok":
                assert got[0] == "ok", (name, got)
                continue
            raised += 1
            assert got == expected, name
    assert raised > 100  # the sweep reaches the messages it is about


# --- in-place random fills of non-contiguous tensors: torch's element order ------------------

def _views(lib, dtype):
    """Non-contiguous (and a few contiguous) views, each of a fresh zero tensor."""
    yield lambda: lib.zeros(4, 5, dtype=dtype).t()
    yield lambda: lib.zeros(20, 3, dtype=dtype).t()
    yield lambda: lib.zeros(3, 40, dtype=dtype).t()
    yield lambda: lib.zeros(4, 10, dtype=dtype)[:, ::2]
    yield lambda: lib.zeros(6, 8, dtype=dtype)[1:5, 2:7]
    yield lambda: lib.zeros(2, 3, 4, dtype=dtype).permute(2, 0, 1)
    yield lambda: lib.zeros(3, 1, 7, dtype=dtype).permute(2, 1, 0)
    yield lambda: lib.zeros(5, 6, 2, dtype=dtype).transpose(0, 1)[:, ::2]
    yield lambda: lib.zeros(1, 17, dtype=dtype).t()
    yield lambda: lib.zeros(0, 3, dtype=dtype).t()
    yield lambda: lib.zeros(4, 5, dtype=dtype)
    yield lambda: lib.zeros(40, dtype=dtype)[::3]


def _fill_programs(lib):
    floats = [lib.float32, lib.float64, lib.float16, lib.bfloat16]
    fills = {
        "normal_": (floats + [lib.complex64], lambda x, g: x.normal_(0.5, 2.0, generator=g)),
        "uniform_": (floats, lambda x, g: x.uniform_(-1.0, 3.0, generator=g)),
        "exponential_": (floats, lambda x, g: x.exponential_(1.5, generator=g)),
        "cauchy_": (floats, lambda x, g: x.cauchy_(generator=g)),
        "log_normal_": (floats, lambda x, g: x.log_normal_(generator=g)),
        "geometric_": (floats + [lib.int64], lambda x, g: x.geometric_(0.3, generator=g)),
        "bernoulli_": (floats + [lib.int32], lambda x, g: x.bernoulli_(0.4, generator=g)),
        "bernoulli_ tensor p": (
            [lib.float32, lib.float64],
            lambda x, g: x.bernoulli_(lib.linspace(0.05, 0.95, x.numel(), dtype=x.dtype)
                                      .reshape(x.shape) if x.numel() else 0.5, generator=g)),
        "random_": (floats + [lib.int64, lib.uint8], lambda x, g: x.random_(generator=g)),
        "random_ range": (floats + [lib.int16], lambda x, g: x.random_(-5, 50, generator=g)),
    }
    for name, (dtypes, fill) in fills.items():
        for dtype in dtypes:
            for number, view in enumerate(_views(lib, dtype)):
                def program(view=view, fill=fill, seeded=number % 2):
                    lib.manual_seed(0)
                    generator = lib.Generator().manual_seed(7) if seeded else None
                    x = view()
                    fill(x, generator)
                    # the values, the layout, and where the default stream went on to
                    wide = lib.complex128 if x.is_complex() else lib.float64
                    return x.to(wide).tolist(), x.stride(), lib.randn(3).tolist()

                yield f"{name} {str(dtype).split('.')[-1]} view {number}", program


def test_random_fills_of_non_contiguous_tensors_follow_torchs_order():
    ours = dict(_fill_programs(leafgrad))
    count = 0
    for name, program in _fill_programs(torch):
        assert _outcome(ours[name]) == _outcome(program), name
        count += 1
    assert count == len(ours)


# --- convolutions with no input channels / transposed ones with no output channels ----------

def _conv_programs(lib):
    F = lib.nn.functional
    forms = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
    transposed = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
    programs = {}
    for spatial, conv in forms.items():
        for batch in (0, 1, 2):
            for options in ({}, {"stride": 2}, {"padding": 1, "dilation": 2}, {"groups": 2},
                            {"padding": "same"}, {"unbatched": True}):
                for with_bias in (False, True):
                    for needs in ((True, True, True), (True, False, False),
                                  (False, True, False), (False, False, True)):
                        def program(spatial=spatial, conv=conv, batch=batch, options=options,
                                    with_bias=with_bias, needs=needs, create_graph=False):
                            options = dict(options)
                            unbatched = options.pop("unbatched", False)
                            shape = (0,) + (5,) * spatial if unbatched else \
                                (batch, 0) + (5,) * spatial
                            x = lib.ones(shape, dtype=lib.float64, requires_grad=needs[0])
                            w = lib.ones((4, 0) + (3,) * spatial, dtype=lib.float64,
                                         requires_grad=needs[1])
                            b = lib.ones(4, dtype=lib.float64, requires_grad=needs[2]) \
                                if with_bias else None
                            out = conv(x, w, b, **options)
                            leaves = [t for t in (x, w, b) if t is not None and t.requires_grad]
                            seen = [tuple(out.shape), out.stride(), out.grad_fn.name()]
                            if leaves:
                                grads = lib.autograd.grad(out.sum(), leaves, allow_unused=True)
                                seen += [(tuple(g.shape), g.stride(), g.sum().item())
                                         for g in grads]
                            return seen

                        name = f"conv{spatial}d batch {batch} {options} bias {with_bias} {needs}"
                        programs[name] = program
        # transposed, to no output channels: refused, each by its own kernel's message
        for batch in (0, 1, 2, 20):
            for kernel in (1, 3):
                for dtype in ("float32", "float64"):
                    def refused(spatial=spatial, batch=batch, kernel=kernel, dtype=dtype):
                        x = lib.ones((batch, 3) + (4,) * spatial, dtype=getattr(lib, dtype))
                        w = lib.ones((3, 0) + (kernel,) * spatial, dtype=getattr(lib, dtype))
                        return tuple(transposed[spatial](x, w).shape)

                    programs[f"transposed{spatial}d {batch} {kernel} {dtype}"] = refused
    return programs


def test_convolutions_with_no_channels():
    ours = _conv_programs(leafgrad)
    for name, program in _conv_programs(torch).items():
        assert _outcome(ours[name]) == _outcome(program), name


def test_reflect_and_replicate_pads_refuse_empty_non_batch_dims():
    def programs(lib):
        F = lib.nn.functional
        for mode in ("reflect", "replicate", "circular"):
            for shape in ((2, 0, 5, 5), (2, 0, 5), (2, 0, 5, 5, 5), (0, 3, 5, 5), (0, 5, 5),
                          (3, 0, 5), (2, 3, 0, 5), (0, 3, 5), (3, 5, 0), (0, 3, 5, 5, 5)):
                for dims in (1, 2, 3):
                    yield (mode, shape, dims), lambda mode=mode, shape=shape, dims=dims: tuple(
                        F.pad(lib.ones(shape), (1, 1) * dims, mode=mode).shape)

    ours = dict(programs(leafgrad))
    for name, program in programs(torch):
        assert _outcome(ours[name]) == _outcome(program), name


def _transposed_argument_programs(lib):
    F = lib.nn.functional
    forms = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
    modules = {1: lib.nn.ConvTranspose1d, 2: lib.nn.ConvTranspose2d, 3: lib.nn.ConvTranspose3d}
    programs = {}
    for spatial, conv in forms.items():
        module = modules[spatial]
        for padding in ("same", "valid"):
            programs[f"{spatial}d module {padding}"] = lambda module=module, padding=padding: repr(
                module(3, 2, 3, padding=padding))
        for batch in (None, 1, 2, 20):
            for dtype in ("float32", "float64"):
                shape = ((batch,) if batch else ()) + (3,) + (5,) * spatial

                def x(shape=shape, dtype=dtype):
                    return lib.ones(shape, dtype=getattr(lib, dtype))

                def w(kernel=3, spatial=spatial, dtype=dtype):
                    return lib.ones((3, 2) + (kernel,) * spatial, dtype=getattr(lib, dtype))

                calls = {
                    "same": lambda conv=conv, x=x, w=w: conv(x(), w(), padding="same"),
                    "valid": lambda conv=conv, x=x, w=w: conv(x(), w(), padding="valid"),
                    "stride str": lambda conv=conv, x=x, w=w: conv(x(), w(), stride="1"),
                    "dilation 0": lambda conv=conv, x=x, w=w: conv(x(), w(), dilation=0),
                    "dilation list 0": lambda conv=conv, x=x, w=w, s=spatial: conv(
                        x(), w(), dilation=[0] * s),
                    "dilation -1": lambda conv=conv, x=x, w=w: conv(x(), w(), dilation=-1),
                    "dilation 0 kernel 1": lambda conv=conv, x=x, w=w: conv(x(), w(1),
                                                                            dilation=0),
                    "dilation 0 stride 2": lambda conv=conv, x=x, w=w: conv(x(), w(), stride=2,
                                                                            dilation=0),
                    "module same": lambda module=module, x=x, dtype=dtype: module(
                        3, 2, 3, padding="same", dtype=getattr(lib, dtype))(x()),
                    "module dilation 0": lambda module=module, x=x, dtype=dtype: module(
                        3, 2, 3, dilation=0, dtype=getattr(lib, dtype))(x()),
                }
                for call_name, call in calls.items():
                    programs[f"{spatial}d {batch} {dtype} {call_name}"] = (
                        lambda call=call: (lambda out: (tuple(out.shape), out.sum().item()))(
                            call()))
    return programs


def test_conv_transpose_padding_strings_and_zero_dilation():
    ours = _transposed_argument_programs(leafgrad)
    for name, program in _transposed_argument_programs(torch).items():
        assert _outcome(ours[name]) == _outcome(program), name


# --- pack_padded_sequence: torch's node, and lengths past the input -------------------------

def _pack_programs(lib):
    pack = lib.nn.utils.rnn.pack_padded_sequence
    programs = {}
    cases = [((5, 3, 2), [5, 3, 2]), ((5, 3, 2), [6, 3, 2]), ((5, 3, 2), [5, 3, 7]),
             ((4, 2), [4, 1]), ((4, 2), [9, 9]), ((3, 1, 2, 2), [2]), ((2, 3, 2), [1, 1, 1]),
             ((5, 3, 2), [5, 0, 2]), ((0, 3, 2), [1, 1, 1]), ((5, 3, 2), [[5, 3, 2]]),
             ((5, 3, 2), [5, 3])]
    for shape, lengths in cases:
        for batch_first in (False, True):
            for enforce_sorted in (True, False):
                for as_tensor in (False, True):
                    for transposed in (False, True):
                        def program(shape=shape, lengths=lengths, batch_first=batch_first,
                                    enforce_sorted=enforce_sorted, as_tensor=as_tensor,
                                    transposed=transposed):
                            size = shape[::-1] if transposed else shape
                            count = 1
                            for n in size:
                                count *= n
                            x = lib.arange(count, dtype=lib.float64).reshape(size)
                            if transposed:
                                x = x.permute(*reversed(range(len(size))))
                            x.requires_grad_(True)
                            given = lib.tensor(lengths) if as_tensor else lengths
                            packed = pack(x, given, batch_first=batch_first,
                                          enforce_sorted=enforce_sorted)
                            data = packed.data
                            seen = [data.tolist(), data.stride(), data.grad_fn.name(),
                                    packed.batch_sizes.tolist(),
                                    [type(f).__name__ for f, _ in data.grad_fn.next_functions]]
                            weights = lib.arange(data.numel(), dtype=lib.float64).reshape(
                                data.shape)
                            seen.append(_outcome(lambda: lib.autograd.grad(
                                (data * weights).sum(), x)[0].tolist()))
                            return seen

                        name = (f"{shape} {lengths} batch_first={batch_first} "
                                f"sorted={enforce_sorted} tensor={as_tensor} T={transposed}")
                        programs[name] = program
    return programs


def test_pack_padded_sequence_graph_and_lengths_past_the_input():
    ours = _pack_programs(leafgrad)
    for name, program in _pack_programs(torch).items():
        assert _outcome(ours[name]) == _outcome(program), name


# --- 3-d pooling: ATen's argument and input checks, in its order ----------------------------

def _pool3d_programs(lib):
    F = lib.nn.functional
    shapes = [(2, 3, 7, 7, 7), (3, 7, 7, 7), (0, 3, 7, 7, 7), (2, 0, 7, 7, 7), (0, 7, 7, 7),
              (2, 3, 0, 7, 7), (3, 7, 7, 0), (2, 3, 2, 2, 2), (7, 7, 7)]
    arguments = [(3, None, 0, 1), (3, 2, 1, 1), (2, 2, 1, 2), (4, 3, 2, 1), (3, 1, 2, 1),
                 (0, 1, 0, 1), (2, 0, 0, 1), (3, 2, 0, 0), (2, 1, -1, 1), (5, 1, 0, 1),
                 (3, -1, 0, 1), (3, 1, 2, 2), (-1, 1, 0, 1), ((3, 1, 2), (1, 2, 1), (1, 0, 1), 1)]

    def run(call):
        out = call()
        out = out[0] if isinstance(out, tuple) else out
        return tuple(out.shape), out.sum().item()

    programs = {}
    for shape in shapes:
        x = lambda shape=shape: lib.arange(  # noqa: E731
            float(np_prod(shape)), dtype=lib.float64).reshape(shape).sin()
        for kernel, stride, padding, dilation in arguments:
            for ceil_mode in (False, True):
                key = f"{shape} {kernel} {stride} {padding} {dilation} {ceil_mode}"
                programs["max " + key] = lambda x=x, a=(kernel, stride, padding, dilation,
                                                        ceil_mode): run(
                    lambda: F.max_pool3d(x(), *a, return_indices=True))
                for divisor in (None, 2, 0):
                    programs[f"avg {divisor} " + key] = lambda x=x, a=(
                        kernel, stride, padding, ceil_mode, True, divisor): run(
                        lambda: F.avg_pool3d(x(), *a))
        for size in (1, 3, 0, (2, 2, 2), (None, 2, None)):
            programs[f"adaptive max {shape} {size}"] = lambda x=x, size=size: run(
                lambda: F.adaptive_max_pool3d(x(), size, True))
            programs[f"adaptive avg {shape} {size}"] = lambda x=x, size=size: run(
                lambda: F.adaptive_avg_pool3d(x(), size))
    return programs


def np_prod(shape):
    count = 1
    for size in shape:
        count *= size
    return count


def test_pool3d_checks_follow_atens_order():
    ours = _pool3d_programs(leafgrad)
    for name, program in _pool3d_programs(torch).items():
        expected, got = _outcome(program), _outcome(ours[name])
        if expected[0] == "ok" and got[0] == "ok":
            assert got[1][0] == expected[1][0], name
            a, b = got[1][1], expected[1][1]
            assert (a != a and b != b) or abs(a - b) <= 1e-9 * max(1.0, abs(b)), name
        else:
            assert got == expected, name


def _max_pool_window_programs(lib):
    """Dilated windows with no element inside the input (-inf, torch's index), and the 1-d
    adaptive pools' output_size parsing."""
    F = lib.nn.functional
    programs = {}
    for dims, pool in ((1, F.max_pool1d), (2, F.max_pool2d), (3, F.max_pool3d)):
        for size, kernel, stride, padding, dilation in ((1, 2, 2, 1, 2), (2, 2, 2, 1, 3),
                                                         (3, 3, 1, 2, 2), (1, 3, 1, 1, 3),
                                                         (4, 2, 3, 1, 4), (5, 3, 2, 1, 1)):
            for batch in (None, 2):
                def program(dims=dims, pool=pool, args=(kernel, stride, padding, dilation),
                            size=size, batch=batch):
                    shape = ((batch,) if batch else ()) + (2,) + (size,) * dims
                    x = lib.arange(float(np_prod(shape)), dtype=lib.float64).reshape(
                        shape).requires_grad_(True)
                    values, indices = pool(x, *args, False, True)
                    weights = lib.arange(float(values.numel()), dtype=lib.float64).reshape(
                        values.shape) + 1
                    # (the gradient through -inf windows is left out: torch's backward adds
                    # it past the window's plane, into another channel's)
                    grad, = lib.autograd.grad((values.clamp(min=-5) * weights).sum(), x)
                    return values.tolist(), indices.tolist(), grad.tolist()

                programs[f"{dims}d {size} {kernel} {stride} {padding} {dilation} {batch}"] = \
                    program
    for name in ("adaptive_max_pool1d", "adaptive_avg_pool1d"):
        for size in ((None,), (2,), [3], (2, 2), 2, (1.5,)):
            programs[f"{name} {size}"] = lambda name=name, size=size: tuple(
                getattr(F, name)(lib.ones(2, 3, 7), size).shape)
    return programs


def test_max_pool_windows_outside_the_input_and_adaptive_1d_sizes():
    ours = _max_pool_window_programs(leafgrad)
    for name, program in _max_pool_window_programs(torch).items():
        assert _outcome(ours[name]) == _outcome(program), name
