"""Tensor methods torch has that leafgrad lacked: the in-place aliases (``absolute_``,
``greater_``, ``multiply_``, ``subtract_``, ...), the in-place matrix products (``addmm_``,
``addmv_``, ``baddbmm_``), ``fill_diagonal_``, ``cholesky``, ``sum_to_size``, the CPU-only
``apply_``/``map_``/``map2_`` and a few queries (``output_nr``, ``is_sparse``, ``dim_order``...)
whose answer on a dense CPU tensor is fixed."""

from __future__ import annotations

from .. import _argparse
from . import lazy_ops as _ops
from .. import _memory_format
from .._argparse import varargs_keyword


def _tensor_type():
    from ..tensor import Tensor

    return Tensor


class InplaceFormMethods:
    __slots__ = ()

    # -- aliases: torch records them under the first name's node ---------------------------
    def absolute_(self):
        return self.abs_()

    def greater_(self, other):
        return self._compare_(other, "greater", _ops.Gt)

    def greater_equal_(self, other):
        return self._compare_(other, "greater_equal", _ops.Ge)

    def less_(self, other):
        return self._compare_(other, "less", _ops.Lt)

    def less_equal_(self, other):
        return self._compare_(other, "less_equal", _ops.Le)

    def not_equal_(self, other):
        return self._compare_(other, "not_equal", _ops.Ne)

    def multiply_(self, other, *extra, **unknown):
        # (Note: aliases' errors, _functions.py)
        if extra or unknown or type(other) not in _argparse.NUMBERS and not isinstance(
                other, _tensor_type()):
            _argparse.check_alias("Tensor.multiply_", (other, *extra), unknown)
        return self.mul_(other)

    def subtract_(self, other, *extra, alpha=_argparse.NO_MODE, **unknown):
        if extra or unknown or type(other) not in _argparse.NUMBERS and not isinstance(
                other, _tensor_type()) or alpha is not _argparse.NO_MODE and type(
                alpha) not in _argparse.NUMBERS:
            _argparse.check_alias("Tensor.subtract_", (other, *extra), {"alpha": alpha, **unknown})
        return self.sub_(other, alpha=1 if alpha is _argparse.NO_MODE else alpha)

    # -- in-place matrix products --------------------------------------------------------------
    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        from ..ops.linalg import Addmm

        if beta.__class__ is not int and beta.__class__ is not float or \
                alpha.__class__ is not int and alpha.__class__ is not float:
            beta, alpha = _argparse.beta_alpha("addmm_", (mat1, mat2), beta, alpha)

        _matrix_operands("addmm_", ("mat1", mat1), ("mat2", mat2))
        for name, other in (("self", self), ("mat1", mat1)):
            if other.dtype != mat2.dtype:
                raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                                   f"{other.dtype._legacy} and {mat2.dtype._legacy}")
        if mat1.ndim == 2 and mat2.ndim == 2 and mat1.shape[1] == mat2.shape[0]:
            _same_size(self, (mat1.shape[0], mat2.shape[1]))
        return _ops.inplace(Addmm, self, mat1, mat2, beta=beta, alpha=alpha)

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        if beta.__class__ is not int and beta.__class__ is not float:
            beta = _argparse.number("addmv_", "beta", beta)
        if alpha.__class__ is not int and alpha.__class__ is not float:
            alpha = _argparse.number("addmv_", "alpha", alpha)
        from ..ops.linalg_ext import Addmv

        _matrix_operands("addmv_", ("mat", mat), ("vec", vec))
        if mat.ndim == 2 and vec.ndim == 1 and mat.shape[1] == vec.shape[0]:
            _same_size(self, (mat.shape[0],))
        return _ops.inplace(Addmv, self, mat, vec, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        from ..ops.linalg_ext import Baddbmm

        if beta.__class__ is not int and beta.__class__ is not float or \
                alpha.__class__ is not int and alpha.__class__ is not float:
            beta, alpha = _argparse.beta_alpha("baddbmm_", (batch1, batch2), beta, alpha)

        _matrix_operands("baddbmm_", ("batch1", batch1), ("batch2", batch2))
        if (batch1.ndim == 3 and batch2.ndim == 3 and batch1.shape[0] == batch2.shape[0]
                and batch1.shape[2] == batch2.shape[1]):
            _same_size(self, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
        return _ops.inplace(Baddbmm, self, batch1, batch2, beta=beta, alpha=alpha)

    def cholesky(self, upper=False):
        from .._functions_native import cholesky

        return cholesky(self, upper)

    # -- fill_diagonal_ --------------------------------------------------------------------------
    def fill_diagonal_(self, fill_value, wrap=False):
        """Write ``fill_value`` on the main diagonal (all dims equal, or a 2-d matrix; ``wrap``:
        a tall matrix's diagonal starts again every ``width + 1`` rows). torch writes through a
        strided view of the diagonal, so a recorded tensor's node is CopySlices."""
        from .._functions_more import check_fill_value

        if not _argparse._is_number(fill_value):
            raise TypeError("fill_diagonal_(): argument 'fill_value' (position 1) must be "
                            f"Number, not {_argparse.typename(fill_value)}")
        if not isinstance(wrap, bool):
            raise TypeError("fill_diagonal_(): argument 'wrap' (position 2) must be bool, not "
                            f"{_argparse.typename(wrap)}")
        shape = tuple(self.shape)
        if len(shape) < 2:
            raise RuntimeError("dimensions must larger than 1")
        if len(shape) > 2 and len(set(shape)) != 1:
            raise RuntimeError("all dimensions of input must be of equal length")
        fill_value = _argparse.scalar(fill_value)
        check_fill_value(self, fill_value)
        strides = self.stride()
        step = sum(strides)
        size = min(shape)
        _ops.as_strided(self, (size,), (step,), 0).fill_(fill_value)
        height, width = shape[0], shape[1]
        if wrap and len(shape) == 2 and height > width + 1:
            numel = height * width
            # rows width + 1, 2 (width + 1), ...: torch's count of the wrapped elements
            wrapped = (numel + width) // (width + 1) - size
            _ops.as_strided(self, (wrapped,), (step,), (width + 1) * strides[0]).fill_(fill_value)
        return self


class TensorQueryMethods:
    __slots__ = ()

    def sum_to_size(self, *args, size=None):
        """The sum of this tensor down to ``size`` (which it must be expandable to): leading
        dims and dims of size 1 in ``size`` are summed; the tensor itself when sizes agree."""
        from ..ops.shape import parse_shape

        if size is not None:  # (torch's keyword form: sum_to_size(size=(1, 3)))

            args = varargs_keyword(args, size, "sum_to_size", "size")
        shape = parse_shape(args, "sum_to_size")
        mine = tuple(self.shape)
        lead = len(mine) - len(shape)
        if lead < 0 or any(s != 1 and s != m for s, m in zip(shape, mine[lead:])):
            raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size "
                               f"{{{list(mine)}}}.")
        if not shape:  # ATen's sum_to: the plain sum (SumBackward0, integers to int64), even
            return self.sum()  # of a 0-d tensor
        if shape == mine:
            return self
        dims = list(range(lead)) + [lead + i for i, s in enumerate(shape)
                                    if s == 1 and mine[lead + i] != 1]
        result = self.sum(dims, keepdim=True) if dims else self
        return result.view(shape) if lead else result

    def apply_(self, callable):  # noqa: A002 - torch's name
        """Replace each element by ``callable(element)`` (a Python number), in place."""
        return _map_values(self, "apply_", callable)

    def map_(self, tensor, callable):  # noqa: A002
        """``self[i] = callable(self[i], tensor[i])`` with ``tensor`` broadcast to self."""
        return _map_values(self, "map_", callable, tensor)

    def map2_(self, x, y, callable):  # noqa: A002
        """``self[i] = callable(self[i], x[i], y[i])`` with x and y broadcast to self."""
        return _map_values(self, "map2_", callable, x, y)

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is (0 for leaves)."""
        return self._output_nr

    # a dense CPU tensor: none of these layouts, devices or sharing states apply
    is_sparse = property(lambda self: False)
    is_sparse_csr = property(lambda self: False)
    is_quantized = property(lambda self: False)
    is_nested = property(lambda self: False)
    is_mkldnn = property(lambda self: False)

    def is_pinned(self, device=None) -> bool:
        return False

    def dim_order(self, *, ambiguity_check=False):
        """The dims from outermost to innermost in memory (largest stride first), ordered as
        torch orders an elementwise result's dims; ``ambiguity_check`` (True, or a list of
        memory formats one of which must fit) refuses a tensor with several valid orders."""
        formats = ambiguity_check if isinstance(ambiguity_check, list) else []
        if not isinstance(ambiguity_check, (bool, list)) or not all(
                isinstance(f, _memory_format.memory_format) for f in formats):
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                            "formats.")
        check = ambiguity_check if isinstance(ambiguity_check, bool) else True
        shape, strides = tuple(self.shape), self.stride()
        several = any(a == b for a, b in zip(strides, strides[1:])) or 1 in shape
        fitting = sum(1 for f in formats if self.is_contiguous(memory_format=f))
        if check and several and fitting != 1:
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to "
                               "exact one of the given memory formats.")
        order, ambiguous = _dim_order(self, shape, strides, bool(ambiguity_check))
        if ambiguous:
            raise RuntimeError("The tensor does not have unique dim order.")
        return order


def _dim_order(tensor, shape, strides, check) -> tuple:
    """torch's logical-to-physical permutation of one tensor (the rule elementwise results
    are laid out by): row-major or channels-last tensors directly, otherwise a stable
    insertion sort by stride from the innermost dim, in which stride-0 dims never move and
    equal strides keep the smaller size inside; with ``check``, whether an order was left open."""
    ndim = len(shape)
    if ndim <= 1:
        return tuple(range(ndim)), False
    contiguous = tensor.is_contiguous()
    channels_last = tensor.is_contiguous(memory_format=_memory_format.channels_last)
    if contiguous != channels_last:
        order = range(ndim) if contiguous else (0, *range(2, ndim), 1)
        return tuple(order), False

    def at_least(a, b):  # torch's ge for sizes and strides (both >= 0)
        return b == 0 or (a != 0 and (a >= b or a % b == 0))

    def compare(a, b):
        stride_a, stride_b = strides[a], strides[b]
        if stride_a == 0 or stride_b == 0:
            return 0
        if stride_a == stride_b:
            return 0 if at_least(shape[b], shape[a]) else 1
        if at_least(stride_b, stride_a):
            return -1
        return 1 if at_least(stride_a, stride_b) else 0

    from ..ops._layout import sort_dims

    perm = list(range(ndim - 1, -1, -1))
    sort_dims(perm, compare)
    ambiguous = check and any(compare(perm[i], perm[i + 1]) != -1 for i in range(ndim - 1))
    return tuple(reversed(perm)), ambiguous


def _map_values(tensor, name: str, callable, *others):  # noqa: A002
    """apply_/map_/map2_: torch runs the Python callable per element on CPU tensors that do
    not require grad, casting each result to the tensor's dtype."""
    import numpy as np

    if tensor._may_require_grad():
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    from ..tensor import check_inplace_allowed

    check_inplace_allowed(tensor)
    data = tensor._data
    operands = [np.broadcast_to(o._data, data.shape) for o in others]
    flat = [np.asarray(o).reshape(-1) for o in operands]
    values = [callable(*(v.item() for v in row)) for row in
              zip(np.asarray(data).reshape(-1), *flat)]
    result = np.array(values, dtype=object).reshape(data.shape) if values else data
    # torch writes through the data pointer: the version counter does not move
    np.copyto(data, result.astype(data.dtype) if values else data, casting="unsafe")
    return tensor


def _matrix_operands(name: str, *pairs) -> None:
    from .._functions_math import _require_tensor

    for position, (argument, value) in enumerate(pairs, start=1):
        _require_tensor(value, name, argument, position)


def _same_size(tensor, result_shape: tuple) -> None:
    if tuple(tensor.shape) != result_shape:
        raise RuntimeError(f"Bad in-place call: input tensor size {list(tensor.shape)} and output "
                           f"tensor size {list(result_shape)} should match")
