"""Samples for convolution and pooling (ops/conv.py, ops/pool.py)."""

from __future__ import annotations

from .samples import Sample

A = "any"


def _grad_of(lib, out, inputs):
    return lib.autograd.grad((out * out).sum(), inputs, create_graph=True)


def _conv2d(**options):
    return lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, **options)


SAMPLES = {
    "Convolution": [
        Sample(_conv2d(padding=1), (((2, 2, 4, 4), A), ((3, 2, 3, 3), A), ((3,), A))),
        Sample(_conv2d(stride=(2, 1), dilation=(1, 2), groups=2),
               (((1, 4, 5, 6), A), ((2, 2, 2, 2), A), ((2,), A))),
        Sample(lambda lib, x, w: lib.nn.functional.conv1d(x, w, stride=2, padding=1),
               (((2, 3, 6), A), ((2, 3, 3), A))),
        Sample(lambda lib, x, w: lib.nn.functional.conv2d(x, w), (((2, 3, 3), A), ((1, 2, 2, 2), A)),
               note="unbatched input"),
        Sample(lambda lib, x, w, b: lib.nn.functional.conv3d(x, w, b, stride=(1, 2, 1),
                                                             padding=(1, 0, 1), dilation=(1, 1, 2)),
               (((2, 2, 3, 4, 4), A), ((3, 2, 2, 2, 2), A), ((3,), A))),
        Sample(lambda lib, x, w: lib.nn.functional.conv3d(x, w, groups=2, padding="same"),
               (((4, 3, 3, 2), A), ((2, 2, 2, 2, 1), A)), note="unbatched, grouped, same"),
    ],
    "ConvInputGrad": [
        Sample(lambda lib, x, w: _grad_of(lib, lib.nn.functional.conv2d(x, w, padding=1), x)[0],
               (((1, 2, 4, 4), A), ((2, 2, 3, 3), A))),
        Sample(lambda lib, x, w: _grad_of(lib, lib.nn.functional.conv3d(x, w, stride=2), x)[0],
               (((1, 2, 3, 4, 3), A), ((2, 2, 2, 2, 2), A))),
    ],
    "ConvWeightGrad": [
        Sample(lambda lib, x, w: _grad_of(lib, lib.nn.functional.conv2d(x, w, stride=2), w)[0],
               (((1, 2, 5, 5), A), ((2, 2, 3, 3), A))),
        Sample(lambda lib, x, w: _grad_of(lib, lib.nn.functional.conv3d(x, w, padding=1), w)[0],
               (((1, 2, 3, 3, 2), A), ((2, 2, 2, 2, 2), A))),
    ],
    # a create_graph backward of a convolution: one node, three outputs (input, weight, bias)
    "ConvolutionBackward": [
        Sample(lambda lib, x, w, b: lib.cat([g.flatten() for g in _grad_of(
            lib, lib.nn.functional.conv2d(x, w, b, padding=1), (x, w, b))]),
            (((1, 2, 4, 4), A), ((2, 2, 3, 3), A), ((2,), A))),
        Sample(lambda lib, x, w: _grad_of(lib, lib.nn.functional.conv1d(x, w, stride=2), x)[0],
               (((2, 2, 5), A), ((3, 2, 2), A))),
        Sample(lambda lib, x, w, b: lib.cat([g.flatten() for g in _grad_of(
            lib, lib.nn.functional.conv_transpose2d(x, w, b, stride=2, groups=2), (x, w, b))]),
            (((1, 4, 3, 3), A), ((4, 1, 2, 2), A), ((2,), A))),
        Sample(lambda lib, x, w: _grad_of(lib, lib.nn.functional.conv3d(x, w), w)[0],
               (((1, 2, 3, 3, 3), A), ((1, 2, 2, 2, 2), A))),
    ],
    "ConvTranspose": [
        Sample(lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(
            x, w, b, stride=2, padding=1, output_padding=1),
            (((1, 2, 3, 3), A), ((2, 3, 3, 3), A), ((3,), A))),
        Sample(lambda lib, x, w, b: lib.nn.functional.conv_transpose3d(
            x, w, b, stride=(2, 1, 2), padding=(1, 0, 0), output_padding=(1, 0, 1), groups=2),
            (((1, 4, 2, 3, 2), A), ((4, 1, 2, 2, 3), A), ((2,), A))),
    ],
    "MaxPool2d": [
        Sample(lambda lib, x: lib.nn.functional.max_pool2d(x, 2), (((2, 2, 4, 4), A),)),
        Sample(lambda lib, x: lib.nn.functional.max_pool2d(x, 3, 2, 1, ceil_mode=True),
               (((1, 2, 6, 5), A),)),
    ],
    "MaxPoolBackward": [
        Sample(lambda lib, x: _grad_of(lib, lib.nn.functional.max_pool2d(x, 2), x)[0],
               (((1, 2, 4, 4), A),)),
    ],
    "AvgPool2d": [
        Sample(lambda lib, x: lib.nn.functional.avg_pool2d(x, 2), (((2, 2, 4, 4), A),)),
        Sample(lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
               (((1, 2, 5, 6), A),)),
    ],
    "AvgPoolBackward": [
        Sample(lambda lib, x: _grad_of(lib, lib.nn.functional.avg_pool2d(x, 3, 2, 1), x)[0],
               (((1, 1, 5, 5), A),)),
    ],
    "AdaptiveAvgPool2d": [
        Sample(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (2, 3)), (((1, 2, 5, 7), A),)),
    ],
    "AdaptiveAvgPoolBackward": [
        Sample(lambda lib, x: _grad_of(lib, lib.nn.functional.adaptive_avg_pool2d(x, 3), x)[0],
               (((1, 1, 5, 4), A),)),
    ],
}
