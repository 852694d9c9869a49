"""Samples for the ops the nn layers add (src/leafgrad/nn/_layer_ops.py): adaptive max pooling
and its backward, with overlapping bins (sizes that do not divide), unbatched and 1-d input;
pixel shuffle and unshuffle (each the other's backward), batched, unbatched and 5-d; im2col and
col2im (F.unfold / F.fold) with overlapping blocks, padding, dilation and strides; max
unpooling of max_pool's own values and indices; channel shuffle (its own backward); weight
norm's fused op (dim 0 and the last dim)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _weight_norm(lib, v, g, dim):
    """torch._weight_norm; leafgrad keeps it with nn.utils.weight_norm (not a top-level name)."""
    if lib.__name__ == "torch":
        return lib._weight_norm(v, g, dim)
    import sys

    return sys.modules["leafgrad.nn.utils.weight_norm"]._weight_norm(v, g, dim)


def _grad_of(lib, out, inputs):
    return lib.autograd.grad((out * out).sum(), inputs, create_graph=True)


SAMPLES = {
    "AdaptiveMaxPool2d": [
        Sample(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, 2), (((2, 2, 4, 4), A),)),
        Sample(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (3, 2)),
               (((1, 2, 5, 7), A),), note="overlapping bins"),
        Sample(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (None, 3)),
               (((2, 3, 5), A),), note="unbatched, None keeps a size"),
        Sample(lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 4), (((2, 3, 7), A),),
               node="SqueezeBackward1"),
    ],
    "AdaptiveMaxPoolBackward": [
        Sample(lambda lib, x: _grad_of(lib, lib.nn.functional.adaptive_max_pool2d(x, (3, 2)),
                                       x)[0], (((1, 2, 5, 4), A),)),
    ],
    "PixelShuffle": [
        Sample(lambda lib, x: lib.nn.functional.pixel_shuffle(x, 2), (((2, 8, 2, 3), A),)),
        Sample(lambda lib, x: lib.nn.functional.pixel_shuffle(x, 3), (((9, 2, 2), A),)),
        Sample(lambda lib, x: lib.nn.functional.pixel_shuffle(x, 2), (((2, 1, 4, 2, 2), A),)),
    ],
    "PixelUnshuffle": [
        Sample(lambda lib, x: lib.nn.functional.pixel_unshuffle(x, 2), (((2, 3, 4, 6), A),)),
        Sample(lambda lib, x: lib.nn.functional.pixel_unshuffle(x, 3), (((1, 6, 3), A),)),
    ],
    "Im2Col": [
        Sample(lambda lib, x: lib.nn.functional.unfold(x, 2), (((2, 2, 3, 4), A),)),
        Sample(lambda lib, x: lib.nn.functional.unfold(x, (2, 3), dilation=(1, 2), padding=1,
                                                       stride=(2, 1)), (((2, 4, 5), A),),
               note="unbatched, padded, dilated"),
    ],
    "Col2Im": [
        Sample(lambda lib, x: lib.nn.functional.fold(x, (3, 4), 2), (((2, 8, 6), A),)),
        Sample(lambda lib, x: lib.nn.functional.fold(x, (3, 5), (2, 3), dilation=(1, 2),
                                                     padding=1, stride=2), (((12, 4), A),),
               note="unbatched, padded, dilated, strided"),
    ],
    "MaxUnpool2d": [
        Sample(lambda lib, x: lib.nn.functional.max_unpool2d(
            *lib.nn.functional.max_pool2d(x, 2, return_indices=True), 2), (((2, 2, 4, 6), A),)),
        Sample(lambda lib, x: lib.nn.functional.max_unpool2d(
            *lib.nn.functional.max_pool2d(x, 2, return_indices=True), 2, output_size=(4, 5)),
            (((2, 4, 5), A),), note="unbatched, output_size"),
        Sample(lambda lib, x: lib.nn.functional.max_unpool1d(
            *lib.nn.functional.max_pool1d(x, 3, return_indices=True), 3),
            (((2, 3, 9), A),), node="SqueezeBackward1"),
    ],
    "ChannelShuffle": [
        Sample(lambda lib, x: lib.nn.functional.channel_shuffle(x, 2), (((2, 6, 3), A),)),
        Sample(lambda lib, x: lib.nn.functional.channel_shuffle(x, 3), (((1, 6, 2, 2), A),)),
    ],
    "WeightNormInterface": [
        Sample(lambda lib, v, g: _weight_norm(lib, v, g, 0), (((3, 4), A), ((3, 1), "pos"))),
        Sample(lambda lib, v, g: _weight_norm(lib, v, g, 2),
               (((2, 3, 4), A), ((1, 1, 4), "pos")), note="the last dim"),
    ],
}
