"""``nn.utils.rnn.pad_sequence``: variable-length sequences stacked into one padded tensor."""

from __future__ import annotations

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right"):
    """(longest, batch, *) (or (batch, longest, *)) with each sequence copied in and the rest
    ``padding_value``; gradients flow back to each sequence (CopySlices, as torch)."""
    from ... import full

    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences.unbind(0)) if hasattr(sequences, "unbind") else list(sequences)
    longest = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = full(shape + trailing, padding_value, dtype=sequences[0].dtype)
    for i, sequence in enumerate(sequences):
        length = sequence.size(0)
        rows = slice(0, length) if padding_side == "right" else slice(longest - length, longest)
        if batch_first:
            out[i, rows] = sequence
        else:
            out[rows, i] = sequence
    return out
