"""nn benchmark: leafgrad vs torch vs hand-written NumPy on conv/pool and softmax/cross-entropy.

Cases
  cnn64       one SGD training step of a small CNN on 8x8 single-channel float32 images,
              batch 64: conv 1->8 3x3 (padding 1), relu, max_pool2d 2, conv 8->16 3x3
              (padding 1), relu, flatten (16*4*4 = 256), linear -> 10, cross_entropy with
              class indices (mean), backward, optim.SGD step (lr 1e-3). Weights are plain leaf
              tensors; every call does zero_grad (set_to_none), forward, backward, step.
  ce512       F.cross_entropy(logits, targets) forward + backward on 512x1000 float32 logits
              (a leaf whose .grad is reset each call).
  softmax512  F.softmax(logits, dim=1) forward alone on the same logits (still requiring grad,
              so the node that a training step would record is built and its output saved).

All implementations start from the same NumPy arrays (seeded). The NumPy baselines are the
same math, forward and reverse pass written by hand (im2col via sliding_window_view +
tensordot for the convolutions). Target (issue #3): leafgrad within 2x of torch on the CNN
step and on softmax + cross-entropy.

Usage: python benchmarks/bench_nn.py [--quick] [--threads N] [--json PATH] [--cases ...]
       python benchmarks/bench_nn.py --profile cnn64   # cProfile of leafgrad, top 25
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    # BLAS/OpenMP read these once, when NumPy/torch load; set them before those imports.
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

CNN_BATCH = 64
IMAGE = 8
CONV1, CONV2, CLASSES = 8, 16, 10
KERNEL = 3
PADDING = 1  # keeps 8x8 through conv1 and 4x4 through conv2, so the linear layer sees 256
POOL = 2
FLAT = CONV2 * (IMAGE // POOL) ** 2
CE_SHAPE = (512, 1000)
LEARNING_RATE = 1e-3  # small: the weights stay near their init however many steps are timed

# (case key, implementation compared against, maximum leafgrad/that ratio)
TARGETS = {
    "cnn64": ("torch", 2.0),
    "ce512": ("torch", 2.0),
}
CASE_KEYS = ("cnn64", "ce512", "softmax512")


# ------------------------------------------------------------------------------------------ CNN


def cnn_data(batch: int = CNN_BATCH, seed: int = 0):
    """(images, labels, [conv1 w, b, conv2 w, b, fc w, b]) from NumPy.

    Images are float32 (batch, 1, 8, 8) standard normal; labels int64 in [0, 10); weights use
    nn.Conv2d / nn.Linear's default bound 1/sqrt(fan_in), uniform, in torch's layouts.
    """
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 1, IMAGE, IMAGE)).astype(np.float32)
    labels = rng.integers(0, CLASSES, batch).astype(np.int64)
    shapes = [
        ((CONV1, 1, KERNEL, KERNEL), 1 * KERNEL * KERNEL),
        ((CONV2, CONV1, KERNEL, KERNEL), CONV1 * KERNEL * KERNEL),
        ((CLASSES, FLAT), FLAT),
    ]
    params = []
    for weight_shape, fan_in in shapes:
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, weight_shape).astype(np.float32))
        params.append(rng.uniform(-bound, bound, weight_shape[0]).astype(np.float32))
    return x, labels, params


def cnn_forward_lib(F, x, labels, params):
    """The CNN's loss with a torch-like nn.functional module F."""
    w1, b1, w2, b2, w3, b3 = params
    h = F.relu(F.conv2d(x, w1, b1, padding=PADDING))
    h = F.max_pool2d(h, POOL)
    h = F.relu(F.conv2d(h, w2, b2, padding=PADDING))
    logits = F.linear(h.flatten(1), w3, b3)
    return F.cross_entropy(logits, labels)


def cnn_step_lib(F, optimizer, x, labels, params):
    """One training step with a torch-like library. Returns (loss, grads).

    grads are the parameters' .grad tensors (SGD without momentum leaves them untouched).
    """
    optimizer.zero_grad()  # set_to_none: every call does the same work, no accumulation
    loss = cnn_forward_lib(F, x, labels, params)
    loss.backward()
    grads = [p.grad for p in params]
    optimizer.step()
    return loss, grads


def conv2d_numpy(x, w, b, padding):
    """Stride-1 conv2d by im2col. Returns (output N,O,H,W, the window view kept for backward)."""
    kh, kw = w.shape[2:]
    if padding:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    cols = sliding_window_view(x, (kh, kw), axis=(2, 3))  # (N, C, Ho, Wo, kh, kw), no copy
    out = np.tensordot(cols, w, axes=([1, 4, 5], [1, 2, 3]))  # (N, Ho, Wo, O) via BLAS
    out += b
    return out.transpose(0, 3, 1, 2), cols


def conv2d_backward_numpy(g, cols, w, padding, need_input_grad):
    """Grads (input or None, weight, bias) of conv2d_numpy for the output grad g (N,O,Ho,Wo)."""
    grad_w = np.tensordot(g, cols, axes=([0, 2, 3], [0, 2, 3]))  # (O, C, kh, kw)
    grad_b = g.sum((0, 2, 3))
    if not need_input_grad:  # the images do not require grad; torch skips this too
        return None, grad_w, grad_b
    grad_cols = np.tensordot(g, w, axes=([1], [0]))  # (N, Ho, Wo, C, kh, kw)
    n, ho, wo, c, kh, kw = grad_cols.shape
    grad_x = np.zeros((n, c, ho + kh - 1, wo + kw - 1), dtype=g.dtype)
    # col2im: one vectorised add per kernel offset (9), not a loop over pixels
    for i in range(kh):
        for j in range(kw):
            patch = grad_cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
            grad_x[:, :, i : i + ho, j : j + wo] += patch
    if padding:
        grad_x = grad_x[:, :, padding:-padding, padding:-padding]
    return grad_x, grad_w, grad_b


def max_pool2_numpy(x):
    """2x2 / stride 2 max pool. Returns (output, argmax within each window, row-major)."""
    n, c, h, w = x.shape
    windows = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5)
    windows = windows.reshape(n, c, h // 2, w // 2, 4)
    # argmax keeps the first maximum, as torch's kernel does: ties (relu zeros) route alike
    index = windows.argmax(-1)
    out = np.take_along_axis(windows, index[..., None], -1)[..., 0]
    return out, index


def max_pool2_backward_numpy(g, index, input_shape):
    """Scatter g back to each window's argmax."""
    n, c, h, w = input_shape
    grad_windows = np.zeros(index.shape + (4,), dtype=g.dtype)
    np.put_along_axis(grad_windows, index[..., None], g[..., None], -1)
    grad = grad_windows.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    return grad.reshape(input_shape)


def cross_entropy_numpy(logits, labels):
    """Mean cross-entropy with class indices and its gradient w.r.t. logits."""
    rows = np.arange(logits.shape[0])
    shifted = logits - logits.max(1, keepdims=True)
    exp = np.exp(shifted)
    sumexp = exp.sum(1, keepdims=True)
    loss = -(shifted[rows, labels] - np.log(sumexp[:, 0])).mean()
    grad = exp / sumexp  # d loss / d logits = (softmax - onehot) / N
    grad[rows, labels] -= 1
    grad /= logits.shape[0]
    return loss, grad


def softmax_numpy(logits):
    """Row softmax, shifted by the row max so exp cannot overflow."""
    exp = np.exp(logits - logits.max(1, keepdims=True))
    exp /= exp.sum(1, keepdims=True)
    return exp


def cnn_step_numpy(x, labels, params, lr: float = LEARNING_RATE):
    """The same training step as a NumPy programmer would write it. Returns (loss, grads)."""
    w1, b1, w2, b2, w3, b3 = params
    a1, cols1 = conv2d_numpy(x, w1, b1, PADDING)
    r1 = np.maximum(a1, 0)
    p1, index1 = max_pool2_numpy(r1)
    a2, cols2 = conv2d_numpy(p1, w2, b2, PADDING)
    r2 = np.maximum(a2, 0)
    flat = r2.reshape(x.shape[0], -1)
    logits = flat @ w3.T + b3
    loss, grad_logits = cross_entropy_numpy(logits, labels)

    grad_w3 = grad_logits.T @ flat
    grad_b3 = grad_logits.sum(0)
    grad_a2 = (grad_logits @ w3).reshape(r2.shape) * (a2 > 0)  # relu'(0) = 0, as torch
    grad_p1, grad_w2, grad_b2 = conv2d_backward_numpy(grad_a2, cols2, w2, PADDING, True)
    grad_a1 = max_pool2_backward_numpy(grad_p1, index1, r1.shape) * (a1 > 0)
    _, grad_w1, grad_b1 = conv2d_backward_numpy(grad_a1, cols1, w1, PADDING, False)
    grads = [grad_w1, grad_b1, grad_w2, grad_b2, grad_w3, grad_b3]
    for p, grad in zip(params, grads):
        p -= lr * grad
    return loss, grads


# ------------------------------------------------------------------------ softmax/cross-entropy


def ce_data(shape=CE_SHAPE, seed: int = 1):
    """(logits float32, targets int64): logits ~ 3 * N(0, 1), so softmax is not near uniform."""
    rng = np.random.default_rng(seed)
    logits = (3.0 * rng.standard_normal(shape)).astype(np.float32)
    targets = rng.integers(0, shape[1], shape[0]).astype(np.int64)
    return logits, targets


def ce_step_lib(F, logits, targets):
    """Forward + backward of F.cross_entropy; logits is a leaf whose .grad is reset first."""
    logits.grad = None
    loss = F.cross_entropy(logits, targets)
    loss.backward()
    return loss


def softmax_lib(F, logits):
    return F.softmax(logits, dim=1)


# ------------------------------------------------------------------------------------- driver


def load_libraries(leafgrad_module: str) -> dict[str, object]:
    """{'leafgrad': module, 'torch': module or None}. leafgrad must import; torch may not."""
    libs = {"leafgrad": importlib.import_module(leafgrad_module)}
    try:
        libs["torch"] = importlib.import_module("torch")
    except ImportError:  # torch is a test-only dependency; its column then reads n/a
        libs["torch"] = None
    return libs


def lib_parts(lib):
    """(nn.functional, optim.SGD) of a torch-like library module."""
    functional = importlib.import_module(lib.__name__ + ".nn.functional")
    optim = importlib.import_module(lib.__name__ + ".optim")
    return functional, optim.SGD


def build_cases(libs: dict) -> dict[str, dict]:
    """Case key -> {'label', 'unit', 'fns': {impl: zero-arg callable}}."""
    x, labels, params = cnn_data()
    logits_np, targets_np = ce_data()
    cnn_fns, ce_fns, softmax_fns = {}, {}, {}
    for name, lib in libs.items():
        if lib is None:
            continue
        F, SGD = lib_parts(lib)
        lib_params = [lib.tensor(p, requires_grad=True) for p in params]
        optimizer = SGD(lib_params, lr=LEARNING_RATE)
        cnn_args = (F, optimizer, lib.tensor(x), lib.tensor(labels), lib_params)
        cnn_fns[name] = lambda args=cnn_args: cnn_step_lib(*args)
        logits = lib.tensor(logits_np, requires_grad=True)
        targets = lib.tensor(targets_np)
        ce_fns[name] = lambda F=F, logits=logits, targets=targets: ce_step_lib(F, logits, targets)
        softmax_fns[name] = lambda F=F, logits=logits: softmax_lib(F, logits)
    numpy_params = [p.copy() for p in params]
    cnn_fns["numpy"] = lambda: cnn_step_numpy(x, labels, numpy_params)
    ce_fns["numpy"] = lambda: cross_entropy_numpy(logits_np, targets_np)
    softmax_fns["numpy"] = lambda: softmax_numpy(logits_np)
    return {
        "cnn64": {"label": f"cnn step, batch {CNN_BATCH}", "unit": "per step", "fns": cnn_fns},
        "ce512": {"label": "cross_entropy fwd+bwd 512x1000", "unit": "per call", "fns": ce_fns},
        "softmax512": {"label": "softmax fwd 512x1000", "unit": "per call", "fns": softmax_fns},
    }


def report(cases: dict, results: dict) -> tuple[str, list[dict]]:
    """The results table with the target lines, and the target verdicts."""
    heading = "targets (ratio of medians; softmax512 is reported, no target):"
    return _harness.report(cases, results, TARGETS, label_width=30, targets_heading=heading)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run (few, short repeats)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/torch threads (default 1)")
    parser.add_argument("--json", metavar="PATH", help="also write results as JSON to PATH")
    parser.add_argument("--repeats", type=int, help="timed blocks per implementation")
    parser.add_argument("--target", type=float, help="seconds one timed block should last")
    parser.add_argument(
        "--cases", default=",".join(CASE_KEYS),
        help=f"comma-separated subset of {','.join(CASE_KEYS)}",
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
    repeats = args.repeats or (2 if args.quick else 7)
    target_s = args.target or (0.005 if args.quick else 0.2)
    wanted = [key.strip() for key in args.cases.split(",") if key.strip()]
    unknown = [key for key in wanted + [args.profile or CASE_KEYS[0]] if key not in CASE_KEYS]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(CASE_KEYS)}")
        return 2
    libs = load_libraries(args.leafgrad_module)
    if libs["torch"] is not None:
        libs["torch"].set_num_threads(args.threads)
    cases = build_cases(libs)

    if args.profile:
        case = cases[args.profile]
        calls = 20
        # as in timing: objects alive now (torch's import heap) are not this case's garbage,
        # else a collection scanning them lands on whatever leafgrad function allocated last
        gc.collect()
        gc.freeze()
        print(f"cProfile of {args.leafgrad_module} on {case['label']}, {calls} calls")
        print(_harness.profile(case["fns"]["leafgrad"], calls=calls, top=25))
        return 0

    info = _harness.machine_info(args.threads)
    info["torch"] = libs["torch"].__version__ if libs["torch"] is not None else None
    info["leafgrad"] = getattr(libs["leafgrad"], "__version__", "?")
    header = [
        "bench_nn: leafgrad vs torch vs hand-written NumPy"
        + (f" [leafgrad column = {args.leafgrad_module}]" if args.leafgrad_module != "leafgrad"
           else ""),
        f"python {info['python']}, numpy {info['numpy']}, torch {info['torch']}, "
        f"leafgrad {info['leafgrad']}; {info['cpu_count']} cpus, threads {args.threads}",
        f"cnn: 1x{IMAGE}x{IMAGE} images, batch {CNN_BATCH}, conv padding {PADDING}; "
        f"ce: {CE_SHAPE[0]}x{CE_SHAPE[1]}; repeats {repeats}, block {target_s:g} s"
        + (", QUICK (smoke run, figures not meaningful)" if args.quick else ""),
    ]
    print("\n".join(header), flush=True)
    results = {}
    for key in wanted:
        results[key] = _harness.time_interleaved(
            cases[key]["fns"], repeats=repeats, target_s=target_s, warmup=1 if args.quick else 2
        )
    cases = {key: cases[key] for key in wanted}
    text, verdicts = report(cases, results)
    print(text)

    if args.json:
        payload = {
            "machine": info,
            "config": {"cnn_batch": CNN_BATCH, "image": IMAGE, "padding": PADDING,
                       "ce_shape": list(CE_SHAPE), "repeats": repeats, "target_s": target_s,
                       "quick": args.quick, "leafgrad_module": args.leafgrad_module},
            "cases": {
                key: {
                    "label": case["label"],
                    "unit": case["unit"],
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
