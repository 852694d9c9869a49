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
    return str(result.dtype).split(".")[-1], result.tolist()


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
