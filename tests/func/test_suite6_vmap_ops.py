"""vmap over the commonly used ops, replaying test_vmap.py's op batching tests as one program
run under torch and leafgrad: every op at in_dims 0, 1 and -1, nested, and in float32; binary
ops with every input batched or shared; in-place ops writing a batched value into an unbatched
tensor (torch's errors). Values, dtypes, shapes and errors must be torch's.

Left out: float32 bits of sigmoid/gelu/inverse/det/cdist/matrix_exp (kernel rounding, not
vmap's: leafgrad's vmap equals its own unbatched result). ``view`` of an input vmapped at dim 1
is left to test_views_of_inputs_vmapped_at_any_dim.
"""

from __future__ import annotations

import numpy as np

from ..test_suite4_findings import _outcome, _same

FLOAT32_BITS = {"gelu", "sigmoid", "inverse", "det", "cdist", "matrix_exp"}


def _unary(m, F):
    return {
        "hash_tensor": lambda a: m.hash_tensor(a), "hash_tensor1": lambda a: a.hash_tensor(1),
        "cov": m.cov, "corrcoef": m.corrcoef,
        "sin": lambda a: a.sin(),
        "exp": lambda a: a.exp(),
        "relu": F.relu,
        "gelu": F.gelu,
        "tanh": m.tanh,
        "sigmoid": m.sigmoid,
        "softmax0": lambda a: a.softmax(0),
        "softmax-1": lambda a: F.softmax(a, -1),
        "log_softmax": lambda a: F.log_softmax(a, -1),
        "sum": lambda a: a.sum(),
        "sum0": lambda a: a.sum(0),
        "sum-1k": lambda a: a.sum(-1, keepdim=True),
        "mean": lambda a: a.mean(),
        "mean01": lambda a: a.mean((0, 1)),
        "var": lambda a: a.var(),
        "std0": lambda a: a.std(0),
        "max": lambda a: a.max(),
        "max0": lambda a: a.max(0),
        "argmax": lambda a: a.argmax(),
        "argmax1": lambda a: a.argmax(1),
        "min1k": lambda a: a.min(1, keepdim=True),
        "amax": lambda a: a.amax(-1),
        "norm": lambda a: a.norm(),
        "norm0": lambda a: a.norm(dim=0),
        "logsumexp": lambda a: a.logsumexp(1),
        "cumsum": lambda a: a.cumsum(0),
        "cumprod": lambda a: a.cumprod(-1),
        "t": lambda a: a.t(),
        "T": lambda a: a.mT,
        "transpose": lambda a: a.transpose(0, 1),
        "permute": lambda a: a.permute(1, 0),
        "view": lambda a: a.view(-1),
        "reshape": lambda a: a.reshape(2, -1),
        "flatten": lambda a: a.flatten(),
        "unsqueeze": lambda a: a.unsqueeze(0),
        "unsqueeze-1": lambda a: a.unsqueeze(-1),
        "squeeze": lambda a: a.unsqueeze(1).squeeze(1),
        "expand": lambda a: a[:, :1].expand(4, 5),
        "repeat": lambda a: a.repeat(2, 1),
        "flip": lambda a: a.flip(0),
        "roll": lambda a: a.roll(1, 0),
        "getitem0": lambda a: a[0],
        "getitem_slice": lambda a: a[:, 1:3],
        "getitem_none": lambda a: a[None, ..., 1],
        "getitem_neg": lambda a: a[-1, ::2],
        "getitem_list": lambda a: a[[0, 2]],
        "select": lambda a: a.select(1, 2),
        "narrow": lambda a: a.narrow(1, 1, 2),
        "chunk": lambda a: a.chunk(2, 1),
        "split": lambda a: a.split(2, 0),
        "unbind": lambda a: a.unbind(1),
        "diag": lambda a: a.diagonal(),
        "tril": lambda a: a.tril(),
        "triu1": lambda a: a.triu(1),
        "clamp": lambda a: a.clamp(-0.5, 0.5),
        "abs": lambda a: a.abs(),
        "pow2": lambda a: a ** 2,
        "rpow": lambda a: 2 ** a,
        "where": lambda a: m.where(a > 0, a, 0.0),
        "masked_fill": lambda a: a.masked_fill(a > 0, 1.0),
        "sort": lambda a: a.sort(1),
        "topk": lambda a: a.topk(2, 1),
        "argsort": lambda a: a.argsort(0),
        "clone": lambda a: a.clone(),
        "contiguous": lambda a: a.t().contiguous(),
        "to32": lambda a: a.to(m.float32),
        "float": lambda a: a.float(),
        "long": lambda a: (a * 3).long(),
        "zeros_like": m.zeros_like,
        "ones_like": m.ones_like,
        "full_like": lambda a: m.full_like(a, 2.0),
        "new_zeros": lambda a: a.new_zeros(2),
        "dropout_eval": lambda a: F.dropout(a, 0.5, training=False),
        "layer_norm": lambda a: F.layer_norm(a, (5,)),
        "normalize": lambda a: F.normalize(a, dim=-1),
        "matrix_exp": lambda a: a[:, :4].matrix_exp(),
        "inverse": lambda a: (a[:, :4] + 4 * m.eye(4, dtype=a.dtype)).inverse(),
        "det": lambda a: a[:, :4].det(),
        "trace": lambda a: a.trace(),
        "outer": lambda a: m.outer(a[0], a[1]),
        "cat_self": lambda a: m.cat([a, a], 0),
        "stack_self": lambda a: m.stack([a, a], 1),
        "mm_self": lambda a: a @ a.t(),
        "einsum": lambda a: m.einsum("ij,kj->ik", a, a),
        "one_hot": lambda a: F.one_hot(a.abs().long().clamp(max=2), 3),
        "pad": lambda a: F.pad(a, (1, 2)),
        "pad_reflect": lambda a: F.pad(a[None], (1, 1), mode="reflect"),
        "nonzero": lambda a: a.nonzero(),
        "masked_select": lambda a: a[a > 0],
        "any": lambda a: (a > 0).any(),
        "all1": lambda a: (a > 0).all(1),
        "eq": lambda a: a == a[0],
        "isnan": lambda a: a.isnan(),
        "sign": m.sign,
        "round": lambda a: a.round(decimals=1),
        "fmod": lambda a: a.fmod(0.3),
        "lerp": lambda a: a.lerp(a.flip(0), 0.3),
        "unfold": lambda a: a.unfold(1, 2, 1),
        "index_select": lambda a: a.index_select(1, m.tensor([0, 2])),
        "gather": lambda a: a.gather(1, m.tensor([[0], [1], [2], [0]])),
        "scatter": lambda a: a.scatter(1, m.tensor([[0], [1], [2], [0]]), 1.0),
        "item_like": lambda a: a.sum().tolist(),
        "cross_entropy": lambda a: F.cross_entropy(a, m.tensor([0, 1, 2, 4])),
        "mse": lambda a: F.mse_loss(a, a.flip(0)),
        "nll": lambda a: F.nll_loss(a.log_softmax(-1), m.tensor([0, 1, 2, 4])),
        "linear": lambda a: F.linear(a, m.ones(2, 5, dtype=a.dtype)),
        "embedding": lambda a: F.embedding(m.tensor([0, 2]), a),
        "bce": lambda a: F.binary_cross_entropy(a.sigmoid(), (a > 0).to(a.dtype)),
        "conv1d": lambda a: F.conv1d(a[None], m.ones(2, 4, 3, dtype=a.dtype)),
        "max_pool1d": lambda a: F.max_pool1d(a[None], 2),
        "avg_pool1d": lambda a: F.avg_pool1d(a[None], 2),
        "interpolate": lambda a: F.interpolate(a[None], scale_factor=2),
        "batch_norm_eval":
            lambda a: F.batch_norm(a, m.zeros(5, dtype=a.dtype), m.ones(5, dtype=a.dtype)),
        "median": lambda a: a.median(),
        "median1": lambda a: a.median(1),
        "mode": lambda a: (a * 2).round().mode(1),
        "quantile": lambda a: a.quantile(0.3),
        "kthvalue": lambda a: a.kthvalue(2, 1),
        "unique": lambda a: a.round().unique(),
        "bincount": lambda a: (a.abs() * 2).long().flatten().bincount(),
        "histc": lambda a: a.histc(4),
        "cdist": lambda a: m.cdist(a, a),
        "tensordot": lambda a: m.tensordot(a, a, ([1], [1])),
        "diag_embed": lambda a: m.diag_embed(a[0]),
        "movedim": lambda a: a.movedim(0, 1),
        "split_sizes": lambda a: a.split([1, 3], 0),
        "tile": lambda a: a.tile(2),
        "rot90": lambda a: a.rot90(),
        "kron": lambda a: m.kron(a[:2, :2], a[:2, :2]),
    }


def _binary(m, F):
    def setitem(a, b):
        c = a.clone()
        c[0] = b[1]
        return c

    def inplace_into_unbatched(a, b):
        z = m.zeros(4, 5, dtype=a.dtype)
        z.add_(a)
        return z

    def sorted_rows(a):
        return a.sort(-1).values

    return {
        "searchsorted": lambda a, b: m.searchsorted(sorted_rows(a), b),
        "searchsorted_right": lambda a, b: m.searchsorted(sorted_rows(a), b[:, :2], right=True),
        "bucketize": lambda a, b: m.bucketize(b, sorted_rows(a)[0]),
        "isin": lambda a, b: m.isin(a.round(), b.round()),
        "add": m.add,
        "mul": m.mul,
        "sub": lambda a, b: a - b,
        "div": lambda a, b: a / b,
        "pow": lambda a, b: a.abs() ** b,
        "matmul": lambda a, b: a @ b.t(),
        "mm": lambda a, b: m.mm(a, b.t()),
        "bmm": lambda a, b: m.bmm(a[None], b.t()[None]),
        "dot": lambda a, b: m.dot(a[0], b[0]),
        "mv": lambda a, b: m.mv(a, b[0]),
        "maximum": m.maximum,
        "atan2": m.atan2,
        "where": lambda a, b: m.where(a > b, a, b),
        "cat": lambda a, b: m.cat([a, b], 1),
        "stack": lambda a, b: m.stack([a, b]),
        "lt": lambda a, b: a < b,
        "eq": m.eq,
        "mse": F.mse_loss,
        "l1": F.l1_loss,
        "cos_sim": lambda a, b: F.cosine_similarity(a, b),
        "addmm": lambda a, b: m.addmm(a[:, :4], a, b.t()[:, :4]),
        "einsum": lambda a, b: m.einsum("ij,ij->i", a, b),
        "linear": lambda a, b: F.linear(a, b),
        "bilinear_like": lambda a, b: (a[:, None] * b[None]).sum(-1),
        "copy_": lambda a, b: a.clone().copy_(b),
        "add_": lambda a, b: a.clone().add_(b),
        "mul_": lambda a, b: a.clone().mul_(b),
        "index_put": lambda a, b: a.index_put((m.tensor([0, 1]),), b[:2]),
        "masked_scatter": lambda a, b: a.masked_scatter(a > 0, b),
        "lerp": lambda a, b: m.lerp(a, b, 0.25),
        "clamp_t": lambda a, b: a.clamp(min=b),
        "cdist": m.cdist,
        "kl": lambda a, b: F.kl_div(a.log_softmax(-1), b.softmax(-1), reduction="batchmean"),
        "huber": F.huber_loss,
        "smooth_l1": F.smooth_l1_loss,
        "setitem": lambda a, b: setitem(a, b),
        "inplace_unbatched": lambda a, b: inplace_into_unbatched(a, b),
    }


def test_vmap_of_common_ops_as_torch():
    def program(m):
        F = m.nn.functional
        rng = np.random.default_rng(0)
        batch = 3

        def T(*shape, dtype="float64"):
            return m.tensor(rng.standard_normal(shape), dtype=getattr(m, dtype))

        seen = []
        for name, fn in _unary(m, F).items():
            for dim, shape in ((0, (batch, 4, 5)), (1, (4, batch, 5)), (-1, (4, 5, batch))):
                x = T(*shape)
                seen.append((name, dim, _outcome(lambda: m.vmap(fn, in_dims=dim)(x))))
            nested = T(4, 2, batch, 5).permute(2, 1, 0, 3).contiguous().permute(1, 0, 2, 3)
            seen.append((name, "nested", _outcome(lambda: m.vmap(m.vmap(fn), in_dims=1)(nested))))
            if name not in FLOAT32_BITS:
                x = T(batch, 4, 5, dtype="float32")
                seen.append((name, "float32", _outcome(lambda: m.vmap(fn)(x))))
        shapes = {None: (4, 5), 0: (batch, 4, 5), 1: (4, batch, 5), -1: (4, 5, batch)}
        for name, fn in _binary(m, F).items():
            for dims in ((0, 0), (0, None), (None, 0), (1, 0), (0, -1)):
                args = [T(*shapes[d]) for d in dims]
                seen.append((name, dims, _outcome(lambda: m.vmap(fn, in_dims=dims)(*args))))
        return seen

    _same(program)


def test_inplace_ops_refuse_a_batched_value_into_an_unbatched_tensor():
    """torch's three refusals: its in-place arithmetic rules, ops with a rule of their own
    (fill_) and the slow fallback (aten::<op>_, naming the level); add_ broadcasts first and
    gives the shape error."""

    def program(m):
        x = m.ones(3, 4)
        ops = {
            "add_": lambda s, b: s.add_(b), "sub_": lambda s, b: s.sub_(b),
            "mul_": lambda s, b: s.mul_(b), "div_": lambda s, b: s.div_(b),
            "pow_": lambda s, b: s.pow_(b), "clamp_": lambda s, b: s.clamp_(min=b),
            "copy_": lambda s, b: s.copy_(b),
            "masked_fill_": lambda s, b: s.masked_fill_(b > 0, 1.0),
            "addcmul_": lambda s, b: s.addcmul_(b, b), "lerp_": lambda s, b: s.lerp_(b, 0.5),
            "atan2_": lambda s, b: s.atan2_(b), "add_alpha": lambda s, b: s.add_(b, alpha=2),
            "iadd": lambda s, b: s.__iadd__(b), "imul": lambda s, b: s.__imul__(b),
            "setitem": lambda s, b: s.__setitem__(0, b[0]), "fill_": lambda s, b: s.fill_(b[0]),
            "hypot_": lambda s, b: s.hypot_(b), "floor_divide_": lambda s, b: s.floor_divide_(b),
            "remainder_": lambda s, b: s.remainder_(b), "eq_": lambda s, b: s.eq_(b),
            "masked_scatter_": lambda s, b: s.masked_scatter_(b > 0, b),
            "mul_sum": lambda s, b: s.mul_(b.sum()), "relu_": lambda s, b: m.relu_(s + b),
            "batched_self": lambda s, b: b.clone().mul_(s),
        }
        seen = []
        for name, fn in ops.items():
            for inner in (False, True):
                def call(b):
                    if inner:  # an unbatched tensor of the outer level, batched inner value
                        return m.vmap(lambda c: fn(m.ones(4), c))(b.expand(2, 4))
                    return fn(m.ones(4), b)

                seen.append((name, inner, _outcome(lambda: m.vmap(call)(x))))
        return seen

    _same(program)


def test_views_of_inputs_vmapped_at_any_dim():
    """view/view_as under vmap view the physical tensor with the batch dim in front, as torch's
    rule: an input vmapped at a later dim whose example cannot be viewed so raises view's error
    (leafgrad copied it first); reshape/flatten/unflatten copy as needed. Every in_dim, nested."""

    def program(m):
        base = m.arange(2 * 3 * 4 * 5.0).view(2, 3, 4, 5)
        calls = {
            "view-1": lambda a: a.view(-1), "view2": lambda a: a.view(a.shape[0], -1),
            "view_last": lambda a: a.view(*a.shape[:-1], 1, a.shape[-1]),
            "view_as": lambda a: a.view_as(m.ones(a.numel())),
            "t_view": lambda a: a.transpose(0, 1).view(-1), "reshape": lambda a: a.reshape(-1),
            "flatten": lambda a: a.flatten(),
            "unflatten": lambda a: a.unflatten(0, (a.shape[0], 1)),
            "view_split": lambda a: a.view(a.shape[0] * a.shape[1], -1),
        }
        seen = []
        for dim in range(4):
            for name, fn in calls.items():
                seen.append((dim, name, _outcome(lambda: m.vmap(fn, in_dims=dim)(base))))
                nested = m.vmap(m.vmap(fn, in_dims=dim % 3), in_dims=(dim + 1) % 4)
                seen.append((dim, name, _outcome(lambda: nested(base))))
        return seen

    _same(program)
