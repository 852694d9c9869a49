"""``nn.utils.rnn``: variable-length sequences padded into one tensor, or packed step by step
(``PackedSequence``, which RNN/LSTM/GRU accept)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable

from ...tensor import Tensor

__all__ = ["pad_sequence", "PackedSequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpack_sequence", "unpad_sequence", "invert_permutation"]


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right"):
    """(longest, batch, *) (or (batch, longest, *)) with each sequence copied in and the rest
    ``padding_value``; gradients flow back to each sequence (CopySlices, as torch)."""
    from ... import empty

    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    sequences = list(sequences)  # (a tensor: its rows, as torch's tuple(sequences))
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for i, sequence in enumerate(sequences):
        if not isinstance(sequence, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(sequence).__name__}")
    if sequences[0].ndim == 0:  # (torch slices the first one's sizes past its first dim)
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    longest = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    # torch's result is filled in place (its version 1 before the copies)
    out = empty(shape + trailing, dtype=sequences[0].dtype).fill_(padding_value)
    for i, sequence in enumerate(sequences):
        length = sequence.size(0)
        start = 0 if padding_side == "right" else longest - length
        # torch's steps (select, narrow, copy_): copy_'s broadcasting error, not setitem's
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(sequence)
        else:
            out.narrow(0, start, length).select(1, i).copy_(sequence)
    return out


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                    "unsorted_indices"])):
    """Sequences of different lengths packed time step by time step: ``data`` holds the
    entries still running at each step (``batch_sizes[t]`` of them), longest first."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def __repr__(self) -> str:
        return (f"PackedSequence(data={self.data!r}, batch_sizes={self.batch_sizes!r}, "
                f"sorted_indices={self.sorted_indices!r}, "
                f"unsorted_indices={self.unsorted_indices!r})")

    def to(self, *args, **kwargs) -> "PackedSequence":
        """``data`` converted as ``Tensor.to`` converts it; the index tensors stay as they are
        (only their device would follow, and leafgrad has one)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs) -> "PackedSequence":
        return self.to("cpu")

    def double(self) -> "PackedSequence":
        return self.to(dtype=_dtype("float64"))

    def float(self) -> "PackedSequence":
        return self.to(dtype=_dtype("float32"))

    def half(self) -> "PackedSequence":
        return self.to(dtype=_dtype("float16"))

    def long(self) -> "PackedSequence":
        return self.to(dtype=_dtype("int64"))

    def int(self) -> "PackedSequence":
        return self.to(dtype=_dtype("int32"))

    def short(self) -> "PackedSequence":
        return self.to(dtype=_dtype("int16"))

    def char(self) -> "PackedSequence":
        return self.to(dtype=_dtype("int8"))

    def byte(self) -> "PackedSequence":
        return self.to(dtype=_dtype("uint8"))

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def _dtype(name: str):
    from ... import _dtype as dtypes

    return getattr(dtypes, name)


def _invert_permutation(permutation):
    from ... import empty_like, arange

    inverse = empty_like(permutation)
    inverse[permutation] = arange(permutation.numel(), dtype=permutation.dtype)
    return inverse


def pack_padded_sequence(input, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded (L, N, *) (or (N, L, *)) batch whose sequences have ``lengths``."""
    from ... import int64, tensor
    from ...ops.rnn import PackPaddedSequence
    from ...tensor import Tensor

    lengths = lengths.to(int64) if isinstance(lengths, Tensor) else tensor(lengths,
                                                                          dtype=int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    # torch's checks, in its kernel's order
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lengths.dim() != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu Long tensor")
    batch = input.shape[0 if batch_first else 1]
    if lengths.shape[0] != batch:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths.shape[0]} (batch_size={batch})")
    values = lengths.tolist()
    if values[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0")
    if any(a < b for a, b in zip(values, values[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability.")
    batch_sizes = [sum(1 for n in values if n > t) for t in range(values[0] if values else 0)]
    data = PackPaddedSequence.apply(input, lengths=tuple(values), batch_sizes=tuple(batch_sizes),
                                    batch_first=bool(batch_first))
    return PackedSequence(data, tensor(batch_sizes, dtype=int64), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length=None):
    """The padded batch and the lengths (in the original order) of a PackedSequence."""
    from ... import full, int64, tensor

    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    batch = batch_sizes[0] if batch_sizes else 0
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}")
        steps = total_length
    _check_packed_runs(data, batch_sizes)
    out = full((steps, batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    offset = 0
    for t, size in enumerate(batch_sizes):
        out[t, :size] = data[offset:offset + size]
        offset += size
    lengths = [sum(1 for size in batch_sizes if size > b) for b in range(batch)]
    lengths = tensor(lengths, dtype=int64)
    if batch_first:  # (torch's kernel transposes; the reordering comes after)
        out = out.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        out = out.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return out, lengths


def _check_packed_runs(data, batch_sizes: list) -> None:
    """torch's _pad_packed_sequence copies each run of equal batch sizes as
    ``data[offset:offset + steps * size].view(steps, size, *rest)``: data shorter than the
    batch sizes claim (lengths past the padded input when packing) fails that view."""
    rest = list(data.shape[1:])
    inner = 1
    for size in rest:
        inner *= size
    rows = data.shape[0]
    offset, previous, start = 0, batch_sizes[0] if batch_sizes else 0, 0
    for step, size in enumerate(batch_sizes + [0]):
        if size == previous:
            continue
        count = previous * (step - start)
        taken = max(0, min(offset + count, rows) - max(offset, 0))
        if taken != count:
            shape = ", ".join(str(n) for n in [step - start, previous] + rest)
            raise RuntimeError(f"shape '[{shape}]' is invalid for input of size {taken * inner}")
        offset += count
        previous, start = size, step


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of (L_i, *) tensors."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of (L_i, *) tensors a PackedSequence was packed from, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False) -> list:
    """The list of (L_i, *) tensors of a padded batch whose sequences have ``lengths``: as
    torch's, each row indexed by the mask ``arange(T) < length`` (a copy, IndexBackward0),
    and a time-first batch transposed in place first (the caller's tensor is changed)."""
    from ... import arange

    if not batch_first:
        padded_sequences.transpose_(0, 1)
    positions = arange(padded_sequences.shape[1], device=lengths.device)
    return [row[positions < length] for row, length in zip(padded_sequences, lengths)]


def invert_permutation(permutation):
    """The inverse of a permutation of ``range(n)`` (None stays None)."""
    from ... import empty_like, arange, int64

    if permutation is None:
        return None
    output = empty_like(permutation)
    output.scatter_(0, permutation, arange(0, permutation.numel(), dtype=int64))
    return output
