"""The ``*_copy`` forms of the view ops (``permute_copy``, ``split_copy``, ...).

Note: view copies. torch's ``<view>_copy(x, ...)`` computes what ``x.<view>(...)`` computes but
into fresh, contiguous memory: the result is not a view (no shared version counter, no
``_base``), and its node is the view's node with ``_copy`` appended (``PermuteBackward0_copy``)
and the view's backward formula. Each copy op here is therefore the view op's class with
``is_view`` off, a node name ending in ``_copy`` and a forward that copies the view's result.

The functions check their arguments by making the view itself, unrecorded, on a detached alias
(so every error is the view's own, raised before anything is computed), then read the view's
op and parameters from its last view step and run the matching copy op on the input.
"""

from __future__ import annotations

import numpy as np
from .. import _dtype as _dtype

from ._forward import auto_linear
from .complex import ViewAsComplex, ViewAsReal
from .linalg_ext import DiagonalCopy
from .registry import NoDerivative, Op, register
from .shape import (Alias, Expand, Permute, Select, Slice, SqueezeAll, SqueezeDim, SqueezeDims,
                    T, Transpose, Unbind, Unsqueeze, View)
from .shape_ext import AsStridedPublic, Diagonal, Split, SplitWithSizes
from .shape_misc import Unfold
from ..autograd.grad_mode import no_grad
from .shape_ext import check_strided


def _fresh(array: np.ndarray) -> np.ndarray:
    return np.array(array, order="C", copy=True)


def _copying(view_forward):
    """The view's forward, its result (or each of its results) copied to fresh memory."""

    def forward(ctx, *args, **params):
        out = view_forward(ctx, *args, **params)
        if type(out) is tuple:
            return tuple(_fresh(o) for o in out)
        return _fresh(out)

    return staticmethod(forward)


def _copy_op(view: type, name: str, forward=None) -> type:
    """A copy op's class body: the view's class with is_view off and a copying forward."""
    return type(view.op_name + "Copy", (view,), {
        "__slots__": (),
        "__module__": __name__,
        "node": view.node + "_copy",
        "is_view": False,
        "torch_names": (name,),
        "forward": forward or _copying(view.forward),
    })


def _view_copy_forward(ctx, a, shape):
    # view_copy never aliases, so torch accepts strides a view could not follow (its kernel
    # reshapes into the new memory)
    if ctx is not None:
        ctx.keep("self_sym_sizes", a.shape)
    return _fresh(np.reshape(a, shape))


# One registered op per view, written out so that the op table lists each (register names the
# class after its node, as for every op).
AliasCopy = register(_copy_op(Alias, "alias_copy"))
ExpandCopy = register(_copy_op(Expand, "expand_copy"))
PermuteCopy = register(_copy_op(Permute, "permute_copy"))
SelectCopy = register(_copy_op(Select, "select_copy"))
SliceCopy = register(_copy_op(Slice, "slice_copy"))
SplitCopy = register(_copy_op(Split, "split_copy"))
SplitWithSizesCopy = register(_copy_op(SplitWithSizes, "split_with_sizes_copy"))
SqueezeAllCopy = register(_copy_op(SqueezeAll, "squeeze_copy"))
SqueezeDimCopy = register(_copy_op(SqueezeDim, "squeeze_copy"))
SqueezeDimsCopy = register(_copy_op(SqueezeDims, "squeeze_copy"))
TCopy = register(_copy_op(T, "t_copy"))
TransposeCopy = register(_copy_op(Transpose, "transpose_copy"))
UnbindCopy = register(_copy_op(Unbind, "unbind_copy"))
UnfoldCopy = register(_copy_op(Unfold, "unfold_copy"))
UnsqueezeCopy = register(_copy_op(Unsqueeze, "unsqueeze_copy"))
ViewCopy = register(_copy_op(View, "view_copy", staticmethod(_view_copy_forward)))
ViewAsRealCopy = register(_copy_op(ViewAsReal, "view_as_real_copy"))
AsStridedCopy = register(_copy_op(AsStridedPublic, "as_strided_copy"))

_COPIES = {Alias: AliasCopy, Expand: ExpandCopy, Permute: PermuteCopy, Select: SelectCopy,
           Slice: SliceCopy, SqueezeAll: SqueezeAllCopy, SqueezeDim: SqueezeDimCopy,
           SqueezeDims: SqueezeDimsCopy, T: TCopy, Transpose: TransposeCopy,
           Unfold: UnfoldCopy, Unsqueeze: UnsqueezeCopy, View: ViewCopy,
           ViewAsReal: ViewAsRealCopy, AsStridedPublic: AsStridedCopy, Diagonal: DiagonalCopy,
           ViewAsComplex: None}


class _NoDerivative(NoDerivative, Op):
    """torch records ``detach_copy`` of a tensor requiring grad, and the ``out=`` form of every
    copy, under a node named ``NotImplemented`` whose backward raises (there is no derivative
    formula); the result still requires grad. Not in the op table: there is no gradient to test
    (as heaviside's node)."""

    aten = "detach_copy"
    complex_ok = True
    uint_ok = True

    @staticmethod
    def forward(ctx, a, name="detach_copy"):
        return _fresh(a)


_NoDerivative.__name__ = _NoDerivative.__qualname__ = "NotImplemented"


# -- functions ----------------------------------------------------------------------------------


def as_copy(make_view, tensor, *args):
    """``make_view(tensor, *args)``'s values in fresh memory, recorded as its ``_copy`` node (see
    Note: view copies)."""
    with no_grad():
        probe = make_view(tensor.detach(), *args)
    if not probe._view_steps:
        # under vmap the view is a batched wrapper without steps: the copy is the view's
        # values in fresh memory, recorded as the view and a clone
        return make_view(tensor, *args).clone().contiguous()
    view, params = probe._view_steps[-1]
    copy = _COPIES[view]
    if copy is None:  # view_as_complex_copy: torch has no complex-output derivative for it
        from ..autograd.grad_mode import state

        if state.grad_enabled and tensor._may_require_grad():
            raise RuntimeError("view_as_complex_copy does not support automatic "
                               "differentiation for outputs with complex dtype.")
        return probe.clone()
    return copy.apply(tensor, **params)


def check_complex_grad(tensor, name: str) -> None:
    """torch has no complex derivative for a few of these (select_copy, slice_copy,
    native_dropout): it refuses a complex input that requires grad when recording."""
    from ..autograd.grad_mode import state

    if state.grad_enabled and tensor._may_require_grad() and tensor._data.dtype.kind == "c":
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           "with complex dtype.")


def split_copy(tensor, split_size, dim=0):
    from .shape_ext import split

    split(tensor.detach(), split_size, dim)  # the checks and errors of split
    dim = _wrap_dim(dim, tensor.ndim)
    return SplitCopy.apply(tensor, split_size=split_size, dim=dim)


def split_with_sizes_copy(tensor, split_sizes, dim=0):
    from .shape_ext import split

    sizes = tuple(int(s) for s in split_sizes)
    split(tensor.detach(), sizes, dim)
    return SplitWithSizesCopy.apply(tensor, split_sizes=sizes, dim=_wrap_dim(dim, tensor.ndim))


def unbind_copy(tensor, dim=0):
    from . import unbind

    unbind(tensor.detach(), dim)
    return UnbindCopy.apply(tensor, dim=_wrap_dim(dim, tensor.ndim))


def detach_copy(tensor):
    return _NoDerivative.apply(tensor)


def join_out(out, tensor, name: str) -> None:
    """After ``<name>(tensor, ..., out=out)`` wrote out: torch's out= forms of the copies give
    out a ``NotImplemented`` node on ``tensor`` when it requires grad (backward then raises)."""
    if not tensor._may_require_grad() or out._base is not None:
        return
    if _dtype.kind(out._data) not in "fc":
        return
    node = _NoDerivative._record((tensor,), {"name": name})._node
    out._node = node
    out._output_nr = 0
    out._requires_grad = True


def _wrap_dim(dim: int, ndim: int) -> int:
    from ..tensor import _wrap_dim as wrap

    return wrap(dim, ndim)


# -- as_strided_scatter -------------------------------------------------------------------------

_NON_CONTIGUOUS_GRAD = (
    '!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at '
    '"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp":4754, please report a bug to '
    'PyTorch. as_strided_scatter is currently only supported for contiguous inputs')


@register
class AsStridedScatter(Op):
    """``as_strided_scatter(self, src, size, stride, storage_offset)``: a copy of ``self`` (in
    its own memory layout, as torch's clone) whose strided region is ``src``.

    Note: as_strided_scatter's gradient. torch 2.13 gives ``self`` the part of ``grad`` inside
    the region (as_strided_scatter_backward copies grad's region into zeros), which is the
    gradient of neither output part: the output's region holds ``src``, not ``self``. Here
    ``self`` gets grad outside the region (zeros inside), the derivative (gradcheck agrees);
    ``src`` gets grad's region, as in torch."""

    node = "AsStridedScatterBackward0"
    inputs = ("self", "src")
    complex_ok = True
    uint_ok = True
    torch_names = ("as_strided_scatter", "Tensor.as_strided_scatter")

    @staticmethod
    def forward(ctx, a, src, size, stride, storage_offset):
        out = np.copy(a, order="K")
        region = AsStridedPublic.forward(None, out, size, stride, storage_offset)
        region[...] = src  # overlapping positions: the last write wins, as torch's copy_
        return out

    def backward(self, grad):
        # torch requires a contiguous self under autograd, so grad's layout is the strides'
        p = self._params
        grad = grad.contiguous()
        grad_self = grad_src = None
        if self.needs_grad(0):
            zeros = grad.new_zeros(p["size"])
            grad_self = AsStridedScatter.apply(grad, zeros, **p)
        if self.needs_grad(1):
            grad_src = AsStridedPublic.apply(grad, **p)
        return grad_self, grad_src

    jvp = auto_linear


def as_strided_scatter(tensor, src, size, stride, storage_offset=None):
    from ..autograd.grad_mode import state

    size, stride = tuple(size), tuple(stride)
    offset = 0 if storage_offset is None else int(storage_offset)
    check_strided(tensor._data, size, stride, offset)
    if tuple(src.shape) != size:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(size)}")
    if 0 not in size and any(st == 0 and n > 1 for n, st in zip(size, stride)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
    if state.grad_enabled and tensor._may_require_grad() and not tensor.is_contiguous():
        raise RuntimeError(_NON_CONTIGUOUS_GRAD)
    return AsStridedScatter.apply(tensor, src, size=size, stride=stride, storage_offset=offset)
