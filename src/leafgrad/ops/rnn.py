"""A whole LSTM layer as one op (nn.LSTM's hot loop), and the one-step cell.

Written as ~13 small ops a step, an LSTM layer spends its time in per-op bookkeeping; as one op
it does one matrix product and a few in-place NumPy passes a step forward, and one pass back.
torch's CPU nn.LSTM is one oneDNN node too where it takes oneDNN (float32: ATen's use_mkldnn),
MkldnnRnnLayerBackward0 with edges (input, w_ih, w_hh, b_ih, b_hh, hx, cx): this op has that
name and those inputs (the input projection is inside it). float64 and complex layers run
torch's composition instead (its _lstm_impl: one projection, then a cell a step and a stack).
The one-step cell (torch.lstm_cell, nn.LSTMCell) is torch's composition of ops, as torch's
CPU cell is.

Note: two backwards. When no graph is being recorded (an ordinary ``backward()``), the
gradients are computed on arrays from the gates kept by the forward. Under ``create_graph``
(or inside a forward-AD level) the step is recomputed from its saved inputs with
differentiable Tensor ops and differentiated with ``autograd.grad``, so derivatives of every
order stay exact. The forward-mode formulas run the same Tensor-op reference in forward mode.
Complex inputs always take the Tensor-op path: its ops carry torch's conjugate convention,
which the real array kernels do not.
"""

from __future__ import annotations

import numpy as np

from ._forward import jvp_by_decomposition
from .registry import Op, array_kernel, plain_backward, register
from ..autograd import _grad as autograd_grad
from ..autograd.grad_mode import enable_grad, is_grad_enabled

_ALL = ("input", "weight_ih", "weight_hh", "bias_ih", "bias_hh", "hx", "cx")


def lstm_step_reference(projected, h, c, weight_hh, bias_hh):
    """The step with differentiable Tensor ops (used under create_graph)."""
    from ..nn import functional as F

    gates = projected + F.linear(h, weight_hh, bias_hh)
    size = weight_hh.shape[0] // 4
    ifo = gates.sigmoid()
    i, f, o = ifo[..., :size], ifo[..., size:2 * size], ifo[..., 3 * size:]
    g = gates[..., 2 * size:3 * size].tanh()
    c_next = f * c + i * g
    return o * c_next.tanh(), c_next


def _spread(found: tuple, needs: tuple) -> tuple:
    """The gradients a kernel returned for the needed inputs, as Tensors in input order."""
    from ..tensor import _wrap

    found = iter(found)
    return tuple(_wrap(next(found)) if need else None for need in needs)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.lstm_cell: one LSTM step, ``(h', c')``."""
    from ..nn import functional as F

    h, c = hx
    return lstm_update(F.linear(input, w_ih, b_ih), h, c, w_hh, b_hh)


def lstm_update(projected, h, c, w_hh, b_hh):
    """One LSTM step from the input's projection, with the ops torch's CPU LSTMCell runs
    (RNN.cpp): ``gates = linear(h, w_hh, b_hh) + projected``, unsafe_chunk into (i, f, g, o),
    ``c' = sigmoid(f) * c + sigmoid(i) * tanh(g)``, ``h' = sigmoid(o) * tanh(c')``: torch's
    values and nodes (h' a MulBackward0, c' an AddBackward0). A fused step op (LSTMStep,
    removed) had torch's values only up to rounding and a node name torch never shows."""
    from ..nn import functional as F

    gates = F.linear(h, w_hh, b_hh) + projected
    ingate, forgetgate, cellgate, outgate = gates.unsafe_chunk(4, gates.dim() - 1)
    ingate, forgetgate = ingate.sigmoid(), forgetgate.sigmoid()
    cellgate, outgate = cellgate.tanh(), outgate.sigmoid()
    c_next = forgetgate * c + ingate * cellgate
    return outgate * c_next.tanh(), c_next


@register
class LSTMLayer(Op):
    """A whole LSTM layer in one direction: ``(output, h_n, c_n)`` from the input (L, N, H_in),
    the weights and the initial state, in torch's order (mkldnn_rnn_layer's).

    One node for the sequence instead of one per step: the backward is one reverse loop of
    array operations and a single matrix product for each weight's gradient
    (benchmarks/bench_train.py, lstm). See Note: two backwards."""

    node = "MkldnnRnnLayerBackward0"
    complex_ok = True  # its complex backward is the Tensor-op one (Note: two backwards)
    inputs = _ALL
    saves = {name: _ALL for name in _ALL} | {"arrays": _ALL}
    multi_output = True
    torch_names = ("nn.LSTM",)

    @staticmethod
    def forward(ctx, input, weight_ih, weight_hh, bias_ih, bias_hh, h, c, reverse=False):
        projected = np.matmul(input.reshape(-1, input.shape[-1]), weight_ih.T)
        projected = projected.reshape(input.shape[:-1] + projected.shape[-1:])
        if bias_ih is not None:
            projected += bias_ih
        # Note: negated gates. The loop works on -gates (negated weights and projections:
        # sign flips are exact in IEEE arithmetic), so the sigmoid 1 / (1 + exp(-x)) needs no
        # negation pass, and tanh (odd) gives -g. Per step that is 11 NumPy calls instead of 16
        # (benchmarks/bench_train.py, lstm).
        steps = projected.shape[0]
        size = weight_hh.shape[0] // 4
        dtype = h.dtype
        state_shape = projected.shape[1:-1] + (size,)
        negated = np.negative(projected)  # all gates of all steps, negated
        if bias_hh is not None:
            negated -= bias_hh
        # a contiguous copy of -W^T: BLAS multiplies it faster than the transposed view
        w_t = np.ascontiguousarray(np.negative(weight_hh).T)
        # the states with the initial one: step t reads hs[t] and writes hs[t + 1] (in
        # reverse: reads hs[t + 1], writes hs[t]); so the backward finds every step's input
        hs = np.empty((steps + 1,) + state_shape, dtype=dtype)
        cs = np.empty_like(hs)
        first = steps if reverse else 0
        hs[first] = h
        cs[first] = c
        neg_g_all = np.empty((steps,) + state_shape, dtype=dtype)  # -g = tanh(-x)
        tanh_all = np.empty_like(neg_g_all)
        scratch = np.empty(projected.shape[1:], dtype=dtype)
        small = np.empty(state_shape, dtype=dtype)
        order = range(steps - 1, -1, -1) if reverse else range(steps)
        shift = 0 if reverse else 1
        h, c = hs[first], cs[first]
        with np.errstate(over="ignore"):  # exp(-x) = inf is sigmoid(x) = 0, as wanted
            for t in order:
                gates = negated[t]
                np.matmul(h, w_t, out=scratch)
                gates += scratch
                neg_g = neg_g_all[t]
                np.tanh(gates[..., 2 * size:3 * size], out=neg_g)
                np.exp(gates, out=gates)  # the g quarter is computed and not used
                gates += 1
                np.reciprocal(gates, out=gates)  # sigmoid of i, f, o
                i, f, o = gates[..., :size], gates[..., size:2 * size], gates[..., 3 * size:]
                c_next = cs[t + shift]
                np.multiply(f, c, out=c_next)
                np.multiply(i, neg_g, out=small)
                c_next -= small
                c = c_next
                tanh_c = tanh_all[t]
                np.tanh(c, out=tanh_c)
                h = hs[t + shift]
                np.multiply(o, tanh_c, out=h)
        if ctx is not None:
            ctx.keep("arrays", (negated, neg_g_all, hs, cs, tanh_all))
        outputs = hs[:steps] if reverse else hs[1:]
        # copies: what is kept for the backward is not the caller's to modify
        return outputs.copy(), h.copy(), c.copy()

    def backward(self, grads):
        grads = list(grads) + [None] * (3 - len(grads))
        if not plain_backward() or self.saved("hx")._data.dtype.kind == "c":
            return self._backward_recorded(grads)
        needs = tuple(self.needs_grad(k) for k in range(7))
        grad_out, grad_h, grad_c = (None if g is None else g._data for g in grads)
        found = array_kernel(_lstm_layer_grads, grad_out, grad_h, grad_c, *self.saved("arrays"),
                             self.saved("input")._data, self.saved("weight_ih")._data,
                             self.saved("weight_hh")._data, needs=needs,
                             reverse=self._params.get("reverse", False))
        return _spread(found, needs)

    def jvp(self, tangents, primals, result):
        # torch decomposes the layer into per-step ops on the CPU; so does this formula
        reverse = self._params.get("reverse", False)
        return jvp_by_decomposition(
            lambda *inputs: lstm_layer_reference(*inputs, reverse=reverse), primals, tangents)

    def _backward_recorded(self, grads):
        recording = is_grad_enabled()
        inputs = [self.saved(name) for name in _ALL]
        with enable_grad():  # also when a dual level, not create_graph, brought us here
            recomputed = lstm_layer_reference(*inputs,
                                              reverse=self._params.get("reverse", False))
        wanted = [k for k in range(7) if self.needs_grad(k)]
        pairs = [(out, g) for out, g in zip(recomputed, grads) if g is not None]
        found = autograd_grad([out for out, _ in pairs], [inputs[k] for k in wanted],
                              [g for _, g in pairs], create_graph=recording,
                              allow_unused=True)
        results = [None] * 7
        for k, value in zip(wanted, found):
            results[k] = value
        return tuple(results)


def _lstm_layer_grads(grad_out, grad_h, grad_c, sig_all, neg_g_all, hs, cs, tanh_all, input,
                      weight_ih, weight, needs, reverse):
    """LSTMLayer's gradients on arrays (Note: two backwards), for the inputs ``needs`` marks;
    one leafgrad.compile kernel (registry.array_kernel)."""
    size = weight.shape[0] // 4
    steps = sig_all.shape[0]
    dtype = hs.dtype
    # each step's input state
    h_prev_all, c_prev_all = (hs[1:], cs[1:]) if reverse else (hs[:-1], cs[:-1])
    # Everything but dh and dc, for all steps at once:
    #   d_i = dc * g i (1-i)   d_f = dc * c_prev f (1-f)   d_g = dc * i (1-g^2)
    #   d_o = dh * tanh_c o (1-o)   and dc gains dh * o (1 - tanh_c^2)
    dgates = np.subtract(1, sig_all)
    dgates *= sig_all
    i = sig_all[..., :size]
    o = sig_all[..., 3 * size:]
    dgates[..., :size] *= neg_g_all
    np.negative(dgates[..., :size], out=dgates[..., :size])
    dgates[..., size:2 * size] *= c_prev_all
    d_g = dgates[..., 2 * size:3 * size]
    np.multiply(neg_g_all, neg_g_all, out=d_g)
    np.subtract(1, d_g, out=d_g)
    d_g *= i
    dgates[..., 3 * size:] *= tanh_all
    through_tanh = np.multiply(tanh_all, tanh_all)
    np.subtract(1, through_tanh, out=through_tanh)
    through_tanh *= o
    dh = np.zeros(hs.shape[1:], dtype=dtype) if grad_h is None else grad_h.astype(dtype)
    dc = np.zeros_like(dh) if grad_c is None else grad_c.astype(dtype)
    small = np.empty_like(dh)
    order = range(steps) if reverse else range(steps - 1, -1, -1)
    for t in order:
        if grad_out is not None:
            dh += grad_out[t]
        np.multiply(dh, through_tanh[t], out=small)
        dc += small
        out = dgates[t]
        ifg = out.reshape(out.shape[:-1] + (4, size))[..., :3, :]  # a view: out is whole
        np.multiply(ifg, dc[..., None, :], out=ifg)
        out[..., 3 * size:] *= dh
        dh = out @ weight
        dc *= sig_all[t, ..., size:2 * size]
    results = []
    flat = dgates.reshape(-1, dgates.shape[-1])
    if needs[0]:
        results.append(dgates @ weight_ih)
    if needs[1]:
        results.append(flat.T @ input.reshape(-1, input.shape[-1]))
    if needs[2]:
        results.append(flat.T @ h_prev_all.reshape(-1, size))
    if needs[3] or needs[4]:
        bias_grad = flat.sum(0)
        if needs[3]:
            results.append(bias_grad)
        if needs[4]:  # (its own array: the two .grad tensors must not share memory)
            results.append(bias_grad.copy() if needs[3] else bias_grad)
    if needs[5]:
        results.append(dh)
    if needs[6]:
        results.append(dc)
    return tuple(results)


def lstm_layer_reference(input, weight_ih, weight_hh, bias_ih, bias_hh, h, c, reverse=False):
    """The layer with differentiable Tensor ops, step by step: ``(output, h_n, c_n)``."""
    from ..nn import functional as F
    from . import Stack

    projected = F.linear(input, weight_ih, bias_ih)
    steps = projected.shape[0]
    outputs = [None] * steps
    per_step = projected.unbind(0)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        h, c = lstm_step_reference(per_step[t], h, c, weight_hh, bias_hh)
        outputs[t] = h
    return Stack.apply(*outputs, dim=0), h, c


def lstm(input, hx, params, has_biases: bool, num_layers: int, dropout: float, train: bool,
         bidirectional: bool, batch_first: bool):
    """torch.lstm: a multi-layer (bi)directional LSTM over ``params`` given per layer and
    direction as [w_ih, w_hh(, b_ih, b_hh)]; returns ``(output, h_n, c_n)``."""
    from ..nn import functional as F
    from . import Cat, Stack

    per_direction = 4 if has_biases else 2
    directions = 2 if bidirectional else 1
    h0, c0 = hx
    layer_input = input.transpose(0, 1) if batch_first else input
    if not layer_input.size(0):
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    # torch's oneDNN layer (one node) for these dtypes, else its cells step by step
    fused = input.numel() != 0 and input.dtype.name in ("float32", "bfloat16", "float16")
    if not fused:
        h0, c0 = h0.unbind(0), c0.unbind(0)
    hs, cs = [], []
    for layer in range(num_layers):
        outputs = []
        if fused:  # (oneDNN's layer takes a contiguous input)
            layer_input = layer_input.contiguous()
        for direction in range(directions):
            index = layer * directions + direction
            weights = params[index * per_direction:(index + 1) * per_direction]
            w_ih, w_hh = weights[0], weights[1]
            b_ih, b_hh = (weights[2], weights[3]) if has_biases else (None, None)
            if fused:
                output, h_n, c_n = LSTMLayer.apply(layer_input, w_ih, w_hh, b_ih, b_hh,
                                                   h0[index], c0[index], reverse=direction == 1)
            else:
                output, h_n, c_n = _lstm_layer_cells(layer_input, w_ih, w_hh, b_ih, b_hh,
                                                     h0[index], c0[index], direction == 1)
            outputs.append(output)
            hs.append(h_n)
            cs.append(c_n)
        layer_input = outputs[0] if directions == 1 else Cat.apply_list(outputs, 2)
        if dropout and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    return output, Stack.apply(*hs, dim=0), Stack.apply(*cs, dim=0)


def _lstm_layer_cells(input, w_ih, w_hh, b_ih, b_hh, h, c, reverse):
    """One layer as torch's _lstm_impl runs it off oneDNN: the whole input projected once,
    unbound into steps, a cell per step (lstm_update), the hidden states stacked."""
    from ..nn import functional as F
    from . import Stack

    per_step = F.linear(input, w_ih, b_ih).unbind(0)
    steps = len(per_step)
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        h, c = lstm_update(per_step[t], h, c, w_hh, b_hh)
        outputs[t] = h
    return Stack.apply(*outputs, dim=0), h, c


def _pack_steps(a, lengths, batch_first):
    """torch's _pack_padded_sequence kernel: for each new length (shortest sequence first),
    the block of steps not taken yet, of the sequences that long; slices clamp at the end of
    the input, so lengths past it pack fewer rows than batch_sizes counts, as torch's do."""
    steps = a.swapaxes(0, 1) if batch_first else a
    batch, previous, blocks = len(lengths), 0, []
    for i in range(batch):
        length = lengths[batch - 1 - i]
        if length > previous:
            blocks.append(steps[previous:length, :batch - i].reshape((-1,) + a.shape[2:]))
            previous = length
    return np.ascontiguousarray(np.concatenate(blocks))  # (NumPy's follows the blocks')


def _unpack_steps(grad, shape, batch_sizes):
    """torch's _pack_padded_sequence_backward on arrays: each step's rows back in place."""
    out = np.zeros(shape, dtype=grad.dtype)
    offset = 0
    for step, size in enumerate(batch_sizes):
        out[step, :size] = grad[offset:offset + size]
        offset += size
    return out


@register
class PackPaddedSequence(Op):
    """The data of ``nn.utils.rnn.pack_padded_sequence``: the steps of a padded (L, N, *) batch
    ((N, L, *) with ``batch_first``) whose sequences have ``lengths`` (decreasing), one step
    after another; ``batch_sizes`` counts each step's sequences."""

    node = "PackPaddedSequenceBackward0"
    complex_ok = True
    complex_autograd = False  # ("_pack_padded_sequence does not support automatic ...")
    uint_ok = True  # a copy: torch packs uint16/32/64 too
    torch_names = ("_pack_padded_sequence", "nn.utils.rnn.pack_padded_sequence")

    @staticmethod
    def forward(ctx, a, lengths, batch_sizes, batch_first):
        return _pack_steps(a, lengths, batch_first)

    def backward(self, grad):
        p = self._params
        shape = list(self.input_shape(0))
        if p["batch_first"]:
            shape[0], shape[1] = shape[1], shape[0]
        if len(p["batch_sizes"]) > shape[0]:  # lengths past the input: grad_input[i] fails
            raise IndexError(f"select(): index {shape[0]} out of range for tensor of size "
                             f"{shape} at dimension 0")
        if plain_backward():
            from ..tensor import _wrap

            out = _wrap(array_kernel(_unpack_steps, grad._data, shape=tuple(shape),
                                     batch_sizes=p["batch_sizes"]))
        else:  # torch's composite: zeros, then each step's rows copied in
            out = grad.new_zeros(shape)
            offset = 0
            for step, size in enumerate(p["batch_sizes"]):
                out[step, :size] = grad[offset:offset + size]
                offset += size
        return out.transpose(0, 1) if p["batch_first"] else out

    def jvp(self, tangents, primals, result):
        # (torch 2.13 has no forward-mode formula for _pack_padded_sequence: linear, so the
        # tangent packs as the primal does)
        p = self._params
        return PackPaddedSequence.apply(tangents[0], lengths=p["lengths"],
                                        batch_sizes=p["batch_sizes"],
                                        batch_first=p["batch_first"])
