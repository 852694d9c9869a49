"""autograd.functional benchmark: leafgrad vs torch vs a hand-written NumPy Hessian.

Case
  hessian   autograd.functional.hessian of f(x) = sum(tanh(A x) ** 2), 64 inputs, float64,
            the same call in leafgrad and torch, with vectorize=False (one autograd.grad per
            row through the gradient's graph) and vectorize=True (torch: one batched
            backward under vmap; leafgrad: _batched_vjp, a loop until branch func's batched
            grad is routed in). NumPy: the analytic Hessian A^T diag(2 s (1 - 3 t^2)) A,
            t = tanh(A x), s = 1 - t^2.

The issue's target (issue 7): vectorize=True at most 1.5x torch's time.

Usage: python benchmarks/bench_functional.py [--quick] [--threads N] [--json PATH] [--profile]
"""

from __future__ import annotations

import sys

import _harness

if __name__ == "__main__":
    _harness.pin_threads(_harness.threads_from_argv(sys.argv))

import argparse  # noqa: E402

import numpy as np  # noqa: E402

SIZE = 64
TARGETS = {"hessian_vec": ("torch", 1.5)}


def data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((SIZE, SIZE)) / np.sqrt(SIZE)
    return a, rng.standard_normal(SIZE)


def hessian_lib(lib, a, x, vectorize: bool):
    def f(v):
        return ((a @ v).tanh() ** 2).sum()

    return lib.autograd.functional.hessian(f, x, vectorize=vectorize)


def hessian_numpy(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    t = np.tanh(a @ x)
    s = 1 - t * t
    return (a.T * (2 * s * (1 - 3 * t * t))) @ a


def build_cases(libs: dict) -> dict[str, dict]:
    a, x = data()
    cases = {}
    for key, vectorize in (("hessian", False), ("hessian_vec", True)):
        fns = {name: (lambda lib=lib, m=lib.tensor(a), v=lib.tensor(x), vec=vectorize:
                      hessian_lib(lib, m, v, vec))
               for name, lib in libs.items() if lib is not None}
        fns["numpy"] = lambda a=a, x=x: hessian_numpy(a, x)
        cases[key] = {"label": f"hessian n={SIZE}, vectorize={vectorize}", "unit": "per call",
                      "divisor": 1, "fns": fns}
    return cases


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke run (few, short repeats)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/torch threads (default 1)")
    parser.add_argument("--json", metavar="PATH", help="also write results as JSON to PATH")
    parser.add_argument("--profile", action="store_true",
                        help="print leafgrad's cProfile for each case instead of timing")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    repeats = 2 if args.quick else 7
    target_s = 0.005 if args.quick else 0.3
    libs = _harness.load_libs(args.threads)
    cases = build_cases(libs)
    if args.profile:
        for key, case in cases.items():
            print(f"== {case['label']}")
            print(_harness.profile(case["fns"]["leafgrad"], calls=3, top=30))
        return 0
    info = _harness.machine_info(args.threads)
    _harness.print_header(
        "bench_functional: leafgrad vs torch vs hand-written NumPy (autograd.functional)",
        info, libs, args.threads, repeats, target_s, args.quick)
    results = _harness.time_cases(cases, repeats, target_s, args.quick)
    text, verdicts = _harness.report(cases, results, TARGETS, label_width=34)
    print(text.rstrip())
    if args.json:
        _harness.write_json(args.json, {
            "machine": info,
            "cases": _harness.cases_json(cases, results),
            "targets": verdicts,
        })
    return 0


if __name__ == "__main__":
    sys.exit(main())
