"""torch's ATen-level namespace functions (_functions_native.py, ops/native_forms.py):
native_layer_norm/batch_norm/group_norm/dropout/norm, frobenius_norm, nuclear_norm, cholesky,
convolution and the recurrent cells, against torch 2.13: every output's shape, dtype, node,
requires_grad and values, gradients of the first output, and errors."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import leafgrad

from .._torch import require_torch

torch = require_torch()

CASES = [
    'lib.native_layer_norm(x, [4], w, b, 1e-5)',
    'lib.native_layer_norm(x, [4], None, None, 1e-5)',
    'lib.native_layer_norm(x, (3, 4), None, None, 1e-5)',
    'lib.native_layer_norm(x.detach(), [4], None, None, 1e-5)',
    'lib.native_layer_norm(x, [4], w, b)',
    'lib.native_layer_norm(x, [5], None, None, 1e-5)',
    'lib.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)',
    'lib.native_batch_norm(x, lib.ones(3), lib.zeros(3), lib.zeros(3), lib.ones(3), True, 0.1, 1e-5)',
    'lib.native_batch_norm(x, lib.ones(3), lib.zeros(3), lib.zeros(3), lib.ones(3), False, 0.1, 1e-5)',
    '(lambda rm, rv: (lib.native_batch_norm(x, None, None, rm, rv, True, 0.3, 1e-5)[0], rm, rv))(lib.zeros(3), lib.ones(3))',
    'lib.native_group_norm(x, None, None, 2, 3, 4, 1, 1e-5)',
    'lib.native_group_norm(x, lib.ones(3), lib.zeros(3), 2, 3, 4, 3, 1e-5)',
    'lib.native_group_norm(x, None, None, 2, 3, 4, 2, 1e-5)',
    'lib.native_dropout(x, 0.5, True)',
    'lib.native_dropout(x, 0.5, False)',
    'lib.native_dropout(x.detach(), 0., True)',
    'lib.native_dropout(x, 1., True)',
    '(lib.native_dropout(x, 1., True)[0], lib.rand(2))',
    '(lib.native_dropout(x, 0.3, True)[0], lib.rand(2))',
    'lib.native_dropout(x.double(), 0.3, True)',
    'lib.native_dropout(x.long(), 0.3, True)',
    'lib.native_dropout(x.long(), 0.3, False)',
    'lib.native_norm(x)',
    'lib.native_norm(x, 2, [1], True, None)',
    'lib.frobenius_norm(x, [1])',
    'lib.frobenius_norm(x, [1, 2], True)',
    'lib.frobenius_norm(x, [-1])',
    'lib.frobenius_norm(x)',
    'lib.nuclear_norm(x[0])',
    'lib.nuclear_norm(x[0], True)',
    'lib.nuclear_norm(x, [1, 2])',
    'lib.nuclear_norm(x, [1, 2], keepdim=True)',
    'lib.nuclear_norm(x)',
    'lib.cholesky(spd)',
    'lib.cholesky(spd, upper=True)',
    'lib.cholesky(spd, True)',
    'lib.cholesky(spd.detach())',
    'lib.cholesky(-spd)',
    'lib.cholesky(lib.ones(2, 3))',
    'lib.cholesky(lib.ones(3))',
    'lib.cholesky(lib.eye(2, dtype=lib.int64))',
    'lib.cholesky(spd.expand(2, 3, 3) * -1)',
    'lib.cholesky(spd, upper=1)',
    'spd.cholesky()',
    'spd.cholesky(upper=True)',
    'lib.convolution(x, R(5, 3, 2, rg=True), None, [1], [0], [1], False, [0], 1)',
    'lib.convolution(x, R(5, 3, 2), R(5), [2], [1], [1], False, [0], 1)',
    'lib.convolution(x, R(3, 5, 2), None, [1], [0], [1], True, [0], 1)',
    'lib.convolution(x, R(3, 5, 2), None, [2], [0], [1], True, [1], 1)',
    'lib.convolution(x.reshape(1, 2, 3, 4), R(3, 2, 2, 2), R(3), [1, 1], [0, 0], [1, 1], False, [0, 0], 1)',
    'lib.convolution(x.reshape(1, 2, 3, 4), R(2, 3, 2, 2), None, [1, 1], [1, 1], [1, 1], True, [0, 0], 1)',
    'lib.convolution(x.reshape(1, 1, 2, 3, 4), R(2, 1, 2, 2, 2), None, [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1)',
    'lib.convolution(x, R(6, 1, 2), None, [1], [0], [1], False, [0], 3)',
    'lib.rnn_tanh_cell(x[0], R(3, 5), R(5, 4), R(5, 5))',
    'lib.rnn_tanh_cell(x[0], R(3, 5), R(5, 4), R(5, 5), R(5), R(5))',
    'lib.rnn_relu_cell(x[0], R(3, 5), R(5, 4), R(5, 5), R(5), R(5))',
    'lib.gru_cell(x[0], R(3, 5), R(15, 4), R(15, 5))',
    'lib.gru_cell(x[0], R(3, 5), R(15, 4), R(15, 5), R(15), R(15))',
    'lib.rnn_tanh_cell(x[0, 0], R(5), R(5, 4), R(5, 5))',
    'lib.rnn_tanh_cell(x[0], R(2, 5), R(5, 4), R(5, 5))',
    'lib.rnn_tanh_cell(x[0], R(3, 6), R(5, 4), R(5, 5))',
    'lib.rnn_tanh_cell(x[0], R(3, 5), R(5, 3), R(5, 5))',
    'lib.gru_cell(x[0], R(3, 5, rg=True), R(15, 4), R(15, 5))',
]


def _outcome(lib, code):
    lib.manual_seed(0)  # native_dropout draws: the same stream in both libraries
    rng = np.random.default_rng(0)

    def R(*shape, rg=False):  # noqa: N802 - short for the table
        return lib.tensor(rng.normal(size=shape).astype(np.float32), requires_grad=rg)

    x, w, b = R(2, 3, 4, rg=True), R(4, rg=True), R(4, rg=True)
    spd = lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], requires_grad=True)
    scope = dict(lib=lib, x=x, w=w, b=b, R=R, spd=spd, np=np)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # once-per-process deprecations: see below
        try:
            value = eval(code, scope)  # noqa: S307 - the table's calls
        except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
            return type(error).__name__, str(error).splitlines()[0]
    values = value if isinstance(value, (tuple, list)) else (value,)
    facts = [(tuple(v.shape), str(v.dtype).split(".")[-1], v.grad_fn and v.grad_fn.name(),
              v.requires_grad, v.detach().double().numpy()) for v in values]
    grads = None
    if values[0].requires_grad:
        leaves = [t for t in (x, w, b, spd) if t.requires_grad]
        grads = lib.autograd.grad((values[0] * values[0]).sum(), leaves, allow_unused=True)
        grads = [None if g is None else g.double().numpy() for g in grads]
    return facts, grads


def _same(ours, theirs):
    if isinstance(theirs[0], str):
        assert ours == theirs
        return
    (facts, grads), (want_facts, want_grads) = ours, theirs
    assert [f[:4] for f in facts] == [f[:4] for f in want_facts]
    for got, want in zip(facts, want_facts):
        np.testing.assert_allclose(got[4], want[4], rtol=1e-5, atol=1e-5)
    assert (grads is None) == (want_grads is None)
    for got, want in zip(grads or (), want_grads or ()):
        assert (got is None) == (want is None)
        if got is not None:
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("code", CASES)
def test_matches_torch(code):
    _same(_outcome(leafgrad, code), _outcome(torch, code))


def test_native_dropout_train_none_gradient_is_torchs():
    # torch scales the forward by 1 / (1 - p) but not the backward when train is None (Note:
    # native_dropout with train=None): the gradient is the mask itself
    leafgrad.manual_seed(4)
    x = leafgrad.ones(50, dtype=leafgrad.float64, requires_grad=True)
    out, mask = leafgrad.native_dropout(x, 0.2, None)
    out.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), mask.numpy() / 0.8)
    np.testing.assert_array_equal(x.grad.numpy(), mask.numpy())
    torch.manual_seed(4)
    torch_x = torch.ones(50, dtype=torch.float64, requires_grad=True)
    torch_out, torch_mask = torch.native_dropout(torch_x, 0.2, None)
    torch_out.sum().backward()
    np.testing.assert_array_equal(mask.numpy(), torch_mask.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), torch_x.grad.numpy())


def test_native_batch_norm_updates_running_statistics_as_torch():
    def run(lib):
        x = lib.arange(24.0).reshape(2, 3, 4) / 7
        mean, var = lib.zeros(3), lib.ones(3)
        _, save_mean, save_invstd = lib.native_batch_norm(x, None, None, mean, var, True, 0.3,
                                                          1e-5)
        return [t.numpy().copy() for t in (mean, var, save_mean, save_invstd)]

    for got, want in zip(run(leafgrad), run(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


DEPRECATED = ["lib.frobenius_norm(x, [1])", "lib.nuclear_norm(x)", "lib.cholesky(spd)"]


@pytest.mark.parametrize("code", DEPRECATED)
def test_deprecation_warned_once_per_process_as_torch(code):
    # a fresh process for each library: the warnings are once per process in both
    program = (
        "import warnings, sys\n"
        "import {lib} as lib\n"
        "x = lib.ones(2, 3, 4)\n"
        "spd = lib.eye(3) * 2\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    {code}\n"
        f"    {code}\n"
        "print(repr([str(w.message).split(' (Triggered')[0] for w in caught]))\n")

    def run(name):
        result = subprocess.run([sys.executable, "-c", program.replace("{lib}", name)],
                                capture_output=True, text=True, check=True)
        return result.stdout

    assert run("leafgrad") == run("torch")
