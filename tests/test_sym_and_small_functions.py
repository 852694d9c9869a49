"""torch.sym_* on Python numbers, norm_except_dim, is_distributed, init_num_threads,
as_strided_ and the DisableTorchFunction names at the top level, against torch."""

from __future__ import annotations

import itertools

import numpy as np

import leafgrad

from ._torch import require_torch

torch = require_torch()


def _outcome(call):
    try:
        value = call()
    except Exception as error:  # noqa: BLE001 - compared by type and first line
        return ("error", type(error).__name__, str(error).splitlines()[0] if str(error) else "")
    return ("ok", type(value).__name__, value)


NUMBERS = [0, 3, -3, True, False, 2.5, -3.7, 0.0, -0.0, float("inf"), np.int64(4),
           np.float32(1.5), np.float64(-2.25), "a", None]


def test_sym_functions_on_numbers():
    for name in ("sym_int", "sym_float", "sym_not", "sym_sqrt"):
        for a in NUMBERS:
            assert _outcome(lambda: getattr(leafgrad, name)(a)) == _outcome(
                lambda: getattr(torch, name)(a)), (name, a)
    for name in ("sym_max", "sym_min"):
        for a, b in itertools.product(NUMBERS[:13], repeat=2):
            assert _outcome(lambda: getattr(leafgrad, name)(a, b)) == _outcome(
                lambda: getattr(torch, name)(a, b)), (name, a, b)
    for b, t, f in [(True, 1, 2), (False, 1, 2), (False, 1.5, 2.5), (True, "x", "y")]:
        assert _outcome(lambda: leafgrad.sym_ite(b, t, f)) == _outcome(
            lambda: torch.sym_ite(b, t, f))
    for args in [([1, 2, 3],), ((1.5, 2),), ([],), (1, 2), (4,), ([True, 2.5],)]:
        assert _outcome(lambda: leafgrad.sym_sum(*args)) == _outcome(
            lambda: torch.sym_sum(*args)), args


def test_norm_except_dim_values_nodes_and_gradients():
    rng = np.random.default_rng(0)
    for shape in [(2, 3, 4), (5,), (3, 1, 2, 2)]:
        data = rng.normal(size=shape)
        for dim in range(-1, len(shape)):
            for p in (2, 3, 1):
                results = []
                for lib in (leafgrad, torch):
                    v = lib.tensor(data, requires_grad=True)
                    out = lib.norm_except_dim(v, p, dim)
                    out.sum().backward()
                    results.append((tuple(out.shape), out.detach().numpy().tolist(),
                                    out.grad_fn.name(), v.grad.numpy().tolist()))
                ours, theirs = results
                assert ours[:3] == theirs[:3]
                assert np.allclose(ours[3], theirs[3], rtol=1e-12, atol=0)
    for lib_args in [((2, 3), 2, 5), ((2, 3), 2, -3)]:
        assert _outcome(lambda: leafgrad.norm_except_dim(leafgrad.ones(*lib_args[0]),
                                                          *lib_args[1:])) == _outcome(
            lambda: torch.norm_except_dim(torch.ones(*lib_args[0]), *lib_args[1:]))


def test_norm_except_dim_forward_ad_as_torch():
    """torch's norm.Scalar forward formula keeps the reduced dims: over a tensor with dims its
    tangent does not fit the 0-d norm (torch's error); dims 0 and last work."""
    rng = np.random.default_rng(1)
    for shape, dim in [((2, 3), -1), ((4,), -1), ((), -1), ((2, 3), 0), ((2, 3, 2), 2),
                       ((2, 3, 2), 1)]:
        data, tangent = rng.normal(size=shape), rng.normal(size=shape)
        outcomes = []
        for lib in (leafgrad, torch):
            fw = lib.autograd.forward_ad
            with fw.dual_level():
                def run():
                    dual = fw.make_dual(lib.tensor(data), lib.tensor(tangent))
                    out = fw.unpack_dual(lib.norm_except_dim(dual, 2, dim))
                    return out.tangent.numpy().round(12).tolist()
                outcomes.append(_outcome(run))
        assert outcomes[0] == outcomes[1], (shape, dim)


def test_small_top_level_functions():
    assert leafgrad.is_distributed(leafgrad.ones(1)) is torch.is_distributed(torch.ones(1))
    assert _outcome(lambda: leafgrad.is_distributed(3)) == _outcome(lambda: torch.is_distributed(3))
    assert leafgrad.init_num_threads() is torch.init_num_threads() is None
    ours, theirs = leafgrad.zeros(6), torch.zeros(6)
    assert leafgrad.as_strided_(ours, (2, 2), (1, 2), 1) is ours
    torch.as_strided_(theirs, (2, 2), (1, 2), 1)
    assert (ours.shape, ours.stride(), ours.storage_offset()) == (
        tuple(theirs.shape), theirs.stride(), theirs.storage_offset())
    assert leafgrad.DisableTorchFunction is leafgrad._C.DisableTorchFunction
    assert leafgrad.DisableTorchFunctionSubclass is leafgrad._C.DisableTorchFunctionSubclass
