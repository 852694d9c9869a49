"""Samples for nn/_fractional_pool.py (fixed _random_samples: the windows do not move between
the finite-difference evaluations)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _pool(lib, x):
    samples = lib.tensor([[[0.3, 0.7], [0.9, 0.1]]], dtype=x.dtype)
    return lib.nn.functional.fractional_max_pool2d(x, 2, output_size=(3, 4),
                                                   _random_samples=samples)


def _grad(lib, x):
    out = _pool(lib, x)
    return lib.autograd.grad((out * out).sum(), x, create_graph=True)[0]


def _pool3d(lib, x):
    samples = lib.tensor([[[0.3, 0.7, 0.5], [0.9, 0.1, 0.2]]], dtype=x.dtype)
    return lib.nn.functional.fractional_max_pool3d(x, 2, output_size=(2, 3, 2),
                                                   _random_samples=samples)


def _grad3d(lib, x):
    out = _pool3d(lib, x)
    return lib.autograd.grad((out * out).sum(), x, create_graph=True)[0]


SAMPLES = {
    "FractionalMaxPool3d": [Sample(_pool3d, (((1, 2, 4, 5, 4), A),))],
    "FractionalMaxPool3dBackward": [Sample(_grad3d, (((1, 2, 4, 5, 4), A),))],
    "FractionalMaxPool2d": [Sample(_pool, (((1, 2, 5, 6), A),))],
    "FractionalMaxPool2dBackward": [Sample(_grad, (((1, 2, 5, 6), A),))],
}
