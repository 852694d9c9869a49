"""ConvolutionBackward0 and ConvolutionBackwardBackward0 show torch's ``_saved_*`` attributes:
the names (``transposed``, ``output_padding``, ``bias_sym_sizes_opt``; nothing of leafgrad's
own), a 1-d convolution's stride/padding/dilation with one element, and the values, before and
after the backward has freed the saved tensors, for every convolution function and form."""

from __future__ import annotations

import itertools

import leafgrad

from .._torch import require_torch

torch = require_torch()


def _describe(node):
    out = {}
    for name in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            value = getattr(node, name)
        except RuntimeError as error:  # a freed saved tensor
            out[name] = ("error", str(error).splitlines()[0])
            continue
        out[name] = ("tensor", tuple(value.shape)) if hasattr(value, "shape") else value
    return out


def _run(lib, spatial, transposed, stride, padding, dilation, groups, bias, output_padding):
    lib.manual_seed(0)
    size = (2, 4) + (7,) * spatial
    x = lib.randn(*size, requires_grad=True)
    kernel = (3,) * spatial
    if transposed:
        w = lib.randn(4, 6 // groups, *kernel, requires_grad=True)
        f = getattr(lib.nn.functional, f"conv_transpose{spatial}d")
        kwargs = {"output_padding": output_padding}
    else:
        w = lib.randn(6, 4 // groups, *kernel, requires_grad=True)
        f = getattr(lib.nn.functional, f"conv{spatial}d")
        kwargs = {}
    b = lib.randn(6) if bias else None
    y = f(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups, **kwargs)
    node = y.grad_fn
    gx, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    double = gx.grad_fn.next_functions[0][0] if gx.grad_fn.name() != \
        "ConvolutionBackwardBackward0" else gx.grad_fn
    found = {"node": (node.name(), _describe(node))}
    while double is not None and double.name() != "ConvolutionBackwardBackward0":
        double = next((n for n, _ in double.next_functions if n is not None), None)
    if double is not None:
        found["double"] = (double.name(), _describe(double))
    y.sum().backward()
    found["after"] = _describe(node)
    return found


def test_convolution_nodes_show_torchs_saved_attributes():
    checked = 0
    for spatial, transposed in itertools.product((1, 2, 3), (False, True)):
        forms = [(1, 0, 1, 1, False, 0), (2, 1, 1, 2, True, 1), (3, 2, 2, 1, True, 0),
                 (2, 0, 1, 1, False, 1)]
        for stride, padding, dilation, groups, bias, output_padding in forms:
            if not transposed:
                output_padding = 0
            if spatial == 3 and stride == 3:
                continue
            args = (spatial, transposed, stride, padding, dilation, groups, bias, output_padding)
            assert _run(leafgrad, *args) == _run(torch, *args), args
            checked += 1
    assert checked >= 20
