"""t.storage() / t.untyped_storage(): sizes, bytes, values, data pointers shared with views,
and the deprecation warning, against torch."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()

SRC = Path(__file__).resolve().parent.parent / "src"

TENSORS = ["lib.arange(6.0).reshape(2, 3)", "lib.arange(6.0).reshape(2, 3)[1]",
           "lib.arange(12).reshape(3, 4).t()", "lib.tensor([True, False])",
           "lib.arange(10, dtype=lib.int16)[2:7:2]", "lib.zeros(0)", "lib.tensor(3.5)",
           "lib.ones(2, 3, dtype=lib.float64)[:, 1]"]


def _describe(lib, code):
    base = eval(code, {"lib": lib})  # noqa: S307 - the cases above
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = base.storage()
    untyped = base.untyped_storage()
    root_ptr = base.data_ptr() - base.storage_offset() * base.element_size()
    return (typed.size(), len(typed), str(typed.dtype).split(".")[-1], typed.nbytes(),
            typed.element_size(), typed.tolist(), typed.data_ptr() == root_ptr,
            untyped.size(), untyped.nbytes(), untyped.element_size(), untyped.tolist(),
            untyped.data_ptr() == root_ptr, str(untyped.device), list(iter(typed))[:3],
            typed[0] if len(typed) else None, untyped[0] if len(untyped) else None)


@pytest.mark.parametrize("code", TENSORS)
def test_storage_matches_torch(code):
    assert _describe(leafgrad, code) == _describe(torch, code)


def test_views_share_the_storage_pointer():
    for lib in (leafgrad, torch):
        a = lib.arange(6.0)
        assert a[2:].untyped_storage().data_ptr() == a.untyped_storage().data_ptr()


def test_typed_storage_warns_once_per_process_like_torch():
    program = ("import warnings, sys\n"
               "warnings.simplefilter('always')\n"
               "import {lib} as lib\n"
               "lib.set_warn_always(True)\n"
               "with warnings.catch_warnings(record=True) as caught:\n"
               "    warnings.simplefilter('always')\n"
               "    lib.zeros(2).storage(); lib.zeros(2).storage(); lib.zeros(2).untyped_storage()\n"
               "print(repr([str(w.message) for w in caught]))\n")
    outputs = []
    for lib in ("leafgrad", "torch"):
        done = subprocess.run([sys.executable, "-c", program.format(lib=lib)], capture_output=True,
                              text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(SRC)})
        outputs.append(done.stdout.strip().splitlines()[-1])
    assert outputs[0] == outputs[1]
    assert "TypedStorage is deprecated" in outputs[0]
