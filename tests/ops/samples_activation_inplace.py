"""Samples for ops/activation_inplace.py: the in-place activations on a non-leaf copy (an
in-place op on a leaf that requires grad is an error)."""

from __future__ import annotations

from .samples import Sample

AWAY = "away0"
S23, S243 = (2, 3), (2, 4, 3)


def F(lib):
    return lib.nn.functional


def _rrelu_train(lib, x):
    lib.manual_seed(0)  # the same slopes on every call (finite differences re-run the sample)
    return F(lib).rrelu_(x * 1, 0.1, 0.3, training=True)


SAMPLES = {
    "EluInplace": [Sample(lambda lib, x: F(lib).elu_(x * 1, 0.7), ((S23, AWAY),)),
                   Sample(lambda lib, x: F(lib).selu_(x * 1), ((S243, AWAY),)),
                   Sample(lambda lib, x: lib.selu_(x.t() * 1), (((3, 2), AWAY),))],
    "CeluInplace": [Sample(lambda lib, x: F(lib).celu_(x * 1, 1.5), ((S23, AWAY),)),
                    Sample(lambda lib, x: lib.celu_(x * 1), (((), AWAY),))],
    "LeakyReluInplace": [Sample(lambda lib, x: F(lib).leaky_relu_(x * 1, 0.2), ((S23, AWAY),)),
                         Sample(lambda lib, x: F(lib).leaky_relu(x * 1, inplace=True),
                                ((S243, AWAY),))],
    "ThresholdInplace": [Sample(lambda lib, x: F(lib).threshold_(x * 1, 0.1, 2.0),
                                ((S23, AWAY),)),
                         Sample(lambda lib, x: lib.threshold_(x * 1, -0.05, -3.0),
                                ((S243, AWAY),))],
    "RreluWithNoiseInplace": [Sample(lambda lib, x: F(lib).rrelu_(x * 1, 0.1, 0.3),
                                     ((S23, AWAY),)),
                              Sample(_rrelu_train, ((S243, AWAY),))],
}
