"""Differences the ModuleInfo replay (tests/opinfo/sweep_modules.py) found, each swept beyond
module_db's inputs against torch: one test per fixed class."""

from __future__ import annotations

import math

import numpy as np

import leafgrad
from tests._torch import require_torch
from tests.opinfo._harness import differences, to_leafgrad

torch = require_torch()

FLOATS = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


def _layouts(n: int, dtype):
    """Tensors of n elements (or rows of n) in the layouts whose vector/scalar split differs:
    contiguous, transposed (dense in another order), strided, rows with a gap."""
    yield torch.randn(n, dtype=dtype)
    yield torch.randn(3, n, dtype=dtype).t()
    yield torch.randn(n, 3, dtype=dtype).t()
    yield torch.randn(2 * n, dtype=dtype)[::2]
    yield torch.randn(3, n + 40, dtype=dtype)[:, :n]


def test_softshrink_zero_sign_follows_torchs_vector_and_scalar_code():
    # torch's kernel writes +0 between -lambd and lambd in its vector code (one vector per
    # step, in memory order) and x * 0 (-0 for negative x) in its scalar code on the rest
    torch.manual_seed(0)
    found = []
    for dtype in FLOATS:
        for n in (0, 1, 5, 8, 9, 16, 17, 24, 31, 32, 33, 40, 64, 65, 100):
            for x in _layouts(n, dtype):
                x[x.abs() > 1.5] = math.nan if n % 2 else -0.0
                for lambd in (0.5, 1.0, 0.3):
                    theirs = torch.nn.functional.softshrink(x, lambd)
                    ours = leafgrad.nn.functional.softshrink(to_leafgrad(x, torch), lambd)
                    found += [f"{dtype} {tuple(x.shape)} {x.stride()} {lambd}: {d}"
                              for d in differences(theirs, ours, torch, strides=False)]
                    module_t, module_l = torch.nn.Softshrink(lambd), leafgrad.nn.Softshrink(lambd)
                    found += [f"module {dtype} {tuple(x.shape)}: {d}" for d in differences(
                        module_t(x), module_l(to_leafgrad(x, torch)), torch, strides=False)]
    assert not found, "\n".join(found[:20])


def test_cross_entropy_label_smoothing_weighted_mean_divides_by_torchs_sum():
    # the weighted mean of the smoothing term divides by weight.gather(0, kept targets).sum(),
    # a sum in torch's order of additions (NumPy's sum gave another last bit)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    found = []
    for trial in range(300):
        n, classes = int(rng.integers(1, 40)), int(rng.integers(2, 9))
        for dtype in (torch.float64, torch.float32):
            x = torch.randn(n, classes, dtype=dtype, requires_grad=True)
            weight = torch.rand(classes, dtype=dtype) * 5
            target = torch.randint(0, classes, (n,))
            ignore = int(target[0]) if trial % 3 == 0 else -100
            x_l = to_leafgrad(x, torch)
            theirs = torch.nn.functional.cross_entropy(
                x, target, weight=weight, ignore_index=ignore, label_smoothing=0.1)
            ours = leafgrad.nn.functional.cross_entropy(
                x_l, to_leafgrad(target, torch), weight=to_leafgrad(weight, torch),
                ignore_index=ignore, label_smoothing=0.1)
            found += [f"{n}x{classes} {dtype} ignore={ignore}: {d}"
                      for d in differences(theirs, ours, torch)]
            theirs.backward()
            ours.backward()
            found += [f"{n}x{classes} {dtype} grad: {d}"
                      for d in differences(x.grad, x_l.grad, torch, strides=False)]
    assert not found, "\n".join(found[:20])


def test_batch_norm_eval_parameter_grads_are_torchs_kernel_sums():
    # eval mode: torch's backward kernel sums dy and (x - mean) * dy per row (then over the
    # samples) and multiplies dotp by invstd once; leafgrad summed dy * (x - mean) * invstd
    torch.manual_seed(0)
    found = []
    for dtype in (torch.float64, torch.float32):
        for shape in ((4, 5), (3, 5, 7), (2, 3, 4, 5), (8, 3, 20), (2, 4, 3, 3, 3), (1, 3, 17),
                      (5, 2, 1), (3, 4, 33), (0, 3, 4)):
            for layout in ("contiguous", "transposed", "channels_last"):
                x = torch.randn(*shape, dtype=dtype)
                if layout == "transposed":
                    x = x.transpose(0, -1).contiguous().transpose(0, -1)
                if layout == "channels_last" and len(shape) == 4:
                    x = x.contiguous(memory_format=torch.channels_last)
                x.requires_grad_()
                name = {2: "BatchNorm1d", 3: "BatchNorm1d", 4: "BatchNorm2d"}.get(
                    len(shape), "BatchNorm3d")
                module_t = getattr(torch.nn, name)(shape[1]).to(dtype)
                with torch.no_grad():
                    module_t.running_mean.normal_()
                    module_t.running_var.uniform_(0.5, 2)
                    module_t.weight.normal_()
                    module_t.bias.normal_()
                module_l = getattr(leafgrad.nn, name)(shape[1]).to(to_leafgrad(dtype, torch))
                module_l.load_state_dict({key: to_leafgrad(value, torch)
                                          for key, value in module_t.state_dict().items()})
                module_t.eval()
                module_l.eval()
                x_l = to_leafgrad(x, torch)
                out_t, out_l = module_t(x), module_l(x_l)
                grad = torch.randn_like(out_t)
                for create_graph in (False, True):
                    grads_t = torch.autograd.grad(out_t, (x, module_t.weight, module_t.bias),
                                                  grad, retain_graph=True,
                                                  create_graph=create_graph)
                    grads_l = leafgrad.autograd.grad(
                        out_l, (x_l, module_l.weight, module_l.bias), to_leafgrad(grad, torch),
                        retain_graph=True, create_graph=create_graph)
                    for what, a, b in zip(("x", "weight", "bias"), grads_t, grads_l):
                        found += [f"{dtype} {shape} {layout} create_graph={create_graph} "
                                  f"{what}: {d}"
                                  for d in differences(a, b, torch, strides=False)]
    assert not found, "\n".join(found[:20])


def test_sum_and_mean_over_strided_rows_are_torchs_scalar_row_sums():
    # a reduced dim with the smallest stride that is not the element size (x[..., ::2]):
    # torch's scalar_inner_sum, each row's four interleaved partial sums (NumPy's pairwise sum
    # gave other last bits; the ModuleInfo replay met it in adaptive_avg_pool2d's mean)
    torch.manual_seed(0)
    found = []
    for dtype in (torch.float64, torch.float32):
        for n in (2, 3, 5, 7, 9, 16, 17, 33, 100):
            for x in (torch.randn(1, 3, 2 * n, dtype=dtype)[..., ::2],
                      torch.randn(4, 3 * n, dtype=dtype)[:, ::3],
                      torch.randn(2, 5, 2 * n, dtype=dtype)[:, 1:4, ::2],
                      torch.randn(3, 2 * n, 5, dtype=dtype)[:, ::2, 2]):
                x_l = to_leafgrad(x, torch)
                for keepdim in (False, True):
                    for name in ("sum", "mean"):
                        theirs = getattr(x, name)(-1, keepdim=keepdim)
                        ours = getattr(x_l, name)(-1, keepdim=keepdim)
                        found += [f"{dtype} {tuple(x.shape)} {x.stride()} {name}: {d}"
                                  for d in differences(theirs, ours, torch)]
                pooled_t = torch.nn.functional.adaptive_avg_pool1d(x.reshape(x.shape[0], -1, n)
                                                                   if x.dim() == 3 else x[None], 1)
                pooled_l = leafgrad.nn.functional.adaptive_avg_pool1d(
                    x_l.reshape(x.shape[0], -1, n) if x.dim() == 3 else x_l[None], 1)
                found += [f"{dtype} pool {tuple(x.shape)}: {d}"
                          for d in differences(pooled_t, pooled_l, torch)]
    assert not found, "\n".join(found[:20])
