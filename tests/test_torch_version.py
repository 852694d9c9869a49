"""``leafgrad.__version__`` is the torch version whose API leafgrad implements, a
``TorchVersion`` comparing as torch's does (torch_version.py): version-gated code takes the
branch written for torch 2.13."""

from __future__ import annotations

import pytest

import leafgrad
from leafgrad.torch_version import TorchVersion

from ._torch import require_torch

OTHERS = ["2.0", "2.13", "2.13.0", "2.13.0+cpu", "2.13.0+cu121", "2.14.0a0", "2.13.1",
          "2.13.0rc1", "2.13.0.post1", "2.13.0.dev20250101", "1.13.1", "10.0", "abc", "",
          (2, 13), (2, 13, 0), [2, 14], (1,), 2, None, 2.13]


def _observe(version, other):
    seen = []
    for op in ("__gt__", "__ge__", "__lt__", "__le__", "__eq__", "__ne__"):
        try:
            seen.append(bool({"__gt__": lambda: version > other, "__ge__": lambda: version >= other,
                              "__lt__": lambda: version < other,
                              "__le__": lambda: version <= other,
                              "__eq__": lambda: version == other,
                              "__ne__": lambda: version != other}[op]()))
        except TypeError as error:
            seen.append(("TypeError", str(error)))
    return seen


@pytest.mark.parametrize("text", ["2.13.0+cpu", "2.13.0", "2.1.0a0+git123", "1.0"])
def test_comparisons_as_torch_version(text):
    torch = require_torch()
    mine, theirs = TorchVersion(text), torch.torch_version.TorchVersion(text)
    for other in OTHERS:
        assert _observe(mine, other) == _observe(theirs, other), other


def test_version_is_torchs_cpu_build():
    torch = require_torch()
    assert leafgrad.__version__ == torch.__version__ and str(leafgrad.__version__) == "2.13.0+cpu"
    assert isinstance(leafgrad.__version__, str) and leafgrad.version.__version__ is leafgrad.__version__
    assert leafgrad.__version__ >= "2.0" and hash(leafgrad.__version__) == hash("2.13.0+cpu")
