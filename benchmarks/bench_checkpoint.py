"""Activation checkpointing: peak memory and time of a 32-layer MLP forward+backward, with and
without checkpointing; leafgrad, torch and a hand-written NumPy version side by side.

Model: 32 x (Linear(W, W) + ReLU), then .sum(); batch B, float32. Modes:
  plain        no checkpointing (each layer keeps its input and its ReLU output for backward)
  seq8         checkpoint_sequential(model, 8 segments, use_reentrant=False): only segment
               inputs are kept; each segment is recomputed during backward
  seq8-reent   the same with use_reentrant=True
The NumPy version of seq8 does what checkpoint_sequential does, by hand: the first 7
segments keep only their inputs and are recomputed before backpropagating through them; the
last segment keeps its activations.

Memory, in a fresh child process after one warm-up step: "held" is what the forward leaves
allocated (the graph's saved tensors: what checkpointing is for), "peak" the highest point
during forward+backward (parameter gradients included), both relative to before the forward.
Two ways of measuring each:
  rss     resident set size (peak: VmHWM, reset through /proc/self/clear_refs); sees every
          allocator, so it is the figure comparable across leafgrad, torch and NumPy (page
          granularity; the allocators may keep freed memory, so it can read high)
  traced  tracemalloc (NumPy reports its buffers to it; torch's CPU allocator does not, so
          torch shows n/a)

Usage: python benchmarks/bench_checkpoint.py [--quick] [--threads N] [--json PATH]
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
import subprocess  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

LAYERS = 32
SEGMENTS = 8
FULL = {"width": 256, "batch": 1024}  # activations (1 MB a layer) outweigh weights
QUICK = {"width": 64, "batch": 16}
MODES = ("plain", "seq8", "seq8-reent")


# -- the three implementations ------------------------------------------------------------------
def make_weights(width: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    bound = 1 / np.sqrt(width)
    return [(rng.uniform(-bound, bound, (width, width)).astype(np.float32),
             rng.uniform(-bound, bound, width).astype(np.float32)) for _ in range(LAYERS)]


def make_input(width: int, batch: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((batch, width)).astype(np.float32)


def lib_step(lib, weights, x_array, mode: str):
    """Build the model once; return a callable running one forward+backward (grads cleared)."""
    checkpoint = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    nn = lib.nn
    layers = []
    for w, b in weights:
        linear = nn.Linear(w.shape[1], w.shape[0])
        with lib.no_grad():
            linear.weight.copy_(lib.tensor(w))
            linear.bias.copy_(lib.tensor(b))
        layers += [linear, nn.ReLU()]
    model = nn.Sequential(*layers)
    x = lib.tensor(x_array, requires_grad=True)

    def forward():
        if mode == "plain":
            return model(x).sum()
        return checkpoint.checkpoint_sequential(model, SEGMENTS, x,
                                                use_reentrant=mode == "seq8-reent").sum()

    def backward(loss):
        loss.backward()
        grads = x.grad, [p.grad for p in model.parameters()]
        model.zero_grad(set_to_none=True)  # the caller holds the grads while it wants them
        x.grad = None
        return grads

    return forward, backward


def numpy_step(weights, x_array, mode: str):
    def forward(value, start, stop, keep):
        for w, b in weights[start:stop]:
            keep.append(value)  # Linear's input
            value = np.maximum(value @ w.T + b, 0)
            keep.append(value)  # ReLU's output
        return value

    def backward(grad, start, stop, kept):
        grads = {}
        for index in range(stop - 1, start - 1, -1):
            w, _ = weights[index]
            relu_out = kept.pop()  # freed as soon as used, as the engines free saved values
            inputs = kept.pop()
            grad = grad * (relu_out > 0)
            grads[index] = (grad.T @ inputs, grad.sum(0))
            grad = grad @ w
        return grad, grads

    size = LAYERS // SEGMENTS
    starts = list(range(0, LAYERS, size))

    def step_forward():
        if mode == "plain":
            kept = []
            return forward(x_array, 0, LAYERS, kept), kept
        # as checkpoint_sequential: every segment but the last keeps only its input
        inputs, value = [], x_array
        for start in starts[:-1]:
            inputs.append(value)
            value = forward(value, start, start + size, [])
        last = []
        return forward(value, starts[-1], LAYERS, last), (inputs, last)

    def step_backward(state):
        out, kept = state
        del state
        if mode == "plain":
            return backward(np.ones_like(out), 0, LAYERS, kept)
        inputs, last = kept
        grad, grads = backward(np.ones_like(out), starts[-1], LAYERS, last)
        for start in reversed(starts[:-1]):
            recomputed = []
            forward(inputs.pop(), start, start + size, recomputed)
            grad, segment_grads = backward(grad, start, start + size, recomputed)
            grads.update(segment_grads)
        return grad, grads

    return step_forward, step_backward


def build_parts(impl: str, mode: str, width: int, batch: int, threads: int):
    """(forward, backward): ``backward(forward())`` is one training step's gradients."""
    weights, x_array = make_weights(width), make_input(width, batch)
    if impl == "numpy":
        return numpy_step(weights, x_array, mode)
    lib = importlib.import_module(impl)
    if impl == "torch":
        lib.set_num_threads(threads)
    return lib_step(lib, weights, x_array, mode)


def build(impl: str, mode: str, width: int, batch: int, threads: int):
    forward, backward = build_parts(impl, mode, width, batch, threads)
    return lambda: backward(forward())


# -- memory (child process) -----------------------------------------------------------------------
def _status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def measure_memory(impl: str, mode: str, width: int, batch: int, threads: int) -> dict:
    forward, backward = build_parts(impl, mode, width, batch, threads)
    backward(forward())  # warm-up: lazy imports, allocator pools
    result = {}
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # reset VmHWM to the current RSS
    before = _status_kb("VmRSS")
    state = forward()
    result["held_rss"] = (_status_kb("VmRSS") - before) * 1024
    backward(state)
    del state
    result["peak_rss"] = (_status_kb("VmHWM") - before) * 1024
    tracemalloc.start()
    state = forward()
    result["held_traced"] = tracemalloc.get_traced_memory()[0]
    backward(state)
    del state
    result["peak_traced"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    if impl == "torch":  # its allocator does not report to tracemalloc
        result["held_traced"] = result["peak_traced"] = None
    return result


def memory_in_child(impl: str, mode: str, width: int, batch: int, threads: int) -> dict:
    return memory_in_children([(impl, mode)], width, batch, threads)[0]


def memory_in_children(pairs: list, width: int, batch: int, threads: int) -> list:
    """``measure_memory`` of each ``(impl, mode)`` in one fresh process (the full run gives
    each pair its own; --quick measures all in one, its figures are not meaningful)."""
    child = ",".join(f"{impl}:{mode}" for impl, mode in pairs)
    command = [sys.executable, __file__, "--child", child, "--width", str(width),
               "--batch", str(batch), "--threads", str(threads)]
    # A fixed mmap threshold: glibc otherwise raises it after the warm-up frees its buffers,
    # keeps later ones in its heap and RSS stops following what is allocated.
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TRIM_THRESHOLD_="0")
    run = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


# -- main -----------------------------------------------------------------------------------------
def _mb(value) -> str:
    return "n/a" if value is None else f"{value / 2**20:.1f} MB"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, smoke run")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--width", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.child:  # "impl:mode" or several, comma-separated: one JSON list, in that order
        pairs = [pair.split(":") for pair in args.child.split(",")]
        print(json.dumps([measure_memory(impl, mode, args.width, args.batch, args.threads)
                          for impl, mode in pairs]))
        return 0
    sizes = QUICK if args.quick else FULL
    width, batch = sizes["width"], sizes["batch"]
    impls = ["leafgrad", "numpy"]
    try:
        importlib.import_module("torch")
        impls.insert(1, "torch")
    except ImportError:
        pass
    info = _harness.machine_info(args.threads)
    print(f"bench_checkpoint: {LAYERS} x (Linear({width}, {width}) + ReLU), batch {batch}, "
          f"float32, forward+backward; threads {args.threads}, {info['cpu_count']} cpus"
          + (", QUICK (smoke run, figures not meaningful)" if args.quick else ""), flush=True)

    if args.quick:  # one child process for every measurement (a smoke run)
        pairs = [(impl, mode) for mode in MODES for impl in impls]
        found = iter(memory_in_children(pairs, width, batch, args.threads))
        memory = {mode: {impl: next(found) for impl in impls} for mode in MODES}
    else:
        memory = {mode: {impl: memory_in_child(impl, mode, width, batch, args.threads)
                         for impl in impls} for mode in MODES}
    cases = {mode: {"label": mode, "unit": "per step",
                    "fns": {impl: build(impl, mode, width, batch, args.threads)
                            for impl in impls}} for mode in MODES}
    timings = {mode: _harness.time_interleaved(case["fns"], repeats=2 if args.quick else 5,
                                               target_s=0.01 if args.quick else 0.5,
                                               warmup=1)
               for mode, case in cases.items()}
    text, _ = _harness.report(cases, timings, {}, targets_heading="")
    print(text.rstrip())

    headers = ["mode"] + impls
    for title, key in (("memory held after the forward (what the graph keeps)", "held"),
                       ("peak memory of forward+backward", "peak")):
        print(f"\n{title}: rss / traced (see the module docstring)")
        rows = [[mode] + [f"{_mb(memory[mode][impl][key + '_rss'])} / "
                          f"{_mb(memory[mode][impl][key + '_traced'])}" for impl in impls]
                for mode in MODES]
        print(_harness.format_table(headers, rows))
    print("\nwith checkpointing / without: held and peak memory (rss), time")
    for mode in MODES[1:]:
        parts = []
        for impl in impls:
            with_, without = memory[mode][impl], memory["plain"][impl]
            held = with_["held_rss"] / max(without["held_rss"], 1)
            peak = with_["peak_rss"] / max(without["peak_rss"], 1)
            slower = timings[mode][impl].median / timings["plain"][impl].median
            parts.append(f"{impl} {held:.2f}x / {peak:.2f}x / {slower:.2f}x")
        print(f"{mode:<11} " + "; ".join(parts))
    if args.json:
        _harness.write_json(args.json, {
            "machine": info, "width": width, "batch": batch, "memory": memory,
            "timings": {mode: {impl: t.as_dict() for impl, t in result.items()}
                        for mode, result in timings.items()},
        })
    return 0


if __name__ == "__main__":
    sys.exit(main())
