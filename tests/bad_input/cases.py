"""The bad-input cases: each a Python expression run with ``lib`` = torch and = leafgrad in the
namespace of runner.namespace (a, m, i, z (0-d), e (empty), bl, w (leaf requiring grad), h (a
non-leaf), n (nan/inf), u8, i8). Grouped by the kind of bad input; see test_bad_input.py."""

from __future__ import annotations

_ODD = ["None", "'2'", "[1, 2]", "(1,)", "decimal.Decimal(2)", "fractions.Fraction(1, 2)",
        "object()", "{}", "b'x'"]

OPERANDS = (
    [f"a {op} {value}" for op in ("+", "*", "-", "/", "**", "//", "%", "<", "@")
     for value in _ODD[:7]]
    + [f"{value} + a" for value in _ODD]
    + [f"lib.{fn}(a, {value})" for fn in ("add", "mul", "sub", "div", "maximum", "pow", "eq",
                                         "atan2", "fmod", "remainder")
       for value in ("None", "'2'", "[1]")]
    + ["a == None", "a != 'x'", "a & 1", "i & 1.5", "bl | 2", "i ^ None", "a += None",
       "lib.where(bl, a, None)", "lib.where(bl, a, '1')", "lib.clamp(a, '0')",
       "a.add(a, alpha='x')", "a.mul_(None)", "a.add_([1, 2, 3])", "a + np.float64(2)",
       "a * np.int32(3)", "a + np.array(2.0)", "a + np.array([1.0, 2.0, 3.0])", "a + True",
       "a + 2j", "i + 2**62", "i8 + 300", "u8 - 3", "i8 * 2", "lib.tensor([2**62]) * 4"]
)

CONSTRUCTORS = [
    "lib.tensor(None)", "lib.tensor({})", "lib.tensor({1})", "lib.tensor(x for x in [1])",
    "lib.tensor('abc')", "lib.tensor(b'ab')", "lib.tensor([1, None])", "lib.tensor([[1, 2], [3]])",
    "lib.tensor([[1], [2, 3]])", "lib.tensor([1, [2]])", "lib.tensor([])", "lib.tensor([[]])",
    "lib.tensor(2**63)", "lib.tensor(-2**63 - 1)", "lib.tensor([1, 2**64])", "lib.tensor(1e400)",
    "lib.tensor(float('nan'))", "lib.tensor([1, 'a'])", "lib.tensor(object())",
    "lib.tensor([a, a])", "lib.tensor([z, z])", "lib.tensor([1.5], dtype=lib.int64)",
    "lib.tensor(3, dtype=lib.bool)", "lib.tensor([1, 2], dtype='float32')",
    "lib.tensor([True, 2])", "lib.tensor([1, 2.5, True])", "lib.tensor(decimal.Decimal(1))",
    "lib.tensor(fractions.Fraction(1, 2))", "lib.tensor([[1, 2], (3, 4)])", "lib.tensor(range(3))",
    "lib.tensor(np.array([1, 2]))", "lib.tensor(np.float32(2.5))", "lib.tensor([np.int64(1)])",
    "lib.zeros(-1)", "lib.zeros(2, -3)", "lib.ones((2, 'a'))", "lib.empty(2.5)",
    "lib.zeros(None)", "lib.zeros([2, None])", "lib.rand(-1)", "lib.randn(2, dtype=lib.int64)",
    "lib.randint(5, 2, (3,))", "lib.randint(0, 0, (2,))", "lib.arange(0, 10, 0)",
    "lib.arange(10, 0)", "lib.arange(0, 1, -0.1)", "lib.linspace(0, 1, -1)", "lib.eye(-1)",
    "lib.full((2,), 'a')", "lib.full((2,), None)", "lib.zeros(2, dtype=int)",
    "lib.zeros(2, dtype=float)", "lib.zeros(2, dtype='x')", "lib.ones(2, 3, size=(2,))",
    "lib.arange(5, dtype=lib.bool)", "lib.full((2,), 1.5, dtype=lib.int64)",
    "lib.tensor([[1, 2]]).new_zeros(-1)", "lib.from_numpy([1, 2])",
    "lib.from_numpy(np.array(['a']))", "lib.as_tensor([1, None])", "lib.Tensor(2, 3).shape",
    "lib.Tensor([1, 2])", "lib.Tensor('a')", "lib.tensor([1.0], requires_grad=1)",
    "lib.tensor([1], requires_grad=True)", "lib.ones(2, dtype=lib.int64, requires_grad=True)",
]

SHAPES = [
    "m + lib.ones(3, 2)", "m @ m", "m.view(4)", "m.view(-1, -1)", "m.reshape(4)", "m.reshape(-1, 4)",
    "m.expand(3, 3)", "m.expand(2)", "m.permute(0)", "m.permute(0, 0)", "m.transpose(0, 2)",
    "m.squeeze(3)", "m.unsqueeze(4)", "m.flatten(1, 0)", "lib.cat([m, a])", "lib.cat([])",
    "lib.stack([a, m])", "lib.stack([])", "m.split(0)", "m.chunk(0)", "m.narrow(0, 1, 5)",
    "m.select(0, 5)", "m.select(2, 0)", "m[2]", "m[:, 3]", "m[0, 0, 0]", "m.t().view(6)",
    "lib.mm(m, m)", "lib.bmm(m, m)", "lib.mv(m, m)", "lib.dot(a, m)", "lib.dot(a, i)",
    "lib.matmul(a, lib.ones(4))", "lib.outer(m, a)", "m.repeat(2)", "m.unflatten(1, (2, 2))",
    "m.movedim(0, 5)", "lib.broadcast_shapes((2,), (3,))", "lib.broadcast_to(m, (3,))",
    "m.view(3, 2).t().view(6)", "a.expand(2, -1)", "a.expand(-1, 3)", "lib.tile(m, (-1,))",
    "m.diagonal(0, 0, 0)", "lib.einsum('ij,jk', m, m)", "lib.einsum('ij->k', m)",
    "lib.tensordot(m, m, 1)", "lib.kron(m, 'a')", "lib.cat([m, m.long()])", "lib.cat([m], 2)",
    "lib.stack([a, a], 2)", "m.sum((0, 0))", "m.sum(2)", "m.mean(-3)", "m.softmax(2)",
    "lib.linalg.inv(m)", "lib.linalg.det(m)", "lib.linalg.solve(lib.eye(3), m)",
    "lib.linalg.cholesky(-lib.eye(2))", "lib.cross(a, m)",
]

DTYPES = [
    "i.mean()", "i.std()", "i.sqrt()", "bl + bl", "bl - bl", "-bl", "~a", "a & a", "a << 1",
    "i.exp_()", "i.sqrt_()", "a.bitwise_not()", "i.true_divide_(2)", "bl.neg()", "bl.sum()",
    "bl.mean()", "i.var()", "i.median()", "i.log()", "u8 - 300", "lib.tensor([1]).float().half()",
    "a.to('foo')", "a.to(lib.int64)", "a.long().requires_grad_()", "i.requires_grad_()",
    "a.type('torch.IntTensor')", "lib.zeros(2, dtype=lib.float16) + 1", "lib.ones(2).to(lib.bool)",
    "i.softmax(0)", "lib.nn.functional.relu(i)", "lib.nn.functional.linear(i, i)",
    "lib.nn.functional.cross_entropy(a, i)", "lib.nn.functional.mse_loss(a, i)",
    "lib.nn.functional.nll_loss(m, lib.tensor([0.5, 1.5]))", "lib.mm(m, m.t().long())",
    "i.float().int()", "lib.tensor([3.7, -3.7]).int()", "lib.tensor([300.0]).to(lib.uint8)",
    "i // 2.5", "i % 2.5", "bl * 2.5", "lib.where(bl, i, a)", "lib.where(i, a, a)",
    "lib.clamp(i, 0.5)", "lib.pow(i, -1)", "lib.pow(i, 0.5)", "i ** -1", "2 ** i",
    "lib.histc(i, 3)", "lib.bincount(a)", "lib.bincount(lib.tensor([-1]))",
    "lib.tensor([1.0]).item() + lib.tensor([1]).item()",
]

INDICES = [
    "m.gather(1, lib.tensor([[3]]))", "m.gather(1, lib.tensor([[-1]]))",
    "m.gather(1, lib.tensor([[0.0]]))", "m.gather(1, lib.tensor([0]))",
    "m.gather(2, lib.tensor([[0]]))", "m.index_select(1, lib.tensor([[0]]))",
    "m.index_select(1, lib.tensor([0.0]))", "m.index_select(2, lib.tensor([0]))",
    "m.index_select(1, lib.tensor([-1]))", "lib.zeros(3).scatter_(0, lib.tensor([5]), 1.0)",
    "lib.zeros(3).scatter_(0, lib.tensor([1.0]), 1.0)",
    "lib.zeros(3).scatter_add_(0, lib.tensor([3]), lib.ones(1))",
    "lib.zeros(3).scatter(0, lib.tensor([0, 1]), lib.ones(1))",
    "lib.zeros(3).index_add_(0, lib.tensor([0]), lib.ones(2))",
    "lib.zeros(3).index_add_(0, lib.tensor([4]), lib.ones(1))",
    "lib.zeros(3).index_fill_(0, lib.tensor([5]), 1.0)",
    "lib.zeros(3).index_fill_(0, lib.tensor([1]), 2.0)",
    "lib.zeros(3).index_copy_(0, lib.tensor([1]), lib.ones(1))",
    "lib.zeros(3).index_copy_(0, lib.tensor([3]), lib.ones(1))",
    "lib.zeros(3).put_(lib.tensor([1]), lib.ones(1))", "lib.zeros(3).put_(lib.tensor([3]), lib.ones(1))",
    "a.take(lib.tensor([3]))", "a.take(lib.tensor([-1]))", "m[lib.tensor([2])]",
    "m[lib.tensor([True])]", "m[lib.tensor([1.0])]", "m[[0, 5]]", "m[..., ..., 0]",
    "m[None, None]", "m['a']", "m[1.5]", "m[lib.tensor([[True, False, True]])]",
    "m[..., None, ...]", "m[..., None, 1]", "m[lib.tensor(1)]", "m[-3]", "m[:, -4]",
    "m.masked_fill(lib.ones(2, 3), 1.0)", "m.masked_fill(lib.ones(4, dtype=lib.bool), 1.0)",
    "m.masked_select(lib.ones(4, dtype=lib.bool))", "m.masked_fill(m > 1, lib.ones(2))",
    "lib.nn.functional.embedding(lib.tensor([3]), m)",
    "lib.nn.functional.embedding(lib.tensor([0.5]), m)",
    "lib.nn.functional.one_hot(lib.tensor([-1]))", "lib.nn.functional.one_hot(lib.tensor([3]), 2)",
    "lib.nn.functional.one_hot(a)", "a.flip(2)", "m.roll(1, 5)", "lib.topk(a, 5)",
    "lib.kthvalue(a, 0)", "a.sort(dim=1)", "a.argsort(dim=2)", "lib.zeros(3).index_put_((lib.tensor([3]),), lib.ones(1))",
    "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'sum')",
    "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'bogus')",
    "lib.nn.functional.cross_entropy(m, lib.tensor([0, 3]))",
    "lib.nn.functional.nll_loss(m, lib.tensor([0, -5]))", "a.unbind(1)", "m.split([1, 1], 0)",
]

NAN_INF = [
    "n.sum()", "n.max()", "n.argmax()", "n.sort()", "n.clamp(0, 1)", "n.relu()", "n.sigmoid()",
    "n.log()", "lib.tensor([-1.0]).sqrt()", "lib.tensor([0.0]).log()", "a / 0", "i // 0",
    "i % 0", "lib.tensor([0]) / 0", "n.isnan()", "lib.nan_to_num(n)", "lib.softmax(n, 0)",
    "lib.log_softmax(lib.tensor([-math.inf, -math.inf]), 0)", "lib.tensor([math.inf]).exp()",
    "n.mean()", "n.std()", "lib.isclose(n, n)", "n.round()", "n.floor()", "n.median()",
    "n.topk(2)", "n.cumsum(0)", "n.amax()", "n.min(0)", "n.unique()", "lib.tensor([1e38]) * 10",
    "lib.tensor([1e-45]) / 2", "n.tanh()", "n.sign()", "lib.allclose(n, n)",
]

EMPTY_0D = [
    "e.sum()", "e.mean()", "e.max()", "e.min()", "e.argmax()", "e.prod()", "e.std()", "e.var()",
    "e.median()", "e.amax()", "e.logsumexp(0)", "e.softmax(0)", "e.cumsum(0)", "e.sort()",
    "e.topk(0)", "e.topk(1)", "e.view(0, 5)", "e.reshape(-1, 0)", "e.norm()", "e.all()", "e.any()",
    "e.unique()", "lib.cat([e, a])", "lib.stack([e, e])", "e.max(0)", "e.mean(0)", "e.item()",
    "e.nanmean()", "lib.zeros(0, 3).mean(0)", "lib.zeros(0, 3).max(1)", "lib.zeros(0, 3).sum(1)",
    "z.sum(0)", "z.mean(0)", "z.max(0)", "z.argmax()", "z.view(1)", "z.t()", "z.transpose(0, 0)",
    "z.unsqueeze(0)", "z.squeeze(0)", "z.flip(0)", "z.gather(0, lib.tensor(0))",
    "z.index_select(0, lib.tensor([0]))", "z.chunk(2)", "z[0]", "z[None]", "z.item()", "a.item()",
    "z.tolist()", "z.size(0)", "z.size(1)", "z.softmax(0)", "z.cumsum(0)", "z.sort()", "z.topk(1)",
    "len(z)", "list(z)", "z.unbind()", "z.expand(3)", "z.repeat(2)", "z.norm(dim=0)",
    "z.log_softmax(1)", "z.flatten()", "z.permute()", "z.dim()", "z.numel()", "z.min(1)",
    "lib.cat([z, z])", "lib.stack([z, z])", "z @ z", "lib.dot(z, z)", "z.diag()",
]

AUTOGRAD = [
    "w.backward()", "a.backward()",
    "(lambda y: (lib.autograd.grad(y, w), lib.autograd.grad(y, w)))(h.sum())",
    "w.add_(1)", "w.numpy()", "h.numpy()", "w.__setitem__(0, 1.0)",
    "lib.autograd.grad(h.sum(), a)", "lib.autograd.grad(h.sum(), w, lib.ones(2))",
    "lib.autograd.grad(h, w)", "w.grad.zero_()", "h.requires_grad_(False)",
    "h.backward(lib.ones(2))", "h.backward(lib.ones(3, dtype=lib.int64))",
    "(lambda y: (y.mul_(2), y.sum().backward()))(w.exp())",
    "lib.autograd.grad([h.sum(), h.sum()], w, [lib.ones(())])", "F.relu(w, inplace=True)",
    "w.register_hook(5)", "h.grad", "w.data.add_(1)", "w.detach().add_(1)",
    "lib.autograd.grad(h.sum(), [w, w])", "lib.autograd.grad(h.sum(), w, allow_unused='x')",
    "lib.autograd.backward(h.sum(), inputs=[a])", "h.retain_grad()", "w.retain_grad()",
    "(lambda y: (y.sum().backward(), y.grad))(w * 3)", "w.grad", "w.sum().item()",
    "w.exp_()", "h.exp_()", "w[0].mul_(2)", "w.view(3).mul_(2)", "lib.sigmoid_(w)",
    "w.resize_(6)", "w.requires_grad_('x')", "lib.autograd.grad(w.sum(), w, create_graph=True)",
    "lib.autograd.functional.jacobian(lambda x: x, 5)" if False else "w.T",
    "(lambda y: lib.autograd.grad(y, w, retain_graph=False) + lib.autograd.grad(y, w))(h.sum())",
    "lib.autograd.grad(h.sum(), w, grad_outputs=lib.ones(3))",
    "w.new_ones(2).requires_grad_().add_(1)", "h.detach_()", "h.t_()",
]

HUGE = [
    "lib.empty(10**13)", "lib.zeros(2**40, 2**30)", "lib.ones(10**13, dtype=lib.bool)",
    "a.expand(10**10).shape", "a.repeat(10**9, 10**9)", "lib.arange(10**13)",
    "lib.eye(10**7)", "lib.randn(10**7, 10**7)", "lib.full((10**13,), 1.0)",
    "lib.zeros(2**63)", "lib.ones(10**5, 10**5, 10**5)", "a.new_zeros(10**13)",
]

# The argument parser's messages across whole families (every form of each function: the
# torch.<name> function, the method, the in-place method), NumPy operands, size and dtype
# arguments.
PARSER = (
    [f"lib.{fn}(a, None)" for fn in ("ne", "lt", "le", "gt", "ge")]
    + [f"a.{fn}({value})" for fn in ("eq", "ne", "lt", "ge", "pow", "fmod", "remainder",
                                     "eq_", "pow_", "fmod_", "remainder_")
       for value in ("None", "'x'")]
    + [f"a.{fn}({value})" for fn in ("add", "sub", "mul", "div", "add_", "sub_", "div_",
                                     "maximum", "atan2", "hypot_")
       for value in ("None", "[1]")]
    + ["a.clamp('0')", "a.clamp_(None, '1')", "lib.clamp(a, None, '0')", "lib.clamp(a, min='x')",
       "lib.clamp(a, max=None)", "lib.where(None, a, a)", "lib.where(bl, a)", "lib.where(bl, None, a)",
       "lib.where(bl, 1, a)", "lib.pow(None, a)", "lib.pow(a)", "lib.pow(2, 3)", "lib.pow(2, a)",
       "lib.pow(a, np.float64(2))", "lib.pow(a, np.array(2.0))", "lib.pow(a, exponent=None)",
       "lib.pow(a, 2, 3)", "lib.eq(a, 1, 2)", "lib.eq(2, a)", "lib.eq(a, other='x')",
       "lib.eq(a, np.float64(2))", "lib.eq(a, np.array([1.0, 2.0, 3.0]))",
       "lib.remainder(2, a)", "lib.remainder(None, a)", "lib.fmod(2, a)", "lib.mul(a)",
       "lib.mul(None, a)", "lib.add(None, a)", "lib.add(a, other=None)", "lib.add(a, np.array(2.0))",
       "lib.add(a, a, alpha=None)", "a.add_(a, alpha='x')", "lib.sub(a, a, alpha='1')",
       "a.add(a, alpha=np.int64(2))", "a.add(a, alpha=lib.tensor(2))", "lib.minimum(a, 2)",
       "lib.atan2(a, 2)", "lib.kron('a', m)", "a.kron(2)", "lib.full((2,), a)", "lib.full(None, 1)",
       "lib.full((2,), lib.tensor(1.0))", "lib.full((2,), np.float32(1.0))",
       "lib.full((2,), 1, dtype=int)", "a.requires_grad_(1)", "lib.tensor([1.0], requires_grad=None)",
       "lib.eye(2.5)", "lib.eye(None)", "lib.eye(2, -1)", "lib.eye(2, dtype=int)",
       "lib.linspace(0, 1, 2.5)", "lib.linspace(0, 1, None)", "m.permute()", "z.size(-1)",
       "m.size(2)", "lib.broadcast_shapes((2, 3), (4, 1, 2))", "lib.broadcast_shapes((2, 1), (3,))"]
    + ["a - np.array([1, 2, 3])", "a / np.array(2)", "a ** np.array(2)", "a // np.array(2)",
       "a % np.array(2.0)", "a @ np.ones(3)", "a < np.array(2.0)", "i & np.array(1)",
       "w + np.array(2.0)", "w * np.array([1.0, 2.0, 3.0])", "i + np.array(2.5)",
       "a == np.array([1.0, 5.0, 3.0])", "a.add(np.array(2.0))", "i + np.float32(2.5)",
       "i + np.int32(2)", "np.float64(2) + a", "i8 + np.array(2, dtype=np.int8)"]
    + ["lib.ones(2, 'a')", "lib.ones(2, None)", "lib.ones('a')", "lib.zeros((2, 2.5))",
       "lib.zeros(2, 2.5)", "lib.zeros((2.5,))", "lib.zeros(np.int64(2))", "lib.zeros(lib.tensor(2))",
       "lib.zeros(True)", "lib.zeros((True, 2))", "lib.empty(-2)", "lib.randn(2, -1)",
       "lib.full((-1,), 1.0)", "lib.randint(0, 5, (-1,))", "a.new_ones((2, -1))", "a.new_empty(-1)",
       "a.new_full((-1,), 2.0)", "lib.rand(2, size=(2,))", "lib.zeros(2, dtype=bool)",
       "lib.ones(2, dtype=str)", "lib.zeros(2, dtype=np.float32)", "lib.arange(3, dtype=float)",
       "lib.rand(2, dtype='float32')", "lib.tile(m, (2, -1))", "m.repeat(-1, 2)"]
)

# tensor() from Python data: inference, ragged lists, leaves of every kind, overflow per dtype.
DATA = [
    "lib.tensor([lib.tensor([1, 2]), lib.tensor([3, 4])])", "lib.tensor([[1], 2])",
    "lib.tensor([[1], [2, 3]], dtype=lib.float32)", "lib.tensor([1, [2]], dtype=lib.float32)",
    "lib.tensor([1.5, [2]])", "lib.tensor([lib.tensor([1.5]), 2])", "lib.tensor([np.array(1.5), 2])",
    "lib.tensor([None])", "lib.tensor([None], dtype=lib.float32)", "lib.tensor([[None]])",
    "lib.tensor(['a', 1])", "lib.tensor([b'a'])", "lib.tensor(range(1, 4))",
    "lib.tensor([range(2), range(2)])", "lib.tensor([[], [1]])", "lib.tensor([[1], []])",
    "lib.tensor([1.5, 2**63])", "lib.tensor(2**64)", "lib.tensor(-1, dtype=lib.uint8)",
    "lib.tensor(300, dtype=lib.int8)", "lib.tensor([300], dtype=lib.int8)",
    "lib.tensor([-129], dtype=lib.int8)", "lib.tensor([-200], dtype=lib.uint8)",
    "lib.tensor([1.7], dtype=lib.int64)", "lib.tensor(float('nan'), dtype=lib.int64)",
    "lib.tensor([1, True])", "lib.tensor([np.float64(1.5), 1])", "lib.tensor([np.int32(1), 1.5])",
    "lib.tensor([lib.tensor(1, dtype=lib.int8), 1])", "lib.tensor([lib.tensor(1.0, dtype=lib.float64), 1])",
    "lib.as_tensor(None)", "lib.tensor([{}])", "lib.tensor({'a': 1})", "lib.tensor([object()])",
    "lib.tensor([2**63], dtype=lib.float32)", "lib.tensor([1, 2], dtype=int)",
    "lib.tensor([1, 2], dtype=float)", "lib.tensor([0, 2], dtype=bool)", "lib.as_tensor([1, 2], dtype='x')",
    "lib.tensor((1, (2, 3)))", "lib.tensor([[1, 2], [3, 4.5]])",
]

# index_fill, index_copy, put (new in issue 11) and the index checks around them.
INDEX_WRITES = [
    "lib.zeros(3).index_fill_(0, lib.tensor([-1]), 1.0)", "lib.zeros(3).index_fill(0, lib.tensor([-4]), 1.0)",
    "lib.zeros(3).index_fill(0, lib.tensor([1.0]), 1.0)", "lib.zeros(3).index_fill(0, lib.tensor([[1]]), 1.0)",
    "lib.zeros(3).index_fill(0, lib.tensor(1), 1.0)",
    "lib.zeros(3).index_fill(0, lib.tensor([1], dtype=lib.int32), 1.0)",
    "lib.zeros(3).index_fill(1, lib.tensor([1]), 1.0)", "lib.zeros(3).index_fill(0, lib.tensor([1]), a)",
    "lib.zeros(3).index_fill(0, lib.tensor([1]), z)", "w.index_fill(0, lib.tensor([1]), 2.0)",
    "w.index_fill(0, lib.tensor([1]), z.requires_grad_())", "z.index_fill(0, lib.tensor([0]), 5.0)",
    "z.index_fill(0, lib.tensor([1]), 5.0)", "i.index_fill(0, lib.tensor([1]), 2.5)",
    "lib.index_fill(m, 1, lib.tensor([0, 2]), -1.0)", "w.index_fill_(0, lib.tensor([0]), 1.0)",
    "lib.zeros(3).index_copy_(0, lib.tensor([-1]), lib.ones(1))",
    "lib.zeros(3).index_copy(0, lib.tensor([1, 1]), lib.tensor([1.0, 2.0]))",
    "lib.zeros(3).index_copy(0, lib.tensor([1]), lib.ones(2))",
    "lib.zeros(3).index_copy(0, lib.tensor([1]), lib.ones(1, dtype=lib.float64))",
    "lib.zeros(3).index_copy(0, lib.tensor([1.0]), lib.ones(1))",
    "lib.zeros(2, 3).index_copy(1, lib.tensor([2, 0]), lib.ones(2, 2))",
    "lib.zeros(2, 3).index_copy(1, lib.tensor([2, 0]), lib.ones(3, 2))",
    "z.index_copy(0, lib.tensor([0]), lib.tensor(5.0))", "lib.index_copy(m, 0, lib.tensor([1]), w[None, :])",
    "lib.zeros(3).put_(lib.tensor([-1]), lib.ones(1))", "lib.zeros(3).put_(lib.tensor([-4]), lib.ones(1))",
    "lib.zeros(3).put(lib.tensor([1, 1]), lib.tensor([1.0, 2.0]), accumulate=True)",
    "lib.zeros(3).put(lib.tensor([1]), lib.ones(2))", "lib.zeros(3).put(lib.tensor([1.0, 2.0]), lib.ones(2))",
    "lib.zeros(3).put(lib.tensor([1]), lib.ones(1, dtype=lib.float64))",
    "m.put(lib.tensor([[1], [5]]), lib.tensor([1.0, 2.0]))", "lib.put(m, lib.tensor([0]), w[:1])",
    "z.put(lib.tensor([0]), lib.tensor(2.0))", "lib.zeros(3).put_(lib.tensor([1]), 1.0)",
    "w.put_(lib.tensor([0]), lib.ones(1))",
    "m[..., 0, ...]", "m[None, ..., None, ...]", "m[..., ..., ...]", "m[:, lib.tensor([True, False])]",
    "m[lib.tensor([True, False, True])]", "m[None, 'a']", "m[None, 1.5]",
    "lib.zeros(3).index_put_((lib.tensor([-4]),), lib.ones(1))",
    "lib.zeros(2, 3).index_put_((lib.tensor([0]), lib.tensor([5])), lib.ones(1))",
    "m.masked_fill(lib.ones(3, 3, dtype=lib.bool), 1.0)", "m.masked_fill_(lib.ones(4, dtype=lib.bool), 1.0)",
    "lib.zeros(2, 3).scatter(1, lib.tensor([[0, 1]]), lib.ones(1, 1))",
    "lib.zeros(3).scatter_add(0, lib.tensor([0, 1]), lib.ones(1))",
    "lib.zeros(3).scatter_add_(0, lib.tensor([0, 1]), lib.ones(1))",
    "lib.zeros(2, 3).index_add_(1, lib.tensor([0]), lib.ones(3, 1))",
    "lib.zeros(3).index_add(0, lib.tensor([0]), lib.ones(2))", "z.scatter(0, lib.tensor(0), 3.0)",
    "z.scatter_add(0, lib.tensor(0), lib.tensor(1.0))", "z.index_select(0, lib.tensor([-1]))",
    "i.log_softmax(0)", "m.long().softmax(0)", "lib.softmax(i, 0)", "F.softmax(i, 0)",
    "lib.softmax(i, 0, dtype=lib.float32)", "a.bitwise_not_()", "bl.bitwise_not()",
    "a.view(lib.float64)", "z.view(lib.int16)", "m.t().view(lib.int16)", "m[:, 1:].view(lib.float64)",
    "a.view(lib.int32, 3)", "a.view('x')", "w.view(lib.int32)", "a.view(dtype=lib.int16)",
    "lib.zeros(0, 2).mean()", "lib.zeros(0, 3).mean(1)", "lib.from_numpy(np.array([1], dtype=object))",
]

# uint16/32/64 (torch 2.13's limited support: most kernels refuse them, no integer promotion)
_U16 = "lib.tensor([1, 2], dtype=lib.uint16)"
_U64 = "lib.tensor([1, 2], dtype=lib.uint64)"
WIDE_UNSIGNED = [
    f"{_U16} + 1", f"{_U16} - {_U16}", f"{_U16} + i", f"{_U16} * u8", f"{_U16} == bl",
    f"{_U16} < 1", f"-{_U16}", f"{_U16}.max()", f"{_U16}.abs()", f"{_U16}.flip(0)",
    f"{_U16}.mean()", f"{_U16}.add_(1)", f"{_U16}.fill_(-0.5)", f"{_U16}.fill_(2**64)",
    f"{_U64} * {_U16}", f"{_U16}.requires_grad_()", f"{_U16}.sum(dtype=lib.uint16)",
    "lib.tensor([-1], dtype=lib.uint64)", "lib.tensor([2**64], dtype=lib.uint64)",
    "lib.tensor([1.5], dtype=lib.uint64)", "lib.tensor([-0.5], dtype=lib.uint16)",
    "lib.tensor([70000], dtype=lib.uint16)", "lib.full((2,), 70000, dtype=lib.uint16)",
    "lib.arange(3, dtype=lib.uint32)", "lib.zeros(2, dtype=lib.uint16, requires_grad=True)",
    f"a[{_U16}]", f"a.gather(0, {_U16})", f"F.embedding({_U16}, m)",
    f"lib.where({_U16} == 1, {_U16}, i)", f"int(lib.tensor(2**63, dtype=lib.uint64))",
    f"F.pad({_U16}, (1, 1), value=-1)", f"{_U16}.bernoulli_(0.5)",
]

CASES = (OPERANDS + CONSTRUCTORS + SHAPES + DTYPES + INDICES + NAN_INF + EMPTY_0D + AUTOGRAD + HUGE
         + PARSER + DATA + INDEX_WRITES + WIDE_UNSIGNED)
