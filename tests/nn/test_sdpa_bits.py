"""scaled_dot_product_attention where torch takes its CPU flash-attention kernel (4-d inputs, no
dropout) is torch's bits, forward and backward, float32 and float64: the kernel's query and
key blocks (lengths of 1, below, at and past the block sizes, more than 512 keys), no mask,
boolean and additive masks broadcast from 2-d and 4-d, is_causal, scale=, grouped key heads
(enable_gqa), transposed (non-contiguous) inputs as MultiheadAttention passes them, every
subset of q, k, v requiring grad, on one thread and two (torch shares the tasks across threads
and runs MKL's gemm threaded where a single task runs on the calling thread). Differential
against torch 2.13; every bit compared (ops/_flash_attention.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()
LIBS = (torch, leafgrad)

pytestmark = pytest.mark.skipif(not leafgrad.ops._flash_attention.supported(np.dtype("f")),
                                reason="MKL (the mkl extra) gives torch's gemm bits")

# (batch, heads, key heads, queries, keys, head dim): the query blocks are 32 rows below 192
# queries and 64 from there, the key blocks 512 keys (causal: the last query block alone reaches
# the second key block at 530); 17 and 19 put the scratch blocks off a 16-byte line
SHAPES = [
    (2, 4, 4, 64, 64, 32), (1, 1, 1, 1, 1, 8), (1, 2, 2, 1, 9, 16), (1, 3, 3, 17, 19, 8),
    (2, 3, 3, 33, 40, 16), (1, 2, 2, 70, 5, 20), (1, 1, 1, 200, 130, 24), (1, 1, 1, 40, 600, 8),
    (2, 4, 2, 35, 20, 8), (1, 6, 3, 9, 33, 5), (1, 1, 1, 530, 530, 4),
]
MASKS = (None, "bool 2-d", "float 4-d", "causal")


def _case(shape, dtype, mask, seed):
    batch, heads, kv_heads, length, source, dim = shape
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((batch, heads, length, dim)).astype(dtype)
    k = rng.standard_normal((batch, kv_heads, source, dim)).astype(dtype)
    v = rng.standard_normal((batch, kv_heads, source, dim)).astype(dtype)
    g = rng.standard_normal((batch, heads, length, dim)).astype(dtype)
    m = None
    if mask == "bool 2-d":
        m = rng.random((length, source)) < 0.7
        m[length // 2] = False  # a query that sees nothing
    elif mask == "float 4-d":
        m = rng.standard_normal((batch, 1, length, source)).astype(dtype)
    return q, k, v, g, m


def _run(lib, arrays, mask, requires, transposed=False, **options):
    q, k, v, g, m = arrays
    tensors = []
    for a, needs in zip((q, k, v), requires):
        if transposed:  # (B, L, H, D) memory seen as (B, H, L, D), as MultiheadAttention's views
            t = lib.tensor(np.ascontiguousarray(a.transpose(0, 2, 1, 3))).transpose(1, 2)
            tensors.append(t.detach().requires_grad_(needs))
        else:
            tensors.append(lib.tensor(a, requires_grad=needs))
    if mask == "causal":
        options["is_causal"] = True
    elif m is not None:
        options["attn_mask"] = lib.tensor(m)
    out = lib.nn.functional.scaled_dot_product_attention(*tensors, **options)
    seen = [type(out.grad_fn).__name__, out.detach().numpy().tobytes()]
    out.backward(lib.tensor(g))
    seen += [t.grad.numpy().tobytes() for t, needs in zip(tensors, requires) if needs]
    return seen


def _threads(count):
    saved = [lib.get_num_threads() for lib in LIBS]
    for lib in LIBS:
        lib.set_num_threads(count)
    return saved


@pytest.mark.parametrize("threads", (1, 2))
def test_flash_attention_is_torchs_bits(threads):
    saved = _threads(threads)
    cases = []
    for number, shape in enumerate(SHAPES):
        if threads > 1 and shape[3] > 100:  # (MKL's threaded calls: slow on a busy machine)
            continue
        options = {"enable_gqa": True} if shape[1] != shape[2] else {}
        if number % 3 == 1:
            options["scale"] = 0.3
        pairs = itertools.product((np.float32, np.float64), MASKS)
        if shape[3] > 500:  # (long: what only it checks)
            pairs = ((np.float32, "causal"), (np.float64, "causal"))
        elif threads > 1:
            pairs = ((np.float32, None), (np.float32, "float 4-d"), (np.float64, "causal"),
                     (np.float64, "bool 2-d"))
        for dtype, mask in pairs:
            cases.append((shape, dtype, mask, _case(shape, dtype, mask, number), options))
    try:
        # all of torch's runs first: its OpenMP threads spin a while after each op, and
        # leafgrad's threaded MKL calls would wait for the cores meanwhile
        seen = [[_run(lib, arrays, mask, (True, True, True), **options)
                 for _, _, mask, arrays, options in cases] for lib in LIBS]
    finally:
        for lib, count in zip(LIBS, saved):
            lib.set_num_threads(count)
    differing = []
    for (shape, dtype, mask, _, _), theirs, ours in zip(cases, *seen):
        if theirs[0] != "ScaledDotProductFlashAttentionForCpuBackward0":
            differing.append((shape, "not torch's flash kernel", theirs[0]))
        if theirs != ours:
            differing.append((shape, dtype.__name__, mask, [a == b for a, b in zip(theirs, ours)]))
    assert not differing, differing


def test_every_subset_of_inputs_requiring_grad_and_transposed_inputs():
    saved = _threads(1)
    differing = []
    try:
        for number, shape in enumerate([(2, 3, 3, 17, 19, 8), (1, 4, 2, 40, 33, 16)]):
            arrays = _case(shape, np.float32, "bool 2-d", 7 + number)
            options = {"enable_gqa": True} if shape[1] != shape[2] else {}
            for requires in itertools.product((False, True), repeat=3):
                if not any(requires):
                    continue
                for transposed in (False, True):
                    seen = [_run(lib, arrays, "bool 2-d", requires, transposed, **options)
                            for lib in LIBS]
                    if seen[0] != seen[1]:
                        differing.append((shape, requires, transposed,
                                          [a == b for a, b in zip(*seen)]))
    finally:
        for lib, count in zip(LIBS, saved):
            lib.set_num_threads(count)
    assert not differing, differing


def test_grouped_heads_dispatch_and_errors():
    """enable_gqa: torch's kernel takes key and value heads that are equal and divide the
    query's; other counts go to the math path (repeat_interleave of each), and counts that do
    not divide raise torch's error."""
    def t(lib, shape):
        return lib.tensor(np.ones(shape, np.float32), requires_grad=True)

    cases = [((1, 4, 3, 5), (1, 2, 4, 5), (1, 2, 4, 5)), ((1, 3, 3, 5), (1, 2, 4, 5), (1, 2, 4, 5)),
             ((1, 4, 3, 5), (1, 2, 4, 5), (1, 1, 4, 5)), ((1, 4, 3, 5), (1, 4, 4, 5), (1, 2, 4, 5)),
             ((4, 3, 5), (2, 4, 5), (2, 4, 5)), ((2, 4, 3, 5), (1, 2, 4, 5), (1, 2, 4, 5))]
    for shapes in cases:
        seen = []
        for lib in LIBS:
            try:
                out = lib.nn.functional.scaled_dot_product_attention(
                    *(t(lib, s) for s in shapes), enable_gqa=True)
                out.backward(lib.ones_like(out))
                seen.append((type(out.grad_fn).__name__, tuple(out.shape)))
            except RuntimeError as error:
                seen.append(("error", str(error).splitlines()[0]))
        assert seen[0] == seen[1], shapes


def _parameters(module) -> list:
    return [(name, p.detach().numpy().copy()) for name, p in module.named_parameters()]


def _copy_parameters(values, target):
    with leafgrad.no_grad():
        for (name, value), (other, ours) in zip(values, target.named_parameters()):
            assert name == other
            ours.copy_(leafgrad.tensor(value))


def _causal_self_attention(lib, embed=32, heads=4):
    """nanoGPT's CausalSelfAttention (dropout 0) on ``lib``."""
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(embed, 3 * embed)
            self.c_proj = nn.Linear(embed, embed)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(embed, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    return CausalSelfAttention()


@pytest.mark.parametrize("threads", (1, 2))
def test_modules_end_to_end_are_torchs_bits(threads):
    """What users run on top: MultiheadAttention (need_weights=False, with a causal mask),
    TransformerEncoderLayer training (dropout 0, post- and pre-norm) forward and backward,
    and nanoGPT's CausalSelfAttention trained for 3 Adam steps: every output, gradient and
    weight torch's bits."""
    saved = _threads(threads)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 2, 16)).astype(np.float32)
    tokens = rng.standard_normal((3, 24, 32)).astype(np.float32)
    target = rng.standard_normal((3, 24, 32)).astype(np.float32)
    seen = []
    try:
        for lib in LIBS:
            lib.manual_seed(0)
            record = []
            mha = lib.nn.MultiheadAttention(16, 4)
            layers = [lib.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, norm_first=first)
                      for first in (False, True)[:3 - threads]]  # (two threads: post-norm)
            block = _causal_self_attention(lib)
            if lib is torch:
                initial = [_parameters(m) for m in (mha, *layers, block)]
            else:  # torch's initial weights
                for values, module in zip(initial, (mha, *layers, block)):
                    _copy_parameters(values, module)
            mask = lib.nn.Transformer.generate_square_subsequent_mask(9)
            for options in ({}, {"attn_mask": mask, "is_causal": True}):
                xt = lib.tensor(x, requires_grad=True)
                out, _ = mha(xt, xt, xt, need_weights=False, **options)
                out.backward(lib.tensor(np.cos(np.arange(out.numel())).reshape(out.shape)
                                        .astype(np.float32)))
                record += [out.detach().numpy(), xt.grad.numpy()]
                record += [p.grad.numpy() for p in mha.parameters()]
                mha.zero_grad()
            for layer in layers:
                layer.train()
                xt = lib.tensor(x, requires_grad=True)
                out = layer(xt)
                out.backward(lib.tensor(np.sin(np.arange(out.numel())).reshape(out.shape)
                                        .astype(np.float32)))
                record += [out.detach().numpy(), xt.grad.numpy()]
                record += [p.grad.numpy() for p in layer.parameters()]
            optimizer = lib.optim.Adam(block.parameters(), lr=1e-2)
            for _ in range(3):
                optimizer.zero_grad()
                loss = ((block(lib.tensor(tokens)) - lib.tensor(target)) ** 2).mean()
                loss.backward()
                optimizer.step()
                record.append(np.float32(loss.item()))
            record += [p.detach().numpy() for p in block.parameters()]
            seen.append([a.tobytes() for a in record])
    finally:
        for lib, count in zip(LIBS, saved):
            lib.set_num_threads(count)
    assert seen[0] == seen[1], [i for i, (a, b) in enumerate(zip(*seen)) if a != b]


def _graph(node, depth=0):
    if node is None or depth > 6:
        return None
    return (type(node).__name__, tuple(_graph(n, depth + 1) for n, _ in node.next_functions))


def test_empty_inputs_mask_dtypes_and_nan_scores_match_torch():
    """Empty q, k or v: torch answers zeros of the output's shape joined to the graph by
    ``(q.sum() + k.sum() + v.sum()) * 0`` (AddBackward0 over MulBackward1), in every layout
    and dtype; a mask must be bool, float32 or the query's dtype (torch's error); NaN scores
    without a mask follow the kernel's maxima (a row of fewer scores than a vector that are all
    NaN is fully masked: zeros; a NaN in a whole vector spreads)."""
    shapes = [((0, 2, 4, 8), (0, 2, 5, 8), (0, 2, 5, 3), (1, 1, 1)),
              ((2, 0, 4, 8), (2, 0, 5, 8), (2, 0, 5, 8), (1, 0, 1)),
              ((2, 2, 0, 8), (2, 2, 5, 8), (2, 2, 5, 8), (1, 1, 1)),
              ((2, 4, 8), (2, 0, 8), (2, 0, 8), (0, 1, 0)),
              ((2, 4, 8), (2, 5, 7), (2, 0, 0), (1, 0, 0)),
              ((2, 2, 4, 0), (2, 2, 5, 0), (2, 2, 5, 0), (0, 0, 0))]
    for dtype in ("float32", "float64", "int64", "bool"):
        for *sizes, requires in shapes:
            seen = []
            for lib in LIBS:
                kind = getattr(lib, dtype)
                tensors = [lib.zeros(s, dtype=kind, requires_grad=bool(r) and dtype[0] == "f")
                           for s, r in zip(sizes, requires)]
                out = lib.nn.functional.scaled_dot_product_attention(*tensors)
                record = [tuple(out.shape), str(out.dtype).split(".")[1], _graph(out.grad_fn)]
                if out.requires_grad:
                    out.sum().backward()
                    record.append([None if t.grad is None else tuple(t.grad.shape)
                                   for t in tensors])
                seen.append(record)
            assert seen[0] == seen[1], (dtype, sizes)
    for query, mask in [("float32", "float64"), ("float32", "float16"), ("float64", "float16"),
                        ("float64", "float32"), ("float32", "bool")]:
        seen = []
        for lib in LIBS:
            q = lib.zeros(1, 2, 4, 8, dtype=getattr(lib, query))
            try:
                lib.nn.functional.scaled_dot_product_attention(
                    q, q, q, attn_mask=lib.zeros(4, 4, dtype=getattr(lib, mask)))
                seen.append("ok")
            except RuntimeError as error:
                seen.append(str(error).splitlines()[0])
        assert seen[0] == seen[1], (query, mask)
    saved = _threads(1)
    try:
        for dtype, source, where in itertools.product((np.float32, np.float64), (5, 16, 20, 37),
                                                      (0, 1, 2)):
            rng = np.random.default_rng(source)
            arrays = [rng.standard_normal(s).astype(dtype)
                      for s in ((1, 2, 6, 8), (1, 2, source, 8), (1, 2, source, 8))]
            arrays[where][0, 1, 2 if where == 0 else source - 3, 5] = np.nan
            seen = []
            for lib in LIBS:
                tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
                out = lib.nn.functional.scaled_dot_product_attention(*tensors)
                out.backward(lib.ones_like(out))
                seen.append([out.detach().numpy().tobytes()]
                            + [t.grad.numpy().tobytes() for t in tensors])
            assert seen[0] == seen[1], (dtype, source, where)
    finally:
        for lib, count in zip(LIBS, saved):
            lib.set_num_threads(count)


def test_three_d_inputs_take_torchs_math_path_bit_for_bit():
    """3-d q, k, v go to torch's math path (q and k^T scaled by sqrt(scale), bmm, the mask
    added, _safe_softmax, bmm): its nodes and its bits, with and without masks and causal."""
    saved = _threads(1)
    differing = []
    try:
        for dtype, (shape, source), mask in itertools.product(
                (np.float32, np.float64), (((3, 5, 8), 7), ((2, 40, 16), 33)),
                (None, "bool 2-d", "causal")):
            rng = np.random.default_rng(source)
            arrays = [rng.standard_normal(s).astype(dtype)
                      for s in (shape, shape[:-2] + (source, shape[-1]),
                                shape[:-2] + (source, shape[-1]))]
            arrays.append(rng.standard_normal(shape).astype(dtype))
            arrays.append(rng.random((shape[1], source)) < 0.7)
            seen = [_run(lib, arrays, mask, (True, True, True)) for lib in LIBS]
            if seen[0] != seen[1]:
                differing.append((dtype.__name__, shape, mask, [a == b for a, b in zip(*seen)]))
    finally:
        for lib, count in zip(LIBS, saved):
            lib.set_num_threads(count)
    assert not differing, differing
