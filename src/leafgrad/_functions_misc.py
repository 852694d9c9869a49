"""``leafgrad.<name>`` forms of the ops added for torch-namespace coverage: matrix products
(ops/matrix_extra.py), scatters (ops/scatter_extra.py) and elementwise extras
(ops/elementwise_misc.py)."""

from __future__ import annotations

from ._functions_linalg import _return_type
from ._functions_math import _cast, _require_tensor
import numpy as np

from . import _argparse, _dtype
from ._out import ANY, CAST, EXPECT, Out, Rule, same_as, takes_out

__all__ = [
    "addr", "addbmm", "block_diag", "chain_matmul", "narrow_copy", "unsafe_chunk",
    "unsafe_split", "unsafe_split_with_sizes", "select_scatter", "slice_scatter",
    "diagonal_scatter", "masked_scatter", "index_reduce",
    "heaviside", "nextafter", "ldexp", "ldexp_", "frexp", "gcd", "gcd_", "lcm", "lcm_",
]

frexp_result = _return_type("frexp", ("mantissa", "exponent"))
frexp_out = _return_type("frexp_out", ("mantissa", "exponent"))


def _pair(name: str, out: Out | None = None):
    def function(input, other):  # noqa: A002 - torch's name
        _require_tensor(input, name, "input", 1)
        _require_tensor(other, name, "other", 2)
        return getattr(input, name)(other)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, other)``: elementwise; see ``Tensor.{name}``."
    return takes_out(out)(function) if out is not None else function


# torch's heaviside checks out's dtype as an operand's; its out never joins the graph in
# leafgrad (tests/out_cases.py: OUT_JOINS_GRAPH_IN_TORCH)
_HEAVISIDE_OUT = Out(None, same_as("heaviside is not yet implemented for tensors with different "
                                   "dtypes."), overlap=True, out_name="aten::heaviside")


def _ldexp_out_check(args, kwargs, outs):
    """torch's ldexp is ``mul(self, pow(2, other), out=out)``: out must be floating; for floating
    inputs its dtype must be the result's (torch fails an internal assert otherwise)."""
    out = outs[0].dtype
    if not out.is_floating_point:
        raise RuntimeError(f"ldexp can't be cast to the desired output type {out._legacy}")
    operands = [a for a in (*args, *kwargs.values()) if hasattr(a, "dtype")]
    if any(a.dtype.is_floating_point for a in operands):
        result = _dtype.promote_types(*[a.dtype for a in operands[:2]])
        if result is not out:
            raise RuntimeError(
                '!needs_dynamic_casting<func_t>::check(iter) INTERNAL ASSERT FAILED at "/__w/'
                'pytorch/pytorch/aten/src/ATen/native/cpu/Loops.h":311, please report a bug to '
                'PyTorch. ')
    return args, kwargs


_FREXP_OUT = Out("frexp", (
    same_as("torch.frexp() expects mantissa to have dtype {r} but got {o}"),
    Rule("torch.frexp() expects exponent to have int dtype but got {o}",
         lambda result, out: out is _dtype.int32)), returns=frexp_out)


@takes_out(_HEAVISIDE_OUT)
def heaviside(input, values):  # noqa: A002 - torch's name
    """``torch.heaviside(input, values)``: 0 where input < 0, values where 0, 1 where > 0."""
    _require_tensor(input, "heaviside", "input", 1)
    _require_tensor(values, "heaviside", "values", 2)
    return input.heaviside(values)


nextafter = _pair("nextafter", out=_cast("nextafter"))
ldexp = _pair("ldexp", out=Out("ldexp", ANY, prepare=_ldexp_out_check, overlap=True))
gcd = _pair("gcd", out=Out(None, CAST, overlap=True, out_name="aten::gcd"))
lcm = _pair("lcm", out=Out(None, CAST, overlap=True, out_name="aten::lcm"))
ldexp_ = _pair("ldexp_")
gcd_ = _pair("gcd_")
lcm_ = _pair("lcm_")


@takes_out(_FREXP_OUT)
def frexp(input):  # noqa: A002 - torch's name
    """``torch.frexp(input)``: ``(mantissa, exponent)`` with ``input == mantissa * 2**exponent``.

    >>> import leafgrad as torch
    >>> torch.frexp(torch.tensor([8.0]))
    leafgrad.return_types.frexp(
    mantissa=tensor([0.5000]),
    exponent=tensor([4], dtype=leafgrad.int32))
    """
    _require_tensor(input, "frexp", "input", 1)
    return input.frexp()


# -- matrix products (ops/matrix_extra.py) --------------------------------------------------------


@takes_out(Out("addr", CAST, overlap=True))
def addr(input, vec1, vec2, *, beta=1, alpha=1):  # noqa: A002 - torch's name
    """``beta * input + alpha * outer(vec1, vec2)``.

    >>> import leafgrad as torch
    >>> torch.addr(torch.zeros(2, 2), torch.tensor([1., 2.]), torch.tensor([3., 4.]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    _require_tensor(input, "addr", "input", 1)
    _require_tensor(vec1, "addr", "vec1", 2)
    _require_tensor(vec2, "addr", "vec2", 3)
    return input.addr(vec1, vec2, beta=beta, alpha=alpha)


def _addbmm_resize(args, kwargs, outs):
    """torch's addbmm resizes its out without the resize warning: done here for a call that
    will succeed (out of the right dtype, operands of matching sizes), before the kernel."""
    from ._out import resize

    out, (bias, batch1, batch2) = outs[0], (list(args) + [None] * 3)[:3]
    if batch1 is None or batch2 is None or out.dtype is not batch2.dtype:
        return args, kwargs
    if batch1.ndim == 3 and batch2.ndim == 3 and batch1.dtype is batch2.dtype and \
            batch1.shape[0] == batch2.shape[0] and batch1.shape[2] == batch2.shape[1]:
        shape = (batch1.shape[1], batch2.shape[2])
        try:
            fits = np.broadcast_shapes(tuple(bias.shape), shape) == shape
        except ValueError:
            fits = False
        if tuple(out.shape) != shape and bias.dtype is batch2.dtype and fits:
            resize(out, shape)
    return args, kwargs


@takes_out(Out("addbmm", same_as("self and mat2 must have the same dtype, but got {O} and {R}"),
               prepare=_addbmm_resize, overlap=True))
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002 - torch's name
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    if beta.__class__ is not int and beta.__class__ is not float or \
            alpha.__class__ is not int and alpha.__class__ is not float:
        beta, alpha = _argparse.beta_alpha("addbmm", (input, batch1, batch2), beta, alpha)
    _require_tensor(input, "addbmm", "input", 1)
    _require_tensor(batch1, "addbmm", "batch1", 2)
    _require_tensor(batch2, "addbmm", "batch2", 3)
    return input.addbmm(batch1, batch2, beta=beta, alpha=alpha)


def _tensors_only(name: str, tensors) -> None:
    from .tensor import Tensor

    for index, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected Tensor as element {index} in argument 0, but got "
                            f"{type(tensor).__name__}")


def block_diag(*tensors):
    """The tensors on the diagonal of a zero matrix (0-d as 1x1, 1-d as a row).

    >>> import leafgrad as torch
    >>> torch.block_diag(torch.tensor([[1, 2]]), torch.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    from .ops.matrix_extra import block_diag as op

    _tensors_only("block_diag", tensors)
    return op(*tensors)


@takes_out(Out("mm", same_as("multi_dot(): expected out tensor to have dtype {r} but got {o}")))
def chain_matmul(*matrices):
    """Deprecated in torch: the product of 2-d tensors, as ``linalg.multi_dot(matrices)``."""
    from .ops.matrix_extra import chain_matmul as op

    _tensors_only("chain_matmul", matrices)
    return op(*matrices)


# -- shape (ops/shape_misc.py) ------------------------------------------------------------------


def _int(function: str, argument: str, position: int, value) -> int:
    from .methods.misc import _int as check

    return check(function, argument, position, value)


def _narrow_copy_resize(args, kwargs, outs):
    """torch's narrow_copy resizes its out without the resize warning: done here for a call that
    will succeed (out of the input's dtype, valid arguments), before the kernel."""
    from ._out import resize
    from .autograd.grad_mode import no_grad

    out = outs[0]
    if args and getattr(args[0], "dtype", None) is out.dtype:
        try:
            with no_grad():
                shape = tuple(narrow_copy.__wrapped__(*args, **kwargs).shape)
        except Exception:  # noqa: BLE001 - the real call raises it
            return args, kwargs
        if tuple(out.shape) != shape:
            resize(out, shape)
    return args, kwargs


@takes_out(Out("narrow_copy", same_as(
    "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this error "
    "message be improved?  If so, please report an enhancement request to PyTorch.)"),
    prepare=_narrow_copy_resize, internal_overlap=False))
def narrow_copy(input, dim, start, length):  # noqa: A002 - torch's name
    """A copy of ``input.narrow(dim, start, length)``."""
    from .ops.shape_misc import narrow_copy as op

    _require_tensor(input, "narrow_copy", "input", 1)
    return op(input, _int("narrow_copy", "dim", 2, dim), _int("narrow_copy", "start", 3, start),
              _int("narrow_copy", "length", 4, length))


def unsafe_chunk(input, chunks, dim=0):  # noqa: A002 - torch's name
    """``chunk`` whose pieces are not tracked as views of ``input`` (see ops/shape_misc.py)."""
    from .ops.shape_misc import unsafe_chunk as op

    _require_tensor(input, "unsafe_chunk", "input", 1)
    return op(input, _int("unsafe_chunk", "chunks", 2, chunks), _int("unsafe_chunk", "dim", 3, dim))


def unsafe_split(input, split_size, dim=0):  # noqa: A002 - torch's name
    """``split`` whose pieces are not tracked as views of ``input`` (see ops/shape_misc.py)."""
    from .ops.shape_misc import unsafe_split as op

    _require_tensor(input, "unsafe_split", "input", 1)
    return op(input, _int("unsafe_split", "split_size", 2, split_size),
              _int("unsafe_split", "dim", 3, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):  # noqa: A002 - torch's name
    from . import _argparse
    from .ops.shape_misc import unsafe_split_with_sizes as op

    _require_tensor(input, "unsafe_split_with_sizes", "input", 1)
    if isinstance(split_sizes, int) or not _argparse._is_int_list(split_sizes):
        raise TypeError("unsafe_split_with_sizes(): argument 'split_sizes' (position 2) must be "
                        f"tuple of ints, not {_argparse.typename(split_sizes)}")
    return op(input, [int(s) for s in split_sizes], _int("unsafe_split_with_sizes", "dim", 3, dim))


# -- scatters (ops/scatter_extra.py) ------------------------------------------------------------


def select_scatter(input, src, dim, index):  # noqa: A002 - torch's name
    """A copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    _require_tensor(input, "select_scatter", "input", 1)
    _require_tensor(src, "select_scatter", "src", 2)
    return input.select_scatter(src, dim, index)


# torch's slice_scatter out= is a composite's copy: out joins the graph when an input requires
# grad, and an out that requires grad is refused under the aten name
@takes_out(Out(None, EXPECT, mode="copy", out_name="aten::slice_scatter"))
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):  # noqa: A002
    """A copy of ``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``."""
    _require_tensor(input, "slice_scatter", "input", 1)
    _require_tensor(src, "slice_scatter", "src", 2)
    return input.slice_scatter(src, dim, start, end, step)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002 - torch's name
    """A copy of ``input`` with a diagonal (``offset``, ``dim1``, ``dim2``) replaced by ``src``."""
    _require_tensor(input, "diagonal_scatter", "input", 1)
    _require_tensor(src, "diagonal_scatter", "src", 2)
    return input.diagonal_scatter(src, offset, dim1, dim2)


def masked_scatter(input, mask, source):  # noqa: A002 - torch's name
    """``input`` (broadcast with ``mask``) with its True positions taking ``source``'s leading
    elements in row-major order.

    >>> import leafgrad as torch
    >>> torch.masked_scatter(torch.zeros(3), torch.tensor([True, False, True]),
    ...                      torch.tensor([1., 2., 3.]))
    tensor([1., 0., 2.])
    """
    _require_tensor(input, "masked_scatter", "input", 1)
    _require_tensor(mask, "masked_scatter", "mask", 2)
    _require_tensor(source, "masked_scatter", "source", 3)
    return input.masked_scatter(mask, source)


@takes_out(Out("index_reduce", EXPECT, overlap="self"))
def index_reduce(input, dim, index, source, reduce, *, include_self=True):  # noqa: A002
    """``source``'s slices folded into ``input`` at ``index`` along ``dim`` with ``reduce``
    (prod, mean, amax or amin); ``include_self=False`` leaves ``input``'s values out."""
    _require_tensor(input, "index_reduce", "input", 1)
    _require_tensor(index, "index_reduce", "index", 3)
    _require_tensor(source, "index_reduce", "source", 4)
    from .methods.misc import _bool, _check_reduce

    _check_reduce("index_reduce", reduce, 5)
    include_self = _bool("index_reduce", "include_self", include_self)
    return input.index_reduce(dim, index, source, reduce, include_self=include_self)
