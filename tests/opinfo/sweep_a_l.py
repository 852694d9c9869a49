"""Sweep torch's OpInfo samples for ops a..l (no dot), linalg.* and fft.* over leafgrad.

    PYTHONPATH=src .venv/bin/python -m tests.opinfo.sweep_a_l [--ops a,b] [--dtypes float64,...]
        [--variants op,method,inplace] [--samples N] [--no-grad] [--reference]

prints one line per differing (op, dtype, variant, sample) grouped by op, then a summary (ops
leafgrad lacks, counts). Forward values through ``_harness.compare_call``; for float64 and
float32 samples that require grad, a backward with a grad_output drawn from torch's RNG and every
input's ``.grad`` compared bitwise, plus the outputs' grad_fn names."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from tests.opinfo import _harness

DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "complex128")
GRAD_DTYPES = ("float64", "float32")


def in_share(name: str) -> bool:
    """The opinfo1 share: names without a dot starting with a..l, linalg.*, fft.*."""
    if "." in name:
        return name.split(".")[0] in ("linalg", "fft")
    return "a" <= name[0].lower() <= "l"


def share(database):
    return [op for op in database if in_share(op.name)]


def _tensors(obj, lib=None):
    return _harness.tensors_in(obj)


def _grad_fn_names(obj, torch, leafgrad):
    if isinstance(obj, (torch.Tensor, leafgrad.Tensor)):
        return [None if obj.grad_fn is None else obj.grad_fn.name()]
    if isinstance(obj, (list, tuple)):
        return [n for item in obj for n in _grad_fn_names(item, torch, leafgrad)]
    return []


def _float_outputs(obj, torch):
    return [t for t in _tensors(obj, torch) if t.requires_grad and (t.is_floating_point() or t.is_complex())]


def compare_grad(torch, theirs_fn, ours_fn, sample, seed: int = 0) -> list[str]:
    """Forward with grad, grad_fn names, then backward with torch-RNG grad_outputs; the
    differences in every input's .grad."""
    import leafgrad

    args_t = (sample.input, *sample.args)
    leaves_t = [t for t in _tensors((args_t, sample.kwargs), torch) if t.requires_grad]
    if not leaves_t:
        return []
    # fresh leaves, so every .grad starts at None
    args_t = _clone_leaves((sample.input, *sample.args), torch)
    kwargs_t = _clone_leaves(dict(sample.kwargs), torch)
    args_l = _harness.to_leafgrad(args_t, torch)
    kwargs_l = _harness.to_leafgrad(kwargs_t, torch)
    got_t = _harness.attempt(lambda: theirs_fn(*args_t, **kwargs_t))
    got_l = _harness.attempt(lambda: ours_fn(*args_l, **kwargs_l))
    if got_t[0] != "ok" or got_l[0] != "ok":
        if got_t[0] == got_l[0] and got_t[1:] == got_l[1:]:
            return []
        return [f"grad forward: torch {got_t[:3] if got_t[0] == 'raised' else 'ok'}, leafgrad "
                f"{got_l[:3] if got_l[0] == 'raised' else 'ok'}"]
    out: list[str] = []
    names_t = _grad_fn_names(got_t[1], torch, leafgrad)
    names_l = _grad_fn_names(got_l[1], torch, leafgrad)
    if names_t != names_l:
        out.append(f"grad_fn {names_t} vs {names_l}")
    outs_t = _float_outputs(got_t[1], torch)
    all_l = _tensors_l(got_l[1], leafgrad)
    all_t = _tensors(got_t[1], torch)
    if len(all_t) != len(all_l):
        return out + ["output count differs"]
    outs_l = [all_l[i] for i, t in enumerate(all_t) if any(t is o for o in outs_t)]
    if not outs_t:
        return out
    if any(not o.requires_grad for o in outs_l):
        return out + ["leafgrad output does not require grad"]
    generator = torch.Generator().manual_seed(seed)
    grads_t = [torch.randn(o.shape, dtype=o.dtype, generator=generator) for o in outs_t]
    grads_l = _harness.to_leafgrad(grads_t, torch)
    leaves_t = [t for t in _tensors((args_t, kwargs_t), torch) if t.requires_grad]
    leaves_l = [t for t in _tensors_l((args_l, kwargs_l), leafgrad) if t.requires_grad]
    back_t = _harness.attempt(lambda: torch.autograd.backward(outs_t, grads_t))
    back_l = _harness.attempt(lambda: leafgrad.autograd.backward(outs_l, grads_l))
    if back_t[0] != back_l[0] or (back_t[0] == "raised" and back_t[1:] != back_l[1:]):
        return out + [f"backward: torch {back_t[:3] if back_t[0] == 'raised' else 'ok'}, leafgrad "
                      f"{back_l[:3] if back_l[0] == 'raised' else 'ok'}"]
    if back_t[0] == "raised":
        return out
    for index, (a, b) in enumerate(zip(leaves_t, leaves_l)):
        if a.grad is None or b.grad is None:
            if (a.grad is None) != (b.grad is None):
                out.append(f"grad[{index}]: torch {a.grad is None and 'None'}, leafgrad {b.grad is None and 'None'}")
            continue
        out += _harness.differences(a.grad, b.grad, torch, f"grad[{index}]", strides=False)
    return out


_tensors_l = _tensors


def _clone_leaves(obj, torch):
    """The structure with tensors that require grad replaced by fresh leaves of the same
    strides (so .grad starts at None), others as they are."""
    if isinstance(obj, torch.Tensor):
        if not obj.requires_grad:
            return obj
        fresh = torch.empty_strided(obj.shape, obj.stride(), dtype=obj.dtype)
        with torch.no_grad():
            fresh.copy_(obj)
        return fresh.requires_grad_(True)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_clone_leaves(item, torch) for item in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_clone_leaves(item, torch) for item in obj)
    if isinstance(obj, dict):
        return {key: _clone_leaves(value, torch) for key, value in obj.items()}
    return obj


# Ops whose values are not defined (empty*) or drawn from an RNG: only the metadata of their
# results is compared (dtype, shape, strides, requires_grad).
UNDEFINED_VALUES = {"empty", "empty_like", "empty_permuted", "empty_strided", "bernoulli",
                    "cauchy", "exponential", "geometric", "log_normal"}


def _metadata(function):
    def call(*args, **kwargs):
        out = function(*args, **kwargs)
        return (tuple(out.shape), str(out.dtype).split(".")[-1], tuple(out.stride()), out.requires_grad)

    return call


def sweep_op(torch, op, dtypes=DTYPES, variants=("op", "method", "inplace"), samples=None,
             grad=True, reference=False, grad_dtypes=GRAD_DTYPES):
    """Yields (dtype, variant, index, [differences]) for one OpInfo; ('-', variant, -1,
    ['missing']) when leafgrad lacks the callable."""
    supported = {str(d).split(".")[1] for d in op.supported_dtypes("cpu")}
    for variant in variants:
        theirs = {"op": op.op, "method": op.method_variant, "inplace": op.inplace_variant}[variant]
        if theirs is None:
            continue
        ours = _harness.resolve(torch, op, variant)
        if ours is None:
            yield ("-", variant, -1, ["missing"])
            continue
        metadata_only = op.name in UNDEFINED_VALUES
        if metadata_only:
            theirs, ours = _metadata(theirs), _metadata(ours)
        for dtype_name in dtypes:
            if dtype_name not in supported:
                continue
            dtype = getattr(torch, dtype_name)
            requires_grad = grad and not metadata_only and variant != "inplace" and dtype_name in grad_dtypes and op.supports_autograd
            torch.random.default_generator.manual_seed(0)  # (torch.manual_seed also seeds
            # the accelerators' lazy queues, formatting a stack each time)
            maker = op.reference_inputs if reference else op.sample_inputs
            try:
                inputs = list(maker("cpu", dtype, requires_grad=requires_grad))
            except Exception as error:  # noqa: BLE001
                yield (dtype_name, variant, -1, [f"sample_inputs raised {type(error).__name__}: {error}"])
                continue
            for index, sample in enumerate(inputs[:samples] if samples else inputs):
                try:
                    diffs = _harness.compare_call(torch, theirs, ours, sample)
                    if requires_grad and not diffs:
                        diffs = compare_grad(torch, theirs, ours, sample)
                except Exception as error:  # noqa: BLE001
                    diffs = [f"harness raised {type(error).__name__}: {error}"]
                if diffs:
                    yield (dtype_name, variant, index, diffs)


def label(op) -> str:
    """An OpInfo's name with its variant (``linalg.pinv[hermitian]``)."""
    return f"{op.name}[{op.variant_test_name}]" if op.variant_test_name else op.name


def describe(sample, torch) -> str:
    def short(obj):
        if isinstance(obj, torch.Tensor):
            text = f"T{tuple(obj.shape)}"
            if not obj.is_contiguous():
                text += f"s{tuple(obj.stride())}"
            return text + ("g" if obj.requires_grad else "")
        if isinstance(obj, (list, tuple)):
            return "[" + ",".join(short(o) for o in obj) + "]"
        return repr(obj)

    kw = ",".join(f"{k}={short(v)}" for k, v in sample.kwargs.items())
    return f"{short(sample.input)} {short(tuple(sample.args))} {kw}"


def main(argv=None):
    import warnings

    warnings.filterwarnings("ignore")
    from tests._torch import require_torch

    torch = require_torch()
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", default="")
    parser.add_argument("--dtypes", default=",".join(DTYPES))
    parser.add_argument("--variants", default="op,method,inplace")
    parser.add_argument("--samples", type=int, default=0)
    parser.add_argument("--no-grad", action="store_true")
    parser.add_argument("--reference", action="store_true")
    options = parser.parse_args(argv)
    wanted = set(filter(None, options.ops.split(",")))
    ops = [op for op in share(_harness.op_db()) if not wanted or op.name in wanted
           or any(op.name.startswith(w.rstrip("*")) for w in wanted if w.endswith("*"))]
    missing, counts = [], defaultdict(int)
    for op in ops:
        lines = []
        for dtype, variant, index, diffs in sweep_op(
                torch, op, options.dtypes.split(","), options.variants.split(","),
                options.samples or None, not options.no_grad, options.reference):
            if diffs == ["missing"]:
                missing.append(f"{label(op)}/{variant}")
                continue
            counts[label(op)] += 1
            lines.append(f"  {dtype:9} {variant:7} #{index}: " + "; ".join(d[:200] for d in diffs[:3]))
        if lines:
            print(f"{label(op)}:")
            print("\n".join(lines))
            sys.stdout.flush()
    print("MISSING:", " ".join(missing))
    print("DIFFERING OPS:", len(counts), "lines:", sum(counts.values()))


if __name__ == "__main__":
    main()
