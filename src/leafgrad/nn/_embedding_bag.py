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
from ..ops.registry import Op, register

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

    def _entry_scale(self):
        """Per entry, what its row is multiplied by (1, or 1 / its bag's size for a mean;
        padding entries 0), as an array."""
        p = self._params
        indices, bags = p["indices"], p["bags"]
        keep = _kept(indices, bags, p["padding_idx"])
        scale = keep.astype(np.float64)
        if p["mode"] == "mean":
            counts = np.bincount(bags[keep], minlength=p["num_bags"])
            scale = scale / np.maximum(counts, 1)[bags]
        return scale

    def backward(self, grad):
        from ..tensor import _wrap

        p = self._params
        indices, bags = p["indices"], p["bags"]
        num_weights = self.input_shape(0)[0]
        grad_weight = grad_samples = None
        if p["mode"] == "max":
            if self.needs_grad(0):
                choice = self.saved("choice")
                valid = choice >= 0
                dtype = grad._data.dtype
                rows = _wrap(np.where(valid, indices[np.maximum(choice, 0)], 0))
                zeros = _wrap(np.zeros((num_weights, grad.shape[1]), dtype=dtype))
                grad_weight = zeros.scatter_add(0, rows, grad * _wrap(valid.astype(dtype)))
            return grad_weight, None
        picked = grad.index_select(0, _wrap(np.maximum(bags, 0)))  # -1: no bag, scale 0
        if self.needs_grad(0):
            scale = self._entry_scale()
            rows = picked * _wrap(scale.astype(grad._data.dtype))[:, None]
            if self._saved.get("per_sample_weights") is not None:
                rows = rows * self.saved("per_sample_weights")[:, None]
            grad_weight = EmbeddingBackward.apply(
                rows, num_weights=num_weights, indices=indices, padding_idx=p["padding_idx"],
                scale_grad_by_freq=p["scale_grad_by_freq"])
        if self.needs_grad(1):
            weight = self.saved("weight")
            keep = _wrap(self._entry_scale().astype(grad._data.dtype))  # 1, or 0 for padding
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
        starts = np.arange(0, input.numel(), input.size(1), dtype=np.int64)
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
    if starts is None:
        _check_indices("offsets", offsets)
        starts = offsets._data.astype(np.int64)
    num_weights = weight.shape[0]
    bags, num_bags = _bag_of_each(starts, len(flat), include_last_offset)
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
    if max_norm is not None:  # torch renormalises first, row by row in sorted order
        wild = np.unique(flat[(flat < -num_weights) | (flat >= num_weights)])
        if wild.size:
            raise IndexError(f"select(): index {wild[0]} out of range for tensor of size "
                             f"{list(weight.shape)} at dimension 0")
    bad = np.flatnonzero((flat < 0) | (flat >= num_weights))
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {flat[bad[0]]} which is not in "
                           f"the valid range [0, {num_weights})")
    if max_norm is not None:
        with no_grad():
            rows = np.unique(flat)
            norms = np.linalg.norm(weight._data[rows], ord=norm_type, axis=1)
            scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            weight._data[rows] *= scale[:, None].astype(weight._data.dtype)
    if sparse:
        raise NotImplementedError("leafgrad: embedding_bag with sparse gradients (there are no "
                                  "sparse tensors)")
    return EmbeddingBag.apply(weight, samples, indices=flat.astype(np.int64), bags=bags,
                              num_bags=num_bags, mode=mode, padding_idx=padding_idx,
                              scale_grad_by_freq=bool(scale_grad_by_freq))


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
