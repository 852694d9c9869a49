"""Defects found while building this stop's features, each swept against torch."""

from __future__ import annotations

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _outcome(call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - compared by type and first line
        return type(error).__name__, str(error).splitlines()[0]
    return str(result.dtype).split(".")[-1], repr(result.tolist())  # (repr: NaNs compare)


def test_addcmul_addcdiv_value_is_a_scalar_as_torchs_parser_reads_it():
    """``value`` is a Number: Python and NumPy numbers, a 0-d tensor that does not require
    grad; None, lists, arrays, other tensors are torch's TypeError (leafgrad computed NaNs or
    broadcast them); a complex value with real operands converts only without an imaginary
    part (torch's conversion error names the kernel's C type)."""
    values = [lambda L: L.tensor([0.5]), lambda L: L.tensor(0.5), lambda L: L.tensor(2),
              lambda L: L.tensor(0.5, requires_grad=True), lambda L: "a", lambda L: None,
              lambda L: [1], lambda L: np.float32(0.5), lambda L: np.int64(3),
              lambda L: np.array(0.5), lambda L: 1j, lambda L: 2 + 0j, lambda L: True,
              lambda L: np.complex64(1 + 1j), lambda L: 0.25]
    dtypes = ["float32", "float64", "int64", "int32", "int8", "uint8", "bool", "complex64",
              "float16"]
    checked = 0
    for make in values:
        for dtype in dtypes:
            for name in ("addcmul", "addcmul_", "addcdiv", "addcdiv_"):
                for form in ("method", "function"):
                    if form == "function" and name.endswith("_"):
                        continue

                    def run(lib):
                        x = lib.ones(3, dtype=getattr(lib, dtype))
                        y = lib.arange(1, 4).to(getattr(lib, dtype))
                        if form == "method":
                            return getattr(x.clone(), name)(y, x, value=make(lib))
                        return getattr(lib, name)(x, y, x, value=make(lib))

                    assert _outcome(lambda: run(leafgrad)) == _outcome(lambda: run(torch)), (
                        name, form, dtype, make(torch))
                    checked += 1
    assert checked == len(values) * len(dtypes) * 6


def test_number_arguments_refuse_what_is_not_a_number():
    """Scalar arguments of fill_, masked_fill, addmv, addr, index_add, addmm, baddbmm,
    addbmm, lerp, dist, histc, logit, nan_to_num, clamp_min/max and the activation functions: Python/NumPy numbers and 0-d tensors not requiring grad are taken, anything
    else is torch's TypeError (fill_(None) and masked_fill(mask, None) filled NaNs, lists and
    arrays broadcast: silent wrong results)."""
    F_ours, F_theirs = leafgrad.nn.functional, torch.nn.functional
    bad = [lambda L: None, lambda L: "a", lambda L: [1.0], lambda L: np.array(0.5),
           lambda L: L.tensor([0.5]), lambda L: L.tensor(0.5, requires_grad=True),
           lambda L: L.tensor(0.5), lambda L: np.float32(0.25), lambda L: np.int64(2),
           lambda L: True]  # (complex values into real kernels: another class, see the note)

    def calls(L, F):
        x, y, m = L.ones(3), L.arange(3.0), L.ones(2, 2)
        return {
            "fill_": lambda v: x.clone().fill_(v),
            "masked_fill": lambda v: x.masked_fill(x > 0, v),
            "masked_fill_": lambda v: x.clone().masked_fill_(x > 0, v),
            "torch.masked_fill": lambda v: L.masked_fill(x, x > 0, v),
            "addmv": lambda v: L.addmv(x[:2], m, x[:2], beta=v),
            "addmv_": lambda v: x[:2].clone().addmv_(m, x[:2], alpha=v),
            "addr": lambda v: L.addr(m, x[:2], x[:2], alpha=v),
            "index_add": lambda v: L.index_add(x, 0, L.tensor([0]), y[:1], alpha=v),
            "index_add_": lambda v: x.clone().index_add_(0, L.tensor([0]), y[:1], alpha=v),
            "leaky_relu": lambda v: F.leaky_relu(x, v),
            "leaky_relu_": lambda v: F.leaky_relu(x.clone(), v, inplace=True),
            "elu": lambda v: F.elu(x, v), "celu": lambda v: F.celu(x, v),
            "softplus": lambda v: F.softplus(x, 1.0, v), "hardshrink": lambda v: F.hardshrink(x, v),
            "softshrink": lambda v: F.softshrink(x, v), "threshold": lambda v: F.threshold(x, v, 0.0),
            "threshold_": lambda v: F.threshold(x.clone(), 0.5, v, inplace=True),
            "rrelu": lambda v: F.rrelu(x, v, 0.5), "hardtanh": lambda v: F.hardtanh(x, v, 1.0),
            "addmm": lambda v: L.addmm(m, m, m, beta=v),
            "Tensor.addmm": lambda v: m.addmm(m, m, alpha=v),
            "baddbmm": lambda v: L.baddbmm(m[None], m[None], m[None], alpha=v),
            "Tensor.baddbmm": lambda v: m[None].baddbmm(m[None], m[None], beta=v),
            "addbmm": lambda v: L.addbmm(m, m[None], m[None], alpha=v),
            "Tensor.addbmm": lambda v: m.addbmm(m[None], m[None], beta=v),
            "lerp": lambda v: L.lerp(x, y, v), "Tensor.lerp": lambda v: x.lerp(y, v),
            "dist": lambda v: L.dist(x, y, v), "Tensor.dist": lambda v: x.dist(y, v),
            "histc": lambda v: L.histc(y, 3, v, 2.0), "Tensor.histc": lambda v: y.histc(3, 0.0, v),
            "logit": lambda v: L.logit(x * 0.5, v), "logit_": lambda v: (x * 0.5).logit_(v),
            "Tensor.logit": lambda v: (x * 0.5).logit(v),
            "nan_to_num": lambda v: L.nan_to_num(x, nan=v),
            "nan_to_num_": lambda v: x.clone().nan_to_num_(0.0, posinf=v),
            "clamp_min": lambda v: L.clamp_min(x, v), "Tensor.clamp_max": lambda v: x.clamp_max(v),
            "Tensor.clamp_min_": lambda v: x.clone().clamp_min_(v),
        }

    ours, theirs = calls(leafgrad, F_ours), calls(torch, F_theirs)
    for name in ours:
        for make in bad:
            assert _outcome(lambda: ours[name](make(leafgrad))) == _outcome(
                lambda: theirs[name](make(torch))), (name, make(torch))


def test_float64_activation_replays_keep_torchs_layouts():
    """The float64 SLEEF replays of elu/selu/celu/gelu(tanh) (merged this stop) returned
    row-major results for transposed inputs, and so NaN inputs took the wrong kernel path in
    the backward: results and gradients are laid out as torch's, for every grad layout."""
    data = np.random.default_rng(0).normal(size=(7, 9))
    data[0, 1] = np.nan

    def layouts(lib):
        F = lib.nn.functional
        found = []
        for f in (F.elu, F.selu, F.celu, F.silu, F.softplus, F.logsigmoid,
                  lambda t: F.gelu(t, approximate="tanh")):
            for x in (lib.tensor(data).t(), lib.tensor(data), lib.tensor(data)[:, ::2]):
                x = x.detach().requires_grad_()
                out = f(x)
                for g in (lib.ones_like(out), lib.ones(*reversed(out.shape),
                                                       dtype=out.dtype).t()):
                    grad, = lib.autograd.grad(f(x), x, g)
                    found.append((out.stride(), grad.stride(),
                                  np.isnan(grad.numpy()).tolist()))
        return found

    assert layouts(leafgrad) == layouts(torch)
