"""Samples for F.affine_grid (AffineGridGenerator) and F.grid_sample (GridSampler2d, and its
create_graph node GridSampler2dBackward)."""

from __future__ import annotations

from .samples import Sample

A, UNIT = "any", "unit"


def F(lib):
    return lib.nn.functional


def _sample(**options):
    return lambda lib, x, g: F(lib).grid_sample(x, g * 1.3, **options)


def _second_all(lib, fn, *inputs):
    """Every input's first derivative, recorded (create_graph's node), flattened into one."""
    out = fn(*inputs)
    grads = lib.autograd.grad((out * out).sum(), inputs, create_graph=True)
    return lib.cat([g.flatten() for g in grads])


SAMPLES = {
    "AffineGridGenerator": [
        Sample(lambda lib, t: F(lib).affine_grid(t, (2, 1, 3, 4), align_corners=False),
               (((2, 2, 3), A),)),
        Sample(lambda lib, t: F(lib).affine_grid(t, (1, 2, 2, 3, 1), align_corners=True),
               (((1, 3, 4), A),)),
    ],
    "GridSampler2d": [
        Sample(_sample(align_corners=False), (((2, 2, 3, 4), A), ((2, 3, 2, 2), UNIT))),
        Sample(_sample(padding_mode="border", align_corners=True),
               (((1, 2, 4, 3), A), ((1, 2, 3, 2), UNIT))),
        Sample(_sample(padding_mode="reflection", align_corners=False),
               (((1, 1, 3, 3), A), ((1, 4, 2, 2), UNIT))),
        Sample(_sample(mode="nearest", padding_mode="reflection", align_corners=True),
               (((1, 2, 3, 4), A), ((1, 2, 3, 2), UNIT))),
    ],
    # create_graph's node for grid_sample's backward (GridSampler2DBackwardBackward0)
    "GridSampler2dBackward": [
        Sample(lambda lib, x, g: _second_all(
            lib, lambda *t: _sample(align_corners=False)(lib, *t), x, g),
               (((1, 1, 3, 4), A), ((1, 2, 2, 2), UNIT))),
        Sample(lambda lib, x, g: _second_all(
            lib, lambda *t: _sample(padding_mode="border", align_corners=True)(lib, *t), x, g),
               (((1, 1, 3, 3), A), ((1, 2, 2, 2), UNIT))),
    ],
}
