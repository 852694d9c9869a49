"""The unrolled recorder of one- and two-operand ops (Note: recording one or two operands,
ops/registry.py) against ``Op._record``, which it must equal step for step.

Every op-table sample runs twice on equal float64 inputs, once per recorder, with its inputs
requiring grad (for an op's first sample: every non-empty subset of them, and all of them used
through views); the two graphs must have the same nodes in the same sequence order, edges, output
numbers, input metadata, saved names and versions, values and input gradients. The samples
are those of the ops that have the unrolled recorder (their calls record others too)."""

from __future__ import annotations

import warnings

import numpy as np

import leafgrad
from leafgrad.autograd.graph import SavedTensor
from leafgrad.ops import registry

from .samples import SAMPLES, values

_FAST = [cls for cls in registry.OPS.values() if cls.__dict__.get("_record") is registry._record_fast]
_GENERAL = registry.Op.__dict__["_record"]


def _use(fast: bool) -> None:
    for cls in _FAST:
        cls._record = registry._record_fast if fast else _GENERAL


def _graph_signature(outputs, inputs) -> list:
    """The reachable graph as plain data: tensors named by their input position."""
    names = {id(t): f"input{i}" for i, t in enumerate(inputs)}
    seen, order, stack = set(), [], [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(child for child, _ in node.next_functions)
    order.sort(key=lambda n: getattr(n, "_seq", float("inf")))
    signature = []
    for node in order:
        entry = [type(node).__name__, tuple(nr for _, nr in node.next_functions),
                 tuple(type(child).__name__ for child, _ in node.next_functions)]
        if isinstance(node, registry.Op):
            entry.append(node._input_meta)
            saved = []
            for name, value in (node._saved or {}).items():
                if isinstance(value, SavedTensor):
                    target = names.get(id(value.tensor), "other") if value.tensor is not None \
                        else ("output", value.output_nr)
                    saved.append((name, target, value.version))
                else:
                    saved.append((name, type(value).__name__))
            entry.append(tuple(saved))
        signature.append(tuple(entry))
    return signature


def _run(sample, arrays, mask, through_view, fast):
    _use(fast)
    try:
        inputs = [leafgrad.tensor(a, requires_grad=bool(mask >> i & 1))
                  for i, a in enumerate(arrays)]
        operands = [t[...] if through_view and t.requires_grad else t for t in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = sample.call(leafgrad, *operands)
        outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
                if isinstance(o, leafgrad.Tensor)]
        signature = _graph_signature(outs, inputs)
        differentiable = [o for o in outs if o.requires_grad]
        if differentiable:
            leafgrad.autograd.backward(
                [o.sum() if o.numel() else o.sum() for o in differentiable])
        return (signature, [o.detach().numpy().copy() for o in outs],
                [None if t.grad is None else t.grad.numpy().copy() for t in inputs])
    finally:
        _use(True)


def test_every_sample_records_the_same_graph_with_either_recorder():
    rng = np.random.default_rng(11)
    checked = 0
    unrolled = {cls.op_name for cls in _FAST}
    for name, samples in sorted(SAMPLES.items()):
        if name not in unrolled:
            continue
        for number, sample in enumerate(samples):
            arrays = [values(shape, domain, rng) for shape, domain in sample.shapes]
            full = (1 << len(arrays)) - 1
            # an op's first sample: every subset, and all inputs through views; then all inputs
            cases = [(mask, False) for mask in range(1, full + 1)] + [(full, True)] \
                if number == 0 else [(full, False)]
            for mask, through_view in cases:
                try:
                    general = _run(sample, arrays, mask, through_view, fast=False)
                except Exception as error:  # the same error, then, from the fast recorder
                    try:
                        _run(sample, arrays, mask, through_view, fast=True)
                    except Exception as again:
                        assert (type(again), str(again)) == (type(error), str(error)), name
                        continue
                    raise AssertionError(f"{name}: only the general recorder raised {error!r}")
                fast = _run(sample, arrays, mask, through_view, fast=True)
                assert fast[0] == general[0], (name, mask, through_view)
                for got, want in zip(fast[1] + fast[2], general[1] + general[2]):
                    if want is None:
                        assert got is None, name
                    else:
                        np.testing.assert_array_equal(got, want, err_msg=name)
                checked += 1
    assert checked > 400
