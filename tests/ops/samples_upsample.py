"""Samples for F.interpolate's upsampling ops (src/leafgrad/nn/_upsample_ops.py): each mode and
number of spatial dims, up and down, by size and by a (not recomputed) scale factor whose
1/scale ATen uses for positions, with and without align_corners; and each op's backward under
create_graph (the ``...BackwardBackward0`` node), whose own backward is the op again."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _interp(**options):
    return lambda lib, x: lib.nn.functional.interpolate(x, **options)


def _grad_of(**options):
    def call(lib, x):
        out = lib.nn.functional.interpolate(x, **options)
        return lib.autograd.grad((out * out).sum(), x, create_graph=True)[0]

    return call


def _shape(dims: int, size: int = 3) -> tuple:
    # one batch for 3-d (gradcheck's full Jacobian grows with the square of the elements)
    return ((1, 2) if dims == 3 else (2, 2)) + (size,) * dims


_CASES = {  # op name: (mode, spatial dims, takes align_corners)
    "UpsampleNearest1D": ("nearest", 1, False),
    "UpsampleNearest2D": ("nearest", 2, False),
    "UpsampleNearest3D": ("nearest", 3, False),
    "UpsampleNearestExact1D": ("nearest-exact", 1, False),
    "UpsampleNearestExact2D": ("nearest-exact", 2, False),
    "UpsampleNearestExact3D": ("nearest-exact", 3, False),
    "UpsampleLinear1D": ("linear", 1, True),
    "UpsampleBilinear2D": ("bilinear", 2, True),
    "UpsampleBicubic2D": ("bicubic", 2, True),
    "UpsampleTrilinear3D": ("trilinear", 3, True),
}


def _samples() -> dict:
    samples = {}
    for name, (mode, dims, aligns) in _CASES.items():
        small = 2 if dims == 3 else 5
        forward = [
            Sample(_interp(scale_factor=2, mode=mode), ((_shape(dims), A),)),
            Sample(_interp(size=small, mode=mode), ((_shape(dims, 4), A),),
                   note="not a multiple of the input"),
            Sample(_interp(scale_factor=0.6, mode=mode), ((_shape(dims, 4), A),),
                   note="down by a factor: positions use 1 / 0.6"),
            Sample(_interp(scale_factor=1.7, mode=mode, recompute_scale_factor=True),
                   ((_shape(dims), A),), note="recomputed scale"),
        ]
        backward = [Sample(_grad_of(scale_factor=1.5, mode=mode), ((_shape(dims), A),))]
        if aligns:
            forward.append(Sample(_interp(size=small, mode=mode, align_corners=True),
                                  ((_shape(dims), A),), note="align_corners"))
            forward.append(Sample(_interp(scale_factor=0.5, mode=mode, align_corners=True),
                                  ((_shape(dims, 4), A),), note="align_corners, down"))
            backward.append(Sample(_grad_of(size=small, mode=mode, align_corners=True),
                                   ((_shape(dims), A),), note="align_corners"))
        samples[name] = forward
        samples[name + "Backward"] = backward
    return samples


def _antialiased() -> dict:
    """interpolate(antialias=True): bilinear and bicubic down (the widened filter) and up."""
    samples = {}
    for name, mode in (("UpsampleBilinear2DAa", "bilinear"), ("UpsampleBicubic2DAa", "bicubic")):
        samples[name] = [
            Sample(_interp(size=(3, 2), mode=mode, antialias=True), ((_shape(2, 5), A),),
                   note="down: the filter widened by the scale"),
            Sample(_interp(scale_factor=0.6, mode=mode, antialias=True), ((_shape(2, 5), A),)),
            Sample(_interp(scale_factor=2, mode=mode, antialias=True), ((_shape(2), A),)),
            Sample(_interp(size=(2, 3), mode=mode, antialias=True, align_corners=True),
                   ((_shape(2, 5), A),), note="align_corners"),
        ]
        samples[name + "Backward"] = [
            Sample(_grad_of(size=(3, 2), mode=mode, antialias=True), ((_shape(2, 5), A),))]
    return samples


SAMPLES = {**_samples(), **_antialiased()}
