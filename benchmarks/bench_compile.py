"""leafgrad.compile (issue 10): a captured training step replayed as straight-line NumPy, timed
side by side with the same step run eagerly by leafgrad and by torch, and by hand in NumPy.

Cases
  chain1, chain64  a 2,000-op chain of the cycle y = y * w; y = y + b; y = tanh(y); y = y * 1.7
                   (leaves w, b of y's size, gradient accumulated every cycle), forward +
                   backward; time per op. NumPy: the same chain rule written by hand.
  mlp32, mlp512    one SGD step of Linear(784, 256), ReLU, Linear(256, 128), ReLU, Linear(128, 10)
                   with F.cross_entropy and optim.SGD (bench_train.py's step); NumPy by hand.
  digits           one Adam step of examples/digits_cnn.py's CNN on a batch of 32 8x8 images;
                   torch.compile's column where it runs on this machine.
  digits_bn        the same CNN with BatchNorm2d after each convolution and BatchNorm1d after
                   the hidden Linear (training mode: batch statistics, running statistics
                   updated in place every step).
  lstm             one SGD step of nn.LSTM(128, 128) over 32 steps of a batch of 32, loss
                   mean(out ** 2) (bench_train.py's lstm case, whose NumPy column it shares).
  mlp32_model      mlp32's step with only the model compiled, as torch.compile is usually
                   used: ``model = compile(model)``, then the loss, backward() and the
                   optimizer's step run eagerly around it (leafgrad: the forward replays and
                   its results' CompiledFunctionBackward node replays the backward).
  digits_model     the same for the digits CNN (Adam).

Targets (issue 10): chain compiled <= 0.25x torch eager; mlp32 compiled <= 0.9x torch eager;
mlp512 compiled <= 1.05x NumPy.

Usage: python benchmarks/bench_compile.py [--quick] [--threads N] [--cases chain1,mlp32,...]
       [--cpu-time] [--no-torch-compile] [--json PATH]
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402
import importlib  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import bench_train  # noqa: E402

CHAIN_OPS = 2000
TARGETS = {"chain1": ("torch", 0.25), "chain64": ("torch", 0.25), "mlp32": ("torch", 0.9),
           "mlp512": ("numpy", 1.05)}
CASE_KEYS = ("chain1", "chain64", "mlp32", "mlp512", "digits", "digits_bn", "lstm",
             "mlp32_model", "digits_model")
IMPLS = ("compiled", "leafgrad", "torch", "torch.compile", "numpy")


# -- the 4-op chain -------------------------------------------------------------------------------
def chain_data(size: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, size).astype(np.float32)
    w = rng.uniform(0.9, 1.1, size).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, size).astype(np.float32)
    return x, w, b


def chain_step(lib, w, b, n_ops: int):
    cycles = n_ops // 4

    def step(x):
        w.grad = None
        b.grad = None
        y = x
        for _ in range(cycles):
            y = y * w
            y = y + b
            y = lib.tanh(y)
            y = y * 1.7
        y.sum().backward()
        return y

    return step


def chain_numpy(x, w, b, n_ops: int):
    """The chain and its gradients for w and b by hand (tanh's output kept for the backward)."""
    cycles = n_ops // 4
    saved = []
    y = x
    for _ in range(cycles):
        saved.append(y)
        t = np.tanh(y * w + b)
        saved.append(t)
        y = t * np.float32(1.7)
    g = np.ones_like(y)
    grad_w = np.zeros_like(w)
    grad_b = np.zeros_like(b)
    for i in range(cycles - 1, -1, -1):
        t = saved[2 * i + 1]
        g = g * np.float32(1.7)
        g = g * (1 - t * t)
        grad_b += g
        grad_w += g * saved[2 * i]
        g = g * w
    return y, grad_w, grad_b


# -- digits CNN -----------------------------------------------------------------------------------
def digits_bn_model(lib):
    """examples/digits_cnn.py's CNN with batch normalisation after each conv and the hidden
    Linear."""
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.BatchNorm1d(64), nn.ReLU(),
        nn.Linear(64, 10),
    )


def digits_step(lib, batch_norm: bool = False):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    import digits_cnn

    lib.manual_seed(0)
    model = digits_bn_model(lib) if batch_norm else digits_cnn.build_model(lib)
    optimizer = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.random((32, 1, 8, 8)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 32))

    def step(x, y):
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step, (x, y)


def model_step(lib, key: str, wrap):
    """mlp32's or digits' step with ``wrap`` applied to the model only (``lib.compile`` or
    ``torch.compile``; the identity for eager)."""
    if key == "mlp32_model":
        model, optimizer, x, y = bench_train.mlp_parts(lib, 32)
    else:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        "examples"))
        import digits_cnn

        lib.manual_seed(0)
        model = digits_cnn.build_model(lib)
        optimizer = lib.optim.Adam(model.parameters(), lr=1e-3)
        rng = np.random.default_rng(0)
        x = lib.tensor(rng.random((32, 1, 8, 8)).astype(np.float32))
        y = lib.tensor(rng.integers(0, 10, 32))
    run = wrap(model)
    return bench_train.cross_entropy_step(lib, run, optimizer, x, y), run


# -- building the cases ---------------------------------------------------------------------------
def load_torch():
    try:
        torch = importlib.import_module("torch")
    except ImportError:  # pragma: no cover
        return None
    return torch


def _bind(step, *args):
    return lambda: step(*args)


def _torch_compiled(torch, step, args, notes: list, label: str):
    """torch.compile of ``step``, or None with the reason in ``notes`` when it fails here."""
    try:
        compiled = torch.compile(step)
        start = time.perf_counter()
        compiled(*args)
        compiled(*args)
        notes.append(f"{label}: torch.compile ran (first calls {time.perf_counter() - start:.1f} s)")
        return _bind(compiled, *args)
    except Exception as error:  # noqa: BLE001 - any failure means "does not run here"
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        notes.append(f"{label}: torch.compile failed on this machine: "
                     f"{type(error).__name__}: {first[:160]}")
        return None


def build(leafgrad, torch, wanted, chain_ops: int, torch_compile: bool, notes: list) -> dict:
    cases = {}
    for key in wanted:
        fns = {}
        if key.startswith("chain"):
            size = int(key[5:])
            x, w, b = chain_data(size)
            for name, lib in (("leafgrad", leafgrad), ("torch", torch)):
                if lib is None:
                    continue
                wt, bt = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
                step = chain_step(lib, wt, bt, chain_ops)
                fns[name] = _bind(step, lib.tensor(x))
                if lib is leafgrad:
                    compiled = leafgrad.compile(step)
                    fns["compiled"] = _bind(compiled, lib.tensor(x))
            fns["numpy"] = lambda x=x, w=w, b=b: chain_numpy(x, w, b, chain_ops)
            cases[key] = {"label": f"chain fwd+bwd, {size} elem", "unit": "per op",
                          "divisor": chain_ops, "fns": fns, "compiled": compiled}
        if key in ("mlp32_model", "digits_model"):
            fns["leafgrad"] = model_step(leafgrad, key, lambda m: m)[0]
            fns["compiled"], wrapped = model_step(leafgrad, key, leafgrad.compile)
            compiled = wrapped._compiled_call
            if torch is not None:
                fns["torch"] = model_step(torch, key, lambda m: m)[0]
                if torch_compile:
                    found = _torch_compiled(torch, model_step(torch, key, torch.compile)[0], (),
                                            notes, key)
                    if found is not None:
                        fns["torch.compile"] = found
            if key == "mlp32_model":
                fns["numpy"] = bench_train.mlp_numpy(32)[0]
            label = ("mlp step, b32, model compiled" if key == "mlp32_model"
                     else "digits CNN step, model compiled")
            cases[key] = {"label": label, "unit": "per step", "divisor": 1, "fns": fns,
                          "compiled": compiled}
            continue
        if key.startswith("mlp"):
            batch = int(key[3:])
            fns["leafgrad"] = bench_train.mlp_lib(leafgrad, batch)
            fns["compiled"] = compiled = leafgrad.compile(bench_train.mlp_lib(leafgrad, batch))
            if torch is not None:
                fns["torch"] = bench_train.mlp_lib(torch, batch)
                if torch_compile and key == "mlp32":
                    found = _torch_compiled(torch, bench_train.mlp_lib(torch, batch), (), notes,
                                            key)
                    if found is not None:
                        fns["torch.compile"] = found
            fns["numpy"] = bench_train.mlp_numpy(batch)[0]
            cases[key] = {"label": f"mlp step, batch {batch}", "unit": "per step",
                          "divisor": 1, "fns": fns, "compiled": compiled}
        elif key in ("digits", "digits_bn"):
            bn = key == "digits_bn"
            step, args = digits_step(leafgrad, bn)
            fns["leafgrad"] = _bind(step, *args)
            step, args = digits_step(leafgrad, bn)
            compiled = leafgrad.compile(step)
            fns["compiled"] = _bind(compiled, *args)
            if torch is not None:
                step, args = digits_step(torch, bn)
                fns["torch"] = _bind(step, *args)
                if torch_compile:
                    step, args = digits_step(torch, bn)
                    found = _torch_compiled(torch, step, args, notes, key)
                    if found is not None:
                        fns["torch.compile"] = found
            label = "digits CNN+BatchNorm Adam step, b32" if bn else "digits CNN Adam step, batch 32"
            cases[key] = {"label": label, "unit": "per step",
                          "divisor": 1, "fns": fns, "compiled": compiled}
        elif key == "lstm":
            fns["leafgrad"] = bench_train.lstm_lib(leafgrad)
            fns["compiled"] = compiled = leafgrad.compile(bench_train.lstm_lib(leafgrad))
            if torch is not None:
                fns["torch"] = bench_train.lstm_lib(torch)
            fns["numpy"] = bench_train.lstm_numpy()[0]
            cases[key] = {"label": "LSTM SGD step, 32x32x128", "unit": "per step",
                          "divisor": 1, "fns": fns, "compiled": compiled}
    return cases


def ratio(timings: dict, a: str, b: str) -> float | None:
    if a not in timings or b not in timings:
        return None
    return timings[a].median / timings[b].median


def report(cases: dict, results: dict) -> tuple[str, list]:
    rows = []
    for key, case in cases.items():
        timings, divisor = results[key], case["divisor"]
        cells = [f"{case['label']} ({case['unit']})"]
        for impl in IMPLS:
            t = timings.get(impl)
            cells.append("n/a" if t is None else f"{_harness.format_seconds(t.median / divisor)}")
        for a, b in (("compiled", "torch"), ("compiled", "numpy"), ("leafgrad", "compiled")):
            value = ratio(timings, a, b)
            cells.append("n/a" if value is None else f"{value:.2f}x")
        rows.append(cells)
    table = _harness.format_table(
        ["case", *IMPLS, "compiled/torch", "compiled/numpy", "eager/compiled"], rows)
    verdicts, lines = [], []
    for key, (other, limit) in TARGETS.items():
        if key not in results:
            continue
        value = ratio(results[key], "compiled", other)
        verdict = "n/a" if value is None else ("PASS" if value <= limit else "MISS")
        verdicts.append({"case": key, "ratio": f"compiled/{other}", "median_ratio": value,
                         "target": limit, "verdict": verdict})
        shown = "n/a" if value is None else f"{value:.2f}x"
        lines.append(f"{cases[key]['label']:<30} compiled/{other:<6} {shown:<8} "
                     f"target <= {limit}x  {verdict}")
    text = "\n".join(["", table, "", "times: median over interleaved blocks", "",
                      "targets (ratio of medians):", *lines])
    return text, verdicts


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--cases", default=",".join(CASE_KEYS))
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with the timing thread's CPU time (time.thread_time) instead "
                             "of wall time: on an oversubscribed machine, waiting for a core is "
                             "then not counted (threads are pinned to 1, so CPU time is work)")
    parser.add_argument("--no-torch-compile", action="store_true",
                        help="skip torch.compile (it compiles C++ with gcc on first call)")
    parser.add_argument("--numpy-kernels", action="store_true",
                        help="leafgrad.backends.cpu.mkl_vml = False: leafgrad uses NumPy's BLAS "
                             "and ufuncs, not MKL's as torch calls them (faster where NumPy's "
                             "OpenBLAS beats MKL, e.g. on AMD processors; not torch's bits)")
    parser.add_argument("--no-compiled-loops", action="store_true",
                        help="leafgrad.backends.cpu.compiled_loops = False: replays run the "
                             "NumPy kernels where numba's loops would (same bits)")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    wanted = [k.strip() for k in args.cases.split(",") if k.strip()]
    unknown = [k for k in wanted if k not in CASE_KEYS]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(CASE_KEYS)}")
        return 2
    if args.cpu_time:
        _harness.clock = time.thread_time
    chain_ops = 200 if args.quick else CHAIN_OPS
    repeats = 2 if args.quick else 7
    target_s = 0.005 if args.quick else 0.2
    import leafgrad

    if args.numpy_kernels:
        leafgrad.backends.cpu.mkl_vml = False
    if args.no_compiled_loops:
        leafgrad.backends.cpu.compiled_loops = False
    from leafgrad.ops import _numba_kernels
    torch = load_torch()
    if torch is not None:
        torch.set_num_threads(args.threads)
    notes: list = []
    cases = build(leafgrad, torch, wanted, chain_ops,
                  not (args.quick or args.no_torch_compile), notes)
    info = _harness.machine_info(args.threads)
    print("bench_compile: leafgrad.compile vs eager leafgrad vs torch vs hand-written NumPy")
    print(f"python {info['python']}, numpy {info['numpy']}, "
          f"torch {getattr(torch, '__version__', None)}; {info['cpu_count']} cpus, "
          f"threads {args.threads}; chain ops {chain_ops}, repeats {repeats}, block {target_s:g} s"
          + (", QUICK (smoke run, figures not meaningful)" if args.quick else "")
          + ("; CPU time" if args.cpu_time else "; wall time")
          + ("; leafgrad on NumPy's kernels (mkl_vml off)" if args.numpy_kernels else "")
          + ("; replays with numba's compiled loops" if _numba_kernels.available()
             else "; replays without compiled loops"),
          flush=True)
    results = {}
    for key, case in cases.items():
        results[key] = _harness.time_interleaved(case["fns"], repeats=repeats, target_s=target_s,
                                                 warmup=1 if args.quick else 2)
    text, verdicts = report(cases, results)
    print(text)
    for key, case in cases.items():
        compiled = case["compiled"]
        notes.append(f"{key}: the compiled step was captured {len(compiled.captures)}x and "
                     f"replayed {compiled.replays}x")
    for note in notes:
        print(note)
    if args.json:
        _harness.write_json(args.json, {
            "machine": info, "notes": notes, "targets": verdicts,
            "cases": {key: {"label": case["label"], "unit": case["unit"],
                            "divisor": case["divisor"],
                            "timings": {n: t.as_dict() for n, t in results[key].items()}}
                      for key, case in cases.items()}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
