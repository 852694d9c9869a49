"""The op coverage page is generated from the op table; it must be current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ops_page_is_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_ops.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_coverage_page_is_up_to_date():
    from ._torch import require_torch

    require_torch()  # the page compares with torch 2.13's namespaces
    result = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_coverage.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_float32_bits_page_is_up_to_date():
    """docs/float32-bits.md's shares of bit-identical float32 results are measured now."""
    from ._torch import require_torch

    require_torch()
    result = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_float_bits.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
