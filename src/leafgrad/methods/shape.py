"""Tensor methods for views, shape builders and index-driven ops (ops/shape_ext.py, gather.py)."""

from __future__ import annotations

from .. import _argparse
from . import lazy_ops as _ops
from .._argparse import invalid_combination
from .._construct import check_scalar_write
from .. import _dtype


def check_no_overlap(target, *operands) -> None:
    from .._out import check_no_overlap as check  # (import cycle: _out needs tensor)

    check(target, *operands)


class ShapeMethods:
    __slots__ = ()

    def split(self, split_size, dim=0):
        if dim.__class__ is not int:  # (torch's Tensor.split passes it by position)
            _argparse.check("split", (self, split_size, dim))
            dim = _argparse.int_arg("split", "dim", dim, 3)
        return _ops.split(self, split_size, dim)

    def split_with_sizes(self, split_sizes, dim=0):
        from .._functions_copies import split_with_sizes

        return split_with_sizes(self, split_sizes, dim)

    def as_strided_scatter(self, src, size, stride, storage_offset=None):
        from .._functions_copies import as_strided_scatter

        return as_strided_scatter(self, src, size, stride, storage_offset)

    @_argparse.declared("Tensor.chunk")
    def chunk(self, chunks, dim=0):
        if chunks.__class__ is not int:
            chunks = _argparse.int_arg("chunk", "chunks", chunks, 1)
        if dim.__class__ is not int:
            dim = _argparse.int_arg("chunk", "dim", dim, 2)
        return _ops.chunk(self, chunks, dim)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return _ops.diagonal(self, offset, dim1, dim2)

    @_argparse.parsed("Tensor.movedim", method=True)
    def movedim(self, source, destination):
        if not (source.__class__ is int and destination.__class__ is int
                or _argparse.plain_ints(source) and _argparse.plain_ints(destination)):
            source, destination = _argparse.movedim_dims("movedim", source, destination)
        return _ops.movedim(self, source, destination)

    @_argparse.parsed("Tensor.moveaxis", method=True)
    def moveaxis(self, source, destination):
        if not (source.__class__ is int and destination.__class__ is int
                or _argparse.plain_ints(source) and _argparse.plain_ints(destination)):
            source, destination = _argparse.movedim_dims("moveaxis", source, destination)
        return _ops.movedim(self, source, destination)

    def unflatten(self, dim, sizes):
        if dim.__class__ is not int:  # (torch's Python unflatten passes it by position)
            dim = _argparse.int_arg("unflatten", "dim", dim, 1)
        return _ops.unflatten(self, dim, sizes)

    def as_strided(self, size, stride, storage_offset=None):
        return _ops.as_strided_public(self, size, stride, storage_offset)

    def repeat(self, *args, repeats=_argparse.NOT_GIVEN):
        if repeats is _argparse.NOT_GIVEN and args and all(a.__class__ is int for a in args):
            repeats = args
        elif repeats is _argparse.NOT_GIVEN and len(args) == 1 and \
                _argparse.plain_ints(args[0]):
            repeats = tuple(args[0])
        else:  # (torch's keyword form too: repeat(repeats=(2, 1)))
            repeats = _argparse.varargs_int_list("repeat", "repeats", args, repeats)
        return _ops.repeat(self, repeats)

    def tile(self, *args, dims=_argparse.NOT_GIVEN):
        if dims is _argparse.NOT_GIVEN and args and all(a.__class__ is int for a in args):
            dims = args
        elif dims is _argparse.NOT_GIVEN and len(args) == 1 and _argparse.plain_ints(args[0]):
            dims = tuple(args[0])
        else:
            dims = _argparse.varargs_int_list("tile", "dims", args, dims)
        return _ops.tile(self, dims)

    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        if repeats is None:
            raise invalid_combination("repeat_interleave", (), {})
        return _ops.repeat_interleave(self, repeats, dim, output_size)

    def flip(self, *args, dims=_argparse.NOT_GIVEN):
        if dims is _argparse.NOT_GIVEN and args and all(a.__class__ is int for a in args):
            dims = args
        elif dims is _argparse.NOT_GIVEN and len(args) == 1 and _argparse.plain_ints(args[0]):
            dims = args[0]
        else:
            dims = _argparse.varargs_int_list("flip", "dims", args, dims)
        return _ops.flip(self, dims)

    def fliplr(self):
        return _ops.shape_ext.fliplr(self)

    def flipud(self):
        return _ops.shape_ext.flipud(self)

    def roll(self, shifts, dims=None):
        if shifts.__class__ is not int:
            shifts = _argparse.int_list("roll", "shifts", shifts, 1)
        if dims is not None and dims.__class__ is not int:
            dims = _argparse.int_list("roll", "dims", dims, 2)
        return _ops.roll(self, shifts, dims)

    @_argparse.parsed("Tensor.rot90", method=True)
    def rot90(self, k=1, dims=(0, 1)):
        if k.__class__ is not int:
            k = _argparse.int_arg("rot90", "k", k, 1)
        if not _argparse.plain_ints(dims):
            dims = _argparse.int_list("rot90", "dims", dims, sized=False)
        return _ops.rot90(self, k, dims)

    def broadcast_to(self, *args, size=None):
        if size is not None:
            args = _argparse.varargs_keyword(args, size, "broadcast_to", "size")
        if not args:
            raise TypeError('broadcast_to() missing 1 required positional arguments: "size"')
        # (torch's IntArrayRef: one sequence, or ints as varargs)
        size = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        return _ops.broadcast_to(self, size)

    @_argparse.declared("Tensor.index_select")
    def index_select(self, dim, index):
        if dim.__class__ is not int:  # (a tensor of several elements failed in bool())
            dim = _argparse.int_arg("index_select", "dim", dim, 1)
        return _ops.index_select(self, dim, index)

    @_argparse.declared("Tensor.gather")
    def gather(self, dim, index, *, sparse_grad=False):
        # sparse_grad=True: torch's gradient is a sparse COO tensor; leafgrad's stays dense
        if sparse_grad.__class__ is not bool:
            raise TypeError(f"gather(): argument 'sparse_grad' must be bool, not "
                            f"{type(sparse_grad).__name__}")
        from ..tensor import Tensor

        if not isinstance(index, Tensor):
            raise TypeError(f"gather(): argument 'index' (position 2) must be Tensor, not "
                            f"{type(index).__name__}")
        if dim.__class__ is not int:  # (a bool was read as a dim)
            dim = _argparse.int_arg("gather", "dim", dim, 1)
        return _ops.gather(self, dim, index)

    def take_along_dim(self, indices, dim=None):
        from .._functions_shape import take_along_dim

        return take_along_dim(self, indices, dim)

    def scatter(self, dim, index, src=None, value=None, *, reduce=None):
        return _ops.scatter(self, dim, index, src, value, reduce)

    def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
        from ..tensor import Tensor

        array = _ops.gather_index(index, "scatter_")
        dim = _ops.wrap_dim(dim, self.ndim)
        src = value if src is None else src
        _ops.check_scatter_src_dtype(self, src)
        _ops.check_scatter_shapes(self, dim, array, src)
        check_no_overlap(self, index, src)
        _ops.check_scatter_gather_bounds(array, self.shape[dim] if self.ndim else 1, dim)
        if reduce is not None:
            if reduce not in ("add", "multiply"):
                raise RuntimeError("reduce argument must be either add or multiply.")
            if isinstance(src, Tensor):
                import warnings

                warnings.warn(
                    "The reduce argument of torch.scatter with Tensor src is deprecated and "
                    "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                    "instead for more reduction options.", UserWarning, stacklevel=2)
            return _ops.inplace(_ops.ScatterReduceLegacy, self, src, dim=dim, index=array,
                                reduce=reduce)
        if isinstance(src, Tensor):
            return _ops.keep_index(_ops.inplace(_ops.Scatter, self, src, dim=dim, index=array), index)
        return _ops.keep_index(_ops.inplace(_ops.ScatterValue, self, dim=dim, index=array, value=src),
                          index)

    def scatter_add(self, dim, index, src):
        return _ops.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        dim = _ops.wrap_dim(dim, self.ndim)
        array = _ops.gather_index(index, "scatter_add_")
        _ops.check_scatter_src_dtype(self, src)
        _ops.check_scatter_shapes(self, dim, array, src)
        check_no_overlap(self, index, src)
        _ops.check_scatter_gather_bounds(array, self.shape[dim] if self.ndim else 1, dim)
        return _ops.keep_index(_ops.inplace(_ops.ScatterAdd, self, src, dim=dim, index=array), index)

    def index_add(self, dim, index, source, *, alpha=1):
        if alpha.__class__ is not int and alpha.__class__ is not float:
            alpha = _argparse.real_scalar(_argparse.number("index_add", "alpha", alpha), self.dtype)
        return _ops.index_add(self, dim, index, source, alpha)

    def index_add_(self, dim, index, source, *, alpha=1):
        if alpha.__class__ is not int and alpha.__class__ is not float:
            alpha = _argparse.number("index_add_", "alpha", alpha)
        array = _ops.gather_index(index, "index_add_").reshape(-1)
        dim = _ops.wrap_dim(dim, self.ndim)
        _ops.check_index_add_source(self, dim, array, source)
        check_no_overlap(self, index, source)
        alpha = _argparse.real_scalar(alpha, self.dtype)
        array = _ops.flat_index(index, array, self.shape[dim] if self.ndim else 1,
                                dim if self.ndim > 1 else None)
        return _ops.keep_index(
            _ops.inplace(_ops.IndexAdd, self, source, dim=dim, index=array, alpha=alpha), index)

    def index_fill(self, dim, index, value):
        op, tensors, params = _ops.index_fill_args(self, dim, index, value)
        return _ops.keep_index(op.apply(self, *tensors, **params), index)

    def index_fill_(self, dim, index, value):
        op, tensors, params = _ops.index_fill_args(self, dim, index, value, inplace=True)
        return _ops.keep_index(_ops.inplace(op, self, *tensors, **params), index)

    def index_copy(self, dim, index, source):
        op, tensors, params = _ops.index_copy_args(self, dim, index, source)
        return _ops.keep_index(op.apply(self, *tensors, **params), index)

    def index_copy_(self, dim, index, source):
        op, tensors, params = _ops.index_copy_args(self, dim, index, source, inplace=True)
        return _ops.keep_index(_ops.inplace(op, self, *tensors, **params), index)

    def put(self, index, source, accumulate=False):
        op, tensors, params = _ops.put_args(self, index, source, accumulate, "put")
        return _ops.keep_index(op.apply(self, *tensors, **params), index)

    def put_(self, index, source, accumulate=False):
        op, tensors, params = _ops.put_args(self, index, source, accumulate)
        return _ops.keep_index(_ops.inplace(op, self, *tensors, **params), index)

    def index_put_(self, indices, values, accumulate=False):
        masked = _ops.check_index_put_(self, tuple(indices), values, accumulate)
        arrays = tuple(_ops.as_index_array(i) for i in indices)
        _ops.check_index_put(self, arrays, values, masked)
        result = _ops.inplace(_ops.IndexPut, self, values, index=arrays, accumulate=accumulate)
        return _ops.keep_index(result, tuple(indices), "indices")

    def index_put(self, indices, values, accumulate=False):
        masked = _ops.check_index_put_(self, tuple(indices), values, accumulate, inplace=False)
        arrays = tuple(_ops.as_index_array(i) for i in indices)
        _ops.check_index_put(self, arrays, values, masked)
        result = _ops.IndexPut.apply(self, values, index=arrays, accumulate=accumulate)
        return _ops.keep_index(result, tuple(indices), "indices")

    def masked_fill(self, mask, value):
        _fill_value("masked_fill", (mask, value))
        return _ops.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        from ..tensor import Tensor

        _fill_value("masked_fill_", (mask, value))
        array = _ops.mask_array(mask)
        if isinstance(mask, Tensor):
            _ops.check_partial_overlap(self, mask)
        if array.shape != self.shape:
            _ops.check_broadcast(self.shape, array.shape)  # in place: self is torch's "a"
            from numpy import broadcast_shapes

            shape = tuple(broadcast_shapes(self.shape, array.shape))
            if shape != tuple(self.shape):  # a mask may not grow self
                raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                                   f"broadcast shape {list(shape)}")
        if isinstance(value, Tensor):
            from ..ops.gather import check_complex_fill

            check_complex_fill(self, value)
            result = _ops.inplace(_ops.MaskedFillTensor, self, value, mask=array)
        else:
            if self._data.dtype.kind != "u" or self._data.dtype.itemsize == 1:  # (Note:
                value = check_scalar_write(value, self.dtype)  # checked scalar writes)
            elif value.__class__ is int:
                check_scalar_write(value, _dtype.float64)  # (the conversion to a C number)
            result = _ops.inplace(_ops.MaskedFill, self, mask=array, value=value)
        return _ops.keep_index(result, mask, "mask")

    def masked_select(self, mask):
        return _ops.masked_select(self, mask)

    def take(self, index):
        return _ops.take(self, index)

    def nonzero(self, *, as_tuple=False):
        if as_tuple.__class__ is not bool:
            _argparse.bool_arg("nonzero", "as_tuple", as_tuple)
        return _ops.nonzero(self, as_tuple)

    def nonzero_static(self, *, size, fill_value=-1):
        """``nonzero()``'s rows cut or padded (with ``fill_value``) to exactly ``size``."""
        import numpy as np

        from ..tensor import _wrap

        for name, value in (("size", size), ("fill_value", fill_value)):
            if not _argparse._is_int(value):
                raise TypeError(f"nonzero_static(): argument '{name}' must be int, not "
                                f"{_argparse.typename(value)}")
        size, fill_value = int(size), int(fill_value)
        if size < 0:
            raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
        found = _ops.nonzero(self)._data
        if self.ndim == 0:  # torch: (size, 0) whatever the value
            found = np.zeros((0, 0), np.int64)
        result = np.full((size, found.shape[1]), fill_value, dtype=np.int64)
        count = min(size, found.shape[0])
        result[:count] = found[:count]
        return _wrap(result)

    def argwhere(self):
        return _ops.argwhere(self)


def _fill_value(function: str, args: tuple) -> None:
    """masked_fill's value: a Tensor or a Number (torch's two overloads); anything else
    (None, strings, lists, arrays) is its invalid-combination error."""
    import numpy as np

    from ..tensor import Tensor

    value = args[-1]
    if isinstance(value, (Tensor, bool, int, float, complex)):
        return
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return
    raise _argparse.invalid_combination(function, args, {})
