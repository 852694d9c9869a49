"""Statistics written with other ops, as torch writes them (CompositeImplicitAutograd): their
gradients, forward-mode tangents and vmap come from the ops they are made of, and their grad_fn
names are torch's (quantile ends in ``SqueezeBackward4`` after ``LerpBackward1``,
``GatherBackward0`` and ``SortBackward0``).

quantile/nanquantile follow torch's sort-based algorithm: sort along the reduced dim (moved
last), turn each q into a fractional rank, and read (or linearly interpolate) the sorted values
there; the gradient therefore flows to the one or two elements each quantile was read from, and
to q itself through the interpolation weight.
"""

from __future__ import annotations

from .. import _argparse, _dtype, _warn
from ..tensor import Tensor, _wrap_dim

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_output_shape(tensor, q, dim, keepdim: bool, wrapped: int) -> list:
    """torch's quantile_output_shape: the reduced shape, with q's length first for a 1-d q."""
    shape = []
    if dim is not None and tensor.ndim > 0:
        shape = list(tensor.shape)
        if keepdim:
            shape[wrapped] = 1
        else:
            del shape[wrapped]
    elif keepdim:
        shape = [1] * tensor.ndim
    if q.ndim > 0:
        shape.insert(0, q.numel())
    return shape


def _quantile(name: str, args: tuple, kwargs: dict, ignore_nan: bool, method: bool = False):
    _argparse.check(f"Tensor.{name}" if method else name, args[1:] if method else args, kwargs)
    tensor, q, dim, keepdim = (*args, *[None] * 4)[:4]
    tensor = kwargs.get("input", tensor)
    q = kwargs.get("q", q)
    dim = kwargs.get("dim", dim)
    keepdim = bool(kwargs.get("keepdim", keepdim or False))
    interpolation = kwargs.get("interpolation", "linear")
    if not isinstance(q, Tensor):
        q = _argparse.number(name, "q", q, kind="float")
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if tensor.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if tensor.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not isinstance(q, Tensor):
        from .._creation import tensor as make_tensor

        q = make_tensor(float(q), dtype=tensor.dtype)
    elif q.dtype != tensor.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    wrapped = _wrap_dim(int(dim), tensor.ndim) if dim is not None else None
    out_shape = _quantile_output_shape(tensor, q, dim, keepdim, wrapped)
    if not bool(((q._data >= 0) & (q._data <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return _quantile_compute(tensor, q, wrapped, out_shape, interpolation, ignore_nan)


def _quantile_compute(tensor, q, wrapped, out_shape: list, interpolation: str,
                      ignore_nan: bool):
    if wrapped is None:
        ordered = tensor.flatten().sort().values
    elif wrapped == tensor.ndim - 1:
        ordered = tensor.sort().values
    else:
        ordered = tensor.unsqueeze(-1).transpose(wrapped, -1).sort().values
    if q.ndim == 0:
        out_shape = [1, *out_shape]
    in_shape = [*out_shape[1:], ordered.shape[-1]] if len(out_shape) > 1 else [ordered.shape[-1]]
    ordered = ordered.view(in_shape)
    if ordered.shape[-1] > 2 ** 24:
        raise RuntimeError("quantile() input tensor is too large")
    if ignore_nan:
        # ranks among the non-NaN values; an all-NaN slice reads its first value (NaN)
        ranks = q * (ordered.isnan().logical_not().sum(-1, keepdim=True) - 1)
        ranks = _where(ranks < 0, 0, ranks)
    else:
        # a slice holding a NaN reads its last value (NaN, sorted last)
        last = ordered.shape[-1] - 1
        scaled, has_nan = _broadcast(q * last, ordered.isnan().any(-1, keepdim=True))
        ranks = _where(has_nan, last, scaled)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()  # half to even, as torch's round
    below = ranks.long()
    values = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = ranks - below if interpolation == "linear" else ranks.new_full(ranks.shape, 0.5)
        above = ranks.detach().ceil().long()
        values = values.lerp(ordered.gather(-1, above), weights)
    if q.ndim == 0:
        return values.squeeze_(-1)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def _where(condition, value, tensor):
    # torch's masked_fill; where() also batches a condition that vmap batched and the
    # tensor not (q's ranks are the same for every example)
    from .. import where

    return where(condition, value, tensor)


def _broadcast(a, b):
    from .. import broadcast_tensors

    return broadcast_tensors(a, b)


def quantile(*args, **kwargs):
    return _quantile("quantile", args, kwargs, ignore_nan=False)


def nanquantile(*args, **kwargs):
    return _quantile("nanquantile", args, kwargs, ignore_nan=True)


def tensor_quantile(*args, **kwargs):
    return _quantile("quantile", args, kwargs, ignore_nan=False, method=True)


def tensor_nanquantile(*args, **kwargs):
    return _quantile("nanquantile", args, kwargs, ignore_nan=True, method=True)


# -- cov / corrcoef -------------------------------------------------------------------------------


def _check_weights(kind: str, weights, observations: int) -> None:
    if weights.ndim > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got "
                           f"{kind} with {weights.ndim} dimensions")
    integral = kind == "fweights"
    kind_ok = weights.dtype.is_floating_point if not integral else (
        not weights.dtype.is_floating_point and not weights.dtype.is_complex
        and weights.dtype != _dtype.bool)
    if not kind_ok:
        wanted = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {kind} to have {wanted} dtype but got {kind} with "
                           f"{weights.dtype._legacy} dtype")
    if weights.numel() != observations:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are "
                           f"observations in the input but got {weights.numel()} != "
                           f"{observations}")
    if observations and weights.dtype in _dtype.WIDE_UNSIGNED:  # torch checks min() >= 0
        raise NotImplementedError(f"\"min_all\" not implemented for '{weights.dtype._legacy}'")
    if observations and bool((weights._data < 0).any()):
        raise RuntimeError(f"cov(): {kind} cannot be negative")


def cov(*args, _method=False, **kwargs):
    """torch.cov: rows are variables, columns observations; frequency and importance weights
    as numpy.cov (the normalisation is sum(w) - correction * sum(w * aweights) / sum(w))."""
    import warnings

    from .._creation import tensor as make_tensor

    _argparse.check("Tensor.cov" if _method else "cov", args[1:] if _method else args, kwargs)
    tensor = kwargs.get("input", args[0] if args else None)
    correction = int(_argparse.scalar(kwargs.get("correction", 1)))
    fweights, aweights = kwargs.get("fweights"), kwargs.get("aweights")

    if tensor.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {tensor.ndim} dimensions")
    if tensor.dtype == _dtype.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    rows = tensor.view(1, -1) if tensor.ndim < 2 else tensor
    observations = rows.shape[1]
    weights = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations)
        weights = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations)
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        total = make_tensor(observations, dtype=_dtype.int64)
    else:
        total = weights.sum()
        if not bool(total._data != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    average = (rows if weights is None else rows * weights).sum(1) / total
    if weights is not None and correction != 0 and aweights is not None:
        norm = total - correction * (weights * aweights).sum() / total
    else:
        norm = total - correction
    if bool(norm._data <= 0):
        _warn.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                   "than the number of observations.")
        norm = norm.zero_()  # in place, as torch (a +0 divisor: inf keeps its sign)
    centered = rows - average.unsqueeze(1)
    product = centered.mm((centered if weights is None else centered * weights).t().conj())
    return product.true_divide(norm).squeeze()


def corrcoef(tensor):
    """Pearson correlation coefficients of the rows (torch.corrcoef: cov normalised by the
    standard deviations, clipped to [-1, 1])."""
    if tensor.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {tensor.ndim} dimensions")
    c = cov(tensor)
    if c.ndim == 0:
        return c / c  # nan for a covariance of nan, inf or 0; 1 otherwise
    diagonal = c.diagonal()
    stddev = (diagonal.real if diagonal.is_complex() else diagonal).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.is_complex():  # the real and imaginary parts clipped on their own, as torch
        from .. import complex as make_complex

        return make_complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


# -- gradient -------------------------------------------------------------------------------------


def _gradient_dims(tensor, dim) -> tuple:
    if dim is None:
        return tuple(range(tensor.ndim)), False
    if isinstance(dim, (list, tuple)):
        return tuple(int(d) for d in dim), True
    return (int(dim),), True


def _gradient_checks(tensor, spacing_size, dims: tuple, dim_given: bool, edge_order: int):
    """torch's pre_check_gradient, in its order."""
    if tensor.dtype == _dtype.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and not dim_given:
        if spacing_size != tensor.ndim:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                f"length equal to 'self.dim() = {tensor.ndim}', since dim argument was not "
                f"given, but got a list of length {spacing_size}")
    if spacing_size is not None and dim_given and spacing_size != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            "dim arguments to have the same length, but got a spacing argument of length "
            f"{spacing_size} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = [_wrap_dim(d, tensor.ndim) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        repeated = next(d for i, d in enumerate(wrapped) if d in wrapped[:i])
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    for d in wrapped:
        if tensor.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    return wrapped


def _uniform_gradient(tensor, direction: int, step, edge_order: int):
    """Central differences inside, one-sided (first or second order) at both ends, for a
    uniform spacing ``step`` (torch's gradient_helper_float)."""
    size = tensor.shape[direction]
    center = (tensor.narrow(direction, 2, size - 2) - tensor.narrow(direction, 0, size - 2))
    center = center / step
    first, second = tensor.narrow(direction, 0, 1), tensor.narrow(direction, 1, 1)
    last, before = tensor.narrow(direction, size - 1, 1), tensor.narrow(direction, size - 2, 1)
    if edge_order == 1:
        prepend = (second - first) / step
        append = (last - before) / step
    else:  # the dim has at least 3 entries (checked)
        third = tensor.narrow(direction, 2, 1)
        third_last = tensor.narrow(direction, size - 3, 1)
        prepend = (first * -1.5 + second * 2 - third * 0.5) / step
        append = (third_last * 0.5 - before * 2 + last * 1.5) / step
    from .. import cat

    return cat([prepend, center / 2, append], direction)


def _coordinate_gradient(tensor, direction: int, coordinates, edge_order: int):
    """The gradient for sample coordinates along ``direction`` (torch's gradient_helper): the
    second-order accurate three-point formula for uneven steps inside."""
    from .. import cat

    if coordinates.ndim != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one "
                           f"dimension, but got an element with {coordinates.ndim} dimensions!")
    shape = [1] * tensor.ndim
    shape[direction] = -1
    steps = coordinates.diff(1, 0)
    dx1, dx2 = steps[:-1], steps[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    size = tensor.shape[direction]

    def part(start, stop):
        return tensor.narrow(direction, start, stop - start)

    center = a * part(0, size - 2) + b * part(1, size - 1) + c * part(2, size)
    if edge_order == 1:
        prepend = (part(1, 2) - part(0, 1)) / steps[0]
        append = (part(size - 1, size) - part(size - 2, size - 1)) / steps[-1]
    else:
        h0, h1 = steps[0], steps[1]
        a = -(2.0 * h0 + h1) / (h0 * (h0 + h1))
        b = (h0 + h1) / (h0 * h1)
        c = (-h0) / (h1 * (h0 + h1))
        prepend = a * part(0, 1) + b * part(1, 2) + c * part(2, 3)
        h0, h1 = steps[-1], steps[-2]
        a = h0 / (h1 * (h0 + h1))
        b = -(h0 + h1) / (h0 * h1)
        c = (2 * h0 + h1) / (h0 * (h0 + h1))
        append = a * part(size - 3, size - 2) + b * part(size - 2, size - 1) + c * part(size - 1,
                                                                                         size)
    return cat([prepend, center, append], direction)


def gradient(*args, **kwargs):
    """torch.gradient: the derivative estimate along each of ``dim`` (every dim by default), by
    central differences; ``spacing`` a number, one number per dim, or sample coordinates (one
    1-d tensor per dim). Returns a tuple of tensors."""
    if len(args) != 1 or set(kwargs) - {"spacing", "dim", "edge_order"}:
        raise _argparse.invalid_combination("gradient", args, kwargs)
    tensor = args[0]
    spacing, dim = kwargs.get("spacing", 1), kwargs.get("dim")
    # (an explicit spacing=None is the optional Scalar of the overload whose dim is one int or
    # None: a spacing of 1)
    if spacing is None and isinstance(dim, (list, tuple)) or kwargs.get("edge_order", 1) is None:
        raise _argparse.invalid_combination("gradient", args, kwargs)
    spacing = 1 if spacing is None else spacing
    edge_order = kwargs.get("edge_order", 1)
    if isinstance(spacing, Tensor):
        if spacing.ndim != 0:  # a lone tensor is no overload's spacing (only a 0-d Scalar)
            raise _argparse.invalid_combination("gradient", args, kwargs)
        spacing = spacing.item()
    dims, dim_given = _gradient_dims(tensor, dim)
    if isinstance(spacing, (list, tuple)):
        spacing_size = len(spacing)
        steps = list(spacing)
        if steps and isinstance(steps[0], Tensor):
            for index, step in enumerate(steps):
                if not isinstance(step, Tensor):
                    raise TypeError(f"expected Tensor as element {index} in argument 1, but "
                                    f"got {_argparse.typename(step)}")
    else:
        spacing_size = None
        steps = [spacing] * len(dims)
    wrapped = _gradient_checks(tensor, spacing_size, dims, dim_given, edge_order)
    results = []
    for direction, step in zip(wrapped, steps):
        if isinstance(step, Tensor):
            results.append(_coordinate_gradient(tensor, direction, step, edge_order))
        else:
            results.append(_uniform_gradient(tensor, direction, _argparse.scalar(step),
                                             edge_order))
    return tuple(results)


__all__ = ["quantile", "nanquantile", "tensor_quantile", "tensor_nanquantile", "cov", "corrcoef",
           "gradient"]
