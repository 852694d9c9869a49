"""Eager cost per op (issue 10, item 1): leafgrad vs torch vs hand-written NumPy, side by side.

Cases
  chain1, chain64  a 2,000-op chain of the 4-op cycle ``y = y * w; y = y + b; y = tanh(y);
                   y = y * 1.7`` from a leaf ``x``, with leaves ``w``, ``b`` (same shape as x)
                   used, and so accumulating a gradient, every cycle; then ``y.sum().backward()``.
                   float32, 1 and 64 elements. Reported per op: (forward + backward) / 2000.
  hessian          the Hessian of ``(tanh(A @ x) ** 2).sum()``, n = 64, float64: one
                   ``autograd.grad(f, x, create_graph=True)`` then 64 calls
                   ``autograd.grad(g[i], x, retain_graph=True)``, one row each.
  big              the same chain with 100,000 ops (1 element) in a fresh process per library
                   (only that library imported): forward time, backward time, peak RSS growth
                   (VmHWM after, reset before the chain, minus VmRSS before) and, in a second
                   process, tracemalloc's peak (Python-allocator memory only: torch's tensors
                   live outside its view, so its figure reads n/a). Median of --big-runs runs.

The NumPy baselines are the same math with the reverse pass written by hand.
Targets (issue 10): chain1, chain64 <= 1.2x torch; big time <= 1.2x torch, big peak RSS
<= 1.0x torch; hessian <= 1.5x torch.

Usage: python benchmarks/bench_chain.py [--quick] [--threads N] [--cases chain1,hessian,big]
                                        [--json PATH] [--profile CASE] [--cpu-time]
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

CHAIN_OPS = 2000
BIG_OPS = 100_000
CHAIN_SIZES = (1, 64)
HESSIAN_SIZE = 64
SCALE = 1.7
CASE_KEYS = ("chain1", "chain64", "hessian", "big")
TARGETS = {
    "chain1": ("torch", 1.2),
    "chain64": ("torch", 1.2),
    "hessian": ("torch", 1.5),
    "big": ("torch", 1.2),
}
BIG_MEMORY_TARGET = 1.0


# ----------------------------------------------------------------------------------------- chain


def chain_data(size: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, w, b) float32. With |w| < 1 and the tanh, y stays in [-1.7, 1.7] for any length."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size).astype(np.float32)
    w = rng.uniform(0.5, 0.9, size).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, size).astype(np.float32)
    return x, w, b


def chain_forward(x, w, b, n_ops: int):
    """The chain with a torch-like library (also used in the fresh-process run)."""
    y = x
    for _ in range(n_ops // 4):
        y = y * w
        y = y + b
        y = y.tanh()
        y = y * SCALE
    return y


def chain_lib(lib, x, w, b, n_ops: int):
    """Forward + backward; .grad of the leaves is reset first so every call does equal work."""
    x.grad = w.grad = b.grad = None
    total = chain_forward(x, w, b, n_ops).sum()
    total.backward()
    return total


def chain_numpy(x: np.ndarray, w: np.ndarray, b: np.ndarray, n_ops: int):
    """Returns (sum of the output, grad x, grad w, grad b), the reverse pass by hand."""
    inputs, outputs = [], []  # each cycle's y (for w's grad) and tanh's output
    y = x
    for _ in range(n_ops // 4):
        inputs.append(y)
        t = np.tanh(y * w + b)
        outputs.append(t)
        y = t * SCALE
    total = y.sum()
    grad = np.ones_like(y)
    grad_w = np.zeros_like(w)
    grad_b = np.zeros_like(b)
    for y_in, t in zip(reversed(inputs), reversed(outputs)):
        grad = grad * SCALE
        grad = grad * (1 - t * t)
        grad_b += grad
        grad_w += grad * y_in
        grad = grad * w
    return total, grad, grad_w, grad_b


# --------------------------------------------------------------------------------------- hessian


def hessian_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((HESSIAN_SIZE, HESSIAN_SIZE)) / np.sqrt(HESSIAN_SIZE)
    return a, rng.standard_normal(HESSIAN_SIZE)


def hessian_lib(lib, a, x):
    """Row by row: one create_graph grad, then one autograd.grad per row."""
    loss = (lib.tanh(a @ x) ** 2).sum()
    (grad,) = lib.autograd.grad(loss, x, create_graph=True)
    rows = [lib.autograd.grad(grad[i], x, retain_graph=True)[0] for i in range(x.shape[0])]
    return lib.stack(rows)


def hessian_numpy(a, x):
    # f = sum(t^2), t = tanh(A x): H = A^T diag(2 (1 - t^2)(1 - 3 t^2)) A
    t = np.tanh(a @ x)
    s = 1 - t * t
    return a.T @ ((2 * s * (1 - 3 * t * t))[:, None] * a)


# ---------------------------------------------------------------------- the 100,000-op chain


def _status(field: str) -> int:
    """A /proc/self/status memory figure in bytes (Linux)."""
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")  # resets VmHWM to the current RSS
        return True
    except OSError:
        return False


def big_child(impl: str, n_ops: int, traced: bool, cpu_time: bool = False) -> dict:
    """Run in a fresh process: the big chain once, timed (or traced), for one implementation."""
    import gc
    import tracemalloc

    clock = time.thread_time if cpu_time else time.perf_counter

    x0, w0, b0 = chain_data(1)
    if impl == "numpy":
        run_forward = None
    else:
        lib = importlib.import_module(impl)
        if impl == "torch":
            lib.set_num_threads(1)
        x = lib.tensor(x0, requires_grad=True)
        w = lib.tensor(w0, requires_grad=True)
        b = lib.tensor(b0, requires_grad=True)
        chain_lib(lib, x, w, b, 400)  # warm-up: lazy imports, first-call caches
        x.grad = w.grad = b.grad = None
    gc.collect()
    result = {"impl": impl}
    if traced:
        tracemalloc.start()
    else:
        result["peak_reset"] = _reset_peak_rss()
        rss_before = _status("VmRSS")
    start = clock()
    if impl == "numpy":
        chain_numpy(x0, w0, b0, n_ops)
        forward_s = None
    else:
        total = chain_forward(x, w, b, n_ops).sum()
        forward_s = clock() - start
        total.backward()
        del total
    result["total_s"] = clock() - start
    result["forward_s"] = forward_s
    if traced:
        result["traced_peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    else:
        result["rss_peak_growth"] = _status("VmHWM") - rss_before
    return result


def run_big(impls: list[str], n_ops: int, runs: int, traced: bool = True,
            cpu_time: bool = False) -> dict:
    """{impl: {'total_s', 'forward_s', 'rss', 'traced'}} medians over ``runs`` fresh processes."""
    here = os.path.dirname(os.path.abspath(__file__))
    samples: dict = {impl: [] for impl in impls}
    for _ in range(runs):
        for impl in impls:  # interleaved, so drift hits every implementation alike
            samples[impl].append(_spawn(here, impl, n_ops, traced=False, cpu_time=cpu_time))
    out = {}
    for impl, rows in samples.items():
        forward = [r["forward_s"] for r in rows if r["forward_s"] is not None]
        out[impl] = {
            "total_s": statistics.median(r["total_s"] for r in rows),
            "forward_s": statistics.median(forward) if forward else None,
            "rss": statistics.median(r["rss_peak_growth"] for r in rows),
            "traced": None,
            "runs": rows,
        }
        if traced and impl != "torch":
            out[impl]["traced"] = _spawn(here, impl, n_ops, traced=True)["traced_peak"]
    return out


def _spawn(here: str, impl: str, n_ops: int, traced: bool, cpu_time: bool = False) -> dict:
    code = (
        "import sys, json; sys.path.insert(0, %r); import bench_chain; "
        "print(json.dumps(bench_chain.big_child(%r, %d, %r, %r)))"
        % (here, impl, n_ops, traced, cpu_time)
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ), check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"big chain child ({impl}) failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def big_report(results: dict, n_ops: int) -> tuple[str, list[dict]]:
    rows = []
    for impl, r in results.items():
        fwd = r["forward_s"]
        rows.append([
            impl,
            _harness.format_seconds(r["total_s"]),
            _harness.format_seconds(r["total_s"] / n_ops),
            "n/a" if fwd is None else _harness.format_seconds(fwd / n_ops),
            f"{r['rss'] / 2**20:.1f} MiB",
            "n/a" if r["traced"] is None else f"{r['traced'] / 2**20:.1f} MiB",
        ])
    table = _harness.format_table(
        ["impl", "fwd+bwd", "per op", "fwd per op", "peak RSS growth", "tracemalloc peak"], rows)
    verdicts, lines = [], []
    lg, th = results.get("leafgrad"), results.get("torch")
    if lg and th:
        time_ratio = lg["total_s"] / th["total_s"]
        mem_ratio = lg["rss"] / th["rss"] if th["rss"] > 0 else float("inf")
        fwd_ratio = lg["forward_s"] / th["forward_s"]
        for what, value, limit in (("time", time_ratio, TARGETS["big"][1]),
                                   ("peak RSS", mem_ratio, BIG_MEMORY_TARGET)):
            verdict = "PASS" if value <= limit else "MISS"
            verdicts.append({"case": f"big {what}", "ratio": "leafgrad/torch",
                             "median_ratio": value, "target": limit, "verdict": verdict})
            lines.append(f"{n_ops}-op chain {what:<9} leafgrad/torch {value:.2f}x  "
                         f"target <= {limit}x  {verdict}")
        lines.append(f"{n_ops}-op chain forward   leafgrad/torch {fwd_ratio:.2f}x  (no target)")
    text = "\n".join(["", f"{n_ops}-op chain, 1 element, fresh process each (median of runs):",
                      table, "", *lines])
    return text, verdicts


# ---------------------------------------------------------------------------------------- driver


def build_cases(libs: dict, chain_ops: int) -> dict[str, dict]:
    cases = {}
    for size in CHAIN_SIZES:
        x, w, b = chain_data(size)
        fns = {}
        for name, lib in libs.items():
            if lib is not None:
                leaves = [lib.tensor(v, requires_grad=True) for v in (x, w, b)]
                fns[name] = lambda lib=lib, leaves=leaves: chain_lib(lib, *leaves, chain_ops)
        fns["numpy"] = lambda x=x, w=w, b=b: chain_numpy(x, w, b, chain_ops)
        cases[f"chain{size}"] = {"label": f"chain fwd+bwd, {size} elem", "unit": "per op",
                                 "divisor": chain_ops, "fns": fns}
    a, x = hessian_data()
    fns = {}
    for name, lib in libs.items():
        if lib is not None:
            fns[name] = (lambda lib=lib, a=lib.tensor(a), x=lib.tensor(x, requires_grad=True):
                         hessian_lib(lib, a, x))
    fns["numpy"] = lambda a=a, x=x: hessian_numpy(a, x)
    cases["hessian"] = {"label": f"hessian by rows, n={HESSIAN_SIZE}", "unit": "per call",
                        "divisor": 1, "fns": fns}
    return cases


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run (few, short repeats)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/torch threads (default 1)")
    parser.add_argument("--json", metavar="PATH", help="also write results as JSON to PATH")
    parser.add_argument("--repeats", type=int, help="timed blocks per implementation")
    parser.add_argument("--target", type=float, help="seconds one timed block should last")
    parser.add_argument("--big-runs", type=int, help="fresh processes per library for 'big'")
    parser.add_argument("--cases", default=",".join(CASE_KEYS),
                        help="comma-separated subset of " + ",".join(CASE_KEYS))
    parser.add_argument("--cpu-time", action="store_true",
                        help="time CPU time of the timing thread instead of wall time (for a "
                             "loaded machine; one-thread torch and NumPy work on that thread)")
    parser.add_argument("--profile", metavar="CASE",
                        help="instead of timing, cProfile leafgrad on CASE (top 25 by tottime)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.cpu_time:
        _harness.clock = time.thread_time
    chain_ops = 200 if args.quick else CHAIN_OPS
    big_ops = 2000 if args.quick else BIG_OPS
    repeats = args.repeats or (2 if args.quick else 7)
    target_s = args.target or (0.005 if args.quick else 0.2)
    big_runs = args.big_runs or (1 if args.quick else 3)
    libs = {"leafgrad": importlib.import_module("leafgrad")}
    try:
        libs["torch"] = importlib.import_module("torch")
        libs["torch"].set_num_threads(args.threads)
    except ImportError:
        libs["torch"] = None
    cases = build_cases(libs, chain_ops)
    wanted = [key.strip() for key in args.cases.split(",") if key.strip()]
    unknown = [key for key in wanted if key not in CASE_KEYS]
    if unknown or (args.profile and args.profile not in cases):
        print(f"unknown case(s): {', '.join(unknown or [args.profile])}; "
              f"known: {', '.join(CASE_KEYS)}")
        return 2
    if args.profile:
        case = cases[args.profile]
        print(f"cProfile of leafgrad on {case['label']}, 5 calls")
        print(_harness.profile(case["fns"]["leafgrad"], calls=5, top=25))
        return 0

    info = _harness.machine_info(args.threads)
    info["torch"] = libs["torch"].__version__ if libs["torch"] is not None else None
    print("bench_chain: leafgrad vs torch vs hand-written NumPy\n"
          f"python {info['python']}, numpy {info['numpy']}, torch {info['torch']}; "
          f"{info['cpu_count']} cpus, threads {args.threads}\n"
          f"chain ops {chain_ops}, big chain ops {big_ops} x {big_runs} runs, repeats {repeats}, "
          f"block {target_s:g} s" + (", CPU time of the timing thread" if args.cpu_time else "")
          + (", QUICK (smoke run, figures not meaningful)"
                                     if args.quick else ""), flush=True)
    results = {}
    timed = [key for key in wanted if key != "big"]
    for key in timed:
        results[key] = _harness.time_interleaved(cases[key]["fns"], repeats=repeats,
                                                 target_s=target_s, warmup=1 if args.quick else 2)
    payload = {"machine": info, "cases": {}, "targets": []}
    if timed:
        text, verdicts = _harness.report({key: cases[key] for key in timed}, results,
                                         {k: v for k, v in TARGETS.items() if k in timed},
                                         label_width=26)
        print(text, flush=True)
        payload["targets"] += verdicts
        for key in timed:
            payload["cases"][key] = {name: t.as_dict() for name, t in results[key].items()}
    if "big" in wanted:
        impls = [name for name, lib in libs.items() if lib is not None] + ["numpy"]
        big = run_big(impls, big_ops, big_runs, cpu_time=args.cpu_time)
        text, verdicts = big_report(big, big_ops)
        print(text)
        payload["targets"] += verdicts
        payload["cases"]["big"] = big
    if args.json:
        _harness.write_json(args.json, payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
