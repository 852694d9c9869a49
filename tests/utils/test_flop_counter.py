"""torch.utils.flop_counter.FlopCounterMode and torch.utils.module_tracker.ModuleTracker,
against torch: the same flops per module and aten op (forward and backward, for every subset
of inputs requiring grad), the same table, the same module names as they run."""

from __future__ import annotations

import importlib
import itertools
import warnings

import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()
import torch.utils.flop_counter  # noqa: E402
import torch.utils.module_tracker  # noqa: E402

ours_fc = importlib.import_module("leafgrad.utils.flop_counter")
ours_mt = importlib.import_module("leafgrad.utils.module_tracker")


def _count(lib, program, **options):
    counter_module = ours_fc if lib is leafgrad else torch.utils.flop_counter
    lib.manual_seed(0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with counter_module.FlopCounterMode(display=False, **options) as counter:
            program(lib)
    counts = {module: {str(op): n for op, n in ops.items()}
              for module, ops in counter.get_flop_counts().items()}
    return counts, counter.get_total_flops(), counter.get_table(), counter.get_table(1)


def _same(program, **options):
    ours = _count(leafgrad, program, **options)
    theirs = _count(torch, program, **options)
    assert ours == theirs


def _mlp(lib, grads=(True, True)):
    model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(),
                              lib.nn.Sequential(lib.nn.Linear(16, 6), lib.nn.Tanh()),
                              lib.nn.Linear(6, 4, bias=False))
    return model


@pytest.mark.parametrize("shape", [(5, 8), (2, 5, 8), (8,)])
def test_mlp_forward_and_backward_for_every_input_grad(shape):
    for x_grad, frozen in itertools.product((False, True), (False, True)):
        def program(lib):
            model = _mlp(lib)
            if frozen:
                model[0].weight.requires_grad_(False)
            x = lib.randn(*shape, requires_grad=x_grad)
            model(x).sum().backward()
            with lib.no_grad():
                model(x)
        _same(program)


def test_convolutions_every_form():
    forms = [(1, False), (2, False), (3, False), (1, True), (2, True), (3, True)]
    for spatial, transposed in forms:
        for groups, bias, x_grad in itertools.product((1, 2), (False, True), (False, True)):
            def program(lib):
                name = f"ConvTranspose{spatial}d" if transposed else f"Conv{spatial}d"
                kwargs = {"output_padding": 1} if transposed else {"padding": 1}
                conv = getattr(lib.nn, name)(4, 6, 3, stride=2, groups=groups, bias=bias,
                                             **kwargs)
                x = lib.randn(2, 4, *(5,) * spatial, requires_grad=x_grad)
                conv(x).square().sum().backward()
            _same(program)


def test_products_outside_modules_and_the_global_row():
    def program(lib):
        a = lib.randn(3, 4, 5, requires_grad=True)
        b = lib.randn(3, 5, 6, requires_grad=True)
        c = lib.randn(5, 6, requires_grad=True)
        (a @ b).sum().backward()
        lib.einsum("bij,bjk->bik", a, b).sum()
        (a @ c).sum().backward()  # 3-d @ 2-d folds into one mm
        a[0] @ b[0]
        lib.mm(a[0], b[0])
        a[0, 0] @ b[0]
        lib.baddbmm(lib.randn(3, 4, 6), a, b).sum().backward()
        lib.addmm(lib.randn(4, 6), a[0], b[0], beta=0.5, alpha=2)
        lib.nn.Linear(6, 2)(lib.randn(4, 6)).sum().backward()
    _same(program)


def test_attention_and_double_backward():
    def program(lib):
        mha = lib.nn.MultiheadAttention(8, 2, batch_first=True)
        q = lib.randn(2, 4, 8, requires_grad=True)
        mha(q, q, q)[0].sum().backward()
        x = lib.randn(3, 4, requires_grad=True)
        w = lib.randn(4, 5, requires_grad=True)
        g, = lib.autograd.grad((x @ w).tanh().sum(), x, create_graph=True)
        g.sum().backward()
        lib.nn.functional.scaled_dot_product_attention(q, q, q).sum().backward()
    _same(program)


def test_custom_mapping_depth_and_the_mods_warning():
    def formula(a_shape, b_shape, *args, out_shape=None, **kwargs):
        return 7

    for lib in (leafgrad, torch):
        counter_module = ours_fc if lib is leafgrad else torch.utils.flop_counter
        with pytest.warns(UserWarning, match="mods argument is not needed anymore"):
            counter_module.FlopCounterMode(lib.nn.Linear(2, 2), display=False)

    def program(lib):
        model = _mlp(lib)
        lib.mm(lib.randn(2, 3), lib.randn(3, 4))
        model(lib.randn(5, 8)).sum().backward()
    ours = _count(leafgrad, program, depth=1, custom_mapping={leafgrad.ops.aten.mm: formula})
    theirs = _count(torch, program, depth=1, custom_mapping={torch.ops.aten.mm: formula})
    assert ours == theirs


def test_display_prints_torchs_table(capsys):
    outputs = []
    for lib in (leafgrad, torch):
        counter_module = ours_fc if lib is leafgrad else torch.utils.flop_counter
        lib.manual_seed(0)
        with counter_module.FlopCounterMode():
            _mlp(lib)(lib.randn(64, 8)).sum().backward()
        outputs.append(capsys.readouterr().out)
        with counter_module.FlopCounterMode():  # nothing counted
            lib.randn(3).sum()
        outputs.append(capsys.readouterr().out)
    assert outputs[:2] == outputs[2:]


def test_module_tracker_names_forward_and_backward():
    def trace(lib):
        tracker_module = ours_mt if lib is leafgrad else torch.utils.module_tracker
        seen = []
        lib.manual_seed(0)
        model = _mlp(lib)
        with tracker_module.ModuleTracker() as tracker:
            def spy(module, args, output):
                seen.append(("fw", sorted(tracker.parents), tracker.is_bw))
            handles = [m.register_forward_hook(spy) for m in model.modules()]
            out = model(lib.randn(3, 8, requires_grad=True))

            def in_backward(grad):
                seen.append(("bw", sorted(tracker.parents), tracker.is_bw))
            for p in model.parameters():
                p.register_hook(in_backward)
            out.sum().backward()
            seen.append(("after", sorted(tracker.parents), tracker.is_bw))
            for h in handles:
                h.remove()
        return seen

    assert trace(leafgrad) == trace(torch)


def test_aten_convolution_packets_call_the_convolutions():
    for spatial, transposed in itertools.product((1, 2, 3), (False, True)):
        results = []
        for lib in (leafgrad, torch):
            lib.manual_seed(0)
            x = lib.randn(2, 4, *(5,) * spatial, dtype=lib.float64)
            w = lib.randn(4, 3, *(3,) * spatial, dtype=lib.float64) if transposed else \
                lib.randn(6, 2, *(3,) * spatial, dtype=lib.float64)
            b = lib.randn(6 if transposed else 6, dtype=lib.float64)
            stride, padding, dilation = [2] * spatial, [1] * spatial, [1] * spatial
            out_pad = [1] * spatial if transposed else [0] * spatial
            y = lib.ops.aten.convolution(x, w, b, stride, padding, dilation, transposed,
                                         out_pad, 2)
            name = f"conv_transpose{spatial}d" if transposed else f"conv{spatial}d"
            kwargs = {"output_padding": out_pad} if transposed else {"dilation": dilation}
            direct = getattr(lib.nn.functional, name)(x, w, b, stride, padding, groups=2,
                                                      **kwargs)
            assert y.numpy().tobytes() == direct.numpy().tobytes()
            results.append(y.numpy())
        # (the convolutions' own last bits are tested in tests/ops)
        assert results[0].shape == results[1].shape
        assert abs(results[0] - results[1]).max() < 1e-12
    assert [str(p) for p in (leafgrad.ops.aten.baddbmm, leafgrad.ops.aten.convolution_backward)] \
        == [str(p) for p in (torch.ops.aten.baddbmm, torch.ops.aten.convolution_backward)]
    with pytest.raises(NotImplementedError, match="no implementation of aten.convolution_back"):
        leafgrad.ops.aten.convolution_backward()
