"""Sweep torch's OpInfo samples for ops m..z, nn.functional.*, special.*, signal.*, torch.* on
leafgrad: forward values of the function, method and in-place variants over leafgrad's dtypes,
and gradients (every input's .grad bitwise, outputs' grad_fn names) for samples that require grad.

    PYTHONPATH=src .venv/bin/python -m tests.opinfo.sweep_m_z [--grads] [--dtypes float64,float32]
        [--ops name,name] [--samples N]

prints one line per differing (op, dtype, variant, sample), grouped by op."""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

import leafgrad
from tests.opinfo import _harness as H

# torch's random ops: their values come from a different stream, so only deterministic ops run
RANDOM = {
    "multinomial", "normal", "rand_like", "randint", "randint_like", "randn", "randn_like",
    "uniform", "bernoulli", "nn.functional.alpha_dropout", "nn.functional.dropout",
    "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.feature_alpha_dropout",
    "nn.functional.rrelu", "nn.functional.fractional_max_pool2d",
    "nn.functional.fractional_max_pool3d", "svd_lowrank", "pca_lowrank", "new_empty",
    "new_empty_strided", "empty_like", "native_dropout_backward",
}
# CUDA-only or internal kernels with no CPU meaning for leafgrad
SKIP = {
    "torch._scaled_mm", "torch._scaled_mm_v2", "torch.ops.aten._efficient_attention_forward",
    "torch.ops.aten._flash_attention_forward", "to_sparse",
}

DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "complex128")


def mine(op) -> bool:
    """This helper's share of op_db: undotted names m..z and the listed namespaces."""
    if "." not in op.name:
        return op.name[0] >= "m"
    return op.name.split(".")[0] in ("nn", "special", "signal", "torch")


def full_name(op) -> str:
    return op.name + (f"/{op.variant_test_name}" if op.variant_test_name else "")


def share():
    return [op for op in H.op_db() if mine(op) and op.name not in SKIP]


def _random_sample(op, sample) -> bool:
    """A sample whose result draws from the RNG (attention's dropout)."""
    if sample.kwargs.get("dropout_p", 0):
        return True
    if op.name == "nn.functional.multi_head_attention_forward":
        training = sample.kwargs.get("training", True)
        return bool(training and len(sample.args) > 9 and sample.args[9])
    return False


def _samples(torch, op, dtype, requires_grad, limit):
    torch.manual_seed(0)
    try:
        samples = op.sample_inputs("cpu", dtype, requires_grad=requires_grad)
        out = []
        for sample in samples:
            out.append(sample)
            if limit is not None and len(out) >= limit:
                break
        return out
    except Exception as error:  # noqa: BLE001
        return error


def _tensors(obj, lib=None):
    """Every tensor in a nested structure, in order."""
    return H.tensors_in(obj)


def _leafify(obj, torch):
    """Torch samples with every grad-requiring non-leaf replaced by a leaf with the same strides
    (leafgrad's converted samples are leaves, so both sides accumulate into the same inputs),
    and every grad-requiring leaf by a fresh one (samples share weights: no .grad carried over)."""
    if isinstance(obj, torch.Tensor):
        if obj.requires_grad:
            return obj.detach().requires_grad_(True)
        return obj
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_leafify(item, torch) for item in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_leafify(item, torch) for item in obj)
    if isinstance(obj, dict):
        return {key: _leafify(value, torch) for key, value in obj.items()}
    return obj


def compare_inplace(torch, theirs_fn, ours_fn, sample):
    """The in-place variant: the result and the mutated input."""
    args_t = (sample.input.clone() if isinstance(sample.input, torch.Tensor) else sample.input,
              *sample.args)
    args_l = H.to_leafgrad(args_t, torch)
    kwargs_l = H.to_leafgrad(dict(sample.kwargs), torch)
    got_t = H.attempt(lambda: theirs_fn(*args_t, **sample.kwargs))
    got_l = H.attempt(lambda: ours_fn(*args_l, **kwargs_l))
    if got_t[0] != got_l[0] or (got_t[0] == "raised" and got_t[1:] != got_l[1:]):
        return [f"torch {got_t if got_t[0] == 'raised' else 'returned'}, leafgrad "
                f"{got_l if got_l[0] == 'raised' else 'returned'}"]
    if got_t[0] == "raised":
        return []
    out = H.differences(got_t[1], got_l[1], torch)
    if isinstance(args_t[0], torch.Tensor):
        out += H.differences(args_t[0], args_l[0], torch, "self")
    return out


def compare_grads(torch, theirs_fn, ours_fn, sample, strides=True):
    """Forward then backward with a grad_output from torch's RNG; every input's .grad and the
    outputs' grad_fn names."""
    args_t = _leafify((sample.input, *sample.args), torch)
    kwargs_t = _leafify(dict(sample.kwargs), torch)
    args_l = H.to_leafgrad(args_t, torch)
    kwargs_l = H.to_leafgrad(kwargs_t, torch)
    got_t = H.attempt(lambda: theirs_fn(*args_t, **kwargs_t))
    got_l = H.attempt(lambda: ours_fn(*args_l, **kwargs_l))
    if got_t[0] != got_l[0] or (got_t[0] == "raised" and got_t[1:] != got_l[1:]):
        return [f"forward: torch {got_t if got_t[0] == 'raised' else 'returned'}, leafgrad "
                f"{got_l if got_l[0] == 'raised' else 'returned'}"]
    if got_t[0] == "raised":
        return []
    diffs = ["forward " + d for d in H.differences(got_t[1], got_l[1], torch, strides=strides)]
    if any("elements differ" not in d and "strides" not in d for d in diffs):
        return diffs  # a different structure: nothing further to compare
    outs_t = _tensors(got_t[1], torch)
    outs_l = _tensors(got_l[1], torch)
    pairs = []
    for index, (a, b) in enumerate(zip(outs_t, outs_l)):
        name_t = type(a.grad_fn).__name__ if a.grad_fn is not None else None
        name_l = type(b.grad_fn).__name__ if b.grad_fn is not None else None
        if name_t != name_l:
            diffs.append(f"out[{index}].grad_fn {name_t} vs {name_l}")
        if a.requires_grad and (a.dtype.is_floating_point or a.dtype.is_complex):
            pairs.append((a, b))
    if not pairs:
        return diffs
    torch.manual_seed(1)
    grads_t = [torch.randn(a.shape, dtype=a.dtype) for a, _ in pairs]
    grads_l = [H.to_leafgrad(g, torch) for g in grads_t]
    back_t = H.attempt(lambda: torch.autograd.backward([a for a, _ in pairs], grads_t))
    back_l = H.attempt(lambda: leafgrad.autograd.backward([b for _, b in pairs], grads_l))
    if back_t[0] != back_l[0] or (back_t[0] == "raised" and back_t[1:] != back_l[1:]):
        return diffs + [f"backward: torch {back_t if back_t[0] == 'raised' else 'ran'}, leafgrad "
                        f"{back_l if back_l[0] == 'raised' else 'ran'}"]
    inputs_t = _tensors((args_t, kwargs_t), torch)
    inputs_l = _tensors((args_l, kwargs_l), torch)
    for index, (a, b) in enumerate(zip(inputs_t, inputs_l)):
        if not a.requires_grad:
            continue
        if a.grad is None or b.grad is None:
            if (a.grad is None) != (b.grad is None):
                diffs.append(f"input[{index}].grad: torch {a.grad is None and 'None' or 'tensor'}"
                             f", leafgrad {b.grad is None and 'None' or 'tensor'}")
            continue
        diffs += H.differences(a.grad, b.grad, torch, f"input[{index}].grad", strides=False)
    return diffs


def sweep(torch, ops, dtypes=DTYPES, variants=("op", "method", "inplace"), grads=False,
          grad_dtypes=("float64", "float32"), limit=None, forward=True, report=None):
    """[(op name, dtype, variant, sample index, difference)], and per op the seconds it took."""
    found = []
    seconds = {}
    for op in ops:
        start = time.perf_counter()
        name = full_name(op)
        supported = {str(d).split(".")[1] for d in op.supported_dtypes("cpu")}
        for dtype_name in dtypes if forward else ():
            if dtype_name not in supported:
                continue
            dtype = getattr(torch, dtype_name)
            samples = _samples(torch, op, dtype, False, limit)
            if isinstance(samples, Exception):
                continue
            for variant in variants:
                theirs = {"op": op.op, "method": op.method_variant,
                          "inplace": op.inplace_variant}[variant]
                if theirs is None:
                    continue
                ours = H.resolve(torch, op, variant)
                if ours is None:
                    found.append((name, dtype_name, variant, -1, "missing in leafgrad"))
                    continue
                for index, sample in enumerate(samples):
                    if op.name in RANDOM or _random_sample(op, sample):
                        continue
                    try:
                        if variant == "inplace":
                            diffs = compare_inplace(torch, theirs, ours, sample)
                        else:
                            diffs = H.compare_call(torch, theirs, ours, sample)
                    except Exception as error:  # noqa: BLE001 - harness trouble is a finding too
                        diffs = [f"harness: {type(error).__name__}: {H.first_line(error)}"]
                    for diff in diffs:
                        found.append((name, dtype_name, variant, index, diff))
        if grads and op.supports_autograd and op.name not in RANDOM:
            for dtype_name in grad_dtypes:
                if dtype_name not in supported:
                    continue
                dtype = getattr(torch, dtype_name)
                samples = _samples(torch, op, dtype, True, limit)
                if isinstance(samples, Exception):
                    continue
                ours = H.resolve(torch, op, "op")
                if ours is None:
                    continue
                for index, sample in enumerate(samples):
                    if _random_sample(op, sample):
                        continue
                    try:
                        diffs = compare_grads(torch, op.op, ours, sample)
                    except Exception as error:  # noqa: BLE001
                        diffs = [f"harness: {type(error).__name__}: {H.first_line(error)}"]
                    for diff in diffs:
                        found.append((name, dtype_name, "grad", index, diff))
        seconds[name] = time.perf_counter() - start
        if report is not None:
            report(name, [f for f in found if f[0] == name], seconds[name])
    return found, seconds


def main(argv=None):
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser()
    parser.add_argument("--grads", action="store_true")
    parser.add_argument("--no-forward", action="store_true")
    parser.add_argument("--dtypes", default=",".join(DTYPES))
    parser.add_argument("--ops", default="")
    parser.add_argument("--samples", type=int, default=None)
    parser.add_argument("--max-lines", type=int, default=6)
    options = parser.parse_args(argv)
    ops = share()
    if options.ops:
        wanted = set(options.ops.split(","))
        ops = [op for op in ops if op.name in wanted or full_name(op) in wanted]

    def report(name, rows, took):
        if not rows:
            return
        by_kind = defaultdict(list)
        for row in rows:
            by_kind[(row[1], row[2])].append(row)
        print(f"== {name} ({len(rows)} differences, {took:.1f}s)")
        shown = 0
        for (dtype, variant), group in by_kind.items():
            for row in group[:2]:
                if shown < options.max_lines:
                    print(f"   {dtype} {variant} #{row[3]}: {row[4][:300]}")
                    shown += 1
        sys.stdout.flush()

    sweep(torch, ops, options.dtypes.split(","), grads=options.grads, limit=options.samples,
          forward=not options.no_forward, report=report)


if __name__ == "__main__":
    main()
