"""Every op-table sample, compiled: results and gradients equal eager ones, bitwise.

The compiled function runs the sample and ``autograd.grad`` of its result. The first call
captures (and runs eagerly), the next two replay on new input values of the same shapes, so a
value the capture wrongly baked in would show. Samples the capture cannot take (a graph break:
data-dependent Python, a formula computing arrays outside the op table) must still give eager's
results through the eager fallback.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import leafgrad
from leafgrad.ops import OPS

from ..ops.samples import SAMPLES, values

CASES = [
    pytest.param(name, i, id=f"{name}-{i}")
    for name in sorted(OPS)
    for i in range(len(SAMPLES.get(name, [])))
]


def _inputs(sample, seed: int):
    rng = np.random.default_rng(seed)
    return [leafgrad.tensor(values(shape, domain, rng), dtype=leafgrad.float64,
                            requires_grad=True) for shape, domain in sample.shapes]


def _program(sample, grad_seed: int):
    def program(*inputs):
        out = sample.call(leafgrad, *inputs)
        if not out.requires_grad:
            return out
        rng = np.random.default_rng(grad_seed)
        grad_out = leafgrad.tensor(rng.normal(size=tuple(out.shape)), dtype=out.dtype)
        grads = leafgrad.autograd.grad(out, inputs, grad_out, allow_unused=True)
        return out.detach(), grads

    return program


def _strides(tensor):
    """The strides of the dims of size > 1 (a size-1 dim's stride addresses nothing)."""
    return tuple(s for n, s in zip(tensor.shape, tensor.stride()) if n > 1)


def _flat(result):
    if isinstance(result, leafgrad.Tensor):
        return [result]
    out = []
    for item in result:
        out.extend(_flat(item) if item is not None else [None])
    return out


@pytest.mark.parametrize("name,index", CASES)
def test_compiled_equals_eager(name, index):
    sample = SAMPLES[name][index]
    seed = zlib.crc32(f"{name}-{index}".encode())
    program = _program(sample, seed)
    compiled = leafgrad.compile(program)
    for call in range(3):
        inputs = _inputs(sample, seed + call)
        expected = _flat(program(*[t.detach().requires_grad_() for t in inputs]))
        got = _flat(compiled(*inputs))
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.dtype == b.dtype and a.shape == b.shape
                assert _strides(a) == _strides(b)  # layouts: sums over them add alike
                assert a.requires_grad == b.requires_grad or not b.requires_grad
                np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    captured = compiled.captures[0]
    if captured.replay is not None:
        assert compiled.replays == 2


def _forward(sample):
    def forward(*inputs):
        return sample.call(leafgrad, *inputs)

    return forward


def _node_names(tensor):
    return None if tensor.grad_fn is None else tensor.grad_fn.name()


@pytest.mark.parametrize("name,index", CASES)
def test_compiled_forward_with_backward_outside(name, index):
    """The sample compiled alone, its caller backpropagating (differentiable.py): results and
    ``autograd.grad`` through the replay equal eager ones, bitwise, for every subset of the
    inputs requiring grad (each subset is a capture of its own: requires_grad is guarded)."""
    sample = SAMPLES[name][index]
    seed = zlib.crc32(f"{name}-{index}/outside".encode())
    forward = _forward(sample)
    compiled = leafgrad.compile(forward)
    count = len(sample.shapes)
    subsets = [tuple(range(count))] + ([(0,)] if count > 1 else [])
    for needs in subsets:
        for call in range(2):
            inputs = _inputs(sample, seed + call)
            for i, t in enumerate(inputs):
                t.requires_grad_(i in needs)
            mine = [t.detach().requires_grad_(t.requires_grad) for t in inputs]
            try:
                expected = forward(*mine)
            except RuntimeError as error:  # (a double-backward sample needs every input)
                with pytest.raises(type(error)):
                    compiled(*inputs)
                continue
            got = compiled(*inputs)
            assert isinstance(got, leafgrad.Tensor) == isinstance(expected, leafgrad.Tensor)
            if not isinstance(expected, leafgrad.Tensor):
                continue
            np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
            assert got.requires_grad == expected.requires_grad
            if not expected.requires_grad or not expected.dtype.is_floating_point:
                continue
            rng = np.random.default_rng(seed + 7 * call)
            grad_out = leafgrad.tensor(rng.normal(size=tuple(expected.shape)),
                                       dtype=expected.dtype)
            wanted = [t for t in mine if t.requires_grad]
            have = [t for t in inputs if t.requires_grad]
            want = leafgrad.autograd.grad(expected, wanted, grad_out, allow_unused=True)
            got_grads = leafgrad.autograd.grad(got, have, grad_out, allow_unused=True)
            for a, b in zip(got_grads, want):
                if b is None:
                    # (no gradient reached it eagerly: the replay's node gives zeros or None)
                    assert a is None or not a.detach().numpy().any()
                    continue
                assert a is not None and a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_array_equal(a.numpy(), b.numpy())
            if compiled.captures[-1].replay is not None:
                assert _node_names(got) == "CompiledFunctionBackward"
