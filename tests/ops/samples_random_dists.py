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


SAMPLES = {
    "Poisson": [
        Sample(_poisson, (((2, 3), POS),), finite_differences=False,
               note="the gradient of a sample is defined as zero (derivatives.yaml)"),
        Sample(_poisson_large, (((), POS),), finite_differences=False,
               note="the gradient of a sample is defined as zero (derivatives.yaml)"),
    ],
}
