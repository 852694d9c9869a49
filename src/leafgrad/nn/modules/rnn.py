"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step cells, with torch's
parameter names, order, initialisation, shapes and errors.

A layer is computed as torch defines it, from differentiable ops (so every order of derivative
works): the input projections of all time steps are one matrix product, then each step adds
the hidden projection and applies the gate nonlinearities. Gate order is torch's: LSTM
(input, forget, cell, output), GRU (reset, update, new).
"""

from __future__ import annotations

import math
import numbers

from ... import ops as _ops
from ..._creation import empty, zeros
from ...amp._state import state as _autocast_state
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """Shared by RNN, LSTM and GRU: parameters per layer and direction, checks, the loop."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            import warnings

            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                real_hidden = proj_size if proj_size > 0 else hidden_size
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """A no-op: leafgrad keeps no fused weight buffer."""

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    def extra_repr(self) -> str:
        text = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            text += ", proj_size={proj_size}"
        if self.num_layers != 1:
            text += ", num_layers={num_layers}"
        if self.bias is not True:
            text += ", bias={bias}"
        if self.batch_first is not False:
            text += ", batch_first={batch_first}"
        if self.dropout != 0:
            text += ", dropout={dropout}"
        if self.bidirectional is not False:
            text += ", bidirectional={bidirectional}"
        return text.format(**self.__dict__)

    # -- checks (torch's messages) ---------------------------------------------------------
    def _check_input(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                + ("tensor instead" if self.mode.startswith("RNN") else "instead")  # (as torch)
            )
        weight_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if input.dtype != weight_dtype and not any(_autocast_state.enabled.values()):
            theirs, ours = str(input.dtype), str(weight_dtype)
            raise ValueError(
                f"RNN input dtype ({theirs}) does not match weight dtype ({ours}). Convert "
                f"input: input.to({ours}), or convert model: model.to({theirs})"
                .replace("leafgrad.", "torch."))
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.size(-1)}"
            )

    def _check_hidden(self, hx: Tensor, expected: tuple, message: str) -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(message.format(tuple(expected), list(hx.shape)))

    def _state_shape(self, batch: int, size: int) -> tuple:
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    # -- the recurrence --------------------------------------------------------------------------
    def _step(self, projected: Tensor, state, weights: dict):
        raise NotImplementedError

    def _run(self, input: Tensor, states: list, lengths: list | None = None) -> tuple:
        """``input`` (L, N, H_in); ``states`` per (layer, direction); returns (output, finals).

        ``lengths`` (sorted, longest first) comes with packed input: a row's state stops
        changing after its last step (and, in reverse, starts at it)."""
        from ... import cat, stack, tensor, where

        directions = 2 if self.bidirectional else 1
        layer_input = input
        finals = []
        steps = input.size(0)
        if not steps:  # (ATen's RNN kernels; the module's checks came first)
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        fused = self._fused(input, lengths)
        for layer in range(self.num_layers):
            outputs = []
            if fused:  # torch's oneDNN path takes a contiguous input (a CloneBackward0 after
                layer_input = layer_input.contiguous()  # batch_first's transpose)
            for direction in range(directions):
                names = self._all_weights[layer * directions + direction]
                weights = {name.split("_l")[0]: getattr(self, name) for name in names}
                state = states[layer * directions + direction]
                if fused:  # the whole sequence as one op (ops/rnn.py, LSTMLayer)
                    output, h_n, c_n = _ops.LSTMLayer.apply(
                        layer_input, weights["weight_ih"], weights["weight_hh"],
                        weights.get("bias_ih"), weights.get("bias_hh"), state[0], state[1],
                        reverse=direction == 1)
                    outputs.append(output)
                    finals.append((h_n, c_n))
                    continue
                projected = F.linear(layer_input, weights["weight_ih"], weights.get("bias_ih"))
                # one unbind, not a select per step: each select's backward would fill a
                # zero gradient of the whole sequence
                per_step = projected.unbind(0)
                order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
                hiddens = [None] * steps
                for t in order:
                    new_state, hidden = self._step(per_step[t], state, weights)
                    if lengths is not None:
                        active = tensor([[n > t] for n in lengths])
                        if isinstance(new_state, tuple):
                            new_state = tuple(where(active, a, b)
                                              for a, b in zip(new_state, state))
                        else:
                            new_state = where(active, new_state, state)
                    state = new_state
                    hiddens[t] = hidden
                outputs.append(stack(hiddens))
                finals.append(state)
            layer_output = outputs[0] if directions == 1 else cat(outputs, dim=2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                if lengths is None:
                    layer_output = F.dropout(layer_output, self.dropout, True)
                else:  # torch drops out a packed layer's packed data: its mask's draws
                    sizes = [sum(1 for n in lengths if n > t) for t in range(steps)]
                    layer_output = _pad(F.dropout(_pack(layer_output, sizes), self.dropout,
                                                  True), sizes)
            layer_input = layer_output
        return layer_input, finals

    def _fused(self, input: Tensor, lengths) -> bool:
        """Whether an LSTM runs each layer as one node, as torch's oneDNN path (ATen's
        use_mkldnn: a float32 input, bfloat16 and float16 here too, with elements; no
        projections, no packed sequence); float64 and complex run torch's per-step cells."""
        return (self.mode == "LSTM" and self.proj_size == 0 and lengths is None
                and input.numel() != 0
                and input.dtype.name in ("float32", "bfloat16", "float16"))

    def _dispatch(self, input, hx):
        """Plain tensors go straight through; a PackedSequence runs padded, in its sorted
        order, with each row's state frozen past its length, and is packed again."""
        from ..utils.rnn import PackedSequence

        if not isinstance(input, PackedSequence):
            return self._forward_impl(input, hx)
        sizes = input.batch_sizes.tolist()
        padded = _pad(input.data, sizes)
        lengths = [sum(1 for size in sizes if size > row) for row in range(sizes[0])]

        def permute(state, order):
            if state is None or order is None:
                return state
            if isinstance(state, tuple):
                return tuple(s.index_select(1, order) for s in state)
            return state.index_select(1, order)

        output, final = self._forward_impl(padded, permute(hx, input.sorted_indices), lengths)
        packed = _pack(output, sizes)
        return (PackedSequence(packed, input.batch_sizes, input.sorted_indices,
                               input.unsorted_indices),
                permute(final, input.unsorted_indices))

    def _prepare(self, input: Tensor):
        self._check_input(input)
        batched = input.dim() == 3
        if not batched:  # as torch: a batch of one on the batch dim, batch_first or not
            input = input.unsqueeze(0 if self.batch_first else 1)
        if self.batch_first:
            input = input.transpose(0, 1)
        return input, batched

    def _finish(self, output: Tensor, batched: bool) -> Tensor:
        if self.batch_first:
            # ATen's RNN and GRU (ONE_HIDDEN_RNN) swap their result's dims in place
            # (TransposeBackward1), its LSTM returns a transposed view (TransposeBackward0)
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        if not batched:
            return output.squeeze(0 if self.batch_first else 1)
        return output


def _pad(data: Tensor, sizes: list) -> Tensor:
    """A packed sequence's data (its steps' rows one after another, ``sizes`` rows each) as
    a zero-padded (steps, batch, ...) tensor."""
    padded = zeros((len(sizes), sizes[0]) + tuple(data.shape[1:]), dtype=data.dtype)
    offset = 0
    for t, size in enumerate(sizes):
        padded[t, :size] = data[offset:offset + size]
        offset += size
    return padded


def _pack(padded: Tensor, sizes: list) -> Tensor:
    """The inverse of ``_pad``: each step's first ``sizes[t]`` rows, one after another."""
    from ... import cat

    return cat([padded[t, :size] for t, size in enumerate(sizes)])


def _split_state(hx: Tensor | None, count: int, shape: tuple, like: Tensor):
    if hx is None:
        return [zeros(shape[1:], dtype=like.dtype) for _ in range(count)]
    return list(hx.unbind(0))


class RNN(RNNBase):
    """Elman RNN: ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (or relu)."""

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, *args, **kwargs)

    def _step(self, projected, state, weights):
        # torch's SimpleCell: linear_hh(hidden) + input projection (that operand order)
        pre = F.linear(state, weights["weight_hh"], weights.get("bias_hh")) + projected
        hidden = pre.tanh() if self.mode == "RNN_TANH" else pre.relu()
        return hidden, hidden

    def forward(self, input: Tensor, hx: Tensor | None = None):
        return self._dispatch(input, hx)

    def _forward_impl(self, input: Tensor, hx, lengths=None):
        input, batched = self._prepare(input) if lengths is None else (input, True)
        batch = input.size(1)
        shape = self._state_shape(batch, self.hidden_size)
        if hx is not None:
            if not batched:
                if hx.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                        "tensor")
                hx = hx.unsqueeze(1)
            elif hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            self._check_hidden(hx, shape, "Expected hidden size {}, got {}")
        states = _split_state(hx, shape[0], shape, input)
        output, finals = self._run(input, states, lengths)
        from ... import stack

        h_n = stack(finals)
        if not batched:
            h_n = h_n.squeeze(1)
        if lengths is not None:
            return output, h_n
        return self._finish(output, batched), h_n


class LSTM(RNNBase):
    """Long short-term memory: gates (i, f, g, o); ``c' = f c + i g``, ``h' = o tanh(c')``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def _step(self, projected, state, weights):
        h, c = state
        h, c = _ops.lstm_update(projected, h, c, weights["weight_hh"], weights.get("bias_hh"))
        if "weight_hr" in weights:
            h = F.linear(h, weights["weight_hr"])
        return (h, c), h

    def forward(self, input: Tensor, hx=None):
        return self._dispatch(input, hx)

    def _forward_impl(self, input: Tensor, hx, lengths=None):
        from ... import stack

        input, batched = self._prepare(input) if lengths is None else (input, True)
        batch = input.size(1)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_shape = self._state_shape(batch, real_hidden)
        c_shape = self._state_shape(batch, self.hidden_size)
        if hx is not None:
            h0, c0 = hx[0], hx[1]  # (torch indexes: a 1-tuple is its IndexError)
            if not batched:
                if h0.dim() != 2 or c0.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                        f"({h0.dim()}-D, {c0.dim()}-D) tensors")
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
            elif h0.dim() != 3 or c0.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx and cx should also be 3-D but got "
                    f"({h0.dim()}-D, {c0.dim()}-D) tensors")
            self._check_hidden(h0, h_shape, "Expected hidden[0] size {}, got {}")
            self._check_hidden(c0, c_shape, "Expected hidden[1] size {}, got {}")
            if self._fused(input, lengths):  # torch's oneDNN path selects hx[index]
                states = [(h0[index], c0[index]) for index in range(h_shape[0])]
            else:
                states = list(zip(h0.unbind(0), c0.unbind(0)))
        else:
            states = [(zeros(h_shape[1:], dtype=input.dtype), zeros(c_shape[1:], dtype=input.dtype))
                      for _ in range(h_shape[0])]
        output, finals = self._run(input, states, lengths)
        h_n = stack([h for h, _ in finals])
        c_n = stack([c for _, c in finals])
        if not batched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        if lengths is not None:
            return output, (h_n, c_n)
        return self._finish(output, batched), (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit: ``n = tanh(x_n + r (W_hn h + b_hn))``, ``h' = n + z (h - n)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError(
                "proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def _step(self, projected, state, weights):
        from ..._functions_native import gru_update

        h = gru_update(projected, state, weights["weight_hh"], weights.get("bias_hh"))
        return h, h

    forward = RNN.forward
    _forward_impl = RNN._forward_impl


class RNNCellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        text = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            text += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            text += ", nonlinearity={nonlinearity}"
        return text.format(**self.__dict__)

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _prepare(self, input: Tensor, hx, name: str):
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(
                f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        self._check_cell(input, (hx,))
        return input, hx, batched

    def _check_cell(self, input: Tensor, hiddens: tuple) -> None:
        """torch's check_rnn_cell_forward_input/_hidden (the cell kernels' own checks)."""
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.input_size}")
        for label, hidden in enumerate(hiddens):
            if input.size(0) != hidden.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match "
                                   f"hidden{label} batch size {hidden.size(0)}")
            if hidden.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                                   f"{hidden.size(1)}, expected {self.hidden_size}")


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        input, hx, batched = self._prepare(input, hx, "RNNCell")
        # torch's SimpleCell: linear_hh(hidden) + linear_ih(input) (that operand order)
        pre = F.linear(hx, self.weight_hh, self.bias_hh) + F.linear(input, self.weight_ih,
                                                                     self.bias_ih)
        out = pre.tanh() if self.nonlinearity == "tanh" else pre.relu()
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(
                f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for index, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{index}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            h = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            c = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        else:
            if batched and len(hx) != 2:  # (passed on whole to torch's lstm_cell)
                raise RuntimeError("lstm_cell expects two hidden states")
            h, c = hx[0], hx[1]  # (unbatched, torch indexes: a 1-tuple is its IndexError)
            if not batched:
                h, c = h.unsqueeze(0), c.unsqueeze(0)
        self._check_cell(input, (h, c))
        h, c = _ops.lstm_cell(input, (h, c), self.weight_ih, self.weight_hh, self.bias_ih,
                              self.bias_hh)
        if not batched:
            return h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        from ..._functions_native import gru_step

        input, hx, batched = self._prepare(input, hx, "GRUCell")
        out = gru_step(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return out if batched else out.squeeze(0)
