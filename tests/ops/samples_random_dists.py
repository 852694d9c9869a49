"""Samples for ops/sampling.py: each seeds the default generator, so torch and leafgrad draw
the same numbers (the values are compared too)."""

from __future__ import annotations

from .samples import Sample

POS = "pos"


def _poisson(lib, rates):
    lib.manual_seed(0)
    return lib.poisson(rates * 8)


def _poisson_large(lib, rates):
    lib.manual_seed(1)
    return lib.poisson(rates * 30)


def _normal_tensor_float(lib, mean):
    lib.manual_seed(2)
    return lib.normal(mean, 0.5)


def _normal_float_tensor(lib, std):
    lib.manual_seed(3)
    return lib.normal(1.5, std)


def _normal_tensor_tensor(lib, mean, std):
    lib.manual_seed(4)
    return lib.normal(mean, std)


_ZERO = "the gradient of a sample is defined as zero (derivatives.yaml)"

SAMPLES = {
    "Poisson": [
        Sample(_poisson, (((2, 3), POS),), finite_differences=False,
               note="the gradient of a sample is defined as zero (derivatives.yaml)"),
        Sample(_poisson_large, (((), POS),), finite_differences=False,
               note="the gradient of a sample is defined as zero (derivatives.yaml)"),
    ],
    "NormalTensorFloat": [
        Sample(_normal_tensor_float, (((2, 3), "any"),), finite_differences=False, note=_ZERO),
    ],
    "NormalFloatTensor": [
        Sample(_normal_float_tensor, (((3,), POS),), finite_differences=False, note=_ZERO),
    ],
    "NormalTensorTensor": [
        Sample(_normal_tensor_tensor, (((2, 3), "any"), ((2, 3), POS)), finite_differences=False,
               note=_ZERO),
    ],
}
