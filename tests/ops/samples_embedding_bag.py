"""Samples for F.embedding_bag (src/leafgrad/nn/_embedding_bag.py): each mode, offsets with an
empty bag, 2-d input, padding_idx, include_last_offset, per-sample weights (their gradient
too)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _bag(lib, weight, samples=None, **options):
    indices = lib.tensor([1, 2, 4, 5, 4, 3, 2, 0])
    offsets = lib.tensor([0, 2, 2, 5] + ([8] if options.get("include_last_offset") else []))
    return lib.nn.functional.embedding_bag(indices, weight, offsets, per_sample_weights=samples,
                                           **options)


SAMPLES = {
    "EmbeddingBag": [
        Sample(lambda lib, w: _bag(lib, w, mode="sum"), (((6, 3), A),)),
        Sample(lambda lib, w: _bag(lib, w, mode="mean", padding_idx=4), (((6, 3), A),),
               note="padding_idx, an empty bag"),
        Sample(lambda lib, w: _bag(lib, w, mode="max"), (((6, 3), A),)),
        Sample(lambda lib, w: _bag(lib, w, mode="max", padding_idx=2, include_last_offset=True),
               (((6, 3), A),), note="include_last_offset"),
        Sample(lambda lib, w, s: _bag(lib, w, s, mode="sum", padding_idx=5),
               (((6, 3), A), ((8,), A)), note="per_sample_weights"),
        Sample(lambda lib, w: lib.nn.functional.embedding_bag(
            lib.tensor([[0, 2, 2], [3, 1, 0]]), w, mode="mean"), (((4, 2), A),),
            note="2-d input"),
    ],
}
