"""Convolutions (1-d, 2-d and 3-d; stride, padding, dilation, groups, transposed).

Vectorised with NumPy: the input's sliding windows are a strided view (no copy), one matrix
product per group does the arithmetic (BLAS), and scattering gradients back to the input is a
loop over the kernel's KH*KW offsets, each a whole-tensor slice add (never a loop over pixels).

The three ops below share one bilinear form B(x, w, g) = sum x[window] * w * g, so the gradient
of each is one of the others; that is what makes every order of derivative work.
"""

from __future__ import annotations

import numpy as np

from .._info import get_num_threads  # (its imports: _dtype only)
from ..tensor import _wrap
from . import _layout, _numba_kernels
from . import _onednn_dw as _dw
from . import _slow_conv as _slow
from . import conv3d as _nd
from ._forward import jvp_sum
from . import _batching_rules as batch
from . import _uint
from .registry import Op, array_kernel, plain_backward, register
from ..autograd.grad_mode import state as _grad_state
from ..autograd.forward_ad import state as _dual_state
from ..autograd._vmap_state import state as _vmap_state
from .._compile.state import state as _capture
from .complex import ViewAsReal
from ._double_backward import formula_jvp


def _pair(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _as_2d(a: np.ndarray, spatial: int) -> np.ndarray:
    """1-d convolutions run as 2-d ones with a height of 1."""
    return a[:, :, None, :] if spatial == 1 else a


def _from_2d(a: np.ndarray, spatial: int) -> np.ndarray:
    return a[:, :, 0, :] if spatial == 1 else a


def _out_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _windows(xp: np.ndarray, kh: int, kw: int, oh: int, ow: int, stride, dilation) -> np.ndarray:
    """(N, C, OH, OW, KH, KW) view of the padded input's receptive fields."""
    n, c = xp.shape[:2]
    sn, sc, sh, sw = xp.strides
    return np.lib.stride_tricks.as_strided(
        xp,
        shape=(n, c, oh, ow, kh, kw),
        strides=(sn, sc, sh * stride[0], sw * stride[1], sh * dilation[0], sw * dilation[1]),
        writeable=False,
    )


def _pad(x: np.ndarray, padding) -> np.ndarray:
    ph, pw = padding
    if ph == 0 and pw == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))


def _columns(x, kh, kw, oh, ow, stride, padding, dilation, channels=None) -> np.ndarray:
    """im2col in channels-last order: (N*OH*OW, KH*KW*C) rows, one per output pixel.

    The padded input is laid out (N, H, W, C) first, so each window row copies runs of KW*C
    contiguous values (measured ~3x faster than NCHW windows in benchmarks/bench_nn.py).
    """
    n, c, h, w = x.shape
    ph, pw = padding
    if ph or pw:
        padded = np.zeros((n, h + 2 * ph, w + 2 * pw, c), dtype=x.dtype)
        padded[:, ph:ph + h, pw:pw + w, :] = x.transpose(0, 2, 3, 1)
    else:
        padded = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    if channels is not None:
        padded = padded[..., channels]
    sn, sh, sw, sc = padded.strides
    windows = np.lib.stride_tricks.as_strided(
        padded,
        shape=(n, oh, ow, kh, kw, padded.shape[3]),
        strides=(sn, sh * stride[0], sw * stride[1], sh * dilation[0], sw * dilation[1], sc),
        writeable=False,
    )
    return windows.reshape(n * oh * ow, kh * kw * padded.shape[3])  # (sizes given: N may be 0)


def _kernel_matrix(w: np.ndarray) -> np.ndarray:
    """(O, C, KH, KW) -> (O, KH*KW*C), matching _columns' order."""
    return w.transpose(0, 2, 3, 1).reshape(w.shape[0], w.shape[1] * w.shape[2] * w.shape[3])


def conv_forward(x, w, stride, padding, dilation, groups, bias=None, keep=None,
                 signed_products=True) -> np.ndarray:
    """out[n, o] = sum over c, kernel of x[n, c, window] * w[o, c] (cross-correlation).
    ``signed_products=False``: sums of one product start from +0. too (see
    conv3d.sign_zero_products)."""
    if x.ndim == 5:
        return _nd.forward(x, w, stride, padding, dilation, groups, bias, keep)
    n = x.shape[0]
    out_channels, group_channels, kh, kw = w.shape
    oh = _out_size(x.shape[2], kh, stride[0], padding[0], dilation[0])
    ow = _out_size(x.shape[3], kw, stride[1], padding[1], dilation[1])
    per_group = out_channels // groups
    out = np.empty((n * oh * ow, out_channels), dtype=np.result_type(x, w))
    kept = []
    for g in range(groups):
        channels = slice(g * group_channels, (g + 1) * group_channels) if groups > 1 else None
        columns = _columns(x, kh, kw, oh, ow, stride, padding, dilation, channels)
        kernel = _kernel_matrix(w[g * per_group:(g + 1) * per_group])
        block = out[:, g * per_group:(g + 1) * per_group]
        np.matmul(columns, kernel.T, out=block)
        if signed_products and _nd.single_products(out.dtype, n, columns.shape[1], groups,
                                               out_channels, stride, oh * ow):
            _nd.sign_zero_products(block, columns, kernel)
        kept.append(columns)
    if keep is not None:
        keep.extend(kept)
    if bias is not None:
        negative_zero = (bias == 0) & np.signbit(bias)
        # (float32: torch's kernels for a batch or output channels of more than one sum from
        # +0. and add the bias after, on most shapes: measured, not replayed)
        replay = out.dtype == np.float64 or (n == 1 and out_channels == 1)
        zeros = out == 0 if replay and negative_zero.any() else None
        out += bias
        if zeros is not None:
            _negative_zero_sums(out, zeros, negative_zero, kept, w, groups)
    return out.reshape(n, oh, ow, out_channels).transpose(0, 3, 1, 2)


def _negative_zero_sums(out, zeros, negative_zero, columns_of, w, groups) -> None:
    """torch's convolution adds the products into the bias: with a -0. bias, a sum of products
    that are all -0. (a window of padding or zeros, weights of the other sign) stays -0., where
    the sum from +0. plus the bias gave +0. (generated-program seeds 171806, 210742)."""
    per_group = w.shape[0] // groups
    for g, columns in enumerate(columns_of):
        channels = slice(g * per_group, (g + 1) * per_group)
        where = zeros[:, channels] & negative_zero[channels]
        if not where.any():
            continue
        kernel = _kernel_matrix(w[channels])
        x_zero, x_sign = columns == 0, np.signbit(columns)
        w_zero, w_sign = kernel == 0, np.signbit(kernel)
        # products that are -0.: a zero factor and the two signs differing
        count = (_indicator(x_zero & x_sign) @ _indicator(~w_sign).T
                 + _indicator(x_zero & ~x_sign) @ _indicator(w_sign).T
                 + _indicator(~x_zero & x_sign) @ _indicator(w_zero & ~w_sign).T
                 + _indicator(~x_zero & ~x_sign) @ _indicator(w_zero & w_sign).T)
        block = out[:, channels]
        block[where & (count == columns.shape[1])] = -0.0


def _indicator(mask: np.ndarray) -> np.ndarray:
    return mask.astype(np.float64)


def conv_input_grad(g, w, input_shape, stride, padding, dilation, groups) -> np.ndarray:
    """The adjoint of conv_forward in x."""
    if g.ndim == 5:
        return _nd.input_grad(g, w, input_shape, stride, padding, dilation, groups)
    out_channels, group_channels, kh, kw = w.shape
    full = (dilation[0] * (kh - 1) - padding[0], dilation[1] * (kw - 1) - padding[1])
    if stride == (1, 1) and full[0] >= 0 and full[1] >= 0:
        # With stride 1 the adjoint is itself a convolution: of g with the kernel flipped and
        # its in/out channels swapped (per group), padded to the full size.
        per_group = out_channels // groups
        flipped = w[:, :, ::-1, ::-1].reshape(groups, per_group, group_channels, kh, kw)
        flipped = flipped.transpose(0, 2, 1, 3, 4).reshape(groups * group_channels, per_group,
                                                           kh, kw)
        # a transposed convolution's output_padding (allowed at stride 1 when the dilation
        # exceeds it) asks for more rows/columns than the full convolution gives: g grows by
        # zeros on that side, so the extra outputs read what they reach of g
        extra = [max(0, input_shape[2 + i] - (g.shape[2 + i] + 2 * full[i]
                                               - dilation[i] * (w.shape[2 + i] - 1)))
                 for i in range(2)]
        if extra[0] or extra[1]:
            g = np.pad(g, ((0, 0), (0, 0), (0, extra[0]), (0, extra[1])))
        out = conv_forward(g, flipped, (1, 1), full, dilation, groups, signed_products=False)
        return out[:, :, :input_shape[2], :input_shape[3]]
    return _scatter_input_grad(g, w, input_shape, stride, padding, dilation, groups)


def _scatter_input_grad(g, w, input_shape, stride, padding, dilation, groups) -> np.ndarray:
    """col2im: scatter g * w back onto the input grid, one slice-add per kernel offset."""
    n, _, oh, ow = g.shape
    out_channels, group_channels, kh, kw = w.shape
    per_group = out_channels // groups
    height = input_shape[2] + 2 * padding[0]
    width = input_shape[3] + 2 * padding[1]
    grad = np.zeros((n, group_channels * groups, height, width), dtype=np.result_type(g, w))
    rows = g.transpose(0, 2, 3, 1).reshape(n * oh * ow, out_channels)
    for gi in range(groups):
        kernel = w[gi * per_group:(gi + 1) * per_group].reshape(per_group,
                                                                group_channels * kh * kw)
        cols = (rows[:, gi * per_group:(gi + 1) * per_group] @ kernel).reshape(
            n, oh, ow, group_channels, kh, kw
        )
        target = grad[:, gi * group_channels:(gi + 1) * group_channels]
        for i in range(kh):
            top = i * dilation[0]
            for j in range(kw):
                left = j * dilation[1]
                target[:, :, top:top + stride[0] * (oh - 1) + 1:stride[0],
                       left:left + stride[1] * (ow - 1) + 1:stride[1]] += (
                    cols[..., i, j].transpose(0, 3, 1, 2)
                )
    ph, pw = padding
    return grad[:, :, ph:ph + input_shape[2], pw:pw + input_shape[3]]


def _dw_weight_grad(g, columns, shape):
    """A depthwise convolution's weight gradient as oneDNN sums it (_onednn_dw.py)."""
    kernel = (1, shape[2]) if len(shape) == 3 else tuple(shape[2:])
    array = _dw.weight_grads(columns, g, kernel)
    return _layout.row_major(array.reshape(shape))


def _weight_grad_plain(g, columns, shape, shape2, stride, padding, dilation, groups, spatial,
                       slow=False):
    """The weight gradient from the forward's im2col columns (no graph: see Note: array-level
    backwards in activation.py); ``slow``: columns in torch's slow kernel's order, one
    (N, C*KH*KW, OH*OW) array per group (Note: torch's slow convolution, _slow_conv.py)."""
    if slow:
        array = _slow.weight_grad(_as_2d(g, spatial), columns, shape2, groups)
    else:
        array = conv_weight_grad(None, _as_2d(g, spatial), shape2, stride, padding, dilation,
                                 groups, columns=columns)
    return _layout.row_major(array.reshape(shape))


def conv_weight_grad(x, g, weight_shape, stride, padding, dilation, groups,
                     columns=None) -> np.ndarray:
    """The adjoint of conv_forward in w: correlate the input windows with g."""
    if g.ndim == 5:
        return _nd.weight_grad(x, g, weight_shape, stride, padding, dilation, groups, columns)
    n, _, oh, ow = g.shape
    out_channels, group_channels, kh, kw = weight_shape
    per_group = out_channels // groups
    rows = g.transpose(0, 2, 3, 1).reshape(n * oh * ow, out_channels)
    grad = np.empty((out_channels, kh, kw, group_channels), dtype=np.result_type(x, g))
    for gi in range(groups):
        if columns is not None:
            matrix = columns[gi]
        else:
            channels = slice(gi * group_channels, (gi + 1) * group_channels) if groups > 1 \
                else None
            matrix = _columns(x, kh, kw, oh, ow, stride, padding, dilation, channels)
        part = rows[:, gi * per_group:(gi + 1) * per_group].T @ matrix
        grad[gi * per_group:(gi + 1) * per_group] = part.reshape(per_group, kh, kw,
                                                                 group_channels)
    return grad.transpose(0, 3, 1, 2)


def _geometry(params: dict) -> tuple:
    return params["stride"], params["padding"], params["dilation"], params["groups"]


def _bias_grad(grad, params: dict, slow: bool = False):
    """The bias gradient: the output gradient summed over batch and space. torch's float32
    convolutions (oneDNN, one thread) add each channel's values one float32 addition at a time
    in (n, spatial) order, which a pairwise sum does not round as; grouped ones, float64, its
    slow kernel's (``slow``: Note: torch's slow convolution) and create_graph's recorded sum
    sum as torch's sum does."""
    dims = (0,) + tuple(range(2, 2 + params["spatial"]))
    if params["groups"] == 1 and grad._data.dtype == np.float32 and plain_backward() \
            and not slow:
        return _wrap(array_kernel(_sequential_channel_sums, grad._data))
    return grad.sum(dims)


def _sequential_channel_sums(grad: np.ndarray) -> np.ndarray:
    if _numba_kernels.active:  # a compiled loop, same bits (_numba_kernels)
        result = _numba_kernels.channel_sums(grad)
        if result is not None:
            return result
    channels = grad.shape[1]
    rows = np.moveaxis(grad, 1, 0).reshape(channels, grad.size // channels if channels else 0)
    if not rows.shape[1]:
        return np.zeros(channels, grad.dtype)
    # add.accumulate adds strictly in order; + 0 as the kernel's zero start (-0.0 -> 0.0)
    return np.add.accumulate(rows, axis=1)[:, -1] + grad.dtype.type(0)


# Note: convolutions of no input channels
# torch's convolution of an input with 0 channels (a weight of (O, 0, *kernel)) returns
# (N, 0, *output sizes), not (N, O, ...) filled with the bias: ATen's Empty backend multiplies
# the empty input by the flattened weight. The gradients are zeros of the input's, the weight's
# and the bias's shapes (the bias's too, though it never reached the output). An empty batch
# takes the same backend: a row-major (N, O, *output sizes), whatever the input's layout.


def _saved_param_view(node, key: str, value):
    """torch's ConvolutionBackward0 shows a 1-d convolution's stride, padding and dilation with
    one element; leafgrad runs it as a 2-d one of height 1 (its params carry that extra dim)."""
    if node._params.get("spatial") == 1 and key in ("stride", "padding", "dilation"):
        return tuple(value[1:])
    return value


def _saved_bias_sizes(node):
    """torch's ``bias_sym_sizes_opt``: the bias's sizes, (0,) without a bias."""
    meta = node._input_meta
    return tuple(meta[2][0]) if len(meta) > 2 and meta[2] is not None else (0,)


def _saved_output_padding(node):
    """The output padding a transposed convolution's output size implies (0s for others);
    for ConvolutionBackwardBackward0, its grad_output is that output."""
    p = node._params
    spatial = p["spatial"]
    if "output_shape" in p:
        sizes_in, kernel = node.input_shape(0)[2:], node.input_shape(1)[2:]
        sizes_out = tuple(p["output_shape"])[-spatial:]
    elif p.get("transposed"):
        sizes_in, kernel = node.input_shape(1)[2:], node.input_shape(2)[2:]
        sizes_out = node.input_shape(0)[2:]
    else:
        return (0,) * spatial
    view = {key: _saved_param_view(node, key, p[key]) for key in ("stride", "padding", "dilation")}
    return tuple(int(out - ((n - 1) * s - 2 * pad + d * (k - 1) + 1)) for out, n, k, s, pad, d in
                 zip(sizes_out, sizes_in, kernel, view["stride"], view["padding"],
                     view["dilation"]))


def _positive_zeros(out: np.ndarray) -> np.ndarray:
    out[out == 0] = 0
    return out


@register
class Convolution(Op):
    """conv1d / conv2d: ``input`` (N, C, [H,] W), ``weight`` (O, C/groups, [KH,] KW), ``bias``."""
    autocast = "lower_precision_fp"  # torch's CPU autocast list

    node = "ConvolutionBackward0"
    uint_kernel = staticmethod(_uint.conv_kernel)
    vmap = batch.convolution
    inputs = ("input", "weight", "bias")
    # torch saves input and weight whenever any gradient is needed (one convolution_backward
    # computes them all): a create_graph backward records ConvolutionBackwardBackward0 from both
    saves = {"input": ("input", "weight", "bias"), "weight": ("input", "weight", "bias"),
             "columns": ("weight",)}
    torch_names = ("nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d")
    # what torch's ConvolutionBackward0 also shows
    saved_computed = {"transposed": lambda node: False, "output_padding": _saved_output_padding,
                      "bias_sym_sizes_opt": _saved_bias_sizes}
    saved_param_view = staticmethod(_saved_param_view)
    # bfloat16 (computed in float32: conv3d.single_products cannot see it) sums from +0. as
    # float16 does, so no output is -0.
    bfloat16_finish = staticmethod(lambda out, arrays, params: _positive_zeros(out))

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, dilation, groups, spatial):
        if x.shape[1] == 0:  # see Note: convolutions of no input channels
            sizes = [_out_size(n, k, s, p, d) for n, k, s, p, d in zip(
                _as_2d(x, spatial).shape[2:], _as_2d(w, spatial).shape[2:], stride, padding,
                dilation)]
            out = np.zeros((x.shape[0], 0, *sizes), dtype=np.result_type(x, w))
            return _from_2d(out, spatial)
        keep = [] if ctx is not None and ctx.needs_grad(1) else None
        x2, w2 = _as_2d(x, spatial), _as_2d(w, spatial)
        slow = _slow.takes(x2.shape, w2.shape, stride, dilation, groups, x2, w2)
        if slow:  # see Note: torch's slow convolution (_slow_conv.py)
            out, kept = _slow.forward(x2, w2, b, stride, padding, groups)
            keep = kept if keep is not None else None
        elif _dw.takes(x2.shape, w2.shape, stride, dilation, groups, x2, w2, *(
                () if b is None else (b,))):  # oneDNN's depthwise kernel (_onednn_dw.py)
            sizes = [_out_size(n, k, s, p, d) for n, k, s, p, d in zip(
                x2.shape[2:], w2.shape[2:], stride, padding, dilation)]
            out = _dw.forward(x2, w2, b, stride, padding, dilation, sizes)
            dw_grads = ctx is not None and _dw.weight_grads_take(
                x2.shape, w2.shape, stride, padding, dilation, groups, x2, w2)
            if dw_grads:
                ctx.keep("dw_grads", True)
            if keep is not None:  # (the weight gradient's: all channels' windows at once for
                # _onednn_dw.weight_grads, else one matrix per channel as conv_forward keeps)
                keep = [_columns(x2, *w2.shape[2:], *sizes, stride, padding, dilation)] \
                    if dw_grads else [_columns(x2, *w2.shape[2:], *sizes, stride, padding,
                                               dilation, slice(i, i + 1))
                                      for i in range(groups)]
        else:
            out = conv_forward(x2, w2, stride, padding, dilation, groups, bias=b, keep=keep)
        if ctx is not None:
            ctx.keep("slow", slow)
        if keep is not None:
            # The im2col matrices, reused by the weight gradient when it runs on arrays
            # (Note: array-level backwards in activation.py); freed with the node's saved state.
            ctx.keep("columns", keep)
        if x.shape[0] == 0:  # row-major (Note: convolutions of no input channels)
            return np.zeros(_from_2d(out, spatial).shape, out.dtype)
        return _layout.suggested(_from_2d(out, spatial), x, fresh=True)

    def backward(self, grad):
        p = self._params
        if _records_double_backward():
            return _double_backward_node(self, grad, p, False)
        if self.input_shape(0)[1] == 0:  # Note: convolutions of no input channels
            return tuple(grad.new_zeros(self.input_shape(i)) if self.needs_grad(i) else None
                         for i in range(3))
        grad_x = grad_w = grad_b = None
        if self.needs_grad(0):
            grad_x = ConvInputGrad.apply(grad, self.saved("weight"),
                                         input_shape=self.input_shape(0), **p)
        dw = plain_backward() and self._saved and self._saved.get("dw_grads")
        if self.needs_grad(1):
            if dw:  # oneDNN's depthwise backward-weights kernel (_onednn_dw.py)
                g2 = _as_2d(grad._data, p["spatial"])
                grad_w = _wrap(array_kernel(_dw_weight_grad, g2, self.saved("columns"),
                                            shape=self.input_shape(1)))
            elif plain_backward():
                shape = self.input_shape(1)
                shape2 = shape if p["spatial"] != 1 else (*shape[:2], 1, shape[2])
                array = array_kernel(_weight_grad_plain, grad._data, self.saved("columns"),
                                     shape=shape, shape2=shape2, stride=p["stride"],
                                     padding=p["padding"], dilation=p["dilation"],
                                     groups=p["groups"], spatial=p["spatial"],
                                     slow=self._slow())
                grad_w = _wrap(array)
            else:
                grad_w = ConvWeightGrad.apply(self.saved("input"), grad,
                                              weight_shape=self.input_shape(1), **p)
        if self.needs_grad(2):
            grad_b = _wrap(array_kernel(_dw.bias_grads, _as_2d(grad._data, p["spatial"]))) \
                if dw else _bias_grad(grad, p, self._slow())
        return grad_x, grad_w, grad_b

    def _slow(self) -> bool:
        """Whether the forward ran torch's slow kernel (Note: torch's slow convolution)."""
        return bool(self._saved and self._saved.get("slow"))

    def jvp(self, tangents, primals, result):
        # torch's convolution_jvp: bilinear in (input, weight), plus the bias tangent
        x, w, _ = primals
        p = self._params
        bias_shape = (1, -1) + (1,) * p["spatial"]
        return jvp_sum(tangents, lambda t: Convolution.apply(t, w, None, **p),
                       lambda t: Convolution.apply(x, t, None, **p),
                       lambda t: t.reshape(bias_shape))


@register
class ConvInputGrad(Op):
    """``g``, ``w`` -> the input gradient of a convolution (also conv_transpose's forward)."""

    node = "ConvolutionBackwardBackward0"
    vmap = batch.conv_input_grad
    uint_kernel = staticmethod(_uint.conv_kernel)
    inputs = ("grad", "weight")
    saves = {"grad": ("weight",), "weight": ("grad",)}
    torch_names = ()

    @staticmethod
    def forward(ctx, g, w, input_shape, stride, padding, dilation, groups, spatial):
        shape = input_shape if spatial != 1 else (input_shape[0], input_shape[1], 1,
                                                  input_shape[2])
        g2, w2 = _as_2d(g, spatial), _as_2d(w, spatial)
        if _slow.takes(shape, w2.shape, stride, dilation, groups, g2, w2):
            out = _slow.input_grad(g2, w2, shape, stride, padding, groups)
        elif _dw.takes(shape, w2.shape, stride, dilation, groups, g2, w2):
            out = _dw.input_grad(g2, w2, shape, stride, padding, dilation)
        else:
            out = conv_input_grad(g2, w2, shape, stride, padding, dilation, groups)
        return _layout.suggested(_from_2d(out, spatial), g, fresh=True)

    def backward(self, grad):
        p = {k: v for k, v in self._params.items() if k != "input_shape"}
        grad_g = grad_w = None
        if self.needs_grad(0):
            grad_g = Convolution.apply(grad, self.saved("weight"), None, **p)
        if self.needs_grad(1):
            grad_w = ConvWeightGrad.apply(grad, self.saved("grad"),
                                          weight_shape=self.input_shape(1), **p)
        return grad_g, grad_w

    def jvp(self, tangents, primals, result):
        g, w = primals  # bilinear in (grad, weight)
        p = self._params
        return jvp_sum(tangents, lambda t: ConvInputGrad.apply(t, w, **p),
                       lambda t: ConvInputGrad.apply(g, t, **p))


@register
class ConvWeightGrad(Op):
    """``x``, ``g`` -> the weight gradient of a convolution."""

    node = "ConvolutionBackwardBackward0"
    vmap = batch.conv_weight_grad
    uint_kernel = staticmethod(_uint.conv_kernel)
    inputs = ("input", "grad")
    saves = {"input": ("grad",), "grad": ("input",)}
    torch_names = ()

    @staticmethod
    def forward(ctx, x, g, weight_shape, stride, padding, dilation, groups, spatial):
        shape = weight_shape if spatial != 1 else (*weight_shape[:2], 1, weight_shape[2])
        x2, g2 = _as_2d(x, spatial), _as_2d(g, spatial)
        if _slow.takes(x2.shape, shape, stride, dilation, groups, x2, g2):
            kept = [_slow.columns(x2[:, i * shape[1]:(i + 1) * shape[1]], shape[2], shape[3],
                                  stride, padding) for i in range(groups)]
            out = _slow.weight_grad(g2, kept, shape, groups)
        else:
            out = conv_weight_grad(x2, g2, shape, stride, padding, dilation, groups)
        return _layout.suggested(out.reshape(weight_shape), x, fresh=True)

    def backward(self, grad):
        p = {k: v for k, v in self._params.items() if k != "weight_shape"}
        grad_x = grad_g = None
        if self.needs_grad(0):
            grad_x = ConvInputGrad.apply(self.saved("grad"), grad,
                                         input_shape=self.input_shape(0), **p)
        if self.needs_grad(1):
            grad_g = Convolution.apply(self.saved("input"), grad, None, **p)
        return grad_x, grad_g

    def jvp(self, tangents, primals, result):
        x, g = primals  # bilinear in (input, grad)
        p = self._params
        return jvp_sum(tangents, lambda t: ConvWeightGrad.apply(t, g, **p),
                       lambda t: ConvWeightGrad.apply(x, t, **p))


@register
class ConvTranspose(Op):
    """conv_transpose1d/2d/3d: ``weight`` is (C_in, C_out/groups, *kernel)."""
    autocast = "lower_precision_fp"  # torch's CPU autocast list

    node = "ConvolutionBackward0"
    uint_kernel = staticmethod(_uint.conv_transpose_kernel)
    vmap = batch.fold("spatial")
    inputs = ("input", "weight", "bias")
    saves = {"input": ("input", "weight", "bias"), "weight": ("input", "weight", "bias")}
    torch_names = ("nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d")
    saved_computed = {"transposed": lambda node: True, "output_padding": _saved_output_padding,
                      "bias_sym_sizes_opt": _saved_bias_sizes}
    saved_param_view = staticmethod(_saved_param_view)

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, dilation, groups, spatial, output_shape):
        if spatial == 1:  # conv_transpose1d (nn/_functional_layers.py): height 1, as conv1d
            output_shape = (*output_shape[:2], 1, output_shape[2])
        out = conv_input_grad(_as_2d(x, spatial), _as_2d(w, spatial), output_shape, stride,
                              padding, dilation, groups)
        if b is not None:
            out = out + b.reshape((1, -1) + (1,) * (out.ndim - 2))
        return _layout.suggested(_from_2d(out, spatial), x, fresh=True)

    def backward(self, grad):
        p = {k: v for k, v in self._params.items() if k != "output_shape"}
        if _records_double_backward():
            return _double_backward_node(self, grad, p, True)
        grad_x = grad_w = grad_b = None
        if self.needs_grad(0):
            grad_x = Convolution.apply(grad, self.saved("weight"), None, **p)
            shape = self.input_shape(0)
            if tuple(grad_x.shape) != tuple(shape):
                # output_padding at stride 1 (a dilation above it): windows past the input's
                # end, which no input position fed
                for dim in range(2, len(shape)):
                    grad_x = grad_x.narrow(dim, 0, shape[dim])
        if self.needs_grad(1):
            grad_w = ConvWeightGrad.apply(grad, self.saved("input"),
                                          weight_shape=self.input_shape(1), **p)
        if self.needs_grad(2):
            grad_b = _bias_grad(grad, p)
        return grad_x, grad_w, grad_b

    def jvp(self, tangents, primals, result):
        x, w, _ = primals  # bilinear in (input, weight), plus the bias tangent
        p = self._params
        bias_shape = (1, -1) + (1,) * p["spatial"]
        return jvp_sum(tangents, lambda t: ConvTranspose.apply(t, w, None, **p),
                       lambda t: ConvTranspose.apply(x, t, None, **p),
                       lambda t: t.reshape(bias_shape))


def _records_double_backward() -> bool:
    """Whether a backward is being recorded by create_graph alone (no vmap, forward-AD level
    or leafgrad.compile capture, which see the convolution's three separate ops)."""
    return _grad_state.grad_enabled and not (_dual_state.active or _vmap_state.active
                                             or _capture.active)


def _double_backward_node(node: Op, grad, p: dict, transposed: bool) -> tuple:
    """A convolution's gradients as torch records them under create_graph: the three outputs
    of one ConvolutionBackwardBackward0 node with edges (grad_output, input, weight)."""
    mask = (node.needs_grad(0), node.needs_grad(1), node.needs_grad(2))
    outputs = ConvolutionBackward.apply(grad, node.saved("input"), node.saved("weight"),
                                        output_mask=mask, transposed=transposed, **p)
    return tuple(out if needed else None for out, needed in zip(outputs, mask))


@register
class ConvolutionBackward(Op):
    """torch's convolution_backward(grad_output, input, weight) -> (grad_input, grad_weight,
    grad_bias) as one node (recorded by a create_graph backward, see Convolution.backward).
    Its own backward is torch's _convolution_double_backward: each output is bilinear in
    grad_output and one of input/weight, so each gradient is one of the three convolution
    ops. An output outside ``output_mask`` is an empty placeholder that is never used."""

    node = "ConvolutionBackwardBackward0"
    multi_output = True
    inputs = ("grad_output", "input", "weight")
    saves = {"grad_output": ("input", "weight"), "input": ("grad_output",),
             "weight": ("grad_output",)}
    torch_names = ()
    saved_computed = {"output_padding": _saved_output_padding}
    saved_param_view = staticmethod(_saved_param_view)

    @staticmethod
    def forward(ctx, g, x, w, output_mask, transposed, stride, padding, dilation, groups,
                spatial):
        p = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups,
             "spatial": spatial}
        empty = np.zeros(0, dtype=g.dtype)
        grad_x = grad_w = grad_b = empty
        if x.shape[1] == 0 and not transposed:  # Note: convolutions of no input channels
            return (np.zeros(x.shape, g.dtype) if output_mask[0] else empty,
                    np.zeros(w.shape, g.dtype) if output_mask[1] else empty,
                    np.zeros(w.shape[:1], g.dtype) if output_mask[2] else empty)
        if output_mask[0]:
            grad_x = Convolution.forward(None, g, w, None, **p) if transposed else \
                ConvInputGrad.forward(None, g, w, input_shape=x.shape, **p)
        if output_mask[1]:
            grad_w = ConvWeightGrad.forward(None, g, x, weight_shape=w.shape, **p) \
                if transposed else ConvWeightGrad.forward(None, x, g, weight_shape=w.shape, **p)
        if output_mask[2]:
            grad_b = _wrap(g).sum((0,) + tuple(range(2, 2 + spatial)))._data
        return grad_x, grad_w, grad_b

    def jvp(self, tangents, primals, result):
        params = dict(self._params)
        mask, transposed = params.pop("output_mask"), params.pop("transposed")

        def formula(g, x, w):  # the three outputs as the convolution ops compute them
            grad_x = grad_w = grad_b = None
            if mask[0]:
                grad_x = Convolution.apply(g, w, None, **params) if transposed else \
                    ConvInputGrad.apply(g, w, input_shape=tuple(x.shape), **params)
            if mask[1]:
                grad_w = ConvWeightGrad.apply(g, x, weight_shape=tuple(w.shape), **params) \
                    if transposed else ConvWeightGrad.apply(x, g, weight_shape=tuple(w.shape),
                                                            **params)
            if mask[2]:
                grad_b = g.sum((0,) + tuple(range(2, 2 + params["spatial"])))
            return grad_x, grad_w, grad_b

        return formula_jvp(formula, primals, tangents)

    def backward(self, grads):
        grad_grad_x, grad_grad_w, grad_grad_b = (*grads, None, None)[:3]  # unused: absent
        p = {k: v for k, v in self._params.items() if k not in ("output_mask", "transposed")}
        if not np.prod(self.input_shape(1)):
            # torch's _convolution_double_backward with an empty input computes only the bias
            # term, ggb viewed as (1, C, 1...) and expanded to grad_output's sizes: a grad_output
            # of no channels (an input of none) refuses that expand
            if grad_grad_b is None:
                return None, None, None
            bias_shape = (1, -1) + (1,) * p["spatial"]
            grad_g = grad_grad_b.contiguous().view(bias_shape).expand(self.input_shape(0))
            return grad_g if self.needs_grad(0) else None, None, None
        transposed = self._params["transposed"]
        grad_g = grad_x = grad_w = None
        if self.needs_grad(0):
            g_shape = self.input_shape(0)
            # summed in the order the engine added the three separate ops' contributions
            # (bias, weight, input) before this node existed: the same bits as leafgrad.compile,
            # which still records those ops
            terms = []
            if grad_grad_b is not None:
                bias_shape = (1, -1) + (1,) * p["spatial"]
                terms.append(grad_grad_b.reshape(bias_shape).expand(g_shape))
            if grad_grad_w is not None:
                x = self.saved("input")
                terms.append(ConvInputGrad.apply(x, grad_grad_w, input_shape=g_shape, **p)
                             if transposed else Convolution.apply(x, grad_grad_w, None, **p))
            if grad_grad_x is not None:
                w = self.saved("weight")
                terms.append(ConvInputGrad.apply(grad_grad_x, w, input_shape=g_shape, **p)
                             if transposed else Convolution.apply(grad_grad_x, w, None, **p))
            for term in terms:
                grad_g = term if grad_g is None else grad_g + term
        if self.needs_grad(1) and grad_grad_w is not None:
            g = self.saved("grad_output")
            grad_x = Convolution.apply(g, grad_grad_w, None, **p) if transposed else \
                ConvInputGrad.apply(g, grad_grad_w, input_shape=self.input_shape(1), **p)
        if self.needs_grad(2) and grad_grad_x is not None:
            g = self.saved("grad_output")
            grad_w = ConvWeightGrad.apply(g, grad_grad_x, weight_shape=self.input_shape(2), **p) \
                if transposed else ConvWeightGrad.apply(grad_grad_x, g,
                                                        weight_shape=self.input_shape(2), **p)
        return grad_g, grad_x, grad_w


# c10's TypeMeta names (torch's message for a bias of another dtype)
_CPP_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
             "bool": "bool", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}


def _type_text(t) -> str:
    """A tensor's toString as torch's messages print it."""
    legacy = t.dtype._legacy
    if t.dtype.is_complex or legacy in ("BFloat16", "Bool"):
        return f"CPU{legacy}Type"
    return f"torch.{legacy}Tensor"


def check_bias_dtype(x, bias) -> None:
    """torch's first check in _convolution: a real bias of the input's dtype."""
    if bias is not None and bias.dtype is not x.dtype and not (
            x.dtype.is_complex or bias.dtype.is_complex):
        raise RuntimeError(f"Input type ({_CPP_TYPE.get(x.dtype.name, x.dtype.name)}) and bias "
                           f"type ({_CPP_TYPE.get(bias.dtype.name, bias.dtype.name)}) should be "
                           "the same")


def check_weight_dtype(x, weight, batched: bool, stride=(1,), dilation=(1,), groups=1) -> None:
    """A real weight of another dtype than a real input: the MKLDNN path's message where torch
    picks that path for the input (``_uses_mkldnn``), the kernel's otherwise. Bool and wide
    unsigned inputs reach the kernel's dtype dispatch first ("not implemented for")."""
    if weight.dtype is x.dtype or x.dtype.is_complex or weight.dtype.is_complex:
        return
    if x.dtype.name in ("bool", "uint16", "uint32", "uint64"):
        return
    if batched and x.dtype.name == "float32" and _uses_mkldnn(x, weight, stride, dilation,
                                                                groups):
        raise RuntimeError(f"Input type ({_type_text(x)}) and weight type ({_type_text(weight)}) "
                           "should be the same or input should be a MKLDNN tensor and weight is "
                           "a dense tensor")
    raise RuntimeError(f"expected scalar type {x.dtype._legacy} but found "
                       f"{weight.dtype._legacy}")


def _uses_mkldnn(x, weight, stride, dilation, groups) -> bool:
    """ATen's use_mkldnn for a batched float32 convolution (1-d as 2-d with a unit height):
    1x1 kernels only when strided, dilated, a batch of 16 or more, or several threads; then a
    grouped convolution, a kernel over 3x3, a batch over one or a large input."""
    kernel = tuple(weight.shape[2:])
    if len(kernel) == 1:
        kernel = (1,) + kernel
    shape = tuple(x.shape)
    if len(shape) == 3:
        shape = (shape[0], shape[1], 1, shape[2])
    if not (any(s != 1 for s in stride) or any(d != 1 for d in dilation) or shape[0] >= 16
            or kernel[-1] != 1 or kernel[-2] != 1 or get_num_threads() > 1):
        return False
    return (groups > 1 or (kernel[-1] > 3 and kernel[-2] > 3) or shape[0] > 1
            or shape[0] * shape[1] * shape[2] * shape[3] > 20480)


def _check_conv(x, w, groups, spatial, name, transposed=False, bias=None):
    dims = spatial + 2
    if w.ndim != dims:
        raise RuntimeError(
            f"weight should have at least three dimensions" if w.ndim < 3 else
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight "
            f"{list(w.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} "
            "instead"
        )
    if x.ndim != dims:
        raise RuntimeError(
            f"Expected {dims - 1}D (unbatched) or {dims}D (batched) input to {name}, but got "
            f"input of size: {list(x.shape)}"
        )
    if w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(w.shape)} instead")
    if w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(w.shape)}] instead")
    channels = w.shape[0] if transposed else w.shape[1] * groups
    if x.shape[1] != channels:
        if transposed:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(w.shape)}, expected input"
                f"{list(x.shape)} to have {w.shape[0]} channels, but got {x.shape[1]} channels "
                "instead"
            )
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(w.shape)}, expected input"
            f"{list(x.shape)} to have {channels} channels, but got {x.shape[1]} channels "
            "instead"
        )
    if bias is not None:
        elements = w.shape[1] * groups if transposed else w.shape[0]
        if bias.ndim != 1 or bias.shape[0] != elements:
            lead = "Given transposed=1, weight" if transposed else "Given weight"
            raise RuntimeError(f"{lead} of size {list(w.shape)}, expected bias to be "
                               f"1-dimensional with {elements} elements, but got bias of size "
                               f"{list(bias.shape)} instead")


def _expand(value, name: str, spatial: int) -> tuple:
    """An int or a list of ``spatial`` ints, as ATen's expand_param_if_needed."""
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return tuple(value) * spatial
        if len(value) != spatial:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {spatial} values to "
                f"match the convolution dimensions, but got {name}={list(value)}")
        return tuple(value)
    return (value,) * spatial


def _check_params(x, weight, name, spatial, stride, padding, groups, dilation=None,
                  output_padding=None) -> None:
    """ATen's checks before the shapes': the parameter lists against the weight's dims, the
    input's dims, then groups, padding and stride."""
    dims = weight.ndim - 2
    if weight.ndim >= 3 and dims != spatial:
        raise RuntimeError(
            f"expected stride to be a single integer value or a list of {dims} values to match "
            f"the convolution dimensions, but got stride={list(stride)}")
    if x.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, "
            f"but got input of size: {list(x.shape)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if output_padding is not None and any(o < 0 for o in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if dilation is not None and any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")


def _check_zero_dilation(dilation, unbatched: bool) -> None:
    """A zero dilation passes the shape checks; the kernel choice refuses it."""
    if any(d == 0 for d in dilation):
        if unbatched:  # (the unbatched wrapper's own check)
            raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
        raise RuntimeError("non-positive dilation is not supported")


def _check_bool(x, name: str) -> None:
    if x.dtype.name == "bool":
        raise NotImplementedError(f'"{name}" not implemented for \'Bool\'')


def _check_kernel(x, weight, padding, dilation) -> None:
    """ATen's last check: every dilated kernel extent fits the padded input."""
    spatial = x.shape[2:]
    padded = [s + 2 * p for s, p in zip(spatial, padding)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilation, weight.shape[2:])]
    if any(k > s for k, s in zip(kernel, padded)):
        sizes = " x ".join(str(s) for s in padded)
        kernels = " x ".join(str(k) for k in kernel)
        raise RuntimeError(
            f"Calculated padded input size per channel: ({sizes}). Kernel size: ({kernels}). "
            "Kernel size can't be greater than actual input size")


_WARNED_SAME = False  # torch warns once per process (TORCH_WARN_ONCE)


def convolution(x, weight, bias, stride, padding, dilation, groups, spatial, name):
    """Shared by conv1d/conv2d/conv3d: normalises arguments, accepts unbatched input."""
    stride = _expand(stride, "stride", spatial)
    dilation = _expand(dilation, "dilation", spatial)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(
                f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
    else:
        padding = _expand(padding, "padding", spatial)
    _check_params(x, weight, name, spatial, stride, padding, groups, dilation)
    check_bias_dtype(x, bias)
    unbatched = x.ndim == spatial + 1
    if unbatched:
        x = x.unsqueeze(0)
    _check_conv(x, weight, groups, spatial, name, bias=bias)
    _check_zero_dilation(dilation, unbatched)
    if padding == "valid":
        padding = (0,) * spatial
    elif padding == "same":
        total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
        padding = tuple(t // 2 for t in total)
        if any(t % 2 for t in total):  # ATen: zero-pad the right side by the odd one first
            import warnings

            global _WARNED_SAME
            if not _WARNED_SAME:
                _WARNED_SAME = True
                warnings.warn(  # (torch's TORCH_WARN_ONCE text, with its source line)
                    "Using padding='same' with even kernel lengths and odd dilation may require "
                    "a zero-padded copy of the input be created (Triggered internally at "
                    "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)",
                    UserWarning, stacklevel=3)
            from .norm import ConstantPadNd
            pad = []
            for t in reversed(total):
                pad += [0, t % 2]
            x = ConstantPadNd.apply(x, pad=tuple(pad), value=0)
    _check_kernel(x, weight, padding, dilation)  # (torch's shape checks, then its kernel's)
    check_weight_dtype(x, weight, not unbatched, stride, dilation, groups)
    _check_bool(x, "compute_columns3d" if spatial == 3 else "slow_conv2d_cpu")
    if spatial == 1:  # 1-d runs as 2-d with a height of 1
        stride, padding, dilation = (1,) + stride, (0,) + padding, (1,) + dilation
    params = dict(stride=tuple(stride), padding=tuple(padding), dilation=tuple(dilation),
                  groups=groups, spatial=spatial)
    if x._data.dtype.kind == "c" or weight._data.dtype.kind == "c":
        _check_complex_types(x, weight, bias)
        out = _complex_convolution(Convolution, x, weight, bias, params)
    else:
        check_real_with_complex_bias(x, bias, transposed=False)
        out = Convolution.apply(x, weight, bias, **params)
    if unbatched:
        out = out.squeeze(0)
    return out


def _check_complex_types(x, weight, bias=None) -> None:
    """torch's messages when a complex input, weight or bias meets another dtype."""
    def text(t):  # torch's toString of the tensor's type
        return f"CPU{t.dtype._legacy}Type" if t.dtype.is_complex else \
            f"torch.{t.dtype._legacy}Tensor"

    if x.dtype is not weight.dtype:
        if x.dtype.is_complex:
            raise RuntimeError(f"Input type ({text(x)}) and weight type ({text(weight)}) should "
                               "be the same")
        raise RuntimeError(f"expected scalar type {x.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")
    if bias is not None and bias.dtype is not x.dtype:
        raise RuntimeError(f"Input type ({text(x)}) and bias type ({text(bias)}) should be the "
                           "same")


def check_real_with_complex_bias(x, bias, transposed: bool, spatial: int = 2) -> None:
    """A complex bias for a real input and weight: torch's convolution refuses it by the C++
    types; conv_transpose1d/2d add it into their real result and refuse that cast, and
    conv_transpose3d's kernel checks the bias's scalar type."""
    if bias is None or bias._data.dtype.kind != "c":
        return
    if transposed and spatial == 3:
        raise RuntimeError(f"expected scalar type {x.dtype._legacy} but found "
                           f"{bias.dtype._legacy}")
    if transposed:
        raise RuntimeError(f"result type {bias.dtype._legacy} can't be cast to the desired "
                           f"output type {x.dtype._legacy}")
    from .linalg_ext import _c_name

    raise RuntimeError(f"Input type ({_c_name(x._data)}) and bias type ({_c_name(bias._data)}) "
                       "should be the same")


def _complex_convolution(op, x, weight, bias, params):
    """ATen's complex_convolution: three real convolutions (Gauss's trick; ``op`` is
    Convolution or ConvTranspose) on the real and imaginary parts, a = conv(xr, wr, br),
    b = conv(xi, wi), c = conv(xr + xi, wr + wi, br + bi), combined as a - b + i (c - a - b);
    the graph and gradients follow from those ops (view_as_real's backward carries torch's
    complex convention)."""
    def parts(t):
        pair = ViewAsReal.apply(t)
        return pair.select(-1, 0), pair.select(-1, 1)

    x_real, x_imag = parts(x)
    w_real, w_imag = parts(weight)
    if bias is None:
        a = op.apply(x_real, w_real, None, **params)
        b = op.apply(x_imag, w_imag, None, **params)
        c = op.apply(x_real + x_imag, w_real + w_imag, None, **params)
    else:
        b_real, b_imag = parts(bias)
        a = op.apply(x_real, w_real, b_real, **params)
        b = op.apply(x_imag, w_imag, None, **params)
        c = op.apply(x_real + x_imag, w_real + w_imag, b_real + b_imag, **params)
    return a - b + 1j * (c - a - b)


def conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                          "conv_transpose2d")


def conv_transpose3d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                          "conv_transpose3d")


def conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                   spatial, name):
    """conv_transpose2d/3d: the input gradient of the matching convolution, plus the bias."""
    check_int_lists(name, stride=stride, padding=padding, output_padding=output_padding,
                    dilation=dilation)
    stride, padding = _expand(stride, "stride", spatial), _expand(padding, "padding", spatial)
    output_padding = _expand(output_padding, "output_padding", spatial)
    dilation = _expand(dilation, "dilation", spatial)
    _check_params(x, weight, name, spatial, stride, padding, groups, dilation,
                  output_padding=output_padding)
    unbatched = x.ndim == spatial + 1
    if unbatched:
        x = x.unsqueeze(0)
    _check_conv(x, weight, groups, spatial, name, transposed=True, bias=bias)
    _check_bool(x, f"slow_conv_transpose{max(spatial, 2)}d_out_cpu")
    if weight.shape[1] == 0:
        _refuse_no_output_channels(x, weight, stride, dilation, groups, spatial)
    if any(d == 0 for d in dilation):
        _refuse_zero_dilation(x, weight, stride, dilation, groups, spatial)
    check_output_padding(output_padding, stride, dilation)
    sizes = tuple((n - 1) * s - 2 * p + d * (k - 1) + o + 1 for n, s, p, d, k, o in zip(
        x.shape[2:], stride, padding, dilation, weight.shape[2:], output_padding))
    out_shape = (x.shape[0], weight.shape[1] * groups) + sizes
    params = dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                  spatial=spatial, output_shape=out_shape)
    if x._data.dtype.kind == "c" or weight._data.dtype.kind == "c":
        _check_complex_types(x, weight, bias)
        out = _complex_convolution(ConvTranspose, x, weight, bias, params)
    else:
        check_real_with_complex_bias(x, bias, transposed=True, spatial=spatial)
        out = ConvTranspose.apply(x, weight, bias, **params)
    return out.squeeze(0) if unbatched else out


_ARGUMENT_POSITIONS = {"stride": 4, "padding": 5, "output_padding": 6, "dilation": 8}


def check_int_lists(name: str, **arguments) -> None:
    """conv_transpose's argument parser: stride, padding, output_padding and dilation are int
    lists (no padding strings; ConvTranspose modules pass 'same' as its characters). A string
    is reported as passed by keyword, a list's element as passed by position, as those two
    reach these functions from user code and from the modules."""
    for argument, value in arguments.items():
        if isinstance(value, str):
            raise TypeError(f"{name}(): argument '{argument}' must be tuple of ints, not str")
        if isinstance(value, (tuple, list)):
            for index, element in enumerate(value):
                if isinstance(element, bool) or not isinstance(element, (int, np.integer)):
                    raise TypeError(
                        f"{name}(): argument '{argument}' (position "
                        f"{_ARGUMENT_POSITIONS[argument]}) must be tuple of ints, but found "
                        f"element of type {type(element).__name__} at pos {index}")


def _refuse_zero_dilation(x, weight, stride, dilation, groups, spatial) -> None:
    """A transposed convolution with a zero dilation: oneDNN refuses it where torch's
    use_mkldnn picks oneDNN (1-d/2-d: unless every such dim's kernel is 1), the slow kernel's
    shape check otherwise (1-d in its 2-d terms)."""
    if x.dtype.name == "float32" and _uses_mkldnn(x, weight, stride, dilation, groups):
        if spatial == 3:
            raise RuntimeError("dimensions are invalid")
        if any(d == 0 and k > 1 for d, k in zip(dilation, weight.shape[2:])):
            raise RuntimeError("could not create a primitive descriptor for the deconvolution "
                               "forward propagation primitive. Run workload with environment "
                               "variable ONEDNN_VERBOSE=all to get additional diagnostic "
                               "information.")
        return
    names = ("depth", "height", "width") if spatial == 3 else ("height", "width")
    values = tuple(dilation) if spatial != 1 else (1,) + tuple(dilation)
    raise RuntimeError("dilation should be greater than zero, but got " + ", ".join(
        f"dilation_{kind}: {value}" for kind, value in zip(names, values)))


def _refuse_no_output_channels(x, weight, stride, dilation, groups, spatial) -> None:
    """A transposed convolution to 0 output channels (weight (C, 0, *kernel)): ATen's Empty
    backend for an empty batch (its ``weight_view[0]``), oneDNN's refusal where torch's
    use_mkldnn picks oneDNN, the slow kernel's weight check otherwise (1-d as 2-d)."""
    if x.shape[0] == 0:
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    if x.dtype.name == "float32" and _uses_mkldnn(x, weight, stride, dilation, groups):
        raise RuntimeError("could not create a primitive descriptor for the deconvolution "
                           "forward propagation primitive. Run workload with environment "
                           "variable ONEDNN_VERBOSE=all to get additional diagnostic "
                           "information.")
    shape = list(weight.shape)
    if spatial == 3:
        raise RuntimeError("non-empty 5D (n_output_plane x n_input_plane x kernel_depth x "
                           "kernel_height x kernel_width) tensor expected for weight, but got: "
                           f"{shape}")
    if spatial == 1:
        shape = shape[:2] + [1] + shape[2:]
    raise RuntimeError(f"non-empty 2D or 4D weight tensor expected, but got: {shape}")


def check_output_padding(output_padding, stride, dilation) -> None:
    """ATen's check (in its 2-d terms for 1-d and 2-d, 3-d terms for 3-d): each output padding
    below its stride or its dilation."""
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        names = ("depth", "height", "width") if len(stride) == 3 else ("height", "width")
        parts = [f"{kind}_{name}: {value}"
                 for kind, values in (("output_padding", output_padding), ("stride", stride),
                                      ("dilation", dilation))
                 for name, value in zip(names, values)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(parts))


def _ntuple(value, count: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * count


def _first(value):
    return value[0] if isinstance(value, (tuple, list)) else value
