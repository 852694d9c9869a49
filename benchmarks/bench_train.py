"""Training-stack benchmark (issue 8): nn modules, optimizers and data loading, leafgrad vs torch
vs hand-written NumPy, timed side by side in one run.

Cases
  mlp32, mlp512  one SGD step of nn.Sequential(Linear(784, 256), ReLU, Linear(256, 128), ReLU,
                 Linear(128, 10)) with F.cross_entropy and optim.SGD (lr 1e-3) at batch 32 / 512.
  cnn64          one SGD step of nn.Sequential(Conv2d(1, 8, 3, padding=1), ReLU, MaxPool2d(2),
                 Conv2d(8, 16, 3, padding=1), ReLU, Flatten, Linear(256, 10)), 8x8, batch 64.
  lstm           one SGD step of nn.LSTM(128, 128) on (32 steps, batch 32), loss mean(out**2).
  digits         one epoch of examples/digits_cnn.py's training (DataLoader batch 32, shuffle,
                 Adam) over its 1,438 training images (no NumPy column).
  memory         peak traced memory (tracemalloc) of the batch-512 MLP forward + backward:
                 leafgrad vs the NumPy version (torch allocates outside tracemalloc's view).

NumPy baselines are the same math, forward and reverse pass written by hand. Targets (issue 8):
mlp32 <= 1.5x torch, mlp512 <= 1.15x NumPy, cnn64 <= 1.5x torch, lstm and digits <= 2x torch,
memory <= 1.5x NumPy.

Usage: python benchmarks/bench_train.py [--quick] [--threads N] [--cases mlp32,lstm,...]
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402
import importlib  # noqa: E402
import os  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

import bench_nn  # noqa: E402

TARGETS = {"mlp32": ("torch", 1.5), "mlp512": ("numpy", 1.15), "cnn64": ("torch", 1.5),
           "lstm": ("torch", 2.0), "digits": ("torch", 2.0)}
CASE_KEYS = ("mlp32", "mlp512", "cnn64", "lstm", "digits", "memory")
LR = 1e-3


# -- MLP ------------------------------------------------------------------------------------------
def mlp_data(batch: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    labels = rng.integers(0, 10, batch).astype(np.int64)
    params = []
    for fan_in, fan_out in ((784, 256), (256, 128), (128, 10)):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return x, labels, params


def mlp_parts(lib, batch):
    """The MLP with mlp_data's weights, its SGD optimizer, and the batch as tensors."""
    x, labels, params = mlp_data(batch)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10))
    with lib.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(lib.tensor(value))
    optimizer = lib.optim.SGD(model.parameters(), lr=LR)
    return model, optimizer, lib.tensor(x), lib.tensor(labels)


def cross_entropy_step(lib, forward, optimizer, x, y):
    """One training step on the batch (x, y): zero_grad, cross-entropy of ``forward(x)``,
    backward, the optimizer's step; returns the loss."""
    cross_entropy = lib.nn.functional.cross_entropy

    def step():
        optimizer.zero_grad()
        loss = cross_entropy(forward(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def mlp_lib(lib, batch):
    model, optimizer, xt, yt = mlp_parts(lib, batch)
    return cross_entropy_step(lib, model, optimizer, xt, yt)


def mlp_numpy(batch):
    x, labels, params = mlp_data(batch)
    w1, b1, w2, b2, w3, b3 = params

    def forward_backward():
        a1 = x @ w1.T + b1
        h1 = np.maximum(a1, 0)
        a2 = h1 @ w2.T + b2
        h2 = np.maximum(a2, 0)
        logits = h2 @ w3.T + b3
        loss, g = bench_nn.cross_entropy_numpy(logits, labels)
        gw3, gb3 = g.T @ h2, g.sum(0)
        g = (g @ w3) * (a2 > 0)
        gw2, gb2 = g.T @ h1, g.sum(0)
        g = (g @ w2) * (a1 > 0)
        gw1, gb1 = g.T @ x, g.sum(0)
        return loss, [gw1, gb1, gw2, gb2, gw3, gb3]

    def step():
        loss, grads = forward_backward()
        for p, grad in zip(params, grads):
            p -= LR * grad
        return loss

    return step, forward_backward


# -- CNN ------------------------------------------------------------------------------------------
def cnn_lib(lib):
    x, labels, params = bench_nn.cnn_data()
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(256, 10))
    with lib.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(lib.tensor(value))
    optimizer = lib.optim.SGD(model.parameters(), lr=LR)
    xt, yt = lib.tensor(x), lib.tensor(labels)

    def step():
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(xt), yt)
        loss.backward()
        optimizer.step()
        return loss

    return step


def cnn_numpy():
    x, labels, params = bench_nn.cnn_data()
    return lambda: bench_nn.cnn_step_numpy(x, labels, params)


# -- LSTM -----------------------------------------------------------------------------------------
STEPS, BATCH, HIDDEN = 32, 32, 128


def lstm_data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((STEPS, BATCH, HIDDEN)).astype(np.float32)
    bound = 1 / np.sqrt(HIDDEN)
    shapes = [(4 * HIDDEN, HIDDEN), (4 * HIDDEN, HIDDEN), (4 * HIDDEN,), (4 * HIDDEN,)]
    return x, [rng.uniform(-bound, bound, s).astype(np.float32) for s in shapes]


def lstm_lib(lib):
    x, params = lstm_data()
    model = lib.nn.LSTM(HIDDEN, HIDDEN)
    with lib.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(lib.tensor(value))
    optimizer = lib.optim.SGD(model.parameters(), lr=LR)
    xt = lib.tensor(x)

    def step():
        optimizer.zero_grad()
        out, _ = model(xt)
        loss = (out * out).mean()
        loss.backward()
        optimizer.step()
        return loss

    return step


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_numpy():
    x, params = lstm_data()
    w_ih, w_hh, b_ih, b_hh = params
    H = HIDDEN

    def forward_backward():
        projected = x @ w_ih.T + b_ih + b_hh
        h = np.zeros((BATCH, H), np.float32)
        c = np.zeros((BATCH, H), np.float32)
        cache, outs = [], []
        for t in range(STEPS):
            gates = projected[t] + h @ w_hh.T
            i, f, o = (_sigmoid(gates[:, :H]), _sigmoid(gates[:, H:2 * H]),
                       _sigmoid(gates[:, 3 * H:]))
            g = np.tanh(gates[:, 2 * H:3 * H])
            c_prev, h_prev = c, h
            c = f * c + i * g
            tc = np.tanh(c)
            h = o * tc
            cache.append((i, f, g, o, tc, c_prev, h_prev))
            outs.append(h)
        out = np.stack(outs)
        loss = (out * out).mean()
        grad_out = 2 * out / out.size
        grad_gates = np.empty((STEPS, BATCH, 4 * H), np.float32)
        gh = np.zeros((BATCH, H), np.float32)
        gc = np.zeros((BATCH, H), np.float32)
        for t in range(STEPS - 1, -1, -1):
            i, f, g, o, tc, c_prev, h_prev = cache[t]
            gh = gh + grad_out[t]
            dc = gc + gh * o * (1 - tc * tc)
            grad_gates[t] = np.concatenate([dc * g * i * (1 - i), dc * c_prev * f * (1 - f),
                                            dc * i * (1 - g * g), gh * tc * o * (1 - o)], 1)
            gh = grad_gates[t] @ w_hh
            gc = dc * f
        flat = grad_gates.reshape(-1, 4 * H)
        hs = np.concatenate([np.zeros((1, BATCH, H), np.float32), out[:-1]]).reshape(-1, H)
        grads = [flat.T @ x.reshape(-1, H), flat.T @ hs, flat.sum(0), flat.sum(0)]
        return loss, grads

    def step():
        loss, grads = forward_backward()
        for p, grad in zip(params, grads):
            p -= LR * grad
        return loss

    return step, forward_backward


# -- digits epoch ---------------------------------------------------------------------------------
def digits_lib(lib):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    import digits_cnn

    lib.manual_seed(0)
    train_set, _ = digits_cnn.load_digits(lib, 0)
    loader = lib.utils.data.DataLoader(train_set, batch_size=32, shuffle=True)
    model = digits_cnn.build_model(lib)
    optimizer = lib.optim.Adam(model.parameters(), lr=3e-3)
    return lambda: digits_cnn.train(lib, model, optimizer, loader, 1, progress=False)


# -- memory ---------------------------------------------------------------------------------------
def peak_memory(fn) -> int:
    fn()  # warm: lazily built state is not part of a step's peak
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def memory_case(leafgrad) -> str:
    x, labels, params = mlp_data(512)
    nn = leafgrad.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10))
    xt, yt = leafgrad.tensor(x), leafgrad.tensor(labels)

    def ours():
        model.zero_grad()
        leafgrad.nn.functional.cross_entropy(model(xt), yt).backward()

    _, numpy_forward_backward = mlp_numpy(512)
    mine, theirs = peak_memory(ours), peak_memory(numpy_forward_backward)
    limit = 1.5
    verdict = "PASS" if mine <= limit * theirs else "MISS"
    return (f"peak memory, MLP batch 512 fwd+bwd: leafgrad {mine / 2**20:.2f} MiB, NumPy "
            f"{theirs / 2**20:.2f} MiB, ratio {mine / theirs:.2f}x (target <= {limit}x) "
            f"{verdict}")


def build(libs, wanted):
    cases = {}
    makers = {
        "mlp32": ("MLP SGD step, batch 32", lambda lib: mlp_lib(lib, 32), lambda: mlp_numpy(32)[0]),
        "mlp512": ("MLP SGD step, batch 512", lambda lib: mlp_lib(lib, 512),
                   lambda: mlp_numpy(512)[0]),
        "cnn64": ("CNN SGD step, batch 64", cnn_lib, cnn_numpy),
        "lstm": ("LSTM SGD step, 32x32x128", lstm_lib, lambda: lstm_numpy()[0]),
        "digits": ("digits CNN epoch (Adam)", digits_lib, None),
    }
    for key in wanted:
        if key not in makers:
            continue
        label, make_lib, make_numpy = makers[key]
        fns = {name: make_lib(lib) for name, lib in libs.items() if lib is not None}
        if make_numpy is not None:
            fns["numpy"] = make_numpy()
        cases[key] = {"label": label, "unit": "per step" if key != "digits" else "per epoch",
                      "fns": fns}
    return cases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cases", default=",".join(CASE_KEYS))
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    repeats = 2 if args.quick else 7
    target_s = 0.005 if args.quick else 0.3
    wanted = [k.strip() for k in args.cases.split(",") if k.strip()]
    libs = {"leafgrad": importlib.import_module("leafgrad")}
    try:
        libs["torch"] = importlib.import_module("torch")
        libs["torch"].set_num_threads(args.threads)
    except ImportError:
        libs["torch"] = None
    info = _harness.machine_info(args.threads)
    print(f"bench_train: python {info['python']}, numpy {info['numpy']}, torch "
          f"{getattr(libs['torch'], '__version__', None)}; threads {args.threads}; repeats "
          f"{repeats}, block {target_s:g} s" + (", QUICK (figures not meaningful)"
                                                 if args.quick else ""), flush=True)
    cases = build(libs, wanted)
    results = {key: _harness.time_interleaved(case["fns"], repeats=repeats, target_s=target_s,
                                              warmup=1 if args.quick else 2)
               for key, case in cases.items()}
    text, _ = _harness.report(cases, results, TARGETS, label_width=28)
    print(text)
    if "memory" in wanted:
        print(memory_case(libs["leafgrad"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
