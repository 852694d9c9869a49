"""Matrix products. ``matmul`` is a composite that picks the same primitives torch does, so the
graph shows the same nodes (``MmBackward0``, ``MvBackward0``, ``UnsafeViewBackward0``...)."""

from __future__ import annotations

import numpy as np

from .registry import Op, register

_NAMES = {"float16": "Half", "float32": "float", "float64": "double"}


def _same_dtype(a: np.ndarray, b: np.ndarray, first: str = "m1", second: str = "m2") -> None:
    # Note: matrix products do not promote in torch; mixed dtypes are an error.
    if a.dtype != b.dtype:
        left = _NAMES.get(a.dtype.name, a.dtype.name)
        right = _NAMES.get(b.dtype.name, b.dtype.name)
        raise RuntimeError(
            f"expected {first} and {second} to have the same dtype, but got: {left} != {right}"
        )


@register
class Mm(Op):
    node = "MmBackward0"
    inputs = ("self", "mat2")
    saves = {"self": ("mat2",), "mat2": ("self",)}
    torch_names = ("mm", "matmul")

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if b.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                f"{b.shape[0]}x{b.shape[1]})"
            )
        _same_dtype(a, b)
        return a @ b

    def backward(self, grad):
        grad_self = grad_mat2 = None
        if self.needs_grad(0):
            grad_self = grad.mm(self.saved("mat2").t())
        if self.needs_grad(1):
            grad_mat2 = self.saved("self").t().mm(grad)
        return grad_self, grad_mat2


@register
class Mv(Op):
    node = "MvBackward0"
    inputs = ("self", "vec")
    saves = {"self": ("vec",), "vec": ("self",)}
    torch_names = ("mv", "matmul")

    @staticmethod
    def forward(ctx, a, v):
        if a.ndim != 2 or v.ndim != 1:
            raise RuntimeError(
                f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}"
            )
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                f"vec ({v.shape[0]})"
            )
        _same_dtype(a, v)
        return a @ v

    def backward(self, grad):
        grad_self = grad_vec = None
        if self.needs_grad(0):
            grad_self = grad.unsqueeze(1).mm(self.saved("vec").unsqueeze(0))
        if self.needs_grad(1):
            grad_vec = self.saved("self").t().mv(grad)
        return grad_self, grad_vec


@register
class Dot(Op):
    node = "DotBackward0"
    inputs = ("self", "tensor")
    saves = {"self": ("tensor",), "tensor": ("self",)}
    torch_names = ("dot", "matmul")

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 1 or b.ndim != 1:
            raise RuntimeError(
                f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors"
            )
        if a.shape[0] != b.shape[0]:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
                f"to have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
                "elements respectively"
            )
        if a.dtype != b.dtype:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{_legacy(a)} and {_legacy(b)}"
            )
        return np.asarray(np.dot(a, b))

    def backward(self, grad):
        grad_self = grad_other = None
        if self.needs_grad(0):
            grad_self = grad * self.saved("tensor")
        if self.needs_grad(1):
            grad_other = grad * self.saved("self")
        return grad_self, grad_other


@register
class Addmm(Op):
    """``beta * self + alpha * (mat1 @ mat2)``; ``nn.functional.linear`` uses it with a bias."""

    node = "AddmmBackward0"
    inputs = ("self", "mat1", "mat2")
    saves = {"mat1": ("mat2",), "mat2": ("mat1",)}
    broadcasts = True
    torch_names = ("addmm", "nn.functional.linear")

    @staticmethod
    def forward(ctx, bias, a, b, beta=1, alpha=1):
        product = Mm.forward(None, a, b)
        if alpha != 1:
            product = product * alpha
        if beta == 0:
            return np.broadcast_to(product, np.broadcast_shapes(bias.shape, product.shape)).copy()
        if np.broadcast_shapes(bias.shape, product.shape) != product.shape:
            raise RuntimeError(
                f"The expanded size of the tensor ({product.shape[-1]}) must match the existing "
                f"size ({bias.shape[-1]}) at non-singleton dimension {bias.ndim - 1}.  Target "
                f"sizes: {list(product.shape)}.  Tensor sizes: {list(bias.shape)}"
            )
        return product + (bias * beta if beta != 1 else bias)

    def backward(self, grad):
        p = self._params
        alpha, beta = p.get("alpha", 1), p.get("beta", 1)
        grad_bias = grad_a = grad_b = None
        if self.needs_grad(0):
            grad_bias = grad if beta == 1 else grad * beta
        if self.needs_grad(1):
            grad_a = grad.mm(self.saved("mat2").t())
            grad_a = grad_a if alpha == 1 else grad_a * alpha
        if self.needs_grad(2):
            grad_b = self.saved("mat1").t().mm(grad)
            grad_b = grad_b if alpha == 1 else grad_b * alpha
        return grad_bias, grad_a, grad_b


def _legacy(a: np.ndarray) -> str:
    from .._dtype import from_numpy_dtype

    return from_numpy_dtype(a.dtype)._legacy


@register
class Bmm(Op):
    node = "BmmBackward0"
    inputs = ("self", "mat2")
    saves = {"self": ("mat2",), "mat2": ("self",)}
    torch_names = ("bmm", "matmul")

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if b.ndim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
            raise RuntimeError(
                "Expected size for first two dimensions of batch2 tensor to be: "
                f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."
            )
        _same_dtype(a, b)
        return np.matmul(a, b)

    def backward(self, grad):
        grad_self = grad_mat2 = None
        if self.needs_grad(0):
            grad_self = grad.bmm(self.saved("mat2").transpose(1, 2))
        if self.needs_grad(1):
            grad_mat2 = self.saved("self").transpose(1, 2).bmm(grad)
        return grad_self, grad_mat2


def matmul(a, b):
    """torch.matmul: dispatch on dimensions the way ATen does, so node names match."""
    from .shape import SqueezeLast, UnsafeView

    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return Dot.apply(a, b)
    if da == 2 and db == 1:
        return Mv.apply(a, b)
    if da == 1 and db == 2:
        return SqueezeLast.apply(Mm.apply(a.unsqueeze(0), b), dim=0)
    if da == 2 and db == 2:
        return Mm.apply(a, b)
    if da >= 3 and db in (1, 2):
        # Fold the batch into rows: (..., n, k) @ (k, m) -> (rows, k) @ (k, m).
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({int(np.prod(a.shape[:-1]))}x"
                f"{a.shape[-1]} and {b.shape[0]}x{b.shape[1] if db == 2 else 1})"
            )
        batch = a.shape[:-1]
        folded = a.reshape(-1, a.shape[-1])
        if db == 1:
            out = Mv.apply(folded, b)
            return UnsafeView.apply(out, shape=tuple(batch))
        out = Mm.apply(folded, b)
        return UnsafeView.apply(out, shape=tuple(batch) + (b.shape[1],))
    return _batched(a, b)


def _batched(a, b):
    """Broadcast batch dims, fold them into one, and use bmm (torch's general case)."""
    from .shape import UnsafeView

    squeeze_a = squeeze_b = False
    if a.ndim == 1:
        a = a.unsqueeze(0)
        squeeze_a = True
    if b.ndim == 1:
        b = b.unsqueeze(-1)
        squeeze_b = True
    n, k = a.shape[-2:]
    k2, m = b.shape[-2:]
    try:
        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        raise RuntimeError(_batch_mismatch(a, b)) from None
    if k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(batch))}, {k}] but got: [{int(np.prod(batch))}, {k2}]."
        )
    count = int(np.prod(batch))
    a3 = a.expand(*batch, n, k).reshape(count, n, k)
    b3 = b.expand(*batch, k, m).reshape(count, k, m)
    out_shape = tuple(batch) + ((n,) if not squeeze_a else ()) + ((m,) if not squeeze_b else ())
    return UnsafeView.apply(Bmm.apply(a3, b3), shape=out_shape)


def _batch_mismatch(a, b) -> str:
    sa, sb = list(a.shape[:-2]), list(b.shape[:-2])
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            return (
                f"The size of tensor a ({sa[-i]}) must match the size of tensor b ({sb[-i]}) at "
                f"non-singleton dimension {max(len(sa), len(sb)) - i}"
            )
    return "batch dimensions mismatch"
