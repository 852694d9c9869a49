"""Behaviours found by replaying PyTorch's own tests (functorch's test_eager_transforms.py,
test_vmap.py) and the open items of earlier suite helpers, outside torch.func: programs run
under torch and leafgrad; each program's observations must be identical."""

from __future__ import annotations

from .test_suite4_findings import _outcome, _same


def test_slice_backward_keeps_the_bounds_as_written():
    """SliceBackward0 of x[a:b] keeps a and b as written (an open end is INT64_MAX; torch's
    accessors show negative bounds as unsigned 64-bit numbers), before and after the backward;
    narrow keeps its own; a view replayed after an in-place write still works."""

    def program(m):
        seen = []
        slices = [slice(2, None), slice(1, 100), slice(-100, None), slice(None, -1),
                  slice(None, None, 2), slice(-3, -1), slice(3, 1), slice(0, 4), slice(None),
                  slice(None, 2, 3), slice(m.tensor(1), None)]
        for dtype in ("float32", "float64"):
            x = m.arange(24.0, dtype=getattr(m, dtype)).view(4, 6).requires_grad_()
            for item in slices:
                for index in (item, (item,), (Ellipsis, item), (0, item), (slice(None), item),
                              (item, 1)):
                    for call in (lambda: x[index], lambda: x.__getitem__(index),
                                 lambda: (x * 1)[index]):
                        def read():
                            node = call().grad_fn
                            if node.name() != "SliceBackward0":
                                return node.name()
                            return (node._saved_start, node._saved_end, node._saved_step,
                                    node._saved_dim, node._saved_self_sym_sizes)
                        seen.append(_outcome(read))
            y = x[1:]
            z = y[:, -2:]
            seen.append([a for a in dir(z.grad_fn) if a.startswith("_saved")])
            z.sum().backward()
            # (after the backward torch still lists and reads _saved_self_sym_sizes, which
            # leafgrad releases with the saved tensors: left out)
            seen.append((y.grad_fn._saved_start, y.grad_fn._saved_end, z.grad_fn._saved_start,
                         z.grad_fn._saved_end))
            n = x.narrow(1, -3, 2)
            seen.append((n.grad_fn._saved_start, n.grad_fn._saved_end))
            b = x * 1
            v = b[1:]
            w = v[:, :-1]
            b.mul_(2)
            w.sum().backward()
            seen.append((w.grad_fn.name(), x.grad.tolist()))
        return seen

    _same(program)


def test_gradcheck_checks_batched_forward_grads():
    """gradcheck(check_batched_forward_grad=True) runs torch's batched forward-AD check (vmap
    over two random tangents per input, drawn as torch draws them) instead of refusing."""

    def program(m):
        seen = []
        m.manual_seed(0)
        x = m.randn(3, dtype=m.float64, requires_grad=True)
        y = m.randn(2, 3, dtype=m.float64, requires_grad=True)
        cases = [(lambda a: a.sin(), (x,)), (lambda a, b: (a * b).sum(1), (x, y)),
                 (lambda a, b: (a * b.t().sum(1), b.exp()), (x, y)), (lambda a: a.max(), (x,))]
        options = [dict(check_forward_ad=True, check_batched_forward_grad=True),
                   dict(check_forward_ad=True, check_batched_forward_grad=True,
                        check_batched_grad=True),
                   dict(check_forward_ad=True, check_backward_ad=False,
                        check_batched_forward_grad=True),
                   dict(check_batched_forward_grad=True)]
        for func, args in cases:
            for kwargs in options:
                seen.append(_outcome(lambda: m.autograd.gradcheck(func, args, **kwargs)))
                seen.append(m.rand(1).item())  # the generator where torch leaves it
        return seen

    _same(program)
