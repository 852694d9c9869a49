"""Forward-mode AD benchmark: leafgrad vs torch.autograd.forward_ad vs hand-written NumPy.

Cases
  chain  a 2,000-op elementwise chain (cycle: *1.0001, +0.001, sin, tanh) on a dual tensor
         of 1 and 64 float32 elements: the primal and its tangent, op by op. Reported per op.
         Measures the cost of running an op on a dual tensor (the formula's extra ops).
  jvp    the JVP of a 784-256-128-10 tanh MLP (float32, batch 32) with respect to its input,
         in forward mode (a dual input, plain weights).
  hvp    a Hessian-vector product of f(x) = sum(tanh(A x) ** 2), 64 inputs, float64, by
         forward-over-reverse (autograd.grad on dual tensors).

The NumPy baselines compute the same values and tangents by hand.

Usage: python benchmarks/bench_forward_ad.py [--quick] [--threads N] [--json PATH]
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402

import numpy as np  # noqa: E402

CHAIN_OPS = 2000
CHAIN_SIZES = (1, 64)
MLP_SIZES = (784, 256, 128, 10)
MLP_BATCH = 32
HVP_SIZE = 64
MUL, ADD = 1.0001, 0.001


# ---------------------------------------------------------------------------------------- chain


def chain_lib(lib, x, v, n_ops: int):
    """(output, its tangent) of the chain on a dual tensor with ``lib``'s forward mode."""
    forward_ad = lib.autograd.forward_ad
    with forward_ad.dual_level():
        y = forward_ad.make_dual(x, v)
        for _ in range(n_ops // 4):
            y = y * MUL
            y = y + ADD
            y = y.sin()
            y = y.tanh()
        return forward_ad.unpack_dual(y)


def chain_numpy(x: np.ndarray, v: np.ndarray, n_ops: int) -> tuple[np.ndarray, np.ndarray]:
    y, t = x, v
    for _ in range(n_ops // 4):
        y, t = y * MUL, t * MUL
        y = y + ADD
        t = t * np.cos(y)
        y = np.sin(y)
        y = np.tanh(y)
        t = t * (1 - y * y)
    return y, t


# ------------------------------------------------------------------------------------------ jvp


def mlp_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
    v = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
    params = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return x, v, params


def mlp_jvp_lib(lib, x, v, params):
    forward_ad = lib.autograd.forward_ad
    w1, b1, w2, b2, w3, b3 = params
    with forward_ad.dual_level():
        h = forward_ad.make_dual(x, v)
        h = (h @ w1 + b1).tanh()
        h = (h @ w2 + b2).tanh()
        return forward_ad.unpack_dual(h @ w3 + b3)


def mlp_jvp_numpy(x, v, params):
    w1, b1, w2, b2, w3, b3 = params
    h, t = x, v
    for w, b in ((w1, b1), (w2, b2)):
        h = np.tanh(h @ w + b)
        t = (t @ w) * (1 - h * h)
    return h @ w3 + b3, t @ w3


# ------------------------------------------------------------------------------------------ hvp


def hvp_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((HVP_SIZE, HVP_SIZE)) / np.sqrt(HVP_SIZE)
    return a, rng.standard_normal(HVP_SIZE), rng.standard_normal(HVP_SIZE)


def hvp_lib(lib, a, x, v):
    forward_ad = lib.autograd.forward_ad
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(x, v)
        loss = ((a @ dual).tanh() ** 2).sum()
        (grad,) = lib.autograd.grad(loss, dual)
        return forward_ad.unpack_dual(grad).tangent


def hvp_numpy(a, x, v):
    # f = sum(tanh(z)^2), z = A x: grad = A^T (2 t (1 - t^2)), t = tanh(z)
    # H v = A^T diag(d/dz [2 t (1 - t^2)]) A v, with d/dz = 2 (1 - t^2)(1 - 3 t^2)
    t = np.tanh(a @ x)
    s = 1 - t * t
    return a.T @ (2 * s * (1 - 3 * t * t) * (a @ v))


# --------------------------------------------------------------------------------------- driver


def build_cases(libs: dict, chain_ops: int) -> dict[str, dict]:
    cases = {}
    rng = np.random.default_rng(0)
    for size in CHAIN_SIZES:
        x = rng.uniform(-1, 1, size).astype(np.float32)
        v = rng.standard_normal(size).astype(np.float32)
        fns = {name: (lambda lib=lib, a=lib.tensor(x), b=lib.tensor(v): chain_lib(lib, a, b,
                                                                                  chain_ops))
               for name, lib in libs.items() if lib is not None}
        fns["numpy"] = lambda x=x, v=v: chain_numpy(x, v, chain_ops)
        cases[f"chain{size}"] = {"label": f"dual chain, {size} elem", "unit": "per op",
                                 "divisor": chain_ops, "fns": fns}
    x, v, params = mlp_data()
    fns = {name: (lambda lib=lib, a=lib.tensor(x), b=lib.tensor(v),
                  p=[lib.tensor(w) for w in params]: mlp_jvp_lib(lib, a, b, p))
           for name, lib in libs.items() if lib is not None}
    fns["numpy"] = lambda x=x, v=v, p=params: mlp_jvp_numpy(x, v, p)
    cases["jvp"] = {"label": f"mlp jvp, batch {MLP_BATCH}", "unit": "per call", "divisor": 1,
                    "fns": fns}
    a, x, v = hvp_data()
    fns = {name: (lambda lib=lib, m=lib.tensor(a), b=lib.tensor(x), c=lib.tensor(v):
                  hvp_lib(lib, m, b.requires_grad_(), c))
           for name, lib in libs.items() if lib is not None}
    fns["numpy"] = lambda a=a, x=x, v=v: hvp_numpy(a, x, v)
    cases["hvp"] = {"label": f"hvp fwd-over-rev, n={HVP_SIZE}", "unit": "per call",
                    "divisor": 1, "fns": fns}
    return cases


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run (few, short repeats)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/torch threads (default 1)")
    parser.add_argument("--json", metavar="PATH", help="also write results as JSON to PATH")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    chain_ops = 200 if args.quick else CHAIN_OPS
    repeats = 2 if args.quick else 7
    target_s = 0.005 if args.quick else 0.2
    libs = _harness.load_libs(args.threads)
    info = _harness.machine_info(args.threads)
    _harness.print_header(
        "bench_forward_ad: leafgrad vs torch vs hand-written NumPy (forward mode)",
        info, libs, args.threads, repeats, target_s, args.quick, extra=f"chain ops {chain_ops}, ")
    cases = build_cases(libs, chain_ops)
    results = _harness.time_cases(cases, repeats, target_s, args.quick)
    text, _ = _harness.report(cases, results, {}, targets_heading="")
    print(text.rstrip())
    if args.json:
        _harness.write_json(args.json, {
            "machine": info,
            "cases": _harness.cases_json(cases, results),
        })
    return 0


if __name__ == "__main__":
    sys.exit(main())
