"""One row of a differential table: run a line of code (after a shared setup) with leafgrad or
torch as ``lib`` and compare what came out: the exception's type and first line, or the
result's dtype, shape and values."""

from __future__ import annotations

import warnings

import numpy as np


def outcome(lib, setup: str, code: str):
    namespace = {"lib": lib}
    exec(setup, namespace)  # noqa: S102 - the table's setup
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(code, namespace)  # noqa: S307 - the table's calls
    except Exception as error:  # noqa: BLE001 - comparing torch's exceptions
        return type(error).__name__, str(error).splitlines()[0]
    return str(value.dtype).split(".")[-1], tuple(value.shape), value.numpy()


def assert_same(ours, theirs, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    if len(theirs) == 2:  # torch raised
        assert ours == theirs
        return
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=rtol, atol=atol)
