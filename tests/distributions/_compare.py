"""Run one scenario under torch and under leafgrad and compare what it produced."""

import math

import numpy as np

import leafgrad as lg
from tests._torch import require_torch

torch = require_torch()


def params(m, *values, dtype="float32"):
    """Leaf tensors requiring grad, one per value (nested lists allowed)."""
    return [m.tensor(v, dtype=getattr(m, dtype), requires_grad=True) for v in values]


def _text(x) -> str:
    return str(x).replace("leafgrad.", "torch.")


def outcome(fn, m, seed=0):
    """fn(m) -> (dict of named results, list of leaves); errors become (type, first line)."""
    m.manual_seed(seed)
    try:
        results, leaves = fn(m)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return ("error", type(error).__name__, str(error).split("\n")[0].replace("leafgrad.",
                                                                                "torch."))
    out = {}
    for name, value in results.items():
        if isinstance(value, (m.Tensor,)):
            entry = {"value": value.detach().numpy().copy(), "dtype": _text(value.dtype),
                     "shape": tuple(value.shape)}
            if value.requires_grad and leaves and value.numel():
                grads = m.autograd.grad(value.sum(), leaves, allow_unused=True,
                                        retain_graph=True)
                entry["grads"] = [None if g is None else g.numpy().copy() for g in grads]
            out[name] = entry
        else:
            out[name] = _text(value)
    return out


def assert_same(fn, seed=0, rtol=1e-6, atol=1e-6, exact=(), near=()):
    """``exact`` names must be bit-identical; ``near`` names within a few units in the last
    place (the same draws pushed through libm functions NumPy rounds differently)."""
    want, got = outcome(fn, torch, seed), outcome(fn, lg, seed)
    if isinstance(want, tuple) or isinstance(got, tuple):
        assert got == want
        return
    assert want.keys() == got.keys()
    for name in want:
        w, g = want[name], got[name]
        if isinstance(w, str):
            assert g == w, name
            continue
        assert (g["dtype"], g["shape"]) == (w["dtype"], w["shape"]), name
        if name in exact:
            np.testing.assert_array_equal(g["value"], w["value"], err_msg=name)
        elif name in near:
            eps = float(np.finfo(w["value"].dtype).eps)
            np.testing.assert_allclose(g["value"], w["value"], rtol=8 * eps, atol=8 * eps,
                                       err_msg=name, equal_nan=True)
        else:
            np.testing.assert_allclose(g["value"], w["value"], rtol=rtol, atol=atol,
                                       err_msg=name, equal_nan=True)
        assert ("grads" in g) == ("grads" in w), name
        for gg, wg in zip(g.get("grads", []), w.get("grads", [])):
            assert (gg is None) == (wg is None), name
            if wg is not None:
                np.testing.assert_allclose(gg, wg, rtol=max(rtol, 1e-5), atol=max(atol, 1e-5),
                                           err_msg=name + " grad", equal_nan=True)


NAN = math.nan



def assert_same_ok(fn, **kwargs):
    """assert_same for a scenario that must produce results under torch: two identical errors
    would otherwise pass unnoticed."""
    want = outcome(fn, torch, kwargs.get("seed", 0))
    assert not isinstance(want, tuple), want
    assert_same(fn, **kwargs)
