"""``F.embedding_bag``: sums, means or maxima of bags of embedding rows, without building the
(indices, dim) lookup first, as one op (``EmbeddingBagBackward0``).

Bags are runs of the flat index list given by ``offsets`` (or the rows of 2-d input).
``padding_idx`` entries take no part: not summed, not counted in a mean, never a maximum, and
get no gradient; an empty bag gives zeros. The max mode keeps the first maximum of each
feature (ATen's ``>`` scan). Backwards are Tensor expressions (index_select, the embedding
backward, scatter_add), so they can be differentiated again.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..ops._forward import jvp_sum
from ..ops.norm import EmbeddingBackward
from ..ops._masks import zeros_tensor
from ..ops.registry import Op, array_kernel, keep_index, register

__all__ = ["embedding_bag"]

_MODES = {"sum": 0, "mean": 1, "max": 2}


def _max_choice(values: np.ndarray, bags: np.ndarray, num_bags: int) -> np.ndarray:
    """Per (bag, feature): the position (into ``values``' rows) of the first maximum, or -1
    for an empty bag."""
    count = values.shape[0]
    best = np.full((num_bags, values.shape[1]), -np.inf, dtype=values.dtype)
    np.maximum.at(best, bags, values)
    positions = np.where(values == best[bags], np.arange(count)[:, None], count)
    first = np.full(best.shape, count, dtype=np.int64)
    np.minimum.at(first, bags, positions)
    return np.where(first == count, -1, first)


def _kept(indices: np.ndarray, bags: np.ndarray, padding_idx) -> np.ndarray:
    """The entries that count: in a bag and not the padding index."""
    keep = bags >= 0
    return keep if padding_idx is None else keep & (indices != padding_idx)


@register
class EmbeddingBag(Op):
    """(bags, dim) from ``weight`` rows ``indices`` grouped by ``bags`` (each entry's bag),
    optionally weighted per entry (mode sum)."""

    node = "EmbeddingBagBackward0"
    index_saves = {"indices": (), "offsets": ()}  # Note: saved index tensors (registry.py)
    complex_message = "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, Float, Double; but got CPUComplexFloatType instead (while checking arguments for embedding_bag)"
    complex_error_type = "RuntimeError"
    inputs = ("weight", "per_sample_weights")
    saves = {"weight": ("per_sample_weights",), "per_sample_weights": ("weight",),
             "choice": ("weight",)}
    torch_names = ("nn.functional.embedding_bag", "nn.EmbeddingBag")

    @staticmethod
    def forward(ctx, weight, per_sample_weights, indices, bags, num_bags, mode, padding_idx,
                scale_grad_by_freq):
        keep = _kept(indices, bags, padding_idx)
        values = weight[indices[keep]]
        where = bags[keep]
        out = np.zeros((num_bags, weight.shape[1]), dtype=weight.dtype)
        if mode == "max":
            if not len(values):  # every bag empty
                if ctx is not None:
                    ctx.keep("choice", np.full(out.shape, -1))
                return out
            choice = _max_choice(values, where, num_bags)
            if ctx is not None:  # the chosen entries, as positions in the whole index list
                kept = np.flatnonzero(keep)
                ctx.keep("choice", np.where(choice >= 0, kept[np.maximum(choice, 0)], -1))
            rows = np.arange(weight.shape[1])
            picked = values[np.maximum(choice, 0), rows]
            return np.where(choice >= 0, picked, 0).astype(weight.dtype)
        if per_sample_weights is not None:
            values = values * per_sample_weights[keep][:, None]
        np.add.at(out, where, values)
        if mode == "mean":
            counts = np.bincount(where, minlength=num_bags)
            out /= np.maximum(counts, 1).astype(out.dtype)[:, None]
        return out

    def _entry_scale(self, dtype):
        """Per entry, what its row is multiplied by (1, or 1 / its bag's size for a mean;
        padding entries 0), as an array of ``dtype`` (a kernel leafgrad.compile replays)."""
        p = self._params
        return array_kernel(_entry_scale, p["indices"], p["bags"], padding_idx=p["padding_idx"],
                            mode=p["mode"], num_bags=p["num_bags"], dtype=dtype)

    def backward(self, grad):
        from ..tensor import _wrap

        p = self._params
        indices, bags = p["indices"], p["bags"]
        num_weights = self.input_shape(0)[0]
        grad_weight = grad_samples = None
        if p["mode"] == "max":
            if self.needs_grad(0):
                dtype = grad._data.dtype
                rows, valid = array_kernel(_chosen_rows, self.saved("choice"), indices,
                                           dtype=dtype)
                zeros = zeros_tensor((num_weights, grad.shape[1]), dtype)
                grad_weight = zeros.scatter_add(0, _wrap(rows), grad * _wrap(valid))
            return grad_weight, None
        picked = grad.index_select(0, _wrap(array_kernel(np.maximum, bags, 0)))  # -1: scale 0
        if self.needs_grad(0):
            rows = picked * _wrap(self._entry_scale(grad._data.dtype))[:, None]
            if self._saved.get("per_sample_weights") is not None:
                rows = rows * self.saved("per_sample_weights")[:, None]
            grad_weight = EmbeddingBackward.apply(
                rows, num_weights=num_weights, indices=indices, padding_idx=p["padding_idx"],
                scale_grad_by_freq=p["scale_grad_by_freq"])
        if self.needs_grad(1):
            weight = self.saved("weight")
            keep = _wrap(self._entry_scale(grad._data.dtype))  # 1, or 0 for padding
            grad_samples = (picked * weight.index_select(0, _wrap(indices))).sum(1) * keep
        return grad_weight, grad_samples

    def _choice(self, weight: np.ndarray) -> np.ndarray:
        """The max mode's choice, as positions into the full index list."""
        p = self._params
        indices, bags = p["indices"], p["bags"]
        keep = np.flatnonzero(_kept(indices, bags, p["padding_idx"]))
        choice = _max_choice(weight[indices[keep]], bags[keep], p["num_bags"])
        return np.where(choice >= 0, keep[np.maximum(choice, 0)], -1)

    def jvp(self, tangents, primals, result):
        from ..tensor import _wrap

        weight, samples = primals
        p = self._params
        if p["mode"] == "max":
            if tangents[0] is None:
                return None
            choice = self._choice(weight._data)
            valid = choice >= 0
            rows = _wrap(np.where(valid, p["indices"][np.maximum(choice, 0)], 0))
            return tangents[0].gather(0, rows) * _wrap(valid.astype(weight._data.dtype))
        params = {k: v for k, v in p.items()}
        return jvp_sum(tangents,
                       lambda t: EmbeddingBag.apply(t, samples, **params),
                       lambda t: EmbeddingBag.apply(weight, t, **params))


def _entry_scale(indices, bags, padding_idx, mode, num_bags, dtype):
    keep = _kept(indices, bags, padding_idx)
    scale = keep.astype(np.float64)
    if mode == "mean":
        counts = np.bincount(bags[keep], minlength=num_bags)
        scale = scale / np.maximum(counts, 1)[bags]
    return scale.astype(dtype)


def _chosen_rows(choice, indices, dtype):
    """The max mode's weight row per (bag, feature) (0 for an empty bag) and 1/0 validity."""
    valid = choice >= 0
    return np.where(valid, indices[np.maximum(choice, 0)], 0), valid.astype(dtype)


def _check_indices(name: str, tensor) -> None:
    if tensor._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            f"Expected tensor for argument #1 '{name}' to have one of the following scalar "
            f"types: Long, Int; but got torch.{tensor.dtype._legacy}Tensor instead (while "
            "checking arguments for embedding_bag)")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False, padding_idx=None):
    """Sum, mean or max of each bag of ``weight`` rows.

    >>> F.embedding_bag(torch.tensor([0, 2, 1]), torch.eye(3), torch.tensor([0, 2]),
    ...                 mode="sum")
    tensor([[1., 0., 1.],
            [0., 1., 0.]])
    """
    from ..tensor import _wrap

    if str(weight.dtype).endswith("int64") and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({_size(per_sample_weights)}) is not None, "
            f"then it must have the same shape as the input ({_size(input)})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    samples = per_sample_weights
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{_type_name(offsets)}")
        starts = None  # every row a bag (made by the bags kernel below)
        row_length = input.size(1)
        include_last_offset = False
        flat = input._data.reshape(-1)
        if samples is not None:
            samples = samples.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        flat = input._data
        starts = None
        row_length = None
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    # ATen's checks (before max_norm renormalises: a failing call changes nothing)
    _check_indices("indices", input)
    if row_length is None:
        _check_indices("offsets", offsets)
    num_weights = weight.shape[0]
    # kernels (registry.array_kernel): leafgrad.compile recomputes the bags from every call's
    # offsets, and checks every call's indices, instead of refusing these arrays
    num_bags = _bag_count(len(flat) // row_length if row_length else len(offsets._data),
                          include_last_offset)
    offset_arrays = () if row_length else (offsets._data,)
    bags = array_kernel(_bags, *offset_arrays, count=len(flat), row_length=row_length,
                        include_last_offset=include_last_offset)
    if samples is not None and samples.dtype != weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for "
            "argument #1 'per_sample_weights'; but type torch."
            f"{weight.dtype._legacy}Tensor does not equal torch.{samples.dtype._legacy}Tensor "
            "(while checking arguments for embedding_bag)")
    if padding_idx is not None:
        if not -num_weights <= padding_idx < num_weights:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -"
                               f"{num_weights} through {num_weights - 1}, but got {padding_idx}")
        padding_idx %= num_weights
    indices = array_kernel(_checked_indices, input._data, num_weights=num_weights,
                           weight_shape=tuple(weight.shape), max_norm=max_norm is not None)
    if max_norm is not None:
        from .._compile.state import state as _capture

        if _capture.active:  # the renormalisation below writes outside the op table
            _capture.tracer.broke("embedding_bag with max_norm renormalises the weight in "
                                  "place outside the op table")
        with no_grad():
            rows = np.unique(flat)
            norms = np.linalg.norm(weight._data[rows], ord=norm_type, axis=1)
            scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            weight._data[rows] *= scale[:, None].astype(weight._data.dtype)
    if sparse:
        raise NotImplementedError("leafgrad: embedding_bag with sparse gradients is not "
                                  "supported yet (nn.Embedding(sparse=True) is)")
    result = EmbeddingBag.apply(weight, samples, indices=indices, bags=bags,
                                num_bags=num_bags, mode=mode, padding_idx=padding_idx,
                                scale_grad_by_freq=bool(scale_grad_by_freq))
    # torch's node keeps the indices (a 2-d input flattened) and the offsets, each made
    # contiguous (a copy, which no later change reaches, if it was not)
    keep_index(result, input.reshape(-1).contiguous(), "indices")
    if offsets is not None and input.dim() == 1:
        keep_index(result, offsets.contiguous(), "offsets")
    return result


def _bag_count(offsets: int, include_last_offset: bool) -> int:
    if include_last_offset:
        if offsets < 1:
            raise RuntimeError("include_last_offset: number of offset should be at least 1")
        return offsets - 1
    return offsets


def _bags(*offsets, count: int, row_length, include_last_offset: bool) -> np.ndarray:
    """Each entry's bag (-1: none): from the offsets, or every ``row_length`` entries a bag
    (2-d input); one kernel with ATen's checks of the offsets."""
    if row_length is not None:
        starts = np.arange(0, count, row_length, dtype=np.int64)
    else:
        starts = offsets[0].astype(np.int64)
    return _bag_of_each(starts, count, include_last_offset)[0]


def _checked_indices(data: np.ndarray, num_weights: int, weight_shape: tuple,
                     max_norm: bool) -> np.ndarray:
    """ATen's range checks of the indices (max_norm's select() first), then their flat int64
    copy."""
    flat = data.reshape(-1)
    if max_norm:  # torch renormalises first, row by row in sorted order
        wild = np.unique(flat[(flat < -num_weights) | (flat >= num_weights)])
        if wild.size:
            raise IndexError(f"select(): index {wild[0]} out of range for tensor of size "
                             f"{list(weight_shape)} at dimension 0")
    bad = np.flatnonzero((flat < 0) | (flat >= num_weights))
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {flat[bad[0]]} which is not in "
                           f"the valid range [0, {num_weights})")
    return flat.astype(np.int64)


def _bag_of_each(starts: np.ndarray, count: int, include_last_offset: bool):
    """Each entry's bag from the bags' start offsets, with ATen's checks."""
    if len(starts) and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {starts[0]}")
    if len(starts) and starts[-1] > count:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {count} but "
                           f"got offsets[-1] of {starts[-1]}")
    if include_last_offset:
        if len(starts) < 1:
            raise RuntimeError("include_last_offset: number of offset should be at least 1")
        num_bags = len(starts) - 1
        ends = starts[1:]
        starts = starts[:-1]
    else:
        num_bags = len(starts)
        ends = np.r_[starts[1:], count]
    bags = np.full(count, -1, dtype=np.int64)  # entries past the last bag belong to none
    for bag, (start, end) in enumerate(zip(starts, ends)):  # bags are few; entries many
        bags[start:end] = bag
    return bags, num_bags


def _size(tensor) -> str:
    return "torch.Size(" + str(list(tensor.shape)) + ")"


def _type_name(value) -> str:
    name = type(value).__name__
    return "<class 'torch.Tensor'>" if name in ("Tensor", "Parameter") else str(type(value))
