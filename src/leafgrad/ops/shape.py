"""Shape ops. Most are views: the result shares memory and the version counter with its input."""

from __future__ import annotations

import numpy as np

from . import _layout
from ._forward import auto_linear
from . import _batching_rules as batch
from .registry import Op, array_kernel, on_arrays, plain_apply, register, zeros_of
from .registry import _sum_to
from ._promote import result_np_dtype
from ..tensor import _wrap_dim  # noqa: F401 - also imported from here by other op modules
from .. import _argparse
from ..autograd import _grad as autograd_grad
from ..autograd.grad_mode import enable_grad




def parse_shape(shape: tuple, function: str | None = None, name: str = "size") -> tuple:
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size(...))``.

    Anything but Python ints (NumPy integers, integer 0-d tensors, and what torch refuses: a
    float, which ``int()`` would truncate) is read as torch's parser reads the int list of
    ``function``'s parameter ``name`` (_argparse.varargs_int_list), with its errors."""
    given = shape
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    for size in shape:
        if size.__class__ is not int:
            break
    else:
        return tuple(shape)
    if function is None:
        return tuple(int(s) for s in shape)

    return _argparse.varargs_int_list(function, name, given, _argparse.NOT_GIVEN)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` and check the element count, with torch's messages."""
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for index, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(
                f"invalid shape dimension {s} at index {index} of shape {list(shape)}"
            )
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if unknown:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous"
                )
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        if numel % known != 0:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _try_view(a: np.ndarray, shape: tuple):
    """``a`` reshaped without copying, or None when its strides do not allow it."""
    try:
        out = np.reshape(a, shape, copy=False)
    except ValueError:
        return None
    if not out.size or not a.ndim or (a.flags.c_contiguous and a.strides[-1] == a.itemsize):
        return out  # (a row-major source without a strided size-1 last dim: row-major strides)
    # Note: strides of size-1 dims in a view
    # NumPy and torch agree on the strides of every dim longer than 1, but give a size-1 dim of
    # a view of a strided tensor different strides (NumPy: the next dim's extent; torch's
    # computeStride: the stride its chunk of dims would have, from the source's last stride). They decide which way round
    # torch's mm backward computes (a column-major operand's gradient is built transposed).
    strides = _view_strides(a.shape, a.strides, shape)
    if strides is None or strides == out.strides:
        return out
    return np.lib.stride_tricks.as_strided(a, shape, strides)


def _view_strides(old_shape: tuple, old_strides: tuple, shape: tuple):
    """torch's ``computeStride`` for viewing a non-empty tensor (strides in bytes), or None."""
    strides = [0] * len(shape)
    view_d = len(shape) - 1
    chunk_base = old_strides[-1] if old_strides else 1
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or shape[view_d] == 1):
                strides[view_d] = view_numel * chunk_base
                view_numel *= shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(strides) if view_d == -1 else None


# -- views ----------------------------------------------------------------------------------------


class _View(Op):
    __slots__ = ()
    is_view = True
    complex_ok = True  # Note: complex support (registry.py): views move values, any dtype


@register
class View(_View):
    node = "ViewBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.shape("shape")
    torch_names = ("Tensor.view", "reshape", "Tensor.view_as", "flatten")

    @staticmethod
    def forward(ctx, a, shape):
        out = _try_view(a, shape)
        if out is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        return out

    def backward(self, grad):
        return grad.reshape(self.input_shape())

    def jvp(self, tangents, primals, result):
        # torch keeps each tangent laid out as its primal, so a view of the primal is a view of
        # the tangent; leafgrad's tangents keep the layout their formula gave (under vmap, the
        # batch dim's place too), so one that cannot be viewed is reshaped (same values)
        return tangents[0].reshape(self._params["shape"])


@register
class ReshapeAlias(View):
    """``reshape`` of a non-contiguous tensor whose strides still allow a view."""

    node = "ReshapeAliasBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.shape("shape")
    torch_names = ("reshape",)


@register
class UnsafeView(Op):
    """The reshape of a fresh copy (``reshape`` of a non-viewable tensor, ``matmul`` folding)."""

    node = "UnsafeViewBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.shape("shape")
    torch_names = ("reshape",)

    @staticmethod
    def forward(ctx, a, shape):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        return np.reshape(a, shape)

    def backward(self, grad):
        return grad.reshape(self.input_shape())

    jvp = auto_linear


@register
class T(_View):
    node = "TBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.t
    torch_names = ("t", "Tensor.T")

    @staticmethod
    def forward(ctx, a):
        return a.T

    def backward(self, grad):
        return grad.t()

    jvp = auto_linear


@register
class Transpose(_View):
    node = "TransposeBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dim0", "dim1")
    torch_names = ("transpose", "swapaxes", "swapdims")

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        if a.ndim == 0:
            return a.view()  # torch treats a 0-d tensor as having one (size-1) dim here
        return np.swapaxes(a, dim0, dim1)

    def backward(self, grad):
        return grad.transpose(self._params["dim0"], self._params["dim1"])

    jvp = auto_linear


@register
class Permute(_View):
    node = "PermuteBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.permute
    torch_names = ("permute",)

    @staticmethod
    def forward(ctx, a, dims):
        return np.transpose(a, dims)

    def backward(self, grad):
        # one tuple argument: a 0-d tensor's permute(()) has no dims to spread
        return grad.permute(tuple(np.argsort(self._params["dims"]).tolist()))

    jvp = auto_linear


@register
class Unsqueeze(_View):
    node = "UnsqueezeBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dim", extra_rank=1)
    torch_names = ("unsqueeze",)

    @staticmethod
    def forward(ctx, a, dim):
        out = np.expand_dims(a, dim)
        # torch's new stride is the size times the stride of the dim it goes before (1 at the
        # end); NumPy's differs for empty tensors (Note: strides of empty tensors, tensor.py)
        # and for stride-0 dims (an expanded tensor's)
        # (and NumPy may renumber a size-1 dim's stride: torch keeps the others as they are)
        stride = a.shape[dim] * a.strides[dim] if dim < a.ndim else a.itemsize
        strides = a.strides[:dim] + (stride,) + a.strides[dim:]
        if out.strides != strides:
            out = np.lib.stride_tricks.as_strided(out, strides=strides,
                                                  writeable=out.flags.writeable)
        return out

    def backward(self, grad):
        return grad.squeeze(self._params["dim"])

    jvp = auto_linear


@register
class SqueezeAll(_View):
    node = "SqueezeBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.squeeze_all
    torch_names = ("squeeze",)

    @staticmethod
    def forward(ctx, a):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        return np.squeeze(a)

    def backward(self, grad):
        # torch's unsqueeze_to: one unsqueeze per size-1 dim (nothing for none), so the
        # nodes a create_graph backward records are torch's
        for dim, size in enumerate(self.input_shape()):
            if size == 1:
                grad = grad.unsqueeze(dim)
        return grad

    jvp = auto_linear


@register
class SqueezeDim(_View):
    node = "SqueezeBackward1"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dim")
    torch_names = ("squeeze",)

    @staticmethod
    def forward(ctx, a, dim):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        return np.squeeze(a, dim) if a.ndim and a.shape[dim] == 1 else a.view()

    def backward(self, grad):
        shape = self.input_shape()
        dim = self._params["dim"]
        if not shape or shape[dim] != 1:
            return grad
        return grad.unsqueeze(dim)

    jvp = auto_linear


@register
class SqueezeDims(_View):
    node = "SqueezeBackward2"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dims")
    torch_names = ("squeeze",)

    @staticmethod
    def forward(ctx, a, dims):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        # (a 0-d tensor takes dims 0 and -1 and keeps its one element)
        drop = tuple(d for d in dims if a.ndim and a.shape[d] == 1)
        return np.squeeze(a, drop) if drop else a.view()

    def backward(self, grad):
        shape = self.input_shape()  # torch's unsqueeze_to over the named dims, in order
        named = {d % len(shape) for d in self._params["dims"]} if shape else set()
        for dim, size in enumerate(shape):
            if dim in named and size == 1:
                grad = grad.unsqueeze(dim)
        return grad

    jvp = auto_linear


@register
class SqueezeLast(Op):
    """The in-place ``squeeze_(dim)``: ``Tensor.squeeze_(dim)``, and the ``squeeze_(0)`` that
    ``matmul`` of a vector and a matrix ends with. A dim of size other than 1 stays (the node is
    recorded all the same, as in torch)."""

    node = "SqueezeBackward4"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True  # a view (torch.stft ends with it on its complex result)
    vmap = batch.dims("dim")
    torch_names = ("matmul", "Tensor.squeeze_")

    @staticmethod
    def forward(ctx, a, dim):
        return np.squeeze(a, dim) if a.ndim and a.shape[dim] == 1 else a.view()

    def backward(self, grad):
        shape = self.input_shape()
        dim = self._params["dim"]
        return grad.unsqueeze(dim) if shape and shape[dim] == 1 else grad

    jvp = auto_linear


@register
class Expand(_View):
    node = "ExpandBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.shape("shape")
    torch_names = ("expand", "Tensor.expand_as", "broadcast_to")

    @staticmethod
    def forward(ctx, a, shape):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        # torch's inferExpandGeometry: an expanded dim gets stride 0; a dim that stays as it is
        # keeps its stride, and a new size-1 dim gets the stride of a dim wrapping the next
        # one (size * stride of the next; NumPy zeroes both: the address is the same, but
        # stride() and the layouts derived from it, such as matmul's fold, read it)
        lead = len(shape) - a.ndim
        strides = [0] * len(shape)
        for i in range(len(shape) - 1, -1, -1):
            if i >= lead:
                size, stride = a.shape[i - lead], a.strides[i - lead]
            else:
                size = 1
                stride = shape[i + 1] * strides[i + 1] if i + 1 < len(shape) else 0
            strides[i] = 0 if size != shape[i] else stride
        strides = tuple(strides)
        flags = a.flags
        if flags.c_contiguous and flags.writeable and a.size and lead >= 0 and all(
                n == m or n == 1 for n, m in zip(a.shape, shape[lead:])):
            # the view built directly: 0.5 us where np.broadcast_to takes 1.9 (NumPy reads a
            # buffer only from a contiguous writeable array); read-only, as broadcast_to's
            out = np.ndarray(shape, a.dtype, a, 0, strides)
            out.flags.writeable = False
            return out
        out = np.broadcast_to(a, shape)
        if strides != out.strides:
            out = np.lib.stride_tricks.as_strided(out, strides=strides, writeable=False)
        return out

    def backward(self, grad):
        return _sum_to(grad, self.input_shape())

    jvp = auto_linear


@register
class Slice(_View):
    node = "SliceBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dim")
    torch_names = ("narrow", "Tensor.__getitem__")

    @staticmethod
    def forward(ctx, a, dim, start, end, step=1, as_written=None):
        # (as_written: the slice getitem was given, for the node's accessors only: graph.py,
        # Note: slice bounds as written; replays of the view pass it back)
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        index = [slice(None)] * a.ndim
        index[dim] = slice(start, end, step)
        out = a[tuple(index)]
        if step != 1 and out.shape[dim] < 2 and out.strides[dim] != a.strides[dim] * step:
            # NumPy keeps the old stride of a dim sliced to 0 or 1 entries; torch multiplies
            # it by the step whatever the length (Note: strides of empty tensors, tensor.py)
            strides = list(out.strides)
            strides[dim] = a.strides[dim] * step
            out = np.lib.stride_tricks.as_strided(out, strides=tuple(strides))
        return out

    def backward(self, grad):
        p = self._params
        return SliceBackward.apply(
            grad, input_sizes=self.input_shape(), dim=p["dim"], start=p["start"], end=p["end"],
            step=p.get("step", 1),
        )

    jvp = auto_linear


@register
class SliceBackward(Op):
    """Zeros of the input's shape with ``grad`` placed in the slice (and its own backward)."""

    node = "SliceBackwardBackward0"
    complex_ok = True
    vmap = batch.dims("dim", sizes="input_sizes")
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, input_sizes, dim, start, end, step=1):
        out = np.zeros(input_sizes, dtype=grad.dtype)
        index = [slice(None)] * len(input_sizes)
        index[dim] = slice(start, end, step)
        out[tuple(index)] = grad
        return out

    def backward(self, grad):
        p = self._params
        return Slice.apply(grad, dim=p["dim"], start=p["start"], end=p["end"], step=p["step"])

    jvp = auto_linear


@register
class Select(_View):
    node = "SelectBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    vmap = batch.dims("dim")
    torch_names = ("select", "unbind", "Tensor.__getitem__")

    @staticmethod
    def forward(ctx, a, dim, index):
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
        where = [slice(None)] * a.ndim
        where[dim] = index
        return a[tuple(where) + (Ellipsis,)]  # the Ellipsis keeps a 0-d result a view

    def backward(self, grad):
        p = self._params
        return plain_apply(SelectBackward, grad, input_sizes=self.input_shape(), dim=p["dim"],
                           index=p["index"])

    jvp = auto_linear


@register
class SelectBackward(Op):
    node = "SelectBackwardBackward0"
    complex_ok = True
    vmap = batch.dims("dim", extra_rank=1, sizes="input_sizes")
    torch_names = ()

    @staticmethod
    def forward(ctx, grad, input_sizes, dim, index):
        out = np.zeros(input_sizes, dtype=grad.dtype)
        where = [slice(None)] * len(input_sizes)
        where[dim] = index
        out[tuple(where)] = grad
        return out

    def backward(self, grad):
        p = self._params
        return Select.apply(grad, dim=p["dim"], index=p["index"])

    jvp = auto_linear


@register
class Unbind(_View):
    """Every slice along ``dim`` as views; a missing output grad counts as zeros."""

    node = "UnbindBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dim")
    multi_output = True
    torch_names = ("unbind", "Tensor.__iter__")

    @staticmethod
    def forward(ctx, a, dim):
        # a[i, ...], not iteration: iterating a 1-d array gives NumPy scalars, read-only copies
        # where torch's outputs are 0-d views of the input
        moved = np.moveaxis(a, dim, 0)
        return tuple(moved[index, ...] for index in range(moved.shape[0]))

    @classmethod
    def view_step(cls, params: dict, output_nr: int) -> tuple:
        return (Select, {"dim": params["dim"], "index": output_nr})

    def backward(self, grads):
        from ..tensor import _wrap

        dim = self._params["dim"]
        shape = self.input_shape()
        count = shape[dim]
        grads = list(grads) + [None] * (count - len(grads))
        present = next(g for g in grads if g is not None)
        # torch's unbind_backward: zeros for a missing output's grad (present * 0 kept the
        # sign of present's zeros, NaN from its inf, and recorded a product under create_graph)
        filled = [g if g is not None else _wrap(array_kernel(np.zeros_like, present._data))
                  for g in grads]
        return Stack.apply(*filled, dim=dim)

    jvp = auto_linear


@register
class Alias(_View):
    node = "AliasBackward0"
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.elementwise
    torch_names = ("Tensor.__getitem__",)

    @staticmethod
    def forward(ctx, a):
        return a.view()

    def backward(self, grad):
        return grad

    jvp = auto_linear


# -- joins ----------------------------------------------------------------------------------------


@register
class Cat(Op):
    autocast = "promote"  # torch's CPU autocast list: the widest floating dtype
    node = "CatBackward0"
    masks_unneeded_grads = False  # a tensor list (Note: unneeded input gradients)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dim")
    torch_names = ("cat", "concat", "concatenate")

    @classmethod
    def apply_list(cls, tensors, dim):
        return cls.apply(*tensors, dim=dim)

    @staticmethod
    def forward(ctx, *arrays, dim):
        target = result_np_dtype(*arrays)
        # torch skips legacy empty 1-d tensors (shape [0]) when joining.
        kept = [a for a in arrays if not (a.ndim == 1 and a.shape[0] == 0)] or [arrays[0]]
        out = np.concatenate([a.astype(target, copy=False) for a in kept], axis=dim)
        # torch's compute_output_memory_format: channels-last only when every input suggests
        # it (a channels-last first input joined to row-major ones gave a channels-last
        # result, which a later view refused: generated-program seed 164749)
        # (a fresh channels-last copy: NumPy's result keeps its own strides in size-1 dims)
        return _layout.to_channels_last(out) if all(
            a.ndim == 4 and _layout._channels_last(a) for a in kept) \
            else _layout.contiguous(out)

    def backward(self, grad):
        dim = self._params["dim"]
        grads = []
        offset = 0
        for shape, _ in self._input_meta:
            if len(shape) == 1 and shape[0] == 0:
                # torch's cat_tensors_backward: a fresh at::zeros({0}) for a 1-d empty input,
                # with no history under create_graph (seed 21560), also beside n-d inputs
                from ..tensor import _wrap

                grads.append(_wrap(array_kernel(zeros_of, grad._data, shape=(0,))))
                continue
            size = shape[dim]
            grads.append(grad.narrow(dim, offset, size))
            offset += size
        return tuple(grads)

    jvp = auto_linear


@register
class Stack(Op):
    node = "StackBackward0"
    masks_unneeded_grads = False  # a tensor list (Note: unneeded input gradients)
    uint_ok = True  # torch computes uint16/32/64 (Note: wide unsigned support)
    complex_ok = True
    vmap = batch.dims("dim", extra_rank=1)
    torch_names = ("stack",)

    @staticmethod
    def forward(ctx, *arrays, dim):
        target = result_np_dtype(*arrays)
        return _layout.contiguous(np.stack([a.astype(target, copy=False) for a in arrays], axis=dim))

    def backward(self, grad):
        dim = self._params["dim"]
        count = len(self._input_meta)
        data = grad._data
        if count > 1 and data.ndim and not data.strides[dim] and on_arrays():
            # Note: stacked leaves share their gradient. torch's gradients here are views
            # (unbind) of one expanded slice (a sum's backward over the stacked dim), and
            # AccumulateGrad keeps such a view as the leaf's .grad where its layout contract
            # holds (a contiguous slice): every leaf stacked and summed gets a .grad on that
            # one slice, so the next backward's in-place accumulation (or a zero_) shows in
            # all of them (generated-program seeds 90034, 92988, 94510, 116663 for 0-d
            # leaves; 2240162 for (2, 3, 4) ones, stacked on dim -2 and summed over it). One
            # fresh array, shared, gives the same; a gradient that records (create_graph) is
            # copied by AccumulateGrad in torch too.
            piece = data[(slice(None),) * dim + (0,)]
            # (a slice with a 0 stride, even on a size-1 dim, as a (1, 1) slice of a full
            # sum's expanded gradient, is copied by torch's AccumulateGrad: measured)
            if piece.flags.c_contiguous and 0 not in piece.strides:
                from ..tensor import _wrap

                shared = np.array(piece)
                return tuple(_wrap(shared) for _ in range(count))
        return tuple(grad.select(dim, i) for i in range(count))

    jvp = auto_linear


# -- regenerated views and in-place ops on views (torch's CopySlices) ----------------------------


def replay_array(array: np.ndarray, steps: tuple) -> np.ndarray:
    """Apply a view's recorded steps to an array (each step's forward returns a NumPy view)."""
    for op, params in steps:
        array = op.forward(None, array, **params)
    return array


def replay(tensor, steps: tuple):
    """The same on a Tensor, recorded when grad mode is on."""
    for op, params in steps:
        tensor = op.apply(tensor, **params)
    return tensor


@register
class AsStrided(_View):
    """A view regenerated from its base after the base's history was rewritten."""

    node = "AsStridedBackward0"
    torch_names = ("as_strided",)

    @staticmethod
    def forward(ctx, a, steps):
        out = replay_array(a, steps)
        if ctx is not None:
            ctx.keep("self_sym_sizes", a.shape)
            offset = out.__array_interface__["data"][0] - a.__array_interface__["data"][0]
            ctx.keep("geometry", (a.strides, out.strides, offset, a.itemsize))
        return out

    def backward(self, grad):
        if 0 in grad.shape:  # Note: an empty as_strided view's gradient
            return grad.new_zeros(self.input_shape())
        if grad._may_require_grad():
            result = self._recorded_backward(grad)
            if result is not None:
                return result
        # The adjoint of replaying the view's steps: run those steps' own backwards, by
        # differentiating the replay on a stand-in leaf. This sums where the view overlaps
        # itself (expand), which scattering into the region could not.
        from ..tensor import _wrap

        with enable_grad():
            stand_in = _wrap(np.zeros(self.input_shape(), grad._data.dtype), True)
            region = replay(stand_in, self._params["steps"])
        create = grad._may_require_grad()
        (result,) = autograd_grad(region, stand_in, grad, create_graph=create)
        # torch's as_strided_backward writes the gradient into new zeros (copy_ or index_add_:
        # _version 1)
        result._vc = [1]
        return result

    def _recorded_backward(self, grad):
        """Under create_graph, torch's as_strided_backward, so that the recorded graph is
        torch's: the gradient's size-1 dims squeezed out (last first), zeros over the storage,
        the view's region of it taken ``as_strided`` and ``copy_(grad)``-ed into (CopySlices),
        the input's geometry taken ``as_strided`` from it (AsStridedBackward0); an expanded
        dim (stride 0) of the view is summed out first (SumBackward1, as torch: generated-
        program seed 35102). None (the replay's adjoint) for empty views and where either
        geometry may overlap itself: torch's steps differ there (index_add_, counts and a
        division)."""
        in_strides, out_strides, offset, itemsize = self._saved["geometry"]
        in_shape, out_shape = self.input_shape(), tuple(grad.shape)
        if offset < 0 or any(s < 0 for s in in_strides + out_strides):
            return None
        in_strides = tuple(s // itemsize for s in in_strides)
        out_strides = tuple(s // itemsize for s in out_strides)
        offset //= itemsize
        if 0 in in_shape or 0 in out_shape:
            return None
        out_dims = [(n, s) for n, s in zip(out_shape, out_strides) if n != 1 and s != 0]
        in_dims = [(n, s) for n, s in zip(in_shape, in_strides) if n != 1]
        if _may_overlap(out_dims) or _may_overlap(in_dims):
            return None
        for dim in range(len(out_shape) - 1, -1, -1):
            if out_shape[dim] == 1:
                grad = grad.squeeze(dim)
            elif out_strides[dim] == 0:
                grad = grad.sum(dim)
        size = max(_extent(in_dims), offset + _extent(out_dims))
        storage = grad.new_zeros(size)
        storage.as_strided([n for n, _ in out_dims], [s for _, s in out_dims], offset).copy_(grad)
        return storage.as_strided(in_shape, in_strides, 0)

    jvp = auto_linear


def _extent(dims: list) -> int:
    """The storage (size, stride) dims span from their first element."""
    return 1 + sum((n - 1) * s for n, s in dims)


def _may_overlap(dims: list) -> bool:
    """torch's _maybe_overlapping_memory over (size, stride) dims: whether two positions
    might share memory."""
    reach = 0
    for size, stride in sorted(dims, key=lambda dim: dim[1]):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


@register
class ViewScatter(Op):
    """``base`` with the region a view's steps select replaced by ``src`` (a copy)."""

    node = "AsStridedScatterBackward0"
    complex_ok = True
    inputs = ("self", "src")
    torch_names = ("as_strided_scatter", "select_scatter", "slice_scatter")

    @staticmethod
    def forward(ctx, base, src, steps):
        out = base.copy()
        region = replay_array(out, steps)
        if not region.flags.writeable:  # an expanded step (Note: writes through expanded
            from .inplace import OVERLAP_ERROR, has_internal_overlap, writable_alias  # tensors)

            if has_internal_overlap(region):
                raise RuntimeError(OVERLAP_ERROR)
            region = writable_alias(region)
        region[...] = src
        return out

    def backward(self, grad):
        steps = self._params["steps"]
        grad_base = grad_src = None
        if self.needs_grad(0):
            region_shape = replay_array(np.empty(self.input_shape(0), np.bool_), steps).shape
            zeros = grad.new_zeros(region_shape)
            grad_base = ViewScatter.apply(grad, zeros, steps=steps)
        if self.needs_grad(1):
            grad_src = replay(grad, steps)
        return grad_base, grad_src

    jvp = auto_linear
