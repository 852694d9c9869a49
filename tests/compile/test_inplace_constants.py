"""Tensors written in place under ``leafgrad.compile`` (capture.py, Note: constants written in
place): a tensor a factory makes inside the call and the function then writes into must replay
from its values as made, then the writes; writes through views, into tensors from outside the
call (globals, closures, module buffers, running statistics, NumPy memory) and ``out=`` must
either replay the write or fall back to eager code. Every case: 4 calls with changing inputs,
compiled == eager leafgrad bitwise (results and any outside state after each call), and eager
leafgrad == torch 2.13 on the same program.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import leafgrad
import leafgrad.nn as lnn

from .._torch import require_torch

CALLS = 4


def _inputs(seed: int, shape=(3, 4)):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 3).astype(np.float32)


def _arrays(result):
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [t.detach().numpy().copy() for t in items]


def _same(got, want, what: str, exact: bool = True) -> None:
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, what
        if exact:
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:  # torch sums in another order: a few ulps
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, err_msg=what)


def _differential(program, *, replays: bool = True, broke: str | None = None,
                  shapes=((3, 4),) * CALLS, check_torch: bool = True, seed: bool = False) -> None:
    """``program(T)`` returns ``(fn, state)``: a fresh function over module ``T`` and a function
    returning the outside tensors it writes (a list). Compiled leafgrad runs against eager
    leafgrad (separate states), eager leafgrad against torch. ``seed``: the default generator
    is seeded with the call's number before each call (outside the compiled function)."""
    compiled_fn, compiled_state = program(leafgrad)
    compiled = leafgrad.compile(compiled_fn)
    eager, eager_state = program(leafgrad)
    if check_torch:
        torch = require_torch()
        reference, reference_state = program(torch)
    for call, shape in enumerate(shapes):
        x = _inputs(call, shape)
        if seed:
            leafgrad.manual_seed(call)
        want = _arrays(eager(leafgrad.tensor(x)))
        if seed:
            leafgrad.manual_seed(call)
        got = _arrays(compiled(leafgrad.tensor(x)))
        _same(got, want, f"call {call}: result")
        _same(_arrays(compiled_state()), _arrays(eager_state()), f"call {call}: outside state")
        if check_torch:
            if seed:
                torch.manual_seed(call)
            _same(_arrays(reference(torch.tensor(x))), want, f"call {call}: torch", False)
            _same(_arrays(reference_state()), _arrays(eager_state()), f"call {call}: torch state",
                  False)
    breaks = [b.reason for entry in compiled.captures for b in entry.breaks]
    if broke is not None:
        assert breaks and all(broke in reason for reason in breaks), breaks
        assert compiled.replays == 0 and compiled.eager_calls == len(shapes) - 1
    elif replays:
        assert breaks == []
        assert len(compiled.captures) == len(set(shapes))
        assert compiled.replays == len(shapes) - len(set(shapes))


def _stateless(body):
    return lambda T: ((lambda x: body(T, x)), list)


# -- factory x in-place form ----------------------------------------------------------------------

FACTORIES = {
    "zeros": lambda T, x: T.zeros(3, 4),
    "ones": lambda T, x: T.ones(3, 4),
    "full": lambda T, x: T.full((3, 4), 2.5),
    "full-float64": lambda T, x: T.full((3, 4), -1.5, dtype=T.float64),
    "arange": lambda T, x: T.arange(12.0).reshape(3, 4),  # the constant is arange's 1-d tensor
    "eye": lambda T, x: T.eye(3, 4),
    "linspace": lambda T, x: T.linspace(-1, 1, 12).reshape(3, 4),
    "tensor": lambda T, x: T.tensor([[1.0, -2.0, 3.0, 0.5]] * 3),
    "zeros_like": lambda T, x: T.zeros_like(x),
    "ones_like": lambda T, x: T.ones_like(x),
    "full_like": lambda T, x: T.full_like(x, 7.0),
    "zeros_like-strided": lambda T, x: T.zeros_like(x.t()).t(),  # writes through a view
    "clone-of-constant": lambda T, x: T.ones(3, 4).clone(),
}

# form(T, c, x): writes into c (any shape broadcasting against x's (3, 4) rows as needed)
FORMS = {
    "add_": lambda T, c, x: c.add_(x * 2),
    "add_-alpha": lambda T, c, x: c.add_(x, alpha=3),
    "sub_": lambda T, c, x: c.sub_(x.sum()),
    "mul_": lambda T, c, x: c.mul_(x.mean()),
    "div_": lambda T, c, x: c.div_(x.abs().max() + 1),
    "iadd": lambda T, c, x: c.__iadd__(x.sum()),
    "imul": lambda T, c, x: c.__imul__(x.max()),
    "clamp_": lambda T, c, x: c.clamp_(min=x.min(), max=x.max()),
    "addcmul_": lambda T, c, x: c.addcmul_(x.sum() * T.ones_like(c), x.mean() * T.ones_like(c)),
    "copy_": lambda T, c, x: c.copy_(x.sum() + T.zeros_like(c)),
    "fill_-then-add_": lambda T, c, x: c.fill_(3.0).add_(x.sum()),
    "zero_-then-add_": lambda T, c, x: c.zero_().add_(x.max()),
    "twice": lambda T, c, x: c.add_(x.sum()).mul_(x.mean()),
}


def _factory_program(factory, form):
    def body(T, x):
        c = factory(T, x)
        before = c * 1  # read before the write: the values as made
        form(T, c, x)
        return c, before, c.sum()

    return _stateless(body)


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("factory", sorted(FACTORIES))
def test_factory_written_in_place(factory, form):
    _differential(_factory_program(FACTORIES[factory], FORMS[form]))


def test_brief_example():
    """The review's example: zeros(30, 40).add_(x * 2) replayed the first call's sum."""
    def program(T):
        def f(x):
            c = T.zeros(30, 40)
            c.add_(x * 2)
            return c

        return f, list

    _differential(program, shapes=((30, 40),) * CALLS)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_dtypes(dtype):
    def body(T, x):
        c = T.zeros(3, 4, dtype=getattr(T, dtype))
        if dtype == "bool":
            c.logical_or_(x > 0)
        else:
            c.add_((x * 4).to(getattr(T, dtype)))
        return c

    _differential(_stateless(body))


@pytest.mark.parametrize("shape", [(0, 4), (3, 0)])
def test_empty(shape):
    def body(T, x):
        c = T.ones(shape)
        c.add_(x.sum())
        return c, x.sum()

    _differential(_stateless(body))
    compiled = leafgrad.compile(_stateless(body)(leafgrad)[0])
    for call in range(2):
        got, want = compiled(leafgrad.tensor(_inputs(call)))[0], body(leafgrad, leafgrad.tensor(
            _inputs(call)))[0]
        assert got.stride() == want.stride()


# -- the other in-place forms: indexing, views, out= --------------------------------------------

WRITES = {
    "setitem-row": lambda T, c, x: c.__setitem__(1, x[1]),
    "setitem-number": lambda T, c, x: (c.add_(x), c.__setitem__((0, 0), 5.0)),
    "setitem-number-slice": lambda T, c, x: (c.mul_(x), c.__setitem__((slice(None), 2), -1.5)),
    "setitem-number-advanced": lambda T, c, x: (c.sub_(x), c.__setitem__(T.tensor([2, 0]), 3)),
    "setitem-slice": lambda T, c, x: c.__setitem__((slice(None), slice(1, 3)), x[:, :2]),
    "setitem-tensor-index": lambda T, c, x: c.__setitem__(T.tensor([0, 2]), x[1]),
    "index_put_": lambda T, c, x: c.index_put_((T.tensor([0, 2]),), x[0]),
    "index_put_-accumulate": lambda T, c, x: c.index_put_((T.tensor([0, 0]),), x[0], True),
    "index_add_": lambda T, c, x: c.index_add_(0, T.tensor([2, 0]), x[:2]),
    "index_add_-alpha": lambda T, c, x: c.index_add_(1, T.tensor([3, -1 + 1]), x[:, :2],
                                                     alpha=2),
    "index_copy_": lambda T, c, x: c.index_copy_(0, T.tensor([2, 0]), x[:2]),
    "index_fill_": lambda T, c, x: c.index_fill_(1, T.tensor([-1, 0]), 2.5),
    "index_fill_-tensor": lambda T, c, x: c.index_fill_(1, T.tensor([-1, 0]), x[1, 1]),
    "put_": lambda T, c, x: c.put_(T.tensor([-1, 0, 5]), x[0, :3]),
    "put_-accumulate": lambda T, c, x: c.put_(T.tensor([3, 3]), x[1, :2], accumulate=True),
    "scatter_add_": lambda T, c, x: c.scatter_add_(0, T.tensor([[2, 0, 1, 1]]), x[:1]),
    "scatter_reduce_": lambda T, c, x: c.scatter_reduce_(0, T.tensor([[2, 0, 1, 1]]), x[:1],
                                                         "amax"),
    "index_reduce_": lambda T, c, x: c.index_reduce_(0, T.tensor([2, 2]), x[:2], "prod"),
    "masked_scatter_": lambda T, c, x: c.masked_scatter_(T.tensor([True, False, True, False]),
                                                         x),
    "scatter_": lambda T, c, x: c.scatter_(1, T.tensor([[3], [0], [1]]), x[:, :1]),
    "masked_fill_": lambda T, c, x: c.masked_fill_(T.tensor([True, False, True, False]),
                                                   x.sum()),
    "view-row-mul_": lambda T, c, x: c[0].mul_(x[0]),
    "view-column-copy_": lambda T, c, x: c[:, 1].copy_(x[:, 0]),
    "view-t-add_": lambda T, c, x: c.t().add_(x.t()),
    "view-view-add_": lambda T, c, x: c.view(12).add_(x.reshape(12)),
    "view-of-view": lambda T, c, x: c[1:][0].add_(x[2]),
    "view-diagonal-add_": lambda T, c, x: c.diagonal().add_(x.sum()),
    "view-unsqueeze-add_": lambda T, c, x: c.unsqueeze(0).add_(x),
    "detach-add_": lambda T, c, x: c.detach().add_(x),
    "data-add_": lambda T, c, x: c.data.add_(x),
    "data-view-add_": lambda T, c, x: c.data[2].add_(x[0]),
}


# (index_add_, index_copy_, index_fill_, put_ and index_reduce_ used to break every capture:
# their index reached the op as an array computed from the index; it is now a kernel)
BREAKS: dict = {}


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("factory", ["zeros", "ones", "full", "arange", "eye", "zeros_like"])
@pytest.mark.parametrize("write", sorted(WRITES))
def test_indexed_and_view_writes(factory, write):
    _differential(_factory_program(FACTORIES[factory], WRITES[write]), broke=BREAKS.get(write))


@pytest.mark.parametrize("factory", ["tensor", "zeros", "full"])
def test_zero_dim(factory):
    def body(T, x):
        c = {"tensor": lambda: T.tensor(1.25), "zeros": lambda: T.zeros(()),
             "full": lambda: T.full((), -2.0)}[factory]()
        c.add_(x.sum()).mul_(x.max())
        return c, x * c


def test_view_taken_before_the_write_is_read_after():
    def body(T, x):
        c = T.zeros(3, 4)
        row = c[1]
        c.add_(x)
        return row * 2, c

    _differential(_stateless(body))


def test_two_constants_one_written():
    def body(T, x):
        a = T.ones(3, 4)
        b = T.ones(3, 4)
        a.add_(x)
        return a, b + x

    _differential(_stateless(body))


def test_out_into_a_constant_runs_eagerly():
    def body(T, x):
        c = T.zeros(3, 4)
        T.add(x, 1, out=c)
        return c

    _differential(_stateless(body), broke="out=")


def test_result_changed_by_the_caller():
    """A returned constant is the caller's: writing into it must not change later replays."""
    compiled = leafgrad.compile(lambda x: (leafgrad.zeros(3), x + 1))
    results = []
    for call in range(CALLS):
        c, _ = compiled(leafgrad.tensor(_inputs(call, (3,))))
        results.append(c.numpy().copy())
        c.add_(100.0)
    np.testing.assert_array_equal(np.stack(results), np.zeros((CALLS, 3), np.float32))
    assert compiled.replays == CALLS - 1


def test_new_shape_captures_again():
    def body(T, x):
        c = T.zeros_like(x)
        c.add_(x)
        return c

    _differential(_stateless(body), shapes=[(3, 4), (3, 4), (2, 5), (2, 5), (3, 4)])


# -- random factories ----------------------------------------------------------------------------

def test_random_factory_written_in_place():
    """randn's draw is a replayed node: a replay draws again (from the generator passed) and
    writes into the new draw."""
    def program(T):
        generator = T.Generator().manual_seed(7)

        def f(x):
            c = T.randn(3, 4, generator=generator)
            c.add_(x)
            d = T.rand_like(x, generator=generator)
            d.mul_(x)
            return c, d

        return f, list

    _differential(program)


@pytest.mark.parametrize("factory", ["randn", "rand", "randn_like", "randint", "randperm"])
def test_default_generator_factory_written_in_place(factory):
    def body(T, x):
        c = {"randn": lambda: T.randn(3, 4), "rand": lambda: T.rand(3, 4),
             "randn_like": lambda: T.randn_like(x),
             "randint": lambda: T.randint(0, 5, (3, 4)).float(),
             "randperm": lambda: T.randperm(12).float().view(3, 4)}[factory]()
        c.add_(x)
        return c

    _differential(_stateless(body), seed=True)


@pytest.mark.parametrize("fill", ["normal_", "uniform_", "bernoulli_"])
def test_random_fill_of_a_constant_runs_eagerly(fill):
    def body(T, x):
        c = T.zeros(3, 4)
        getattr(c, fill)(*((0.5,) if fill == "bernoulli_" else ()))
        return c + x

    _differential(_stateless(body), seed=True, broke="random")


@pytest.mark.parametrize("factory", ["empty", "empty_like", "empty_strided"])
@pytest.mark.parametrize("write", ["copy_", "fill_", "zero_", "setitem"])
def test_empty_overwritten(factory, write):
    def body(T, x):
        c = {"empty": lambda: T.empty(3, 4), "empty_like": lambda: T.empty_like(x),
             "empty_strided": lambda: T.empty_strided((3, 4), (1, 3))}[factory]()
        {"copy_": lambda: c.copy_(x), "fill_": lambda: c.fill_(x.sum()),
         "zero_": lambda: c.zero_(), "setitem": lambda: c.__setitem__(Ellipsis, x)}[write]()
        c.mul_(x)
        return c, c.sum()

    _differential(_stateless(body))


@pytest.mark.parametrize("stride", [(0, 1), (8, 1)])
def test_empty_strided_layout_a_copy_loses_runs_eagerly(stride):
    """Overlapping (stride 0) or gapped strides: a replay's copy could not keep them."""
    def body(T, x):
        c = T.empty_strided((3, 4), stride).fill_(0.5)
        c[1].add_(x[1])  # with stride 0 the three rows are one
        return c * 1

    _differential(_stateless(body), broke="memory layout")


@pytest.mark.parametrize("how", ["op", "op-into-view", "factory"])
def test_out_forms_run_eagerly(how):
    def body(T, x):
        c = T.ones(3, 4)
        if how == "op":
            T.mul(x, 2, out=c)
        elif how == "op-into-view":
            T.mul(x[0], 2, out=c[0])
        else:
            T.zeros(3, 4, out=c)
        c.add_(x)
        return c

    _differential(_stateless(body), broke="out=")


# -- writes into tensors from outside the call -------------------------------------------------

def _outside(write):
    def program(T):
        buffer = T.arange(12.0).reshape(3, 4)

        def f(x):
            write(T, buffer, x)
            return buffer * 1

        return f, lambda: [buffer]

    return program


OUTSIDE = {
    "add_": lambda T, b, x: b.add_(x),
    "mul_": lambda T, b, x: b.mul_(x.abs().mean()),
    "copy_": lambda T, b, x: b.copy_(x + b),
    "setitem": lambda T, b, x: b.__setitem__(0, x[0] + b[1]),
    "index_put_": lambda T, b, x: b.index_put_((T.tensor([1, 1]),), x[0], True),
    "view-add_": lambda T, b, x: b[1].add_(x[1]),
    "t-add_": lambda T, b, x: b.t().add_(x.t()),
    "data-add_": lambda T, b, x: b.data.add_(x),
    "detach-add_": lambda T, b, x: b.detach().add_(x),
}


@pytest.mark.parametrize("write", sorted(OUTSIDE))
def test_outside_tensor_written(write):
    _differential(_outside(OUTSIDE[write]))


def test_closure_running_statistic():
    """A running mean kept in a closure (a hand-written batch norm's buffer)."""
    def program(T):
        running = T.zeros(4)

        def f(x):
            with T.no_grad():
                running.mul_(0.9).add_(x.mean(0), alpha=0.1)
            return (x - running) * 2

        return f, lambda: [running]

    _differential(program)


def test_out_into_an_outside_tensor_runs_eagerly():
    def program(T):
        buffer = T.zeros(3, 4)

        def f(x):
            T.mul(x, 2, out=buffer)
            return buffer + 1

        return f, lambda: [buffer]

    _differential(program, broke="out=")


def _accumulating_module(nn, T):
    class Accumulate(nn.Module):
        """A forward that adds into a buffer (and into a constant it makes)."""

        def __init__(self):
            super().__init__()
            self.register_buffer("total", T.zeros(4))
            self.linear = nn.Linear(4, 4)

        def forward(self, x):
            scratch = T.ones(4)
            scratch.mul_(x.mean())
            self.total.add_(x.sum(0) + scratch)
            return self.linear(x) + self.total

    return Accumulate()


@pytest.mark.parametrize("compile_module", [False, True])
def test_module_buffer_written(compile_module):
    def program(T):
        nn = lnn if T is leafgrad else T.nn
        T.manual_seed(0)
        module = _accumulating_module(nn, T)
        call = module
        if T is leafgrad and compile_module and not program.made:
            call = leafgrad.compile(module)  # the first program built is the compiled one
        program.made = True

        def f(x):
            with T.no_grad():
                return call(x)

        return f, lambda: [module.total]

    program.made = False
    _differential(program)


def test_batchnorm_running_stats_training_step():
    """BatchNorm's running statistics (module buffers written in place) through a compiled
    training step with an optimizer."""
    def program(T):
        nn = lnn if T is leafgrad else T.nn
        T.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Linear(6, 2))
        optimizer = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

        def step(x):
            optimizer.zero_grad()
            loss = (model(x) ** 2).mean()
            loss.backward()
            optimizer.step()
            return loss.detach()

        def state():
            return [t.detach() for t in model.state_dict().values()]

        return step, state

    _differential(program, check_torch=False)


# -- NumPy memory: factories that share it are read and written live ---------------------------

def test_as_tensor_of_numpy_array_written():
    def program(T):
        array = np.arange(12, dtype=np.float32).reshape(3, 4)

        def f(x):
            t = T.as_tensor(array)
            t.add_(x)
            return t * 1

        return f, lambda: [T.tensor(array)]

    _differential(program)


def test_as_tensor_of_numpy_array_changed_between_calls():
    array = np.zeros((3, 4), np.float32)
    compiled = leafgrad.compile(lambda x: leafgrad.as_tensor(array) + x)
    for call in range(CALLS):
        array[...] = call
        x = _inputs(call)
        np.testing.assert_array_equal(compiled(leafgrad.tensor(x)).numpy(), x + call)
    assert compiled.replays == CALLS - 1


@pytest.mark.parametrize("how", ["asarray", "frombuffer"])
def test_factory_over_outside_memory_written(how):
    def program(T):
        array = np.arange(12, dtype=np.float32).reshape(3, 4)

        def f(x):
            if how == "asarray":
                t = T.asarray(array)
            else:
                t = T.frombuffer(array, dtype=T.float32).view(3, 4)
            t.mul_(x.abs().mean())
            return t + 0

        return f, lambda: [T.tensor(array)]

    _differential(program)


# -- gradients into a constant -------------------------------------------------------------------

def test_grad_set_to_a_constant_then_accumulated():
    """``x.grad = zeros`` made in the call, then backward adds into it in place."""
    def program(T):
        def f(x):
            w = x.detach().requires_grad_(True)
            w.grad = T.full_like(w, 0.5)
            (w * w).sum().backward()
            return w.grad * 1

        return f, list

    _differential(program)


def test_grad_constant_zeroed_by_optimizer():
    def program(T):
        w = T.ones(3, 4, requires_grad=True)
        optimizer = T.optim.SGD([w], lr=0.1)

        def f(x):
            w.grad = T.ones(3, 4)
            optimizer.zero_grad(set_to_none=False)
            (w * x).sum().backward()
            optimizer.step()
            return w.detach() * 1

        return f, lambda: [w.detach()]

    _differential(program)


# -- the graph stays small -----------------------------------------------------------------------

def test_unwritten_constant_not_copied():
    """Only written (or returned) constants are copied per replay."""
    compiled = leafgrad.compile(lambda x: x + leafgrad.ones(3, 4))
    compiled(leafgrad.tensor(_inputs(0)))
    assert "copy_as_made(" not in compiled.code
    written = leafgrad.compile(lambda x: leafgrad.ones(3, 4).add_(x))
    written(leafgrad.tensor(_inputs(0)))
    assert "copy_as_made(" in written.code
    printed = str(written.graph)
    assert "constant made in the call" in printed, printed
    assert "AddBackward0_(%c0, %x0, alpha=1)" in printed, printed
    assert "c0" in written.to_dot()


def test_capture_keeps_no_tensor_made_in_the_call():
    """The replay holds the constants' values as made, not the tensors the first call made
    (which the caller may own and change, and which would otherwise stay alive)."""
    def f(x):
        read = leafgrad.ones(50, 50)
        written = leafgrad.zeros(50, 50)
        written.add_(x)
        return x + read

    def alive():
        # (found through the collector: recording them from inside f would be a side effect,
        # which makes the function run eagerly: sources.py Note: side effects)
        gc.collect()
        return {id(o) for o in gc.get_objects() if isinstance(o, leafgrad.Tensor)
                and tuple(o.shape) == (50, 50)}

    compiled = leafgrad.compile(f)
    x = leafgrad.tensor(_inputs(0, (50, 50)))
    before = alive()
    compiled(x)
    assert alive() - before == set()
    np.testing.assert_array_equal(compiled(x).numpy(), f(x).numpy())
    assert compiled.replays == 1


@pytest.mark.parametrize("write", ["add_", "data-add_", "detach-add_", "setitem"])
def test_outside_tensor_data_replaced_between_calls(write):
    """``buffer.data = ...`` between calls: the replay writes into the buffer's new memory."""
    def build():
        buffer = leafgrad.zeros(3, 4)

        def f(x):
            OUTSIDE[write](leafgrad, buffer, x)
            return buffer * 1

        return buffer, f

    eager_buffer, eager = build()
    compiled_buffer, compiled = build()
    compiled = leafgrad.compile(compiled)
    for call in range(CALLS):
        if call == 2:
            eager_buffer.data = leafgrad.ones(3, 4)
            compiled_buffer.data = leafgrad.ones(3, 4)
        x = leafgrad.tensor(_inputs(call))
        np.testing.assert_array_equal(compiled(x).numpy(), eager(x).numpy())
        np.testing.assert_array_equal(compiled_buffer.numpy(), eager_buffer.numpy())
    assert compiled.replays == CALLS - 1


# -- leaves made in the call -------------------------------------------------------------------

def test_leaf_made_in_the_call_written_then_differentiated():
    """A leaf made in the call starts without ``.grad`` on every call: one capture, replayed."""
    def body(T, x):
        w = T.zeros(3, 4, requires_grad=True)
        with T.no_grad():
            w.add_(x)
        (w * w * x).sum().backward()
        return w.grad * 1, w.detach() * 1

    _differential(_stateless(body))


@pytest.mark.parametrize("params", ["made-in-the-call", "from-outside"])
def test_optimizer_made_in_the_call_runs_eagerly(params):
    """A replay would call the capture's optimizer (its momentum buffers, its parameters)."""
    def program(T):
        outside = T.ones(3, 4, requires_grad=True)

        def f(x):
            w = T.ones(3, 4, requires_grad=True) if params == "made-in-the-call" else outside
            optimizer = T.optim.SGD([w], lr=0.1, momentum=0.9)
            for _ in range(2):
                optimizer.zero_grad()
                (w * x).sum().backward()
                optimizer.step()
            return w.detach() * 1

        return f, lambda: [outside.detach()]

    _differential(program, broke="an optimizer made in the call")


@pytest.mark.parametrize("permute", [(1, 0, 2), (2, 1, 0), (0, 2, 1)])
def test_written_constant_keeps_its_layout(permute):
    """zeros_like keeps the input's layout; a replay's copy of the constant keeps it too."""
    def f(x):
        c = leafgrad.zeros_like(x)
        c.add_(x)
        return c

    compiled = leafgrad.compile(f)
    for call in range(CALLS):
        x = leafgrad.tensor(_inputs(call, (3, 1, 4))).permute(*permute)
        want, got = f(x), compiled(x)
        assert got.stride() == want.stride()
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert compiled.replays == CALLS - 1


@pytest.mark.parametrize("write", ["setitem", "add_", "view-mul_", "index_put_"])
def test_constant_written_with_a_value_requiring_grad(write):
    """The recorded path (CopySlices, AddBackward0 on a constant): the write is differentiated
    and the constant still starts from its values as made."""
    def program(T):
        w = T.linspace(-1, 1, 4).requires_grad_(True)

        def f(x):
            w.grad = None
            c = T.ones(3, 4)
            if write == "setitem":
                c[1] = w * x[1]
            elif write == "add_":
                c.add_(w * x)
            elif write == "view-mul_":
                c[2].mul_(w * x[2])
            else:
                c.index_put_((T.tensor([0, 2]),), w * x[0], accumulate=True)
            (c * c).sum().backward()
            return c.detach(), w.grad * 1

        return f, lambda: [w.detach()]

    _differential(program)
