"""Version counters of results computed from inference tensors outside inference mode, for
upsampling and adaptive average pooling (Note: kernels' writes on inference operands,
ops/registry.py): torch's 2-d nearest/nearest-exact/bilinear kernels write their output once
more unless its layouts coincide (one channel, a 1x1 output) or the input is channels-last;
adaptive_avg_pool1d/2d/3d kernels once, their 1x1 mean shortcut twice; the other modes never.
Generated-program seed 162478 (``interpolate(x8[None], scale_factor=2, mode='bilinear')``
printed ``_version`` 0 where torch prints 1)."""

from __future__ import annotations

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _versions(lib):
    F = lib.nn.functional
    with lib.inference_mode():
        inputs = {
            "n1c2": lib.ones(1, 2, 3, 4) + 1, "n2c1": lib.ones(2, 1, 3, 4) + 1,
            "n3c3": lib.ones(3, 3, 3, 4) + 1, "unbatched": lib.ones(2, 3, 4) + 1,
            "channels_last": (lib.ones(1, 3, 4, 5) + 1).contiguous(
                memory_format=lib.channels_last),
            "transposed": (lib.ones(1, 2, 4, 3) + 1).transpose(-1, -2),
            "1d": lib.ones(2, 3, 4) + 1, "3d": lib.ones(1, 2, 2, 3, 4) + 1}
    out = []
    for name, x in inputs.items():
        spatial = x.dim() - 2 if name != "unbatched" else 2
        x = x[None] if name == "unbatched" else x
        modes = {1: ("nearest", "nearest-exact", "linear", "area"),
                 2: ("nearest", "nearest-exact", "bilinear", "bicubic", "area"),
                 3: ("nearest", "nearest-exact", "trilinear", "area")}[spatial]
        for mode in modes:
            for size in (1, 5, 3):
                out.append((name, mode, size, F.interpolate(x, size=(size,) * spatial,
                                                            mode=mode)._version))
            out.append((name, mode, "x2", F.interpolate(x, scale_factor=2, mode=mode)._version))
        pool = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}
        for size in (1, 2):
            out.append((name, "adaptive_avg", size, pool[spatial](x, size)._version))
        outside = lib.ones(1, 2, 3, 4) + 1  # a normal tensor: never an extra write
        out.append(("normal", F.interpolate(outside, scale_factor=2, mode="bilinear")._version))
    return out


def test_versions_match_torch():
    ours, theirs = _versions(leafgrad), _versions(torch)
    assert ours == theirs
