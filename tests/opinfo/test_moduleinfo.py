"""torch's ModuleInfo error inputs (module_error_inputs_func) replayed on leafgrad.nn
(tests/opinfo/sweep_errors.py): each ErrorModuleInput's constructor, and forward with the
module in training and in eval mode, for float64 and float32; the same exception type and first
line of torch's message, and nothing changed (inputs, parameters) when leafgrad raised.

KNOWN lists the (module, sample index) pairs that still differ; the test fails when another pair
differs and when a KNOWN pair starts agreeing."""

from __future__ import annotations

import pytest

from tests._torch import require_torch

torch = require_torch()

from tests.opinfo import sweep_errors  # noqa: E402

# (module class name, error input index) -> why leafgrad still differs
KNOWN: dict = {}  # every ModuleInfo error input agrees with torch


@pytest.fixture(scope="module")
def report():
    return sweep_errors.sweep_modules(torch)


def _keys(report) -> dict:
    found = {}
    for (name, dtype, training), rows in report.items():
        for index, differences in rows:
            found.setdefault((name, index), []).append(f"{dtype} training={training}: {differences}")
    return found


def test_module_error_inputs_agree_with_torch(report):
    found = _keys(report)
    new = {key: rows for key, rows in found.items() if key not in KNOWN}
    assert not new, "\n".join(f"{key}: {rows}" for key, rows in new.items())


def test_known_module_differences_are_still_real(report):
    found = _keys(report)
    fixed = sorted(key for key in KNOWN if key not in found)
    assert not fixed, f"KNOWN entries that now agree with torch (remove them): {fixed}"
