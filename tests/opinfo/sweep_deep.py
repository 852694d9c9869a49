"""Sweep torch's OpInfo database beyond the first samples (the opinfo1-3 sweeps replay only the
first few sample_inputs of each op at float64/float32):

    stage "all":      every sample_inputs and reference_inputs sample at float64/float32, the
                      function, method and in-place variants (values bitwise, dtype, shape,
                      strides, requires_grad, errors' type and first line)
    stage "dtypes":   the other dtypes each OpInfo supports on CPU (integers, bool, float16,
                      bfloat16, complex), same comparisons, in-place dtype rules included
    stage "grad":     backward with a grad_output from torch's RNG (float64, float32), every
                      input's .grad bitwise and the outputs' grad_fn names
    stage "fwad":     forward-mode AD (op.supports_forward_ad): tangents from torch's RNG on every
                      floating input, the outputs' tangents bitwise (float64)
    stage "gradgrad": op.supports_gradgrad: grad with create_graph, then the grad of a random
                      combination of those gradients; grad_fn names at each level (float64)

    PYTHONPATH=src .venv/bin/python -m tests.opinfo.sweep_deep [--stages all,grad] [--ops a,b]
        [--dtypes float64,...] [--samples N] [--no-reference] [--max-lines N]

prints one line per differing (op, dtype, stage/variant, sample), grouped by op."""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

import leafgrad
from tests.opinfo import _harness as H
from tests.opinfo.sweep_m_z import RANDOM, SKIP, _random_sample, compare_grads, compare_inplace

FLOATS = ("float64", "float32")
OTHER_DTYPES = ("float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
                "complex64", "complex128")
STAGES = ("all", "dtypes", "grad", "fwad", "gradgrad")
# CUDA-only (jiterator) or ops leafgrad does not build (sparse, masked, nested)
NOT_HERE = ("jiterator_", "sparse.", "masked.", "_refs.", "to_sparse")
# ops whose result is uninitialised memory or a random draw
UNDEFINED = {"empty", "empty_like", "empty_permuted", "empty_strided", "new_empty",
             "new_empty_strided", "bernoulli", "multinomial", "normal", "rand_like", "randint",
             "randint_like", "randn", "randn_like", "uniform", "cauchy", "exponential",
             "geometric", "log_normal", "nn.functional.dropout", "nn.functional.dropout2d",
             "nn.functional.dropout3d", "nn.functional.alpha_dropout",
             "nn.functional.feature_alpha_dropout", "nn.functional.rrelu",
             "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
             "svd_lowrank", "pca_lowrank", "native_dropout_backward"}


def full_name(op) -> str:
    return op.name + (f"/{op.variant_test_name}" if op.variant_test_name else "")


def ops_here(database=None):
    database = H.op_db() if database is None else database
    return [op for op in database
            if not op.name.startswith(NOT_HERE) and op.name not in SKIP
            and op.name not in UNDEFINED and op.name not in RANDOM]


def samples_of(torch, op, dtype, requires_grad=False, reference=True, limit=None):
    """sample_inputs then (when asked) reference_inputs' extra samples, drawn with the seed
    fixed; a list, or the exception torch's generator raised."""
    torch.manual_seed(0)
    out = []
    try:
        generator = (op.reference_inputs if reference else op.sample_inputs)(
            "cpu", dtype, requires_grad=requires_grad)
        for sample in generator:
            if _random_sample(op, sample):
                continue
            out.append(sample)
            if limit is not None and len(out) >= limit:
                break
    except Exception as error:  # noqa: BLE001 - a generator torch cannot run here
        return out or error
    return out


def _floating(t) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _tangents_for(torch, tensors):
    torch.manual_seed(2)
    return [torch.randn(t.shape, dtype=t.dtype) if _floating(t) and t.requires_grad else None
            for t in tensors]


def _replace_tensors(obj, replacement, torch_like):
    """obj with its tensors, in tensors_in order, replaced by replacement's items."""
    items = iter(replacement)

    def walk(node):
        if isinstance(node, torch_like):
            return next(items)
        if isinstance(node, tuple) and hasattr(node, "_fields"):
            return type(node)(*(walk(item) for item in node))
        if isinstance(node, (list, tuple)):
            return type(node)(walk(item) for item in node)
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        return node

    return walk(obj)


def compare_fwad(torch, theirs_fn, ours_fn, sample) -> list[str]:
    """Forward-mode AD: every floating input that requires grad gets a torch-RNG tangent; the
    outputs' primal values and tangents are compared bitwise."""
    import torch.autograd.forward_ad as fwt

    import leafgrad.autograd.forward_ad as fwl

    args = ((sample.input, *sample.args), dict(sample.kwargs))
    originals = H.tensors_in(args)
    tangents = _tangents_for(torch, originals)
    inputs_t = [t.detach() for t in originals]
    if not any(x is not None for x in tangents):
        return []
    inputs_l = [H.to_leafgrad(t, torch) for t in inputs_t]
    tangents_l = [None if x is None else H.to_leafgrad(x, torch) for x in tangents]

    def run(fw, fn, inputs, tans, lib):
        with fw.dual_level():
            duals = [t if x is None else fw.make_dual(t, x) for t, x in zip(inputs, tans)]
            (a, k) = _replace_tensors(args if lib is torch else H.to_leafgrad(args, torch),
                                      duals, lib.Tensor)
            result = fn(*a, **k)
            outs = H.tensors_in(result)
            return result, [fw.unpack_dual(o).tangent for o in outs]

    got_t = H.attempt(lambda: run(fwt, theirs_fn, inputs_t, tangents, torch))
    got_l = H.attempt(lambda: run(fwl, ours_fn, inputs_l, tangents_l, leafgrad))
    if got_t[0] != got_l[0] or (got_t[0] == "raised" and got_t[1:] != got_l[1:]):
        return [f"fwad: torch {got_t if got_t[0] == 'raised' else 'ran'}, leafgrad "
                f"{got_l if got_l[0] == 'raised' else 'ran'}"]
    if got_t[0] == "raised":
        return []
    (result_t, tan_t), (result_l, tan_l) = got_t[1], got_l[1]
    out = ["primal " + d for d in H.differences(result_t, result_l, torch, strides=False)]
    for index, (a, b) in enumerate(zip(tan_t, tan_l)):
        if (a is None) != (b is None):
            out.append(f"tangent[{index}]: torch {'None' if a is None else 'tensor'}, leafgrad "
                       f"{'None' if b is None else 'tensor'}")
        elif a is not None:
            out += H.differences(a, b, torch, f"tangent[{index}]", strides=False)
    return out


def _names(tensors):
    return [None if t is None or t.grad_fn is None else type(t.grad_fn).__name__
            for t in tensors]


def compare_gradgrad(torch, theirs_fn, ours_fn, sample) -> list[str]:
    """grad(outputs, inputs, v, create_graph=True), then grad(first grads, inputs, w): the
    first-level gradients' grad_fn names and values, and the second-level gradients bitwise."""

    def leaves(obj):
        return _replace_tensors(obj, [t.detach().requires_grad_(True) if t.requires_grad
                                      else t for t in H.tensors_in(obj)], torch.Tensor)

    args_t = leaves(((sample.input, *sample.args), dict(sample.kwargs)))
    args_l = H.to_leafgrad(args_t, torch)

    def draw(lib, like):
        """A torch-RNG tensor like ``like`` (leafgrad's: the same numbers converted)."""
        dtype = getattr(torch, str(like.dtype).split(".")[1])
        drawn = torch.randn(tuple(like.shape), dtype=dtype)
        return drawn if lib is torch else H.to_leafgrad(drawn, torch)

    def run(lib, fn, args):
        (a, k) = args
        result = fn(*a, **k)
        inputs = [t for t in H.tensors_in(args) if t.requires_grad]
        outs = [t for t in H.tensors_in(result) if t.requires_grad and _floating(t)]
        if not inputs or not outs:
            return None
        torch.manual_seed(3)
        v = [draw(lib, o) for o in outs]
        first = lib.autograd.grad(outs, inputs, v, create_graph=True, allow_unused=True)
        usable = [(i, g) for i, g in enumerate(first) if g is not None and g.requires_grad]
        w = [draw(lib, g) for _, g in usable]
        second = (lib.autograd.grad([g for _, g in usable], inputs, w, allow_unused=True)
                  if usable else [])
        return list(first), list(second), [i for i, _ in usable]

    got_t = H.attempt(lambda: run(torch, theirs_fn, args_t))
    got_l = H.attempt(lambda: run(leafgrad, ours_fn, args_l))
    if got_t[0] != got_l[0] or (got_t[0] == "raised" and got_t[1:] != got_l[1:]):
        return [f"gradgrad: torch {got_t if got_t[0] == 'raised' else 'ran'}, leafgrad "
                f"{got_l if got_l[0] == 'raised' else 'ran'}"]
    if got_t[0] == "raised" or got_t[1] is None or got_l[1] is None:
        return [] if (got_t[0] == "raised" or got_t[1] is got_l[1]) else ["gradgrad: one side had nothing to differentiate"]
    if got_t[1][2] != got_l[1][2]:
        return [f"gradgrad: first gradients requiring grad: torch {got_t[1][2]}, leafgrad "
                f"{got_l[1][2]}"]
    first_t, second_t, _ = got_t[1]
    first_l, second_l, _ = got_l[1]
    out = []
    if _names(first_t) != _names(first_l):
        out.append(f"first grad_fn {_names(first_t)} vs {_names(first_l)}")
    for index, (a, b) in enumerate(zip(first_t, first_l)):
        if (a is None) != (b is None):
            out.append(f"first[{index}]: torch {'None' if a is None else 'tensor'}, leafgrad "
                       f"{'None' if b is None else 'tensor'}")
        elif a is not None:
            out += [d for d in H.differences(a, b, torch, f"first[{index}]", strides=False)
                    if "requires_grad" not in d]
            if a.requires_grad != b.requires_grad:
                out.append(f"first[{index}] requires_grad {a.requires_grad} vs {b.requires_grad}")
    if len(second_t) != len(second_l):
        return out + [f"second: {len(second_t)} vs {len(second_l)} gradients"]
    for index, (a, b) in enumerate(zip(second_t, second_l)):
        if (a is None) != (b is None):
            out.append(f"second[{index}]: torch {'None' if a is None else 'tensor'}, leafgrad "
                       f"{'None' if b is None else 'tensor'}")
        elif a is not None:
            out += H.differences(a, b, torch, f"second[{index}]", strides=False)
    return out


def _unbound_dunder_on_a_number(op, sample) -> bool:
    """A reflected dunder's sample with a number as self: ``Tensor.__rsub__(5.0, t)`` (torch's
    Python-level dunders return NotImplemented or compute ``t ** 5.0`` for it): a call form no
    program makes, not compared."""
    return op.name.startswith("__r") and not hasattr(sample.input, "shape")


def _guard(function):
    try:
        return function()
    except Exception as error:  # noqa: BLE001 - harness trouble is a finding too
        return [f"harness: {type(error).__name__}: {H.first_line(error)}"]


def sweep_op(torch, op, stages=STAGES, dtypes=None, limit=None, reference=True, start=0,
             variants=("op", "method", "inplace"), grad_dtypes=FLOATS):
    """[(op name, dtype, stage/variant, sample index, difference)] for one OpInfo."""
    found = []
    name = full_name(op)
    supported = {str(d).split(".")[1] for d in op.supported_dtypes("cpu")}
    forward_dtypes = []
    if "all" in stages:
        forward_dtypes += [d for d in FLOATS if d in supported]
    if "dtypes" in stages:
        forward_dtypes += [d for d in OTHER_DTYPES if d in supported]
    if dtypes is not None:
        forward_dtypes = [d for d in forward_dtypes if d in dtypes]
    for dtype_name in forward_dtypes:
        samples = samples_of(torch, op, getattr(torch, dtype_name), False, reference, limit)
        if isinstance(samples, Exception):
            found.append((name, dtype_name, "samples", -1,
                          f"torch's generator raised {type(samples).__name__}"))
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
            for index, sample in enumerate(samples[start:], start):
                if _unbound_dunder_on_a_number(op, sample) or (
                        variant != "op" and not hasattr(sample.input, "shape")):
                    continue  # (a method with a number as self: torch's unbound descriptor)
                if variant == "inplace":
                    diffs = _guard(lambda: compare_inplace(torch, theirs, ours, sample))
                else:
                    diffs = _guard(lambda: H.compare_call(torch, theirs, ours, sample))
                found += [(name, dtype_name, variant, index, d) for d in diffs]
    ours = H.resolve(torch, op, "op")
    if ours is None or not op.supports_autograd:
        return found
    kinds = []
    if "grad" in stages:
        kinds += [("grad", d) for d in grad_dtypes]
    if "fwad" in stages and op.supports_forward_ad:
        kinds.append(("fwad", "float64"))
    if "gradgrad" in stages and op.supports_gradgrad:
        kinds.append(("gradgrad", "float64"))
    for stage, dtype_name in kinds:
        if dtype_name not in supported or (dtypes is not None and dtype_name not in dtypes):
            continue
        samples = samples_of(torch, op, getattr(torch, dtype_name), True, reference, limit)
        if isinstance(samples, Exception):
            continue
        compare = {"grad": compare_grads, "fwad": compare_fwad,
                   "gradgrad": compare_gradgrad}[stage]
        for index, sample in enumerate(samples[start:], start):
            diffs = _guard(lambda: compare(torch, op.op, ours, sample))
            found += [(name, dtype_name, stage, index, d) for d in diffs]
    return found


def main(argv=None):
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser()
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--ops", default="")
    parser.add_argument("--skip-ops", default="")
    parser.add_argument("--from-op", default="")
    parser.add_argument("--dtypes", default="")
    parser.add_argument("--samples", type=int, default=None)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--max-lines", type=int, default=6)
    parser.add_argument("--cross-section", action="store_true",
                        help="the suite's cut (test_opinfo_deep.py) instead of the stages")
    options = parser.parse_args(argv)
    ops = ops_here()
    if options.ops:
        wanted = set(options.ops.split(","))
        ops = [op for op in ops if op.name in wanted or full_name(op) in wanted]
    if options.skip_ops:
        unwanted = set(options.skip_ops.split(","))
        ops = [op for op in ops if op.name not in unwanted and full_name(op) not in unwanted]
    if options.from_op:
        ops = [op for op in ops if op.name >= options.from_op]
    stages = tuple(options.stages.split(","))
    dtypes = tuple(options.dtypes.split(",")) if options.dtypes else None
    if options.cross_section:
        def report(name, rows, took):
            for row in rows:
                print(f"{name} | {row[1]} | {row[2]} | #{row[3]} | {row[4][:240]}")
            if took > 1:
                print(f"{name} took {took:.1f}s")
            sys.stdout.flush()

        found, seconds = cross_section(torch, ops, report)
        print(f"{len(found)} differences over {len(ops)} OpInfos, {sum(seconds.values()):.0f}s")
        return
    total = 0
    for op in ops:
        began = time.perf_counter()
        rows = sweep_op(torch, op, stages, dtypes, options.samples, not options.no_reference)
        took = time.perf_counter() - began
        total += len(rows)
        if not rows:
            continue
        by_kind = defaultdict(list)
        for row in rows:
            by_kind[(row[1], row[2])].append(row)
        print(f"== {full_name(op)} ({len(rows)} differences, {took:.1f}s)")
        shown = 0
        for (dtype, variant), group in by_kind.items():
            for row in group[:2]:
                if shown < options.max_lines:
                    print(f"   {dtype} {variant} #{row[3]} ({len(group)}): {row[4][:300]}")
                    shown += 1
        sys.stdout.flush()
    print(f"{total} differences over {len(ops)} OpInfos")



def cross_section(torch, ops, report=None):
    """The suite's fast cut (tests/opinfo/test_opinfo_deep.py): per OpInfo, reference_inputs
    samples 6..8 at float64 through the function variant (the opinfo1-3 tests replay the first
    few), samples 0..1 at one other dtype it supports (rotating over OTHER_DTYPES by op, so the
    share covers each), float32 gradients, forward AD and gradgrad of the first sample.
    [(name, dtype, stage/variant, index, difference)] and per op the seconds it took."""
    found, seconds = [], {}
    for number, op in enumerate(ops):
        began = time.perf_counter()
        supported = {str(d).split(".")[1] for d in op.supported_dtypes("cpu")}
        rows = sweep_op(torch, op, ("all",), ("float64",), limit=9, start=6, variants=("op",))
        others = [d for d in OTHER_DTYPES[number % len(OTHER_DTYPES):] + OTHER_DTYPES
                  if d in supported]
        if others:
            rows += sweep_op(torch, op, ("dtypes",), (others[0],), limit=2, reference=False,
                             variants=("op", "inplace"))
        rows += sweep_op(torch, op, ("grad", "fwad", "gradgrad"), ("float32", "float64"),
                         limit=1, reference=False, grad_dtypes=("float32",))
        found += rows
        seconds[full_name(op)] = time.perf_counter() - began
        if report is not None:
            report(full_name(op), rows, seconds[full_name(op)])
    return found, seconds


if __name__ == "__main__":
    main()
