"""Large tensors: one op's forward and backward on 2**20 float32 elements, leafgrad vs torch vs
hand-written NumPy, side by side (the mission: large tensors at the speed of the NumPy calls).

Each case runs ``y = op(a)`` (a (1024, 1024) float32 leaf requiring grad, values N(0, 1)) and
``y.backward(g)`` with a fixed ``g`` of y's shape, then drops the leaf's .grad. The NumPy column
is the same forward and its gradient written by hand. Activations past 16,384 elements and sums
past 65,536 take NumPy's fastest kernels (Note: the replay limit, ops/_float_kernels.py); with
``--torch-bits`` leafgrad replays torch's kernels at every size instead (its cost is what that
option buys).

Usage: python benchmarks/bench_large.py [--quick] [--threads N] [--cases sigmoid,gelu,...]
                                        [--json PATH] [--torch-bits]
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402
import math  # noqa: E402

import numpy as np  # noqa: E402

SHAPE = (1024, 1024)
QUICK_SHAPE = (64, 300)  # past both limits too (19,200 elements > 16,384)


def _np_sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _np_erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


_TARGETS = {}  # shape -> a fixed float32 target for the losses


def _target_array(shape) -> np.ndarray:
    shape = tuple(shape)
    if shape not in _TARGETS:
        _TARGETS[shape] = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    return _TARGETS[shape]


def _target(lib, a):
    return lib.tensor(_target_array(a.shape))


def _np_smooth_l1(d):
    z = np.abs(d)
    return np.where(z < 1, np.float32(0.5) * z * z, z - np.float32(0.5))


def _np_huber(d, delta):
    z = np.abs(d)
    return np.where(z < delta, np.float32(0.5) * z * z, delta * (z - np.float32(0.5) * delta))


# name -> (leafgrad/torch forward, NumPy forward, NumPy backward (g, a, y) -> grad)
CASES = {
    "relu": (lambda lib, a: lib.relu(a),
             lambda a: np.maximum(a, 0),
             lambda g, a, y: g * (a > 0)),
    "leaky_relu": (lambda lib, a: lib.nn.functional.leaky_relu(a, 0.1),
                   lambda a: np.maximum(a, a * np.float32(0.1)),
                   lambda g, a, y: g * np.maximum(a > 0, np.float32(0.1))),
    "sigmoid": (lambda lib, a: lib.sigmoid(a),
                _np_sigmoid,
                lambda g, a, y: g * y * (1 - y)),
    "tanh": (lambda lib, a: lib.tanh(a),
             np.tanh,
             lambda g, a, y: g * (1 - y * y)),
    "silu": (lambda lib, a: lib.nn.functional.silu(a),
             lambda a: a * _np_sigmoid(a),
             lambda g, a, y: g * (s := _np_sigmoid(a)) * (1 + a * (1 - s))),
    "gelu_tanh": (lambda lib, a: lib.nn.functional.gelu(a, approximate="tanh"),
                  lambda a: 0.5 * a * (1 + np.tanh(np.float32(0.7978846) * (a + np.float32(0.044715) * a ** 3))),
                  None),
    "elu": (lambda lib, a: lib.nn.functional.elu(a),
            lambda a: np.where(a > 0, a, np.expm1(a)),
            lambda g, a, y: g * np.where(a > 0, 1, np.exp(a))),
    "softplus": (lambda lib, a: lib.nn.functional.softplus(a),
                 lambda a: np.logaddexp(np.float32(0), a),
                 lambda g, a, y: g * _np_sigmoid(a)),
    "bce_with_logits": (lambda lib, a: lib.nn.functional.binary_cross_entropy_with_logits(
                            a, (a > 0.5).to(a.dtype), reduction="none"),
                        lambda a: np.logaddexp(np.float32(0), a) - a * (a > 0.5),
                        lambda g, a, y: g * (_np_sigmoid(a) - (a > 0.5))),
    "clamp": (lambda lib, a: a.clamp(-0.5, 0.5),
              lambda a: np.clip(a, np.float32(-0.5), np.float32(0.5)),
              lambda g, a, y: g * ((a >= -0.5) & (a <= 0.5))),
    "smooth_l1": (lambda lib, a: lib.nn.functional.smooth_l1_loss(a, _target(lib, a)),
                  lambda a: _np_smooth_l1(a - _target_array(a.shape)).mean(),
                  lambda g, a, y: g / a.size * np.clip(a - _target_array(a.shape), -1, 1)),
    "huber": (lambda lib, a: lib.nn.functional.huber_loss(a, _target(lib, a), delta=0.5),
              lambda a: _np_huber(a - _target_array(a.shape), np.float32(0.5)).mean(),
              lambda g, a, y: g / a.size * np.clip(a - _target_array(a.shape), -0.5, 0.5)),
    "sum_rows": (lambda lib, a: a.sum(1),
                 lambda a: a.sum(1),
                 lambda g, a, y: np.broadcast_to(g[:, None], a.shape).copy()),
    "sum": (lambda lib, a: a.sum(),
            lambda a: a.sum(),
            lambda g, a, y: np.full(a.shape, g, a.dtype)),
    "mean_rows": (lambda lib, a: a.mean(1),
                  lambda a: a.mean(1),
                  lambda g, a, y: np.broadcast_to(g[:, None] / a.shape[1], a.shape).copy()),
    "transpose_add": (lambda lib, a: a.T + 1,
                      lambda a: a.T + 1,
                      lambda g, a, y: g.T.copy()),
}
DEFAULT_CASES = tuple(CASES)


def make_fns(name: str, libs: dict, shape) -> dict:
    forward, np_forward, np_backward = CASES[name]
    rng = np.random.default_rng(0)
    data = rng.standard_normal(shape).astype(np.float32)
    fns = {}
    for impl in ("leafgrad", "torch"):
        lib = libs.get(impl)
        if lib is None:
            continue
        a = lib.tensor(data, requires_grad=True)
        g = lib.tensor(np.ones(tuple(forward(lib, a.detach()).shape), np.float32) * 0.5)

        def run(lib=lib, a=a, g=g):
            y = forward(lib, a)
            y.backward(g)
            a.grad = None
        fns[impl] = run
    if np_backward is not None:
        g = np.ones(np.shape(np_forward(data)), np.float32) * np.float32(0.5)

        def run_numpy():
            y = np_forward(data)
            return np_backward(g, data, y)
        fns["numpy"] = run_numpy
    return fns


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run (small shape)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cases", default=",".join(DEFAULT_CASES))
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--target", type=float, default=None)
    parser.add_argument("--torch-bits", action="store_true",
                        help="leafgrad.backends.cpu.torch_bits = True (replays at every size)")
    args = parser.parse_args(argv)
    names = [n for n in args.cases.split(",") if n]
    unknown = set(names) - set(CASES)
    if unknown:
        parser.error(f"unknown cases: {sorted(unknown)}")
    repeats = args.repeats or (2 if args.quick else 5)
    target = args.target or (0.01 if args.quick else 0.2)
    info = _harness.machine_info(args.threads)
    libs = _harness.load_libs(args.threads)
    libs["leafgrad"].backends.cpu.torch_bits = args.torch_bits
    shape = QUICK_SHAPE if args.quick else SHAPE
    _harness.print_header("bench_large: one op forward + backward on float32 "
                          f"{shape[0]}x{shape[1]}", info, libs, args.threads, repeats, target,
                          args.quick, extra="torch_bits on; " if args.torch_bits else "")
    cases = {name: {"label": f"{name} fwd+bwd", "unit": "call", "divisor": 1,
                    "fns": make_fns(name, libs, shape)} for name in names}
    results = _harness.time_cases(cases, repeats, target, args.quick)
    table, verdicts = _harness.report(cases, results, {}, label_width=24,
                                      targets_heading="(no targets: ratios to read)")
    print(table)
    if args.json:
        _harness.write_json(args.json, {"machine": info, "shape": list(shape),
                                        "torch_bits": args.torch_bits,
                                        "cases": _harness.cases_json(cases, results)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
