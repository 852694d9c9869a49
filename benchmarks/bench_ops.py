"""Per-op cost on small tensors: leafgrad vs torch vs the NumPy call, side by side in one run.

The chain benchmarks (bench_chain.py) time four ops; tutorials and small models call dozens,
on tensors so small that the time is the library's own overhead. Each case here is one call
of one op on a float32 tensor of 64 elements (8 x 8, or 64 for reductions of a vector):

  fwd       the op on tensors that do not require grad (no graph recorded);
  fwd+bwd   the op on leaves that require grad, then ``out.backward(g)`` with a fixed ``g``
            of the result's shape (the graph recorded and run back once).

The NumPy column is the plain NumPy expression of the same math where there is one (n/a
otherwise; its backward is not written). The summary gives the geometric mean of
leafgrad/torch over the cases of each mode and the cases furthest from torch.

Usage: python benchmarks/bench_ops.py [--quick] [--threads N] [--mode fwd|fwd+bwd|both]
                                      [--ops sum,mm,...] [--json PATH] [--profile OP]
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def _data(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.uniform(0.1, 1.0, (8, 8)).astype(np.float32),
        "y": rng.uniform(0.1, 1.0, (8, 8)).astype(np.float32),
        "v": rng.uniform(0.1, 1.0, 64).astype(np.float32),
        "labels": rng.integers(0, 8, 8).astype(np.int64),
    }


def _log_softmax_np(x):
    shifted = x - x.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


# name -> (differentiable, leafgrad/torch call on a namespace of tensors, NumPy call or None)
# ``t`` holds x, y, v (float32) and labels (int64); F is the library's nn.functional.
OPS = {
    "add": (True, lambda L, F, t: t.x + t.y, lambda d: d["x"] + d["y"]),
    "mul": (True, lambda L, F, t: t.x * t.y, lambda d: d["x"] * d["y"]),
    "div": (True, lambda L, F, t: t.x / t.y, lambda d: d["x"] / d["y"]),
    "rsub": (True, lambda L, F, t: 1 - t.x, lambda d: 1 - d["x"]),
    "mul_scalar": (True, lambda L, F, t: t.x * 1.5, lambda d: d["x"] * np.float32(1.5)),
    "pow2": (True, lambda L, F, t: t.x ** 2, lambda d: d["x"] ** 2),
    "neg": (True, lambda L, F, t: -t.x, lambda d: -d["x"]),
    "abs": (True, lambda L, F, t: t.x.abs(), lambda d: np.abs(d["x"])),
    "exp": (True, lambda L, F, t: t.x.exp(), lambda d: np.exp(d["x"])),
    "log": (True, lambda L, F, t: t.x.log(), lambda d: np.log(d["x"])),
    "sqrt": (True, lambda L, F, t: t.x.sqrt(), lambda d: np.sqrt(d["x"])),
    "tanh": (True, lambda L, F, t: t.x.tanh(), lambda d: np.tanh(d["x"])),
    "sigmoid": (True, lambda L, F, t: t.x.sigmoid(), lambda d: 1 / (1 + np.exp(-d["x"]))),
    "relu": (True, lambda L, F, t: t.x.relu(), lambda d: np.maximum(d["x"], 0)),
    "clamp": (True, lambda L, F, t: t.x.clamp(0.2, 0.8), lambda d: np.clip(d["x"], 0.2, 0.8)),
    "where": (True, lambda L, F, t: L.where(t.x > 0.5, t.x, t.y),
              lambda d: np.where(d["x"] > 0.5, d["x"], d["y"])),
    "gt": (False, lambda L, F, t: t.x > 0.5, lambda d: d["x"] > 0.5),
    "sum": (True, lambda L, F, t: t.v.sum(), lambda d: d["v"].sum()),
    "mean": (True, lambda L, F, t: t.v.mean(), lambda d: d["v"].mean()),
    "sum_dim0": (True, lambda L, F, t: t.x.sum(0), lambda d: d["x"].sum(0)),
    "sum_dim1": (True, lambda L, F, t: t.x.sum(1), lambda d: d["x"].sum(1)),
    "mean_dim1": (True, lambda L, F, t: t.x.mean(1), lambda d: d["x"].mean(1)),
    "amax_dim1": (True, lambda L, F, t: t.x.amax(1), lambda d: d["x"].max(1)),
    "max": (True, lambda L, F, t: t.v.max(), lambda d: d["v"].max()),
    "argmax": (False, lambda L, F, t: t.v.argmax(), lambda d: d["v"].argmax()),
    "var": (True, lambda L, F, t: t.v.var(), lambda d: d["v"].var(ddof=1)),
    "std_dim1": (True, lambda L, F, t: t.x.std(1), lambda d: d["x"].std(1, ddof=1)),
    "norm": (True, lambda L, F, t: t.v.norm(), lambda d: np.linalg.norm(d["v"])),
    "logsumexp": (True, lambda L, F, t: t.x.logsumexp(1), None),
    "cumsum": (True, lambda L, F, t: t.v.cumsum(0), lambda d: d["v"].cumsum()),
    "mm": (True, lambda L, F, t: t.x @ t.y, lambda d: d["x"] @ d["y"]),
    "mv": (True, lambda L, F, t: t.x @ t.v[:8], lambda d: d["x"] @ d["v"][:8]),
    "linear": (True, lambda L, F, t: F.linear(t.x, t.y), lambda d: d["x"] @ d["y"].T),
    "softmax": (True, lambda L, F, t: t.x.softmax(1), None),
    "log_softmax": (True, lambda L, F, t: F.log_softmax(t.x, 1),
                    lambda d: _log_softmax_np(d["x"])),
    "cross_entropy": (True, lambda L, F, t: F.cross_entropy(t.x, t.labels), None),
    "mse_loss": (True, lambda L, F, t: F.mse_loss(t.x, t.y),
                 lambda d: ((d["x"] - d["y"]) ** 2).mean()),
    "view": (True, lambda L, F, t: t.x.view(64), lambda d: d["x"].reshape(64)),
    "reshape": (True, lambda L, F, t: t.x.reshape(4, 16), lambda d: d["x"].reshape(4, 16)),
    "transpose": (True, lambda L, F, t: t.x.t(), lambda d: d["x"].T),
    "unsqueeze": (True, lambda L, F, t: t.x.unsqueeze(0), lambda d: d["x"][None]),
    "expand": (True, lambda L, F, t: t.v[:8].expand(8, 8),
               lambda d: np.broadcast_to(d["v"][:8], (8, 8))),
    "index_int": (True, lambda L, F, t: t.x[0], lambda d: d["x"][0]),
    "slice": (True, lambda L, F, t: t.x[:, 1:3], lambda d: d["x"][:, 1:3]),
    "cat": (True, lambda L, F, t: L.cat([t.x, t.y]),
            lambda d: np.concatenate([d["x"], d["y"]])),
    "stack": (True, lambda L, F, t: L.stack([t.x, t.y]), lambda d: np.stack([d["x"], d["y"]])),
    "clone": (True, lambda L, F, t: t.x.clone(), lambda d: d["x"].copy()),
    "topk": (False, lambda L, F, t: t.v.topk(3), None),
    "sort": (False, lambda L, F, t: t.v.sort(), lambda d: np.sort(d["v"])),
    "zeros": (False, lambda L, F, t: L.zeros(8, 8), lambda d: np.zeros((8, 8), np.float32)),
    "rand": (False, lambda L, F, t: L.rand(8, 8), None),
    "randn": (False, lambda L, F, t: L.randn(8, 8), None),
    "tensor_from_list": (False, lambda L, F, t: L.tensor([1.0, 2.0, 3.0]),
                         lambda d: np.array([1.0, 2.0, 3.0], np.float32)),
    "item": (False, lambda L, F, t: t.v[0].item(), lambda d: d["v"][0].item()),
}


class _Tensors:
    """The case's tensors as attributes (x, y, v, labels)."""

    def __init__(self, lib, data: dict, requires_grad: bool):
        for name, value in data.items():
            tensor = lib.tensor(value)
            if requires_grad and value.dtype.kind == "f":
                tensor.requires_grad_()
            setattr(self, name, tensor)


def _first_tensor(result):
    return result[0] if isinstance(result, tuple) else result


def _lib_call(lib, op, data: dict, mode: str):
    """One timed call of ``op`` in ``lib``: the op, or the op and its backward."""
    fn = OPS[op][1]
    functional = lib.nn.functional
    if mode == "fwd":
        t = _Tensors(lib, data, False)
        return lambda: fn(lib, functional, t)
    t = _Tensors(lib, data, True)
    probe = _first_tensor(fn(lib, functional, t))
    gradient = lib.ones_like(probe) * 0.5

    def step():
        _first_tensor(fn(lib, functional, t)).backward(gradient)

    return step


def build_cases(libs: dict, ops: list, modes: list) -> dict:
    data = _data()
    cases = {}
    for mode in modes:
        for op in ops:
            differentiable, _, numpy_fn = OPS[op]
            if mode == "fwd+bwd" and not differentiable:
                continue
            fns = {"leafgrad": _lib_call(libs["leafgrad"], op, data, mode)}
            if libs.get("torch") is not None:
                fns["torch"] = _lib_call(libs["torch"], op, data, mode)
            if mode == "fwd" and numpy_fn is not None:
                fns["numpy"] = (lambda f: lambda: f(data))(numpy_fn)
            cases[f"{op}/{mode}"] = {"label": f"{op} {mode}", "unit": "per call",
                                     "divisor": 1, "fns": fns, "mode": mode}
    return cases


def summary(cases: dict, results: dict, worst: int = 12) -> str:
    lines = []
    for mode in ("fwd", "fwd+bwd"):
        ratios = {key: _harness.ratio(results, key, "torch", "median")
                  for key, case in cases.items() if case["mode"] == mode}
        ratios = {key: value for key, value in ratios.items() if value is not None}
        if not ratios:
            continue
        mean = math.exp(sum(math.log(value) for value in ratios.values()) / len(ratios))
        furthest = sorted(ratios, key=ratios.get, reverse=True)[:worst]
        lines.append(f"{mode}: geometric mean leafgrad/torch {mean:.2f}x over {len(ratios)} ops;"
                     " furthest: " + ", ".join(f"{key.split('/')[0]} {ratios[key]:.1f}x"
                                               for key in furthest))
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run (few, short repeats)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/torch threads (default 1)")
    parser.add_argument("--mode", default="both", choices=("fwd", "fwd+bwd", "both"))
    parser.add_argument("--ops", default=",".join(OPS), help="comma-separated op names")
    parser.add_argument("--json", metavar="PATH", help="also write results as JSON to PATH")
    parser.add_argument("--profile", metavar="OP", help="cProfile leafgrad's OP (fwd+bwd mode "
                        "with --mode fwd+bwd) instead of timing")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time CPU time of the timing thread (a loaded machine)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    ops = [op.strip() for op in args.ops.split(",") if op.strip()]
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        print(f"unknown op(s): {', '.join(unknown)}; known: {', '.join(OPS)}")
        return 2
    modes = ["fwd", "fwd+bwd"] if args.mode == "both" else [args.mode]
    if args.cpu_time:
        _harness.clock = time.thread_time
    repeats = 2 if args.quick else 5
    target_s = 0.002 if args.quick else 0.05
    libs = _harness.load_libs(args.threads)
    if args.profile:
        mode = modes[-1] if args.mode != "both" else "fwd"
        fn = _lib_call(libs["leafgrad"], args.profile, _data(), mode)
        print(_harness.profile(lambda: [fn() for _ in range(1000)], top=30))
        return 0
    cases = build_cases(libs, ops, modes)
    info = _harness.machine_info(args.threads)
    _harness.print_header(
        "bench_ops: per-op cost on 64-element float32 tensors, leafgrad vs torch vs NumPy",
        info, libs, args.threads, repeats, target_s, args.quick,
        extra="CPU time; " if args.cpu_time else "")
    results = _harness.time_cases(cases, repeats, target_s, args.quick)
    text, _ = _harness.report(cases, results, {}, label_width=26, targets_heading="")
    print(text.rstrip())
    print()
    print(summary(cases, results))
    if args.json:
        _harness.write_json(args.json, {"machine": info,
                                        "cases": _harness.cases_json(cases, results)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
