"""nn behaviours left open by the second nnsuite session: each program runs under torch and
leafgrad, and what it shows (bits of values and gradients, strides, exceptions' type and first
line) must be identical."""

from __future__ import annotations

import numpy as np

import leafgrad

from .._torch import require_torch

torch = require_torch()

DTYPES = ("float32", "float64", "float16", "bfloat16")


def _outcome(call):
    try:
        return ("ok", call())
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        return ("raised", type(error).__name__, str(error).split("\n")[0])


def _bits(tensor) -> tuple:
    """Exact bits (through float64, which holds every float16/bfloat16/float32 value) and
    strides."""
    return (tensor.detach().double().numpy().tobytes(), tuple(tensor.stride()))


# --- average pooling: ATen's accumulation type and order --------------------------------------

_POOLS = [
    ("avg_pool2d", (2, 3, 6, 6), [dict(kernel_size=2),
                                  dict(kernel_size=3, stride=2, padding=1),
                                  dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                  dict(kernel_size=3, stride=2, ceil_mode=True),
                                  dict(kernel_size=(2, 3), stride=1, padding=(1, 1),
                                       ceil_mode=True, count_include_pad=False),
                                  dict(kernel_size=3, stride=1, divisor_override=7)]),
    ("avg_pool2d", (1, 20, 5, 5), [dict(kernel_size=3, stride=1, padding=1)]),
    ("avg_pool1d", (2, 3, 9), [dict(kernel_size=3, stride=2, padding=1),
                               dict(kernel_size=3, stride=1, padding=1, count_include_pad=False,
                                    ceil_mode=True)]),
    ("avg_pool3d", (1, 2, 5, 5, 5), [dict(kernel_size=3, stride=2, padding=1),
                                     dict(kernel_size=3, stride=1, padding=1,
                                          count_include_pad=False, ceil_mode=True),
                                     dict(kernel_size=2, divisor_override=3)]),
    ("adaptive_avg_pool2d", (2, 3, 7, 9), [dict(output_size=3), dict(output_size=(5, 8)),
                                           dict(output_size=(2, 1)), dict(output_size=1)]),
    # 20 and 40 channels: vector lanes and a scalar leftover in the channels-last kernels
    ("adaptive_avg_pool2d", (1, 20, 7, 9), [dict(output_size=3)]),
    ("adaptive_avg_pool2d", (1, 40, 7, 9), [dict(output_size=(5, 8))]),
    ("adaptive_avg_pool1d", (2, 3, 9), [dict(output_size=4), dict(output_size=7)]),
    ("adaptive_avg_pool3d", (1, 3, 5, 6, 7), [dict(output_size=3), dict(output_size=(4, 5, 6)),
                                              dict(output_size=(1, 2, 1)),
                                              dict(output_size=1)]),
]


def _pool_programs(lib, dtype: str):
    """Every pool and configuration: values, then the input's gradient for a contiguous and a
    channels-last incoming gradient, from contiguous, channels-last and transposed inputs and
    an unbatched one."""
    F = lib.nn.functional
    shown = []
    for name, shape, configs in _POOLS:
        count = int(np.prod(shape))
        base = lib.tensor((np.sin(np.arange(count)) * 3).reshape(shape).astype(np.float32))
        layouts = {"contiguous": lambda t: t, "unbatched": lambda t: t[0]}
        if len(shape) == 4:
            layouts["channels_last"] = lambda t: t.contiguous(memory_format=lib.channels_last)
            layouts["transposed"] = lambda t: t.transpose(2, 3).contiguous().transpose(2, 3)
        if len(shape) == 5:
            layouts["channels_last"] = lambda t: t.contiguous(memory_format=lib.channels_last_3d)
        for config in configs:
            for layout, arrange in layouts.items():
                x = arrange(base.to(getattr(lib, dtype))).detach().requires_grad_()
                result = _outcome(lambda: getattr(F, name)(x, **config))
                if result[0] == "raised":
                    shown.append((name, config, layout, result))
                    continue
                out = result[1]
                shown.append((name, config, layout, _bits(out)))
                grad = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape))
                                  .astype(np.float32) * 1.7).to(out.dtype)
                grads = [grad]
                if grad.dim() == 4:
                    grads.append(grad.contiguous(memory_format=lib.channels_last))
                for incoming in grads:
                    found, = lib.autograd.grad(out, x, incoming, retain_graph=True)
                    shown.append((name, config, layout, _bits(found)))
    return shown


def test_average_pools_sum_and_divide_as_atens_kernels():
    """avg_pool sums each window from 0 in the opmath type (float32 for float16 and bfloat16),
    row by row, and rounds ``sum / divide_factor`` to the dtype: float16 avg_pool2d was
    1.83984 where torch gives 1.83887. Its backward adds each output's share, rounded to the
    dtype, in output order. adaptive_avg_pool2d does the same with ``sum / kh / kw``, except
    that its channels-last kernels divide whole vectors of channels by ``kh * kw``;
    adaptive_avg_pool3d sums and divides in the dtype itself. The channels-last global 3-d
    pool keeps channels-last strides; gradients take the input's memory format."""
    for dtype in DTYPES:
        expected = _pool_programs(torch, dtype)
        got = _pool_programs(leafgrad, dtype)
        assert len(got) == len(expected)
        for mine, theirs in zip(got, expected):
            assert mine == theirs, (dtype, theirs[:3])


def test_average_pools_divide_integers_as_cpp():
    """int64 avg_pool: the int64 sum divided by the window size truncates towards zero (no
    float64 round trip past 2 ** 53)."""
    def program(lib):
        x = lib.tensor([[[[-7, 5, 3, -2, 2 ** 53 + 1, 2 ** 53 + 3, 9, -9]]]])
        F = lib.nn.functional
        return [F.avg_pool2d(x, (1, 2)).tolist(),
                F.avg_pool2d(x, (1, 3), 1, (0, 1)).tolist(),
                F.avg_pool2d(x, (1, 3), 1, (0, 1), count_include_pad=False).tolist(),
                F.avg_pool3d(x[None], (1, 1, 3), 1, (0, 0, 1)).tolist()]

    assert program(leafgrad) == program(torch)


# --- pad_packed_sequence: data shorter than the batch sizes claim -----------------------------

def _pad_packed_programs(lib):
    """Packing with lengths up to two past the padded input, then unpacking; and packed
    sequences built directly from data with fewer, as many or more rows than the batch sizes
    claim, with and without feature dims."""
    import itertools

    R = lib.nn.utils.rnn
    shown = []
    for feature in ((), (2,)):
        steps = 3
        for batch in (1, 2, 3):
            count = steps * batch * (feature[0] if feature else 1)
            x = lib.arange(float(count)).reshape((steps, batch) + feature)
            for lengths in itertools.product(range(1, steps + 3), repeat=batch):
                for batch_first in (False, True):
                    xx = x.transpose(0, 1) if batch_first else x

                    def run():
                        packed = R.pack_padded_sequence(xx, list(lengths), batch_first,
                                                        enforce_sorted=False)
                        out, found = R.pad_packed_sequence(packed, batch_first)
                        return out.tolist(), found.tolist()

                    shown.append((feature, lengths, batch_first, _outcome(run)))
        for batch_sizes in ([2, 2, 1], [3, 1], [1]):
            for rows in range(sum(batch_sizes) + 2):
                data = lib.arange(float(rows * (feature[0] if feature else 1)))
                data = data.reshape((rows,) + feature)
                packed = R.PackedSequence(data, lib.tensor(batch_sizes))
                shown.append((feature, batch_sizes, rows, _outcome(
                    lambda: R.pad_packed_sequence(packed, total_length=4)[0].tolist())))
    return shown


def test_pad_packed_sequence_refuses_short_data_as_torchs_view():
    """torch copies each run of equal batch sizes through ``data.slice(...).view(run, size,
    *rest)``: with lengths past the padded input the data is shorter and that view raises
    "shape '[3, 1, 2]' is invalid for input of size 2" (leafgrad raised an expand error)."""
    assert _pad_packed_programs(leafgrad) == _pad_packed_programs(torch)


# --- higher-order gradients of convolutions with an empty input ------------------------------

def _empty_conv_programs(lib):
    """First, second and third derivatives of ``sum(conv(x, w, b) ** 2)`` with an empty input
    (no batch, no channels or both) next to a plain one, for conv1d/2d/3d and conv_transpose2d,
    every subset of inputs requiring grad, differentiating each first-order gradient."""
    import itertools

    F = lib.nn.functional

    def describe(grads):
        return [None if g is None else (tuple(g.shape), g.requires_grad,
                                        g.grad_fn.name() if g.grad_fn is not None else None,
                                        float(g.detach().sum())) for g in grads]

    cases = []
    for spatial, conv in ((1, F.conv1d), (2, F.conv2d), (3, F.conv3d)):
        for batch, channels in ((2, 0), (0, 3), (0, 0), (2, 3)):
            cases.append((conv, (batch, channels) + (5,) * spatial,
                          (4, channels) + (3,) * spatial, 4, {}))
    cases.append((F.conv2d, (2, 0, 5, 5), (4, 0, 3, 3), 4, {"stride": 2, "padding": 1}))
    cases.append((F.conv_transpose2d, (0, 3, 4, 4), (3, 2, 3, 3), 2, {}))
    cases.append((F.conv_transpose2d, (2, 3, 4, 4), (3, 2, 3, 3), 2, {}))
    shown = []
    for conv, x_shape, w_shape, bias, options in cases:
        for needs in itertools.product((False, True), repeat=3):
            if not any(needs):
                continue
            for pick in range(sum(needs)):
                def run():
                    x = lib.ones(x_shape, dtype=lib.float64, requires_grad=needs[0])
                    w = lib.full(w_shape, 0.5, dtype=lib.float64, requires_grad=needs[1])
                    b = lib.ones(bias, dtype=lib.float64, requires_grad=needs[2])
                    out = conv(x, w, b, **options)
                    leaves = [t for t in (x, w, b) if t.requires_grad]
                    first = lib.autograd.grad((out * out).sum(), leaves, create_graph=True)
                    second = lib.autograd.grad((first[pick] ** 2).sum(), leaves,
                                               create_graph=True, allow_unused=True)
                    seen = [describe(first), describe(second)]
                    live = [g for g in second if g is not None and g.requires_grad]
                    if live:
                        seen.append(describe(lib.autograd.grad(
                            sum((g ** 2).sum() for g in live), leaves, allow_unused=True)))
                    return seen

                shown.append((x_shape, options, needs, pick, _outcome(run)))
    return shown


def test_convolution_double_backward_with_an_empty_input():
    """torch's _convolution_double_backward computes only the bias term (ggb expanded to
    grad_output's sizes) when the input has no elements: an empty batch gets that gradient
    (leafgrad returned None), and an input of no channels, whose output has none either,
    refuses the expand ("The expanded size of the tensor (0) must match the existing size
    (4)...")."""
    assert _empty_conv_programs(leafgrad) == _empty_conv_programs(torch)


# --- F.interpolate: ATen's upsampling arithmetic ----------------------------------------------

def _interpolate_programs(lib):
    """Forward bits and strides of linear/bilinear/bicubic/trilinear over align_corners, size,
    scale_factor with and without recompute_scale_factor, contiguous, channels-last and
    transposed inputs, channel counts on either side of a vector's width, small and large
    outputs, infinities and NaN, in float32 and float64."""
    F = lib.nn.functional
    shown = []
    inputs = {"linear": [(2, 3, 7)], "bilinear": [(2, 3, 5, 7), (1, 11, 4, 6)],
              "bicubic": [(2, 3, 5, 7)], "trilinear": [(1, 2, 4, 5, 6), (1, 11, 3, 4, 5)]}
    for dtype in ("float32", "float64"):
        for mode, shapes in inputs.items():
            for shape in shapes:
                spatial = len(shape) - 2
                count = int(np.prod(shape))
                base = lib.tensor((np.sin(np.arange(count) * 1.3) * 3).reshape(shape))
                base = base.to(getattr(lib, dtype))
                layouts = {"contiguous": base}
                if spatial == 2:
                    layouts["channels_last"] = base.contiguous(memory_format=lib.channels_last)
                    layouts["transposed"] = base.transpose(2, 3).contiguous().transpose(2, 3)
                if spatial == 3:
                    layouts["channels_last"] = base.contiguous(
                        memory_format=lib.channels_last_3d)
                calls = []
                for align_corners in (False, True):
                    for size in ([11] * spatial, [3] * spatial, list(shape[2:])):
                        calls.append(dict(size=size, align_corners=align_corners))
                    for factor in (2.0, 0.5, 1.7, 3.0):
                        calls.append(dict(scale_factor=factor, align_corners=align_corners))
                        calls.append(dict(scale_factor=factor, align_corners=align_corners,
                                          recompute_scale_factor=True))
                if mode == "bilinear":  # height + width past 128: the generic kernel
                    calls.append(dict(size=[80, 70], align_corners=False))
                for layout, x in layouts.items():
                    for call in calls:
                        out = F.interpolate(x, mode=mode, **call)
                        shown.append((dtype, mode, shape, layout, call, _bits(out)))
        x = lib.tensor([[[[1.0, float("inf"), 2.0], [3.0, 4.0, float("nan")]]]])
        x = x.to(getattr(lib, dtype))
        for mode, size in (("bilinear", (2, 5)), ("bicubic", (2, 5)), ("bilinear", (4, 3))):
            shown.append((dtype, mode, "special", _bits(F.interpolate(x, size=size,
                                                                      mode=mode))))
    return shown


def test_interpolate_forward_rounds_as_atens_kernels():
    """The linear modes as ATen computes them: positions ``scale * (j + 0.5) - 0.5`` fused,
    floored through float (a float64 0.9999999999999999 reads input 1), the dims nested outer
    first with fused multiply-adds; bilinear's channels-last kernel (small outputs, channels-last
    input) weighs corners by products of the dims' weights, its vector lanes summing in
    another order; trilinear keeps channels-last 3d strides. About half of the float32 and
    float64 values were an ulp or two off before."""
    theirs = _interpolate_programs(torch)
    ours = _interpolate_programs(leafgrad)
    assert len(ours) == len(theirs)
    for mine, expected in zip(ours, theirs):
        assert mine == expected, expected[:-1]


def test_bilinear_kernel_choice_follows_the_thread_count():
    """ATen takes the channels-last bilinear kernel for 3 channels on one thread even for a
    large output (and the generic one on more threads): same bits either way."""
    threads = (torch.get_num_threads(), leafgrad.get_num_threads())
    shown = {torch: [], leafgrad: []}
    try:
        for count in (1, 2):
            for lib in (torch, leafgrad):
                lib.set_num_threads(count)
                x = lib.tensor((np.sin(np.arange(105) * 1.3) * 3).reshape(1, 3, 5, 7))
                for dtype in ("float32", "float64"):
                    out = lib.nn.functional.interpolate(x.to(getattr(lib, dtype)),
                                                        size=[80, 70], mode="bilinear")
                    shown[lib].append(_bits(out))
    finally:
        torch.set_num_threads(threads[0])
        leafgrad.set_num_threads(threads[1])
    assert shown[leafgrad] == shown[torch]


# --- from torch's module_db (common_modules.py): GaussianNLLLoss and InstanceNorm -------------

def _gaussian_nll_programs(lib):
    """Every form of var torch's checks tell apart (Python float, int and bool, tensors of the
    input's size, one short, with one broadcast dim, with sizes adding up to more than one,
    negative ones), with full and each reduction: values, gradients, node names, errors."""
    F = lib.nn.functional
    shown = []
    for shape in ((4, 3), (2, 3, 5)):
        count = int(np.prod(shape))
        variances = [1, -1, True, 0.5, -0.5]
        for var_shape in (shape, shape[:-1], (1,) + shape[1:], shape[:-1] + (1,), (2,) + shape[1:],
                          (1,) * len(shape), shape[1:], (1,) + shape):
            size = int(np.prod(var_shape))
            variances.append(lib.arange(1.0, size + 1).reshape(var_shape) / size)
            variances.append(lib.arange(-1.0, size - 1).reshape(var_shape))
        for var in variances:
            for full in (False, True):
                for reduction in ("mean", "sum", "none"):
                    def run():
                        x = (lib.arange(float(count)).reshape(shape) / 3).requires_grad_()
                        target = lib.ones(shape)
                        out = F.gaussian_nll_loss(x, target, var, full=full,
                                                  reduction=reduction)
                        grad, = lib.autograd.grad(out.sum(), x)
                        return (out.tolist(), out.grad_fn.name(), grad.tolist())

                    shown.append((shape, repr(var) if not hasattr(var, "shape") else
                                  tuple(var.shape), full, reduction, _outcome(run)))
    return shown


def test_gaussian_nll_loss_checks_var_as_torch():
    """torch checks var's sign first (a Python float as a number; an int or bool reaches
    torch.any(bool) and its parser's TypeError), then its size: one dim short of the input, or
    the same rank with the sizes where they differ adding up to one. A (1, 3) var for a (4, 3)
    input (module_db's homoscedastic sample) was refused."""
    assert _gaussian_nll_programs(leafgrad) == _gaussian_nll_programs(torch)


def test_instance_norm_takes_bias():
    """InstanceNorm1d/2d/3d take torch's keyword-only ``bias`` (module_db's affine_not_bias
    sample): affine without a bias parameter."""
    def program(lib):
        shown = []
        for spatial, cls in ((1, lib.nn.InstanceNorm1d), (2, lib.nn.InstanceNorm2d),
                             (3, lib.nn.InstanceNorm3d)):
            for affine in (False, True):
                for bias in (False, True):
                    module = cls(3, 1e-3, 0.3, affine=affine, bias=bias,
                                 track_running_stats=affine)
                    x = (lib.arange(2.0 * 3 * 4 ** spatial).reshape((2, 3) + (4,) * spatial)
                         .sin().requires_grad_())
                    out = module(x)
                    leaves = [x] + list(module.parameters())
                    grads = lib.autograd.grad((out * out.detach()).sum(), leaves)
                    shown.append((repr(module), [n for n, _ in module.named_parameters()],
                                  sorted(module.state_dict()), round(float(out.sum()), 4),
                                  [round(float(g.abs().sum()), 4) for g in grads]))
        return shown

    assert program(leafgrad) == program(torch)


# --- F.interpolate(antialias=True) -----------------------------------------------------------

def _antialias_programs(lib):
    """bilinear and bicubic with antialias over sizes and scale factors (down and up, one dim
    or both, align_corners), contiguous and channels-last inputs: values, the input's gradient,
    node names, strides; refused dtypes."""
    F = lib.nn.functional
    shown = []
    for dtype in ("float32", "float64"):
        for mode in ("bilinear", "bicubic"):
            for shape in ((2, 3, 9, 11), (1, 2, 16, 5)):
                count = int(np.prod(shape))
                base = lib.tensor((np.sin(np.arange(count) * 1.3) * 3).reshape(shape))
                base = base.to(getattr(lib, dtype))
                for call in (dict(size=(4, 5)), dict(size=(3, 20)), dict(size=(9, 4)),
                             dict(size=tuple(shape[2:])), dict(size=(1, 1)),
                             dict(scale_factor=0.45), dict(scale_factor=2.3),
                             dict(scale_factor=(0.5, 1.0)),
                             dict(scale_factor=0.6, recompute_scale_factor=True),
                             dict(size=(4, 5), align_corners=True)):
                    for layout in ("contiguous", "channels_last"):
                        x = base if layout == "contiguous" else base.contiguous(
                            memory_format=lib.channels_last)
                        x = x.detach().requires_grad_()

                        def run():
                            out = F.interpolate(x, mode=mode, antialias=True, **call)
                            grad, = lib.autograd.grad((out * out.detach()).sum(), x)
                            return (out.detach().double().numpy(), grad.double().numpy(),
                                    out.grad_fn.name(), out.stride(), grad.stride())

                        shown.append(((dtype, mode, shape, call, layout), _outcome(run)))
    for dtype in ("float16", "bfloat16", "int64"):
        x = lib.ones(1, 1, 9, 9, dtype=getattr(lib, dtype))
        shown.append(((dtype,), _outcome(lambda: F.interpolate(x, size=(4, 5), mode="bilinear",
                                                                antialias=True))))
    return shown


def test_interpolate_antialias():
    """interpolate(antialias=True), which raised NotImplementedError: ATen's separable kernel
    (width first, then height; a dim that keeps its size is skipped), weights from its
    _compute_indices_min_size_weights_aa (the triangle or Keys' cubic with A = -0.5, widened
    by the scale when downsampling, normalised). The bilinear weights are torch's bits; the
    sums and the cubic weights can differ in the last bits (not replayed), so values are
    compared to a few ulps."""
    theirs = _antialias_programs(torch)
    ours = _antialias_programs(leafgrad)
    assert len(ours) == len(theirs)
    for (key, mine), (_, expected) in zip(ours, theirs):
        assert mine[0] == expected[0], key
        if mine[0] == "raised":
            assert mine == expected, key
            continue
        tolerance = 1e-5 if key[0] == "float32" else 1e-13
        for a, b in zip(mine[1][:2], expected[1][:2]):
            np.testing.assert_allclose(a, b, rtol=tolerance, atol=tolerance, err_msg=str(key))
        assert mine[1][2:] == expected[1][2:], key
