"""Core benchmark: leafgrad vs torch vs hand-written NumPy, timed side by side in one run.

Cases
  chain  a 2,000-op elementwise chain (cycle: *1.0001, +0.001, sin, tanh), then
         y.sum().backward(), on a 1-element and a 64-element float32 tensor.
         Reported per op: (forward + backward time) / 2000. Measures per-op dispatch,
         node creation and engine bookkeeping.
  mlp    one training step of a 784-256-128-10 ReLU MLP (float32) at batch 32 and 512:
         forward, log-softmax cross-entropy built from exp/log/sum, backward, SGD update
         under no_grad. Measures copies, temporaries and saved memory on large tensors.
  setitem  (not in the default set: --cases setitem) a tutorial's Python loop over a 10x10
         float32 tensor: t[i, j] = number, t[i] = number, t[i, j] read; per element
         (Note: fast basic indexing, tensor.py).

The NumPy baselines are the same math, forward and reverse pass written by hand.
Targets (issue): chain per-op cost <= 2x torch; batch-512 MLP step <= 1.3x NumPy.

Usage: python benchmarks/bench_core.py [--quick] [--threads N] [--json PATH]
       python benchmarks/bench_core.py --profile chain1   # cProfile of leafgrad, top 25
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    # BLAS/OpenMP read these once, when NumPy/torch load; set them before those imports.
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402
import importlib  # noqa: E402

import numpy as np  # noqa: E402

CHAIN_OPS = 2000
CHAIN_SIZES = (1, 64)
MLP_SIZES = (784, 256, 128, 10)
MLP_BATCHES = (32, 512)
LEARNING_RATE = 1e-3  # small: the weights stay near their init however many steps are timed
MUL, ADD = 1.0001, 0.001

# (case key, implementation compared against, maximum leafgrad/that ratio)
TARGETS = {
    "chain1": ("torch", 2.0),
    "chain64": ("torch", 2.0),
    "mlp512": ("numpy", 1.3),
}


# ----------------------------------------------------------------------------- elementwise chain


def chain_input(size: int, seed: int = 0) -> np.ndarray:
    """Start values in [-1, 1]; the cycle keeps them there, so 2,000 ops stay finite."""
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size).astype(np.float32)


def chain_lib(lib, x, n_ops: int):
    """Forward + backward of the chain with a torch-like library; returns the summed output.

    x is a leaf with requires_grad; its .grad is reset so every call does the same work.
    """
    x.grad = None
    y = x
    for _ in range(n_ops // 4):
        y = y * MUL
        y = y + ADD
        y = y.sin()
        y = y.tanh()
    total = y.sum()
    total.backward()
    return total


def chain_numpy(x: np.ndarray, n_ops: int) -> tuple[np.ndarray, np.ndarray]:
    """The same chain by hand: save sin's input and tanh's output, then apply the chain rule.

    Returns (sum of the output, gradient of that sum with respect to x).
    """
    saved = []
    y = x
    for _ in range(n_ops // 4):
        y = y * MUL
        y = y + ADD
        saved.append(y)  # sin'(u) = cos(u) needs the input
        y = np.sin(y)
        y = np.tanh(y)
        saved.append(y)  # tanh'(u) = 1 - tanh(u)^2 needs only the output
    total = y.sum()
    grad = np.ones_like(y)
    for i in range(len(saved) - 2, -1, -2):
        out = saved[i + 1]
        grad = grad * (1 - out * out)
        grad = grad * np.cos(saved[i])
        grad = grad * MUL  # the +ADD step passes the gradient through unchanged
    return total, grad


# ------------------------------------------------------------------------------------------ MLP


def mlp_data(batch: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """(x, onehot targets, [W1, b1, W2, b2, W3, b3]) as float32, nn.Linear-style uniform init."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, MLP_SIZES[0])).astype(np.float32)
    labels = rng.integers(0, MLP_SIZES[-1], batch)
    onehot = np.eye(MLP_SIZES[-1], dtype=np.float32)[labels]
    params = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return x, onehot, params


def mlp_step_lib(lib, x, onehot, params, lr: float = LEARNING_RATE):
    """One SGD step with a torch-like library, core ops only. Returns (loss, grads).

    grads are the parameters' .grad tensors taken before the update resets them.
    """
    w1, b1, w2, b2, w3, b3 = params
    h1 = (x @ w1 + b1).relu()
    h2 = (h1 @ w2 + b2).relu()
    logits = h2 @ w3 + b3
    # No max op in the core set: shift each row by its max computed outside the graph (a
    # constant shift leaves log-softmax unchanged and keeps exp from overflowing).
    shifted = logits - lib.tensor(logits.detach().numpy().max(1, keepdims=True))
    lse = shifted.exp().sum(1, keepdim=True).log()
    loss = -(onehot * (shifted - lse)).sum() / x.shape[0]
    loss.backward()
    grads = [p.grad for p in params]
    with lib.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
    return loss, grads


def mlp_step_numpy(x, onehot, params, lr: float = LEARNING_RATE):
    """The same step as a NumPy programmer would write it. Returns (loss, grads)."""
    w1, b1, w2, b2, w3, b3 = params
    batch = x.shape[0]
    h1 = x @ w1
    h1 += b1
    np.maximum(h1, 0, out=h1)
    h2 = h1 @ w2
    h2 += b2
    np.maximum(h2, 0, out=h2)
    logits = h2 @ w3
    logits += b3
    shifted = logits - logits.max(1, keepdims=True)
    exp = np.exp(shifted)
    sumexp = exp.sum(1, keepdims=True)
    loss = -(onehot * (shifted - np.log(sumexp))).sum() / batch
    # d loss / d logits = (softmax - onehot) / batch, because each onehot row sums to 1;
    # the detached max gets no gradient, as in the graph version.
    g = exp / sumexp
    g -= onehot
    g /= batch
    dw3 = h2.T @ g
    db3 = g.sum(0)
    dh = g @ w3.T
    dh *= h2 > 0  # relu'(0) = 0, as torch
    dw2 = h1.T @ dh
    db2 = dh.sum(0)
    dh = dh @ w2.T
    dh *= h1 > 0
    dw1 = x.T @ dh
    db1 = dh.sum(0)
    grads = [dw1, db1, dw2, db2, dw3, db3]
    for p, grad in zip(params, grads):
        p -= lr * grad
    return loss, grads


# ------------------------------------------------------------------------------- setitem loop

SETITEM_SIZE = 10


def setitem_loop(t):
    """Writes and reads one element at a time, as tutorials fill a tensor; returns ``t``."""
    for i in range(SETITEM_SIZE):
        t[i] = 0.5
        for j in range(SETITEM_SIZE):
            t[i, j] = i * 0.25 - j
            t[i, j]  # a read: x[i, j] in the loop's condition or print
    return t


# ------------------------------------------------------------------------------------- driver


def load_libraries(leafgrad_module: str) -> dict[str, object]:
    """{'leafgrad': module, 'torch': module or None}. leafgrad must import; torch may not."""
    libs = {"leafgrad": importlib.import_module(leafgrad_module)}
    try:
        libs["torch"] = importlib.import_module("torch")
    except ImportError:  # torch is a test-only dependency; its column then reads n/a
        libs["torch"] = None
    return libs


def build_cases(libs: dict, chain_ops: int) -> dict[str, dict]:
    """Case key -> {'label', 'unit', 'divisor', 'fns': {impl: zero-arg callable}}."""
    cases = {}
    for size in CHAIN_SIZES:
        start = chain_input(size)
        fns = {}
        for name, lib in libs.items():
            if lib is not None:
                leaf = lib.tensor(start, requires_grad=True)
                fns[name] = lambda lib=lib, leaf=leaf: chain_lib(lib, leaf, chain_ops)
        fns["numpy"] = lambda start=start: chain_numpy(start, chain_ops)
        cases[f"chain{size}"] = {
            "label": f"chain fwd+bwd, {size} elem",
            "unit": "per op",
            "divisor": chain_ops,
            "fns": fns,
        }
    for batch in MLP_BATCHES:
        x, onehot, params = mlp_data(batch)
        fns = {}
        for name, lib in libs.items():
            if lib is not None:
                args = (
                    lib.tensor(x),
                    lib.tensor(onehot),
                    [lib.tensor(p, requires_grad=True) for p in params],
                )
                fns[name] = lambda lib=lib, args=args: mlp_step_lib(lib, *args)
        numpy_params = [p.copy() for p in params]
        fns["numpy"] = lambda x=x, onehot=onehot, p=numpy_params: mlp_step_numpy(x, onehot, p)
        cases[f"mlp{batch}"] = {
            "label": f"mlp step, batch {batch}",
            "unit": "per step",
            "divisor": 1,
            "fns": fns,
        }
    fns = {}
    for name, lib in libs.items():
        if lib is not None:
            target = lib.zeros(SETITEM_SIZE, SETITEM_SIZE)
            fns[name] = lambda target=target: setitem_loop(target)
    array = np.zeros((SETITEM_SIZE, SETITEM_SIZE), np.float32)
    fns["numpy"] = lambda: setitem_loop(array)
    cases["setitem"] = {
        "label": "setitem/read loop, 10x10",
        "unit": "per element",
        "divisor": SETITEM_SIZE * SETITEM_SIZE,
        "fns": fns,
    }
    return cases


def report(cases: dict, results: dict) -> tuple[str, list[dict]]:
    """The results table with the target lines, and the target verdicts."""
    return _harness.report(cases, results, TARGETS, label_width=26)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run (few, short repeats)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/torch threads (default 1)")
    parser.add_argument("--json", metavar="PATH", help="also write results as JSON to PATH")
    parser.add_argument("--repeats", type=int, help="timed blocks per implementation")
    parser.add_argument("--target", type=float, help="seconds one timed block should last")
    parser.add_argument(
        "--cases", default=",".join(["chain1", "chain64", "mlp32", "mlp512"]),
        help="comma-separated subset of chain1,chain64,mlp32,mlp512,setitem",
    )
    parser.add_argument(
        "--profile", metavar="CASE",
        help="instead of timing, cProfile leafgrad on CASE (top 25 by tottime)",
    )
    parser.add_argument(
        "--leafgrad-module", default="leafgrad",
        help="module timed in the leafgrad column (sanity check: 'torch' gives ratios ~1)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    chain_ops = 200 if args.quick else CHAIN_OPS
    repeats = args.repeats or (2 if args.quick else 7)
    target_s = args.target or (0.005 if args.quick else 0.2)
    libs = load_libraries(args.leafgrad_module)
    if libs["torch"] is not None:
        libs["torch"].set_num_threads(args.threads)
    cases = build_cases(libs, chain_ops)
    wanted = [key.strip() for key in args.cases.split(",") if key.strip()]
    unknown = [key for key in wanted + [args.profile or "chain1"] if key not in cases]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(cases)}")
        return 2

    if args.profile:
        case = cases[args.profile]
        calls = 5 if args.profile.startswith("chain") else 10
        print(f"cProfile of {args.leafgrad_module} on {case['label']}, {calls} calls")
        print(_harness.profile(case["fns"]["leafgrad"], calls=calls, top=25))
        return 0

    info = _harness.machine_info(args.threads)
    info["torch"] = libs["torch"].__version__ if libs["torch"] is not None else None
    info["leafgrad"] = getattr(libs["leafgrad"], "__version__", "?")
    header = [
        "bench_core: leafgrad vs torch vs hand-written NumPy"
        + (f" [leafgrad column = {args.leafgrad_module}]" if args.leafgrad_module != "leafgrad"
           else ""),
        f"python {info['python']}, numpy {info['numpy']}, torch {info['torch']}, "
        f"leafgrad {info['leafgrad']}; {info['cpu_count']} cpus, threads {args.threads}",
        f"chain ops {chain_ops}, repeats {repeats}, block {target_s:g} s"
        + (", QUICK (smoke run, figures not meaningful)" if args.quick else ""),
    ]
    print("\n".join(header), flush=True)
    results = {}
    for key in wanted:
        fns = cases[key]["fns"]
        results[key] = _harness.time_interleaved(
            fns, repeats=repeats, target_s=target_s, warmup=1 if args.quick else 2
        )
    cases = {key: cases[key] for key in wanted}
    text, verdicts = report(cases, results)
    print(text)

    if args.json:
        payload = {
            "machine": info,
            "config": {"chain_ops": chain_ops, "repeats": repeats, "target_s": target_s,
                       "quick": args.quick, "leafgrad_module": args.leafgrad_module},
            "cases": {
                key: {
                    "label": case["label"],
                    "unit": case["unit"],
                    "divisor": case["divisor"],
                    "timings": {name: t.as_dict() for name, t in results[key].items()},
                    "ratios_median": {
                        f"leafgrad/{other}": _harness.ratio(results, key, other, "median")
                        for other in ("torch", "numpy")
                    },
                }
                for key, case in cases.items()
            },
            "targets": verdicts,
        }
        _harness.write_json(args.json, payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
