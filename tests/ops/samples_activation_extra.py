"""Samples for ops/activation_extra.py."""

from __future__ import annotations

from .samples import Sample

A, AWAY = "any", "away0"
S23, S0, S243 = (2, 3), (), (2, 4, 3)


def F(lib):
    return lib.nn.functional


def _rrelu_train(lib, x):
    lib.manual_seed(0)  # the same slopes on every call (finite differences re-run the sample)
    return F(lib).rrelu(x, 0.1, 0.3, training=True)


def _second_all(lib, fn, *inputs):
    """Every input's first derivative, recorded (create_graph's node), flattened into one."""
    out = fn(*inputs)
    grads = lib.autograd.grad((out * out).sum(), inputs, create_graph=True)
    return lib.cat([g.flatten() for g in grads])


SAMPLES = {
    # create_graph's nodes for the activations' backwards (HardswishBackwardBackward0...)
    "HardswishBackward": [Sample(lambda lib, x: _second_all(
        lib, lambda t: F(lib).hardswish(t * 4), x), ((S243, AWAY),))],
    "LogSigmoidBackward": [Sample(lambda lib, x: _second_all(lib, F(lib).logsigmoid, x),
                                  ((S23, A),))],
    "GluBackward": [Sample(lambda lib, x: _second_all(lib, lambda t: F(lib).glu(t, 1), x),
                           ((S243, A),))],
    "RreluWithNoiseBackward": [Sample(lambda lib, x: _second_all(
        lib, lambda t: F(lib).rrelu(t, 0.1, 0.3), x), ((S23, AWAY),))],
    "PreluBackward": [Sample(lambda lib, x, w: _second_all(lib, F(lib).prelu, x, w),
                             ((S243, AWAY), ((4,), A))),
                      Sample(lambda lib, x, w: _second_all(lib, F(lib).prelu, x, w),
                             ((S23, AWAY), ((1,), A)))],
    "RreluWithNoise": [Sample(lambda lib, x: F(lib).rrelu(x, 0.1, 0.3), ((S23, AWAY),)),
                       Sample(_rrelu_train, ((S243, AWAY),))],
    "Hardshrink": [Sample(lambda lib, x: F(lib).hardshrink(x, 0.4), ((S23, AWAY),)),
                   Sample(lambda lib, x: F(lib).hardshrink(x.t()), (((3, 2), AWAY),))],
    "Softshrink": [Sample(lambda lib, x: F(lib).softshrink(x, 0.2), ((S23, AWAY),)),
                   Sample(lambda lib, x: F(lib).softshrink(x), ((S0, AWAY),))],
    "Hardsigmoid": [Sample(lambda lib, x: F(lib).hardsigmoid(x * 4), ((S23, AWAY),),
                           second_order=False,
                           note="torch has no derivative for hardsigmoid_backward (raises)")],
    "Hardswish": [Sample(lambda lib, x: F(lib).hardswish(x * 4), ((S243, AWAY),))],
    "LogSigmoid": [Sample(lambda lib, x: F(lib).logsigmoid(x * 10), ((S23, A),)),
                   Sample(lambda lib, x: F(lib).logsigmoid(x), ((S0, A),))],
    "Threshold": [Sample(lambda lib, x: F(lib).threshold(x, 0.1, 20.0), ((S23, AWAY),)),
                  Sample(lambda lib, x: F(lib).threshold(x.t(), -0.05, -2.0), (((3, 2), AWAY),))],
    "Glu": [Sample(lambda lib, x: F(lib).glu(x), (((2, 4), A),)),
            Sample(lambda lib, x: F(lib).glu(x, 1), ((S243, A),)),
            Sample(lambda lib, x: F(lib).glu(x, 0), (((2, 3), A),))],
    "Prelu": [Sample(lambda lib, x, w: F(lib).prelu(x, w), ((S243, AWAY), ((4,), A))),
              Sample(lambda lib, x, w: F(lib).prelu(x, w), ((S23, AWAY), ((1,), A))),
              Sample(lambda lib, x, w: F(lib).prelu(x, w), (((5,), AWAY), ((1,), A)))],
}
