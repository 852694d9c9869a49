"""torch.func benchmark: per-example gradients, leafgrad vs torch.func vs hand-written NumPy.

Cases
  vmap   per-example gradients of a 784-128-10 ReLU MLP's cross-entropy loss at batch 64
         (float32): vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y). NumPy: the same
         gradients by hand for the whole batch at once (einsum outer products).
  loop   the same gradients by a Python loop of grad(loss) calls, one per example, stacked.
         NumPy: the hand-written gradient of one example, looped.

The issue's target: leafgrad's vmap(grad) at least 5x faster than leafgrad's loop of grad
calls (printed as "loop / vmap"); ratios to torch and NumPy are reported as usual.

Usage: python benchmarks/bench_func.py [--quick] [--threads N] [--json PATH]
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402

import numpy as np  # noqa: E402

SIZES = (784, 128, 10)
BATCH = 64
TARGET_SPEEDUP = 5.0


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH).astype(np.int64)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return x, y, params


def loss_fn(lib):
    functional = lib.nn.functional

    def loss(params, x, y):
        w1, b1, w2, b2 = params
        hidden = functional.linear(x, w1, b1).relu()
        logits = functional.linear(hidden, w2, b2)
        return functional.cross_entropy(logits.unsqueeze(0), y.unsqueeze(0))

    return loss


def per_example_vmap(lib, params, x, y):
    return lib.func.vmap(lib.func.grad(loss_fn(lib)), in_dims=(None, 0, 0))(params, x, y)


def per_example_loop(lib, params, x, y):
    grad = lib.func.grad(loss_fn(lib))
    rows = [grad(params, x[i], y[i]) for i in range(x.shape[0])]
    return tuple(lib.stack([row[k] for row in rows]) for k in range(len(params)))


def _numpy_grads(params, x, y):
    """Per-example gradients for a batch (x: [B, 784]) by hand."""
    w1, b1, w2, b2 = params
    pre = x @ w1.T + b1
    hidden = np.maximum(pre, 0)
    logits = hidden @ w2.T + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=1, keepdims=True)
    dlogits = probs
    dlogits[np.arange(len(y)), y] -= 1
    gw2 = np.einsum("bi,bj->bij", dlogits, hidden)
    dhidden = (dlogits @ w2) * (pre > 0)
    gw1 = np.einsum("bi,bj->bij", dhidden, x)
    return gw1, dhidden, gw2, dlogits


def per_example_numpy(params, x, y):
    return _numpy_grads(params, x, y)


def per_example_numpy_loop(params, x, y):
    rows = [_numpy_grads(params, x[i:i + 1], y[i:i + 1]) for i in range(len(x))]
    return tuple(np.concatenate([row[k] for row in rows]) for k in range(4))


def build_cases(libs: dict) -> dict[str, dict]:
    x, y, params = data()
    cases = {}
    for key, run, run_numpy, label in (
            ("vmap", per_example_vmap, per_example_numpy, "vmap(grad)"),
            ("loop", per_example_loop, per_example_numpy_loop, "loop of grad")):
        fns = {name: (lambda lib=lib, run=run, p=tuple(lib.tensor(w) for w in params),
                      a=lib.tensor(x), b=lib.tensor(y): run(lib, p, a, b))
               for name, lib in libs.items() if lib is not None}
        fns["numpy"] = lambda run_numpy=run_numpy: run_numpy(params, x, y)
        cases[key] = {"label": f"per-example grads, {label}, batch {BATCH}", "unit": "per call",
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
    repeats = 2 if args.quick else 7
    target_s = 0.005 if args.quick else 0.3
    libs = _harness.load_libs(args.threads)
    info = _harness.machine_info(args.threads)
    _harness.print_header(
        "bench_func: per-example gradients, leafgrad vs torch.func vs hand-written NumPy",
        info, libs, args.threads, repeats, target_s, args.quick)
    cases = build_cases(libs)
    results = _harness.time_cases(cases, repeats, target_s, args.quick)
    text, _ = _harness.report(cases, results, {}, targets_heading="")
    print(text.rstrip())
    speedups = {}
    for impl in results["vmap"]:
        speedups[impl] = results["loop"][impl].median / results["vmap"][impl].median
        print(f"loop / vmap, {impl}: {speedups[impl]:.1f}x")
    verdict = "PASS" if speedups["leafgrad"] >= TARGET_SPEEDUP else "FAIL"
    print(f"target: leafgrad loop / vmap >= {TARGET_SPEEDUP:g}x  {verdict}")
    if args.json:
        _harness.write_json(args.json, {
            "machine": info,
            "cases": _harness.cases_json(cases, results),
            "loop_over_vmap": speedups,
        })
    return 0


if __name__ == "__main__":
    sys.exit(main())
